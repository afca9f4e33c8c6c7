/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RM.so: partitioned Rate Monotonic on SCHED_FIFO (ReTiF paper, section 5.2).
 *
 * Worst-fit by declared utilisation; on the chosen core priorities follow
 * the periods (eq. 5) through adm_prio_of_rank(), and tasks that declare a
 * runtime must pass a sound fixed-priority test: U <= 1 as a fast reject,
 * the hyperbolic bound as a fast accept, response-time analysis with the
 * priorities the mapping will really assign when neither decides.  Tasks
 * without a runtime are admitted PARTIAL and are invisible to the test.
 *
 * Cost of a request: O(cores log cores) for worst-fit plus O(log periods)
 * on the chosen core while the fast tests decide; RTA, O(n^2 x iterations)
 * over the tasks at or below the new priority, only when they do not, and
 * bounded per request by rta_max_steps (about 1 ms by default; a request
 * that needs more is refused).  Scheduling or releasing a task whose period
 * is new on (or leaves) its core walks that core's tasks to re-prioritise
 * them, since their priorities really change.
 *
 * Soundness across releases: with adm_prio_of_rank() removing a period
 * never merges two priorities, so the tasks that interfere with any task
 * only shrink and a release never needs a test.
 */
#include <errno.h>
#include <stdlib.h>

#include "common.h"
#include "rtf/rtf.h"

/*
 * sched_rt_runtime_us / sched_rt_period_us by default: SCHED_FIFO threads
 * get at most 95 % of a CPU (RT throttling, the fair server).
 */
#define RM_UTIL_THR_DEFAULT 950000000ULL

struct rm_state {
        struct plugin_base base;
        uint64_t util_thr;              /* the share of a CPU FIFO threads may have (util=) */
        uint64_t rta_max_steps;
        struct adm_fp_task *rta;        /* scratch, grown in accept */
        size_t rta_size;
};

/* A request as the test sees it. */
struct rm_request {
        uint64_t window_work;           /* adm_window_work() */
        uint64_t runtime_us;            /* 0 = not declared */
        uint64_t period_us;
        uint64_t deadline_us;           /* min(D, T) */
        struct adm_fp_load load;
};

/*
 * A core's set of distinct periods as it would be after `exclude` leaves it
 * and the request joins it, without copying it: at most one period
 * disappears and one appears.
 */
struct rm_view {
        const struct plugin_core *core;
        uint64_t removed;               /* period that disappears, 0 = none */
        uint64_t added;                 /* period that appears, 0 = none */
        uint32_t n_distinct;
};

static void rm_view_init(struct rm_view *v, const struct plugin_core *c,
                         const struct plugin_node *exclude, uint64_t period_us) {
        uint32_t left = adm_period_set_count(&c->periods, period_us);

        *v = (struct rm_view) { .core = c, .n_distinct = c->periods.n };
        if (exclude) {
                if (adm_period_set_count(&c->periods, exclude->period_us) == 1) {
                        v->removed = exclude->period_us;
                        v->n_distinct--;
                }
                if (exclude->period_us == period_us)
                        left--;
        }
        if (left == 0) {
                v->added = period_us;
                v->n_distinct++;
        }
}

static uint32_t rm_view_rank(const struct rm_view *v, uint64_t period_us) {
        uint32_t rank = adm_period_set_rank(&v->core->periods, period_us);

        if (v->removed != 0 && v->removed < period_us)
                rank--;
        if (v->added != 0 && v->added < period_us)
                rank++;
        return rank;
}

static int rm_init(const struct rtf_plugin_host *host, const struct rtf_plugin_config *config,
                   void **ret_state) {
        struct rm_state *s;
        int r;

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->rta_max_steps = ADM_FP_RTA_DEFAULT_STEPS;
        s->util_thr = RM_UTIL_THR_DEFAULT;

        const struct plugin_option options[] = {
                { "util", PLUGIN_OPTION_UTIL, &s->util_thr, 0, 0 },
                /* Bounds the CPU time of one request's RTA; beyond it the request is refused. */
                { "rta_max_steps", PLUGIN_OPTION_U64, &s->rta_max_steps, 1000, 1000000000 },
        };
        r = plugin_base_init(&s->base, "RM", host, config, options,
                             sizeof(options) / sizeof(options[0]), true);
        if (r < 0) {
                free(s);
                return r;
        }
        *ret_state = s;
        return 0;
}

