/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The whole broker (src/daemon/manager*.c) as an ordinary user, for
 * test-broker-*.c: the real plugins from $RTF_BUILD_PLUGINDIR, a real config
 * and policy file, and a fake kernel_ops table in place of the kernel, which
 * records every setting a thread gets and can fail any step.  The
 * integration suite checks the same paths against the real kernel.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "event.h"
#include "kernel.h"
#include "manager.h"
#include "thread.h"
#include "rtf/rtf.h"

/* ---- the fake kernel ---- */

#define FAKE_THREADS 32

struct fake_thread {
        pid_t tid;
        uid_t uid;
        bool alive;
        int pidfd;                      /* an eventfd: written = "exited" */
        struct rtf_sched_setting setting;       /* in force; policy OTHER = demoted */
        unsigned applies;               /* settings it was given */
};

struct fake_kernel {
        struct fake_thread threads[FAKE_THREADS];
        int fail_open, fail_apply, fail_demote, fail_owners, fail_rebuild;      /* -errno for the next call */
        unsigned fail_apply_times;      /* how many applies fail_apply fails */
        unsigned n_open, n_close, n_apply, n_demote, n_rebuild;
        bool hint;
};

/* A live thread of `uid`, at SCHED_OTHER. */
struct fake_thread *fake_spawn(struct fake_kernel *k, pid_t tid, uid_t uid);
/* Its exit, as its pidfd shows it. */
void fake_exit(struct fake_thread *f);

/* ---- a broker to test ---- */

struct fixture {
        char dir[64];
        char config[96], acl[96], state[96];
        struct event_loop ev;
        struct fake_kernel k;
        struct manager *mgr;
        struct owner root;      /* a connection of uid 0, gone at fixture_stop() at the latest */
};

/* A policy for uid 65534 (nobody): EDF up to 0.5 of the CPU in all, RM never. */
#define POLICY "nobody EDF max_utilization 0.5\nnobody FP max_priority 40\n"
#define CONFIG "EDF EDF.so 100-100 0\nFP FP.so 1-89 0\n"

/* main(): runs each test, or skips (77) without $RTF_BUILD_PLUGINDIR and says why. */
int broker_tests_run(void (*const *tests)(void), size_t n);
void write_file(const char *path, const char *text);
/* A broker over the fake kernel with these files (limits NULL: the defaults); fixture_start(): POLICY. */
int fixture_start_with(struct fixture *fx, const char *config, const char *policy, const struct limits *limits);
int fixture_start(struct fixture *fx, const char *config, const struct limits *limits);
void fixture_stop(struct fixture *fx);
/* A connection's owner as server.c makes it. */
void owner_init(struct fixture *fx, struct owner *o);

struct rtf_task_params edf(uint64_t runtime_us, uint64_t period_us);
struct rtf_task_params prio(uint32_t priority);

struct listed {
        unsigned n;
        struct manager_task_row rows[16];
        struct rtf_task_params params[16];
};

/* The first 16 tasks of manager_list_tasks(). */
struct listed list(struct manager *m);
