/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Admission math of the rtf plugins (ReTiF paper, section 5): EDF
 * utilisation tests (eqs. 1-4) and the global-EDF density bound,
 * fixed-priority tests (utilisation, hyperbolic bound, response-time
 * analysis) and the mapping of periods or requested priorities onto a
 * plugin's priority range (eqs. 5 and 6).
 *
 * Pure integer code: no OS calls, no allocation, nothing from libc but
 * <string.h>, so that the same tests run in the daemon, in unit tests, in a
 * simulator and on bare metal.  Callers own all storage.
 *
 * Times are microseconds and must not exceed ADM_TIME_MAX_US: with that
 * limit every product below fits in 64 bits.  Utilisations are parts per
 * billion (ADM_UTIL_ONE is one full CPU), rounded up when they describe a
 * load (so a test never admits more than the exact figure would) and down
 * when they describe room left (accepted runtime).
 *
 * Outcomes: functions return a negative errno for invalid input, otherwise
 * one of enum adm_outcome.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ADM_UTIL_ONE 1000000000ULL
/* ADM_UTIL_ONE * ADM_TIME_MAX_US < 2^64; 10^10 us is 2.8 hours. */
#define ADM_TIME_MAX_US 10000000000ULL

enum adm_outcome {
        ADM_ADMIT = 0,          /* the test proves the set schedulable */
        ADM_REJECT = 1,         /* the test fails (for a necessary test: provably unschedulable) */
        ADM_UNDECIDED = 2,      /* a cheap test could not decide: run the exact one */
        ADM_GAVE_UP = 3,        /* the exact test hit its work limit: treat as a rejection */
};

/* Q / W rounded up (a load) or down (a lower bound); 0 < W <= ADM_TIME_MAX_US, Q <= ADM_TIME_MAX_US. */
uint64_t adm_util_up(uint64_t runtime_us, uint64_t window_us);
uint64_t adm_util_down(uint64_t runtime_us, uint64_t window_us);

/* The scheduling window of eq. 1: min(T, D), with D = 0 meaning "not given". */
static inline uint64_t adm_window(uint64_t period_us, uint64_t deadline_us) {
        return deadline_us != 0 && deadline_us < period_us ? deadline_us : period_us;
}

/* ---- EDF (section 5.1) ---------------------------------------------------- */

struct adm_edf_request {
        uint64_t runtime_us;            /* Q */
        uint64_t des_runtime_us;        /* Qd, 0 = not given */
        uint64_t window_us;             /* min(T, D) */
};

struct adm_edf_result {
        uint64_t util;                  /* Q / min(T, D), rounded up */
        uint64_t accepted_runtime_us;   /* eq. 4 when admitted, else Q */
        uint64_t accepted_util;         /* accepted runtime / min(T, D), rounded up */
};

/*
 * Eq. 3 on one core whose load (eq. 2, without the request) is core_util:
 * ADM_ADMIT if core_util + U <= util_thr, else ADM_REJECT.  Fills *ret in
 * both cases (for the refusal's reason); accepted runtime per eq. 4.
 */
int adm_edf_test_core(uint64_t core_util, uint64_t util_thr, const struct adm_edf_request *req,
                      struct adm_edf_result *ret);

/*
 * Eq. 4, clamped to [Q, max(Q, Qd)] and rounded down, so that the core's load
 * with the accepted runtime (rounded up) stays <= util_thr whenever eq. 3
 * held for Q.  Returns Q when there is no room at all.
 */
uint64_t adm_edf_accepted_runtime(uint64_t core_util, uint64_t util_thr,
                                  const struct adm_edf_request *req);

/*
 * Global EDF on m CPUs (Goossens, Funk, Baruah 2003), with each CPU counted
 * as util_thr of a CPU:  sum(density) <= m * util_thr - (m - 1) * max(density).
 * density_sum and density_max describe the tasks already admitted (without
 * the request).  With util_thr = ADM_UTIL_ONE it is the classic bound; with
 * m = 1 it is eq. 3.  The accepted runtime is the largest in [Q, Qd] that
 * keeps the bound.
 */
int adm_edf_test_global(uint64_t density_sum, uint64_t density_max, uint32_t m,
                        uint64_t util_thr, const struct adm_edf_request *req,
                        struct adm_edf_result *ret);

/* The bound itself, for a complete set. */
bool adm_gfb_holds(uint64_t density_sum, uint64_t density_max, uint32_t m, uint64_t util_thr);

/* One task of a core for the processor-demand test. */
struct adm_edf_task {
        uint64_t runtime_us;            /* Q (the accepted runtime) */
        uint64_t deadline_us;           /* D <= T */
        uint64_t period_us;             /* T */
};

