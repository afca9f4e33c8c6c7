/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librtf without rtfd: argument checks, the texts, and what the library does
 * when its peer misbehaves.  The peer is a SOCK_SEQPACKET listener thread in
 * this process that answers in a chosen wrong way (closing, staying silent,
 * garbage, another seq or type, an oversized packet) or with a scripted
 * reply; it has no daemon logic, the real rtfd is tested in tests/integration.
 * Statistics reports (REPORT) are recorded and never answered, as rtfd does.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "protocol.h"
#include "rtf/rtf.h"
#include "tap.h"

#define TIMEOUT_MS 300
#define PEER_CONNS_MAX 16

enum peer_mode {
        PEER_SCRIPT,            /* answer with peer.reply, seq echoed */
        PEER_ECHO,              /* refuse, with the request's period as reason */
        PEER_CLOSE,             /* read the request, then close */
        PEER_HANG_UP,           /* close every connection as soon as accepted */
        PEER_SILENT,            /* read the request, never answer */
        PEER_GARBAGE,           /* answer with bytes that are no message */
        PEER_WRONG_SEQ,         /* a well-formed REPLY to another seq */
        PEER_WRONG_TYPE,        /* a STATUS_REPLY to a CREATE */
        PEER_OVERSIZE,          /* a packet larger than RTF_MSG_MAX */
        PEER_HOLD,              /* answer as PEER_SCRIPT once peer_release() is called */
};

static struct {
        char dir[64];
        char path[108];
        int listen_fd;
        int stop[2];
        pthread_t thread;

        pthread_mutex_t lock;   /* guards what follows */
        enum peer_mode mode;
        struct rtf_msg_reply reply;
        struct rtf_msg last;    /* the last request received */
        unsigned accepted, hung_up, requests;
        struct rtf_msg last_report;
        unsigned reports;
        pthread_cond_t cond;    /* PEER_HOLD: `release` was set */
        bool release;
} peer = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static void peer_set(enum peer_mode mode, const struct rtf_msg_reply *reply) {
        pthread_mutex_lock(&peer.lock);
        peer.mode = mode;
        if (reply)
                peer.reply = *reply;
        pthread_mutex_unlock(&peer.lock);
}

static struct rtf_msg peer_last(unsigned *ret_requests) {
        struct rtf_msg m;

        pthread_mutex_lock(&peer.lock);
        m = peer.last;
        if (ret_requests)
                *ret_requests = peer.requests;
        pthread_mutex_unlock(&peer.lock);
        return m;
}

static struct rtf_msg peer_last_report(unsigned *ret_reports) {
        struct rtf_msg m;

        pthread_mutex_lock(&peer.lock);
        m = peer.last_report;
        *ret_reports = peer.reports;
        pthread_mutex_unlock(&peer.lock);
        return m;
}

/* Let a PEER_HOLD answer go. */
static void peer_release(void) {
        pthread_mutex_lock(&peer.lock);
        peer.release = true;
        pthread_cond_signal(&peer.cond);
        pthread_mutex_unlock(&peer.lock);
}

static unsigned peer_hung_up(void) {
        unsigned n;

        pthread_mutex_lock(&peer.lock);
        n = peer.hung_up;
        pthread_mutex_unlock(&peer.lock);
        return n;
}

static unsigned peer_accepted(void) {
        unsigned n;

        pthread_mutex_lock(&peer.lock);
        n = peer.accepted;
        pthread_mutex_unlock(&peer.lock);
        return n;
}

static void peer_send(int fd, const struct rtf_msg *m) {
        uint8_t buf[RTF_MSG_MAX];
        int n = rtf_msg_encode(m, buf, sizeof(buf));

        if (n > 0)
                (void) send(fd, buf, (size_t) n, MSG_NOSIGNAL);
}

