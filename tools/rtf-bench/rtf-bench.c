/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-bench: section 6 of the paper on the machine at hand.
 *
 *  - rtf_spec_create and rtf_spec_change latency against the number of tasks
 *    already admitted, for each plugin and number of cores given to it
 *    (Figs. 3 and 5);
 *  - rtf_spec_attach against a direct sched_setscheduler/sched_setattr on the
 *    same thread;
 *  - the floor, measured in the same run: a bare AF_UNIX SOCK_SEQPACKET
 *    round trip of the same sizes between the same two CPUs;
 *  - rtfd's memory (USS, /proc/PID/smaps_rollup) idle and with the largest --tasks of specs;
 *  - or, with --contention, instead of all that: another user's connect +
 *    STATUS while one user floods costly RM changes (contention.c).
 *
 * Two modes.  Private (--private; the default without --socket and
 * RTF_SOCKET): a private rtfd per configuration, with a cpuset root that
 * does not exist, so that EDF on a subset of the CPUs never partitions the
 * machine (the admission math is what is measured, not the cpusets).
 * External (--socket, or RTF_SOCKET): the rtfd serving that socket, as its
 * administrator configured it; it is asked (STATUS) which instances and
 * cores it serves, and each instance is measured as far as its limits and
 * admission let the bench go.
 *
 * A refusal of rtfd (a limit, the policy, admission) ends only the series
 * it happened in, with its reason in the output; a lost connection or a
 * signal ends the run.  Either way everything the bench created is released
 * before it exits (and rtfd would release it with the connection anyway).
 */
#include "bench.h"

static void help(void) {
        printf("Usage: " TOOL " [OPTIONS]\n"
               "Measure what rtfd costs (section 6 of the ReTiF paper).\n\n"
               "Which rtfd:\n"
               "      --private            start a private rtfd per configuration (needs root); the default\n"
               "                           when neither --socket nor RTF_SOCKET is given\n"
               "      --socket=PATH        measure the rtfd serving PATH, as it is configured (default: the\n"
               "                           socket in RTF_SOCKET if set); --private wins over RTF_SOCKET\n"
               "      --daemon-pid=PID     that rtfd's pid, for its USS, when the socket's listener is not\n"
               "                           rtfd (socket activation)\n\n"
               "What to measure:\n"
               "      --plugins=LIST       plugins to measure (private: of EDF,RM,FP,RR, the default;\n"
               "                           --socket: instance names, default every instance rtfd serves)\n"
               "      --cores=LIST         private: numbers of cores given to the plugin (default 1 and all)\n"
               "      --tasks=LIST         tasks already admitted (default 0,16,64,256,1024,4096); a series\n"
               "                           ends where rtfd refuses (a limit, its policy, admission)\n"
               "      --samples=N          requests timed per point (default 200)\n"
               "      --spread-periods     give the admitted tasks distinct periods (default: all 1 s)\n"
               "      --deadline-percent=P give the admitted tasks a deadline of P%% of their period and\n"
               "                           FP and RR ones a runtime too, so that RM's response-time\n"
               "                           analysis, EDF's processor-demand test and the whole-machine\n"
               "                           check run (default 100: implicit deadlines)\n"
               "      --cpus=CLIENT,DAEMON the CPUs of the client and of rtfd and the floor's echo (default 0,1;\n"
               "                           --socket: rtfd is not moved, the echo gets rtfd's affinity)\n"
               "      --rtfd=PATH          private: the rtfd to start (default: the build tree's, else the\n"
               "                           installed one)\n"
               "      --plugindir=DIR      private: its plugins\n"
               "      --latency-hint=US    hold /dev/cpu_dma_latency at US during the run (default 0; \"off\")\n\n"
               "One user against another (private, instead of the above):\n"
               "      --contention[=CONNS] user A holds RM specifications with D = 0.8 T (--deadline-percent)\n"
               "                           and distinct periods and changes them as fast as it can over CONNS\n"
               "                           connections (default 16); user B times --samples connects + STATUS,\n"
               "                           idle and during the flood; with rtfd's per-uid share of its time\n"
               "                           off (max_busy_permille_per_uid 1000) and at its defaults\n"
               "      --contention-specs=N the specifications user A holds (default 250)\n"
               "      --contention-uids=A,B the two uids (default 64000,64001; they need no account)\n\n"
               "Output:\n"
               "      --json               one JSON document\n"
               "      --csv                the rows as CSV (scalars, stops and notes as # comment lines)\n"
               "      --plot=PREFIX        PREFIX-create.png and PREFIX-change.png (needs python3-matplotlib)\n"
               "  -h, --help               this text\n"
               "      --version            the version\n\n"
               "Everything the bench creates is released before it exits, also on SIGINT and SIGTERM (a\n"
               "second signal leaves the releases to rtfd, which makes them when the connection closes).\n");
}