static void rm_fini(void *state) {
        struct rm_state *s = state;

        if (!s)
                return;
        plugin_base_fini(&s->base);
        free(s->rta);
        free(s);
}

/* Room for one more distinct period on c, so that schedule() cannot fail. */
static int rm_reserve_period(struct plugin_core *c) {
        struct adm_period_entry *e;
        uint32_t capacity;

        if (c->periods.n < c->periods.capacity)
                return 0;
        capacity = c->periods.capacity ? c->periods.capacity * 2 : 8;
        e = realloc(c->periods.entries, sizeof(e[0]) * capacity);
        if (!e)
                return -ENOMEM;
        c->periods.entries = e;
        c->periods.capacity = capacity;
        return 0;
}

static int rm_reserve_rta(struct rm_state *s, size_t n) {
        struct adm_fp_task *t;

        if (n <= s->rta_size)
                return 0;
        t = realloc(s->rta, sizeof(t[0]) * n);
        if (!t)
                return -ENOMEM;
        s->rta = t;
        s->rta_size = n;
        return 0;
}

/*
 * The kernel keeps 1 - util_thr of each CPU from real-time threads (RT
 * throttling, the fair server), per period of sched_rt_period_us (1 s by
 * default).  While every FIFO thread of the CPU runs less than that share,
 * the fair tasks get their share in the gaps; a task without a runtime may
 * take the whole CPU, and then the kernel takes its share back at once,
 * from every FIFO thread of the CPU, the highest included.  That hole is
 * modelled as a task above all others: (1 - util_thr) x 1 s every 1 s.
 */
#define RM_RESERVED_PERIOD_US 1000000ULL

static uint64_t rm_reserve_us(const struct rm_state *s) {
        return (ADM_UTIL_ONE - s->util_thr) * RM_RESERVED_PERIOD_US / ADM_UTIL_ONE +
               ((ADM_UTIL_ONE - s->util_thr) * RM_RESERVED_PERIOD_US % ADM_UTIL_ONE != 0);
}

/*
 * Tasks without a runtime (unknown demand) on core c as it would be: none
 * may sit at or above a task with a runtime, whose guarantee would then
 * depend on it.  O(tasks of c); only run when c holds both kinds.
 * ADM_ADMIT or ADM_REJECT with a reason.
 */
static int rm_check_order(struct rm_state *s, const struct plugin_core *c, const struct rm_view *v,
                          const struct rm_request *rq, uint32_t rq_priority,
                          const struct plugin_node *exclude, struct rtf_plugin_decision *why) {
        struct plugin_base *b = &s->base;
        uint32_t top_unbounded = 0, low_bounded = UINT32_MAX;
        uint64_t top_period = 0, low_period = 0;
        struct plugin_list *l;

        if (rq->runtime_us == 0) {
                top_unbounded = rq_priority;
                top_period = rq->period_us;
        } else {
                low_bounded = rq_priority;
                low_period = rq->period_us;
        }
        PLUGIN_LIST_FOREACH(l, &c->tasks) {
                const struct plugin_node *t = plugin_node_of(l);
                uint32_t p;

                if (t == exclude)
                        continue;
                p = adm_prio_of_rank(rm_view_rank(v, t->period_us), b->prio_min, b->prio_max);
                if (t->runtime_us == 0 && p > top_unbounded) {
                        top_unbounded = p;
                        top_period = t->period_us;
                } else if (t->runtime_us != 0 && p < low_bounded) {
                        low_bounded = p;
                        low_period = t->period_us;
                }
        }
        if (top_unbounded == 0 || low_bounded == UINT32_MAX || top_unbounded < low_bounded)
                return ADM_ADMIT;
        plugin_reason(why, "RM: CPU %u: a task without runtime (period %llu us) at priority %u >= "
                      "%u of one with runtime (period %llu us)", c->cpu,
                      (unsigned long long)top_period, top_unbounded, low_bounded,
                      (unsigned long long)low_period);
        return ADM_REJECT;
}

