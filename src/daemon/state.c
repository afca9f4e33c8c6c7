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

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

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

int state_save(const char *path, const struct state_entry *entries, size_t n) {
        char tmp[4096];
        FILE *f;
        int fd, r = 0;

        if (!path || !path[0])
                return 0;
        if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
                return -ENAMETOOLONG;
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return -errno;
        f = fdopen(fd, "we");
        if (!f) {
                close(fd);
                return -errno;
        }
        fprintf(f, "# threads promoted by rtfd: tid starttime pidfd-inode\n");
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%d %" PRIu64 " %" PRIu64 "\n", (int)entries[i].tid, entries[i].starttime,
                        entries[i].pidfd_ino);
        if (fflush(f) != 0)
                r = -errno;
        if (fclose(f) != 0 && r == 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0)
                unlink(tmp);
        return r;
}

static int demote_if_same(pid_t tid, uint64_t starttime, uint64_t ino) {
        struct rtf_sched_attr attr = { .size = sizeof(attr) }, other = { .size = sizeof(other) };
        uint64_t now_start;
        struct stat st;
        int pidfd, r;

        pidfd = pidfd_open(tid, PIDFD_THREAD);
        if (pidfd < 0)
                return 0;
        /* The pidfd pins this thread: if its inode and start time match, it is
         * the one the previous rtfd promoted, not a successor with the same id. */
        r = thread_starttime(tid, &now_start);
        if (r < 0 || now_start != starttime || fstat(pidfd, &st) < 0 || (uint64_t)st.st_ino != ino) {
                close(pidfd);
                return 0;
        }
        r = rtf_sched_getattr(tid, &attr, 0);
        if (r >= 0 && (attr.sched_policy == SCHED_FIFO || attr.sched_policy == SCHED_RR ||
                       attr.sched_policy == SCHED_DEADLINE)) {
                other.sched_policy = SCHED_OTHER;
                r = rtf_sched_setattr(tid, &other, 0);
                if (r >= 0) {
                        cpu_set_t all;

                        CPU_ZERO(&all);
                        for (int c = 0; c < CPU_SETSIZE; c++)
                                CPU_SET(c, &all);
                        sched_setaffinity(tid, sizeof(all), &all);
                        log_notice("Demoted thread %d, left at a real-time policy by a previous rtfd", (int)tid);
                        r = 1;
                } else {
                        log_warning_errno(r, "Failed to demote thread %d left by a previous rtfd: %m", (int)tid);
                }
        }
        close(pidfd);
        return r > 0;
}

int state_recover(const char *path) {
        char line[128];
        int demoted = 0, lines = 0;
        FILE *f;

        if (!path || !path[0])
                return 0;
        f = fopen(path, "re");
        if (!f)
                return 0;
        while (fgets(line, sizeof(line), f) && lines++ < 1000000) {
                unsigned long long start, ino;
                int tid;

                if (line[0] == '#' || sscanf(line, "%d %llu %llu", &tid, &start, &ino) != 3 || tid <= 0)
                        continue;
                demoted += demote_if_same(tid, start, ino);
        }
        fclose(f);
        unlink(path);
        if (demoted)
                log_notice("Recovered from an earlier rtfd: %d orphaned real-time thread(s) demoted", demoted);
        return demoted;
}