static int parse_list(const char *s, const char *what, uint32_t min, uint32_t max, uint32_t *v, int *n) {
        char buf[256], *save = NULL;

        snprintf(buf, sizeof(buf), "%s", s);
        *n = 0;
        for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
                uint64_t x;

                if (options_parse_u64(w, min, max, &x) < 0 || *n >= MAX_LIST) {
                        fprintf(stderr, TOOL ": %s: \"%s\" is not a number in %u..%u (at most %d of them)\n", what, w,
                                min, max, MAX_LIST);
                        return -1;
                }
                v[(*n)++] = (uint32_t)x;
        }
        if (*n == 0) {
                fprintf(stderr, TOOL ": %s is empty\n", what);
                return -1;
        }
        return 0;
}

static int u32_compare(const void *a, const void *b) {
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

        return x < y ? -1 : x > y;
}

/* Ascending, without duplicates: each series fills up from the previous point. */
static void sort_unique(uint32_t *v, int *n) {
        int k = 0;

        qsort(v, (size_t)*n, sizeof(*v), u32_compare);
        for (int i = 0; i < *n; i++)
                if (k == 0 || v[i] != v[k - 1])
                        v[k++] = v[i];
        *n = k;
}

static int split_plugins(struct bench *ctx, char *list) {
        char *save = NULL;

        ctx->arg.n_plugins = 0;
        for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
                bool dup = false;

                for (int j = 0; j < ctx->arg.n_plugins; j++)
                        dup |= strcasecmp(ctx->arg.plugins[j], w) == 0;
                if (dup)
                        continue;
                if (ctx->arg.n_plugins >= MAX_PLUGINS) {
                        fprintf(stderr, TOOL ": --plugins: at most %d plugins\n", MAX_PLUGINS);
                        return -1;
                }
                ctx->arg.plugins[ctx->arg.n_plugins++] = w;
        }
        if (ctx->arg.n_plugins == 0) {
                fprintf(stderr, TOOL ": --plugins is empty\n");
                return -1;
        }
        return 0;
}

/* Private daemons know the four shipped plugins only; map the names to their kinds. */
static int check_private_plugins(struct bench *ctx) {
        if (ctx->arg.n_plugins == 0) {
                for (size_t i = 0; i < 4; i++)
                        ctx->arg.plugins[i] = bench_kinds[i].name;
                ctx->arg.n_plugins = 4;
                return 0;
        }
        for (int j = 0; j < ctx->arg.n_plugins; j++) {
                bool known = false;

                for (size_t i = 0; i < 4 && !known; i++)
                        if (strcasecmp(ctx->arg.plugins[j], bench_kinds[i].name) == 0) {
                                ctx->arg.plugins[j] = bench_kinds[i].name;
                                known = true;
                        }
                if (!known) {
                        fprintf(stderr, TOOL ": unknown plugin \"%s\" (EDF, RM, FP, RR)\n", ctx->arg.plugins[j]);
                        return -1;
                }
        }
        return 0;
}

/* --private > --socket > RTF_SOCKET > private; options of the other mode are errors. */
static int choose_mode(struct bench *ctx, bool rtfd_given, bool plugindir_given) {
        const char *env = getenv("RTF_SOCKET");

        if (ctx->arg.force_private && ctx->arg.socket_option) {
                fprintf(stderr, TOOL ": --private and --socket exclude each other\n");
                return -1;
        }
        if (ctx->arg.force_private || (!ctx->arg.socket_option && !(env && *env))) {
                ctx->arg.mode = MODE_PRIVATE;
                if (ctx->arg.daemon_pid) {
                        fprintf(stderr, TOOL ": --daemon-pid applies to an external rtfd only (--socket)\n");
                        return -1;
                }
                return check_private_plugins(ctx);
        }
        ctx->arg.mode = MODE_EXTERNAL;
        ctx->arg.socket = ctx->arg.socket_option ? ctx->arg.socket_option : env;
        if (ctx->arg.cores_given || rtfd_given || plugindir_given) {
                fprintf(stderr, TOOL ": --%s applies to private daemons only: the rtfd at %s (%s) serves the cores "
                                "its configuration gives it; add --private to start private daemons\n",
                        ctx->arg.cores_given ? "cores" : rtfd_given ? "rtfd" : "plugindir", ctx->arg.socket,
                        ctx->arg.socket_option ? "--socket" : "RTF_SOCKET");
                return -1;
        }
        return 0;
}

