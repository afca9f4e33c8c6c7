/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-sim's campaigns (campaign.h): every set the real plugins (and the
 * whole-machine veto) admit is simulated; a missed deadline is reported
 * with the set and the sequence of requests that built it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "campaign.h"
#include "gen.h"

/* ---- configurations --------------------------------------------------------- */

struct config_def {
        const char *name;
        const char *about;
        uint32_t n_cpus;
        bool partitioned[2];
        struct {
                const char *name, *file;
                uint32_t cpu_lo, cpu_hi, prio_min, prio_max;
        } inst[3];
        uint32_t n_inst;
};

static const struct config_def configs[] = {
        { "edf-p1", "EDF on a partitioned CPU", 1, { true }, { { "EDF", "EDF.so", 0, 0, 100, 100 } }, 1 },
        { "edf-p2", "EDF on 2 partitioned CPUs (worst-fit)", 2, { true, true },
          { { "EDF", "EDF.so", 0, 1, 100, 100 } }, 1 },
        { "rr-fp", "RR 1-49 and FP 50-99 on one CPU (no test of their own)", 1, { false },
          { { "RR", "RR.so", 0, 0, 1, 49 }, { "FP", "FP.so", 0, 0, 50, 99 } }, 2 },
        { "edf-g2", "EDF on 2 CPUs without partitions (global EDF)", 2, { false, false },
          { { "EDF", "EDF.so", 0, 1, 100, 100 } }, 1 },
        { "rm-1", "RM on one CPU", 1, { false }, { { "RM", "RM.so", 0, 0, 1, 99 } }, 1 },
        { "rm-2", "RM on 2 CPUs (worst-fit)", 2, { false, false }, { { "RM", "RM.so", 0, 1, 1, 99 } }, 1 },
        { "issue-1", "E0 EDF on CPU 0, E1 EDF on CPU 1, no partitions (issue 11 point 1)", 2,
          { false, false }, { { "E0", "EDF.so", 0, 0, 100, 100 }, { "E1", "EDF.so", 1, 1, 100, 100 } }, 2 },
        { "issue-2", "EDF on CPU 0, RM on CPU 1, no partitions (issue 11 point 2)", 2, { false, false },
          { { "EDF", "EDF.so", 0, 0, 100, 100 }, { "RM", "RM.so", 1, 1, 1, 99 } }, 2 },
        { "mixed", "CPU 0 partitioned: EDF and RM on it, RM and FP 1-40 on CPU 1", 2, { true, false },
          { { "EDF", "EDF.so", 0, 0, 100, 100 }, { "RM", "RM.so", 0, 1, 41, 99 },
            { "FP", "FP.so", 1, 1, 1, 40 } }, 3 },
};

#define N_CONFIGS (sizeof(configs) / sizeof(configs[0]))

const char *const campaign_configs[] = {
        "edf-p1", "edf-p2", "edf-g2", "rm-1", "rm-2", "rr-fp", "issue-1", "issue-2", "mixed", NULL,
};

static const struct config_def *config_find(const char *name) {
        for (size_t i = 0; i < N_CONFIGS; i++)
                if (strcmp(configs[i].name, name) == 0)
                        return &configs[i];
        return NULL;
}

const char *campaign_config_about(const char *name) {
        const struct config_def *d = config_find(name);

        return d ? d->about : NULL;
}

int campaign_config(const char *name, struct host *h) {
        const struct config_def *d = config_find(name);

        if (!d)
                return -EINVAL;
        memset(h, 0, sizeof(*h));
        h->n_cpus = d->n_cpus;
        memcpy(h->partitioned, d->partitioned, sizeof(d->partitioned));
        h->machine = (struct adm_machine_host) {
                .n_cpus = d->n_cpus,
                .partitioned = h->partitioned,
                .rt_share = ADM_MACHINE_RT_SHARE_DEFAULT,
                .fair_share = ADM_MACHINE_FAIR_SHARE_DEFAULT,
        };
        h->n_inst = d->n_inst;
        for (uint32_t i = 0; i < d->n_inst; i++) {
                struct host_instance *in = &h->inst[i];

                snprintf(in->name, sizeof(in->name), "%s", d->inst[i].name);
                snprintf(in->file, sizeof(in->file), "%s", d->inst[i].file);
                for (uint32_t c = d->inst[i].cpu_lo; c <= d->inst[i].cpu_hi; c++)
                        in->cpus[in->n_cpus++] = c;
                in->prio_min = d->inst[i].prio_min;
                in->prio_max = d->inst[i].prio_max;
        }
        return 0;
}

