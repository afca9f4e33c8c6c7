/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "event.h"
#include "fdlimit.h"
#include "list.h"
#include "log.h"
#include "manager.h"
#include "protocol.h"
#include "server.h"
#include "trusted.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77         /* Linux 6.5 */
#endif

#define CLIENT_QUEUE_MAX 8      /* replies waiting for a client that does not read */
#define ACCEPT_BATCH 16         /* connections accepted per wake-up, for fairness */

struct packet {
        uint32_t len;
        uint8_t data[];
};

struct client {
        struct server *srv;
        struct owner owner;
        int fd;
        int pidfd;
        const char *refusal;            /* a connection limit was hit: answer this, then close */
        double tokens;                  /* request rate limit (token bucket) */
        int64_t tokens_at_ns;
        struct source source;
        struct packet *queue[CLIENT_QUEUE_MAX];
        uint32_t q_head, q_len;
        bool paused;
        bool held;                      /* its uid is over its share of rtfd's time: not read */
        LIST_FIELDS(struct client, clients);
        LIST_FIELDS(struct client, held);
};

struct server {
        struct server_options opt;
        struct event_loop *ev;
        struct manager *mgr;
        int fd;
        bool unlink_on_exit;
        struct source source;
        struct fdlimit_backoff backoff; /* issue 10: the listener's pause at EMFILE */
        /* Connections whose uid used up its share of rtfd's time
         * (max_busy_permille_per_uid): not polled until the share refills, so
         * that a flood costs rtfd nothing, not even refusals (issue 10). */
        struct client *held;
        struct source hold_timer;
        int64_t hold_until_ns;          /* when the timer fires; 0 = not armed */
        struct client *clients;
        uint32_t n_clients;
        uint32_t n_refused;
};

#define REFUSED_EXTRA 64        /* over-limit connections kept just long enough to say why */

enum {
        LIMIT_CONNECTION,               /* max_requests_per_sec */
        LIMIT_UID_RATE,                 /* max_requests_per_sec_per_uid */
};

/*
 * Root is exempt; everybody else gets max_requests_per_sec with a burst per
 * connection and max_requests_per_sec_per_uid over all of the uid's
 * connections (so more connections buy no more rate).  Returns true, or
 * false with the limit hit in `ret_limit`.  (The share of rtfd's time per
 * uid is not a refusal: client_event() stops reading the uid's connections.)
 */
static bool rate_allows(struct client *c, int *ret_limit) {
        const struct limits *l = manager_limits(c->srv->mgr);
        int64_t now = now_monotonic_ns();

        *ret_limit = LIMIT_CONNECTION;
        if (c->owner.uid == 0)
                return true;
        c->tokens += (double)(now - c->tokens_at_ns) * 1e-9 * l->max_requests_per_sec;
        if (c->tokens > l->request_burst)
                c->tokens = l->request_burst;
        c->tokens_at_ns = now;
        if (c->tokens < 1.0)
                return false;
        if (!manager_user_rate_allows(c->srv->mgr, &c->owner)) {
                *ret_limit = LIMIT_UID_RATE;
                return false;
        }
        c->tokens -= 1.0;
        return true;
}

static void limit_reason(const struct client *c, int limit, char *buf, size_t size) {
        const struct limits *l = manager_limits(c->srv->mgr);

        if (limit == LIMIT_UID_RATE)
                snprintf(buf, size, "limit max_requests_per_sec_per_uid (%" PRIu32 ", burst %" PRIu32 ") reached",
                         l->max_requests_per_sec_per_uid, l->request_burst_per_uid);
        else
                snprintf(buf, size, "limit max_requests_per_sec (%" PRIu32 ", burst %" PRIu32 ") reached",
                         l->max_requests_per_sec, l->request_burst);
}