/* Returns false when the connection is to be closed. */
static bool peer_handle(int fd) {
        static const uint8_t garbage[24] = "this is no rtf message";
        static uint8_t big[2 * RTF_MSG_MAX];
        uint8_t buf[RTF_MSG_MAX];
        struct rtf_msg req, rep;
        enum peer_mode mode;
        ssize_t n;

        n = recv(fd, buf, sizeof(buf), 0);
        if (n <= 0 || rtf_msg_decode(buf, (size_t) n, &req) < 0)
                return false;
        if (req.header.type == RTF_MSG_REPORT) {
                pthread_mutex_lock(&peer.lock);
                peer.last_report = req;
                peer.reports++;
                pthread_mutex_unlock(&peer.lock);
                return true;
        }

        memset(&rep, 0, sizeof(rep));
        rep.header.type = RTF_MSG_REPLY;
        rep.header.seq = req.header.seq;

        pthread_mutex_lock(&peer.lock);
        peer.last = req;
        peer.requests++;
        mode = peer.mode;
        rep.reply = peer.reply;
        pthread_mutex_unlock(&peer.lock);

        switch (mode) {
        case PEER_SCRIPT:
                peer_send(fd, &rep);
                return true;
        case PEER_HOLD: {
                struct timespec limit;

                /* Bounded, so that a failing test ends instead of hanging. */
                clock_gettime(CLOCK_REALTIME, &limit);
                limit.tv_sec += 30;
                pthread_mutex_lock(&peer.lock);
                while (!peer.release && pthread_cond_timedwait(&peer.cond, &peer.lock, &limit) == 0)
                        ;
                peer.release = false;
                pthread_mutex_unlock(&peer.lock);
                peer_send(fd, &rep);
                return true;
        }
        case PEER_ECHO:
                memset(&rep.reply, 0, sizeof(rep.reply));
                rep.reply.result = RTF_SCHEDULE_FAIL;
                snprintf(rep.reply.reason, sizeof(rep.reply.reason), "%llu",
                         (unsigned long long) req.create.params.period_us);
                peer_send(fd, &rep);
                return true;
        case PEER_CLOSE:
        case PEER_HANG_UP:
                return false;
        case PEER_SILENT:
                return true;
        case PEER_GARBAGE:
                (void) send(fd, garbage, sizeof(garbage), MSG_NOSIGNAL);
                return true;
        case PEER_WRONG_SEQ:
                rep.header.seq++;
                peer_send(fd, &rep);
                return true;
        case PEER_WRONG_TYPE:
                memset(&rep, 0, sizeof(rep));
                rep.header.type = RTF_MSG_STATUS_REPLY;
                rep.header.seq = req.header.seq;
                peer_send(fd, &rep);
                return true;
        case PEER_OVERSIZE:
                memcpy(big, buf, (size_t) n);
                (void) send(fd, big, sizeof(big), MSG_NOSIGNAL);
                return true;
        }
        return false;
}

