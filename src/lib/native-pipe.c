/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Message pipes of <rtf/native.h>: the real-time end holds the FIFO
 * DIR/rtpN open O_RDWR | O_NONBLOCK (so that it never sees end-of-file when
 * the other side closes, and never blocks opening it); the FIFO's kernel
 * buffer is the pool.  An flock on the FIFO marks it in use, so that two
 * programs cannot share a minor and a FIFO left by a dead one is reused.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "native-private.h"
#include "util.h"

struct rtf_native_pipe {
        int fd;
        int efd;
        int minor;
        atomic_bool deleted;
        atomic_int users;
        char name[32];
        char path[PATH_MAX];
};

/* DIR, created if missing; it must be a directory of ours (not a symlink). */
static int pipe_dir(char *buf, size_t size) {
        const char *dir = secure_getenv("RTF_PIPE_DIR"), *run;
        struct stat st;
        int n;

        if (dir && dir[0])
                n = snprintf(buf, size, "%s", dir);
        else if ((run = secure_getenv("XDG_RUNTIME_DIR")) && run[0] == '/')
                n = snprintf(buf, size, "%s/rtf-pipes", run);
        else
                n = snprintf(buf, size, "/tmp/rtf-pipes-%u", (unsigned) geteuid());
        if (n < 0 || (size_t) n >= size)
                return -ENAMETOOLONG;
        if (mkdir(buf, 0700) < 0 && errno != EEXIST)
                return -errno;
        if (lstat(buf, &st) < 0)
                return -errno;
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;
        if (st.st_uid != geteuid())
                return -EPERM;
        return 0;
}

/* Opens (making it if needed) and locks DIR/rtpN; -EBUSY if a live pipe has it. */
static int pipe_open_minor(const char *dir, int minor, char *path, size_t size) {
        struct stat st;
        int fd, n;

        n = snprintf(path, size, "%s/rtp%d", dir, minor);
        if (n < 0 || (size_t) n >= size)
                return -ENAMETOOLONG;
        if (mkfifo(path, 0600) < 0 && errno != EEXIST)
                return -errno;
        fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return errno == ELOOP ? -EPERM : -errno;
        if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode) || st.st_uid != geteuid()) {
                close(fd);
                return -EPERM;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                close(fd);
                return -EBUSY;
        }
        return fd;
}

RTF_PUBLIC int rtf_native_pipe_create(RT_PIPE *pipe, const char *name, int minor, size_t poolsize) {
        struct rtf_native_pipe *p;
        char dir[PATH_MAX - 16];
        int r, fd = -EBUSY;

        if (!pipe || minor < P_MINOR_AUTO || minor >= RTF_NATIVE_PIPE_MINORS || poolsize > INT_MAX)
                return -EINVAL;
        r = pipe_dir(dir, sizeof(dir));
        if (r < 0)
                return r;
        p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        if (minor >= 0) {
                fd = pipe_open_minor(dir, minor, p->path, sizeof(p->path));
        } else {
                for (minor = 0; minor < RTF_NATIVE_PIPE_MINORS; minor++) {
                        fd = pipe_open_minor(dir, minor, p->path, sizeof(p->path));
                        if (fd != -EBUSY)
                                break;
                }
        }
        if (fd < 0) {
                free(p);
                return fd;
        }
        if (poolsize > 0 && fcntl(fd, F_SETPIPE_SZ, (int) poolsize) < 0) {
                r = -errno;
                close(fd);
                unlink(p->path);
                free(p);
                return r;
        }
        p->fd = fd;
        p->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (p->efd < 0) {
                r = -errno;
                close(fd);
                unlink(p->path);
                free(p);
                return r;
        }
        /* Bytes a dead writer left in a reused FIFO are not this pipe's. */
        for (char junk[512]; read(fd, junk, sizeof(junk)) > 0;)
                ;
        p->minor = minor;
        if (name)
                snprintf(p->name, sizeof(p->name), "%s", name);
        *pipe = (RT_PIPE) { .magic = NATIVE_PIPE_MAGIC, .handle = p };
        return minor;
}

static struct rtf_native_pipe *pipe_enter(RT_PIPE *pipe, int *ret_err) {
        struct rtf_native_pipe *p;

