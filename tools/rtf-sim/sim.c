/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event-driven schedule simulator of sim.h.  Between two events
 * (release, completion, deadline, RR slice end, reserved-share window or
 * zero-laxity point) nothing changes, so time jumps from one to the next.
 */
#include <errno.h>
#include <string.h>

#include "sim.h"

#define SIM_FOREVER (UINT64_MAX / 4)

static uint64_t gcd(uint64_t a, uint64_t b) {
        while (b) {
                uint64_t t = a % b;

                a = b;
                b = t;
        }
        return a;
}

uint64_t sim_hyperperiod(const struct sim_task *tasks, size_t n, uint64_t limit_us) {
        uint64_t h = 1;

        for (size_t i = 0; i < n; i++) {
                uint64_t p = tasks[i].period_us, g = gcd(h, p);

                if (p == 0 || h / g > limit_us / p)
                        return 0;
                h = h / g * p;
        }
        return h;
}

struct cpu_state {
        int32_t running;                /* task index, -1 idle, -2 reserved */
        uint64_t free_got;              /* non-real-time time in this window */
        bool forced;
};

static bool dl_partitioned(const struct sim_config *c, const struct sim_task *t) {
        return t->cpu >= 0 && c->partitioned[t->cpu];
}

/* Does a ready job of a better FIFO/RR candidate exist: higher priority, or same and earlier stamp. */
static bool fixed_better(const struct sim_task *a, const struct sim_task *b) {
        if (a->priority != b->priority)
                return a->priority > b->priority;
        return a->stamp < b->stamp;
}

static int32_t pick_fixed(const struct sim_task *tasks, size_t n, uint32_t c) {
        int32_t best = -1;

        for (size_t i = 0; i < n; i++) {
                const struct sim_task *t = &tasks[i];

                if (t->policy == SIM_DEADLINE || !t->active || t->cpu != (int32_t)c)
                        continue;
                if (best < 0 || fixed_better(t, &tasks[best]))
                        best = (int32_t)i;
        }
        return best;
}

static void assign(const struct sim_config *cfg, struct sim_task *tasks, size_t n,
                   struct cpu_state *cpu) {
        bool taken[SIM_MAX_CPUS] = { false };
        uint32_t free_shared = 0;

        for (size_t i = 0; i < n; i++)
                tasks[i].on_cpu = -1;
        for (uint32_t c = 0; c < cfg->n_cpus; c++) {
                cpu[c].running = cpu[c].forced ? -2 : -1;
                if (!cfg->partitioned[c])
                        free_shared++;
        }

        /* Partitions: EDF on each. */
        for (uint32_t c = 0; c < cfg->n_cpus; c++) {
                int32_t best = -1;

                if (!cfg->partitioned[c] || taken[c])
                        continue;
                for (size_t i = 0; i < n; i++)
                        if (tasks[i].policy == SIM_DEADLINE && tasks[i].active &&
                            tasks[i].cpu == (int32_t)c &&
                            (best < 0 || tasks[i].abs_deadline < tasks[best].abs_deadline))
                                best = (int32_t)i;
                if (best >= 0) {
                        cpu[c].running = best;
                        tasks[best].on_cpu = (int32_t)c;
                        taken[c] = true;
                }
        }

        /* The shared domain: the free_shared earliest deadlines, one at a time. */
        for (uint32_t k = 0; k < free_shared; k++) {
                int32_t best = -1, where = -1;

                for (size_t i = 0; i < n; i++)
                        if (tasks[i].policy == SIM_DEADLINE && tasks[i].active &&
                            !dl_partitioned(cfg, &tasks[i]) && tasks[i].on_cpu < 0 &&
                            (best < 0 || tasks[i].abs_deadline < tasks[best].abs_deadline ||
                             (tasks[i].abs_deadline == tasks[best].abs_deadline && i < (size_t)best)))
                                best = (int32_t)i;
                if (best < 0)
                        break;
                if (cfg->friendly_placement && tasks[best].last_cpu >= 0 &&
                    !taken[tasks[best].last_cpu] && !cfg->partitioned[tasks[best].last_cpu])
                        where = tasks[best].last_cpu;
                /* adversarial: the CPU whose ready FIFO/RR job has the highest priority */
                for (uint32_t c = 0; where < 0 && !cfg->friendly_placement && c < cfg->n_cpus; c++) {
                        int32_t f;

                        if (taken[c] || cfg->partitioned[c])
                                continue;
                        f = pick_fixed(tasks, n, c);
                        if (f >= 0 && (where < 0 || tasks[f].priority > tasks[pick_fixed(tasks, n, (uint32_t)where)].priority))
                                where = (int32_t)c;
                }
                for (uint32_t c = 0; where < 0 && c < cfg->n_cpus; c++)
                        if (!taken[c] && !cfg->partitioned[c])
                                where = (int32_t)c;
                if (where < 0)
                        break;
                cpu[where].running = best;
                tasks[best].on_cpu = where;
                tasks[best].last_cpu = where;
                taken[where] = true;
        }

        /* FIFO/RR where no DEADLINE job runs and the kernel does not take its share. */
        for (uint32_t c = 0; c < cfg->n_cpus; c++) {
                int32_t f;

                if (taken[c] || cpu[c].forced)
                        continue;
                f = pick_fixed(tasks, n, c);
                if (f >= 0) {
                        cpu[c].running = f;
                        tasks[f].on_cpu = (int32_t)c;
                }
        }
}

