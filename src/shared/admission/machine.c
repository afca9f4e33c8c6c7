/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whole-machine admission (machine.h): every instance's tasks together,
 * under the policies the kernel applies.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "admission/machine.h"

static bool cpu_partitioned(const struct adm_machine_host *h, uint32_t cpu) {
        return h->partitioned && h->partitioned[cpu];
}

static bool is_fixed(const struct adm_machine_task *t) {
        return t->policy == ADM_MACHINE_FIFO || t->policy == ADM_MACHINE_RR;
}

static uint64_t task_deadline(const struct adm_machine_task *t) {
        return adm_window(t->period_us, t->deadline_us);
}

/*
 * May DEADLINE task t run on CPU c?  Pinned in a partition: only there.
 * Otherwise anywhere in the shared root domain: the kernel does not let a
 * DEADLINE thread be pinned inside a root domain of several CPUs.
 */
static bool dl_runs_on(const struct adm_machine_host *h, const struct adm_machine_task *t,
                       uint32_t c) {
        if (t->cpu >= 0 && cpu_partitioned(h, (uint32_t)t->cpu))
                return (uint32_t)t->cpu == c;
        return !cpu_partitioned(h, c);
}

static int task_check(const struct adm_machine_host *h, const struct adm_machine_task *t) {
        if (t->cpu < -1 || (t->cpu >= 0 && (uint32_t)t->cpu >= h->n_cpus))
                return -EINVAL;
        if (t->runtime_us > ADM_TIME_MAX_US || t->period_us > ADM_TIME_MAX_US ||
            t->deadline_us > ADM_TIME_MAX_US)
                return -EINVAL;
        if (t->policy == ADM_MACHINE_DEADLINE) {
                if (t->runtime_us == 0 || t->period_us == 0 || t->runtime_us > task_deadline(t))
                        return -EINVAL;
                return 0;
        }
        if (!is_fixed(t) || t->cpu < 0 || t->priority == 0)
                return -EINVAL;
        if (t->runtime_us != 0 && t->period_us == 0)
                return -EINVAL;
        return 0;
}

int adm_machine_parse_rt_share(const char *runtime_text, const char *period_text,
                               uint64_t *ret_share) {
        uint64_t v[2] = { 0, 0 };
        const char *text[2] = { runtime_text, period_text };
        bool unlimited = false;

        for (int k = 0; k < 2; k++) {
                const char *p = text[k];
                bool digits = false;

                if (!p)
                        return -EINVAL;
                if (k == 0 && strncmp(p, "-1", 2) == 0 && (p[2] == '\0' || p[2] == '\n')) {
                        unlimited = true;
                        continue;
                }
                for (; *p >= '0' && *p <= '9'; p++) {
                        if (v[k] > ADM_TIME_MAX_US)
                                return -EINVAL;
                        v[k] = v[k] * 10 + (uint64_t)(*p - '0');
                        digits = true;
                }
                if (!digits || (*p != '\0' && !(*p == '\n' && p[1] == '\0')) || v[k] > ADM_TIME_MAX_US)
                        return -EINVAL;
        }
        if (v[1] == 0)
                return -EINVAL;
        if (unlimited) {
                *ret_share = ADM_UTIL_ONE;
                return 0;
        }
        if (v[0] > v[1])
                return -EINVAL;
        *ret_share = adm_util_down(v[0], v[1]);
        return 0;
}

static uint64_t host_rt_period(const struct adm_machine_host *h) {
        return h->rt_period_us ? h->rt_period_us : ADM_MACHINE_RT_PERIOD_DEFAULT;
}

static uint64_t host_dl_cap(const struct adm_machine_host *h) {
        return h->rt_share > h->fair_share ? h->rt_share - h->fair_share : 0;
}

static uint64_t host_rt_cap(const struct adm_machine_host *h) {
        uint64_t fair_left = ADM_UTIL_ONE - h->fair_share;

        return h->rt_share < fair_left ? h->rt_share : fair_left;
}