        if (!pipe || (pipe->magic != NATIVE_PIPE_MAGIC && pipe->magic != NATIVE_DELETED_MAGIC)) {
                *ret_err = -EINVAL;
                return NULL;
        }
        p = pipe->handle;
        if (pipe->magic == NATIVE_DELETED_MAGIC || !p) {
                *ret_err = -EIDRM;
                return NULL;
        }
        atomic_fetch_add(&p->users, 1);
        if (atomic_load(&p->deleted)) {
                atomic_fetch_sub(&p->users, 1);
                *ret_err = -EIDRM;
                return NULL;
        }
        return p;
}

static void pipe_leave(struct rtf_native_pipe *p) {
        atomic_fetch_sub(&p->users, 1);
}

/* A task cancelled (rt_task_delete()) while it reads must still leave. */
static void pipe_leave_cb(void *p) {
        pipe_leave(p);
}

static ssize_t pipe_read(struct rtf_native_pipe *p, void *buf, size_t size, RTIME timeout) {
        int64_t deadline = 0;

        if (timeout != TM_INFINITE && timeout != TM_NONBLOCK) {
                if (timeout > (RTIME) (INT64_MAX - native_now_ns()))
                        return -EINVAL;
                deadline = native_now_ns() + (int64_t) timeout;
        }
        for (;;) {
                struct pollfd fds[2] = {
                        { .fd = p->fd, .events = POLLIN },
                        { .fd = p->efd, .events = POLLIN },
                };
                struct timespec ts, *tsp = NULL;
                ssize_t n;
                int r;

                n = read(p->fd, buf, size);
                if (n > 0)
                        return n;
                if (n < 0 && errno != EAGAIN && errno != EINTR)
                        return -errno;
                if (timeout == TM_NONBLOCK)
                        return -EWOULDBLOCK;
                if (deadline) {
                        int64_t left = deadline - native_now_ns();

                        if (left <= 0)
                                return -ETIMEDOUT;
                        ts = (struct timespec) { .tv_sec = (time_t) (left / (int64_t) NSEC_PER_SEC),
                                                 .tv_nsec = (long) (left % (int64_t) NSEC_PER_SEC) };
                        tsp = &ts;
                }
                r = ppoll(fds, 2, tsp, NULL);
                if (r < 0 && errno != EINTR)
                        return -errno;
                if (atomic_load(&p->deleted) || (r > 0 && fds[1].revents))
                        return -EIDRM;
        }
}

RTF_PUBLIC ssize_t rtf_native_pipe_read(RT_PIPE *pipe, void *buf, size_t size, RTIME timeout) {
        struct rtf_native_pipe *p;
        int err = 0;
        ssize_t r;

        if (!buf && size > 0)
                return -EINVAL;
        p = pipe_enter(pipe, &err);
        if (!p)
                return err;
        pthread_cleanup_push(pipe_leave_cb, p);
        r = size == 0 ? 0 : pipe_read(p, buf, size, timeout);
        pthread_cleanup_pop(1);
        return r;
}

RTF_PUBLIC ssize_t rtf_native_pipe_write(RT_PIPE *pipe, const void *buf, size_t size, int mode) {
        struct rtf_native_pipe *p;
        int err = 0;
        ssize_t n;

        if ((!buf && size > 0) || size > PIPE_BUF || (mode != P_NORMAL && mode != P_URGENT))
                return -EINVAL;
        p = pipe_enter(pipe, &err);
        if (!p)
                return err;
        if (size == 0) {
                pipe_leave(p);
                return 0;
        }
        /* <= PIPE_BUF on a non-blocking FIFO: all of it, or EAGAIN and nothing. */
        n = write(p->fd, buf, size);
        if (n < 0)
                n = errno == EAGAIN ? -ENOMEM : -errno;
        pipe_leave(p);
        return n;
}

RTF_PUBLIC int rtf_native_pipe_delete(RT_PIPE *pipe) {
        struct rtf_native_pipe *p;
        uint64_t one = 1;
        int r = 0;

        p = pipe_enter(pipe, &r);
        if (!p)
                return r;
        pipe->magic = NATIVE_DELETED_MAGIC;
        atomic_store(&p->deleted, true);
        pipe_leave(p);
        (void) !write(p->efd, &one, sizeof(one));
        while (atomic_load(&p->users) > 0)
                sched_yield();
        /* Unlink while still locked: no other program can be holding this path now. */
        unlink(p->path);
        close(p->fd);
        close(p->efd);
        free(p);
        return 0;
}

RTF_PUBLIC const char *rtf_native_pipe_path(RT_PIPE *pipe) {
        if (!pipe || pipe->magic != NATIVE_PIPE_MAGIC || !pipe->handle)
                return NULL;
        return pipe->handle->path;
}