/* The kernel's share as the simulator applies it: 50 ms of every second. */
static void sim_config_of(const struct host *h, const struct campaign_options *o, struct sim_config *c) {
        uint64_t keep = ADM_UTIL_ONE - ADM_MACHINE_RT_SHARE_DEFAULT;

        if (ADM_MACHINE_FAIR_SHARE_DEFAULT > keep)
                keep = ADM_MACHINE_FAIR_SHARE_DEFAULT;
        *c = (struct sim_config) {
                .n_cpus = h->n_cpus,
                .reserve_us = keep * 1000000 / ADM_UTIL_ONE,
                .reserve_period_us = 1000000,
                .rr_slice_us = 100000,
                .horizon_us = o->horizon_us,
                .friendly_placement = o->friendly_placement,
        };
        memcpy(c->partitioned, h->partitioned, sizeof(h->partitioned));
}

/* ---- reports ------------------------------------------------------------------ */

static json_object *request_json(const char *op, const char *instance, int32_t task,
                                 const struct host_request *rq, bool admitted, const char *reason) {
        json_object *o = json_object_new_object();

        json_object_object_add(o, "op", json_object_new_string(op));
        if (instance)
                json_object_object_add(o, "instance", json_object_new_string(instance));
        json_object_object_add(o, "task", json_object_new_int(task));
        if (rq) {
                json_object_object_add(o, "period_us", json_object_new_int64((int64_t)rq->period_us));
                json_object_object_add(o, "runtime_us", json_object_new_int64((int64_t)rq->runtime_us));
                json_object_object_add(o, "des_runtime_us", json_object_new_int64((int64_t)rq->des_runtime_us));
                json_object_object_add(o, "deadline_us", json_object_new_int64((int64_t)rq->deadline_us));
                json_object_object_add(o, "priority", json_object_new_int((int32_t)rq->priority));
        }
        json_object_object_add(o, "admitted", json_object_new_boolean(admitted));
        if (!admitted && reason)
                json_object_object_add(o, "reason", json_object_new_string(reason));
        return o;
}

static json_object *set_json(const struct sim_task *t, size_t n) {
        json_object *a = json_object_new_array();

        for (size_t i = 0; i < n; i++) {
                json_object *o = json_object_new_object();

                json_object_object_add(o, "task", json_object_new_int((int32_t)t[i].label));
                json_object_object_add(o, "policy", json_object_new_string(
                        t[i].policy == SIM_DEADLINE ? "DEADLINE" : t[i].policy == SIM_RR ? "RR" : "FIFO"));
                json_object_object_add(o, "cpu", json_object_new_int(t[i].cpu));
                json_object_object_add(o, "priority", json_object_new_int((int32_t)t[i].priority));
                json_object_object_add(o, "exec_us", json_object_new_int64((int64_t)t[i].exec_us));
                json_object_object_add(o, "period_us", json_object_new_int64((int64_t)t[i].period_us));
                json_object_object_add(o, "deadline_us", json_object_new_int64((int64_t)t[i].deadline_us));
                json_object_array_add(a, o);
        }
        return a;
}

static json_object *miss_json(const struct sim_task *t, size_t n, const struct sim_result *r) {
        json_object *o = json_object_new_object();

        json_object_object_add(o, "task", json_object_new_int((int32_t)t[r->task].label));
        json_object_object_add(o, "release_us", json_object_new_int64((int64_t)r->release_us));
        json_object_object_add(o, "deadline_us", json_object_new_int64((int64_t)r->deadline_us));
        json_object_object_add(o, "left_us", json_object_new_int64((int64_t)r->left_us));
        json_object_object_add(o, "set", set_json(t, n));
        return o;
}

/* Simulate what h holds now; 1 on a miss (miss_out filled), 0 if none, negative errno. */
static int simulate(const struct campaign_options *o, struct host *h, struct sim_config *c,
                    struct sim_task *set, size_t *n, struct sim_result *res) {
        uint64_t hyper;

        int r;

        *n = host_sim_tasks(h, set, HOST_MAX_TASKS);
        hyper = sim_hyperperiod(set, *n, o->horizon_us);
        /* a hog has no period: the bound applies */
        for (size_t i = 0; i < *n; i++)
                if (set[i].exec_us == 0)
                        hyper = 0;
        /* the reserved share's window repeats too: the schedule repeats after the lcm */
        if (hyper && c->reserve_us) {
                const struct sim_task both[2] = { { .period_us = hyper }, { .period_us = c->reserve_period_us } };

                hyper = sim_hyperperiod(both, 2, o->horizon_us);
        }
        c->horizon_us = hyper ? hyper : o->horizon_us;
        r = sim_run(c, set, *n, res);
        if (r < 0)
                return r;
        return res->missed;
}

/* ---- --check ---------------------------------------------------------------------- */

static bool is_file(const struct host *h, uint32_t i, const char *file) {
        return strcmp(h->inst[i].file, file) == 0;
}