/* 1: the density bound of every root domain. */
static int check_deadline(const struct adm_machine_host *h, const struct adm_machine_task *tasks,
                          size_t n, struct adm_machine_verdict *ret) {
        uint64_t cap = host_dl_cap(h), sum = 0, max = 0;
        uint32_t m = 0;
        int32_t first = -1;

        /* The shared root domain: every CPU without a partition. */
        for (uint32_t c = 0; c < h->n_cpus; c++)
                if (!cpu_partitioned(h, c)) {
                        if (first < 0)
                                first = (int32_t)c;
                        m++;
                }
        for (size_t i = 0; i < n; i++) {
                const struct adm_machine_task *t = &tasks[i];
                uint64_t d;

                if (t->policy != ADM_MACHINE_DEADLINE ||
                    (t->cpu >= 0 && cpu_partitioned(h, (uint32_t)t->cpu)))
                        continue;
                if (m == 0)
                        return -EINVAL;
                d = adm_util_up(t->runtime_us, task_deadline(t));
                sum += d;
                if (d > max)
                        max = d;
        }
        if (m > 0 && sum > 0 && !adm_gfb_holds(sum, max, m, cap)) {
                *ret = (struct adm_machine_verdict) {
                        .refusal = ADM_MACHINE_DL_BANDWIDTH, .cpu = first, .m = m,
                        .load = sum + (uint64_t)(m - 1) * max, .cap = (uint64_t)m * cap,
                };
                return ADM_REJECT;
        }

        /* Each partition: EDF's density test on one CPU. */
        for (uint32_t c = 0; c < h->n_cpus; c++) {
                if (!cpu_partitioned(h, c))
                        continue;
                size_t k = 0;

                sum = 0;
                for (size_t i = 0; i < n; i++)
                        if (tasks[i].policy == ADM_MACHINE_DEADLINE && tasks[i].cpu == (int32_t)c) {
                                sum += adm_util_up(tasks[i].runtime_us, task_deadline(&tasks[i]));
                                if (h->scratch && k < h->scratch_size)
                                        h->scratch[k] = (struct adm_edf_task) {
                                                .runtime_us = tasks[i].runtime_us,
                                                .deadline_us = task_deadline(&tasks[i]),
                                                .period_us = tasks[i].period_us,
                                        };
                                k++;
                        }
                if (sum > cap && h->scratch && k <= h->scratch_size) {
                        uint64_t steps = h->rta_max_steps ? h->rta_max_steps : ADM_FP_RTA_DEFAULT_STEPS;
                        int q = adm_edf_qpa(h->scratch, k, cap, &steps);

                        if (q < 0)
                                return q;
                        if (q == ADM_ADMIT)
                                continue;
                }
                if (sum > cap) {
                        *ret = (struct adm_machine_verdict) {
                                .refusal = ADM_MACHINE_DL_BANDWIDTH, .cpu = (int32_t)c, .m = 1,
                                .load = sum, .cap = cap,
                        };
                        return ADM_REJECT;
                }
        }
        return ADM_ADMIT;
}

/* Does task j (FIFO/RR with a runtime, or DEADLINE) delay FIFO/RR task i on CPU c? */
static bool interferes(const struct adm_machine_host *h, const struct adm_machine_task *tasks,
                       size_t i, size_t j, uint32_t c) {
        const struct adm_machine_task *t = &tasks[j];

        if (j == i)
                return false;
        if (t->policy == ADM_MACHINE_DEADLINE)
                return dl_runs_on(h, t, c);
        return is_fixed(t) && t->cpu == (int32_t)c && t->runtime_us != 0 &&
               t->priority >= tasks[i].priority;
}

/*
 * Response time of FIFO/RR task i on CPU c: the least fixed point of
 * R = C_i + sum ceil((R + J_j) / T_j) C_j, J_j = 0 for FIFO/RR and T_j - Q_j
 * for a DEADLINE server (its budget may come at the end of one period and
 * at the start of the next).  Every iteration that does not stop raises at
 * least one job count, and no count exceeds ceil((D_i + J_j) / T_j), so
 * the iterations are at most 1 + sum of those: pseudo-polynomial, and cut
 * by *steps.
 */
