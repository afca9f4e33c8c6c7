/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whole-machine admission: is everything rtfd has promoted, taken together,
 * schedulable under the policies the kernel really applies?
 *
 * Each plugin tests its own tasks on its own CPUs.  That is not enough when
 * plugins share CPUs or when SCHED_DEADLINE threads cannot be pinned (no
 * cpuset partition: the kernel runs global EDF over the whole root domain,
 * whatever CPUs the plugin was configured with).  This module sees every
 * instance and every admitted task and checks:
 *
 *   1. SCHED_DEADLINE, per root domain: the density bound of global EDF
 *      (Goossens, Funk, Baruah) over all DEADLINE tasks of the domain, from
 *      every instance, with each CPU counted as dl_cap = rt_share -
 *      fair_share of a CPU (what the kernel's own DL admission keeps);
 *      a partitioned CPU is a domain of one CPU, where it is the EDF
 *      density test, then processor demand when the caller gives scratch.
 *   2. SCHED_FIFO/RR, per CPU: every task with a runtime passes
 *      response-time analysis with as interference every FIFO/RR task of
 *      any instance on that CPU at the same or a higher priority (FIFO
 *      ties and RR slices delay both ways) and every DEADLINE task that
 *      may run on that CPU (above every FIFO priority), the latter as a
 *      CBS server of budget Q per period T released with jitter T - Q.
 *   3. Per CPU: the DEADLINE bandwidth that may run there plus the FIFO/RR
 *      utilisation stay within rt_cap = min(rt_share, 1 - fair_share),
 *      the share the kernel lets real-time threads have (RT throttling,
 *      the fair server).
 *   4. A FIFO/RR task without a runtime (its demand is unknown) never
 *      sits at or above a task with a runtime on the same CPU: that task's
 *      guarantee would depend on it.  Such a set is refused.  Below them it
 *      may still take every cycle they leave, and then the kernel takes
 *      its share back at once (RT throttling, the fair server at zero
 *      laxity): (1 - rt_cap) x rt_period_us at the end of every window,
 *      which the RTA of 2 counts on such a CPU.  Without such a task the
 *      block the kernel may take is what the CPU's real-time work can
 *      leave unpaid in a window (adm_reserved_hole()), often nothing.
 *
 * How rtfd uses it (tools/rtf-sim/host.c does the same):
 *   - at start and in --check-config: fill adm_machine_host (CPUs, which
 *     have a cpuset partition, rt_share from adm_machine_parse_rt_share()
 *     over /proc/sys/kernel/sched_rt_{runtime,period}_us, rt_period_us,
 *     fair_share ADM_MACHINE_FAIR_SHARE_DEFAULT on kernels with the fair
 *     server) and log every line of adm_machine_config_check();
 *   - at commit, after the plugin's schedule(): one adm_machine_task per
 *     admitted task from what its plugin's attach() returns (policy, CPU,
 *     priority, runtime/period/deadline; the declared runtime for FIFO/RR),
 *     then adm_machine_check(); ADM_REJECT rolls the commit back, with
 *     adm_machine_explain() as the reason.
 *
 * Pure: no OS calls, no allocation.  Cost: O(n) for 1, O(n) per CPU that
 * holds FIFO/RR tasks for 3 and 4 (other CPUs are skipped);
 * for 2, on CPUs that several instances (or DEADLINE threads) share,
 * O(n) per iteration of each task's RTA, bounded by host->rta_max_steps
 * (each pass over the task set is n steps); a check that runs out
 * refuses and says so.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "admission/admission.h"

/* Kernel policies, the values of enum rtf_policy. */
enum adm_machine_policy {
        ADM_MACHINE_FIFO = 1,
        ADM_MACHINE_RR = 2,
        ADM_MACHINE_DEADLINE = 6,
};

/* Defaults of the kernel: sched_rt_runtime_us / sched_rt_period_us, fair server 50 ms / 1 s. */
#define ADM_MACHINE_RT_SHARE_DEFAULT 950000000ULL
#define ADM_MACHINE_FAIR_SHARE_DEFAULT 50000000ULL
#define ADM_MACHINE_RT_PERIOD_DEFAULT 1000000ULL
#define ADM_MACHINE_MAX_CPUS 4096u

struct adm_machine_host {
        uint32_t n_cpus;                /* CPUs 0..n_cpus-1 */
        /*
         * partitioned[c]: CPU c is a root domain of its own (cpuset
         * partition).  All other CPUs form one root domain together.
         * NULL = no partition at all.
         */
        const bool *partitioned;
        uint64_t rt_share;              /* ppb: sched_rt_runtime_us / sched_rt_period_us */
        uint64_t fair_share;            /* ppb per CPU kept by the fair server (0 before 6.12) */
        uint64_t rt_period_us;          /* sched_rt_period_us, 0 = ADM_MACHINE_RT_PERIOD_DEFAULT */
        uint64_t rta_max_steps;         /* work limit of one check, 0 = ADM_FP_RTA_DEFAULT_STEPS */
        /*
         * Optional scratch of the caller, one entry per task: with it a
         * partition whose density sum fails gets the processor-demand test
         * (adm_edf_qpa()), as EDF.so does; without it, the density sum.
         */
        struct adm_edf_task *scratch;
        size_t scratch_size;
        /*
         * Optional, per CPU: proven[c] says CPU c's tasks are exactly those
         * of an earlier check that admitted its set on the same host
         * (adm_machine_same_cpus()); its response-time analysis (2), a
         * function of those tasks only, is not repeated.  NULL = none.
         */
        const bool *proven;
};