static void release_job(struct sim_task *t, uint64_t now, uint64_t rr_slice) {
        t->release = now;
        t->remaining = t->exec_us ? t->exec_us : SIM_FOREVER;
        t->abs_deadline = t->exec_us ? now + t->deadline_us : SIM_FOREVER;
        t->stamp = now;
        t->slice_left = rr_slice;
        t->active = true;
        t->next_release = t->exec_us ? now + t->period_us : SIM_FOREVER;
}

static uint64_t min64(uint64_t a, uint64_t b) {
        return a < b ? a : b;
}

int sim_run(const struct sim_config *cfg, struct sim_task *tasks, size_t n, struct sim_result *ret) {
        struct cpu_state cpu[SIM_MAX_CPUS];
        uint64_t now = 0, window_end, rr = cfg->rr_slice_us ? cfg->rr_slice_us : 100000;
        struct sim_result r = { 0 };

        if (!cfg || cfg->n_cpus == 0 || cfg->n_cpus > SIM_MAX_CPUS || (n > 0 && !tasks) ||
            (cfg->reserve_us && cfg->reserve_us >= cfg->reserve_period_us))
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                struct sim_task *t = &tasks[i];

                if (t->cpu < -1 || t->cpu >= (int32_t)cfg->n_cpus ||
                    (t->policy != SIM_DEADLINE && t->cpu < 0) ||
                    (t->exec_us && (t->period_us == 0 || t->deadline_us == 0 ||
                                    t->deadline_us > t->period_us || t->exec_us > t->deadline_us)))
                        return -EINVAL;
                t->last_cpu = -1;
                t->active = false;
                t->next_release = 0;
        }
        memset(cpu, 0, sizeof(cpu));
        window_end = cfg->reserve_us ? cfg->reserve_period_us : SIM_FOREVER;

        for (;;) {
                uint64_t next = cfg->horizon_us;

                r.events++;
                /* deadlines first, the horizon's own included */
                for (size_t i = 0; i < n; i++) {
                        struct sim_task *t = &tasks[i];

                        if (t->active && t->abs_deadline <= now) {
                                r.missed = true;
                                r.task = (uint32_t)i;
                                r.release_us = t->release;
                                r.deadline_us = t->abs_deadline;
                                r.left_us = t->remaining;
                                r.end_us = now;
                                *ret = r;
                                return 0;
                        }
                }
                if (now >= cfg->horizon_us)
                        break;
                for (size_t i = 0; i < n; i++)
                        if (tasks[i].next_release <= now)
                                release_job(&tasks[i], now, rr);
                if (now >= window_end) {
                        window_end += cfg->reserve_period_us;
                        for (uint32_t c = 0; c < cfg->n_cpus; c++)
                                cpu[c].free_got = 0;
                }
                for (uint32_t c = 0; c < cfg->n_cpus; c++) {
                        uint64_t owed = cfg->reserve_us > cpu[c].free_got ? cfg->reserve_us - cpu[c].free_got : 0;

                        cpu[c].forced = owed > 0 && window_end - now <= owed;
                }
                assign(cfg, tasks, n, cpu);

                /* The next event. */
                next = min64(next, window_end);
                for (size_t i = 0; i < n; i++) {
                        const struct sim_task *t = &tasks[i];

                        next = min64(next, t->next_release);
                        if (t->active) {
                                next = min64(next, t->abs_deadline);
                                if (t->on_cpu >= 0) {
                                        next = min64(next, now + t->remaining);
                                        if (t->policy == SIM_RR)
                                                next = min64(next, now + t->slice_left);
                                }
                        }
                }
                for (uint32_t c = 0; c < cfg->n_cpus; c++) {
                        uint64_t owed = cfg->reserve_us > cpu[c].free_got ? cfg->reserve_us - cpu[c].free_got : 0;

                        /* busy with real-time work: the zero-laxity point comes nearer */
                        if (owed > 0 && cpu[c].running >= 0 && window_end - owed > now)
                                next = min64(next, window_end - owed);
                }
                if (next <= now)
                        next = now + 1;

                for (uint32_t c = 0; c < cfg->n_cpus; c++) {
                        uint64_t dt = next - now;

                        if (cfg->trace)
                                cfg->trace(cfg->trace_data, c, cpu[c].running, now, next);
                        if (cpu[c].running < 0) {
                                cpu[c].free_got += dt;
                                continue;
                        }
                        struct sim_task *t = &tasks[cpu[c].running];

                        t->remaining -= dt;
                        if (t->remaining == 0)
                                t->active = false;
                        if (t->policy == SIM_RR) {
                                t->slice_left -= dt;
                                if (t->slice_left == 0) {
                                        /* to the tail of its priority */
                                        t->stamp = next;
                                        t->slice_left = rr;
                                }
                        }
                }
                now = next;
        }
        r.end_us = now;
        *ret = r;
        return 0;
}
