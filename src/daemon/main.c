/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtfd: the privileged daemon of rtf.  One thread, one epoll loop: the
 * listening socket, the clients, one pidfd per attached thread, a signalfd
 * (SIGTERM/SIGINT stop, SIGHUP reloads) and a watchdog timer.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#include "event.h"
#include "fdlimit.h"
#include "log.h"
#include "kernel.h"
#include "state.h"
#include "text.h"
#include "manager.h"
#include "rtf-config.h"
#include "server.h"
#include "soundness.h"

#define DEFAULT_CONFIG RTF_SYSCONFDIR "/rtfd.conf"
#define DEFAULT_ACL RTF_SYSCONFDIR "/acl.conf"
#define DEFAULT_STATE_NAME "rtfd.state"
#define WATCHDOG_INTERVAL_SEC 1

/* The daemon: everything it owns, passed explicitly (no file-scope state). */
struct rtfd {
        struct event_loop ev;
        struct manager *mgr;            /* the broker */
        struct server *srv;             /* its one front end */
        struct source signal_source, watchdog_source;
        int signal_fd, watchdog_fd;
        bool stop;
};

static void sd_notify(const char *state) {
        const char *path = getenv("NOTIFY_SOCKET");
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        size_t len;
        int fd;

        if (!path || (path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof(addr.sun_path))
                return;
        len = strlen(path);
        memcpy(addr.sun_path, path, len);
        if (addr.sun_path[0] == '@')
                addr.sun_path[0] = 0;
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return;
        sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&addr,
               (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
        close(fd);
}

static void signal_event(struct source *s, uint32_t events) {
        struct rtfd *d = (struct rtfd *)((char *)s - offsetof(struct rtfd, signal_source));
        struct signalfd_siginfo si;

        while (read(d->signal_fd, &si, sizeof(si)) == sizeof(si)) {
                if (si.ssi_signo == SIGHUP) {
                        sd_notify("RELOADING=1");
                        manager_reload(d->mgr);
                        sd_notify("READY=1");
                } else {
                        log_info("Received %s, stopping", strsignal((int)si.ssi_signo));
                        d->stop = true;
                }
        }
}

static void watchdog_event(struct source *s, uint32_t events) {
        struct rtfd *d = (struct rtfd *)((char *)s - offsetof(struct rtfd, watchdog_source));
        uint64_t expirations;

        if (read(d->watchdog_fd, &expirations, sizeof(expirations)) == sizeof(expirations))
                manager_watchdog(d->mgr);
}

static int setup_signals(struct rtfd *d) {
        sigset_t mask;
        int r;

        signal(SIGPIPE, SIG_IGN);
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return -errno;
        d->signal_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
        if (d->signal_fd < 0)
                return -errno;
        r = event_add(&d->ev, &d->signal_source, d->signal_fd, EPOLLIN, signal_event);
        if (r < 0)
                return r;
        return 0;
}

static int setup_watchdog(struct rtfd *d) {
        struct itimerspec its = {
                .it_interval = { .tv_sec = WATCHDOG_INTERVAL_SEC },
                .it_value = { .tv_sec = WATCHDOG_INTERVAL_SEC },
        };

        d->watchdog_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        if (d->watchdog_fd < 0)
                return -errno;
        if (timerfd_settime(d->watchdog_fd, 0, &its, NULL) < 0)
                return -errno;
        return event_add(&d->ev, &d->watchdog_source, d->watchdog_fd, EPOLLIN, watchdog_event);
}

static void help(void) {
        printf("Usage: rtfd [OPTION...]\n"
               "The rtf daemon: admits real-time task specifications of unprivileged\n"
               "clients through scheduling plugins and applies them to their threads.\n\n"
               "  -c, --config FILE     configuration file (default %s;\n"
               "                        if absent, a built-in default is used)\n"
               "  -a, --acl FILE        access-control policy (default %s; if absent,\n"
               "                        only root may reserve anything)\n"
               "  -s, --socket PATH     listening socket (default %s)\n"
               "  -p, --plugindir DIR   where plugins are loaded from (default %s)\n"
               "      --default-config  use the built-in default, ignoring any file\n"
               "      --cpuset-root DIR a cgroup v1 cpuset hierarchy or a cgroup2 mount (default:\n"
               "                        the one that owns the cpuset controller)\n"
               "      --state-file FILE threads rtfd promoted, to demote them after a crash\n"
               "                        (default: " DEFAULT_STATE_NAME " beside the socket)\n"
               "      --rttime-us USEC  FIFO/RR tasks without a runtime: RLIMIT_RTTIME of their\n"
               "                        process (longest run without blocking; default 0 = none)\n"
               "  -f, --foreground      stay in the foreground (rtfd never forks; accepted\n"
               "                        for compatibility with service managers)\n"
               "  -t, --check-config    parse the configuration and the plugins, then exit\n"
               "  -v, --verbose         log debug messages\n"
               "  -h, --help            show this help\n"
               "      --version         show the version\n",
               DEFAULT_CONFIG, DEFAULT_ACL, RTF_DEFAULT_SOCKET, RTF_PLUGINDIR);
}

int main(int argc, char **argv) {
        enum { OPT_VERSION = 0x100, OPT_CPUSET_ROOT, OPT_DEFAULT_CONFIG, OPT_STATE_FILE, OPT_RTTIME };
        static const struct option options[] = {
                { "config", required_argument, NULL, 'c' },
                { "socket", required_argument, NULL, 's' },
                { "plugindir", required_argument, NULL, 'p' },
                { "cpuset-root", required_argument, NULL, OPT_CPUSET_ROOT },
                { "default-config", no_argument, NULL, OPT_DEFAULT_CONFIG },
                { "acl", required_argument, NULL, 'a' },
                { "state-file", required_argument, NULL, OPT_STATE_FILE },
                { "rttime-us", required_argument, NULL, OPT_RTTIME },
                { "foreground", no_argument, NULL, 'f' },
                { "check-config", no_argument, NULL, 't' },
                { "verbose", no_argument, NULL, 'v' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, OPT_VERSION },
                { NULL, 0, NULL, 0 }
        };
        struct manager_options mo = {
                .acl_path = DEFAULT_ACL,
                .plugindir = RTF_PLUGINDIR,
                .limits = LIMITS_DEFAULT,
        };
        struct server_options so = {
                .socket_path = getenv("RTF_SOCKET") ? getenv("RTF_SOCKET") : RTF_DEFAULT_SOCKET,
        };
        struct rtfd d = {
                .ev = EVENT_LOOP_NULL,
                .signal_source = { .fd = -1 },
                .watchdog_source = { .fd = -1 },
                .signal_fd = -1,
                .watchdog_fd = -1,
        };
        const char *config = NULL;
        _cleanup_(soundness_deinit) struct soundness sound = { 0 };
        char state_path[4096];
        bool check_only = false, builtin = false;
        uint64_t rttime;
        int c, r;

        while ((c = getopt_long(argc, argv, "a:c:s:p:ftvh", options, NULL)) >= 0) {
                switch (c) {
                case 'a':
                        mo.acl_path = optarg;
                        mo.acl_required = true;
                        break;
                case OPT_STATE_FILE:
                        mo.state_path = optarg;
                        break;
                case OPT_RTTIME:
                        /* Issue 10: the bound for FIFO/RR tasks without a runtime (enforce.h). */
                        if (text_parse_decimal(optarg, strlen(optarg), UINT32_MAX, &rttime) < 0) {
                                fprintf(stderr, "rtfd: --rttime-us takes microseconds, not '%s'.\n", optarg);
                                return 2;
                        }
                        mo.rttime_us = rttime;
                        break;
                case 'c':
                        config = optarg;
                        break;
                case 's':
                        so.socket_path = optarg;
                        break;
                case 'p':
                        mo.plugindir = optarg;
                        break;
                case OPT_CPUSET_ROOT:
                        mo.cpuset_root = optarg;
                        break;
                case OPT_DEFAULT_CONFIG:
                        builtin = true;
                        break;
                case 'f':
                        break;
                case 't':
                        check_only = true;
                        break;
                case 'v':
                        log_set_max_level(LOG_DEBUG);
                        break;
                case 'h':
                        help();
                        return EXIT_SUCCESS;
                case OPT_VERSION:
                        printf("rtfd %s\n", RTF_VERSION);
                        return EXIT_SUCCESS;
                default:
                        fprintf(stderr, "Try 'rtfd --help'.\n");
                        return 2;
                }
        }
        if (optind < argc) {
                fprintf(stderr, "rtfd: unexpected argument '%s'. Try 'rtfd --help'.\n", argv[optind]);
                return 2;
        }
        log_open();

        /* An explicit --config must exist; the default path may be absent. */
        if (config && builtin) {
                fprintf(stderr, "rtfd: --config and --default-config exclude each other.\n");
                return 2;
        }
        if (config)
                mo.config_path = config;
        else if (!builtin && access(DEFAULT_CONFIG, F_OK) == 0)
                mo.config_path = DEFAULT_CONFIG;

        const bool state_given = mo.state_path != NULL;

        if (!mo.state_path) {
                const char *slash = strrchr(so.socket_path, '/');

                if (slash)
                        snprintf(state_path, sizeof(state_path), "%.*s/" DEFAULT_STATE_NAME,
                                 (int)(slash - so.socket_path), so.socket_path);
                else
                        snprintf(state_path, sizeof(state_path), DEFAULT_STATE_NAME);
                mo.state_path = state_path;
        }

        /* The kernel's own share, for the whole-machine admission. */
        soundness_read_host(&sound);
        mo.veto = soundness_veto;
        mo.machine_report = soundness_report;
        mo.machine_data = &sound;
        /* Issue 10: the socket's directory (where the default journal is
         * too) and a journal the administrator named must be trusted; rtfd
         * refuses to start otherwise (state_open() stops it too). */
        if (!check_only && server_prepare_dir(&so) < 0)
                return log_error("Refusing to start: see above"), EXIT_FAILURE;
        if (check_only && state_given && state_check_trusted(mo.state_path) < 0)
                return EXIT_FAILURE;

        if (!check_only) {
                /* Issue 10: rtfd's own descriptors bound what it accepts (fdlimit.h). */
                uint64_t soft, threads;

                if (fdlimit_raise(&soft) >= 0) {
                        mo.limits.max_clients = fdlimit_max_clients(soft, mo.limits.max_clients, &threads);
                        log_info("File descriptor limit %llu: up to %u connections and about %llu attached threads",
                                 (unsigned long long)soft, (unsigned)mo.limits.max_clients,
                                 (unsigned long long)threads);
                }
        }

        if (check_only) {
                r = manager_check_config(&mo);
                if (r < 0)
                        return EXIT_FAILURE;
                printf("%s: OK\n", mo.config_path ? mo.config_path : "built-in default");
                return EXIT_SUCCESS;
        }
        if (geteuid() != 0)
                log_warning("Not running as root: the kernel will refuse most scheduling changes");
        /* rtfd's own latency matters to clients waiting on it; never page out.
         * MCL_ONFAULT locks pages as they are first touched instead of filling
         * the whole 128 KiB initial stack and malloc's 128 KiB heap pad at once
         * (PERFORMANCE.md: that was half of the idle USS).  (Not under
         * AddressSanitizer, whose shadow memory is terabytes.) */
#if !defined(__SANITIZE_ADDRESS__) && !defined(RTF_SANITIZED)
        if (mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) < 0 && mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
                log_debug_errno(errno, "mlockall failed: %m");
#endif

        r = event_init(&d.ev);
        if (r < 0)
                return log_error_errno(r, "epoll failed: %m"), EXIT_FAILURE;
        r = setup_signals(&d);
        if (r < 0) {
                log_error_errno(r, "Failed to set up signals: %m");
                return EXIT_FAILURE;
        }
        r = manager_new(&mo, &kernel_linux_ops, NULL, &d.ev, &d.mgr);
        if (r == -EACCES || r == -EPERM) {
                /* A file rtfd may not open (the cpuset lock, a config or
                 * plugin it may not read): the message above names it. */
                log_error("Refusing to start: permission denied (see above)%s",
                          geteuid() != 0 ? "; rtfd must run as root" : "");
                return EXIT_FAILURE;
        }
        if (r < 0) {
                log_error("Refusing to start: configuration %s is not usable",
                          mo.config_path ? mo.config_path : "(built-in default)");
                return EXIT_FAILURE;
        }
        r = server_new(&so, &d.ev, d.mgr, &d.srv);
        if (r < 0) {
                manager_free(d.mgr);
                return EXIT_FAILURE;
        }
        r = setup_watchdog(&d);
        if (r < 0)
                log_warning_errno(r, "No watchdog timer (%m): stuck SCHED_DEADLINE threads will not be detected");
        sd_notify("READY=1");
        log_info("rtfd %s ready", RTF_VERSION);

        while (!d.stop) {
                r = event_dispatch(&d.ev, -1);
                if (r < 0) {
                        log_error_errno(r, "Event loop failed: %m");
                        break;
                }
        }

        sd_notify("STOPPING=1");
        d.srv = server_free(d.srv);
        d.mgr = manager_free(d.mgr);
        event_remove(&d.ev, &d.watchdog_source);
        event_remove(&d.ev, &d.signal_source);
        safe_close(d.watchdog_fd);
        safe_close(d.signal_fd);
        event_done(&d.ev);
        log_info("rtfd stopped");
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
