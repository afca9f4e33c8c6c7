/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cgroup v2 cpuset partitions (cpuset.h, Documentation/admin-guide/cgroup-v2.rst,
 * "Cpuset", "Threads").  Layout under B, the cgroup rtfd runs in (the root,
 * or rtfd.service's delegated subtree):
 *
 *   B/rtf        cpuset.cpus.exclusive = the partitioned CPUs; a threaded
 *                domain: processes with a thread in a partition live here
 *   B/rtf/cpuN   cgroup.type threaded, cpuset.cpus(.exclusive) = N,
 *                cpuset.cpus.partition = root
 *
 * B/rtf/cpuN is a "remote" partition when B/rtf is not a partition root
 * itself: its CPU is taken from every cgroup outside it (the exclusive CPUs
 * are passed down from the root through cpuset.cpus.exclusive on each
 * level), so the rest of the system keeps the other CPUs in one balanced
 * root domain without being moved, and each partition is a root domain of
 * one CPU.  Whether the kernel made the partition valid is read back from
 * cpuset.cpus.partition: "root invalid (reason)" is a failure.
 *
 * v2 moves a single thread (cgroup.threads) only inside its process's
 * threaded subtree, so the process is moved into B/rtf first and back to
 * the cgroup it came from when its last partitioned thread leaves.
 *
 * Before Linux 6.7 (Debian 12 runs 6.1) there is no cpuset.cpus.exclusive and
 * no remote partition: a partition root's parent must be a partition root
 * itself, and a parent that holds tasks must keep a CPU.  B/rtf cannot be
 * one (it holds the processes and would take their other CPUs from the rest
 * of the system), so the "flat" layout puts each partition directly below
 * the root, which is a partition root and may have threaded children:
 *
 *   /rtf-cpuN    cgroup.type threaded, cpuset.cpus = N, partition = root
 *
 * and a process with a partitioned thread moves into the root cgroup (the
 * threaded domain of those children) instead of B/rtf.  setup() picks the
 * flat layout when B/rtf has no cpuset.cpus.exclusive, and says so.
 *
 * A delegated B (rtfd.service) first gets rtfd itself out of the way, into
 * B/daemon: a cgroup with a process of its own and a threaded controller
 * enabled below it is a thread root, whose children can only be threaded,
 * so B/rtf would be "domain invalid" and refuse +cpuset (EOPNOTSUPP).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup-parse.h"
#include "cpuset-private.h"
#include "log.h"

#define RTF_DIR "rtf"
/* root and base are 512 each; a cgroup file name fits in the rest */
#define PATH_LEN 1536

static void rtf_path(const struct cpuset *cs, char *buf, size_t size) {
        snprintf(buf, size, "%s%s/" RTF_DIR, cs->root, cs->base);
}

#define FLAT_PREFIX "rtf-cpu"
#define DAEMON_DIR "daemon"

static void cpu_path(const struct cpuset *cs, uint32_t cpu, char *buf, size_t size) {
        if (cs->v2_flat)
                snprintf(buf, size, "%s/" FLAT_PREFIX "%" PRIu32, cs->root, cpu);
        else
                snprintf(buf, size, "%s%s/" RTF_DIR "/cpu%" PRIu32, cs->root, cs->base, cpu);
}

/* Where the processes with a partitioned thread live: B/rtf, or the root. */
static void domain_path(const struct cpuset *cs, char *buf, size_t size) {
        if (cs->v2_flat)
                snprintf(buf, size, "%s", cs->root);
        else
                rtf_path(cs, buf, size);
}

/* The same and the partitions' common prefix, as /proc/PID/cgroup says them. */
static void domain_cgroup(const struct cpuset *cs, char *buf, size_t size) {
        snprintf(buf, size, cs->v2_flat ? "/" : "%s/" RTF_DIR, cs->base);
}

static size_t partition_cgroup_prefix(const struct cpuset *cs, char *buf, size_t size) {
        return (size_t)snprintf(buf, size, cs->v2_flat ? "/" FLAT_PREFIX : "%s/" RTF_DIR "/cpu", cs->base);
}

/* The cgroup at `level` on the way from the root (0) down to B: the root,
 * then B's path up to the end of its level-th component. */
static bool level_path(const struct cpuset *cs, uint32_t level, char *buf, size_t size) {
        const char *base = cs->base;
        size_t end = 0;

        if (level > 0) {
                uint32_t seen = 0;

                if (base[0] != '/')
                        return false;
                for (end = 1;; end++)
                        if (base[end] == '/' || base[end] == 0) {
                                if (++seen == level)
                                        break;
                                if (base[end] == 0)
                                        return false;
                        }
        }
        snprintf(buf, size, "%s%.*s", cs->root, (int)end, base);
        return true;
}

static uint32_t n_levels(const struct cpuset *cs) {
        uint32_t n = 1;

        for (const char *s = cs->base; *s; s++)
                n += *s == '/';
        return n;
}

static int tgid_of(pid_t tid, pid_t *ret) {
        char path[64], line[128];
        FILE *f;
        int r = -ESRCH;

        snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
        f = fopen(path, "re");
        if (!f)
                return -errno;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "Tgid: %d", ret) == 1) {
                        r = 0;
                        break;
                }
        fclose(f);
        return r;
}

