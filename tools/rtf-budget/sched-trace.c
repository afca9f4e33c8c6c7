/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sched-trace.h"

#define TRACEFS "/sys/kernel/tracing"
#define BUFFER_KB "16384"               /* per CPU: ~200,000 switches */
#define TEXT_MAX (256u << 20)           /* never read more than this */

struct sched_trace {
        char dir[128];
        bool mounted;                   /* tracefs was mounted by sched_trace_start() */
};

static int write_file(const char *dir, const char *name, const char *text) {
        char path[256];
        ssize_t n;
        int fd;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        n = write(fd, text, strlen(text));
        if (n < 0) {
                int r = -errno;

                close(fd);
                return r;
        }
        close(fd);
        return (size_t)n == strlen(text) ? 0 : -EIO;
}

static void remove_instance(const char *dir) {
        write_file(dir, "tracing_on", "0");
        write_file(dir, "events/sched/sched_switch/enable", "0");
        rmdir(dir);
}

/* Instances left by an rtf-budget that was killed: its pid is gone. */
static void remove_stale_instances(void) {
        DIR *d = opendir(TRACEFS "/instances");
        struct dirent *e;

        if (!d)
                return;
        while ((e = readdir(d))) {
                char dir[sizeof(TRACEFS "/instances/") + sizeof(e->d_name)];
                int pid;

                if (sscanf(e->d_name, "rtf-budget-%d", &pid) != 1 || pid <= 0 ||
                    (kill(pid, 0) == 0 || errno != ESRCH))
                        continue;
                snprintf(dir, sizeof(dir), TRACEFS "/instances/%s", e->d_name);
                remove_instance(dir);
        }
        closedir(d);
}

/*
 * As trace-cmd does, root mounts tracefs where it is not mounted (a fresh
 * boot of Debian 12 leaves it unmounted until something asks for it).  The
 * mount is undone by sched_trace_finish(): rtf-budget leaves the machine as
 * it found it.  A lazy unmount, so that another tracer that started using
 * the mount meanwhile keeps its open files.
 */