static void client_free(struct client *c, const char *why) {
        struct server *srv = c->srv;

        if (why)
                log_notice("Closing connection of pid %d uid %u: %s", (int)c->owner.pid, (unsigned)c->owner.uid,
                           why);
        manager_owner_gone(srv->mgr, &c->owner);
        event_remove(srv->ev, &c->source);
        c->fd = safe_close(c->fd);
        c->pidfd = safe_close(c->pidfd);
        free(c->owner.groups);
        for (uint32_t i = 0; i < c->q_len; i++)
                free(c->queue[(c->q_head + i) % CLIENT_QUEUE_MAX]);
        LIST_REMOVE(clients, srv->clients, c);
        if (c->held)
                LIST_REMOVE(held, srv->held, c);
        if (c->refusal)
                srv->n_refused--;
        else
                srv->n_clients--;
        event_defer_free(srv->ev, c);
}

/* Returns false when the connection was freed (its events cannot be watched). */
static bool client_update_events(struct client *c) {
        uint32_t ev = c->paused || c->held ? 0 : EPOLLIN;
        int r;

        if (c->q_len)
                ev |= EPOLLOUT;
        r = event_modify(c->srv->ev, &c->source, ev);
        if (r < 0) {
                /* Left as it was, a client could be stalled or spin forever. */
                log_warning_errno(r, "Cannot change the events of a connection: %m");
                client_free(c, "cannot watch the connection");
                return false;
        }
        return true;
}

/* Returns false when the connection broke. */
static bool client_flush(struct client *c) {
        while (c->q_len) {
                struct packet *p = c->queue[c->q_head];
                ssize_t n = send(c->fd, p->data, p->len, MSG_DONTWAIT | MSG_NOSIGNAL);

                if (n < 0) {
                        if (errno == EAGAIN || errno == EWOULDBLOCK)
                                return true;
                        return false;
                }
                free(p);
                c->q_head = (c->q_head + 1) % CLIENT_QUEUE_MAX;
                c->q_len--;
        }
        return true;
}

static int client_send(struct client *c, const struct rtf_msg *msg) {
        uint8_t buf[RTF_MSG_MAX];
        struct packet *p;
        int len;

        len = rtf_msg_encode(msg, buf, sizeof(buf));
        if (len < 0)
                return log_error_errno(len, "Failed to encode a reply: %m");
        if (c->q_len == 0) {
                ssize_t n = send(c->fd, buf, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL);

                if (n == len)
                        return 0;
                if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
                        return -EPIPE;
        }
        /* The reader calls us only while the queue has room. */
        if (c->q_len >= CLIENT_QUEUE_MAX)
                return -ENOBUFS;
        p = malloc(sizeof(*p) + (size_t)len);
        if (!p)
                return -ENOMEM;
        p->len = (uint32_t)len;
        memcpy(p->data, buf, (size_t)len);
        c->queue[(c->q_head + c->q_len) % CLIENT_QUEUE_MAX] = p;
        c->q_len++;
        return 0;
}

/* ---- the wire and the broker: the only place that translates ---- */

static void handle_request(struct manager *mgr, struct owner *o, const struct rtf_msg *in,
                           struct rtf_msg_reply *reply) {
        struct manager_result res = { .cpu = -1 };
        struct rtf_task_params req;
        char plugin[RTF_PLUGIN_NAME_MAX];
        int r;

        switch (in->header.type) {
        case RTF_MSG_CREATE:
                rtf_wire_params_to_task(&req, plugin, sizeof(plugin), &in->create.params);
                r = manager_create(mgr, o, &req, plugin, &res);
                break;
        case RTF_MSG_CHANGE:
                rtf_wire_params_to_task(&req, plugin, sizeof(plugin), &in->change.params);
                r = manager_change(mgr, o, in->change.id, &req, plugin, &res);
                break;
        case RTF_MSG_RELEASE:
                r = manager_release(mgr, o, in->id.id, &res);
                break;
        case RTF_MSG_ATTACH:
                r = manager_attach(mgr, o, in->attach.id, in->attach.tid, &res);
                break;
        default:
                r = manager_detach(mgr, o, in->id.id, &res);
                break;
        }
        reply->result = r;
        if (r != RTF_OK) {
                snprintf(reply->reason, sizeof(reply->reason), "%s", res.reason);
                return;
        }
        reply->id = res.id;
        /* A release answers with its id only, as it always has. */
        if (in->header.type == RTF_MSG_RELEASE)
                return;
        reply->priority = res.priority;
        reply->accepted_runtime_us = res.accepted_runtime_us;
        reply->cpu = res.cpu;
        snprintf(reply->plugin, sizeof(reply->plugin), "%s", res.plugin);
}

