/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Acceptance-ratio curves (campaign.h): for one CPU, the share of random
 * sets each test admits against utilisation: the plugin as configured
 * by default, the plugin at util=1 (the test itself, without the kernel's
 * share), the exact test (the simulator over the hyperperiod from a
 * synchronous release, exact on one CPU for fixed priorities and EDF with
 * D <= T), and the paper's test (U <= 1 for RM, the density sum for EDF).
 * Periods come from divisors of 200 ms so that the hyperperiod is short.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "campaign.h"
#include "gen.h"

#define CURVE_TASKS 5
#define CURVE_STEPS 20
#define CURVE_TASKS_MAX 8

static const uint64_t curve_periods[] = {
        1000, 2000, 4000, 5000, 8000, 10000, 20000, 25000, 40000, 50000, 100000, 200000,
};

/*
 * A random task of utilisation u, as every curve draws it: a period of
 * curve_periods, a runtime of at least 2 us and at most the period (u is
 * capped at one CPU's worth: UUniFast over two CPUs may give a task more),
 * and for half of the tasks a deadline in the later half of the slack.
 */
static struct host_request curve_task(struct gen *g, double u) {
        uint64_t t = curve_periods[gen_range(g, 0, sizeof(curve_periods) / sizeof(curve_periods[0]) - 1)];
        uint64_t c = (uint64_t)llround((u > 1.0 ? 1.0 : u) * (double)t);
        struct host_request rq;

        if (c < 2)
                c = 2;
        if (c > t)
                c = t;
        rq = (struct host_request) { .period_us = t, .runtime_us = c };
        if (gen_unit(g) < 0.5)
                rq.deadline_us = gen_range(g, c + (t - c) / 2, t);
        return rq;
}

/* Create every task of the set on instance 0; admitted if all are; released again. */
static bool plugin_admits(struct host *h, const struct host_request *rq, size_t n) {
        bool all = true;

        for (size_t i = 0; i < n && all; i++)
                all = host_create(h, 0, &rq[i]) >= 0;
        host_release_all(h);
        return all;
}

static bool exact_admits(bool edf, const struct host_request *rq, size_t n) {
        struct sim_task set[CURVE_TASKS_MAX];
        struct sim_config c = { .n_cpus = 1, .partitioned = { edf } };
        struct sim_result res;

        if (n > CURVE_TASKS_MAX)
                return false;
        for (size_t i = 0; i < n; i++) {
                uint32_t rank = 0;

                for (size_t j = 0; j < n; j++)
                        rank += rq[j].period_us < rq[i].period_us;
                set[i] = (struct sim_task) {
                        .policy = edf ? SIM_DEADLINE : SIM_FIFO,
                        .cpu = 0,
                        .priority = 99 - rank,
                        .exec_us = rq[i].runtime_us,
                        .period_us = rq[i].period_us,
                        .deadline_us = rq[i].deadline_us ? rq[i].deadline_us : rq[i].period_us,
                        .label = (uint32_t)i,
                };
        }
        c.horizon_us = sim_hyperperiod(set, n, 10000000);
        return sim_run(&c, set, n, &res) == 0 && !res.missed;
}

static bool paper_admits(bool edf, const struct host_request *rq, size_t n) {
        double u = 0;

        for (size_t i = 0; i < n; i++) {
                uint64_t w = edf && rq[i].deadline_us ? rq[i].deadline_us : rq[i].period_us;

                u += (double)rq[i].runtime_us / (double)w;
        }
        return u <= 1.0;
}