/* The v2 cgroup of /proc/PID(/task/TID), relative to the mount. */
static int cgroup_of(const char *proc_dir, char *ret, size_t size) {
        char path[128], buf[4096];
        size_t len;
        FILE *f;

        snprintf(path, sizeof(path), "%s/cgroup", proc_dir);
        f = fopen(path, "re");
        if (!f)
                return -errno;
        len = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        return cgroup_parse_v2_path(buf, len, ret, size);
}

static int write_id(const char *dir, const char *file, pid_t id) {
        char s[32];

        snprintf(s, sizeof(s), "%d", (int)id);
        return cpuset_write_file(dir, file, s);
}

/* Move every process of from/cgroup.procs to `to` (the cgroup directory). */
static void move_all_procs(const char *from, const char *to, const char *file) {
        char path[PATH_LEN + 32], line[32];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", from, file);
        f = fopen(path, "re");
        if (!f)
                return;
        while (fgets(line, sizeof(line), f)) {
                line[strcspn(line, "\n")] = 0;
                cpuset_write_file(to, file, line);
        }
        fclose(f);
}

static void remove_dir(const char *dir, const char *back_to, const char *file) {
        int r = 0;

        for (int i = 0; i < CPUSET_REMOVE_TRIES; i++) {
                move_all_procs(dir, back_to, file);
                r = rmdir(dir) < 0 ? -errno : 0;
                if (r != -EBUSY)
                        break;
                usleep(CPUSET_REMOVE_RETRY_USEC);
        }
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "Failed to remove cgroup %s: %m", dir);
}

static struct cpuset_origin *origin_find(struct cpuset *cs, pid_t pid) {
        for (size_t i = 0; i < cs->n_origins; i++)
                if (cs->origins[i].pid == pid)
                        return &cs->origins[i];
        return NULL;
}

static void origin_forget(struct cpuset *cs, struct cpuset_origin *o) {
        free(o->path);
        *o = cs->origins[--cs->n_origins];
}

/* Whether the process of a record is (still) in rtf/: it may have exited,
 * and its pid may belong to another process by now. */
static bool origin_valid(const struct cpuset *cs, const struct cpuset_origin *o) {
        char proc[64], cg[PATH_LEN], domain[PATH_LEN];

        snprintf(proc, sizeof(proc), "/proc/%d", (int)o->pid);
        domain_cgroup(cs, domain, sizeof(domain));
        return cgroup_of(proc, cg, sizeof(cg)) >= 0 && strcmp(cg, domain) == 0;
}

static void origins_prune(struct cpuset *cs) {
        for (size_t i = cs->n_origins; i-- > 0;)
                if (!origin_valid(cs, &cs->origins[i]))
                        origin_forget(cs, &cs->origins[i]);
}

/* Processes that moved into rtf/ go back where they came from (or to the
 * root if that is gone); the rest of rtf/ (after a crash: unknown origin)
 * goes to the root. */