static void core_row(void *userdata, const struct manager_core_row *r) {
        struct rtf_msg_rows *rows = userdata;
        struct rtf_wire_core *row = &rows->cores[rows->count++];

        memset(row, 0, sizeof(*row));
        snprintf(row->plugin, sizeof(row->plugin), "%s", r->plugin);
        snprintf(row->policy, sizeof(row->policy), "%s", r->policy);
        row->cpu = r->cpu;
        row->partitioned = r->partitioned;
        row->tasks = r->status.tasks;
        row->prio_min = r->prio_min;
        row->prio_max = r->prio_max;
        row->prio_lowest = r->status.prio_lowest;
        row->prio_highest = r->status.prio_highest;
        row->utilization_ppm = r->status.utilization > 0 ? (uint64_t)(r->status.utilization * 1e6 + 0.5) : 0;
}

static void task_row(void *userdata, const struct manager_task_row *r) {
        struct rtf_msg_rows *rows = userdata;
        struct rtf_wire_task *row = &rows->tasks[rows->count++];

        memset(row, 0, sizeof(*row));
        row->id = r->id;
        row->uid = r->uid;
        row->pid = r->pid;
        row->tid = r->tid;
        row->cpu = r->cpu;
        row->priority = r->priority;
        row->accepted_runtime_us = r->accepted_runtime_us;
        rtf_wire_params_from_task(&row->params, r->params, r->plugin);
}

static void stats_row(void *userdata, const struct manager_stats_row *r) {
        struct rtf_msg_rows *rows = userdata;

        rows->task_stats[rows->count++] = (struct rtf_wire_task_stats){
                .id = r->id,
                .age_ms = r->age_ms,
                .stats = *r->stats,
        };
}

/*
 * A report is never answered: librtf sends it from a real-time thread that
 * must not wait, and a reply would break the pairing of its requests and
 * replies.  So whatever rtfd thinks of it goes to the log only.  It costs a
 * request token like any request; one over the limit is dropped.
 */
static int handle_report(struct client *c, const struct rtf_msg_report *report) {
        const struct owner *o = &c->owner;
        char why[RTF_REASON_MAX];
        int r, limit;

        if (c->refusal)
                return -ECONNREFUSED;
        if (!rate_allows(c, &limit)) {
                limit_reason(c, limit, why, sizeof(why));
                log_debug("pid %d uid %u: statistics report dropped: %s", (int)o->pid, (unsigned)o->uid, why);
                return 0;
        }
        r = manager_report(c->srv->mgr, &c->owner, report->id, &report->stats);
        if (r == -ENOENT)
                log_debug("pid %d uid %u: statistics report for unknown spec %" PRIu64 " dropped", (int)o->pid,
                          (unsigned)o->uid, report->id);
        else if (r == -ENOMEM)
                log_warning("pid %d uid %u: statistics report for spec %" PRIu64 " dropped: out of memory",
                            (int)o->pid, (unsigned)o->uid, report->id);
        return 0;
}

