/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-sim's output: text for people (comments start with '#'), the plots
 * through tools/plot/plot-sim.py.  The JSON itself is printed by main.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "output.h"
#include "plot.h"

static int64_t get_int(json_object *o, const char *key) {
        json_object *v;

        return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : 0;
}

static const char *get_str(json_object *o, const char *key) {
        json_object *v;

        return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "";
}

static void print_set(FILE *f, json_object *set) {
        for (size_t i = 0; i < json_object_array_length(set); i++) {
                json_object *t = json_object_array_get_idx(set, i);

                fprintf(f, "#   task %lld: %s cpu %lld prio %lld exec %lld us period %lld us deadline %lld us\n",
                        (long long)get_int(t, "task"), get_str(t, "policy"), (long long)get_int(t, "cpu"),
                        (long long)get_int(t, "priority"), (long long)get_int(t, "exec_us"),
                        (long long)get_int(t, "period_us"), (long long)get_int(t, "deadline_us"));
        }
}

static void print_sequence(FILE *f, json_object *seq) {
        for (size_t i = 0; i < json_object_array_length(seq); i++) {
                json_object *s = json_object_array_get_idx(seq, i), *v;
                bool ok = json_object_object_get_ex(s, "admitted", &v) && json_object_get_boolean(v);

                fprintf(f, "#   %s %s task %lld (T %lld, C %lld, Qd %lld, D %lld, prio %lld): %s %s\n",
                        get_str(s, "op"), get_str(s, "instance"), (long long)get_int(s, "task"),
                        (long long)get_int(s, "period_us"), (long long)get_int(s, "runtime_us"),
                        (long long)get_int(s, "des_runtime_us"), (long long)get_int(s, "deadline_us"),
                        (long long)get_int(s, "priority"), ok ? "admitted" : "refused:",
                        ok ? "" : get_str(s, "reason"));
        }
}

static void print_miss(FILE *f, json_object *m) {
        json_object *v;

        fprintf(f, "MISS: task %lld released at %lld us missed its deadline at %lld us with %lld us left\n",
                (long long)get_int(m, "task"), (long long)get_int(m, "release_us"),
                (long long)get_int(m, "deadline_us"), (long long)get_int(m, "left_us"));
        if (json_object_object_get_ex(m, "sequence", &v)) {
                fprintf(f, "# the requests, in order (sequence %lld):\n", (long long)get_int(m, "sequence_number"));
                print_sequence(f, v);
        }
        if (json_object_object_get_ex(m, "set", &v)) {
                fprintf(f, "# the set as the kernel runs it:\n");
                print_set(f, v);
        }
}

void output_check_text(FILE *f, json_object *res) {
        json_object *misses;

        json_object_object_get_ex(res, "misses", &misses);
        fprintf(f, "%s: %lld admitted sets simulated, %zu misses (%lld sequences, %lld requests, "
                "%lld refused, machine check %s)\n", get_str(res, "config"),
                (long long)get_int(res, "admitted_sets_simulated"), json_object_array_length(misses),
                (long long)get_int(res, "sequences"), (long long)get_int(res, "requests"),
                (long long)get_int(res, "refused"), get_str(res, "machine_check"));
        fprintf(f, "# %s\n", get_str(res, "about"));
        for (size_t i = 0; i < json_object_array_length(misses); i++)
                print_miss(f, json_object_array_get_idx(misses, i));
}

void output_scenario_text(FILE *f, json_object *res) {
        json_object *v;

        fprintf(f, "# %s: %s (machine check %s)\n", get_str(res, "scenario"), get_str(res, "about"),
                get_str(res, "machine_check"));
        json_object_object_get_ex(res, "sequence", &v);
        print_sequence(f, v);
        fprintf(f, "# admitted set:\n");
        json_object_object_get_ex(res, "set", &v);
        print_set(f, v);
        if (json_object_object_get_ex(res, "miss", &v))
                print_miss(f, v);
        else
                fprintf(f, "no deadline missed in %lld us\n", (long long)get_int(res, "simulated_us"));
}

void output_curves_text(FILE *f, json_object *res) {
        json_object *rows, *v;

        json_object_object_get_ex(res, "rows", &rows);
        fprintf(f, "# %s on one CPU, %lld tasks per set; paper's test: %s\n", get_str(res, "plugin"),
                (long long)get_int(res, "tasks_per_set"), get_str(res, "paper_test"));
        fprintf(f, "# U     default  util=1   exact    paper\n");
        for (size_t i = 0; i < json_object_array_length(rows); i++) {
                json_object *r = json_object_array_get_idx(rows, i);
                double x[5];
                const char *keys[] = { "utilization", "plugin_default", "plugin_util1", "exact", "paper" };

                for (int k = 0; k < 5; k++)
                        x[k] = json_object_object_get_ex(r, keys[k], &v) ? json_object_get_double(v) : 0;
                fprintf(f, "%.2f   %.3f    %.3f    %.3f    %.3f\n", x[0], x[1], x[2], x[3], x[4]);
        }
        json_object_object_get_ex(res, "paper_pessimism", &v);
        fprintf(f, "%s: the paper's test refuses %.1f %% of the schedulable sets\n", get_str(res, "plugin"),
                100.0 * json_object_get_double(v));
        json_object_object_get_ex(res, "pessimism", &v);
        fprintf(f, "%s: pessimism %.1f %% (%lld of %lld schedulable sets refused at util=1); "
                "unschedulable sets admitted: plugin %lld, paper %lld\n", get_str(res, "plugin"),
                100.0 * json_object_get_double(v), (long long)get_int(res, "refused_but_schedulable"),
                (long long)get_int(res, "exact_schedulable"),
                (long long)get_int(res, "plugin_admitted_unschedulable"),
                (long long)get_int(res, "paper_admitted_unschedulable"));
}

void output_curves2_text(FILE *f, json_object *res) {
        static const char *const keys[] = { "utilization", "exact", "worst-fit", "first-fit", "best-fit" };
        json_object *rows, *v;

        json_object_object_get_ex(res, "rows", &rows);
        fprintf(f, "# %s: two CPUs, %lld tasks per set, util=1; exact: some split passes the exact test\n",
                get_str(res, "plugin"), (long long)get_int(res, "tasks_per_set"));
        fprintf(f, "# U     exact    worst    first    best\n");
        for (size_t i = 0; i < json_object_array_length(rows); i++) {
                json_object *r = json_object_array_get_idx(rows, i);

                for (int k = 0; k < 5; k++)
                        fprintf(f, k ? "    %.3f" : "%.2f", json_object_object_get_ex(r, keys[k], &v) ?
                                json_object_get_double(v) : 0.0);
                fputc('\n', f);
        }
        fprintf(f, "%s: pessimism", get_str(res, "plugin"));
        for (int k = 2; k < 5; k++) {
                char key[48];

                snprintf(key, sizeof(key), "pessimism_%s", keys[k]);
                json_object_object_get_ex(res, key, &v);
                fprintf(f, " %s %.1f %%", keys[k], 100.0 * json_object_get_double(v));
        }
        fprintf(f, " (of %lld schedulable sets); unschedulable admitted: %lld\n",
                (long long)get_int(res, "exact_schedulable"),
                (long long)get_int(res, "plugin_admitted_unschedulable"));
}

int output_plot(json_object *doc, const char *prefix) {
        char buf[4096];

        return plot_run("rtf-sim", plot_script("RTF_PLOT_SCRIPT_SIM", "plot-sim.py", buf, sizeof(buf)), doc, prefix);
}