static void put_back_processes(struct cpuset *cs) {
        char dir[PATH_LEN], rtf[PATH_LEN];

        while (cs->n_origins) {
                struct cpuset_origin *o = &cs->origins[cs->n_origins - 1];

                snprintf(dir, sizeof(dir), "%s%s", cs->root, o->path);
                if (origin_valid(cs, o) && write_id(dir, "cgroup.procs", o->pid) < 0)
                        write_id(cs->root, "cgroup.procs", o->pid);
                origin_forget(cs, o);
        }
        rtf_path(cs, rtf, sizeof(rtf));
        move_all_procs(rtf, cs->root, "cgroup.procs");
}

/* Threads of the partitions named prefix* in `parent` back to `parent`, where
 * their processes are; returns how many partitions there were. */
static size_t remove_partitions(const char *parent, const char *prefix) {
        char dir[PATH_LEN + 256];
        struct dirent *de;
        size_t n = 0;
        DIR *d;

        d = opendir(parent);
        if (!d)
                return 0;
        while ((de = readdir(d))) {
                if (de->d_type != DT_DIR || strncmp(de->d_name, prefix, strlen(prefix)) != 0)
                        continue;
                snprintf(dir, sizeof(dir), "%s/%s", parent, de->d_name);
                cpuset_write_file(dir, "cpuset.cpus.partition", "member");
                remove_dir(dir, parent, "cgroup.threads");
                n++;
        }
        closedir(d);
        return n;
}

/* Both layouts: a stale tree may come from an rtfd on another kernel. */
static size_t remove_tree(struct cpuset *cs) {
        char rtf[PATH_LEN];
        struct stat st;
        size_t n;

        rtf_path(cs, rtf, sizeof(rtf));
        n = stat(rtf, &st) >= 0;
        remove_partitions(rtf, "cpu");
        n += remove_partitions(cs->root, FLAT_PREFIX);
        put_back_processes(cs);
        remove_dir(rtf, cs->root, "cgroup.procs");
        return n;
}

/* Put the exclusive CPUs of the levels between the root and rtf/ back.  An
 * empty list is written as "\n": a write of no bytes never reaches cpuset. */
static void exclusive_clear(struct cpuset *cs) {
        char dir[PATH_LEN];

        for (uint32_t l = n_levels(cs); l-- > 1;)
                if (level_path(cs, l, dir, sizeof(dir)))
                        cpuset_write_file(dir, "cpuset.cpus.exclusive", "\n");
}

static void subtree_restore(struct cpuset *cs) {
        char dir[PATH_LEN];

        for (uint32_t l = cs->n_enabled; l-- > 0;)
                if (l < ELEMENTSOF(cs->base_enabled) && cs->base_enabled[l] && level_path(cs, l, dir, sizeof(dir)))
                        cpuset_write_file(dir, "cgroup.subtree_control", "-cpuset");
        cs->n_enabled = 0;
        memset(cs->base_enabled, 0, sizeof(cs->base_enabled));
}

void cpuset_v2_cleanup_stale(struct cpuset *cs) {
        if (remove_tree(cs) == 0)
                return;
        log_notice("Removed the cgroups left by an earlier rtfd under %s%s", cs->root, cs->base);
        exclusive_clear(cs);
}

/* rtfd moves from a delegated B into B/daemon, so that B holds no process. */
static int daemon_leave_base(struct cpuset *cs) {
        char base[PATH_LEN], dir[PATH_LEN];
        int r;

        if (!cs->base[0])
                return 0;
        snprintf(base, sizeof(base), "%s%s", cs->root, cs->base);
        snprintf(dir, sizeof(dir), "%s%s/" DAEMON_DIR, cs->root, cs->base);
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return log_error_errno(errno, "Failed to create cgroup %s: %m", dir);
        r = cpuset_write_file(dir, "cgroup.procs", "0");
        /* A crashed rtfd left cpuset enabled in B, which makes B (holding
         * this rtfd) a thread root and B/daemon invalid: disable it first. */
        if (r == -EOPNOTSUPP && cpuset_write_file(base, "cgroup.subtree_control", "-cpuset") >= 0)
                r = cpuset_write_file(dir, "cgroup.procs", "0");
        if (r < 0)
                return log_error_errno(r, "Failed to move rtfd into %s: %m", dir);
        snprintf(cs->daemon_from, sizeof(cs->daemon_from), "%s", cs->base);
        return 0;
}