static void gen_request(struct gen *g, const struct host *h, uint32_t i, double u,
                        struct host_request *rq) {
        bool edf = is_file(h, i, "EDF.so"), rm = is_file(h, i, "RM.so");
        uint64_t t = gen_log_uniform(g, 1000, 100000), c, d = t;

        if (u > 0.95)
                u = 0.95;
        c = (uint64_t)(u * (double)t);
        if (c < 2)
                c = 2;
        *rq = (struct host_request) { .period_us = t };
        /* constrained deadlines half of the time, never below the runtime */
        if (gen_unit(g) < 0.5) {
                d = gen_range(g, c + (t - c) / 3, t);
                rq->deadline_us = d;
        }
        if (c > d)
                c = d;
        if (edf) {
                rq->runtime_us = c;
                if (gen_unit(g) < 0.3)
                        rq->des_runtime_us = gen_range(g, c, d);
                return;
        }
        if (rm) {
                /* a task without runtime now and then: it must not void the others */
                rq->runtime_us = gen_unit(g) < 0.1 ? 0 : c;
                return;
        }
        rq->priority = (uint32_t)gen_range(g, 1, 99);
        rq->runtime_us = gen_unit(g) < 0.2 ? 0 : c;
}

/* The named configuration with its plugins loaded and o's whole-machine check; nothing held on failure. */
static int campaign_open(const struct campaign_options *o, const char *name, struct host *h) {
        int r;

        r = campaign_config(name, h);
        if (r < 0)
                return r;
        h->veto = o->veto;
        r = host_open(h, o->plugin_dir);
        if (r < 0)
                host_close(h);
        return r;
}

int campaign_check(const struct campaign_options *o, const char *name, json_object *out) {
        struct host h;
        struct gen g = { o->seed };
        struct sim_config c;
        struct sim_task set[HOST_MAX_TASKS];
        uint64_t simulated = 0, sequences = 0, refused = 0, requests = 0, events = 0;
        json_object *misses = json_object_new_array();
        int r, found = 0;

        r = campaign_open(o, name, &h);
        if (r < 0) {
                json_object_put(misses);
                return r;
        }
        sim_config_of(&h, o, &c);

        while (simulated < o->sets && found < 10) {
                json_object *seq = json_object_new_array();
                size_t n_ops = 4 + (size_t)gen_range(&g, 0, 12);
                double u[16];

                sequences++;
                /* one UUniFast vector per sequence, total up to 1.1 per CPU */
                gen_uunifast(&g, n_ops, (0.2 + gen_unit(&g) * 0.9) * h.n_cpus, u);
                for (size_t k = 0; k < n_ops && found < 10; k++) {
                        struct host_request rq;
                        uint32_t live = host_count(&h);
                        double what = gen_unit(&g);
                        bool ok;
                        int32_t task = -1;
                        const char *op;

                        requests++;
                        if (live > 0 && what < 0.15) {
                                /* release a random task */
                                uint32_t pick = (uint32_t)gen_range(&g, 0, live - 1);

                                for (uint32_t t = 0; t < HOST_MAX_TASKS; t++)
                                        if (h.tasks[t].used && pick-- == 0) {
                                                task = (int32_t)t;
                                                break;
                                        }
                                host_release(&h, (uint32_t)task);
                                json_object_array_add(seq, request_json("release", NULL, task, NULL, true, NULL));
                                continue;
                        }
                        if (live > 0 && what < 0.35) {
                                uint32_t pick = (uint32_t)gen_range(&g, 0, live - 1);

                                for (uint32_t t = 0; t < HOST_MAX_TASKS; t++)
                                        if (h.tasks[t].used && pick-- == 0) {
                                                task = (int32_t)t;
                                                break;
                                        }
                                gen_request(&g, &h, h.tasks[task].instance, u[k], &rq);
                                ok = host_change(&h, (uint32_t)task, &rq) == 1;
                                op = "change";
                        } else {
                                uint32_t i = (uint32_t)gen_range(&g, 0, h.n_inst - 1);

                                gen_request(&g, &h, i, u[k], &rq);
                                task = host_create(&h, i, &rq);
                                ok = task >= 0;
                                op = "create";
                        }
                        json_object_array_add(seq, request_json(op, h.inst[h.tasks[task >= 0 ? task : 0].instance].name,
                                                                task, &rq, ok, h.reason));
                        if (!ok) {
                                refused++;
                                continue;
                        }
                        /* an admitted set: simulate it */
                        struct sim_result res;
                        size_t n;

                        r = simulate(o, &h, &c, set, &n, &res);
                        if (r < 0)
                                break;
                        simulated++;
                        events += res.events;
                        if (r == 1) {
                                json_object *m = miss_json(set, n, &res);

                                json_object_object_add(m, "sequence", json_object_get(seq));
                                json_object_object_add(m, "sequence_number", json_object_new_int64((int64_t)sequences));
                                json_object_array_add(misses, m);
                                found++;
                                break;
                        }
                        if (simulated >= o->sets)
                                break;
                }
                json_object_put(seq);
                host_release_all(&h);
                if (r < 0)
                        break;
        }
        host_close(&h);

        json_object_object_add(out, "config", json_object_new_string(name));
        json_object_object_add(out, "about", json_object_new_string(campaign_config_about(name)));
        json_object_object_add(out, "machine_check", json_object_new_boolean(o->veto));
        json_object_object_add(out, "seed", json_object_new_int64((int64_t)o->seed));
        json_object_object_add(out, "sequences", json_object_new_int64((int64_t)sequences));
        json_object_object_add(out, "requests", json_object_new_int64((int64_t)requests));
        json_object_object_add(out, "refused", json_object_new_int64((int64_t)refused));
        json_object_object_add(out, "admitted_sets_simulated", json_object_new_int64((int64_t)simulated));
        json_object_object_add(out, "simulation_events", json_object_new_int64((int64_t)events));
        json_object_object_add(out, "misses", misses);
        return r < 0 ? r : found;
}

