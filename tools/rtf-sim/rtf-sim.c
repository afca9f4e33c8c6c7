/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-sim: a schedule simulator for what rtfd promotes, driven by the real
 * plugins and the whole-machine check (no copy of the admission code).
 * This file is the command line; campaign.c and curves.c run things,
 * host.c drives the plugins, sim.c simulates, output.c prints.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign.h"
#include "envelope.h"
#include "options.h"
#include "output.h"
#include "rtf-config.h"

#define TOOL "rtf-sim"

static void usage(FILE *f) {
        fprintf(f,
"Usage: rtf-sim --check[=CONFIG] [--sets=N] [--seed=N] [OPTIONS]\n"
"       rtf-sim --scenario=NAME [--gantt] [--plot=PREFIX] [OPTIONS]\n"
"       rtf-sim --curves[=RM|EDF|RM2|EDF2] [--curve-sets=N] [--plot=PREFIX] [OPTIONS]\n"
"\n"
"Simulate the schedules of the task sets rtf's plugins admit, with the real\n"
"plugin modules (EDF.so, RM.so, FP.so, RR.so) and the whole-machine check of\n"
"rtfd deciding, and report every missed deadline with the requests that led\n"
"to it.  Jobs are released synchronously (the worst case for fixed priorities\n"
"and EDF on one CPU), SCHED_DEADLINE jobs run their whole budget, global\n"
"SCHED_DEADLINE jobs go to the CPUs where they hurt FIFO/RR threads most, and\n"
"each CPU leaves 50 ms of every second to the kernel (RT throttling, the fair\n"
"server).\n"
"\n"
"Modes:\n"
"      --check[=CONFIG]     random campaigns (UUniFast utilisations, log-uniform\n"
"                           periods 1-100 ms, constrained deadlines, desired\n"
"                           runtimes, creates/changes/releases) on CONFIG or on\n"
"                           every configuration; exit 1 if a deadline is missed\n"
"      --scenario=NAME      a fixed sequence of issue 11: issue-1 (two EDF\n"
"                           instances without partitions) or issue-2 (EDF and RM\n"
"                           without partitions); exit 1 if a deadline is missed\n"
"      --curves[=RM|EDF]    acceptance ratios against utilisation on one CPU: the\n"
"                           plugin's test, the exact test, the paper's test;\n"
"                           RM2, EDF2: two CPUs, each placement heuristic against\n"
"                           the best split of the set (exact on each CPU)\n"
"      --list               the configurations\n"
"Options:\n"
"      --sets=N             admitted sets to simulate per configuration (100000)\n"
"      --seed=N             the campaign's seed (1); the same seed, the same run\n"
"      --horizon-ms=N       simulate at most N ms when the hyperperiod is longer\n"
"                           (2000: two windows of the kernel's share)\n"
"      --curve-sets=N       sets per utilisation step of --curves (500)\n"
"      --no-machine         without rtfd's whole-machine check (each plugin alone,\n"
"                           as on rtf 9e4110f): shows what the check prevents\n"
"      --friendly-placement global SCHED_DEADLINE jobs stay on their last CPU\n"
"      --plugin-dir=DIR     where the plugins are ($RTF_PLUGINDIR, else the build\n"
"                           tree, else the installed ones)\n"
"      --gantt              with --scenario: the schedule's pieces in the output\n"
"      --expect-miss        exit 0 if a deadline is missed, 1 if none (for tests)\n"
"      --plot=PREFIX        PREFIX-curves-RM.png (-EDF, -RM2, -EDF2) or\n"
"                           PREFIX-gantt.png (needs python3-matplotlib)\n"
"      --json               the results as JSON (times in us, shares in 0..1)\n"
"  -h, --help               this text\n"
"      --version            rtf-sim's version\n");
}

enum {
        OPT_CHECK = 256, OPT_SCENARIO, OPT_CURVES, OPT_LIST, OPT_SETS, OPT_SEED, OPT_HORIZON,
        OPT_CURVE_SETS, OPT_NO_MACHINE, OPT_FRIENDLY, OPT_PLUGIN_DIR, OPT_GANTT, OPT_PLOT, OPT_JSON,
        OPT_VERSION, OPT_EXPECT_MISS,
};

static const char *default_plugin_dir(void) {
        const char *env = getenv("RTF_PLUGINDIR");
        char probe[4096];

        if (env && *env)
                return env;
        snprintf(probe, sizeof(probe), "%s/RM.so", RTF_BUILD_PLUGINDIR);
        return access(probe, R_OK) == 0 ? RTF_BUILD_PLUGINDIR : RTF_PLUGINDIR;
}