static int parse_args(struct bench *ctx, int argc, char *argv[]) {
        enum { OPT_VERSION = 0x100, OPT_PLUGINS, OPT_CORES, OPT_TASKS, OPT_SAMPLES, OPT_CPUS, OPT_RTFD,
               OPT_PLUGINDIR, OPT_HINT, OPT_JSON, OPT_CSV, OPT_PLOT, OPT_SPREAD, OPT_SOCKET, OPT_PRIVATE,
               OPT_DAEMON_PID, OPT_DEADLINE, OPT_CONTENTION, OPT_CONTENTION_SPECS, OPT_CONTENTION_UIDS };
        static const struct option options[] = {
                { "plugins", required_argument, NULL, OPT_PLUGINS },
                { "cores", required_argument, NULL, OPT_CORES },
                { "tasks", required_argument, NULL, OPT_TASKS },
                { "samples", required_argument, NULL, OPT_SAMPLES },
                { "cpus", required_argument, NULL, OPT_CPUS },
                { "rtfd", required_argument, NULL, OPT_RTFD },
                { "plugindir", required_argument, NULL, OPT_PLUGINDIR },
                { "latency-hint", required_argument, NULL, OPT_HINT },
                { "json", no_argument, NULL, OPT_JSON },
                { "spread-periods", no_argument, NULL, OPT_SPREAD },
                { "deadline-percent", required_argument, NULL, OPT_DEADLINE },
                { "csv", no_argument, NULL, OPT_CSV },
                { "plot", required_argument, NULL, OPT_PLOT },
                { "socket", required_argument, NULL, OPT_SOCKET },
                { "private", no_argument, NULL, OPT_PRIVATE },
                { "daemon-pid", required_argument, NULL, OPT_DAEMON_PID },
                { "contention", optional_argument, NULL, OPT_CONTENTION },
                { "contention-specs", required_argument, NULL, OPT_CONTENTION_SPECS },
                { "contention-uids", required_argument, NULL, OPT_CONTENTION_UIDS },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, OPT_VERSION },
                { 0 }
        };
        static const uint32_t default_tasks[] = { 0, 16, 64, 256, 1024, 4096 };
        long n_cpus = sysconf(_SC_NPROCESSORS_ONLN);
        bool rtfd_given = false, plugindir_given = false;
        uint32_t v[MAX_LIST];
        int c, n;

        ctx->arg.n_tasks = 6;
        memcpy(ctx->arg.tasks, default_tasks, sizeof(default_tasks));
        ctx->arg.cores[ctx->arg.n_cores++] = 1;
        if (n_cpus > 1)
                ctx->arg.cores[ctx->arg.n_cores++] = (uint32_t)n_cpus;
        ctx->arg.client_cpu = 0;
        ctx->arg.daemon_cpu = n_cpus > 1 ? 1 : 0;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
                switch (c) {
                case OPT_PLUGINS:
                        free(ctx->arg.plugin_list);
                        ctx->arg.plugin_list = strdup(optarg);
                        if (!ctx->arg.plugin_list || split_plugins(ctx, ctx->arg.plugin_list) < 0)
                                return -1;
                        break;
                case OPT_CORES:
                        if (parse_list(optarg, "--cores", 1, (uint32_t)n_cpus, ctx->arg.cores, &ctx->arg.n_cores) < 0)
                                return -1;
                        ctx->arg.cores_given = true;
                        break;
                case OPT_TASKS:
                        if (parse_list(optarg, "--tasks", 0, 60000, ctx->arg.tasks, &ctx->arg.n_tasks) < 0)
                                return -1;
                        break;
                case OPT_SAMPLES:
                        if (options_u32(TOOL, "--samples", optarg, 1, 1000000, &ctx->arg.samples) < 0)
                                return -1;
                        break;
                case OPT_CPUS:
                        if (parse_list(optarg, "--cpus", 0, (uint32_t)n_cpus - 1, v, &n) < 0 || n != 2) {
                                fprintf(stderr, TOOL ": --cpus takes CLIENT,DAEMON\n");
                                return -1;
                        }
                        ctx->arg.client_cpu = (int)v[0];
                        ctx->arg.daemon_cpu = (int)v[1];
                        ctx->arg.cpus_given = true;
                        break;
                case OPT_RTFD:
                        ctx->arg.rtfd = optarg;
                        rtfd_given = true;
                        break;
                case OPT_PLUGINDIR:
                        ctx->arg.plugindir = optarg;
                        plugindir_given = true;
                        break;
                case OPT_HINT:
                        if (strcmp(optarg, "off") == 0) {
                                ctx->arg.hint_us = -1;
                        } else if (options_u32(TOOL, "--latency-hint", optarg, 0, INT32_MAX, &v[0]) < 0) {
                                return -1;
                        } else {
                                ctx->arg.hint_us = (int32_t)v[0];
                        }
                        break;
                case OPT_JSON:
                        ctx->arg.json = true;
                        break;
                case OPT_CSV:
                        ctx->arg.csv = true;
                        break;
                case OPT_SPREAD:
                        ctx->arg.spread_periods = true;
                        break;
                case OPT_DEADLINE:
                        if (options_u32(TOOL, "--deadline-percent", optarg, 1, 100, &ctx->arg.deadline_percent) < 0)
                                return -1;
                        break;
                case OPT_PLOT:
                        ctx->arg.plot = optarg;
                        break;
                case OPT_SOCKET:
                        if (!*optarg) {
                                fprintf(stderr, TOOL ": --socket is empty\n");
                                return -1;
                        }
                        ctx->arg.socket_option = optarg;
                        break;
                case OPT_PRIVATE:
                        ctx->arg.force_private = true;
                        break;
                case OPT_DAEMON_PID:
                        if (options_u32(TOOL, "--daemon-pid", optarg, 1, INT32_MAX, &v[0]) < 0)
                                return -1;
                        ctx->arg.daemon_pid = (pid_t)v[0];
                        break;
                case OPT_CONTENTION:
                        ctx->arg.contention_conns = 16;
                        if (optarg && options_u32(TOOL, "--contention", optarg, 1, CONTENTION_CONNS_MAX,
                                                  &ctx->arg.contention_conns) < 0)
                                return -1;
                        break;
                case OPT_CONTENTION_SPECS:
                        if (options_u32(TOOL, "--contention-specs", optarg, 1, 4096, &ctx->arg.contention_specs) < 0)
                                return -1;
                        break;
                case OPT_CONTENTION_UIDS:
                        if (parse_list(optarg, "--contention-uids", 1, INT32_MAX, v, &n) < 0 || n != 2 || v[0] == v[1]) {
                                fprintf(stderr, TOOL ": --contention-uids takes two different non-root uids A,B\n");
                                return -1;
                        }
                        ctx->arg.contention_uids[0] = v[0];
                        ctx->arg.contention_uids[1] = v[1];
                        break;
                case 'h':
                        help();
                        exit(EXIT_SUCCESS);
                case OPT_VERSION:
                        options_print_version(TOOL);
                        exit(EXIT_SUCCESS);
                default:
                        return -1;
                }
        }
        if (options_no_operands(TOOL, argc, argv, optind) < 0)
                return -1;
        if (ctx->arg.json && ctx->arg.csv) {
                fprintf(stderr, TOOL ": --json and --csv exclude each other\n");
                return -1;
        }
        if (ctx->arg.contention_conns) {
                if (ctx->arg.csv || ctx->arg.plot) {
                        fprintf(stderr, TOOL ": --contention prints text or --json only\n");
                        return -1;
                }
                if (ctx->arg.socket_option) {
                        fprintf(stderr, TOOL ": --contention starts its own rtfd (root needed): not with --socket\n");
                        return -1;
                }
                ctx->arg.force_private = true;
                /* Every change runs RM's response-time analysis over all of A's specs. */
                if (ctx->arg.deadline_percent == 0)
                        ctx->arg.deadline_percent = 80;
                ctx->arg.spread_periods = true;
        }
        sort_unique(ctx->arg.tasks, &ctx->arg.n_tasks);
        ctx->res.uss_full_specs = ctx->arg.tasks[ctx->arg.n_tasks - 1];
        return choose_mode(ctx, rtfd_given, plugindir_given);
}

