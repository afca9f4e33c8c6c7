/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One SOCK_SEQPACKET connection per process, guarded by client_lock, so a
 * request and its reply are never interleaved with another thread's.
 *
 * The connection belongs to the process that opened it: rtfd identifies its
 * peer with SO_PEERCRED at connect time, so a forked child must not speak on
 * it.  The atfork handler closes the child's copy (and keeps the lock
 * consistent); the pid check covers children made without the handlers
 * (_Fork(), raw clone()).  Either way the child gets -ENOTCONN until it calls
 * rtf_connect() itself.
 *
 * Nothing here runs before rtf_connect(): no constructor, no I/O at load.
 *
 * send(), recv() and connect() are cancellation points; a thread cancelled
 * there would leave client_lock held for good, so cancellation is deferred
 * while the lock is held.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "error.h"
#include "rtf/rtf.h"
#include "transport.h"
#include "util.h"

#define CLIENT_TIMEOUT_MS_DEFAULT 5000u
#define CLIENT_TIMEOUT_MS_MAX 3600000u  /* an hour: beyond that, a typo */

static pthread_mutex_t client_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t client_once = PTHREAD_ONCE_INIT;

/* All guarded by client_lock. */
static int client_fd = -1;
static pid_t client_pid;
static uint32_t client_seq;
static unsigned client_timeout_ms = CLIENT_TIMEOUT_MS_DEFAULT;
static bool client_answered;            /* rtfd answered a request on this connection */

static void client_atfork_prepare(void) {
        pthread_mutex_lock(&client_lock);
}

static void client_atfork_parent(void) {
        pthread_mutex_unlock(&client_lock);
}

static void client_atfork_child(void) {
        client_fd = safe_close(client_fd);
        pthread_mutex_unlock(&client_lock);
}

static void client_register_atfork(void) {
        /* On failure (ENOMEM) the pid check in client_request still holds. */
        (void) pthread_atfork(client_atfork_prepare, client_atfork_parent, client_atfork_child);
}

static void client_drop(void) {
        client_fd = safe_close(client_fd);
}

static int64_t now_ms(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static unsigned timeout_from_env(void) {
        const char *e = secure_getenv("RTF_TIMEOUT_MS");
        unsigned long v;
        char *end;

        if (!e || !*e)
                return CLIENT_TIMEOUT_MS_DEFAULT;
        errno = 0;
        v = strtoul(e, &end, 10);
        if (errno != 0 || *end != '\0' || v == 0 || v > CLIENT_TIMEOUT_MS_MAX)
                return CLIENT_TIMEOUT_MS_DEFAULT;
        return (unsigned) v;
}

static int client_connect_locked(void) {
        const char *path;
        unsigned timeout;
        int fd;

        if (client_fd >= 0) {
                if (client_pid == getpid())
                        return RTF_OK;
                client_drop();          /* inherited from the parent */
        }

        path = secure_getenv("RTF_SOCKET");
        if (!path || !*path)
                path = RTF_DEFAULT_SOCKET;
        timeout = timeout_from_env();
        fd = transport_connect(path, timeout);
        if (fd == -ENAMETOOLONG) {
                reason_set("socket path too long: %s", path);
                return RTF_CONNECTION_ERR;
        }
        if (fd < 0) {
                reason_set("%s: %s", path, strerrordesc_np(-fd));
                return RTF_CONNECTION_ERR;
        }

        client_fd = fd;
        client_pid = getpid();
        client_timeout_ms = timeout;
        client_answered = false;
        return RTF_OK;
}

static void client_lock_acquire(int *ret_cancel_state) {
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, ret_cancel_state);
        pthread_mutex_lock(&client_lock);
}

static void client_lock_release(int cancel_state) {
        pthread_mutex_unlock(&client_lock);
        pthread_setcancelstate(cancel_state, NULL);
}

RTF_PUBLIC rtf_result_t rtf_connect(void) {
        int r, cancel_state;

        pthread_once(&client_once, client_register_atfork);
        reason_clear();

        client_lock_acquire(&cancel_state);
        r = client_connect_locked();
        client_lock_release(cancel_state);
        return r;
}

RTF_PUBLIC rtf_result_t rtf_disconnect(void) {
        int cancel_state;

        client_lock_acquire(&cancel_state);
        client_drop();
        client_lock_release(cancel_state);
        return RTF_OK;
}