int main(int argc, char *argv[]) {
        static const struct option options[] = {
                { "check", optional_argument, NULL, OPT_CHECK },
                { "scenario", required_argument, NULL, OPT_SCENARIO },
                { "curves", optional_argument, NULL, OPT_CURVES },
                { "list", no_argument, NULL, OPT_LIST },
                { "sets", required_argument, NULL, OPT_SETS },
                { "seed", required_argument, NULL, OPT_SEED },
                { "horizon-ms", required_argument, NULL, OPT_HORIZON },
                { "curve-sets", required_argument, NULL, OPT_CURVE_SETS },
                { "no-machine", no_argument, NULL, OPT_NO_MACHINE },
                { "friendly-placement", no_argument, NULL, OPT_FRIENDLY },
                { "plugin-dir", required_argument, NULL, OPT_PLUGIN_DIR },
                { "gantt", no_argument, NULL, OPT_GANTT },
                { "expect-miss", no_argument, NULL, OPT_EXPECT_MISS },
                { "plot", required_argument, NULL, OPT_PLOT },
                { "json", no_argument, NULL, OPT_JSON },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, OPT_VERSION },
                { 0 }
        };
        struct campaign_options o = {
                .seed = 1, .sets = 100000, .horizon_us = 2000000, .veto = true, .curve_sets = 500,
        };
        const char *mode = NULL, *arg = NULL, *plot = NULL;
        bool json = false, gantt = false, expect_miss = false;
        json_object *doc, *results;
        int c, rc = 0;
        uint64_t v;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
                switch (c) {
                case OPT_CHECK:
                case OPT_SCENARIO:
                case OPT_CURVES:
                case OPT_LIST:
                        if (mode) {
                                fprintf(stderr, TOOL ": one of --check, --scenario, --curves, --list\n");
                                return 2;
                        }
                        mode = c == OPT_CHECK ? "check" : c == OPT_SCENARIO ? "scenario" :
                               c == OPT_CURVES ? "curves" : "list";
                        arg = optarg;
                        break;
                case OPT_SETS:
                        if (options_u64(TOOL, "--sets", optarg, 1, 100000000, &o.sets) < 0)
                                return 2;
                        break;
                case OPT_SEED:
                        if (options_u64(TOOL, "--seed", optarg, 0, UINT64_MAX, &o.seed) < 0)
                                return 2;
                        break;
                case OPT_HORIZON:
                        if (options_u64(TOOL, "--horizon-ms", optarg, 1, 3600000, &v) < 0)
                                return 2;
                        o.horizon_us = v * 1000;
                        break;
                case OPT_CURVE_SETS:
                        if (options_u64(TOOL, "--curve-sets", optarg, 1, 1000000, &v) < 0)
                                return 2;
                        o.curve_sets = (uint32_t)v;
                        break;
                case OPT_NO_MACHINE:
                        o.veto = false;
                        break;
                case OPT_FRIENDLY:
                        o.friendly_placement = true;
                        break;
                case OPT_PLUGIN_DIR:
                        o.plugin_dir = optarg;
                        break;
                case OPT_GANTT:
                        gantt = true;
                        break;
                case OPT_EXPECT_MISS:
                        expect_miss = true;
                        break;
                case OPT_PLOT:
                        plot = optarg;
                        break;
                case OPT_JSON:
                        json = true;
                        break;
                case 'h':
                        usage(stdout);
                        return 0;
                case OPT_VERSION:
                        options_print_version(TOOL);
                        return 0;
                default:
                        usage(stderr);
                        return 2;
                }
        }
        if (optind < argc || !mode) {
                usage(stderr);
                return 2;
        }
        if (!o.plugin_dir)
                o.plugin_dir = default_plugin_dir();

        if (strcmp(mode, "list") == 0) {
                for (const char *const *n = campaign_configs; *n; n++)
                        printf("%-8s %s\n", *n, campaign_config_about(*n));
                return 0;
        }

        doc = envelope_new(TOOL, argc, argv);
        results = json_object_new_array();
        json_object_object_add(doc, "mode", json_object_new_string(mode));
        json_object_object_add(doc, "results", results);

        if (strcmp(mode, "check") == 0) {
                for (const char *const *n = campaign_configs; *n && rc < 2; n++) {
                        json_object *res;
                        int r;

                        if (arg && strcmp(arg, *n) != 0)
                                continue;
                        res = json_object_new_object();
                        r = campaign_check(&o, *n, res);
                        json_object_array_add(results, res);
                        if (r < 0) {
                                fprintf(stderr, TOOL ": %s: %s\n", *n, strerror(-r));
                                rc = 2;
                        } else if (r > 0)
                                rc = 1;
                        if (!json && r >= 0)
                                output_check_text(stdout, res);
                        fflush(stdout);
                }
                if (arg && !campaign_config_about(arg)) {
                        fprintf(stderr, TOOL ": unknown configuration '%s' (see --list)\n", arg);
                        rc = 2;
                }
        } else if (strcmp(mode, "scenario") == 0) {
                json_object *res = json_object_new_object(), *segments = NULL;
                int r;

                if (gantt || plot)
                        segments = json_object_new_array();
                r = campaign_scenario(&o, arg, res, segments);
                if (segments)
                        json_object_object_add(res, "gantt", segments);
                json_object_array_add(results, res);
                if (r < 0) {
                        fprintf(stderr, TOOL ": scenario '%s': %s\n", arg, r == -EINVAL ?
                                "unknown (issue-1, issue-2)" : strerror(-r));
                        rc = 2;
                } else {
                        rc = r;
                        if (!json)
                                output_scenario_text(stdout, res);
                }
        } else {
                static const char *const plugins[] = { "RM", "EDF", "RM2", "EDF2" };

                for (size_t i = 0; i < 4 && rc == 0; i++) {
                        bool two = i >= 2;
                        json_object *res;
                        int r;

                        if (arg ? strcmp(arg, plugins[i]) != 0 : two)
                                continue;
                        res = json_object_new_object();
                        r = two ? campaign_curves2(&o, plugins[i], res) : campaign_curves(&o, plugins[i], res);
                        json_object_array_add(results, res);
                        if (r < 0) {
                                fprintf(stderr, TOOL ": --curves=%s: %s\n", plugins[i], strerror(-r));
                                rc = 2;
                        } else if (!json)
                                (two ? output_curves2_text : output_curves_text)(stdout, res);
                }
                if (json_object_array_length(results) == 0) {
                        fprintf(stderr, TOOL ": --curves takes RM, EDF, RM2 or EDF2\n");
                        rc = 2;
                }
        }

        if (expect_miss && rc < 2)
                rc = !rc;
        envelope_finish(doc, rc);
        if (json)
                printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY));
        if (plot && rc < 2 && output_plot(doc, plot) < 0 && rc == 0)
                rc = 2;
        json_object_put(doc);
        return rc;
}