static int tracefs_open(bool *ret_mounted) {
        *ret_mounted = false;
        if (access(TRACEFS "/instances", F_OK) == 0)
                return access(TRACEFS "/instances", W_OK) == 0 ? 0 : -EACCES;
        if (errno != ENOENT)
                return -errno;
        if (geteuid() != 0)
                return -ENOENT;
        if (mount("tracefs", TRACEFS, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                return -errno;
        *ret_mounted = true;
        return 0;
}

static void tracefs_close(bool mounted) {
        if (mounted)
                umount2(TRACEFS, MNT_DETACH);
}

const char *sched_trace_strerror(int r) {
        switch (r) {
        case -EACCES:
                return "tracefs needs root (it is mounted at " TRACEFS ", writable by root only)";
        case -ENOENT:
                return "tracefs needs root (it is not mounted at " TRACEFS "; rtf-budget run as root mounts it "
                       "for the run)";
        default:
                return NULL;
        }
}

int sched_trace_start(const char *comm_glob, struct sched_trace **ret) {
        struct sched_trace *t;
        char filter[256];
        bool mounted;
        int r;

        r = tracefs_open(&mounted);
        if (r < 0)
                return r;
        remove_stale_instances();
        t = calloc(1, sizeof(*t));
        if (!t) {
                tracefs_close(mounted);
                return -ENOMEM;
        }
        t->mounted = mounted;
        snprintf(t->dir, sizeof(t->dir), TRACEFS "/instances/rtf-budget-%d", (int)getpid());
        if (mkdir(t->dir, 0700) < 0) {
                r = -errno;
                tracefs_close(t->mounted);
                free(t);
                return r;
        }
        snprintf(filter, sizeof(filter), "prev_comm ~ \"%s\" || next_comm ~ \"%s\"", comm_glob, comm_glob);
        r = write_file(t->dir, "trace_clock", "mono");
        if (r >= 0)
                r = write_file(t->dir, "buffer_size_kb", BUFFER_KB);
        if (r >= 0)
                r = write_file(t->dir, "events/sched/sched_switch/filter", filter);
        if (r >= 0)
                r = write_file(t->dir, "events/sched/sched_switch/enable", "1");
        if (r >= 0)
                r = write_file(t->dir, "tracing_on", "1");
        if (r < 0) {
                remove_instance(t->dir);
                tracefs_close(t->mounted);
                free(t);
                return r;
        }
        *ret = t;
        return 0;
}

/* Events the ring buffer dropped ("overrun: N" of per_cpu/cpuN/stats). */
static uint64_t lost_events(const char *dir) {
        uint64_t lost = 0;

        for (int cpu = 0; cpu < 4096; cpu++) {
                char path[256], line[128];
                FILE *f;

                snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", dir, cpu);
                f = fopen(path, "re");
                if (!f)
                        break;
                while (fgets(line, sizeof(line), f)) {
                        unsigned long long v;

                        if (sscanf(line, "overrun: %llu", &v) == 1)
                                lost += v;
                }
                fclose(f);
        }
        return lost;
}

int sched_trace_finish(struct sched_trace *t, struct sched_switch_event **ret_events, size_t *ret_n,
                       uint64_t *ret_lost) {
        char path[256], *text = NULL;
        size_t len = 0, cap = 0;
        int fd, r = 0;

        write_file(t->dir, "tracing_on", "0");
        snprintf(path, sizeof(path), "%s/trace", t->dir);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                r = -errno;
        while (r >= 0 && fd >= 0) {
                ssize_t n;

                if (cap - len < 65536) {
                        char *more;

                        if (cap >= TEXT_MAX) {
                                r = -EFBIG;
                                break;
                        }
                        more = realloc(text, cap ? cap * 2 : 1 << 20);
                        if (!more) {
                                r = -ENOMEM;
                                break;
                        }
                        text = more;
                        cap = cap ? cap * 2 : 1 << 20;
                }
                n = read(fd, text + len, cap - len);
                if (n < 0)
                        r = -errno;
                else if (n == 0)
                        break;
                else
                        len += (size_t)n;
        }
        if (fd >= 0)
                close(fd);
        *ret_lost = lost_events(t->dir);
        if (r >= 0)
                r = sched_trace_parse(text ? text : "", len, ret_events, ret_n);
        free(text);
        remove_instance(t->dir);
        tracefs_close(t->mounted);
        free(t);
        return r;
}

static const char *find_in(const char *p, const char *end, const char *needle) {
        size_t k = strlen(needle);

        for (; p + k <= end; p++)
                if (memcmp(p, needle, k) == 0)
                        return p;
        return NULL;
}

static int read_pid(const char *p, const char *end, pid_t *ret) {
        long v = 0;
        int digits = 0;

        for (; p < end && *p >= '0' && *p <= '9' && digits < 10; p++, digits++)
                v = v * 10 + (*p - '0');
        if (digits == 0 || digits == 10 || v > INT_MAX)
                return -EINVAL;
        *ret = (pid_t)v;
        return 0;
}

/* "  12345.678901: sched_switch:" ending at `colon` (the ':' after the time) */
static int read_time(const char *line, const char *colon, int64_t *ret) {
        const char *p = colon;
        int64_t sec = 0, usec = 0, scale = 1;
        int frac = 0;

        while (p > line && p[-1] >= '0' && p[-1] <= '9' && frac < 6) {
                usec += (p[-1] - '0') * scale;
                scale *= 10;
                frac++;
                p--;
        }
        if (frac != 6 || p == line || p[-1] != '.')
                return -EINVAL;
        p--;
        scale = 1;
        if (p == line || p[-1] < '0' || p[-1] > '9')
                return -EINVAL;
        while (p > line && p[-1] >= '0' && p[-1] <= '9') {
                if (scale > 1000000000000LL)
                        return -EINVAL;
                sec += (p[-1] - '0') * scale;
                scale *= 10;
                p--;
        }
        *ret = sec * 1000000000LL + usec * 1000;
        return 0;
}

int sched_trace_parse(const char *text, size_t len, struct sched_switch_event **ret_events, size_t *ret_n) {
        const char *p = text, *end = text + len;
        struct sched_switch_event *ev = NULL;
        size_t n = 0, cap = 0;

        while (p < end) {
                const char *eol = memchr(p, '\n', (size_t)(end - p)), *tag, *prev, *next;
                struct sched_switch_event e;

                if (!eol)
                        eol = end;
                tag = *p == '#' ? NULL : find_in(p, eol, ": sched_switch: ");
                if (tag) {
                        prev = find_in(tag, eol, " prev_pid=");
                        next = find_in(tag, eol, " next_pid=");
                        if (!prev || !next || read_time(p, tag, &e.ts_ns) < 0 ||
                            read_pid(prev + 10, eol, &e.prev_pid) < 0 || read_pid(next + 10, eol, &e.next_pid) < 0) {
                                free(ev);
                                return -EINVAL;
                        }
                        if (n == cap) {
                                struct sched_switch_event *more = realloc(ev, (cap ? cap * 2 : 1024) * sizeof(*ev));

                                if (!more) {
                                        free(ev);
                                        return -ENOMEM;
                                }
                                ev = more;
                                cap = cap ? cap * 2 : 1024;
                        }
                        ev[n++] = e;
                }
                p = eol + 1;
        }
        *ret_events = ev;
        *ret_n = n;
        return (int)(n > INT_MAX ? INT_MAX : n);
}

int64_t sched_trace_oncpu_ns(const struct sched_switch_event *ev, size_t n, pid_t tid, int64_t from, int64_t to) {
        int64_t on = 0, since = from;
        bool running = true;
        size_t i, lo = 0, hi = n;

        /* the first event after `from` */
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (ev[mid].ts_ns <= from)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        for (i = lo; i < n && ev[i].ts_ns < to; i++) {
                if (running && ev[i].prev_pid == tid) {
                        on += ev[i].ts_ns - since;
                        running = false;
                } else if (!running && ev[i].next_pid == tid) {
                        since = ev[i].ts_ns;
                        running = true;
                }
        }
        if (running && to > since)
                on += to - since;
        return on;
}