/* The one mutable file-scope variable: a signal handler has no other way to tell. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig) {
        (void)sig;
        if (interrupted < 2)
                interrupted++;
}

int main(int argc, char *argv[]) {
        struct bench bench = {
                .arg = { .samples = 200, .hint_us = 0, .contention_specs = 250,
                         .contention_uids = { 64000, 64001 } },
                .interrupted = &interrupted,
        };
        struct bench *ctx = &bench;
        struct sigaction sa = { .sa_handler = on_signal };
        long n_cpus = sysconf(_SC_NPROCESSORS_ONLN);
        cpu_set_t allowed;
        json_object *doc;
        int hint_fd = -1, rc = EXIT_FAILURE, r;

        if (parse_args(ctx, argc, argv) < 0) {
                fprintf(stderr, "Try '" TOOL " --help'.\n");
                return EXIT_FAILURE;
        }
        CPU_ZERO(&allowed);
        if (ctx->arg.mode == MODE_PRIVATE) {
                if (geteuid() != 0) {
                        fprintf(stderr, TOOL ": needs root to start a private rtfd for every configuration "
                                        "(or measure a running rtfd: --socket PATH)\n");
                        return EXIT_FAILURE;
                }
                which_rtfd_default_paths(ctx);
        } else {
                if (which_rtfd_query(ctx) < 0)
                        return EXIT_FAILURE;
                which_rtfd_cpus(ctx, n_cpus, &allowed);
        }
        doc = envelope_new(TOOL, argc, argv);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);
        if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
                fprintf(stderr, TOOL ": warning: mlockall: %m\n");
        if (ctx->arg.hint_us >= 0) {
                /* What cyclictest does and rtfd does while threads are attached: the same machine state. */
                hint_fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
                if (hint_fd < 0 || write(hint_fd, &ctx->arg.hint_us, sizeof(ctx->arg.hint_us)) != sizeof(ctx->arg.hint_us))
                        fprintf(stderr, TOOL ": warning: cannot hold /dev/cpu_dma_latency: %m\n");
        }
        bench_pin(0, ctx->arg.client_cpu);

        r = measure_rtt(ctx);
        if (r < 0) {
                fprintf(stderr, TOOL ": cannot measure the round trip: %s\n", strerror(-r));
                goto out;
        }
        if ((*ctx->interrupted))
                goto out;
        if (!ctx->arg.json && !ctx->arg.csv)
                output_header(ctx, &allowed);
        if (ctx->arg.contention_conns)
                r = measure_contention(ctx);
        else
                r = ctx->arg.mode == MODE_PRIVATE ? measure_private(ctx) : measure_external(ctx);
        if (ctx->res.throttled)
                bench_note(ctx, "rtfd's rate limit for non-root connections (max_requests_per_sec) refused %" PRIu64
                     " requests; each was asked again %d ms later, and only accepted attempts are timed",
                     ctx->res.throttled, THROTTLE_WAIT_US / 1000);
        rc = r == 0 && !(*ctx->interrupted) ? EXIT_SUCCESS : EXIT_FAILURE;
out:
        if (hint_fd >= 0)
                close(hint_fd);
        output_json(ctx, doc, &allowed);
        if (ctx->arg.plot && rc == EXIT_SUCCESS && output_plot(ctx, doc) < 0)
                rc = EXIT_FAILURE;
        envelope_finish(doc, rc);
        if (ctx->arg.json) {
                printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
                                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
        } else if (ctx->arg.csv) {
                output_csv(ctx);
        } else {
                if (rc == EXIT_SUCCESS && !ctx->arg.contention_conns)
                        output_summary(ctx);
                for (size_t i = 0; i < ctx->res.n_notes; i++)
                        printf("# note: %s\n", ctx->res.notes[i]);
                if ((*ctx->interrupted))
                        printf("# interrupted\n");
        }
        json_object_put(doc);
        rtfd_info_deinit(&ctx->target);
        for (size_t i = 0; i < ctx->res.n_notes; i++)
                free(ctx->res.notes[i]);
        free(ctx->res.rows);
        free(ctx->res.series);
        free(ctx->arg.plugin_list);
        return rc;
}