/* One configured plugin instance, for adm_machine_config_check() and reasons. */
struct adm_machine_instance {
        const char *name;               /* "E0", "RM1" */
        uint32_t policy;                /* enum adm_machine_policy */
        const uint32_t *cpus;           /* absolute CPU numbers */
        uint32_t n_cpus;
        uint32_t prio_min, prio_max;    /* FIFO/RR */
        bool tasks_without_runtime;     /* may admit FIFO/RR tasks that declare no runtime */
};

/* One admitted task as the kernel will run it. */
struct adm_machine_task {
        uint32_t instance;              /* index into the instances, for reasons */
        uint32_t policy;                /* enum adm_machine_policy */
        /*
         * The CPU its thread is pinned to; -1 for a DEADLINE task that is
         * not pinned (it runs anywhere in the shared root domain).  A
         * DEADLINE task on a CPU that is not partitioned is counted over
         * that CPU's whole root domain, as the kernel would run it.
         */
        int32_t cpu;
        uint32_t priority;              /* FIFO/RR kernel priority */
        uint64_t runtime_us;            /* accepted runtime; 0 = none (FIFO/RR only) */
        uint64_t period_us;             /* T; any value when runtime_us = 0 */
        uint64_t deadline_us;           /* min(D, T); 0 = T */
        /*
         * The instance's own test already proved this task against the
         * instance's other tasks on this CPU, the kernel's share included
         * (RM, with util= at most this host's rt_cap).  A CPU where every FIFO/RR task is such a task of one
         * instance and no DEADLINE thread may run is not analysed again.
         */
        bool self_tested;
};

enum adm_machine_refusal {
        ADM_MACHINE_SOUND = 0,
        ADM_MACHINE_DL_BANDWIDTH,       /* 1: density bound of a root domain broken */
        ADM_MACHINE_CPU_OVERLOAD,       /* 3: DL + FIFO/RR utilisation of a CPU over rt_cap */
        ADM_MACHINE_RTA_MISS,           /* 2: a FIFO/RR task would miss its deadline */
        ADM_MACHINE_UNBOUNDED_ABOVE,    /* 4: a task without runtime at or above a guaranteed one */
        ADM_MACHINE_GAVE_UP,            /* the analysis hit rta_max_steps */
};

struct adm_machine_verdict {
        uint32_t refusal;               /* enum adm_machine_refusal */
        int32_t cpu;                    /* the CPU (or first CPU of the root domain) concerned */
        uint32_t task;                  /* index of the task that fails, or the unbounded one */
        uint32_t other;                 /* the task it sits above (UNBOUNDED_ABOVE) */
        uint32_t m;                     /* CPUs of the root domain (DL_BANDWIDTH) */
        uint64_t load;                  /* ppb: density sum, CPU utilisation; or response time us */
        uint64_t load_deadline;         /* ppb: the SCHED_DEADLINE part of load (CPU_OVERLOAD) */
        uint64_t cap;                   /* ppb: the bound it broke; or the deadline us */
};

/*
 * The share (ppb) from the two sysctls' text (as read from /proc/sys/kernel/
 * sched_rt_runtime_us and sched_rt_period_us); a runtime of -1 (throttling
 * off) is a share of 1.  Pure parser: 0 or -EINVAL.
 */
int adm_machine_parse_rt_share(const char *runtime_text, const char *period_text,
                               uint64_t *ret_share);

/*
 * Is the whole set schedulable?  ADM_ADMIT, or ADM_REJECT with *ret saying
 * why (ADM_GAVE_UP is reported as ADM_REJECT with refusal GAVE_UP); a
 * negative errno for an invalid description (a CPU out of range, a
 * DEADLINE task without runtime...).
 */
int adm_machine_check(const struct adm_machine_host *host, const struct adm_machine_task *tasks,
                      size_t n, struct adm_machine_verdict *ret);

/*
 * ret_same[c] (one per CPU) = the tasks that may run on CPU c are the same,
 * in the same order, in prev and cur: what host->proven takes when prev
 * was admitted on this host.  O((n_prev + n_cur) x CPUs).  A task out of
 * range in either set makes every entry false.
 */
void adm_machine_same_cpus(const struct adm_machine_host *host, const struct adm_machine_task *prev, size_t n_prev,
                           const struct adm_machine_task *cur, size_t n_cur, bool *ret_same);

/* A one-line reason for a verdict ("CPU 1: DEADLINE 0.900 + FIFO 0.500 > 0.950"). */
void adm_machine_explain(const struct adm_machine_verdict *v,
                         const struct adm_machine_instance *instances, size_t n_instances,
                         const struct adm_machine_task *tasks, char *buf, size_t size);

/* Outcomes of adm_machine_config_check(). */
enum adm_machine_config_outcome {
        ADM_MACHINE_CONFIG_ISOLATED = 0,  /* no instance can disturb another: per-plugin tests suffice */
        ADM_MACHINE_CONFIG_SHARED = 1,    /* instances share CPUs: sound only with adm_machine_check() */
};

/*
 * Can this configuration be made sound on this host, and what must the
 * whole-machine check adapt to?  Writes one line per finding into buf
 * (each ending in '\n'; truncated to size), e.g. that an EDF instance
 * runs in global mode over CPUs of another instance.  Returns an enum
 * adm_machine_config_outcome, or -EINVAL for a CPU out of range.
 */
int adm_machine_config_check(const struct adm_machine_host *host,
                             const struct adm_machine_instance *instances, size_t n,
                             char *buf, size_t size);
