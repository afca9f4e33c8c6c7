/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * --contention: what one user's flood of costly requests does to another
 * user (issue 10, point 10).  A private rtfd serves one RM instance; user A
 * (a forked child per connection, each dropped to uid A) holds --contention-
 * specs RM specifications with constrained deadlines and distinct periods,
 * so that every change runs RM's response-time analysis over all of them,
 * and changes them as fast as it can, ignoring refusals, as an attacker
 * would.  User B (another forked child, uid B) times connect + one STATUS
 * page + close, first while A only holds its specs (the idle baseline), then
 * during the flood.  Twice, each with a fresh rtfd: with the per-uid share
 * of rtfd's time off (max_busy_permille_per_uid 1000 and a 1 s burst: the
 * behaviour before it existed), and with rtfd's defaults.
 *
 * The uids need no account: rtfd knows a peer by SO_PEERCRED, and the policy
 * "- RM" grants every uid.  Nothing system-wide is created.
 */
#include <grp.h>
#include <sys/resource.h>
#include "bench.h"
#include "listing.h"

/* The flood's and the victim's shared page: the children write, the parent reads after waitpid. */
struct board {
        uint32_t ready;                 /* flooders holding their specs */
        uint32_t go, stop;
        uint32_t failed;                /* a flooder could not set up */
        uint64_t granted, refused;      /* flood requests */
        char failure[RTF_REASON_MAX];
        uint32_t victim_errors;
        uint64_t victim[];              /* ns per connect + STATUS */
};

static uint64_t now_ns(void) {
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int drop_to(uid_t uid) {
        if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
                return -errno;
        return 0;
}

static void flooder_fail(struct board *b, const char *what, int r) {
        if (__atomic_fetch_add(&b->failed, 1, __ATOMIC_SEQ_CST) == 0)
                snprintf(b->failure, sizeof(b->failure), "%s: %s: %s", what, rtf_strerror(r), rtf_last_reason());
}

/* One connection of user A: create specs [first, first + n), then change them round robin until stop. */
static void flooder_main(struct bench *ctx, struct board *b, uint32_t first, uint32_t n) {
        struct rtf_spec *s = calloc(n ? n : 1, sizeof(*s));
        struct rtf_params p;
        uint64_t granted = 0, refused = 0;
        int r;

        if (!s || drop_to(ctx->arg.contention_uids[0]) < 0) {
                flooder_fail(b, "setup", -EPERM);
                _exit(1);
        }
        r = rtf_connect();
        if (r != RTF_OK) {
                flooder_fail(b, "rtf_connect", r);
                _exit(1);
        }
        for (uint32_t i = 0; i < n; i++) {
                s[i] = (struct rtf_spec)RTF_SPEC_INIT;
                measure_filler_params(ctx, "RM", "RM", first + i, &p);
                r = rtf_spec_create(&s[i], &p);
                if (r == -EAGAIN) {     /* filling is not the flood: wait for the buckets */
                        usleep(THROTTLE_WAIT_US);
                        i--;
                        continue;
                }
                if (r != RTF_OK) {
                        flooder_fail(b, "filling", r);
                        _exit(1);
                }
        }
        __atomic_add_fetch(&b->ready, 1, __ATOMIC_SEQ_CST);
        while (!__atomic_load_n(&b->go, __ATOMIC_ACQUIRE))
                usleep(1000);
        for (uint64_t k = 0; n && !__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE); k++) {
                uint32_t i = (uint32_t)(k % n);

                measure_filler_params(ctx, "RM", "RM", first + i, &p);
                rtf_params_set_runtime(&p, (k / n) & 1 ? 10 : 20);
                r = rtf_spec_change(&s[i], &p);
                if (r == RTF_OK)
                        granted++;
                else if (r == RTF_CONNECTION_ERR || r == -ENOTCONN)
                        break;
                else
                        refused++;
        }
        __atomic_add_fetch(&b->granted, granted, __ATOMIC_SEQ_CST);
        __atomic_add_fetch(&b->refused, refused, __ATOMIC_SEQ_CST);
        _exit(0);
}

/*
 * User B: samples of connect + STATUS (one page) + close.  It runs at nice
 * -20 on the client CPU, where the flooders wait for rtfd or spin on
 * refusals: so that what is timed is rtfd's delay, not the client CPU's
 * share between them.  A refusal is asked again by rtf_listing_fetch, and
 * that wait counts, as it would for rtfctl.
 */
static void victim_main(struct bench *ctx, struct board *b, const char *socket) {
        struct rtf_msg *reply = malloc(sizeof(*reply));

        if (setpriority(PRIO_PROCESS, 0, -20) < 0 || !reply || drop_to(ctx->arg.contention_uids[1]) < 0)
                _exit(1);
        for (uint32_t i = 0; i < ctx->arg.samples; i++) {
                uint64_t t0 = now_ns();
                int fd = rtf_listing_connect(socket), r = fd;

                if (fd >= 0) {
                        r = rtf_listing_fetch(fd, RTF_MSG_STATUS, 0, 1, reply, NULL, 0);
                        close(fd);
                }
                b->victim[i] = now_ns() - t0;
                if (r < 0)
                        b->victim_errors++;
        }
        _exit(0);
}