/*
 * Would core i still pass with the request (and without `exclude`)?
 * ADM_ADMIT with *ret_priority, ADM_REJECT or ADM_GAVE_UP with a reason.
 */
static int rm_test_core(struct rm_state *s, uint32_t i, const struct rm_request *rq,
                        const struct plugin_node *exclude, uint64_t *steps,
                        uint32_t *ret_priority, struct rtf_plugin_decision *why) {
        struct plugin_base *b = &s->base;
        const struct plugin_core *c = &b->cores[i];
        struct adm_fp_load load = c->load;
        struct plugin_list *l;
        struct rm_view v;
        size_t n = 0, failed = 0;
        uint32_t unbounded;
        char x[PLUGIN_UTIL_STR], y[PLUGIN_UTIL_STR];
        uint64_t hole_us;
        bool hole;
        int r;

        rm_view_init(&v, c, exclude, rq->period_us);
        unbounded = c->n_tasks - c->load.tasks;
        if (exclude) {
                adm_fp_load_sub(&load, &exclude->load);
                unbounded -= exclude->runtime_us == 0;
        }
        adm_fp_load_add(&load, &rq->load);
        unbounded += rq->runtime_us == 0;
        *ret_priority = adm_prio_of_rank(rm_view_rank(&v, rq->period_us), b->prio_min, b->prio_max);

        /*
         * The block the kernel may take at a window's end: all of its share
         * next to a task without runtime, else what the tasks' work in a
         * window can leave unpaid (often nothing).
         */
        if (unbounded > 0 && load.tasks > 0) {
                r = rm_check_order(s, c, &v, rq, *ret_priority, exclude, why);
                if (r != ADM_ADMIT)
                        return r;
                hole_us = rm_reserve_us(s);
        } else
                hole_us = adm_reserved_hole(c->window_work - (exclude ? exclude->window_work : 0) +
                                            rq->window_work, RM_RESERVED_PERIOD_US, rm_reserve_us(s));
        hole = hole_us > 0;

        /*
         * The share the kernel leaves FIFO threads.  Below 1 the rounded-up
         * sum is compared (a refusal a few ppb early is the safe side); at
         * util=1, only a sum certainly above 1, and RTA decides the rest.
         */
        if (load.util_floor > s->util_thr ||
            (s->util_thr < ADM_UTIL_ONE && load.util_ceil > s->util_thr)) {
                plugin_util_pair(load.util_floor > s->util_thr ? load.util_floor : load.util_ceil,
                                 s->util_thr, x, y);
                plugin_reason(why, "RM: CPU %u utilisation %s > %s (util=)", c->cpu, x, y);
                return ADM_REJECT;
        }
        if (!hole) {
                r = adm_fp_quick_test(&load, adm_prio_range_is_strict(v.n_distinct, b->prio_min,
                                                                       b->prio_max));
                if (r == ADM_ADMIT)
                        return r;
        }

        /* The priorities the tasks will have, ties included: that is what SCHED_FIFO will do. */
        r = rm_reserve_rta(s, load.tasks + 1);
        if (r < 0)
                return r;
        PLUGIN_LIST_FOREACH(l, &c->tasks) {
                const struct plugin_node *t = plugin_node_of(l);

                if (t == exclude || t->runtime_us == 0)
                        continue;
                s->rta[n++] = (struct adm_fp_task) {
                        .runtime_us = t->runtime_us,
                        .period_us = t->period_us,
                        .deadline_us = t->deadline_us,
                        .priority = adm_prio_of_rank(rm_view_rank(&v, t->period_us),
                                                     b->prio_min, b->prio_max),
                };
        }
        if (rq->runtime_us != 0)
                s->rta[n++] = (struct adm_fp_task) {
                        .runtime_us = rq->runtime_us,
                        .period_us = rq->period_us,
                        .deadline_us = rq->deadline_us,
                        .priority = *ret_priority,
                };
        if (hole)
                s->rta[n++] = (struct adm_fp_task) {
                        .runtime_us = hole_us,
                        .period_us = RM_RESERVED_PERIOD_US,
                        .deadline_us = RM_RESERVED_PERIOD_US,
                        .priority = UINT32_MAX,
                };
        /*
         * Tasks above the request's priority get no new interference (see
         * adm_fp_rta) unless the request brings the hole: then all of them.
         */
        r = adm_fp_rta(s->rta, n, hole ? UINT32_MAX - 1 : *ret_priority, steps, &failed);
        if (r < 0)
                return r;
        if (r == ADM_REJECT && load.util_ceil > ADM_UTIL_ONE) {
                plugin_util_pair(load.util_ceil, ADM_UTIL_ONE, x, y);
                plugin_reason(why, "RM: CPU %u utilisation %s > %s (rounded up; RTA agrees)",
                              c->cpu, x, y);
        } else if (r == ADM_REJECT && hole)
                plugin_reason(why, "RM: CPU %u: period %llu us misses its deadline (RTA) if the "
                              "kernel takes %llu us of its share at once%s",
                              c->cpu, (unsigned long long)s->rta[failed].period_us,
                              (unsigned long long)hole_us,
                              unbounded > 0 ? " (task without runtime)" : "");
        else if (r == ADM_REJECT)
                plugin_reason(why, "RM: CPU %u: a task of period %llu us would miss its deadline (RTA)",
                              c->cpu, (unsigned long long)s->rta[failed].period_us);
        else if (r == ADM_GAVE_UP)
                plugin_reason(why, "RM: CPU %u: response-time analysis gave up (rta_max_steps=%llu)",
                              c->cpu, (unsigned long long)s->rta_max_steps);
        return r;
}