static int handle(struct client *c, const struct rtf_msg *in) {
        struct rtf_msg out;
        struct owner *o = &c->owner;
        int limit = LIMIT_CONNECTION;

        memset(&out, 0, sizeof(out));
        /* An older client gets its answer in its own version. */
        out.header.version = in->header.version;
        out.header.seq = in->header.seq;
        if (in->header.type == RTF_MSG_REPORT)
                return handle_report(c, &in->report);
        /* Listings too: a page walks the spec list, so a flood of them is work. */
        if (((in->header.type >= RTF_MSG_CREATE && in->header.type <= RTF_MSG_DETACH) ||
             (!c->refusal && (in->header.type == RTF_MSG_STATUS || in->header.type == RTF_MSG_TASKS ||
                              in->header.type == RTF_MSG_TASK_STATS))) &&
            (c->refusal || !rate_allows(c, &limit))) {
                char why[RTF_REASON_MAX];

                if (c->refusal)
                        snprintf(why, sizeof(why), "%s", c->refusal);
                else
                        limit_reason(c, limit, why, sizeof(why));
                out.header.type = RTF_MSG_REPLY;
                out.reply.result = c->refusal ? -EUSERS : -EAGAIN;
                snprintf(out.reply.reason, sizeof(out.reply.reason), "%s", why);
                log_notice("pid %d uid %u: request refused: %s", (int)o->pid, (unsigned)o->uid, why);
                return client_send(c, &out);
        }
        if (c->refusal && (in->header.type == RTF_MSG_STATUS || in->header.type == RTF_MSG_TASKS ||
                           in->header.type == RTF_MSG_TASK_STATS))
                return -ECONNREFUSED;
        switch (in->header.type) {
        case RTF_MSG_CREATE:
        case RTF_MSG_CHANGE:
        case RTF_MSG_RELEASE:
        case RTF_MSG_ATTACH:
        case RTF_MSG_DETACH:
                out.header.type = RTF_MSG_REPLY;
                handle_request(c->srv->mgr, o, in, &out.reply);
                break;
        case RTF_MSG_STATUS:
                out.header.type = RTF_MSG_STATUS_REPLY;
                out.rows.start = in->list.start;
                out.rows.total = manager_list_cores(c->srv->mgr, in->list.start, RTF_STATUS_ROWS_MAX, core_row,
                                                    &out.rows);
                break;
        case RTF_MSG_TASKS:
                out.header.type = RTF_MSG_TASKS_REPLY;
                out.rows.start = in->list.start;
                out.rows.total = manager_list_tasks(c->srv->mgr, in->list.start, RTF_TASKS_ROWS_MAX, task_row,
                                                    &out.rows);
                break;
        case RTF_MSG_TASK_STATS:
                out.header.type = RTF_MSG_TASK_STATS_REPLY;
                out.rows.start = in->list.start;
                out.rows.total = manager_list_task_stats(c->srv->mgr, in->list.start, RTF_TASK_STATS_ROWS_MAX,
                                                         stats_row, &out.rows);
                break;
        default:
                return -EBADMSG;        /* a reply type sent to the daemon */
        }
        if (out.header.type == RTF_MSG_REPLY && out.reply.result != RTF_OK)
                log_debug("pid %d uid %u: request type %u refused (%d): %s", (int)o->pid, (unsigned)o->uid,
                          in->header.type, out.reply.result, out.reply.reason);
        return client_send(c, &out);
}

/* Receive and handle one request; returns false when the client was freed. */
static bool client_receive(struct client *c) {
        uint8_t buf[RTF_MSG_MAX + 1];
        struct rtf_msg msg;
        ssize_t n;
        int r;

        n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);
        if (n < 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK)
                        return true;
                client_free(c, "receive failed");
                return false;
        }
        if (n == 0) {
                client_free(c, NULL);
                return false;
        }
        if ((size_t)n > RTF_MSG_MAX) {
                char why[96];

                snprintf(why, sizeof(why), "message of %zd bytes exceeds %u", n, RTF_MSG_MAX);
                client_free(c, why);
                return false;
        }
        r = rtf_msg_decode(buf, (size_t)n, &msg);
        if (r < 0) {
                client_free(c, rtf_proto_strerror(r));
                return false;
        }
        r = handle(c, &msg);
        if (r == -EBADMSG) {
                client_free(c, "a reply type sent as a request");
                return false;
        }
        if (r < 0 || c->refusal) {
                client_free(c, r == -EPIPE ? NULL : r < 0 ? "cannot send the reply" : c->refusal);
                return false;
        }
        if (c->q_len >= CLIENT_QUEUE_MAX)
                c->paused = true;
        return true;
}