static int response_time(const struct adm_machine_host *h, const struct adm_machine_task *tasks,
                         size_t n, size_t i, uint32_t c, uint64_t hole_us, uint64_t *steps,
                         uint64_t *ret_r) {
        const struct adm_machine_task *t = &tasks[i];
        uint64_t d = task_deadline(t), r = t->runtime_us + hole_us, next;

        if (t->runtime_us > d || hole_us > d - t->runtime_us) {
                *ret_r = d + 1;
                return ADM_REJECT;
        }
        for (size_t j = 0; j < n; j++)
                if (interferes(h, tasks, i, j, c)) {
                        if (tasks[j].runtime_us > d - r) {
                                *ret_r = d + 1;
                                return ADM_REJECT;
                        }
                        r += tasks[j].runtime_us;
                }
        for (;;) {
                if (*steps < n)
                        return ADM_GAVE_UP;
                *steps -= n;
                /* the kernel's share, taken at the end of each window of rt_period_us */
                next = t->runtime_us + (hole_us ? (r + host_rt_period(h) - 1) / host_rt_period(h) * hole_us : 0);
                if (next > d) {
                        *ret_r = d + 1;
                        return ADM_REJECT;
                }
                for (size_t j = 0; j < n; j++) {
                        const struct adm_machine_task *o = &tasks[j];
                        uint64_t jitter, jobs;

                        if (!interferes(h, tasks, i, j, c))
                                continue;
                        jitter = o->policy == ADM_MACHINE_DEADLINE ? o->period_us - o->runtime_us : 0;
                        /* r <= d and jitter < T, all <= ADM_TIME_MAX_US: no overflow */
                        jobs = (r + jitter + o->period_us - 1) / o->period_us;
                        if (jobs > (d - next) / o->runtime_us) {
                                *ret_r = d + 1;
                                return ADM_REJECT;
                        }
                        next += jobs * o->runtime_us;
                }
                if (next == r) {
                        *ret_r = r;
                        return ADM_ADMIT;
                }
                r = next;
        }
}

/* 2, 3 and 4 on CPU c. */
static int check_cpu(const struct adm_machine_host *h, const struct adm_machine_task *tasks,
                     size_t n, uint32_t c, uint64_t *steps, struct adm_machine_verdict *ret) {
        uint64_t dl = 0, fixed = 0, cap = host_rt_cap(h), hole = 0, work = 0, reserve;
        size_t top_unbounded = n, low_bounded = n, first_instance = n;
        bool any = false, unbounded = false, one_tested_instance = true;

        for (size_t i = 0; i < n; i++) {
                const struct adm_machine_task *t = &tasks[i];

                if (t->policy == ADM_MACHINE_DEADLINE && dl_runs_on(h, t, c)) {
                        dl += adm_util_up(t->runtime_us, t->period_us);
                        work += adm_window_work(t->runtime_us, t->period_us, t->period_us,
                                                t->period_us - t->runtime_us, host_rt_period(h));
                } else if (is_fixed(t) && t->cpu == (int32_t)c) {
                        any = true;
                        if (first_instance == n)
                                first_instance = i;
                        one_tested_instance &= t->self_tested &&
                                               t->instance == tasks[first_instance].instance;
                        if (t->runtime_us != 0) {
                                fixed += adm_util_up(t->runtime_us, t->period_us);
                                work += adm_window_work(t->runtime_us, t->period_us, t->deadline_us,
                                                        0, host_rt_period(h));
                                if (low_bounded == n || t->priority < tasks[low_bounded].priority)
                                        low_bounded = i;
                        } else {
                                unbounded = true;
                                if (top_unbounded == n || t->priority > tasks[top_unbounded].priority)
                                        top_unbounded = i;
                        }
                }
        }
        if (!any)
                return ADM_ADMIT;
        if (dl + fixed > cap) {
                *ret = (struct adm_machine_verdict) {
                        .refusal = ADM_MACHINE_CPU_OVERLOAD, .cpu = (int32_t)c,
                        .load = dl + fixed, .load_deadline = dl, .cap = cap, .m = 1,
                };
                return ADM_REJECT;
        }

        /* 4: the highest task without runtime against the lowest with one. */
        if (unbounded && top_unbounded < n && low_bounded < n &&
            tasks[top_unbounded].priority >= tasks[low_bounded].priority) {
                *ret = (struct adm_machine_verdict) {
                        .refusal = ADM_MACHINE_UNBOUNDED_ABOVE, .cpu = (int32_t)c,
                        .task = (uint32_t)top_unbounded, .other = (uint32_t)low_bounded,
                };
                return ADM_REJECT;
        }

        /*
         * The kernel takes what a window still owes at its end, at once,
         * from every FIFO/RR thread of the CPU: interference for all of
         * them.  Below the guaranteed tasks, a task without runtime may take
         * every cycle they leave, and then the whole share is owed.
         */
        reserve = ((ADM_UTIL_ONE - cap) * host_rt_period(h) + ADM_UTIL_ONE - 1) / ADM_UTIL_ONE;
        hole = unbounded ? reserve : adm_reserved_hole(work, host_rt_period(h), reserve);
        /*
         * A CPU where only one instance's FIFO/RR threads run, all tested by
         * that instance (RM: RTA with the same reserve and window block),
         * and no DEADLINE thread may come: that test already covers it, and
         * this check stays O(n) for it.
         */
        if (one_tested_instance && dl == 0)
                return ADM_ADMIT;
        if (h->proven && h->proven[c])
                return ADM_ADMIT;
        for (size_t i = 0; i < n; i++) {
                uint64_t r = 0;
                int k;

                if (!is_fixed(&tasks[i]) || tasks[i].cpu != (int32_t)c || tasks[i].runtime_us == 0)
                        continue;
                k = response_time(h, tasks, n, i, c, hole, steps, &r);
                if (k != ADM_ADMIT) {
                        *ret = (struct adm_machine_verdict) {
                                .refusal = k == ADM_GAVE_UP ? ADM_MACHINE_GAVE_UP : ADM_MACHINE_RTA_MISS,
                                .cpu = (int32_t)c, .task = (uint32_t)i,
                                .load = r, .cap = task_deadline(&tasks[i]),
                        };
                        return ADM_REJECT;
                }
        }
        return ADM_ADMIT;
}

