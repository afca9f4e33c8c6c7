/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpuset.h"
#include "dl-health.h"
#include "log.h"
#include "sched-attr.h"
#include "state.h"
#include "thread.h"
#include "thread-compat.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL     /* Linux 6.9 */
#endif

static int read_proc(pid_t tid, const char *name, char *buf, size_t size) {
        char path[64];
        int n;

        snprintf(path, sizeof(path), "/proc/%d/%s", (int)tid, name);
        n = read_text_file(path, buf, size);
        return n == -ENOENT ? -ESRCH : n;
}

bool thread_alive(const struct thread *t) {
        struct pollfd p = { .fd = t->pidfd, .events = POLLIN };

        if (t->pidfd < 0)
                return false;
        return poll(&p, 1, 0) == 0 && thread_compat_same(t->tgid, t->tid, t->compat_starttime);
}

/*
 * PIDFD_GET_INFO (Linux 6.13) answers who owns the thread from the pidfd itself,
 * in one system call and without the kernel formatting /proc text; its first
 * version is 64 bytes and later kernels accept that size.
 */
struct pidfd_info_v0 {
        uint64_t mask;
        uint64_t cgroupid;
        uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
        uint32_t spare0;
};
#define PIDFD_GET_INFO_V0 _IOWR(0xFF, 11, struct pidfd_info_v0)
#define PIDFD_INFO_PID_V0 (1ULL << 0)
#define PIDFD_INFO_CREDS_V0 (1ULL << 1)

/* Returns 1 if answered, 0 if the kernel has no PIDFD_GET_INFO, or -errno. */
static int owners_from_pidfd(struct thread *t) {
        struct pidfd_info_v0 info = { .mask = PIDFD_INFO_PID_V0 | PIDFD_INFO_CREDS_V0 };

        if (ioctl(t->pidfd, PIDFD_GET_INFO_V0, &info) < 0)
                return errno == ENOTTY || errno == EINVAL ? 0 : errno == ESRCH ? -ESRCH : -errno;
        if ((info.mask & (PIDFD_INFO_PID_V0 | PIDFD_INFO_CREDS_V0)) != (PIDFD_INFO_PID_V0 | PIDFD_INFO_CREDS_V0) ||
            info.pid != (uint32_t)t->tid)
                return -EIO;
        t->tgid = (pid_t)info.tgid;
        t->ruid = (uid_t)info.ruid;
        t->euid = (uid_t)info.euid;
        return 1;
}

static int owners_from_proc(struct thread *t) {
        char buf[4096];
        const char *p;
        unsigned long ruid, euid, tgid;
        int r;

        r = read_proc(t->tid, "status", buf, sizeof(buf));
        if (r < 0)
                return r;
        p = strstr(buf, "\nTgid:");
        if (!p || sscanf(p, "\nTgid: %lu", &tgid) != 1)
                return -EIO;
        p = strstr(buf, "\nUid:");
        if (!p || sscanf(p, "\nUid: %lu %lu", &ruid, &euid) != 2)
                return -EIO;
        t->tgid = (pid_t)tgid;
        t->ruid = (uid_t)ruid;
        t->euid = (uid_t)euid;
        return 0;
}

static struct thread_original original_of(const struct rtf_sched_attr *attr) {
        struct thread_original o = THREAD_ORIGINAL_NULL;

        if (attr->sched_policy == SCHED_BATCH || attr->sched_policy == SCHED_IDLE)
                o.policy = (int)attr->sched_policy;
        if (!thread_policy_is_rt(attr->sched_policy))
                o.nice = attr->sched_nice;
        o.reset_on_fork = attr->sched_flags & SCHED_FLAG_RESET_ON_FORK;
        return o;
}

/* The process pidfd of a non-leader thread, and whether its leader is
 * real-time on its own (thread.h: what an exec successor looks like). */