static void *peer_main(void *arg) {
        int conns[PEER_CONNS_MAX];
        unsigned nconns = 0;

        (void) arg;
        for (;;) {
                struct pollfd fds[2 + PEER_CONNS_MAX] = {
                        { .fd = peer.stop[0], .events = POLLIN },
                        { .fd = peer.listen_fd, .events = POLLIN },
                };

                for (unsigned i = 0; i < nconns; i++)
                        fds[2 + i] = (struct pollfd) { .fd = conns[i], .events = POLLIN };
                if (poll(fds, 2 + nconns, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                if (fds[0].revents)
                        break;

                for (unsigned i = nconns; i-- > 0;) {
                        if (!fds[2 + i].revents)
                                continue;
                        if (!peer_handle(conns[i])) {
                                close(conns[i]);
                                conns[i] = conns[--nconns];
                        }
                }

                if (fds[1].revents) {
                        int fd = accept4(peer.listen_fd, NULL, NULL, SOCK_CLOEXEC);
                        bool hang_up;

                        if (fd < 0)
                                continue;
                        pthread_mutex_lock(&peer.lock);
                        peer.accepted++;
                        hang_up = peer.mode == PEER_HANG_UP || nconns == PEER_CONNS_MAX;
                        pthread_mutex_unlock(&peer.lock);
                        if (!hang_up) {
                                conns[nconns++] = fd;
                                continue;
                        }
                        /* counted once really closed: the test waits for it */
                        close(fd);
                        pthread_mutex_lock(&peer.lock);
                        peer.hung_up++;
                        pthread_mutex_unlock(&peer.lock);
                }
        }
        for (unsigned i = 0; i < nconns; i++)
                close(conns[i]);
        return NULL;
}

static int peer_start(void) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        const char *tmp = getenv("TMPDIR");

        snprintf(peer.dir, sizeof(peer.dir), "%s/test-client-XXXXXX",
                 tmp && strlen(tmp) < 32 ? tmp : "/tmp");
        if (!mkdtemp(peer.dir))
                return -errno;
        snprintf(peer.path, sizeof(peer.path), "%s/sock", peer.dir);
        memcpy(sa.sun_path, peer.path, strlen(peer.path));

        peer.listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        if (peer.listen_fd < 0)
                return -errno;
        if (bind(peer.listen_fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 ||
            listen(peer.listen_fd, 16) < 0)
                return -errno;
        if (pipe2(peer.stop, O_CLOEXEC) < 0)
                return -errno;
        return -pthread_create(&peer.thread, NULL, peer_main, NULL);
}

static void peer_stop(void) {
        (void) write(peer.stop[1], "x", 1);
        pthread_join(peer.thread, NULL);
        close(peer.stop[0]);
        close(peer.stop[1]);
        close(peer.listen_fd);
        unlink(peer.path);
        rmdir(peer.dir);
}

static int64_t now_ms(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void make_params(struct rtf_params *p, uint64_t period) {
        rtf_params_init(p);
        rtf_params_set_period(p, period);
        rtf_params_set_runtime(p, period / 10);
}

static void test_strerror(void) {
        const char *texts[4];

        for (int r = RTF_OK; r <= RTF_CONNECTION_ERR; r++) {
                texts[r] = rtf_strerror(r);
                CHECK(texts[r] && texts[r][0]);
                for (int q = RTF_OK; q < r; q++)
                        CHECK(strcmp(texts[q], texts[r]) != 0);
        }
        CHECK(strcmp(rtf_strerror(-EINVAL), "Invalid argument") == 0);
        CHECK(strcmp(rtf_strerror(-ENOTCONN), "Transport endpoint is not connected") == 0);
        for (int e = 1; e < 134; e++)
                CHECK(rtf_strerror(-e) && rtf_strerror(-e)[0]);
        CHECK(strcmp(rtf_strerror(4), "Unknown result 4") == 0);
        CHECK(strcmp(rtf_strerror(-100000), "Unknown result -100000") == 0);
        CHECK(strcmp(rtf_strerror(INT_MIN), "Unknown result -2147483648") == 0);
        CHECK(strcmp(rtf_strerror(INT_MAX), "Unknown result 2147483647") == 0);
        CHECK(strcmp(rtf_last_reason(), "") == 0);
}

struct strerror_job {
        int code;
        unsigned bad;
};

static void *strerror_thread(void *arg) {
        struct strerror_job *job = arg;
        char want[64];

        snprintf(want, sizeof(want), "Unknown result %d", job->code);
        for (int i = 0; i < 10000; i++)
                if (strcmp(rtf_strerror(job->code), want) != 0)
                        job->bad++;
        return NULL;
}

static void test_strerror_threads(void) {
        struct strerror_job jobs[4] = {
                { .code = 1000 }, { .code = 2000 }, { .code = -200000 }, { .code = 4 },
        };
        pthread_t t[4];

        for (int i = 0; i < 4; i++)
                CHECK_EQ(pthread_create(&t[i], NULL, strerror_thread, &jobs[i]), 0);
        for (int i = 0; i < 4; i++) {
                pthread_join(t[i], NULL);
                CHECK_EQ(jobs[i].bad, 0);
        }
}

static void test_params(void) {
        struct rtf_params p = RTF_PARAM_INIT, q;
        uint64_t (*getters[])(const struct rtf_params *) = {
                rtf_params_get_period, rtf_params_get_runtime,
                rtf_params_get_des_runtime, rtf_params_get_deadline,
        };
        int (*setters[])(struct rtf_params *, uint64_t) = {
                rtf_params_set_period, rtf_params_set_runtime,
                rtf_params_set_des_runtime, rtf_params_set_deadline,
        };
        char name[64];

        memset(&q, 0xa5, sizeof(q));
        CHECK_EQ(rtf_params_init(&q), 0);
        CHECK(memcmp(&p, &q, sizeof(p)) == 0);
        CHECK_EQ(rtf_params_init(NULL), -EINVAL);

        for (unsigned i = 0; i < 4; i++) {
                CHECK_EQ(getters[i](&p), 0);
                CHECK_EQ(setters[i](&p, 0), -EINVAL);
                CHECK_EQ(setters[i](&p, UINT64_C(1) << 32), -EINVAL);
                CHECK_EQ(setters[i](&p, UINT64_MAX), -EINVAL);
                CHECK_EQ(getters[i](&p), 0);
                CHECK_EQ(setters[i](&p, (UINT64_C(1) << 32) - 1), 0);
                CHECK_EQ(getters[i](&p), (UINT64_C(1) << 32) - 1);
                CHECK_EQ(setters[i](&p, 1), 0);
                CHECK_EQ(getters[i](&p), 1);
                CHECK_EQ(setters[i](NULL, 1), -EINVAL);
                CHECK_EQ(getters[i](NULL), 0);
        }
        CHECK_EQ(p.flags, RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_RUNTIME |
                 RTF_PARAM_HAS_DES_RUNTIME | RTF_PARAM_HAS_DEADLINE);

        CHECK_EQ(rtf_params_get_priority(&p), 0);
        CHECK_EQ(rtf_params_set_priority(&p, 0), -EINVAL);
        CHECK_EQ(rtf_params_set_priority(&p, 100), -EINVAL);
        CHECK_EQ(rtf_params_get_priority(&p), 0);
        CHECK_EQ(rtf_params_set_priority(&p, 1), 0);
        CHECK_EQ(rtf_params_get_priority(&p), 1);
        CHECK_EQ(rtf_params_set_priority(&p, 99), 0);
        CHECK_EQ(rtf_params_get_priority(&p), 99);

        CHECK(rtf_params_get_scheduler(&p) == NULL);
        CHECK_EQ(rtf_params_set_scheduler(&p, "EDF"), 0);
        CHECK(strcmp(rtf_params_get_scheduler(&p), "EDF") == 0);
        memset(name, 'x', sizeof(name));
        name[31] = '\0';
        CHECK_EQ(rtf_params_set_scheduler(&p, name), 0);
        CHECK(strcmp(rtf_params_get_scheduler(&p), name) == 0);
        name[31] = 'x';
        name[32] = '\0';
        CHECK_EQ(rtf_params_set_scheduler(&p, name), -EINVAL);
        CHECK(strlen(rtf_params_get_scheduler(&p)) == 31);
        CHECK_EQ(rtf_params_set_scheduler(&p, ""), 0);
        CHECK(rtf_params_get_scheduler(&p) == NULL);
        CHECK_EQ(rtf_params_set_scheduler(&p, "RM"), 0);
        CHECK_EQ(rtf_params_set_scheduler(&p, NULL), 0);
        CHECK(rtf_params_get_scheduler(&p) == NULL);
        CHECK_EQ(p.flags & RTF_PARAM_HAS_SCHEDULER, 0);

        CHECK_EQ(rtf_params_ignore_admission(&p, true), 0);
        CHECK(p.flags & RTF_PARAM_IGNORE_ADMISSION);
        CHECK_EQ(rtf_params_ignore_admission(&p, false), 0);
        CHECK(!(p.flags & RTF_PARAM_IGNORE_ADMISSION));
        CHECK_EQ(rtf_params_ignore_admission(NULL, true), -EINVAL);

        /* the size prefix: only this library's size is accepted */
        q = p;
        q.size = sizeof(q) - 8;
        CHECK_EQ(rtf_params_set_period(&q, 10), -EINVAL);
        CHECK_EQ(rtf_params_set_priority(&q, 10), -EINVAL);
        CHECK_EQ(rtf_params_set_scheduler(&q, "EDF"), -EINVAL);
        CHECK_EQ(rtf_params_ignore_admission(&q, true), -EINVAL);
        CHECK_EQ(rtf_params_get_period(&q), 0);
        CHECK_EQ(rtf_params_get_priority(&q), 0);
        CHECK(rtf_params_get_scheduler(&q) == NULL);
}

static void test_not_connected(void) {
        struct rtf_spec s = RTF_SPEC_INIT, t;
        struct rtf_params p;

        make_params(&p, 10000);
        CHECK_EQ(rtf_spec_create(&s, &p), -ENOTCONN);
        CHECK(strstr(rtf_last_reason(), "rtf_connect") != NULL);
        CHECK_EQ(s.id, 0);

        /* state and argument checks come before the connection */
        CHECK_EQ(rtf_spec_change(&s, &p), -EINVAL);
        CHECK_EQ(rtf_spec_release(&s), -EINVAL);
        CHECK_EQ(rtf_spec_attach(&s, 0), -EINVAL);
        CHECK_EQ(rtf_spec_detach(&s), -EINVAL);
        CHECK_EQ(rtf_spec_get_accepted_runtime(&s), -EINVAL);
        CHECK_EQ(rtf_spec_create(NULL, &p), -EINVAL);
        CHECK_EQ(rtf_spec_create(&s, NULL), -EINVAL);

        t = s;
        t.size = 8;
        CHECK_EQ(rtf_spec_create(&t, &p), -EINVAL);
        p.size = 8;
        CHECK_EQ(rtf_spec_create(&s, &p), -EINVAL);
        make_params(&p, 10000);
        p.flags |= 1u << 20;            /* a flag this library does not know */
        CHECK_EQ(rtf_spec_create(&s, &p), -EINVAL);
        make_params(&p, 10000);
        p.priority = 100;               /* written directly, bypassing the setter */
        p.flags |= RTF_PARAM_HAS_PRIORITY;
        CHECK_EQ(rtf_spec_create(&s, &p), -EINVAL);
        make_params(&p, 10000);

        s.id = 5;
        CHECK_EQ(rtf_spec_create(&s, &p), -EBUSY);
        CHECK_EQ(rtf_spec_change(&s, &p), -ENOTCONN);
        CHECK_EQ(rtf_spec_release(&s), -ENOTCONN);
        CHECK_EQ(rtf_spec_attach(&s, 0), -ENOTCONN);
        CHECK_EQ(rtf_spec_attach(&s, -1), -EINVAL);
        CHECK_EQ(rtf_spec_detach(&s), -ENOTCONN);
        CHECK_EQ(s.id, 5);
        CHECK_EQ(rtf_disconnect(), RTF_OK);
}

/* A local -EINVAL says why, and never leaves an older reason behind (issue 12). */
static void test_local_reasons(void) {
        struct rtf_spec s = RTF_SPEC_INIT;
        struct rtf_params p;

        make_params(&p, 10000);
        CHECK_EQ(rtf_spec_create(&s, &p), -ENOTCONN);
        CHECK(strstr(rtf_last_reason(), "rtf_connect") != NULL);

        CHECK_EQ(rtf_params_set_runtime(&p, 20000), 0);
        CHECK_EQ(strcmp(rtf_last_reason(), ""), 0);     /* a call that succeeds clears it */
        CHECK_EQ(rtf_spec_create(&s, &p), -EINVAL);
        CHECK(strstr(rtf_last_reason(), "runtime must be at most the period") != NULL);

        make_params(&p, 10000);
        CHECK_EQ(rtf_params_set_deadline(&p, 5000), 0);
        CHECK_EQ(rtf_params_set_runtime(&p, 6000), 0);
        CHECK_EQ(rtf_spec_create(&s, &p), -EINVAL);
        CHECK(strstr(rtf_last_reason(), "runtime must be at most the deadline") != NULL);

        make_params(&p, 10000);
        CHECK_EQ(rtf_params_set_des_runtime(&p, 10001), 0);
        CHECK_EQ(rtf_spec_create(&s, &p), -EINVAL);
        CHECK(strstr(rtf_last_reason(), "desired runtime must be at most the period") != NULL);

        CHECK_EQ(rtf_params_set_period(&p, 0), -EINVAL);
        CHECK(strstr(rtf_last_reason(), "period must be in 1..") != NULL);
        CHECK_EQ(rtf_params_set_priority(&p, 100), -EINVAL);
        CHECK(strstr(rtf_last_reason(), "priority must be in 1..99") != NULL);
        CHECK_EQ(rtf_spec_release(&s), -EINVAL);
        CHECK(strstr(rtf_last_reason(), "holds no reservation") != NULL);
        s.size = 8;
        CHECK_EQ(rtf_spec_attach(&s, 0), -EINVAL);
        CHECK(strstr(rtf_last_reason(), "RTF_SPEC_INIT") != NULL);
        CHECK_EQ(rtf_spec_create(NULL, &p), -EINVAL);
        CHECK(strstr(rtf_last_reason(), "NULL") != NULL);
        s = (struct rtf_spec) RTF_SPEC_INIT;
        CHECK_EQ(rtf_task_start(&s), -EINVAL);
        CHECK(strstr(rtf_last_reason(), "created with a period") != NULL);
}

static void test_connect_failures(void) {
        char path[200];

        snprintf(path, sizeof(path), "%s/nonexistent", peer.dir);
        setenv("RTF_SOCKET", path, 1);
        CHECK_EQ(rtf_connect(), RTF_CONNECTION_ERR);
        CHECK(strstr(rtf_last_reason(), "No such file or directory") != NULL);

        memset(path, 'a', sizeof(path) - 1);
        path[0] = '/';
        path[sizeof(path) - 1] = '\0';
        setenv("RTF_SOCKET", path, 1);
        CHECK_EQ(rtf_connect(), RTF_CONNECTION_ERR);
        CHECK(strstr(rtf_last_reason(), "too long") != NULL);

        setenv("RTF_SOCKET", peer.path, 1);
}

/* One create against a misbehaving peer: the result, the reason, and no connection left. */
static void expect_failure(enum peer_mode mode, int expect, const char *reason) {
        struct rtf_spec s = RTF_SPEC_INIT;
        struct rtf_params p;

        peer_set(mode, NULL);
        CHECK_EQ(rtf_connect(), RTF_OK);
        make_params(&p, 10000);
        CHECK_EQ(rtf_spec_create(&s, &p), expect);
        if (!strstr(rtf_last_reason(), reason))
                fprintf(stderr, "mode %d: reason '%s', expected '%s'\n", mode, rtf_last_reason(), reason);
        CHECK(strstr(rtf_last_reason(), reason) != NULL);
        CHECK_EQ(s.id, 0);
        /* the connection was dropped: a late reply cannot be misread */
        CHECK_EQ(rtf_spec_create(&s, &p), -ENOTCONN);
}

static void test_broken_peer(void) {
        unsigned hung_up;
        int64_t t0, dt;

        /* closed before answering anything: what an rtfd of an older protocol version does */
        expect_failure(PEER_CLOSE, RTF_CONNECTION_ERR, "closed the connection without answering");
        expect_failure(PEER_GARBAGE, -EPROTO, "malformed reply");
        expect_failure(PEER_WRONG_SEQ, -EPROTO, "out of sequence");
        expect_failure(PEER_WRONG_TYPE, -EPROTO, "out of sequence");
        expect_failure(PEER_OVERSIZE, -EPROTO, "larger than");

        t0 = now_ms();
        expect_failure(PEER_SILENT, RTF_CONNECTION_ERR, "no reply from rtfd within 300 ms");
        dt = now_ms() - t0;
        CHECK(dt >= TIMEOUT_MS - 10);
        CHECK(dt < 10 * TIMEOUT_MS);

        /* hung up before the request: send() fails with EPIPE, and no SIGPIPE */
        hung_up = peer_hung_up();
        peer_set(PEER_HANG_UP, NULL);
        CHECK_EQ(rtf_connect(), RTF_OK);
        for (int i = 0; i < 5000 && peer_hung_up() == hung_up; i++)
                usleep(1000);
        CHECK_EQ(peer_hung_up(), hung_up + 1);
        expect_failure(PEER_HANG_UP, RTF_CONNECTION_ERR, "sending to rtfd: Broken pipe");
}

static void test_scripted(void) {
        struct rtf_msg_reply ok = {
                .result = RTF_OK, .id = 42, .accepted_runtime_us = 1500,
                .priority = 0, .cpu = 1, .plugin = "EDF",
        };
        struct rtf_msg_reply refuse = { .result = RTF_SCHEDULE_FAIL, .reason = "U > 1 on every core" };
        struct rtf_spec s = RTF_SPEC_INIT, saved, fresh = RTF_SPEC_INIT;
        struct rtf_params p;
        struct rtf_msg last;
        unsigned accepted, requests, requests2;

        peer_set(PEER_SCRIPT, &refuse);
        accepted = peer_accepted();
        CHECK_EQ(rtf_connect(), RTF_OK);
        CHECK_EQ(rtf_connect(), RTF_OK);        /* twice: the same connection */

        make_params(&p, 10000);
        rtf_params_set_des_runtime(&p, 2000);
        rtf_params_set_scheduler(&p, "EDF");
        CHECK_EQ(rtf_spec_create(&s, &p), RTF_SCHEDULE_FAIL);
        CHECK(strcmp(rtf_last_reason(), "U > 1 on every core") == 0);
        CHECK(memcmp(&s, &fresh, sizeof(s)) == 0);
        CHECK_EQ(peer_accepted(), accepted + 1);

        last = peer_last(&requests);
        CHECK_EQ(last.header.type, RTF_MSG_CREATE);
        CHECK_EQ(last.create.params.period_us, 10000);
        CHECK_EQ(last.create.params.des_runtime_us, 2000);
        CHECK(strcmp(last.create.params.plugin, "EDF") == 0);

        peer_set(PEER_SCRIPT, &ok);
        CHECK_EQ(rtf_spec_create(&s, &p), RTF_OK);
        CHECK(strcmp(rtf_last_reason(), "") == 0);
        CHECK_EQ(s.id, 42);
        CHECK_EQ(s.accepted_runtime_us, 1500);
        CHECK_EQ(rtf_spec_get_accepted_runtime(&s), 1500);
        CHECK_EQ(s.core, 1);
        CHECK(strcmp(s.plugin, "EDF") == 0);
        CHECK(memcmp(&s.params, &p, sizeof(p)) == 0);
        CHECK_EQ(s.tid, 0);

        /* a fresh spec only */
        peer_last(&requests);
        CHECK_EQ(rtf_spec_create(&s, &p), -EBUSY);
        peer_last(&requests2);
        CHECK_EQ(requests2, requests);

        /* a refused change leaves the spec alone */
        saved = s;
        rtf_params_set_runtime(&p, 3000);
        peer_set(PEER_SCRIPT, &refuse);
        CHECK_EQ(rtf_spec_change(&s, &p), RTF_SCHEDULE_FAIL);
        CHECK(memcmp(&s, &saved, sizeof(s)) == 0);
        last = peer_last(NULL);
        CHECK_EQ(last.header.type, RTF_MSG_CHANGE);
        CHECK_EQ(last.change.id, 42);
        CHECK_EQ(last.change.params.runtime_us, 3000);

        refuse.result = RTF_ACL_FAIL;
        peer_set(PEER_SCRIPT, &refuse);
        CHECK_EQ(rtf_spec_change(&s, &p), RTF_ACL_FAIL);
        CHECK(memcmp(&s, &saved, sizeof(s)) == 0);

        /* a result the API does not have */
        refuse.result = 17;
        peer_set(PEER_SCRIPT, &refuse);
        CHECK_EQ(rtf_spec_change(&s, &p), -EPROTO);
        CHECK(memcmp(&s, &saved, sizeof(s)) == 0);

        /* an answer about another reservation */
        ok.id = 43;
        peer_set(PEER_SCRIPT, &ok);
        CHECK_EQ(rtf_spec_change(&s, &p), -EPROTO);
        CHECK(memcmp(&s, &saved, sizeof(s)) == 0);

        ok.id = 42;
        ok.accepted_runtime_us = 3000;
        peer_set(PEER_SCRIPT, &ok);
        CHECK_EQ(rtf_spec_change(&s, &p), RTF_OK);
        CHECK_EQ(rtf_spec_get_accepted_runtime(&s), 3000);
        CHECK_EQ(s.params.runtime_us, 3000);

        /* attach: 0 is the calling thread */
        CHECK_EQ(rtf_spec_attach(&s, 0), RTF_OK);
        CHECK_EQ(s.tid, gettid());
        last = peer_last(NULL);
        CHECK_EQ(last.header.type, RTF_MSG_ATTACH);
        CHECK_EQ(last.attach.id, 42);
        CHECK_EQ(last.attach.tid, gettid());
        CHECK_EQ(rtf_spec_attach(&s, getpid()), RTF_OK);
        CHECK_EQ(peer_last(NULL).attach.tid, getpid());

        refuse.result = -EBUSY;
        peer_set(PEER_SCRIPT, &refuse);
        CHECK_EQ(rtf_spec_attach(&s, 12345), -EBUSY);
        CHECK_EQ(s.tid, getpid());

        refuse.result = -ENOENT;
        peer_set(PEER_SCRIPT, &refuse);
        CHECK_EQ(rtf_spec_detach(&s), -ENOENT);
        CHECK_EQ(s.tid, getpid());
        peer_set(PEER_SCRIPT, &ok);
        CHECK_EQ(rtf_spec_detach(&s), RTF_OK);
        CHECK_EQ(s.tid, 0);
        CHECK_EQ(peer_last(NULL).header.type, RTF_MSG_DETACH);

        /* release: also when rtfd no longer knows it */
        peer_set(PEER_SCRIPT, &refuse);
        CHECK_EQ(rtf_spec_release(&s), -ENOENT);
        CHECK(memcmp(&s, &fresh, sizeof(s)) == 0);
        CHECK_EQ(peer_last(NULL).header.type, RTF_MSG_RELEASE);
        CHECK_EQ(peer_last(NULL).id.id, 42);

        peer_set(PEER_SCRIPT, &ok);
        CHECK_EQ(rtf_spec_create(&s, &p), RTF_OK);
        CHECK_EQ(rtf_spec_release(&s), RTF_OK);
        CHECK(memcmp(&s, &fresh, sizeof(s)) == 0);

        /* a release that cannot reach rtfd keeps the spec */
        CHECK_EQ(rtf_spec_create(&s, &p), RTF_OK);
        saved = s;
        peer_set(PEER_CLOSE, NULL);
        CHECK_EQ(rtf_spec_release(&s), RTF_CONNECTION_ERR);
        CHECK(memcmp(&s, &saved, sizeof(s)) == 0);
        CHECK_EQ(rtf_spec_release(&s), -ENOTCONN);
        CHECK(memcmp(&s, &saved, sizeof(s)) == 0);
        CHECK_EQ(rtf_disconnect(), RTF_OK);
        CHECK_EQ(rtf_disconnect(), RTF_OK);
}

#define THREADS 8
#define REQUESTS 200

struct echo_job {
        unsigned index;
        unsigned bad;
};

static void *echo_thread(void *arg) {
        struct echo_job *job = arg;

        for (unsigned i = 0; i < REQUESTS; i++) {
                struct rtf_spec s = RTF_SPEC_INIT;
                struct rtf_params p;
                char want[32];
                uint64_t period = 1000 + job->index * 100000 + i;

                make_params(&p, period);
                snprintf(want, sizeof(want), "%llu", (unsigned long long) period);
                if (rtf_spec_create(&s, &p) != RTF_SCHEDULE_FAIL || strcmp(rtf_last_reason(), want) != 0)
                        job->bad++;
        }
        return NULL;
}

/* Requests of several threads on the one connection: each gets its own answer. */
static void test_concurrent(void) {
        struct echo_job jobs[THREADS];
        pthread_t t[THREADS];
        unsigned requests0, requests1;

        peer_set(PEER_ECHO, NULL);
        CHECK_EQ(rtf_connect(), RTF_OK);
        peer_last(&requests0);
        for (unsigned i = 0; i < THREADS; i++) {
                jobs[i] = (struct echo_job) { .index = i };
                CHECK_EQ(pthread_create(&t[i], NULL, echo_thread, &jobs[i]), 0);
        }
        for (unsigned i = 0; i < THREADS; i++) {
                pthread_join(t[i], NULL);
                CHECK_EQ(jobs[i].bad, 0);
        }
        peer_last(&requests1);
        CHECK_EQ(requests1 - requests0, THREADS * REQUESTS);
}

/* Waits (bounded) until the peer has seen more than `n` reports; returns how many it has. */
static unsigned wait_reports(unsigned n, struct rtf_msg *ret_last) {
        unsigned got = 0;

        for (int i = 0; i < 5000; i++) {
                *ret_last = peer_last_report(&got);
                if (got > n)
                        break;
                usleep(1000);
        }
        return got;
}

struct held_change {
        struct rtf_spec spec;
        struct rtf_params params;
        atomic_int done;
        int result;
};

static void *held_change_thread(void *arg) {
        struct held_change *h = arg;

        h->result = rtf_spec_change(&h->spec, &h->params);
        atomic_store(&h->done, 1);
        return NULL;
}

/*
 * The periodic path reports its statistics one way (no reply to wait for):
 * at once, then at most about once a second, and a last time on
 * rtf_task_stop().  When another thread's request holds the connection it
 * skips the report instead of waiting for it.
 */
static void test_reports(void) {
        struct rtf_msg_reply ok = {
                .result = RTF_OK, .id = 77, .accepted_runtime_us = 300, .cpu = -1, .plugin = "FP",
        };
        struct rtf_task_attr attr = RTF_TASK_ATTR_INIT;
        struct rtf_spec s = RTF_SPEC_INIT;
        struct held_change h = { .spec = RTF_SPEC_INIT };
        struct rtf_params p;
        struct rtf_msg last;
        unsigned reports0, reports, requests;
        pthread_t thread;

        attr.flags = RTF_TASK_NO_SOFT_BUDGET;   /* no timer signals in this test */
        peer_set(PEER_SCRIPT, &ok);
        /* A held request must outlast the test's steps however slow the machine: not 300 ms. */
        setenv("RTF_TIMEOUT_MS", "30000", 1);
        CHECK_EQ(rtf_connect(), RTF_OK);
        make_params(&p, 1000);
        CHECK_EQ(rtf_spec_create(&s, &p), RTF_OK);
        CHECK_EQ(peer_last(NULL).header.version, RTF_PROTO_VERSION);

        peer_last_report(&reports0);
        CHECK_EQ(rtf_task_start_attr(&s, &attr), 0);
        for (int i = 0; i < 5; i++)
                CHECK(rtf_task_wait_period(&s) >= 0);
        reports = wait_reports(reports0, &last);
        CHECK(reports > reports0 && reports - reports0 < 5);
        CHECK_EQ(last.header.version, RTF_PROTO_VERSION);
        CHECK_EQ(last.report.id, 77);
        CHECK_EQ(last.report.stats.flags, 0);
        CHECK_EQ(last.report.stats.budget_mode, RTF_BUDGET_NONE);
        CHECK_EQ(last.report.stats.period_ns, 1000000);
        CHECK(last.report.stats.periods >= 1 && last.report.stats.periods <= 5);

        /* Nothing answered the reports: the next request gets its own reply. */
        CHECK_EQ(rtf_spec_change(&s, &p), RTF_OK);

        CHECK_EQ(rtf_task_stop(&s), 0);
        reports0 = reports;
        reports = wait_reports(reports0, &last);
        CHECK_EQ(reports, reports0 + 1);
        CHECK_EQ(last.report.stats.flags, RTF_STATS_FINAL);
        CHECK_EQ(last.report.stats.periods, 5);

        /* Another thread's request holds the connection: reports are skipped, not waited for. */
        CHECK_EQ(rtf_task_start_attr(&s, &attr), 0);
        h.spec = s;
        h.spec.task = NULL;
        h.params = p;
        peer_last(&requests);
        peer_set(PEER_HOLD, &ok);
        CHECK_EQ(pthread_create(&thread, NULL, held_change_thread, &h), 0);
        /* Once the peer holds the request, its thread holds the connection until peer_release(). */
        for (unsigned i = 0, now = requests; i < 30000 && now == requests; i++) {
                usleep(1000);
                peer_last(&now);
        }
        CHECK(rtf_task_wait_period(&s) >= 0);   /* a report is due: the first of this task */
        CHECK_EQ(rtf_task_stop(&s), 0);         /* and the last */
        CHECK_EQ(atomic_load(&h.done), 0);      /* both returned while the request was held */
        peer_release();
        pthread_join(thread, NULL);
        CHECK_EQ(h.result, RTF_OK);
        peer_set(PEER_SCRIPT, &ok);
        CHECK_EQ(rtf_spec_change(&s, &p), RTF_OK);      /* after anything sent before it */
        peer_last_report(&reports0);
        CHECK_EQ(reports0, reports);

        /* A released spec has nobody left to report to. */
        CHECK_EQ(rtf_task_start_attr(&s, &attr), 0);
        CHECK_EQ(rtf_spec_release(&s), RTF_OK);
        CHECK_EQ(rtf_spec_create(&s, &p), RTF_OK);      /* a round trip after the release */
        peer_last_report(&reports0);
        CHECK_EQ(reports0, reports);
        CHECK_EQ(rtf_spec_release(&s), RTF_OK);
        CHECK_EQ(rtf_disconnect(), RTF_OK);
}

static int child_after_fork(void) {
        struct rtf_spec s = RTF_SPEC_INIT;
        struct rtf_params p;

        make_params(&p, 777);
        if (rtf_spec_create(&s, &p) != -ENOTCONN)
                return 1;
        if (rtf_connect() != RTF_OK)
                return 2;
        if (rtf_spec_create(&s, &p) != RTF_SCHEDULE_FAIL || strcmp(rtf_last_reason(), "777") != 0)
                return 3;
        return 0;
}

/* A child does not speak on its parent's connection. */
static void test_fork(void) {
        struct rtf_spec s = RTF_SPEC_INIT;
        struct rtf_params p;
        unsigned accepted = peer_accepted();
        int status = -1;
        pid_t pid;

        peer_set(PEER_ECHO, NULL);
        CHECK_EQ(rtf_connect(), RTF_OK);

        pid = fork();
        CHECK(pid >= 0);
        if (pid == 0)
                _exit(child_after_fork());
        CHECK_EQ(waitpid(pid, &status, 0), pid);
        CHECK(WIFEXITED(status));
        CHECK_EQ(WEXITSTATUS(status), 0);
        CHECK_EQ(peer_accepted(), accepted + 1);

        make_params(&p, 888);
        CHECK_EQ(rtf_spec_create(&s, &p), RTF_SCHEDULE_FAIL);
        CHECK(strcmp(rtf_last_reason(), "888") == 0);
        CHECK_EQ(rtf_disconnect(), RTF_OK);
}

int main(void) {
        char timeout[16];
        int r;

        /* a SIGPIPE would kill the test: the library must never raise one */
        signal(SIGPIPE, SIG_DFL);
        snprintf(timeout, sizeof(timeout), "%d", TIMEOUT_MS);
        setenv("RTF_TIMEOUT_MS", timeout, 1);

        r = peer_start();
        if (r < 0) {
                fprintf(stderr, "skipped: cannot listen on a unix socket: %s\n", strerror(-r));
                return 77;
        }

        test_strerror();
        test_strerror_threads();
        test_params();
        test_not_connected();
        test_local_reasons();
        test_connect_failures();
        test_broken_peer();
        test_scripted();
        test_concurrent();
        test_fork();
        test_reports();

        peer_stop();
        return test_done();
}