static int client_send_locked(const void *buf, size_t len) {
        for (;;) {
                ssize_t n = send(client_fd, buf, len, MSG_NOSIGNAL);
                if (n >= 0) {
                        if ((size_t) n == len)
                                return 0;
                        reason_set("short send to rtfd");
                        break;
                }
                if (errno == EINTR)
                        continue;
                if (errno == EAGAIN || errno == EWOULDBLOCK)
                        reason_set("rtfd did not take the request within %u ms", client_timeout_ms);
                else
                        reason_set("sending to rtfd: %s", strerrordesc_np(errno));
                break;
        }
        client_drop();
        return RTF_CONNECTION_ERR;
}

/*
 * Receive one packet into buf (RTF_MSG_MAX + 1 bytes, so that a larger packet
 * shows up as too large instead of being silently truncated).
 *
 * SO_RCVTIMEO bounds each recv(); a signal restarts it, so the total wait is
 * also checked against a deadline: at most twice the timeout.
 */
static int client_receive_locked(void *buf, size_t *ret_len) {
        int64_t deadline = now_ms() + client_timeout_ms;

        for (;;) {
                ssize_t n = recv(client_fd, buf, RTF_MSG_MAX + 1, 0);
                if (n > (ssize_t) RTF_MSG_MAX) {
                        reason_set("reply from rtfd larger than %u bytes", RTF_MSG_MAX);
                        client_drop();
                        return -EPROTO;
                }
                if (n > 0) {
                        *ret_len = (size_t) n;
                        return 0;
                }
                if (n == 0) {
                        /* An rtfd of protocol version 1 closes on this library's first packet. */
                        reason_set(client_answered ? "rtfd closed the connection" :
                                   "rtfd closed the connection without answering (see its log: an rtfd "
                                   "older than protocol version %u does that)", RTF_PROTO_VERSION);
                        break;
                }
                if (errno == EINTR && now_ms() < deadline)
                        continue;
                if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                        reason_set("no reply from rtfd within %u ms", client_timeout_ms);
                else
                        reason_set("receiving from rtfd: %s", strerrordesc_np(errno));
                break;
        }
        client_drop();
        return RTF_CONNECTION_ERR;
}

static int client_request_locked(struct rtf_msg *msg, uint16_t reply_type) {
        uint8_t buf[RTF_MSG_MAX + 1];
        uint32_t seq;
        size_t len;
        int r;

        if (client_fd < 0) {
                reason_set("not connected to rtfd (call rtf_connect())");
                return -ENOTCONN;
        }
        if (client_pid != getpid()) {
                client_drop();
                reason_set("the connection belongs to the parent process (call rtf_connect())");
                return -ENOTCONN;
        }

        seq = ++client_seq;
        msg->header.seq = seq;
        r = rtf_msg_encode(msg, buf, RTF_MSG_MAX);
        if (r < 0)
                return r;

        r = client_send_locked(buf, (size_t) r);
        if (r != 0)
                return r;
        r = client_receive_locked(buf, &len);
        if (r != 0)
                return r;

        client_answered = true;
        r = rtf_msg_decode(buf, len, msg);
        if (r < 0) {
                reason_set("malformed reply from rtfd: %s", rtf_proto_strerror(r));
                client_drop();
                return -EPROTO;
        }
        if (msg->header.seq != seq || msg->header.type != reply_type) {
                reason_set("reply from rtfd out of sequence (seq %u type %#x, expected seq %u type %#x)",
                           msg->header.seq, msg->header.type, seq, reply_type);
                client_drop();
                return -EPROTO;
        }
        return 0;
}

int client_request(struct rtf_msg *msg, uint16_t reply_type) {
        int r, cancel_state;

        reason_clear();
        client_lock_acquire(&cancel_state);
        r = client_request_locked(msg, reply_type);
        client_lock_release(cancel_state);
        return r;
}

int client_report(uint64_t id, const struct rtf_wire_stats *stats) {
        uint8_t buf[sizeof(struct rtf_msg_header) + sizeof(struct rtf_msg_report)];
        int r, cancel_state;

        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
        if (pthread_mutex_trylock(&client_lock) != 0) {
                pthread_setcancelstate(cancel_state, NULL);
                return -EBUSY;
        }
        if (client_fd < 0 || client_pid != getpid()) {
                r = -ENOTCONN;
        } else {
                r = rtf_msg_encode_report(client_seq + 1, id, stats, buf, sizeof(buf));
                if (r > 0) {
                        ssize_t n = send(client_fd, buf, (size_t) r, MSG_DONTWAIT | MSG_NOSIGNAL);

                        /* A broken connection is left for the next request to find and report. */
                        r = n == (ssize_t) r ? 0 : n < 0 ? -errno : -EIO;
                        client_seq++;
                }
        }
        client_lock_release(cancel_state);
        return r;
}
