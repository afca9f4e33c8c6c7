/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "sched-attr.h"
#include "state.h"
#include "thread-compat.h"
#include "trusted.h"

int stat_text_starttime(const char *text, size_t len, uint64_t *ret) {
        const char *p = NULL, *end = text + len;
        unsigned long long v;
        int field = 2;

        /* The command name (field 2) may contain spaces and ')': skip to the last ')'. */
        for (const char *q = text; q < end; q++)
                if (*q == ')')
                        p = q;
        if (!p)
                return -EINVAL;
        for (p++; p < end && field < 22; p++)
                if (*p == ' ')
                        field++;
        if (field != 22 || p >= end)
                return -EINVAL;
        {
                char num[24];
                size_t n = 0;
                char *e;

                while (p + n < end && n < sizeof(num) - 1 && p[n] >= '0' && p[n] <= '9')
                        n++;
                if (n == 0 || n >= sizeof(num) - 1)
                        return -EINVAL;
                memcpy(num, p, n);
                num[n] = 0;
                v = strtoull(num, &e, 10);
        }
        *ret = v;
        return 0;
}

int thread_starttime(pid_t tid, uint64_t *ret) {
        char path[64], buf[1024];
        ssize_t n;
        int fd;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? -ESRCH : -errno;
        n = read(fd, buf, sizeof(buf));
        close(fd);
        if (n <= 0)
                return n < 0 ? -errno : -EIO;
        return stat_text_starttime(buf, (size_t)n, ret);
}

struct state_entry state_entry_of(const struct thread *t) {
        return (struct state_entry){ .tid = t->tid, .starttime = t->compat_starttime, .pidfd_ino = t->pidfd_ino,
                                     .tgid = t->tgid,
                                     .proc_ino = t->proc_ino, .leader_was_rt = t->leader_was_rt,
                                     .original = t->original };
}

