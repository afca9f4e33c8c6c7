/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The only code of rtf-bare built with the x87 FPU enabled (the kernel is
 * -mgeneral-regs-only): the work of the FPU tasks of the self-test and of
 * the FPU-misuse fault.  Yields in the middle, so that other FPU tasks run
 * with their own registers meanwhile.
 */
#include "app.h"

volatile int64_t fpu_results[4];

void fpu_task_body(long data) {
        volatile double acc = 0;

        for (int i = 1; i <= 50; i++) {
                acc += (double) (data + 1) / i;
                rt_task_yield();
        }
        fpu_results[data & 3] = (int64_t) (acc * 1000 + 0.5);
}