static void daemon_return_to_base(struct cpuset *cs) {
        char base[PATH_LEN], dir[PATH_LEN];

        if (!cs->daemon_from[0])
                return;
        snprintf(base, sizeof(base), "%s%s", cs->root, cs->daemon_from);
        snprintf(dir, sizeof(dir), "%s%s/" DAEMON_DIR, cs->root, cs->daemon_from);
        if (cpuset_write_file(base, "cgroup.procs", "0") >= 0)
                (void)rmdir(dir);
        cs->daemon_from[0] = 0;
}

/* cgroup.subtree_control of every level from the root down to B lists cpuset. */
static int enable_cpuset(struct cpuset *cs) {
        uint32_t n = n_levels(cs);
        char dir[PATH_LEN], list[1024];
        int r;

        if (n > ELEMENTSOF(cs->base_enabled))
                return log_error_errno(ENAMETOOLONG, "rtfd's cgroup %s is nested too deep", cs->base);
        for (uint32_t l = 0; l < n; l++) {
                if (!level_path(cs, l, dir, sizeof(dir)))
                        return -EINVAL;
                cs->n_enabled = l + 1;
                r = cpuset_read_file(dir, "cgroup.subtree_control", list, sizeof(list));
                if (r < 0)
                        return log_error_errno(r, "Failed to read %s/cgroup.subtree_control: %m", dir);
                if (cgroup_list_has(list, "cpuset"))
                        continue;
                r = cpuset_write_file(dir, "cgroup.subtree_control", "+cpuset");
                if (r < 0)
                        return log_error_errno(r, "Failed to enable the cpuset controller in %s/cgroup.subtree_control "
                                               "(under systemd: Delegate=cpuset in rtfd.service): %m", dir);
                cs->base_enabled[l] = true;
        }
        return 0;
}

/* Each level below the root passes the partitioned CPUs down. */
static int exclusive_set(struct cpuset *cs, const char *cpus) {
        char dir[PATH_LEN], old[4096], both[8192];
        uint32_t n = n_levels(cs);
        int r;

        for (uint32_t l = 1; l <= n; l++) {
                if (l < n) {
                        if (!level_path(cs, l, dir, sizeof(dir)))
                                return -EINVAL;
                } else
                        rtf_path(cs, dir, sizeof(dir));
                r = cpuset_read_file(dir, "cpuset.cpus.exclusive", old, sizeof(old));
                if (r == -ENOENT)
                        return log_error_errno(r, "%s has no cpuset.cpus.exclusive: cpuset partitions below the root "
                                               "need Linux 6.7 or later", dir);
                if (r < 0)
                        return log_error_errno(r, "Failed to read %s/cpuset.cpus.exclusive: %m", dir);
                snprintf(both, sizeof(both), "%s%s%s", old, old[0] ? "," : "", cpus);
                r = cpuset_write_file(dir, "cpuset.cpus.exclusive", both);
                if (r < 0)
                        return log_error_errno(r, "Failed to give CPU %s to %s (cpuset.cpus.exclusive; does a sibling "
                                               "hold them exclusively?): %m", cpus, dir);
        }
        return 0;
}

static int make_partition(struct cpuset *cs, uint32_t c) {
        char dir[PATH_LEN], cpu[16], state[256];
        int r;

        cpu_path(cs, c, dir, sizeof(dir));
        snprintf(cpu, sizeof(cpu), "%" PRIu32, c);
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return log_error_errno(errno, "Failed to create cgroup %s: %m", dir);
        if ((r = cpuset_write_file(dir, "cgroup.type", "threaded")) < 0 ||
            (r = cpuset_write_file(dir, "cpuset.cpus", cpu)) < 0 ||
            (!cs->v2_flat && (r = cpuset_write_file(dir, "cpuset.cpus.exclusive", cpu)) < 0) ||
            (r = cpuset_write_file(dir, "cpuset.cpus.partition", "root")) < 0)
                return log_error_errno(r, "Failed to make %s a cpuset partition of CPU %s: %m", dir, cpu);
        /* The write succeeds even when the kernel cannot make the partition:
         * the file then reads "root invalid (reason)". */
        r = cpuset_read_file(dir, "cpuset.cpus.partition", state, sizeof(state));
        if (r < 0)
                return log_error_errno(r, "Failed to read %s/cpuset.cpus.partition: %m", dir);
        if (strcmp(state, "root") != 0)
                return log_error_errno(EINVAL, "The kernel did not make %s a partition: cpuset.cpus.partition "
                                       "reads \"%s\"", dir, state);
        return 0;
}