static int open_process(struct thread *t) {
        struct rtf_sched_attr attr = { .size = sizeof(attr) };
        struct stat st;
        int r;

        if (t->tgid == t->tid) {
                t->proc_ino = t->pidfd_ino;
                return 0;
        }
        /* While the thread lives, its process's pid is in use (a leader that
         * exited stays a zombie until the last thread is gone): no successor. */
        t->proc_pidfd = pidfd_open(t->tgid, 0);
        if (t->proc_pidfd < 0)
                return errno == ESRCH || errno == EINVAL ? -ESRCH : -errno;
        if (fstat(t->proc_pidfd, &st) < 0)
                return -errno;
        t->proc_ino = (uint64_t)st.st_ino;
        r = rtf_sched_getattr(t->tgid, &attr, 0);
        if (r < 0)
                return r;
        t->leader_was_rt = thread_policy_is_rt(attr.sched_policy);
        return thread_alive(t) ? 0 : -ESRCH;
}

/*
 * A thread group leader that exited while its other threads run is a zombie
 * whose pidfd still polls as alive (the kernel delays its exit for the
 * group), and whose id, with that pidfd, passes to the thread that next
 * calls execve(): attached, it would make rtfd act on that program.  It has
 * exited: never attached.
 */
static int thread_exited_leader(const struct thread *t) {
        char name[64], buf[1024];
        const char *close_paren;
        int n;

        snprintf(name, sizeof(name), "task/%d/stat", (int)t->tid);
        n = read_proc(t->tgid, name, buf, sizeof(buf));
        if (n < 0)
                return n;
        close_paren = memrchr(buf, ')', (size_t)n);
        if (!close_paren || close_paren + 2 >= buf + n)
                return -EIO;
        return close_paren[2] == 'Z' || close_paren[2] == 'X';
}

int thread_open(pid_t tid, struct thread *ret) {
        struct thread t = THREAD_NULL;
        struct rtf_sched_attr attr = { .size = sizeof(attr) };
        struct stat st;
        bool by_id = false;
        int r;

        if (tid <= 0)
                return -EINVAL;
        t.tid = tid;
        r = thread_compat_pidfd_open(tid, &t.pidfd, &t.tgid, &t.compat_starttime);
        if (r < 0)
                return r;

        r = owners_from_pidfd(&t);
        if (r == 0) {
                r = owners_from_proc(&t);
                by_id = true;
        }
        if (r < 0)
                goto fail;
        /* The pidfs inode identifies the thread for the whole boot (state.h);
         * the start time is not needed for that and costs a /proc read. */
        if (fstat(t.pidfd, &st) < 0) {
                r = -errno;
                goto fail;
        }
        t.pidfd_ino = (uint64_t)st.st_ino;
        r = rtf_sched_getattr(tid, &attr, 0);
        if (r < 0)
                goto fail;
        t.original = original_of(&attr);

        /* The pidfd pins the thread we opened; if it is still alive now, what
         * we read by its id was about that thread and not a successor.  The
         * owners from PIDFD_GET_INFO are the pidfd's own; a setting read
         * from a successor would only be restored to a thread that is gone. */
        if (by_id && !thread_alive(&t)) {
                r = -ESRCH;
                goto fail;
        }
        r = open_process(&t);
        if (r < 0)
                goto fail;
        r = thread_exited_leader(&t);
        if (r != 0) {
                r = r > 0 ? -ESRCH : r;
                goto fail;
        }
        *ret = t;
        return 0;
fail:
        thread_close(&t);
        return r;
}

int thread_read_owners(const struct thread *t, uid_t *ret_ruid, uid_t *ret_euid) {
        struct thread now = *t;
        int r;

        if (!thread_alive(t))
                return -ESRCH;
        r = owners_from_pidfd(&now);
        if (r == 0) {
                r = owners_from_proc(&now);
                /* read by thread id: only if it still is our thread */
                if (r >= 0 && !thread_alive(t))
                        r = -ESRCH;
        }
        if (r < 0)
                return r;
        *ret_ruid = now.ruid;
        *ret_euid = now.euid;
        return 0;
}

