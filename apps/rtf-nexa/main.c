/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-nexa: options, the daemon's life (detach, pid file, syslog), the
 * pipes, and the main thread that turns the tasks' log rings into log lines
 * while the tasks run.  See rtf-nexa(1).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "rtf-config.h"
#include "nexa-app.h"

#define LATENCY_BUCKETS 20000           /* 1 us each: 20 ms */
#define CMD_MINOR 1                     /* rtp1: commands in */
#define DIAL_MINOR 2                    /* rtp2: dialled commands out */
#define PIPE_POOL 4096

struct logger {
        bool syslog;
};

static void say(const struct logger *lg, int prio, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(const struct logger *lg, int prio, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        if (lg->syslog) {
                vsyslog(prio, fmt, ap);
        } else {
                fputs(TOOL ": ", stderr);
                vfprintf(stderr, fmt, ap);
                fputc('\n', stderr);
        }
        va_end(ap);
}

static void drain(const struct logger *lg, struct log_ring *r) {
        unsigned tail = atomic_load_explicit(&r->tail, memory_order_relaxed);

        while (tail != atomic_load_explicit(&r->head, memory_order_acquire)) {
                say(lg, r->prio[tail % LOG_RING], "%s", r->msg[tail % LOG_RING]);
                tail++;
                atomic_store_explicit(&r->tail, tail, memory_order_release);
        }
}

static void usage(FILE *f) {
        fprintf(f,
                "Usage: " TOOL " [OPTIONS]\n"
                "The application of \"Real-time Linux on a Raspberry Pi\": a Nexa code-wheel transmitter\n"
                "driven by commands on pipe rtp1 (\"d21\" = house D unit 2 on, \"d20\" off), a rotary-dial\n"
                "decoder writing the dialled commands to rtp2 (\"cat rtp2 > rtp1\" connects them), and a\n"
                "latency task.  Its tasks are reservations admitted by rtfd (priorities 99, 80, 60).\n\n"
                "  -h, --help                 this text\n"
                "      --version              the version\n"
                "  -p, --pipe-dir DIR         where rtp1 and rtp2 are (default: $RTF_PIPE_DIR, else\n"
                "                             $XDG_RUNTIME_DIR/rtf-pipes, else /tmp/rtf-pipes-UID)\n"
                "  -r, --record FILE.ook      write the transmitter's achieved pulses as an rtl_433 pulse file\n"
                "      --record-iq FILE.cu8   ... as 8-bit I/Q at 250 kHz (rtl_433 -r FILE.cu8)\n"
                "      --record-vcd FILE.vcd  ... as a VCD (achieved and ideal line)\n"
                "      --max-edges N          edges kept for the recordings (default 65536)\n"
                "      --report FILE|-        timing report (JSON) when the program ends\n"
                "      --t-us N               the code's time unit T (default 360)\n"
                "      --latency-us N         run the latency task toggling every N us (360, 35000; 0 off)\n"
                "      --dial-sim DIGITS      a simulated rotary dial dials DIGITS (e.g. 421)\n"
                "      --dials N              decoders in the dial loop (1-8; default 1 with a dial)\n"
                "      --dial-pps X           pulses per second of the simulated dial (default 10)\n"
                "      --dial-break PCT       break share of a pulse (default 60)\n"
                "      --dial-bounce-us N     contact bounce after each change (default 3000)\n"
                "      --dial-delay-ms N      when the simulated receiver is lifted (default 100)\n"
                "      --gpio-chip CHIP       drive real GPIO lines of CHIP (libgpiod), e.g. gpiochip0\n"
                "      --tx-line N            transmitter output line (default 17, the paper's BCM 17)\n"
                "      --dial-line N          first dial input line (default 27)\n"
                "      --latency-line N       latency output line (default 22)\n"
                "  -d, --duration-s N         end after N seconds (default: at SIGTERM/SIGINT)\n"
                "      --plain                no reservations (priority 0): to try it without rtfd\n"
                "      --daemon               detach, log to syslog\n"
                "      --pid-file FILE        with --daemon: write the pid there\n");
}

enum {
        OPT_VERSION = 256, OPT_IQ, OPT_VCD, OPT_MAX_EDGES, OPT_REPORT, OPT_T, OPT_LAT, OPT_SIM, OPT_DIALS, OPT_PPS,
        OPT_BREAK, OPT_BOUNCE, OPT_DELAY, OPT_CHIP, OPT_TXL, OPT_DIALL, OPT_LATL, OPT_PLAIN, OPT_DAEMON, OPT_PID,
};

static int number(const char *s, unsigned long min, unsigned long max, uint32_t *ret) {
        char *end;
        unsigned long v;

        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno || end == s || *end || v < min || v > max || s[0] == '-')
                return -EINVAL;
        *ret = (uint32_t) v;
        return 0;
}