/* utime + stime of pid in ns (0 if unknown): how much of the flood rtfd spent computing. */
static uint64_t cpu_time_ns(pid_t pid) {
        unsigned long long utime = 0, stime = 0;
        char path[64], buf[1024], *p;
        long hz = sysconf(_SC_CLK_TCK);
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        f = fopen(path, "re");
        if (!f)
                return 0;
        p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
        fclose(f);
        /* After comm: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime */
        if (!p || hz <= 0 || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
                return 0;
        return (utime + stime) * (1000000000ull / (uint64_t)hz);
}

static pid_t fork_child(void) {
        pid_t pid = fork();

        if (pid == 0)
                prctl(PR_SET_PDEATHSIG, SIGKILL);
        return pid;
}

static int victim_run(struct bench *ctx, struct board *b, const char *socket, struct contention_latency *ret) {
        int status;
        pid_t pid;

        b->victim_errors = 0;
        pid = fork_child();
        if (pid < 0)
                return -errno;
        if (pid == 0)
                victim_main(ctx, b, socket);
        if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return -ECHILD;
        qsort(b->victim, ctx->arg.samples, sizeof(uint64_t), u64_compare);
        *ret = (struct contention_latency){
                .p50_ns = samples_percentile(b->victim, ctx->arg.samples, 0.5),
                .p99_ns = samples_percentile(b->victim, ctx->arg.samples, 0.99),
                .max_ns = b->victim[ctx->arg.samples - 1],
                .errors = b->victim_errors,
        };
        return 0;
}

static void flooders_stop(struct board *b, pid_t *pids, uint32_t n) {
        __atomic_store_n(&b->stop, 1, __ATOMIC_RELEASE);
        __atomic_store_n(&b->go, 1, __ATOMIC_RELEASE);
        for (uint32_t i = 0; i < n; i++)
                if (pids[i] > 0)
                        waitpid(pids[i], NULL, 0);
}

/* One mode: a fresh rtfd, A fills, B's baseline, A floods, B again. */
static int contention_mode(struct bench *ctx, struct contention_mode *m, struct board *b, size_t board_size) {
        const uint32_t conns = ctx->arg.contention_conns, specs = ctx->arg.contention_specs;
        char config[512], policy[] = "- RM max_priority 99\n";
        pid_t pids[CONTENTION_CONNS_MAX] = { 0 };
        struct daemon d;
        uint64_t t0, t1, cpu0;
        int r = -1;

        memset(b, 0, board_size);
        /* The share's own settings are left out for rtfd's defaults. */
        snprintf(config, sizeof(config), "RM RM.so 50-89 0-0 max_tasks=%u\nset max_specs_per_uid %u\n"
                 "set max_clients_per_uid %u\n", specs + 64, specs + 64, conns + 8);
        if (m->busy_permille)
                snprintf(config + strlen(config), sizeof(config) - strlen(config),
                         "set max_busy_permille_per_uid %u\nset busy_burst_ms_per_uid %u\n", m->busy_permille,
                         m->busy_burst_ms);
        if (which_rtfd_start(ctx, &d, config, policy) < 0)
                return -1;
        rtf_disconnect();               /* the children connect as themselves */
        for (uint32_t i = 0; i < conns; i++) {
                uint32_t first = specs / conns * i + (i < specs % conns ? i : specs % conns);
                uint32_t n = specs / conns + (i < specs % conns);

                pids[i] = fork_child();
                if (pids[i] < 0) {
                        pids[i] = 0;
                        goto out;
                }
                if (pids[i] == 0)
                        flooder_main(ctx, b, first, n);
        }
        while (__atomic_load_n(&b->ready, __ATOMIC_ACQUIRE) + __atomic_load_n(&b->failed, __ATOMIC_ACQUIRE) < conns &&
               !*ctx->interrupted)
                usleep(1000);
        if (b->failed) {
                fprintf(stderr, TOOL ": --contention: user A (uid %u): %s\n", (unsigned)ctx->arg.contention_uids[0],
                        b->failure);
                goto out;
        }
        if (*ctx->interrupted || victim_run(ctx, b, d.socket, &m->idle) < 0)
                goto out;
        t0 = now_ns();
        cpu0 = cpu_time_ns(d.pid);
        __atomic_store_n(&b->go, 1, __ATOMIC_RELEASE);
        usleep(200000);                 /* past any burst: the steady state is measured */
        if (*ctx->interrupted || victim_run(ctx, b, d.socket, &m->flood) < 0)
                goto out;
        flooders_stop(b, pids, conns);
        t1 = now_ns();
        m->rtfd_cpu_ns = cpu0 ? cpu_time_ns(d.pid) - cpu0 : 0;
        memset(pids, 0, sizeof(pids));
        m->flood_granted = b->granted;
        m->flood_refused = b->refused;
        m->flood_ns = t1 - t0;
        m->measured = true;
        r = 0;
        if (!ctx->arg.json)
                output_contention_mode(ctx, m);
out:
        flooders_stop(b, pids, conns);
        which_rtfd_stop(&d);
        if (r < 0 && !m->measured && !*ctx->interrupted)
                fprintf(stderr, TOOL ": --contention: the %s mode was not measured (see above; user B is uid %u)\n",
                        m->name, (unsigned)ctx->arg.contention_uids[1]);
        return r;
}

int measure_contention(struct bench *ctx) {
        size_t size = sizeof(struct board) + (size_t)ctx->arg.samples * sizeof(uint64_t);
        struct board *b;
        int r = 0;

        ctx->res.contention[0] = (struct contention_mode){ .name = "share_off", .busy_permille = 1000,
                                                           .busy_burst_ms = 1000 };
        ctx->res.contention[1] = (struct contention_mode){ .name = "share_default" };
        b = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (b == MAP_FAILED)
                return -1;
        for (int i = 0; i < 2 && r == 0 && !*ctx->interrupted; i++) {
                if (!ctx->arg.json) {
                        output_contention_mode_start(ctx, &ctx->res.contention[i]);
                        fflush(stdout);
                }
                r = contention_mode(ctx, &ctx->res.contention[i], b, size);
        }
        munmap(b, size);
        return r < 0 || *ctx->interrupted ? -1 : 0;
}
