/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The options of rtfctl run and rtfctl attach, and their help (the man page is made from it). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch.h"

int launch_parse_time_us(const char *text, uint64_t *ret_us) {
        static const struct { const char *unit; uint64_t us; } units[] = {
                { "", 1 }, { "us", 1 }, { "ms", 1000 }, { "s", 1000000 },
        };
        unsigned long long v;
        char *end;

        if (!text || *text < '0' || *text > '9')
                return -EINVAL;
        errno = 0;
        v = strtoull(text, &end, 10);
        if (errno != 0)
                return -EINVAL;
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
                if (strcmp(end, units[i].unit) == 0) {
                        if (v > UINT64_MAX / units[i].us)
                                return -EINVAL;
                        *ret_us = v * units[i].us;
                        return 0;
                }
        return -EINVAL;
}

/* rtf's own plugin types and the kernel policy each gives (docs/PLUGINS.md). */
static const struct {
        const char *policy;
        const char *types[2];
} policy_types[] = {
        { "fifo", { "FP", "RM" } },
        { "rr", { "RR", NULL } },
        { "deadline", { "EDF", NULL } },
};

int launch_policy_valid(const char *policy) {
        for (size_t i = 0; i < sizeof(policy_types) / sizeof(policy_types[0]); i++)
                if (strcmp(policy_types[i].policy, policy) == 0)
                        return (int)i;
        return -EINVAL;
}

bool launch_policy_gives(int index, const char *type) {
        for (size_t k = 0; k < 2 && policy_types[index].types[k]; k++)
                if (strcmp(policy_types[index].types[k], type) == 0)
                        return true;
        return false;
}