void thread_close(struct thread *t) {
        t->pidfd = safe_close(t->pidfd);
        t->proc_pidfd = safe_close(t->proc_pidfd);
}

/*
 * Every change made by thread id is preceded by a look at the pidfd: the id
 * may belong to a successor once the thread has exited, even before rtfd has
 * handled the exit.
 */
static int set_affinity(const struct thread *t, int cpu, uint32_t n_cpus) {
        cpu_set_t *set;
        size_t size;
        int r = 0;

        if (!thread_alive(t))
                return -ESRCH;

        set = CPU_ALLOC(n_cpus);
        if (!set)
                return -ENOMEM;
        size = CPU_ALLOC_SIZE(n_cpus);
        CPU_ZERO_S(size, set);
        if (cpu >= 0)
                CPU_SET_S((size_t)cpu, size, set);
        else
                for (uint32_t c = 0; c < n_cpus; c++)
                        CPU_SET_S(c, size, set);
        if (sched_setaffinity(t->tid, size, set) < 0)
                r = -errno;
        CPU_FREE(set);
        return r;
}

static int move_thread(const struct thread *t, struct cpuset *cs, int cpu) {
        if (!thread_alive(t))
                return -ESRCH;
        return cpuset_move_thread(cs, t->tid, cpu);
}

static int set_attr(struct thread *t, const struct rtf_sched_setting *s) {
        struct rtf_sched_attr attr = { .size = sizeof(attr) };
        int r;

        switch (s->policy) {
        case RTF_POLICY_DEADLINE:
                attr.sched_policy = SCHED_DEADLINE;
                attr.sched_runtime = s->runtime_ns;
                attr.sched_deadline = s->deadline_ns;
                attr.sched_period = s->period_ns;
                if (s->flags & RTF_SETTING_DL_OVERRUN)
                        attr.sched_flags |= SCHED_FLAG_DL_OVERRUN;
                break;
        case RTF_POLICY_FIFO:
        case RTF_POLICY_RR:
                attr.sched_policy = s->policy == RTF_POLICY_FIFO ? SCHED_FIFO : SCHED_RR;
                attr.sched_priority = s->priority;
                break;
        case RTF_POLICY_OTHER:
                attr.sched_policy = (uint32_t)t->original.policy;
                attr.sched_nice = t->original.nice;
                if (t->original.reset_on_fork)
                        attr.sched_flags |= SCHED_FLAG_RESET_ON_FORK;
                break;
        default:
                return -EINVAL;
        }
        /* A promoted thread's children start as ordinary threads: nothing
         * rtfd did not admit may inherit a real-time policy. */
        if (s->policy != RTF_POLICY_OTHER)
                attr.sched_flags |= SCHED_FLAG_RESET_ON_FORK;
        if (!thread_alive(t))
                return -ESRCH;
        r = rtf_sched_setattr(t->tid, &attr, 0);
        if (r < 0 && !thread_alive(t))
                return -ESRCH;
        return r;
}

int thread_placement_holds(const struct thread *t, uint32_t n_cpus) {
        cpu_set_t *now;
        size_t size;
        int r = 1;

        /* DEADLINE: the kernel refuses an affinity narrower than the root
         * domain; not promoted: nothing to hold. */
        if (!t->promoted || (t->applied.policy != RTF_POLICY_FIFO && t->applied.policy != RTF_POLICY_RR) ||
            t->applied.cpu < 0)
                return 1;
        now = CPU_ALLOC(n_cpus);
        if (!now)
                return -ENOMEM;
        size = CPU_ALLOC_SIZE(n_cpus);
        if (sched_getaffinity(t->tid, size, now) < 0)
                r = errno == ESRCH ? -ESRCH : -errno;
        else if (!thread_alive(t))
                r = -ESRCH;
        else
                /* On its CPU, and nowhere else. */
                r = CPU_COUNT_S(size, now) == 1 && CPU_ISSET_S((size_t)t->applied.cpu, size, now);
        CPU_FREE(now);
        return r;
}

