/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The only code of rtf-bare built with the x87 FPU enabled (the kernel is
 * -mgeneral-regs-only): the work of the FPU tasks of the self-test and of
 * the FPU-misuse fault.  fpu_task_body yields in the middle, so that other
 * FPU tasks run meanwhile; fpu_hold_body keeps values in registers while
 * another FPU task preempts it (the one test that fails when the kernel
 * does not save and restore a task's FPU state).
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

/*
 * Values that live in FPU registers (x87 on i386, SSE on x86-64) for the
 * whole loop, which calls nothing: only preemption can change them, and
 * then only if the kernel did not save and restore this task's state.  The
 * operations are exact (powers of two), so they leave the values as they
 * were, and cannot be folded by the compiler (the inputs come through
 * volatile).
 */
void fpu_hold_body(long data) {
        struct fpu_hold *h = (struct fpu_hold *) data;
        volatile double in = 1.5, two = 2.0;
        double a = in, b = two, c = in + 1, d = in + 2, e = in + 3;
        uint32_t loops = 0;

        while (!h->stop) {
                a = a * b / b;
                c = c * b / b;
                d = d / b * b;
                e = e / b * b;
                loops++;
        }
        h->loops = loops;
        h->intact = a == 1.5 && c == 2.5 && d == 3.5 && e == 4.5;
}

/* As many live values as fpu_hold_body: on i386 the two together need more than the eight x87 registers. */
int64_t fpu_clobber(long seed) {
        volatile double in = (double) seed * 3.25, two = 2.0;
        double a = in, b = two, c = in + 1, d = in + 2, e = in + 3;

        for (int i = 0; i < 100; i++) {
                a = a * b / b;
                c = c * b / b;
                d = d / b * b;
                e = e / b * b;
        }
        return (int64_t) (a + c + d + e);
}