/* The kernel has no remote partitions (before 6.7): undo rtf/ and what was
 * enabled for it below the root, and make the partitions children of the root. */
static int use_flat_layout(struct cpuset *cs, const char *rtf) {
        if (rmdir(rtf) < 0)
                return log_error_errno(errno, "Failed to remove cgroup %s: %m", rtf);
        subtree_restore(cs);
        if (cs->base[0])
                log_notice("No cpuset.cpus.exclusive (Linux < 6.7): cpuset partitions cannot be below rtfd's "
                           "cgroup %s, they are made at the top of the cgroup v2 hierarchy", cs->base);
        cs->base[0] = 0;
        cs->v2_flat = true;
        log_info("cpusets: no cpuset.cpus.exclusive (Linux < 6.7, no remote partitions): each partition is a "
                 "threaded child of the root cgroup, %s/" FLAT_PREFIX "N; a process with a partitioned thread "
                 "moves to the root cgroup", cs->root);
        return enable_cpuset(cs);
}

int cpuset_v2_setup(struct cpuset *cs) {
        char rtf[PATH_LEN], cpus[4096], rest[4096];
        int r;

        cs->active = true;      /* from here on, teardown removes what exists */
        r = daemon_leave_base(cs);
        if (r < 0)
                return r;
        r = enable_cpuset(cs);
        if (r < 0)
                return r;
        rtf_path(cs, rtf, sizeof(rtf));
        if (mkdir(rtf, 0755) < 0 && errno != EEXIST)
                return log_error_errno(errno, "Failed to create cgroup %s: %m", rtf);
        cpuset_cpu_list(cpus, sizeof(cpus), cs, true);
        if (cpuset_read_file(rtf, "cpuset.cpus.exclusive", rest, sizeof(rest)) == -ENOENT) {
                r = use_flat_layout(cs, rtf);
                if (r < 0)
                        return r;
        } else {
                r = cpuset_write_file(rtf, "cgroup.subtree_control", "+cpuset");
                if (r < 0)
                        return log_error_errno(r, "Failed to enable the cpuset controller in %s: %m", rtf);
                r = exclusive_set(cs, cpus);
                if (r < 0)
                        return r;
        }
        for (uint32_t c = 0; c < cs->n_cpus; c++)
                if (cs->partitioned[c] && (r = make_partition(cs, c)) < 0)
                        return r;
        cpuset_cpu_list(rest, sizeof(rest), cs, false);
        if (cs->v2_flat)
                log_info("SCHED_DEADLINE partitions (cgroup v2 cpuset partitions, root domains) on CPU %s as %s/"
                         FLAT_PREFIX "N; the rest of the system keeps CPU %s where it is", cpus, cs->root, rest);
        else
                log_info("SCHED_DEADLINE partitions (cgroup v2 cpuset partitions, root domains) on CPU %s under %s; "
                         "the rest of the system keeps CPU %s where it is", cpus, rtf, rest);
        return 0;
}

void cpuset_v2_teardown(struct cpuset *cs) {
        remove_tree(cs);
        exclusive_clear(cs);
        subtree_restore(cs);
        daemon_return_to_base(cs);
}

/* Whether a thread of `pid` other than `tid` is still in a partition. */
static bool has_partitioned_thread(const struct cpuset *cs, pid_t pid, pid_t tid) {
        char dir[64], task[512], cg[PATH_LEN], prefix[PATH_LEN];
        struct dirent *de;
        bool found = false;
        size_t n;
        DIR *d;

        n = partition_cgroup_prefix(cs, prefix, sizeof(prefix));
        snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
        d = opendir(dir);
        if (!d)
                return false;
        while (!found && (de = readdir(d))) {
                if (de->d_name[0] == '.' || atoi(de->d_name) == tid)
                        continue;
                snprintf(task, sizeof(task), "%s/%s", dir, de->d_name);
                found = cgroup_of(task, cg, sizeof(cg)) >= 0 && strncmp(cg, prefix, n) == 0;
        }
        closedir(d);
        return found;
}