static void hold_timer_arm(struct server *srv, int64_t at_ns) {
        struct itimerspec its = { 0 };

        if (srv->hold_until_ns && srv->hold_until_ns <= at_ns)
                return;                 /* fires earlier already */
        its.it_value.tv_sec = at_ns / (int64_t)NSEC_PER_SEC;
        its.it_value.tv_nsec = at_ns % (int64_t)NSEC_PER_SEC;
        if (timerfd_settime(srv->hold_timer.fd, TFD_TIMER_ABSTIME, &its, NULL) < 0) {
                log_warning_errno(errno, "Cannot arm the timer of held connections: %m");
                return;
        }
        srv->hold_until_ns = at_ns;
}

/* Its uid is over its share of rtfd's time: stop reading it until the share refills. */
static void client_hold(struct client *c) {
        int64_t wait = manager_user_busy_wait_ns(c->srv->mgr, &c->owner);

        if (wait > (int64_t)(60 * NSEC_PER_SEC))
                wait = 60 * NSEC_PER_SEC;       /* looked at again within a minute whatever the setting */
        c->held = true;
        LIST_PREPEND(held, c->srv->held, c);
        log_debug("pid %d uid %u: over its share of rtfd's time (max_busy_permille_per_uid): not read for %"
                  PRId64 " us", (int)c->owner.pid, (unsigned)c->owner.uid, wait / 1000);
        hold_timer_arm(c->srv, now_monotonic_ns() + wait);
}

static void hold_timer_event(struct source *s, uint32_t events) {
        struct server *srv = (struct server *)((char *)s - offsetof(struct server, hold_timer));
        struct client *c;
        uint64_t n;

        (void)!read(s->fd, &n, sizeof(n));
        srv->hold_until_ns = 0;
        while ((c = srv->held)) {
                LIST_REMOVE(held, srv->held, c);
                c->held = false;
                (void)client_update_events(c);  /* read again; held again if still over */
        }
}

static void client_event(struct source *s, uint32_t events) {
        struct client *c = (struct client *)((char *)s - offsetof(struct client, source));
        int64_t started;

        /* epoll reports a hang-up even for a connection it does not poll: a
         * held client that went away is let go now (not at the hold timer,
         * with a level-triggered event spinning until then). */
        if (c->held && (events & (EPOLLHUP | EPOLLERR))) {
                client_free(c, NULL);
                return;
        }

        if (events & EPOLLOUT) {
                if (!client_flush(c)) {
                        client_free(c, "connection broken");
                        return;
                }
                if (c->paused && c->q_len < CLIENT_QUEUE_MAX)
                        c->paused = false;
        }
        /* One request per wake-up: epoll is level-triggered, so a client with
         * more requests waiting is served again after every other ready source
         * (round robin), and no recv() is spent only to learn EAGAIN. */
        if (!c->paused && !c->held && (events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
                if (!c->refusal && !manager_user_busy_allows(c->srv->mgr, &c->owner)) {
                        client_hold(c);
                } else {
                        /* The whole turn, refusals included, is charged to the uid. */
                        started = now_monotonic_ns();
                        if (!client_receive(c))
                                return;
                        manager_user_charge(c->srv->mgr, &c->owner, now_monotonic_ns() - started);
                }
        }
        (void)client_update_events(c);
}

/* All supplementary groups of the peer, from the kernel (SO_PEERGROUPS). */
static int peer_groups(int fd, struct owner *o) {
        socklen_t len = 64 * sizeof(gid_t);

        for (int tries = 0; tries < 4; tries++) {
                gid_t *g = malloc(len ? len : sizeof(gid_t));

                if (!g)
                        return -ENOMEM;
                if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) == 0) {
                        o->groups = (uint32_t *)g;
                        o->n_groups = len / sizeof(gid_t);
                        return 0;
                }
                free(g);
                if (errno != ERANGE || len > 65536 * sizeof(gid_t))
                        return -errno;
        }
        return -ERANGE;
}

