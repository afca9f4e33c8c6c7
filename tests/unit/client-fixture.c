/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fake rtfd of the librtf tests: see client-fixture.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "client-fixture.h"
#include "tap.h"

#define PEER_CONNS_MAX 16

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

void peer_set(enum peer_mode mode, const struct rtf_msg_reply *reply) {
        pthread_mutex_lock(&peer.lock);
        peer.mode = mode;
        if (reply)
                peer.reply = *reply;
        pthread_mutex_unlock(&peer.lock);
}

/* A message the peer keeps, and the count that goes with it, read under its lock. */
static struct rtf_msg peer_read(const struct rtf_msg *msg, const unsigned *count, unsigned *ret_count) {
        struct rtf_msg m;

        pthread_mutex_lock(&peer.lock);
        m = *msg;
        if (ret_count)
                *ret_count = *count;
        pthread_mutex_unlock(&peer.lock);
        return m;
}

struct rtf_msg peer_last(unsigned *ret_requests) {
        return peer_read(&peer.last, &peer.requests, ret_requests);
}

struct rtf_msg peer_last_report(unsigned *ret_reports) {
        return peer_read(&peer.last_report, &peer.reports, ret_reports);
}

void peer_release(void) {
        pthread_mutex_lock(&peer.lock);
        peer.release = true;
        pthread_cond_signal(&peer.cond);
        pthread_mutex_unlock(&peer.lock);
}

static unsigned peer_count(const unsigned *count) {
        unsigned n;

        pthread_mutex_lock(&peer.lock);
        n = *count;
        pthread_mutex_unlock(&peer.lock);
        return n;
}

unsigned peer_hung_up(void) {
        return peer_count(&peer.hung_up);
}

unsigned peer_accepted(void) {
        return peer_count(&peer.accepted);
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

static int peer_listen(void) {
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

static int peer_start(void) {
        char timeout[16];
        int r;

        /* a SIGPIPE would kill the test: the library must never raise one */
        signal(SIGPIPE, SIG_DFL);
        snprintf(timeout, sizeof(timeout), "%d", TIMEOUT_MS);
        setenv("RTF_TIMEOUT_MS", timeout, 1);
        r = peer_listen();
        if (r < 0) {
                fprintf(stderr, "skipped: cannot listen on a unix socket: %s\n", strerror(-r));
                return r;
        }
        setenv("RTF_SOCKET", peer.path, 1);
        return 0;
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

const char *peer_dir(void) {
        return peer.dir;
}

const char *peer_path(void) {
        return peer.path;
}

int64_t now_ms(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void make_params(struct rtf_params *p, uint64_t period) {
        rtf_params_init(p);
        rtf_params_set_period(p, period);
        rtf_params_set_runtime(p, period / 10);
}

int peer_tests_run(void (*const *tests)(void), size_t n) {
        if (peer_start() < 0)
                return 77;
        for (size_t i = 0; i < n; i++)
                tests[i]();
        peer_stop();
        return test_done();
}