/*
 * Before 6.7 the kernel gives a task that joins the root cgroup every
 * possible CPU as its affinity (cpuset_attach(), top_cpuset), partitioned
 * ones included; any other cgroup gives its effective CPUs.  The threads of a
 * process moved to the root for the flat layout get what the root's
 * partitions leave, as they would in any other cgroup.
 */
static void flat_confine_process(const struct cpuset *cs, pid_t pid) {
        char dir[64], task[512], cg[PATH_LEN];
        struct dirent *de;
        cpu_set_t rest;
        DIR *d;

        CPU_ZERO(&rest);
        for (uint32_t c = 0; c < cs->n_cpus && c < CPU_SETSIZE; c++)
                if (!cs->partitioned[c])
                        CPU_SET(c, &rest);
        snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
        d = opendir(dir);
        if (!d)
                return;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                snprintf(task, sizeof(task), "%s/%s", dir, de->d_name);
                if (cgroup_of(task, cg, sizeof(cg)) >= 0 && strcmp(cg, "/") == 0)
                        sched_setaffinity(atoi(de->d_name), sizeof(rest), &rest);
        }
        closedir(d);
}

int cpuset_v2_move_thread(struct cpuset *cs, pid_t tid, int cpu) {
        char rtf[PATH_LEN], dir[PATH_LEN], proc[64], origin[PATH_LEN];
        struct cpuset_origin *o;
        pid_t pid;
        int r;

        r = tgid_of(tid, &pid);
        if (r < 0)
                return r;
        domain_path(cs, rtf, sizeof(rtf));
        o = origin_find(cs, pid);
        if (o && !origin_valid(cs, o)) {
                origin_forget(cs, o);
                o = NULL;
        }
        if (cpu < 0) {
                if (!o)
                        return 0;       /* never moved: nothing to undo */
                r = write_id(rtf, "cgroup.threads", tid);
                if (r < 0 || has_partitioned_thread(cs, pid, tid))
                        return r;
                snprintf(dir, sizeof(dir), "%s%s", cs->root, o->path);
                r = write_id(dir, "cgroup.procs", pid);
                if (r == -ENOENT)       /* its cgroup went away meanwhile */
                        r = write_id(cs->root, "cgroup.procs", pid);
                origin_forget(cs, o);
                return r;
        }
        if (!o) {
                struct cpuset_origin *grown;

                if (cs->n_origins >= CPUSET_MAX_ORIGINS)
                        origins_prune(cs);
                if (cs->n_origins >= CPUSET_MAX_ORIGINS)
                        return log_error_errno(ENOSPC, "More than %d processes with threads in cpuset partitions",
                                               CPUSET_MAX_ORIGINS);
                snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
                r = cgroup_of(proc, origin, sizeof(origin));
                if (r < 0)
                        return r;
                grown = reallocarray(cs->origins, cs->n_origins + 1, sizeof(*grown));
                if (!grown)
                        return -ENOMEM;
                cs->origins = grown;
                o = &cs->origins[cs->n_origins];
                o->pid = pid;
                o->path = strdup(origin);
                if (!o->path)
                        return -ENOMEM;
                r = write_id(rtf, "cgroup.procs", pid);
                if (r < 0) {
                        free(o->path);
                        return r;
                }
                cs->n_origins++;
                if (cs->v2_flat)
                        flat_confine_process(cs, pid);
        }
        cpu_path(cs, (uint32_t)cpu, dir, sizeof(dir));
        return write_id(dir, "cgroup.threads", tid);
}

int cpuset_v2_rebuild_root_domains(struct cpuset *cs) {
        char dir[PATH_LEN];
        int r;

        /* A partition that changes type makes the kernel rebuild the root
         * domains and recount the DEADLINE bandwidth of the tasks that exist.
         * Without partitions, v2 has nothing rtfd may toggle. */
        if (!cs->active)
                return -EOPNOTSUPP;
        for (uint32_t c = 0; c < cs->n_cpus; c++) {
                if (!cs->partitioned[c])
                        continue;
                cpu_path(cs, c, dir, sizeof(dir));
                r = cpuset_write_file(dir, "cpuset.cpus.partition", "isolated");
                if (r >= 0)
                        r = cpuset_write_file(dir, "cpuset.cpus.partition", "root");
                if (r < 0)
                        return r;
        }
        return 0;
}