static void accept_event(struct source *s, uint32_t events) {
        struct server *srv = (struct server *)((char *)s - offsetof(struct server, source));

        for (int i = 0; i < ACCEPT_BATCH; i++) {
                const char *refusal;
                struct ucred cred;
                socklen_t len = sizeof(cred);
                struct client *c;
                int fd, r;

                fd = accept4(srv->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
                if (fd < 0) {
                        /* Issue 10: out of descriptors, never a busy loop (fdlimit.h). */
                        if (fdlimit_accept_failed(&srv->backoff, &srv->source, EPOLLIN, errno))
                                return;
                        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED)
                                log_warning_errno(errno, "accept failed: %m");
                        return;
                }
                if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
                        log_warning_errno(errno, "SO_PEERCRED failed: %m");
                        close(fd);
                        continue;
                }
                refusal = NULL;
                if (srv->n_clients >= limits_global_for(manager_limits(srv->mgr)->max_clients, cred.uid))
                        refusal = "limit max_clients reached";
                else if (cred.uid != 0 &&
                         manager_connections_of(srv->mgr, cred.uid) >= manager_limits(srv->mgr)->max_clients_per_uid)
                        refusal = "limit max_clients_per_uid reached";
                if (refusal) {
                        log_notice("Connection of pid %d uid %u refused: %s", (int)cred.pid, (unsigned)cred.uid,
                                   refusal);
                        if (srv->n_refused >= REFUSED_EXTRA) {
                                close(fd);
                                continue;
                        }
                }
                c = calloc(1, sizeof(*c));
                if (!c) {
                        close(fd);
                        return;
                }
                c->srv = srv;
                c->fd = fd;
                c->refusal = refusal;
                c->owner = (struct owner){ .uid = cred.uid, .gid = cred.gid, .pid = cred.pid };
                c->tokens = manager_limits(srv->mgr)->request_burst;
                c->tokens_at_ns = now_monotonic_ns();
                r = peer_groups(fd, &c->owner);
                if (r < 0) {
                        log_warning_errno(r, "Cannot read the groups of pid %d: %m; refusing it", (int)cred.pid);
                        close(fd);
                        free(c);
                        continue;
                }
                r = manager_owner_init(srv->mgr, &c->owner, !refusal);
                if (r < 0) {
                        log_warning_errno(r, "Cannot account for pid %d: %m; refusing it", (int)cred.pid);
                        free(c->owner.groups);
                        close(fd);
                        free(c);
                        continue;
                }
                len = sizeof(c->pidfd);
                if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &c->pidfd, &len) < 0)
                        c->pidfd = pidfd_open(cred.pid, 0);
                r = event_add(srv->ev, &c->source, fd, EPOLLIN, client_event);
                if (r < 0) {
                        log_warning_errno(r, "Cannot watch a new connection: %m");
                        manager_owner_gone(srv->mgr, &c->owner);
                        free(c->owner.groups);
                        safe_close(c->pidfd);
                        close(fd);
                        free(c);
                        continue;
                }
                LIST_PREPEND(clients, srv->clients, c);
                if (refusal)
                        srv->n_refused++;
                else
                        srv->n_clients++;
                log_debug("Connection from pid %d uid %u gid %u", (int)cred.pid, (unsigned)cred.uid,
                          (unsigned)cred.gid);
        }
}

/* Whether systemd passed rtfd its listening socket (sd_listen_fds(3)). */
static bool socket_passed(void) {
        const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");

        return pid && fds && strtol(pid, NULL, 10) == getpid() && strtol(fds, NULL, 10) >= 1;
}

static int socket_from_systemd(void) {
        if (!socket_passed())
                return -1;
        unsetenv("LISTEN_PID");
        unsetenv("LISTEN_FDS");
        unsetenv("LISTEN_FDNAMES");
        fcntl(3, F_SETFD, FD_CLOEXEC);
        fcntl(3, F_SETFL, fcntl(3, F_GETFL) | O_NONBLOCK);
        return 3;
}

/* A leftover socket file is removed only if nobody answers on it. */
static int check_stale(const struct sockaddr_un *addr) {
        int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        int r;

        if (fd < 0)
                return -errno;
        r = connect(fd, (const struct sockaddr *)addr, sizeof(*addr));
        close(fd);
        if (r == 0)
                return log_error_errno(EADDRINUSE, "Another rtfd is listening on %s", addr->sun_path);
        if (errno == ECONNREFUSED)
                unlink(addr->sun_path);
        return 0;
}