int adm_machine_check(const struct adm_machine_host *h, const struct adm_machine_task *tasks,
                      size_t n, struct adm_machine_verdict *ret) {
        struct adm_machine_verdict v = { .refusal = ADM_MACHINE_SOUND, .cpu = -1 };
        bool fixed_on[ADM_MACHINE_MAX_CPUS];
        uint64_t steps;
        int k;

        if (!h || !ret || (n > 0 && !tasks) || h->n_cpus == 0 || h->n_cpus > ADM_MACHINE_MAX_CPUS ||
            h->rt_share > ADM_UTIL_ONE || h->fair_share > ADM_UTIL_ONE ||
            h->rt_period_us > ADM_TIME_MAX_US)
                return -EINVAL;
        memset(fixed_on, 0, h->n_cpus * sizeof(*fixed_on));
        for (size_t i = 0; i < n; i++) {
                k = task_check(h, &tasks[i]);
                if (k < 0)
                        return k;
                if (is_fixed(&tasks[i]))
                        fixed_on[tasks[i].cpu] = true;
        }
        steps = h->rta_max_steps ? h->rta_max_steps : ADM_FP_RTA_DEFAULT_STEPS;

        k = check_deadline(h, tasks, n, &v);
        /* A CPU without FIFO/RR tasks has nothing for 2-4 to check (check_cpu()
         * admits it): skipping it saves an O(n) pass per CPU. */
        for (uint32_t c = 0; k == ADM_ADMIT && c < h->n_cpus; c++)
                if (fixed_on[c])
                        k = check_cpu(h, tasks, n, c, &steps, &v);
        if (k < 0)
                return k;
        *ret = v;
        return k == ADM_ADMIT ? ADM_ADMIT : ADM_REJECT;
}

/* Does t run on CPU c (a FIFO/RR task pinned there, a DEADLINE task that may)? */
static bool runs_on(const struct adm_machine_host *h, const struct adm_machine_task *t, uint32_t c) {
        if (t->policy == ADM_MACHINE_DEADLINE)
                return dl_runs_on(h, t, c);
        return t->cpu == (int32_t)c;
}

static bool same_task(const struct adm_machine_task *a, const struct adm_machine_task *b) {
        return a->instance == b->instance && a->policy == b->policy && a->cpu == b->cpu &&
               a->priority == b->priority && a->runtime_us == b->runtime_us && a->period_us == b->period_us &&
               a->deadline_us == b->deadline_us && a->self_tested == b->self_tested;
}