static int rm_evaluate(struct rm_state *s, const struct rtf_task_params *req,
                       const struct rtf_plugin_task *exclude, struct rtf_plugin_decision *ret) {
        struct plugin_base *b = &s->base;
        const struct plugin_node *own = exclude ? exclude->plugin_data : NULL;
        struct rtf_plugin_decision first = { .core = -1 };
        struct rm_request rq = { 0 };
        /* One budget for the whole request, however many cores it tries. */
        uint64_t steps = s->rta_max_steps;
        uint32_t n, priority = 0;
        int32_t chosen = -1;
        int r;

        *ret = (struct rtf_plugin_decision) { .core = -1 };
        if (!(req->flags & RTF_PARAM_HAS_PERIOD)) {
                plugin_reason(ret, "RM: a period is mandatory");
                return RTF_PLUGIN_NO;
        }
        if (req->period_us == 0 || req->period_us > ADM_TIME_MAX_US) {
                plugin_reason(ret, "RM: period %llu us outside 1..%llu us",
                              (unsigned long long)req->period_us, ADM_TIME_MAX_US);
                return RTF_PLUGIN_NO;
        }
        rq.period_us = req->period_us;
        rq.deadline_us = req->period_us;
        if (req->flags & RTF_PARAM_HAS_DEADLINE) {
                if (req->deadline_us == 0) {
                        plugin_reason(ret, "RM: deadline must be at least 1 us");
                        return RTF_PLUGIN_NO;
                }
                rq.deadline_us = adm_window(req->period_us, req->deadline_us);
        }
        if (req->flags & RTF_PARAM_HAS_RUNTIME) {
                if (req->runtime_us == 0 || req->runtime_us > rq.deadline_us) {
                        plugin_reason(ret, "RM: runtime %llu us must be in 1..%llu us (min(D, T))",
                                      (unsigned long long)req->runtime_us,
                                      (unsigned long long)rq.deadline_us);
                        return RTF_PLUGIN_NO;
                }
                rq.runtime_us = req->runtime_us;
        }
        r = adm_fp_load_of(rq.runtime_us, rq.period_us, rq.deadline_us, &rq.load);
        if (r < 0)
                return r;
        rq.window_work = adm_window_work(rq.runtime_us, rq.period_us, rq.deadline_us, 0,
                                         RM_RESERVED_PERIOD_US);
        r = plugin_node_reserve(b);
        if (r < 0)
                return r;

        n = plugin_cores_by_load(b, exclude, own ? own->load.util_ceil : 0, false, b->ranked);
        if (n == 0) {
                plugin_reason(ret, "RM: every core holds %u tasks", b->max_tasks);
                return RTF_PLUGIN_NO;
        }
        /* Worst-fit first; if the least loaded core fails, the others in order of load. */
        for (uint32_t k = 0; k < n && chosen < 0; k++) {
                uint32_t i = b->ranked[k];
                bool here = own && exclude->core == (int32_t)i;
                uint32_t p;

                r = rm_test_core(s, i, &rq, here ? own : NULL, &steps, &p, k == 0 ? &first : ret);
                if (r < 0)
                        return r;
                if (r == ADM_ADMIT) {
                        chosen = (int32_t)i;
                        priority = p;
                } else if (k == 0)
                        priority = p;
        }

        if (chosen < 0) {
                if (!(req->flags & RTF_PARAM_IGNORE_ADMISSION)) {
                        *ret = first;
                        ret->core = -1;
                        return RTF_PLUGIN_NO;
                }
                /* The daemon's ACL let this client skip the test: the least loaded core. */
                chosen = (int32_t)b->ranked[0];
                plugin_reason(ret, "RM: test failed on every core, admitted on CPU %u "
                              "(admission test ignored)",
                              b->cores[chosen].cpu);
        } else
                ret->reason[0] = '\0';

        r = rm_reserve_period(&b->cores[chosen]);
        if (r < 0)
                return r;
        ret->core = chosen;
        ret->priority = priority;
        ret->accepted_runtime_us = rq.runtime_us;
        if (rq.runtime_us == 0) {
                plugin_reason(ret, "RM: no runtime: admitted without a schedulability test");
                return RTF_PLUGIN_PARTIAL;
        }
        return RTF_PLUGIN_OK;
}