int campaign_curves(const struct campaign_options *o, const char *plugin, json_object *out) {
        static const char *const util1[] = { "util=1" };
        bool edf = strcmp(plugin, "EDF") == 0;
        const char *config = edf ? "edf-p1" : "rm-1";
        struct host def, one;
        struct gen g = { o->seed };
        json_object *rows = json_object_new_array();
        uint64_t tot_exact = 0, tot_refused = 0, unsound = 0, paper_unsound = 0, paper_refused = 0;
        int r;

        if (!edf && strcmp(plugin, "RM") != 0) {
                json_object_put(rows);
                return -EINVAL;
        }
        campaign_config(config, &def);
        campaign_config(config, &one);
        one.inst[0].options[0] = util1[0];
        one.inst[0].n_options = 1;
        r = host_open(&def, o->plugin_dir);
        if (r == 0)
                r = host_open(&one, o->plugin_dir);
        if (r < 0) {
                host_close(&def);
                host_close(&one);
                json_object_put(rows);
                return r;
        }

        for (int step = 1; step <= CURVE_STEPS; step++) {
                double target = (double)step / CURVE_STEPS;
                uint32_t n_def = 0, n_one = 0, n_exact = 0, n_paper = 0;
                json_object *row = json_object_new_object();

                for (uint32_t s = 0; s < o->curve_sets; s++) {
                        struct host_request rq[CURVE_TASKS];
                        double u[CURVE_TASKS];
                        bool a_def, a_one, a_exact, a_paper;

                        gen_uunifast(&g, CURVE_TASKS, target, u);
                        for (size_t i = 0; i < CURVE_TASKS; i++)
                                rq[i] = curve_task(&g, u[i]);
                        a_def = plugin_admits(&def, rq, CURVE_TASKS);
                        a_one = plugin_admits(&one, rq, CURVE_TASKS);
                        a_exact = exact_admits(edf, rq, CURVE_TASKS);
                        a_paper = paper_admits(edf, rq, CURVE_TASKS);
                        n_def += a_def;
                        n_one += a_one;
                        n_exact += a_exact;
                        n_paper += a_paper;
                        tot_exact += a_exact;
                        tot_refused += a_exact && !a_one;
                        unsound += a_one && !a_exact;
                        paper_unsound += a_paper && !a_exact;
                        paper_refused += a_exact && !a_paper;
                }
                json_object_object_add(row, "utilization", json_object_new_double(target));
                json_object_object_add(row, "sets", json_object_new_int((int32_t)o->curve_sets));
                json_object_object_add(row, "plugin_default", json_object_new_double((double)n_def / o->curve_sets));
                json_object_object_add(row, "plugin_util1", json_object_new_double((double)n_one / o->curve_sets));
                json_object_object_add(row, "exact", json_object_new_double((double)n_exact / o->curve_sets));
                json_object_object_add(row, "paper", json_object_new_double((double)n_paper / o->curve_sets));
                json_object_array_add(rows, row);
        }
        host_close(&def);
        host_close(&one);
        json_object_object_add(out, "plugin", json_object_new_string(plugin));
        json_object_object_add(out, "paper_test", json_object_new_string(edf ? "density sum <= 1" : "U <= 1"));
        json_object_object_add(out, "seed", json_object_new_int64((int64_t)o->seed));
        json_object_object_add(out, "tasks_per_set", json_object_new_int(CURVE_TASKS));
        json_object_object_add(out, "rows", rows);
        json_object_object_add(out, "exact_schedulable", json_object_new_int64((int64_t)tot_exact));
        /* pessimism: schedulable sets the plugin's test (util=1) refuses */
        json_object_object_add(out, "refused_but_schedulable", json_object_new_int64((int64_t)tot_refused));
        json_object_object_add(out, "pessimism", json_object_new_double(
                tot_exact ? (double)tot_refused / (double)tot_exact : 0.0));
        json_object_object_add(out, "paper_pessimism", json_object_new_double(
                tot_exact ? (double)paper_refused / (double)tot_exact : 0.0));
        json_object_object_add(out, "plugin_admitted_unschedulable", json_object_new_int64((int64_t)unsound));
        json_object_object_add(out, "paper_admitted_unschedulable", json_object_new_int64((int64_t)paper_unsound));
        return 0;
}

/* ---- two CPUs: the placement heuristics ------------------------------------------- */

#define CURVE2_TASKS 6

/* Is there a split of the set over two CPUs that the exact test accepts on each? */
static bool exact_partition_exists(bool edf, const struct host_request *rq, size_t n) {
        /* task n-1 on CPU 0 without loss of generality: 2^(n-1) splits */
        for (uint32_t mask = 0; mask < (1u << (n - 1)); mask++) {
                struct host_request a[CURVE2_TASKS], b[CURVE2_TASKS];
                size_t na = 0, nb = 0;
                double ua = 0, ub = 0;

                for (size_t i = 0; i < n; i++) {
                        bool second = i + 1 < n && (mask & (1u << i));
                        double u = (double)rq[i].runtime_us / (double)rq[i].period_us;

                        if (second) {
                                b[nb++] = rq[i];
                                ub += u;
                        } else {
                                a[na++] = rq[i];
                                ua += u;
                        }
                }
                if (ua > 1.0 || ub > 1.0)
                        continue;
                if (exact_admits(edf, a, na) && (nb == 0 || exact_admits(edf, b, nb)))
                        return true;
        }
        return false;
}

