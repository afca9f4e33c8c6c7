/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The programs built into rtf-bare, chosen with test= on the command line. */
#pragma once

#include "kernel/kernel.h"
#include "lib/cmdline.h"

/* Each returns the number of failed checks; it runs as the root task. */
int selftest_run(struct kernel *k, const struct bare_options *o);
int latency_run(struct kernel *k, const struct bare_options *o);
/* These end in a panic, on purpose (the tests check its message). */
void fault_overflow_run(struct kernel *k);
void fault_fpu_run(struct kernel *k);

/* One check: prints "ok"/"not ok" (TAP-like), returns 1 when it failed. */
int check(bool ok, const char *what);

/* fpu.c (built with the x87 on): FPU work for a task; stores round(result * 1000) in *results[data]. */
void fpu_task_body(long data);
extern volatile int64_t fpu_results[4];
/* A task that holds values in FPU registers until stop, then says whether they survived. */
struct fpu_hold {
        volatile bool stop, intact;
        volatile uint32_t loops;
};
void fpu_hold_body(long data);
/* FPU work over many registers, from a task that preempts fpu_hold_body. */
int64_t fpu_clobber(long seed);