/*
 * Processor demand on one core of capacity util_thr (EDF with D <= T,
 * Baruah et al. 1990) by Quick Processing-demand Analysis (Zhang and Burns
 * 2009): h(t) = sum max(0, floor((t - D_i) / T_i) + 1) Q_i <= util_thr t
 * at every deadline t below L = sum (T_i - D_i) U_i / (util_thr - U).
 * Exact where the density test of eq. 3 is only sufficient (D < T).
 * ADM_ADMIT, ADM_REJECT (also when U, rounded up, reaches util_thr with a
 * D < T: L is unbounded), or ADM_GAVE_UP when *steps (n per iteration)
 * runs out.  QPA visits at most one point per deadline below L, usually
 * far fewer.
 */
int adm_edf_qpa(const struct adm_edf_task *set, size_t n, uint64_t util_thr, uint64_t *steps);

/* ---- Fixed priority (section 5.2) --------------------------------------- */

/* log2(1 + U) fixed point for the hyperbolic bound: 2^-30 units. */
#define ADM_HYPER_ONE (1ULL << 30)

/*
 * What a task adds to its core's aggregate figures, and the aggregate itself
 * (adm_fp_load_add/sub).  Keeping the aggregates lets the common admission
 * cost O(1): the necessary test reads util_floor, the sufficient one hyper.
 * Each task's terms are stored by the caller so that removal subtracts
 * exactly what was added (no drift).
 */
struct adm_fp_load {
        uint64_t util_floor;            /* sum of C/T rounded down: a lower bound of U */
        uint64_t util_ceil;             /* sum of C/T rounded up: for worst-fit and status */
        uint64_t hyper;                 /* sum of upper bounds of log2(1 + C/T) */
        uint32_t tasks;                 /* tasks that declared a runtime */
        uint32_t constrained;           /* of which with D < T */
};

/* The contribution of one task; a task without runtime (C = 0) adds nothing. */
int adm_fp_load_of(uint64_t runtime_us, uint64_t period_us, uint64_t deadline_us,
                   struct adm_fp_load *ret);
void adm_fp_load_add(struct adm_fp_load *core, const struct adm_fp_load *task);
void adm_fp_load_sub(struct adm_fp_load *core, const struct adm_fp_load *task);

/* Upper bound of log2(1 + util / ADM_UTIL_ONE) in ADM_HYPER_ONE units. */
uint64_t adm_hyper_term(uint64_t util);

/*
 * The O(1) tests on a core's load including the new task:
 *   ADM_REJECT     U > 1 for certain (necessary condition violated);
 *   ADM_ADMIT      hyperbolic bound prod(U_i + 1) <= 2 (Bini, Buttazzo 2003),
 *                  only used when priorities are strictly by period
 *                  (rm_order) and every deadline is implicit, where it is
 *                  a sufficient test;
 *   ADM_UNDECIDED  run adm_fp_rta().
 * Callers have checked C <= min(D, T) of each task on its own.
 */
int adm_fp_quick_test(const struct adm_fp_load *core, bool rm_order);

struct adm_fp_task {
        uint64_t runtime_us;            /* C > 0 */
        uint64_t period_us;             /* T > 0 (minimum inter-arrival time) */
        uint64_t deadline_us;           /* D, already min(D, T) */
        uint32_t priority;              /* larger = more urgent */
};

/*
 * The default work limit of one admission request's RTA, in tasks visited
 * (a few ns each): about 1 ms of CPU.
 */
#define ADM_FP_RTA_DEFAULT_STEPS 200000ULL

/*
 * Response time of set[i]: R = C_i + sum over j != i with priority_j >=
 * priority_i of ceil(R / T_j) C_j, iterated from below to the least fixed
 * point.  Tasks that share a priority interfere with each other, which is
 * what SCHED_FIFO can do to them.  ADM_ADMIT with *ret_response_us when
 * R <= D_i, ADM_REJECT when R > D_i, ADM_GAVE_UP when *steps runs out (each
 * iteration costs n steps).
 */
int adm_fp_response_time(const struct adm_fp_task *set, size_t n, size_t i, uint64_t *steps,
                         uint64_t *ret_response_us);

/*
 * Sufficient O(n) test of task set[i]: the response-time upper bound of
 * Bini and Baruah, R <= (C_i + sum C_j (1 - U_j)) / (1 - sum U_j) <= D_i,
 * over the tasks at the same or a higher priority.
 */
bool adm_fp_response_bound_holds(const struct adm_fp_task *set, size_t n, size_t i);

/*
 * Do the tasks of set (any order) with priority <= prio_limit meet their
 * deadlines?  All tasks count as interference; UINT32_MAX checks every
 * task.  Exact for constrained deadlines and distinct priorities,
 * sufficient with shared ones.  On ADM_REJECT or ADM_GAVE_UP, *ret_failed
 * is the index of the task that failed.  *steps is the work budget, shared
 * by successive calls.
 *
 * prio_limit lets an admission check only the tasks a new one can delay:
 * with adm_prio_of_rank() a new task never adds interference to a task of
 * strictly higher priority, so if those passed before they still pass.
 *
 * Cost: each task is first tried with adm_fp_response_bound_holds() (one
 * pass of n steps), then iterated.  The iteration for task i ends after at
 * most 1 + sum_j ceil(D_i / T_j) passes of n steps (a pass that does not
 * stop adds a job of some interfering task, and none has more than
 * ceil(D_i / T_j) jobs before R passes D_i) and at once when the tasks
 * above already reach U = 1: pseudo-polynomial, so *steps is what bounds a
 * request, and ADM_GAVE_UP must be taken as a refusal.
 */