int campaign_curves2(const struct campaign_options *o, const char *plugin, json_object *out) {
        static const char *const names[] = { "worst-fit", "first-fit", "best-fit" };
        static const char *const opts[][2] = {
                { "util=1", "placement=worst-fit" },
                { "util=1", "placement=first-fit" },
                { "util=1", "placement=best-fit" },
        };
        bool edf = strcmp(plugin, "EDF2") == 0;
        struct host h[3];
        struct gen g = { o->seed };
        json_object *rows = json_object_new_array();
        uint64_t tot_exact = 0, refused[3] = { 0 }, unsound = 0;
        int r = 0;

        if (!edf && strcmp(plugin, "RM2") != 0) {
                json_object_put(rows);
                return -EINVAL;
        }
        for (int k = 0; k < 3; k++) {
                campaign_config(edf ? "edf-p2" : "rm-2", &h[k]);
                h[k].inst[0].options[0] = opts[k][0];
                h[k].inst[0].options[1] = opts[k][1];
                h[k].inst[0].n_options = 2;
        }
        for (int k = 0; k < 3 && r == 0; k++)
                r = host_open(&h[k], o->plugin_dir);
        if (r < 0) {
                for (int k = 0; k < 3; k++)
                        host_close(&h[k]);
                json_object_put(rows);
                return r;
        }
        for (int step = 1; step <= CURVE_STEPS; step++) {
                double target = 2.0 * step / CURVE_STEPS;
                uint32_t n_exact = 0, n_fit[3] = { 0 };
                json_object *row = json_object_new_object();

                for (uint32_t s = 0; s < o->curve_sets; s++) {
                        struct host_request rq[CURVE2_TASKS];
                        double u[CURVE2_TASKS];
                        bool exact;

                        gen_uunifast(&g, CURVE2_TASKS, target, u);
                        for (size_t i = 0; i < CURVE2_TASKS; i++)
                                rq[i] = curve_task(&g, u[i]);
                        exact = exact_partition_exists(edf, rq, CURVE2_TASKS);
                        n_exact += exact;
                        tot_exact += exact;
                        for (int k = 0; k < 3; k++) {
                                bool a = plugin_admits(&h[k], rq, CURVE2_TASKS);

                                n_fit[k] += a;
                                refused[k] += exact && !a;
                                unsound += a && !exact;
                        }
                }
                json_object_object_add(row, "utilization", json_object_new_double(target));
                json_object_object_add(row, "sets", json_object_new_int((int32_t)o->curve_sets));
                json_object_object_add(row, "exact", json_object_new_double((double)n_exact / o->curve_sets));
                for (int k = 0; k < 3; k++)
                        json_object_object_add(row, names[k],
                                               json_object_new_double((double)n_fit[k] / o->curve_sets));
                json_object_array_add(rows, row);
        }
        for (int k = 0; k < 3; k++)
                host_close(&h[k]);
        json_object_object_add(out, "plugin", json_object_new_string(plugin));
        json_object_object_add(out, "seed", json_object_new_int64((int64_t)o->seed));
        json_object_object_add(out, "tasks_per_set", json_object_new_int(CURVE2_TASKS));
        json_object_object_add(out, "rows", rows);
        json_object_object_add(out, "exact_schedulable", json_object_new_int64((int64_t)tot_exact));
        for (int k = 0; k < 3; k++) {
                char key[48];

                snprintf(key, sizeof(key), "pessimism_%s", names[k]);
                json_object_object_add(out, key, json_object_new_double(
                        tot_exact ? (double)refused[k] / (double)tot_exact : 0.0));
        }
        json_object_object_add(out, "plugin_admitted_unschedulable", json_object_new_int64((int64_t)unsound));
        return 0;
}