/* A new journal holding the live entries, put in place atomically. */
static int state_rewrite(struct state *st, const struct state_entry *live, size_t n) {
        const char *base = st->path + st->base;
        char tmp[4096 + 8], line[160];
        int fd, r = 0;

        if (snprintf(tmp, sizeof(tmp), "%s.tmp", base) >= (int)sizeof(tmp))
                return -ENAMETOOLONG;
        fd = openat(st->dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return -errno;
        for (size_t i = 0; i < n && r == 0; i++) {
                int len = state_format_line(line, sizeof(line), '+', &live[i]);

                if (write(fd, line, (size_t)len) != len)
                        r = -EIO;
        }
        if (r == 0 && renameat(st->dfd, tmp, st->dfd, base) < 0)
                r = -errno;
        if (r < 0) {
                close(fd);
                unlinkat(st->dfd, tmp, 0);
                return r;
        }
        safe_close(st->fd);
        st->fd = fd;
        st->lines = n;
        return 0;
}

void state_note(struct state *st, bool add, const struct state_entry *e,
                const struct state_entry *live, size_t n_live) {
        char line[160];
        int len, r;

        if (st->fd < 0)
                return;
        if (live && st->lines >= STATE_COMPACT_LINES && st->lines >= 2 * n_live) {
                r = state_rewrite(st, live, n_live);
                if (r < 0)
                        log_warning_errno(r, "Failed to compact the state file %s: %m", st->path);
                else
                        return;         /* the live entries already include (or exclude) e */
        }
        len = state_format_line(line, sizeof(line), add ? '+' : '-', e);
        if (write(st->fd, line, (size_t)len) != len)
                log_warning_errno(errno, "Failed to write the state file %s: %m", st->path);
        else
                st->lines++;
}

void state_close(struct state *st, bool keep) {
        if (st->fd >= 0) {
                st->fd = safe_close(st->fd);
                if (!keep)
                        unlinkat(st->dfd, st->path + st->base, 0);
        }
        st->dfd = safe_close(st->dfd);
}

/*
 * The thread a journal line names is gone: if it was not its process's
 * leader, it may have exec'd while no rtfd ran and live on as the leader
 * (thread.h).  The process pidfd's inode tells the process from a successor.
 */
static int demote_exec_successor(const struct state_entry *e) {
        struct rtf_sched_attr attr = { .size = sizeof(attr) };
        struct stat st;
        int pidfd, r = 0;

        if (e->tgid <= 0 || e->tgid == e->tid || !e->proc_ino)
                return 0;
        pidfd = pidfd_open(e->tgid, 0);
        if (pidfd < 0)
                return 0;
        if (fstat(pidfd, &st) < 0 || (uint64_t)st.st_ino != e->proc_ino ||
            rtf_sched_getattr(e->tgid, &attr, 0) < 0 || !thread_is_exec_successor(&attr, e->leader_was_rt, NULL))
                goto out;
        r = thread_restore_original(e->tgid, pidfd, &e->original);
        if (r >= 0) {
                log_notice("Demoted process %d, left at a real-time policy by a previous rtfd "
                           "(its thread %d exec'd)", (int)e->tgid, (int)e->tid);
                r = 1;
        } else {
                log_warning_errno(r, "Failed to demote process %d left by a previous rtfd: %m", (int)e->tgid);
                r = 0;
        }
out:
        close(pidfd);
        return r;
}

static int demote_if_same(const struct state_entry *e) {
        struct rtf_sched_attr attr = { .size = sizeof(attr) };
        uint64_t now_start = 0, compat_start = 0;
        struct stat st;
        pid_t tgid = 0;
        int pidfd = -1, r;

        if (thread_compat_pidfd_open(e->tid, &pidfd, &tgid, &compat_start) < 0)
                return demote_exec_successor(e);
        /* The pidfd pins this thread: if its inode and start time match, it is
         * the one the previous rtfd promoted, not a successor with the same id.
         * Without PIDFD_THREAD it pins the process, and the start time that
         * names the thread must have been recorded (thread-compat.h). */
        if (compat_start)
                r = e->starttime && compat_start == e->starttime ? 0 : -ESRCH;
        else
                r = e->starttime ? thread_starttime(e->tid, &now_start) : 0;
        if (r < 0 || (!compat_start && ((e->starttime && now_start != e->starttime) || fstat(pidfd, &st) < 0 ||
                                        (uint64_t)st.st_ino != e->pidfd_ino))) {
                close(pidfd);
                return demote_exec_successor(e);
        }
        r = rtf_sched_getattr(e->tid, &attr, 0);
        if (r >= 0 && thread_policy_is_rt(attr.sched_policy)) {
                r = thread_restore_original(e->tid, pidfd, &e->original);
                if (r >= 0) {
                        log_notice("Demoted thread %d, left at a real-time policy by a previous rtfd", (int)e->tid);
                        r = 1;
                } else {
                        log_warning_errno(r, "Failed to demote thread %d left by a previous rtfd: %m", (int)e->tid);
                }
        }
        close(pidfd);
        return r > 0;
}

/* Replay the journal of a previous rtfd: what was added and not removed. */
static int replay(FILE *f, struct state_entry **ret, size_t *ret_n) {
        struct state_entry *set = NULL, e;
        size_t n = 0, cap = 0, lines = 0;
        char line[256];

        while (fgets(line, sizeof(line), f) && lines++ < 16 * 1024 * 1024) {
                int add = state_parse_line(line, &e);

                if (add > 0) {
                        if (n == cap) {
                                size_t c2 = cap ? cap * 2 : 64;
                                struct state_entry *s2 = realloc(set, c2 * sizeof(*s2));

                                if (!s2)
                                        break;
                                set = s2;
                                cap = c2;
                        }
                        set[n++] = e;
                } else if (add == 0) {
                        for (size_t i = 0; i < n; i++)
                                if (set[i].tid == e.tid && set[i].pidfd_ino == e.pidfd_ino) {
                                        set[i] = set[--n];
                                        break;
                                }
                }
        }
        *ret = set;
        *ret_n = n;
        return 0;
}

/* The journal's directory, trusted (trusted.h), and the journal's name in it. */
static int open_dir(const char *path, int level, int *ret_dfd, const char **ret_base) {
        return trusted_parent_open(path, "State journal", level, ret_dfd, ret_base);
}

int state_check_trusted(const char *path) {
        const char *base;
        int dfd, r;

        r = open_dir(path, LOG_ERR, &dfd, &base);
        if (r == -ENOENT)
                return log_error_errno(r, "State journal %s: its directory does not exist", path);
        if (r >= 0)
                close(dfd);
        return r;
}

int state_open(struct state *st, const char *path) {
        struct state_entry *left = NULL;
        const char *base;
        size_t n = 0;
        int demoted = 0, dfd, fd, r;
        FILE *f;

        *st = STATE_NULL;
        if (!path || !path[0])
                return 0;
        if (snprintf(st->path, sizeof(st->path), "%s", path) >= (int)sizeof(st->path))
                return log_error_errno(ENAMETOOLONG, "State file path too long: %s", path);
        /* Issue 10: a journal in a directory others can write could be
         * planted (lines that make rtfd demote a root process) or be a
         * symlink rtfd then writes through. */
        r = open_dir(path, LOG_ERR, &dfd, &base);
        if (r == -ENOENT)
                return log_error_errno(r, "State journal %s: its directory does not exist", path);
        if (r < 0)
                return r;
        fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno != ENOENT) {
                r = errno == ELOOP ? log_error_errno(EPERM, "State journal %s is a symbolic link: remove it",
                                                     path)
                                   : log_error_errno(errno, "Failed to open the state journal %s: %m", path);
                close(dfd);
                return r;
        }
        if (fd >= 0) {
                r = trusted_fd_check(fd, path, "State journal");
                if (r < 0) {
                        log_error("Not using the state journal %s: remove it if no rtfd wrote it", path);
                        close(fd);
                        close(dfd);
                        return r;
                }
        }
        f = fd >= 0 ? fdopen(fd, "re") : NULL;
        if (!f && fd >= 0)
                close(fd);
        if (f) {
                replay(f, &left, &n);
                fclose(f);
                for (size_t i = 0; i < n; i++)
                        demoted += demote_if_same(&left[i]);
                free(left);
                if (demoted)
                        log_notice("Recovered from an earlier rtfd: %d orphaned real-time thread(s) demoted",
                                   demoted);
        }
        st->base = (size_t)(base - path);      /* base points into path, which st->path copies */
        st->dfd = dfd;
        st->fd = openat(dfd, base, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (st->fd < 0)
                return log_warning_errno(errno, "Cannot write the state file %s (%m): promoted threads will "
                                         "not be demoted after a crash", path);
        return demoted;
}