int thread_set_policy(struct thread *t, const struct rtf_sched_setting *s) {
        if (s->policy == RTF_POLICY_DEADLINE)
                return -EINVAL;         /* its bandwidth and root domain are thread_apply()'s */
        return set_attr(t, s);
}

static bool is_dl(const struct thread *t) {
        return t->promoted && t->applied.policy == RTF_POLICY_DEADLINE;
}

/*
 * A sleeping thread stays on the CPU it last ran on until it wakes up, even
 * after its cpuset moved it: outside the partition's root domain, where the
 * kernel refuses any SCHED_DEADLINE setting (EPERM).  A client blocked in its
 * attach request is such a thread.  Give it SCHED_DEADLINE in the root domain
 * it is still in, then let the cpuset move carry its bandwidth into the
 * partition (the kernel accounts DEADLINE tasks that change cpusets).  A
 * DEADLINE thread steps down first; the bandwidth the kernel may keep for it
 * is the leak that apply_setting() recovers.
 */
static int enter_partition_as_dl(struct thread *t, const struct rtf_sched_setting *s, struct cpuset *cs,
                                 int cpu) {
        static const struct rtf_sched_setting other = { .policy = RTF_POLICY_OTHER, .cpu = -1 };
        int r;

        if (is_dl(t)) {
                r = set_attr(t, &other);
                if (r < 0)
                        return r;
                t->promoted = false;
        }
        r = move_thread(t, cs, -1);
        if (r < 0)
                return r;
        t->cpuset_cpu = -1;
        r = set_attr(t, s);
        if (r < 0)
                return r;
        r = move_thread(t, cs, cpu);
        if (r < 0)
                return r;
        t->cpuset_cpu = cpu;
        return 0;
}

/* Steps without rollback; the caller restores. */
static int apply_steps(struct thread *t, const struct rtf_sched_setting *s,
                       struct cpuset *cs, uint32_t n_cpus) {
        static const struct rtf_sched_setting other = { .policy = RTF_POLICY_OTHER, .cpu = -1 };
        int r;

        if (s->policy == RTF_POLICY_DEADLINE) {
                int want_part = s->cpu >= 0 && cs->active && (uint32_t)s->cpu < cs->n_cpus &&
                                cs->partitioned[s->cpu] ? s->cpu : -1;

                /* A DEADLINE thread can neither change root domain nor
                 * affinity: step down to SCHED_OTHER (never an unmanaged
                 * real-time policy) before moving it. */
                if (is_dl(t) && (t->cpuset_cpu != want_part || t->applied.cpu != s->cpu)) {
                        r = set_attr(t, &other);
                        if (r < 0)
                                return r;
                        t->promoted = false;
                }
                if (t->cpuset_cpu != want_part) {
                        r = move_thread(t, cs, want_part);
                        if (r < 0)
                                return r;
                        t->cpuset_cpu = want_part;
                }
                if (!is_dl(t) && want_part < 0) {
                        r = set_affinity(t, s->cpu, n_cpus);
                        if (r < 0)
                                return r;
                }
                r = set_attr(t, s);
                if (r == -EPERM && want_part >= 0)
                        r = enter_partition_as_dl(t, s, cs, want_part);
                if (r < 0)
                        return r;
        } else {
                /* Off DEADLINE first (its affinity cannot change), else pin
                 * first so that the new priority never runs on a foreign CPU. */
                if (is_dl(t) || s->policy == RTF_POLICY_OTHER) {
                        r = set_attr(t, s);
                        if (r < 0)
                                return r;
                }
                if (t->cpuset_cpu >= 0) {
                        r = move_thread(t, cs, -1);
                        if (r < 0)
                                return r;
                        t->cpuset_cpu = -1;
                }
                r = set_affinity(t, s->cpu, n_cpus);
                if (r < 0)
                        return r;
                if (!is_dl(t) && s->policy != RTF_POLICY_OTHER) {
                        r = set_attr(t, s);
                        if (r < 0)
                                return r;
                }
        }
        if (s->policy == RTF_POLICY_OTHER) {
                t->promoted = false;
        } else {
                t->promoted = true;
                t->applied = *s;
        }
        return 0;
}