static int parse(int argc, char **argv, struct nexa_config *c) {
        static const struct option opts[] = {
                { "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, OPT_VERSION },
                { "pipe-dir", required_argument, NULL, 'p' }, { "record", required_argument, NULL, 'r' },
                { "record-iq", required_argument, NULL, OPT_IQ }, { "record-vcd", required_argument, NULL, OPT_VCD },
                { "max-edges", required_argument, NULL, OPT_MAX_EDGES }, { "report", required_argument, NULL, OPT_REPORT },
                { "t-us", required_argument, NULL, OPT_T }, { "latency-us", required_argument, NULL, OPT_LAT },
                { "dial-sim", required_argument, NULL, OPT_SIM }, { "dials", required_argument, NULL, OPT_DIALS },
                { "dial-pps", required_argument, NULL, OPT_PPS }, { "dial-break", required_argument, NULL, OPT_BREAK },
                { "dial-bounce-us", required_argument, NULL, OPT_BOUNCE },
                { "dial-delay-ms", required_argument, NULL, OPT_DELAY },
                { "gpio-chip", required_argument, NULL, OPT_CHIP }, { "tx-line", required_argument, NULL, OPT_TXL },
                { "dial-line", required_argument, NULL, OPT_DIALL }, { "latency-line", required_argument, NULL, OPT_LATL },
                { "duration-s", required_argument, NULL, 'd' }, { "plain", no_argument, NULL, OPT_PLAIN },
                { "daemon", no_argument, NULL, OPT_DAEMON }, { "pid-file", required_argument, NULL, OPT_PID },
                { 0 },
        };
        uint32_t v, dials = UINT32_MAX;
        int o;

        while ((o = getopt_long(argc, argv, "hp:r:d:", opts, NULL)) != -1) {
                int r = 0;

                switch (o) {
                case 'h': usage(stdout); return 1;
                case OPT_VERSION: printf(TOOL " %s\n", RTF_VERSION); return 1;
                case 'p': c->pipe_dir = optarg; break;
                case 'r': c->record_ook = optarg; break;
                case OPT_IQ: c->record_iq = optarg; break;
                case OPT_VCD: c->record_vcd = optarg; break;
                case OPT_REPORT: c->report = optarg; break;
                case OPT_MAX_EDGES: r = number(optarg, 16, 1u << 22, &c->max_edges); break;
                case OPT_T: r = number(optarg, 100, 2000, &c->t_us); break;
                case OPT_LAT: r = number(optarg, 0, 10000000, &c->latency_period_us);
                        if (r == 0 && c->latency_period_us && c->latency_period_us < 50)
                                r = -EINVAL;
                        break;
                case OPT_SIM: c->dial_sim = optarg;
                        r = strspn(optarg, "0123456789") == strlen(optarg) && strlen(optarg) <= 30 ? 0 : -EINVAL;
                        break;
                case OPT_DIALS: r = number(optarg, 0, NEXA_DIALS_MAX, &dials); break;
                case OPT_PPS: r = number(optarg, 5, 20, &v); c->dial_pps_milli = v * 1000; break;
                case OPT_BREAK: r = number(optarg, 30, 80, &c->dial_break_pct); break;
                case OPT_BOUNCE: r = number(optarg, 0, 8000, &c->dial_bounce_us); break;
                case OPT_DELAY: r = number(optarg, 0, 600000, &c->dial_delay_ms); break;
                case OPT_CHIP: c->gpio_chip = optarg; break;
                case OPT_TXL: r = number(optarg, 0, 63, &v); c->tx_gpio = (int) v; break;
                case OPT_DIALL: r = number(optarg, 0, 63, &v); c->dial_gpio = (int) v; break;
                case OPT_LATL: r = number(optarg, 0, 63, &v); c->latency_gpio = (int) v; break;
                case 'd': r = number(optarg, 1, 100000000, &c->duration_s); break;
                case OPT_PLAIN: c->plain = true; break;
                case OPT_DAEMON: c->daemon = true; break;
                case OPT_PID: c->pid_file = optarg; break;
                default: usage(stderr); return -EINVAL;
                }
                if (r < 0) {
                        const char *name = "?";

                        for (const struct option *x = opts; x->name; x++)
                                if (x->val == o)
                                        name = x->name;
                        fprintf(stderr, TOOL ": bad value for --%s: '%s' (see --help)\n", name, optarg);
                        return -EINVAL;
                }
        }
        if (optind < argc) {
                fprintf(stderr, TOOL ": unexpected argument '%s' (see --help)\n", argv[optind]);
                return -EINVAL;
        }
        c->dials = dials != UINT32_MAX ? dials : (c->dial_sim || c->gpio_chip) ? 1 : 0;
        if (c->dials && !c->dial_sim && !c->gpio_chip) {
                fprintf(stderr, TOOL ": --dials needs --dial-sim or --gpio-chip\n");
                return -EINVAL;
        }
        return 0;
}

static int write_pid_file(const char *path) {
        char buf[32];
        int fd, n;

        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                return -errno;
        n = snprintf(buf, sizeof(buf), "%d\n", (int) getpid());
        if (write(fd, buf, (size_t) n) != n) {
                close(fd);
                return -EIO;
        }
        return close(fd) < 0 ? -errno : 0;
}

static int setup_lines(struct nexa_app *app, const struct logger *lg) {
        struct nexa_config *c = &app->cfg;
        int r;

        app->tx_line = (struct out_line) { .name = "tx" };
        app->latency_line = (struct out_line) { .name = "latency" };
        if (c->record_ook || c->record_iq || c->record_vcd || c->report) {
                app->tx_line.edges = calloc(c->max_edges, sizeof(struct nexa_edge));
                if (!app->tx_line.edges)
                        return -ENOMEM;
                app->tx_line.capacity = c->max_edges;
        }
        if (hist_init(&app->latency_hist, LATENCY_BUCKETS) < 0)
                return -ENOMEM;
        if (!c->gpio_chip)
                return 0;
        r = gpio_open(c->gpio_chip, &app->gpio);
        if (r < 0) {
                say(lg, LOG_ERR, "cannot open GPIO chip %s: %s%s", c->gpio_chip, strerror(-r),
                    r == -EOPNOTSUPP ? " (built without libgpiod)" : "");
                return r;
        }
        if ((r = gpio_request_output(app->gpio, (unsigned) c->tx_gpio)) < 0 ||
            (c->latency_period_us && (r = gpio_request_output(app->gpio, (unsigned) c->latency_gpio)) < 0))
                return r;
        for (uint32_t k = 0; !c->dial_sim && k < c->dials; k++)
                if ((r = gpio_request_input(app->gpio, (unsigned) c->dial_gpio + k)) < 0)
                        return r;
        app->tx_line.gpio = app->gpio;
        app->tx_line.gpio_offset = (unsigned) c->tx_gpio;
        if (c->latency_period_us) {
                app->latency_line.gpio = app->gpio;
                app->latency_line.gpio_offset = (unsigned) c->latency_gpio;
        }
        return 0;
}

/* Runs until a signal or the duration; returns 0 or the stopping signal's number. */
static void run(struct nexa_app *app, const struct logger *lg, const sigset_t *stop) {
        int64_t until = app->cfg.duration_s ? app->start_ns + (int64_t) app->cfg.duration_s * 1000000000LL : 0;
        struct timespec tick = { .tv_nsec = 50000000 };

        for (;;) {
                int sig = sigtimedwait(stop, NULL, &tick);

                drain(lg, &app->tx_log);
                drain(lg, &app->dial_log);
                if (sig > 0) {
                        say(lg, LOG_INFO, "stopping (%s)", strsignal(sig));
                        return;
                }
                if (until && (int64_t) rt_timer_read() >= until)
                        return;
        }
}

int main(int argc, char **argv) {
        static struct nexa_app app;     /* large (log rings, decoders): not on the stack */
        struct logger lg = { 0 };
        sigset_t stop;
        int r;

        app.cfg = (struct nexa_config) {
                .t_us = NEXA_T_US, .max_edges = 65536, .dial_pps_milli = 10000, .dial_break_pct = 60,
                .dial_bounce_us = 3000, .dial_delay_ms = 100, .tx_gpio = 17, .dial_gpio = 27, .latency_gpio = 22,
        };
        app.argc = argc;
        app.argv = argv;
        r = parse(argc, argv, &app.cfg);
        if (r != 0)
                return r > 0 ? EXIT_SUCCESS : 2;
        for (uint32_t k = 0; k < NEXA_DIALS_MAX; k++)
                app.decoders[k] = (struct nexa_dial) NEXA_DIAL_INIT;
        if (app.cfg.pipe_dir && setenv("RTF_PIPE_DIR", app.cfg.pipe_dir, 1) < 0)
                return EXIT_FAILURE;

        if (app.cfg.daemon) {
                if (daemon(0, 0) < 0) {
                        fprintf(stderr, TOOL ": cannot detach: %m\n");
                        return EXIT_FAILURE;
                }
                openlog(TOOL, LOG_PID, LOG_DAEMON);
                lg.syslog = true;
                if (app.cfg.pid_file && (r = write_pid_file(app.cfg.pid_file)) < 0) {
                        say(&lg, LOG_ERR, "cannot write %s: %s", app.cfg.pid_file, strerror(-r));
                        return EXIT_FAILURE;
                }
        }
        r = setup_lines(&app, &lg);
        if (r < 0) {
                say(&lg, LOG_ERR, "cannot set up the lines: %s", strerror(-r));
                return EXIT_FAILURE;
        }
        /* Section 4.3: no page faults on the real-time path. */
        if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
                say(&lg, LOG_WARNING, "mlockall: %m (page faults may delay the tasks)");

        /* Only the main thread takes the stopping signals (the tasks inherit the mask). */
        sigemptyset(&stop);
        sigaddset(&stop, SIGTERM);
        sigaddset(&stop, SIGINT);
        sigaddset(&stop, SIGHUP);
        pthread_sigmask(SIG_BLOCK, &stop, NULL);

        r = rt_pipe_create(&app.cmd_pipe, "rtp1", CMD_MINOR, PIPE_POOL);
        if (r >= 0) {
                r = rt_pipe_create(&app.dial_pipe, "rtp2", DIAL_MINOR, PIPE_POOL);
                if (r < 0)
                        rt_pipe_delete(&app.cmd_pipe);
        }
        if (r < 0) {
                say(&lg, LOG_ERR, "cannot create the pipes: %s", strerror(-r));
                return EXIT_FAILURE;
        }
        app.start_ns = (int64_t) rt_timer_read();
        r = tasks_start(&app);
        if (r < 0) {
                const char *why = rtf_last_reason();

                say(&lg, LOG_ERR, "cannot start the real-time tasks: %s%s%s%s", strerror(-r), why[0] ? " (" : "", why,
                    why[0] ? ")" : "");
                tasks_stop(&app);
                return EXIT_FAILURE;
        }
        say(&lg, LOG_INFO, "ready: commands on %s, dialled commands on %s", rtf_native_pipe_path(&app.cmd_pipe),
            rtf_native_pipe_path(&app.dial_pipe));

        run(&app, &lg, &stop);
        tasks_stop(&app);
        drain(&lg, &app.tx_log);
        drain(&lg, &app.dial_log);
        r = record_write_all(&app);
        if (app.cfg.pid_file && app.cfg.daemon)
                unlink(app.cfg.pid_file);
        gpio_close(app.gpio);
        hist_deinit(&app.latency_hist);
        free(app.tx_line.edges);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