static int rm_accept(void *state, const struct rtf_task_params *req,
                     struct rtf_plugin_decision *ret) {
        struct rtf_plugin_decision d;
        int r = rm_evaluate(state, req, NULL, &d);

        if (r >= 0)
                *ret = d;
        return r;
}

static int rm_change(void *state, const struct rtf_plugin_task *task,
                     const struct rtf_task_params *req, struct rtf_plugin_decision *ret) {
        struct rtf_plugin_decision d;
        int r;

        if (!task->plugin_data)
                return -EINVAL;
        r = rm_evaluate(state, req, task, &d);
        if (r >= 0)
                *ret = d;
        return r;
}

/*
 * Give every task of c the priority of its period's rank and tell the
 * daemon about those that moved, except `skip` (the task being scheduled,
 * whose setting the daemon applies anyway).  Priorities are all updated
 * before the first notification, so attach() always sees the final state.
 */
static void rm_remap(struct rm_state *s, struct plugin_core *c, const struct rtf_plugin_task *skip) {
        struct plugin_base *b = &s->base;
        struct plugin_list *l;
        bool ties;

        PLUGIN_LIST_FOREACH(l, &c->tasks) {
                struct plugin_node *n = plugin_node_of(l);
                uint32_t p = adm_prio_of_rank(adm_period_set_rank(&c->periods, n->period_us),
                                              b->prio_min, b->prio_max);

                if (p != n->task->priority) {
                        n->task->priority = p;
                        n->dirty = n->task != skip;
                }
        }
        PLUGIN_LIST_FOREACH(l, &c->tasks) {
                struct plugin_node *n = plugin_node_of(l);

                if (n->dirty) {
                        n->dirty = false;
                        b->host->task_updated(b->host->data, n->task);
                }
        }

        ties = !adm_prio_range_is_strict(c->periods.n, b->prio_min, b->prio_max);
        if (ties != c->ties)
                plugin_log(b, ties ? RTF_LOG_WARNING : RTF_LOG_INFO,
                           ties ? "CPU %u: %u distinct periods share %u priorities "
                                  "(eq. 5 only partially kept)"
                                : "CPU %u: %u distinct periods in %u priorities: "
                                  "strict rate-monotonic order again",
                           c->cpu, c->periods.n, b->prio_max - b->prio_min + 1);
        c->ties = ties;
}