int thread_apply(struct thread *t, const struct rtf_sched_setting *s,
                 struct cpuset *cs, uint32_t n_cpus) {
        struct rtf_sched_setting previous = t->applied;
        bool was_promoted = t->promoted;
        int r;

        r = apply_steps(t, s, cs, n_cpus);
        if (r >= 0 || r == -ESRCH)
                return r;
        if (was_promoted && apply_steps(t, &previous, cs, n_cpus) >= 0)
                return r;
        if (thread_demote(t, cs, n_cpus) < 0 && thread_alive(t))
                log_warning("Thread %d could be neither updated nor demoted", (int)t->tid);
        return r;
}

int thread_demote(struct thread *t, struct cpuset *cs, uint32_t n_cpus) {
        static const struct rtf_sched_setting other = { .policy = RTF_POLICY_OTHER, .cpu = -1 };
        int r;

        r = apply_steps(t, &other, cs, n_cpus);
        if (r >= 0 || r == -ESRCH)
                return r;
        /* A step after the policy failed (a cpuset move, the affinity): the
         * policy is what must never stay; try it alone once more. */
        if (set_attr(t, &other) >= 0)
                t->promoted = false;
        return r;
}

int thread_demote_exec_successor(struct thread *t, struct cpuset *cs, uint32_t n_cpus, bool leader_attached) {
        struct rtf_sched_attr attr = { .size = sizeof(attr) };
        struct thread succ;
        int r;

        if (t->proc_pidfd < 0 || !t->promoted || leader_attached)
                return 0;
        /* The process pidfd pins the pid the successor runs under, and polls
         * readable only once the whole process has exited. */
        succ = *t;
        succ.tid = t->tgid;
        succ.pidfd = t->proc_pidfd;
        succ.proc_pidfd = -1;
        if (!thread_alive(&succ))
                return 0;
        r = rtf_sched_getattr(succ.tid, &attr, 0);
        if (r < 0 || !thread_alive(&succ))
                return r == -ESRCH || !thread_alive(&succ) ? 0 : r;
        if (!thread_is_exec_successor(&attr, t->leader_was_rt, &t->applied))
                return 0;
        r = thread_demote(&succ, cs, n_cpus);
        t->promoted = succ.promoted;
        t->cpuset_cpu = succ.cpuset_cpu;
        if (r == -ESRCH)
                return 0;
        if (r < 0)
                return log_warning_errno(r, "Failed to demote process %d, whose thread %d exec'd at a real-time "
                                         "policy from rtfd: %m", (int)t->tgid, (int)t->tid);
        log_notice("Thread %d exec'd and runs on as process %d: demoted", (int)t->tid, (int)t->tgid);
        return 1;
}

int thread_restore_original(pid_t tid, int pidfd, const struct thread_original *original) {
        struct thread t = THREAD_NULL;
        cpu_set_t all;
        int r;

        t.tid = tid;
        t.pidfd = pidfd;
        t.original = *original;
        r = set_attr(&t, &(const struct rtf_sched_setting){ .policy = RTF_POLICY_OTHER, .cpu = -1 });
        if (r < 0)
                return r;
        CPU_ZERO(&all);
        for (int c = 0; c < CPU_SETSIZE; c++)
                CPU_SET(c, &all);
        if (thread_alive(&t))
                (void)sched_setaffinity(tid, sizeof(all), &all);
        return 0;
}

int thread_read_dl_state(const struct thread *t, int64_t *ret_runtime_ns,
                         int64_t *ret_deadline_ns) {
        char buf[8192], name[64];
        int n;

        snprintf(name, sizeof(name), "task/%d/sched", (int)t->tid);
        n = read_proc(t->tgid, name, buf, sizeof(buf));
        if (n < 0)
                return n;
        if (!thread_alive(t))
                return -ESRCH;
        return sched_text_parse_dl(buf, (size_t)n, ret_runtime_ns, ret_deadline_ns);
}