/* ---- --scenario ------------------------------------------------------------------ */

struct scenario_step {
        uint32_t instance;
        struct host_request rq;
};

struct gantt_ctx {
        json_object *segments;
        const struct sim_task *set;
        int32_t last_task[SIM_MAX_CPUS];
        json_object *open[SIM_MAX_CPUS];
};

static void gantt_trace(void *data, uint32_t cpu, int32_t task, uint64_t start, uint64_t end) {
        struct gantt_ctx *g = data;
        int32_t label = task >= 0 ? (int32_t)g->set[task].label : task;

        if (g->open[cpu] && g->last_task[cpu] == label) {
                json_object_object_add(g->open[cpu], "end_us", json_object_new_int64((int64_t)end));
                return;
        }
        g->open[cpu] = json_object_new_object();
        g->last_task[cpu] = label;
        json_object_object_add(g->open[cpu], "cpu", json_object_new_int((int32_t)cpu));
        json_object_object_add(g->open[cpu], "task", json_object_new_int(label));
        json_object_object_add(g->open[cpu], "start_us", json_object_new_int64((int64_t)start));
        json_object_object_add(g->open[cpu], "end_us", json_object_new_int64((int64_t)end));
        json_object_array_add(g->segments, g->open[cpu]);
}

int campaign_scenario(const struct campaign_options *o, const char *name, json_object *out,
                      json_object *gantt) {
        static const struct scenario_step issue1[] = {
                { 0, { .period_us = 1000, .runtime_us = 850 } },
                { 1, { .period_us = 100, .runtime_us = 40 } },
                { 1, { .period_us = 100, .runtime_us = 40 } },
        };
        static const struct scenario_step issue2[] = {
                { 0, { .period_us = 1000, .runtime_us = 900 } },
                { 1, { .period_us = 10000, .runtime_us = 5000 } },
        };
        const struct scenario_step *steps;
        size_t n_steps, n;
        struct host h;
        struct sim_config c;
        struct sim_task set[HOST_MAX_TASKS];
        struct sim_result res;
        struct gantt_ctx g = { 0 };
        json_object *seq = json_object_new_array();
        int r;

        if (strcmp(name, "issue-1") == 0) {
                steps = issue1;
                n_steps = sizeof(issue1) / sizeof(issue1[0]);
        } else if (strcmp(name, "issue-2") == 0) {
                steps = issue2;
                n_steps = sizeof(issue2) / sizeof(issue2[0]);
        } else {
                json_object_put(seq);
                return -EINVAL;
        }
        r = campaign_open(o, name, &h);
        if (r < 0) {
                json_object_put(seq);
                return r;
        }
        for (size_t k = 0; k < n_steps; k++) {
                int t = host_create(&h, steps[k].instance, &steps[k].rq);

                json_object_array_add(seq, request_json("create", h.inst[steps[k].instance].name, t,
                                                        &steps[k].rq, t >= 0, h.reason));
        }
        sim_config_of(&h, o, &c);
        if (gantt) {
                g.segments = gantt;
                g.set = set;
                c.trace = gantt_trace;
                c.trace_data = &g;
        }
        r = simulate(o, &h, &c, set, &n, &res);
        host_close(&h);
        json_object_object_add(out, "scenario", json_object_new_string(name));
        json_object_object_add(out, "about", json_object_new_string(campaign_config_about(name)));
        json_object_object_add(out, "machine_check", json_object_new_boolean(o->veto));
        json_object_object_add(out, "sequence", seq);
        json_object_object_add(out, "simulated_us", json_object_new_int64((int64_t)res.end_us));
        json_object_object_add(out, "set", set_json(set, n));
        if (r == 1)
                json_object_object_add(out, "miss", miss_json(set, n, &res));
        return r;
}