int server_prepare_dir(const struct server_options *o) {
        char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
        const char *base;
        int dfd, r;

        /* A socket passed by systemd lives where its unit put it. */
        if (socket_passed())
                return 0;
        r = mkdir_parent(o->socket_path, 0755, dir, sizeof(dir));
        if (r < 0)
                return log_error_errno(r, "Failed to create %s: %m", dir);
        /* Issue 10: a user who may write there could replace the socket or
         * plant a journal beside it. */
        r = trusted_parent_open(o->socket_path, "Socket", LOG_ERR, &dfd, &base);
        if (r == -ENOENT)
                return log_error_errno(r, "Socket %s: its directory does not exist", o->socket_path);
        if (r < 0)
                return r;
        close(dfd);
        return 0;
}

int server_new(const struct server_options *o, struct event_loop *ev, struct manager *mgr, struct server **ret) {
        _cleanup_(server_freep) struct server *srv = NULL;
        char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        int fd, r;

        srv = calloc(1, sizeof(*srv));
        if (!srv)
                return -ENOMEM;
        srv->fd = -1;
        srv->source.fd = -1;
        srv->backoff.timer.fd = -1;     /* fdlimit_backoff_done() before _init() closes nothing */
        srv->hold_timer.fd = -1;
        srv->opt = *o;
        srv->ev = ev;
        srv->mgr = mgr;
        fd = socket_from_systemd();
        if (fd < 0) {
                if (strlen(o->socket_path) >= sizeof(addr.sun_path))
                        return log_error_errno(ENAMETOOLONG, "Socket path %s is too long", o->socket_path);
                memcpy(addr.sun_path, o->socket_path, strlen(o->socket_path) + 1);
                r = mkdir_parent(o->socket_path, 0755, dir, sizeof(dir));
                if (r < 0)
                        log_warning_errno(r, "Failed to create %s: %m", dir);
                r = check_stale(&addr);
                if (r < 0)
                        return r;
                fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
                if (fd < 0)
                        return log_error_errno(errno, "socket failed: %m");
                if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
                        r = log_error_errno(errno, "Failed to bind %s: %m", o->socket_path);
                        close(fd);
                        return r;
                }
                srv->unlink_on_exit = true;
                /* Every user may talk to rtfd; the access-control policy
                 * decides what each may get. */
                if (chmod(o->socket_path, 0666) < 0 || listen(fd, 128) < 0) {
                        r = log_error_errno(errno, "Failed to listen on %s: %m", o->socket_path);
                        close(fd);
                        unlink(o->socket_path);
                        return r;
                }
        }
        srv->fd = fd;
        r = fdlimit_backoff_init(&srv->backoff, srv->ev);        /* issue 10 */
        if (r >= 0) {
                int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

                r = tfd < 0 ? -errno : event_add(srv->ev, &srv->hold_timer, tfd, EPOLLIN, hold_timer_event);
                if (r < 0 && tfd >= 0)
                        close(tfd);
        }
        if (r >= 0)
                r = event_add(srv->ev, &srv->source, fd, EPOLLIN, accept_event);
        if (r < 0)
                return log_error_errno(r, "Failed to watch the listening socket: %m");
        log_info("Listening on %s", srv->unlink_on_exit ? o->socket_path : "the socket passed by systemd");
        *ret = srv;
        srv = NULL;
        return 0;
}

struct server *server_free(struct server *srv) {
        if (!srv)
                return NULL;
        while (srv->clients)
                client_free(srv->clients, NULL);
        fdlimit_backoff_done(&srv->backoff);    /* issue 10 */
        if (srv->hold_timer.fd >= 0) {
                int tfd = srv->hold_timer.fd;

                event_remove(srv->ev, &srv->hold_timer);
                safe_close(tfd);
        }
        event_remove(srv->ev, &srv->source);
        srv->fd = safe_close(srv->fd);
        if (srv->unlink_on_exit)
                unlink(srv->opt.socket_path);
        free(srv);
        return NULL;
}