void adm_machine_same_cpus(const struct adm_machine_host *h, const struct adm_machine_task *prev, size_t n_prev,
                           const struct adm_machine_task *cur, size_t n_cur, bool *ret_same) {
        bool valid = true;

        for (size_t i = 0; i < n_prev && valid; i++)
                valid = task_check(h, &prev[i]) == 0;
        for (size_t i = 0; i < n_cur && valid; i++)
                valid = task_check(h, &cur[i]) == 0;
        for (uint32_t c = 0; c < h->n_cpus; c++) {
                size_t i = 0, j = 0;

                ret_same[c] = valid;
                while (ret_same[c]) {
                        while (i < n_prev && !runs_on(h, &prev[i], c))
                                i++;
                        while (j < n_cur && !runs_on(h, &cur[j], c))
                                j++;
                        if (i == n_prev || j == n_cur) {
                                ret_same[c] = i == n_prev && j == n_cur;
                                break;
                        }
                        ret_same[c] = same_task(&prev[i++], &cur[j++]);
                }
        }
}

static const char *instance_name(const struct adm_machine_instance *in, size_t n_in,
                                 const struct adm_machine_task *tasks, uint32_t task) {
        if (!tasks || !in || tasks[task].instance >= n_in || !in[tasks[task].instance].name)
                return "?";
        return in[tasks[task].instance].name;
}

void adm_machine_explain(const struct adm_machine_verdict *v,
                         const struct adm_machine_instance *in, size_t n_in,
                         const struct adm_machine_task *tasks, char *buf, size_t size) {
        double load = (double)v->load / (double)ADM_UTIL_ONE, cap = (double)v->cap / (double)ADM_UTIL_ONE;

        if (size == 0)
                return;
        switch (v->refusal) {
        case ADM_MACHINE_SOUND:
                snprintf(buf, size, "machine: schedulable");
                break;
        case ADM_MACHINE_DL_BANDWIDTH:
                if (v->m > 1)
                        snprintf(buf, size, "machine: SCHED_DEADLINE over the %u CPUs of the root domain "
                                 "of CPU %d (no partitions): density bound %.6f > %.6f",
                                 v->m, v->cpu, load, cap);
                else
                        snprintf(buf, size, "machine: SCHED_DEADLINE on CPU %d: density %.6f > %.6f",
                                 v->cpu, load, cap);
                break;
        case ADM_MACHINE_CPU_OVERLOAD:
                snprintf(buf, size, "machine: CPU %d: SCHED_DEADLINE %.6f + FIFO/RR %.6f = %.6f > %.6f "
                         "(the share the kernel gives real-time threads)",
                         v->cpu, (double)v->load_deadline / (double)ADM_UTIL_ONE,
                         (double)(v->load - v->load_deadline) / (double)ADM_UTIL_ONE, load, cap);
                break;
        case ADM_MACHINE_RTA_MISS:
                snprintf(buf, size, "machine: CPU %d: a task of %s (priority %u) would miss its "
                         "deadline of %llu us with the other plugins' threads on that CPU",
                         v->cpu, instance_name(in, n_in, tasks, v->task),
                         tasks ? tasks[v->task].priority : 0, (unsigned long long)v->cap);
                break;
        case ADM_MACHINE_UNBOUNDED_ABOVE:
                snprintf(buf, size, "machine: CPU %d: a task of %s without runtime at priority %u "
                         "would sit at or above a task of %s (priority %u) whose guarantee depends on it",
                         v->cpu, instance_name(in, n_in, tasks, v->task),
                         tasks ? tasks[v->task].priority : 0, instance_name(in, n_in, tasks, v->other),
                         tasks ? tasks[v->other].priority : 0);
                break;
        case ADM_MACHINE_GAVE_UP:
                snprintf(buf, size, "machine: CPU %d: response-time analysis hit its work limit", v->cpu);
                break;
        default:
                snprintf(buf, size, "machine: refused");
        }
}

/* Append a formatted line to buf, keeping it NUL-terminated. */
__attribute__((format(printf, 4, 5)))
static void note(char *buf, size_t size, size_t *len, const char *fmt, ...) {
        va_list ap;
        int k;

        if (!buf || *len + 1 >= size)
                return;
        va_start(ap, fmt);
        k = vsnprintf(buf + *len, size - *len, fmt, ap);
        va_end(ap);
        if (k > 0)
                *len = *len + (size_t)k < size ? *len + (size_t)k : size - 1;
}

