/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtfd's whole-machine admission (issue 11): the veto the broker calls at
 * every create and change, backed by src/shared/admission/machine.c.  It
 * sees every plugin instance's tasks as the kernel will run them (the
 * plugin's attach() setting: policy, CPU, priority, runtime), so that
 * plugins sharing CPUs, SCHED_DEADLINE threads that float over a root
 * domain, and FIFO tasks without a runtime cannot together break what each
 * plugin admitted alone.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "admission/machine.h"
#include "manager.h"

struct soundness_view {
        bool *partitioned;
        struct adm_machine_task *tasks;
        struct adm_machine_instance *instances;
        struct adm_edf_task *scratch;
        size_t cpus_cap, tasks_cap, instances_cap, scratch_cap;
        /* The last set the check admitted, and its partitions: a CPU whose
         * tasks are the same again is not analysed again (host->proven). */
        struct adm_machine_task *prev;
        size_t prev_cap, n_prev;
        bool *prev_partitioned, *proven;
        size_t prev_cpus_cap, proven_cap;
        uint32_t prev_n_cpus;           /* 0 = no admitted set yet */
};

struct soundness {
        uint64_t rt_share;              /* ppb, from /proc/sys/kernel/sched_rt_{runtime,period}_us */
        uint64_t rt_period_us;
        uint64_t fair_share;            /* ppb per CPU kept by the fair server (Linux >= 6.12) */
        /* The veto's arrays, kept between requests and only grown (as the
         * broker's): per request, allocating them cost more than the check. */
        struct soundness_view view;
};

/* Frees the kept arrays; takes a zeroed or read struct. */
void soundness_deinit(struct soundness *sd);

/* What the kernel keeps for itself on this host (reads /proc, uname). */
int soundness_read_host(struct soundness *sd);

/* The manager_veto_fn: 0, or non-zero with the reason. */
int soundness_veto(void *userdata, const struct manager_machine *m, char *reason, size_t reason_size);

/*
 * Log what the configuration means for the whole machine (at start and in
 * --check-config): instances that share CPUs, EDF instances that run
 * unpinned.  Returns an enum adm_machine_config_outcome or a negative errno.
 */
int soundness_report(void *userdata, const struct manager_machine *m);