int adm_fp_rta(const struct adm_fp_task *set, size_t n, uint32_t prio_limit, uint64_t *steps,
               size_t *ret_failed);

/*
 * The kernel's reserved share (RT throttling, the fair server) is owed in
 * every window of rt_period_us: whatever idle time the window did not hold
 * is taken at its end, at once, from every FIFO/RR thread of the CPU.
 *
 * adm_window_work(): the most a task can run in any window of length P,
 * ceil((P + D - C + J) / T) C (jobs finish by D; J: release jitter).  With
 * C <= T it fits: at most P + D + J + T.
 * adm_reserved_hole(): the longest such block, max(0, W - (P - reserve)),
 * at most the reserve, for W the sum of adm_window_work() of the CPU's
 * real-time tasks.
 */
uint64_t adm_window_work(uint64_t runtime_us, uint64_t period_us, uint64_t deadline_us,
                         uint64_t jitter_us, uint64_t window_us);
uint64_t adm_reserved_hole(uint64_t work_us, uint64_t window_us, uint64_t reserve_us);

/* ---- Priority mapping (eqs. 5 and 6) -------------------------------------- */

/* Requested priorities the FP/RR mapping understands: 1..ADM_PRIO_KEY_MAX. */
#define ADM_PRIO_KEY_MAX 99u
#define ADM_PRIO_KEYS (ADM_PRIO_KEY_MAX + 1)

/* Outcome of a mapping besides errors: eq. 6 held (strict) or not. */
enum adm_prio_map_outcome {
        ADM_PRIO_STRICT = 0,            /* distinct keys got distinct priorities */
        ADM_PRIO_TIES = 1,              /* more keys than priorities: some share */
};

/*
 * Priority of the key that has `rank` more urgent distinct keys above it, in
 * [lo, hi]: hi - rank, but never below lo.  The most urgent R - 1 keys keep
 * distinct priorities and any further ones share lo.  This shape matters for
 * RM's guarantees: removing a key never merges two keys that had distinct
 * priorities, so a release can only reduce interference and never needs a
 * test.  Used for RM (eq. 5, shortest period first).
 */
uint32_t adm_prio_of_rank(uint32_t rank, uint32_t lo, uint32_t hi);

/* Eq. 6: does a range [lo, hi] keep n distinct keys apart? */
static inline bool adm_prio_range_is_strict(uint32_t n_keys, uint32_t lo, uint32_t hi) {
        return n_keys <= hi - lo + 1;
}

/*
 * FP/RR (eq. 6): map n distinct requested priorities keys[] (ascending) into
 * [lo, hi], writing ret_prio[i] for keys[i].  Requests that already lie in
 * the range keep their value when the others allow it; requests outside are
 * moved to the nearest free value that keeps the order.  With more keys than
 * priorities, the mapping of adm_prio_of_rank() is used.  Returns
 * ADM_PRIO_STRICT or ADM_PRIO_TIES, -EINVAL for a bad range or unsorted keys.
 */
int adm_prio_map_keys(const uint32_t *keys, uint32_t n, uint32_t lo, uint32_t hi,
                      uint32_t *ret_prio);

/* Requested priorities present on a core, with multiplicity (FP/RR). */
struct adm_prio_set {
        uint32_t count[ADM_PRIO_KEYS];
        uint32_t n_distinct;
};

int adm_prio_set_add(struct adm_prio_set *s, uint32_t key);
int adm_prio_set_remove(struct adm_prio_set *s, uint32_t key);
/* adm_prio_map_keys() over the keys present: ret_map[key] (0 for absent keys). */
int adm_prio_set_map(const struct adm_prio_set *s, uint32_t lo, uint32_t hi,
                     uint32_t ret_map[ADM_PRIO_KEYS]);

/*
 * Distinct periods present on a core, sorted ascending, with multiplicity
 * (RM).  The caller provides the array and grows it before it is full:
 * insertion is O(distinct periods), lookup O(log).
 */
struct adm_period_entry {
        uint64_t period_us;
        uint32_t count;
        uint32_t reserved;
};

struct adm_period_set {
        struct adm_period_entry *entries;
        uint32_t n;                     /* distinct periods */
        uint32_t capacity;
};

/* -ENOSPC if period is new and the array is full. */
int adm_period_set_add(struct adm_period_set *s, uint64_t period_us);
/* -ENOENT if absent. */
int adm_period_set_remove(struct adm_period_set *s, uint64_t period_us);
/* Distinct periods shorter than period_us (its rank from the most urgent). */
uint32_t adm_period_set_rank(const struct adm_period_set *s, uint64_t period_us);
/* How many tasks have exactly period_us. */
uint32_t adm_period_set_count(const struct adm_period_set *s, uint64_t period_us);