static bool instance_on(const struct adm_machine_instance *in, uint32_t c) {
        for (uint32_t k = 0; k < in->n_cpus; k++)
                if (in->cpus[k] == c)
                        return true;
        return false;
}

/* The CPUs instance in may run threads on: DEADLINE without partitions reaches the shared domain. */
static bool instance_reaches(const struct adm_machine_host *h, const struct adm_machine_instance *in,
                             uint32_t c) {
        if (in->policy != ADM_MACHINE_DEADLINE)
                return instance_on(in, c);
        for (uint32_t k = 0; k < in->n_cpus; k++)
                if (in->cpus[k] == c || (!cpu_partitioned(h, in->cpus[k]) && !cpu_partitioned(h, c)))
                        return true;
        return false;
}

int adm_machine_config_check(const struct adm_machine_host *h,
                             const struct adm_machine_instance *in, size_t n, char *buf, size_t size) {
        bool shared = false;
        size_t len = 0;

        if (!h || (n > 0 && !in) || h->n_cpus == 0 || h->n_cpus > ADM_MACHINE_MAX_CPUS ||
            h->rt_share > ADM_UTIL_ONE || h->fair_share > ADM_UTIL_ONE)
                return -EINVAL;
        if (buf && size > 0)
                buf[0] = '\0';
        for (size_t i = 0; i < n; i++)
                for (uint32_t k = 0; k < in[i].n_cpus; k++)
                        if (!in[i].cpus || in[i].cpus[k] >= h->n_cpus)
                                return -EINVAL;

        note(buf, size, &len, "the kernel keeps %.3f of each CPU: SCHED_DEADLINE gets at most %.3f "
             "(sched_rt_runtime_us/sched_rt_period_us %.3f minus the fair server %.3f), "
             "DEADLINE + FIFO/RR at most %.3f per CPU\n",
             1.0 - (double)host_rt_cap(h) / (double)ADM_UTIL_ONE,
             (double)host_dl_cap(h) / (double)ADM_UTIL_ONE, (double)h->rt_share / (double)ADM_UTIL_ONE,
             (double)h->fair_share / (double)ADM_UTIL_ONE, (double)host_rt_cap(h) / (double)ADM_UTIL_ONE);
        if (h->rt_share == ADM_UTIL_ONE)
                note(buf, size, &len, "RT throttling is off (sched_rt_runtime_us = -1): the kernel "
                     "does not check SCHED_DEADLINE bandwidth; only rtfd's tests do\n");

        for (size_t i = 0; i < n; i++) {
                bool global = false;

                if (in[i].policy != ADM_MACHINE_DEADLINE)
                        continue;
                for (uint32_t k = 0; k < in[i].n_cpus; k++)
                        global |= !cpu_partitioned(h, in[i].cpus[k]);
                if (!global)
                        continue;
                note(buf, size, &len, "%s: no partition of its own: its SCHED_DEADLINE threads cannot "
                     "be pinned and run on every CPU without a partition; their bandwidth is counted "
                     "on each of those CPUs\n", in[i].name ? in[i].name : "?");
        }

        for (uint32_t c = 0; c < h->n_cpus; c++) {
                size_t first = n, count = 0;
                bool unbounded = false;

                for (size_t i = 0; i < n; i++)
                        if (instance_reaches(h, &in[i], c)) {
                                if (first == n)
                                        first = i;
                                count++;
                                unbounded |= in[i].tasks_without_runtime;
                        }
                if (count < 2)
                        continue;
                shared = true;
                note(buf, size, &len, "CPU %u: %zu instances may run threads there (%s and others): "
                     "each admission is checked against all of them (whole-machine check)\n",
                     c, count, in[first].name ? in[first].name : "?");
                if (unbounded)
                        note(buf, size, &len, "CPU %u: a FIFO/RR task without a runtime is refused "
                             "at or above a task with a runtime\n", c);
        }
        if (!shared)
                note(buf, size, &len, "no CPU is shared by two instances: each plugin's own test "
                     "covers its CPUs\n");
        return shared ? ADM_MACHINE_CONFIG_SHARED : ADM_MACHINE_CONFIG_ISOLATED;
}