static int rm_schedule(void *state, struct rtf_plugin_task *task,
                       const struct rtf_plugin_decision *decision) {
        struct rm_state *s = state;
        struct plugin_base *b = &s->base;
        const struct rtf_task_params *p = &task->params;
        struct plugin_node *n;
        struct plugin_core *c;
        uint64_t runtime = p->flags & RTF_PARAM_HAS_RUNTIME ? p->runtime_us : 0;
        uint64_t deadline = p->flags & RTF_PARAM_HAS_DEADLINE ? p->deadline_us : 0;
        struct adm_fp_load load;
        uint32_t before;
        int r;

        if (plugin_check_core(b, decision->core) < 0 || !(p->flags & RTF_PARAM_HAS_PERIOD))
                return -EINVAL;
        r = adm_fp_load_of(runtime, p->period_us, deadline, &load);
        if (r < 0)
                return r;
        c = &b->cores[decision->core];
        /* Reserved by accept/change, or freed by the release that preceded a change. */
        r = rm_reserve_period(c);
        if (r < 0)
                return r;
        n = plugin_node_take(b, task);
        if (!n)
                return -ENOMEM;

        n->runtime_us = runtime;
        n->period_us = p->period_us;
        n->deadline_us = adm_window(p->period_us, deadline);
        n->load = load;
        n->window_work = adm_window_work(runtime, n->period_us, n->deadline_us, 0,
                                         RM_RESERVED_PERIOD_US);
        c->window_work += n->window_work;
        before = c->periods.n;
        (void)adm_period_set_add(&c->periods, n->period_us);
        adm_fp_load_add(&c->load, &load);
        c->util = c->load.util_ceil;
        c->n_tasks++;
        plugin_list_append(&c->tasks, &n->link);

        task->core = decision->core;
        task->accepted_runtime_us = runtime;
        task->priority = adm_prio_of_rank(adm_period_set_rank(&c->periods, n->period_us),
                                          b->prio_min, b->prio_max);
        /* Same distinct periods: nobody else's rank moved. */
        if (c->periods.n != before)
                rm_remap(s, c, task);
        return 0;
}

static void rm_release(void *state, struct rtf_plugin_task *task) {
        struct rm_state *s = state;
        struct plugin_base *b = &s->base;
        struct plugin_node *n = task->plugin_data;
        struct plugin_core *c;
        uint32_t before;

        if (!n || plugin_check_core(b, task->core) < 0)
                return;
        c = &b->cores[task->core];
        plugin_list_remove(&n->link);
        before = c->periods.n;
        (void)adm_period_set_remove(&c->periods, n->period_us);
        adm_fp_load_sub(&c->load, &n->load);
        c->window_work -= n->window_work;
        c->util = c->load.util_ceil;
        c->n_tasks--;
        plugin_node_release(b, task);
        if (c->periods.n != before)
                rm_remap(s, c, NULL);
}

static int rm_attach(void *state, const struct rtf_plugin_task *task,
                     struct rtf_sched_setting *ret) {
        struct rm_state *s = state;

        return plugin_attach_fixed(&s->base, task, RTF_POLICY_FIFO, ret);
}

static const struct rtf_plugin_ops rm_ops = {
        .version = RTF_PLUGIN_ABI_VERSION,
        .size = sizeof(struct rtf_plugin_ops),
        .name = "RM",
        .init = rm_init,
        .fini = rm_fini,
        .accept = rm_accept,
        .change = rm_change,
        .schedule = rm_schedule,
        .release = rm_release,
        .attach = rm_attach,
        .core_status = plugin_core_status,
};

const struct rtf_plugin_ops *rtf_plugin_entry(uint32_t host_abi_version) {
        return host_abi_version == RTF_PLUGIN_ABI_VERSION ? &rm_ops : NULL;
}