static int parse_unsigned(const char *text, unsigned long min, unsigned long max, unsigned long *ret) {
        unsigned long v;
        char *end;

        if (!text || *text < '0' || *text > '9')
                return -EINVAL;
        errno = 0;
        v = strtoul(text, &end, 10);
        if (errno != 0 || *end != '\0' || v < min || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int split_names(struct launch_opts *o, const char *list) {
        char *save = NULL;

        if (strlen(list) >= sizeof(o->names_buf))
                return -ENAMETOOLONG;
        memcpy(o->names_buf, list, strlen(list) + 1);
        o->n_names = 0;
        for (char *w = strtok_r(o->names_buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
                if (o->n_names == LAUNCH_NAMES_MAX)
                        return -E2BIG;
                o->names[o->n_names++] = w;
        }
        return o->n_names > 0 ? 0 : -EINVAL;
}

#define PARAMS_HELP \
        "Reservation (times in us, or with a unit: 500us, 2ms, 1s):\n" \
        "      --period TIME       period of the reservation\n" \
        "      --runtime TIME      runtime per period (SCHED_DEADLINE plugins, max_utilization rules)\n" \
        "      --deadline TIME     relative deadline (default: the period)\n" \
        "      --des-runtime TIME  desired runtime: the plugin grants up to it\n" \
        "  -p, --priority N        priority 1..99 (FIFO/RR plugins)\n" \
        "  -P, --plugin NAME       the plugin that is to admit it (default: the first that can)\n" \
        "      --policy POLICY     fifo, rr or deadline: the first plugin that gives it (FP or RM,\n" \
        "                          RR, EDF), like chrt -f, -r, -d; -f and -r are short for the first two\n" \
        "      --ignore-admission  skip the plugin's admission test (the policy must allow it)\n" \
        "Threads (one specification each, same parameters):\n" \
        "  -a, --all-threads       every thread of the process, those created later too\n" \
        "  -t, --threads NAMES     only the threads whose name (comm) matches one of the\n" \
        "                          comma-separated shell patterns, e.g. audio*,worker\n" \
        "      --rescan-ms N       how often rtfctl looks for new threads (default %u ms)\n" \
        "      --max-threads N     at most N threads get a reservation (default %u, up to %u)\n" \
        "  -v, --verbose           say what each thread got\n" \
        "  -s, --socket PATH       rtfd's socket (default $RTF_SOCKET or " RTF_DEFAULT_SOCKET ")\n" \
        "  -h, --help              show this help\n"

#define THREADS_HELP \
        "Threads created later.  rtfd gives every thread it promotes SCHED_RESET_ON_FORK: a thread or\n" \
        "process the program creates starts as SCHED_OTHER, and the kernel accounts no reservation\n" \
        "twice.  Without -a/-t only the main thread is real-time.  With -a or -t rtfctl stays as the\n" \
        "supervisor: it looks for new threads every --rescan-ms and asks rtfd for one more\n" \
        "specification per thread (so each counts towards the policy's limits), and releases it\n" \
        "when the thread ends; a thread runs as SCHED_OTHER until the next scan finds it.  A name\n" \
        "is matched when the thread is found and at each scan until it matches (threads often\n" \
        "name themselves after they start); a thread rtfd refuses is said once and left alone.\n"

void launch_help_run(void) {
        printf("Usage: rtfctl run [OPTION...] [--] COMMAND [ARG...]\n"
               "Run COMMAND under a reservation of rtfd, asked as the calling user (the policy\n"
               "applies and the request is audited like any other).  rtfctl holds the reservation\n"
               "while COMMAND runs and gives it back when COMMAND ends: rtfd demotes every thread\n"
               "it promoted and frees the specifications.  Like chrt, but through rtfd.\n\n"
               PARAMS_HELP "\n" THREADS_HELP "\n"
               "Signals: SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH and SIGCONT sent to\n"
               "rtfctl are passed to COMMAND (not those the terminal sends to both already).\n\n"
               "Exit status: COMMAND's; if COMMAND is killed by a signal, rtfctl kills itself with the\n"
               "same signal.  %d: rtfctl failed or rtfd refused the reservation (COMMAND did not run;\n"
               "the reason is printed); %d: COMMAND cannot be executed; %d: COMMAND not found.\n",
               LAUNCH_RESCAN_MS_DEFAULT, LAUNCH_MAX_THREADS_DEFAULT, LAUNCH_MAX_THREADS_LIMIT,
               LAUNCH_EXIT_FAILED, LAUNCH_EXIT_CANNOT_EXEC, LAUNCH_EXIT_NOT_FOUND);
}

void launch_help_attach(void) {
        printf("Usage: rtfctl attach (--pid PID | --tid TID) [OPTION...]\n"
               "Give a running process or thread of the calling user a reservation of rtfd, and hold\n"
               "it until the process (the thread, with --tid) ends or rtfctl is stopped (Ctrl-C,\n"
               "SIGTERM): then rtfd demotes the threads and frees the specifications.\n\n"
               "      --pid PID           the process: its main thread, or with -a/-t its threads\n"
               "      --tid TID           exactly this thread\n"
               PARAMS_HELP "\n" THREADS_HELP "\n"
               "Exit status: 0 when the target ended or rtfctl was stopped; %d when rtfctl failed or\n"
               "rtfd refused (the reason is printed); 2 for a usage error.\n",
               LAUNCH_RESCAN_MS_DEFAULT, LAUNCH_MAX_THREADS_DEFAULT, LAUNCH_MAX_THREADS_LIMIT,
               LAUNCH_EXIT_FAILED);
}

static int usage(const char *what, const char *arg, bool attach) {
        if (arg)
                fprintf(stderr, "rtfctl: %s: '%s'\n", what, arg);
        else
                fprintf(stderr, "rtfctl: %s\n", what);
        fprintf(stderr, "Try 'rtfctl %s --help'.\n", attach ? "attach" : "run");
        return -2;
}

enum {
        OPT_PERIOD = 0x100, OPT_RUNTIME, OPT_DEADLINE, OPT_DES_RUNTIME, OPT_IGNORE, OPT_RESCAN,
        OPT_MAX_THREADS, OPT_PID, OPT_TID, OPT_POLICY,
};

int launch_parse(int argc, char **argv, bool attach, struct launch_opts *o) {
        static const struct option options[] = {
                { "period", required_argument, NULL, OPT_PERIOD },
                { "runtime", required_argument, NULL, OPT_RUNTIME },
                { "deadline", required_argument, NULL, OPT_DEADLINE },
                { "des-runtime", required_argument, NULL, OPT_DES_RUNTIME },
                { "priority", required_argument, NULL, 'p' },
                { "plugin", required_argument, NULL, 'P' },
                { "policy", required_argument, NULL, OPT_POLICY },
                { "ignore-admission", no_argument, NULL, OPT_IGNORE },
                { "all-threads", no_argument, NULL, 'a' },
                { "threads", required_argument, NULL, 't' },
                { "rescan-ms", required_argument, NULL, OPT_RESCAN },
                { "max-threads", required_argument, NULL, OPT_MAX_THREADS },
                { "verbose", no_argument, NULL, 'v' },
                { "socket", required_argument, NULL, 's' },
                { "pid", required_argument, NULL, OPT_PID },
                { "tid", required_argument, NULL, OPT_TID },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 }
        };
        unsigned long v;
        uint64_t us;
        int c, r = 0;

        *o = (struct launch_opts) {
                .params = RTF_PARAMS_INIT,
                .rescan_ms = LAUNCH_RESCAN_MS_DEFAULT,
                .max_threads = LAUNCH_MAX_THREADS_DEFAULT,
        };
        optind = 1;
        /* '+': the program's own options are not rtfctl's. */
        while ((c = getopt_long(argc, argv, "+p:P:frat:vs:h", options, NULL)) >= 0) {
                switch (c) {
                case OPT_PERIOD:
                case OPT_RUNTIME:
                case OPT_DEADLINE:
                case OPT_DES_RUNTIME:
                        if (launch_parse_time_us(optarg, &us) < 0)
                                return usage("not a time", optarg, attach);
                        r = c == OPT_PERIOD ? rtf_params_set_period(&o->params, us) :
                            c == OPT_RUNTIME ? rtf_params_set_runtime(&o->params, us) :
                            c == OPT_DEADLINE ? rtf_params_set_deadline(&o->params, us) :
                            rtf_params_set_des_runtime(&o->params, us);
                        if (r < 0)
                                return usage("a time must be at least 1 us and less than 2^32 us", optarg, attach);
                        break;
                case 'p':
                        if (parse_unsigned(optarg, 1, 99, &v) < 0 || rtf_params_set_priority(&o->params, (uint32_t)v) < 0)
                                return usage("a priority is 1..99", optarg, attach);
                        break;
                case 'P':
                        if (rtf_params_set_scheduler(&o->params, optarg) < 0)
                                return usage("a plugin name has 1..31 characters", optarg, attach);
                        break;
                case OPT_POLICY:
                case 'f':
                case 'r':
                        o->policy = c == 'f' ? "fifo" : c == 'r' ? "rr" : optarg;
                        if (launch_policy_valid(o->policy) < 0)
                                return usage("--policy is fifo, rr or deadline", optarg, attach);
                        break;
                case OPT_IGNORE:
                        rtf_params_ignore_admission(&o->params, true);
                        break;
                case 'a':
                        o->threads = LAUNCH_THREADS_ALL;
                        break;
                case 't':
                        if (split_names(o, optarg) < 0)
                                return usage("expected up to 32 comma-separated names", optarg, attach);
                        o->threads = LAUNCH_THREADS_NAMED;
                        break;
                case OPT_RESCAN:
                        if (parse_unsigned(optarg, 1, 60000, &v) < 0)
                                return usage("--rescan-ms is 1..60000", optarg, attach);
                        o->rescan_ms = (unsigned)v;
                        break;
                case OPT_MAX_THREADS:
                        if (parse_unsigned(optarg, 1, LAUNCH_MAX_THREADS_LIMIT, &v) < 0)
                                return usage("--max-threads is 1..4096", optarg, attach);
                        o->max_threads = (unsigned)v;
                        break;
                case 'v':
                        o->verbose = true;
                        break;
                case 's':
                        /* librtf reads the socket from the environment. */
                        if (setenv("RTF_SOCKET", optarg, 1) < 0)
                                return usage("cannot set RTF_SOCKET", optarg, attach);
                        break;
                case OPT_PID:
                case OPT_TID:
                        if (!attach)
                                return usage("--pid and --tid are options of rtfctl attach", NULL, attach);
                        if (parse_unsigned(optarg, 1, INT_MAX, &v) < 0)
                                return usage("not a process or thread id", optarg, attach);
                        if (c == OPT_PID)
                                o->pid = (pid_t)v;
                        else
                                o->tid = (pid_t)v;
                        break;
                case 'h':
                        if (attach)
                                launch_help_attach();
                        else
                                launch_help_run();
                        return -1;
                default:
                        return usage("unknown option", NULL, attach);
                }
        }
        if (o->policy && (o->params.flags & RTF_PARAM_HAS_SCHEDULER))
                return usage("give --policy or --plugin, not both", NULL, attach);
        if (attach) {
                if (optind != argc)
                        return usage("unexpected argument", argv[optind], attach);
                if ((o->pid != 0) == (o->tid != 0))
                        return usage("give exactly one of --pid and --tid", NULL, attach);
                if (o->tid && o->threads != LAUNCH_THREADS_ONE)
                        return usage("--all-threads and --threads go with --pid, not --tid", NULL, attach);
                return 0;
        }
        if (optind >= argc)
                return usage("no command to run", NULL, attach);
        return optind;
}
