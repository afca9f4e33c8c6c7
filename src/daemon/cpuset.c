/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which cgroup version's cpusets rtfd uses, the one-owner lock, and what
 * both versions share (cpuset.h).  The partitions themselves are made by
 * cpuset-v1.c or cpuset-v2.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cgroup-parse.h"
#include "cpuset-private.h"
#include "log.h"

#define MOUNTINFO_MAX (1u << 20)

int cpuset_write_file(const char *dir, const char *name, const char *value) {
        char path[1024];
        int fd, r = 0;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (write(fd, value, strlen(value)) < 0)
                r = -errno;
        close(fd);
        return r;
}

int cpuset_read_file(const char *dir, const char *name, char *buf, size_t size) {
        char path[1024];
        ssize_t n;
        int fd;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        n = read(fd, buf, size - 1);
        close(fd);
        if (n < 0)
                return -errno;
        buf[n] = 0;
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
                buf[--n] = 0;
        return 0;
}

void cpuset_cpu_list(char *buf, size_t size, const struct cpuset *cs, bool partitioned) {
        size_t len = 0;

        buf[0] = 0;
        for (uint32_t c = 0; c < cs->n_cpus && len + 12 < size; c++)
                if (cs->partitioned[c] == partitioned)
                        len += snprintf(buf + len, size - len, "%s%" PRIu32, len ? "," : "", c);
}

static int read_whole(const char *path, char *buf, size_t size, size_t *ret_len) {
        size_t len = 0;
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        if (fd < 0)
                return -errno;
        for (;;) {
                ssize_t n = read(fd, buf + len, size - len);

                if (n < 0) {
                        n = -errno;
                        close(fd);
                        return (int)n;
                }
                if (n == 0)
                        break;
                len += (size_t)n;
                if (len == size) {
                        close(fd);
                        return -EFBIG;
                }
        }
        close(fd);
        *ret_len = len;
        return 0;
}

/* v2 owns the controller when it is listed in the root's cgroup.controllers. */
static bool v2_has_cpuset(const char *mount) {
        char list[1024];

        return cpuset_read_file(mount, "cgroup.controllers", list, sizeof(list)) >= 0 &&
                cgroup_list_has(list, "cpuset");
}

/* The cgroup rtfd runs in, relative to the v2 mount: "" for the root. */
static int own_v2_cgroup(char *ret, size_t size) {
        char buf[4096];
        size_t len = 0;
        int r = read_whole("/proc/self/cgroup", buf, sizeof(buf), &len);

        if (r >= 0)
                r = cgroup_parse_v2_path(buf, len, ret, size);
        if (r < 0)
                return r;
        if (strcmp(ret, "/") == 0)
                ret[0] = 0;
        return 0;
}

/* systemd marks the cgroup of a unit with Delegate= by this extended
 * attribute (systemd.resource-control(5), "Delegate="); below any other
 * cgroup of its tree rtfd would be making cgroups behind systemd's back. */
static bool delegated(const char *mount, const char *cgroup) {
        char path[1100], value[8];
        ssize_t n;

        snprintf(path, sizeof(path), "%s%s", mount, cgroup);
        n = getxattr(path, "trusted.delegate", value, sizeof(value) - 1);
        if (n <= 0)
                return false;
        value[n] = 0;
        return value[0] == '1';
}

/*
 * Fill cs->version, root and base: an explicit root by its file system's
 * type, otherwise the hierarchy that owns the cpuset controller according
 * to mountinfo.  A controller is bound to one hierarchy at a time: v1 when a
 * v1 hierarchy was mounted with it, else the unified one.  Logs the choice.
 */
static int select_version(struct cpuset *cs, const char *root, bool any_wanted) {
        struct cgroup_mounts m = { "", "" };
        struct statfs sfs;
        int r;

        if (root) {
                if (statfs(root, &sfs) < 0 ||
                    (sfs.f_type != CGROUP_SUPER_MAGIC && sfs.f_type != CGROUP2_SUPER_MAGIC)) {
                        if (any_wanted)
                                log_notice("%s is not a cgroup file system: SCHED_DEADLINE runs in global mode", root);
                        return CPUSET_E_UNAVAILABLE;
                }
                if (sfs.f_type == CGROUP_SUPER_MAGIC)
                        snprintf(m.v1_cpuset, sizeof(m.v1_cpuset), "%s", root);
                else
                        snprintf(m.v2, sizeof(m.v2), "%s", root);
        } else {
                _cleanup_(freep) char *buf = malloc(MOUNTINFO_MAX);
                size_t len = 0;

                if (!buf)
                        return -ENOMEM;
                r = read_whole("/proc/self/mountinfo", buf, MOUNTINFO_MAX, &len);
                if (r >= 0)
                        r = cgroup_parse_mountinfo(buf, len, &m);
                if (r < 0)
                        return log_error_errno(r, "Failed to read /proc/self/mountinfo: %m");
        }

        if (m.v1_cpuset[0]) {
                char cpus[16];

                if (cpuset_read_file(m.v1_cpuset, "cpuset.cpus", cpus, sizeof(cpus)) < 0) {
                        if (any_wanted)
                                log_notice("No cgroup v1 cpuset hierarchy at %s: SCHED_DEADLINE runs in global mode",
                                           m.v1_cpuset);
                        return CPUSET_E_UNAVAILABLE;
                }
                cs->version = CPUSET_V1;
                snprintf(cs->root, sizeof(cs->root), "%s", m.v1_cpuset);
                log_info("cpusets: cgroup v1 at %s (%s)", cs->root,
                         root ? "--cpuset-root" : "a v1 hierarchy owns the cpuset controller");
                return 0;
        }
        if (m.v2[0] && v2_has_cpuset(m.v2)) {
                char base[sizeof(cs->base)];

                r = own_v2_cgroup(base, sizeof(base));
                if (r < 0)
                        return log_error_errno(r, "Failed to find rtfd's own cgroup in /proc/self/cgroup: %m");
                if (base[0] && !delegated(m.v2, base)) {
                        log_notice("rtfd's cgroup %s is not delegated to it (no Delegate= in its unit): the cpuset "
                                   "partitions are made at the top of the cgroup v2 hierarchy", base);
                        base[0] = 0;
                }
                cs->version = CPUSET_V2;
                snprintf(cs->root, sizeof(cs->root), "%s", m.v2);
                snprintf(cs->base, sizeof(cs->base), "%s", base);
                log_info("cpusets: cgroup v2 partitions under %s%s/rtf (%s)", cs->root, cs->base,
                         root ? "--cpuset-root" : "the unified hierarchy owns the cpuset controller");
                return 0;
        }
        if (any_wanted) {
                if (m.v2[0])
                        log_notice("No cpuset controller: no cgroup v1 cpuset hierarchy is mounted and %s/cgroup.controllers "
                                   "does not list cpuset (held by a v1 hierarchy that is not mounted here?): "
                                   "SCHED_DEADLINE runs in global mode", m.v2);
                else
                        log_notice("No cgroup file system with the cpuset controller is mounted: "
                                   "SCHED_DEADLINE runs in global mode");
        }
        return CPUSET_E_UNAVAILABLE;
}

int cpuset_plan(struct cpuset *cs, uint32_t n_cpus, const bool *want, bool any_wanted) {
        uint32_t n_want = 0;

        cs->n_cpus = MIN(n_cpus, (uint32_t)CPUSET_MAX_CPUS);
        cs->active = false;
        memset(cs->partitioned, 0, sizeof(cs->partitioned));
        for (uint32_t c = 0; c < cs->n_cpus && any_wanted; c++)
                n_want += want[c];
        if (n_want == 0)
                return 0;
        if (n_want >= cs->n_cpus) {
                log_notice("Partitioning all %" PRIu32 " CPUs would leave none for the rest of the system: "
                           "SCHED_DEADLINE runs in global mode", cs->n_cpus);
                return CPUSET_E_NO_CPU_LEFT;
        }
        for (uint32_t c = 0; c < cs->n_cpus; c++)
                cs->partitioned[c] = want[c];
        cs->active = true;
        return 0;
}

int cpuset_setup(struct cpuset *cs, const char *root, uint32_t n_cpus,
                 const bool *want, bool any_wanted) {
        struct cpuset plan = CPUSET_NULL;
        int r;

        *cs = CPUSET_NULL;
        cs->n_cpus = MIN(n_cpus, (uint32_t)CPUSET_MAX_CPUS);

        r = select_version(cs, root, any_wanted);
        if (r != 0)
                return r;
        cs->lock_fd = open(CPUSET_LOCK_FILE, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (cs->lock_fd < 0) {
                r = -errno;
                if (r == -EACCES || r == -EPERM)
                        return log_error_errno(r, "Cannot open the cpuset lock file %s: %m. Only root may partition "
                                               "CPUs: run rtfd as root", CPUSET_LOCK_FILE);
                return log_error_errno(r, "Failed to open %s: %m", CPUSET_LOCK_FILE);
        }
        if (flock(cs->lock_fd, LOCK_EX | LOCK_NB) < 0) {
                r = -errno;
                cs->lock_fd = safe_close(cs->lock_fd);
                if (r != -EWOULDBLOCK)
                        return log_error_errno(r, "Failed to lock %s: %m", CPUSET_LOCK_FILE);
                if (any_wanted)
                        log_notice("Another rtfd owns the cpuset partitions: SCHED_DEADLINE runs in global mode");
                return CPUSET_E_BUSY;
        }
        /* Nobody owns the rtf cgroups that exist: a crashed rtfd left them. */
        if (cs->version == CPUSET_V1)
                cpuset_v1_cleanup_stale(cs->root);
        else
                cpuset_v2_cleanup_stale(cs);

        r = cpuset_plan(&plan, n_cpus, want, any_wanted);
        if (r != 0 || !plan.active) {
                cs->lock_fd = safe_close(cs->lock_fd);
                return r;
        }
        memcpy(cs->partitioned, plan.partitioned, sizeof(cs->partitioned));
        r = cs->version == CPUSET_V1 ? cpuset_v1_setup(cs) : cpuset_v2_setup(cs);
        if (r < 0)
                cpuset_teardown(cs);
        /* v2 partitions depend on what else holds exclusive CPUs and on the
         * kernel version (the reason is logged above): rtfd starts all the
         * same, without pinning, and says so. */
        if (r < 0 && cs->version == CPUSET_V2) {
                log_error("No cgroup v2 cpuset partitions: SCHED_DEADLINE runs in global mode");
                return CPUSET_E_UNAVAILABLE;
        }
        return r;
}

void cpuset_teardown(struct cpuset *cs) {
        if (cs->active) {
                if (cs->version == CPUSET_V1)
                        cpuset_v1_teardown(cs);
                else if (cs->version == CPUSET_V2)
                        cpuset_v2_teardown(cs);
                log_info("SCHED_DEADLINE partitions removed");
        }
        for (size_t i = 0; i < cs->n_origins; i++)
                free(cs->origins[i].path);
        free(cs->origins);
        cs->origins = NULL;
        cs->n_origins = 0;
        cs->active = false;
        memset(cs->partitioned, 0, sizeof(cs->partitioned));
        cs->lock_fd = safe_close(cs->lock_fd);
}

int cpuset_move_thread(struct cpuset *cs, pid_t tid, int cpu) {
        if (!cs->active)
                return 0;
        if (cpu >= 0 && ((uint32_t)cpu >= cs->n_cpus || !cs->partitioned[cpu]))
                return -EINVAL;
        return cs->version == CPUSET_V2 ? cpuset_v2_move_thread(cs, tid, cpu) : cpuset_v1_move_thread(cs, tid, cpu);
}

int cpuset_rebuild_root_domains(struct cpuset *cs, const char *root) {
        if (cs->version == CPUSET_V2)
                return cpuset_v2_rebuild_root_domains(cs);
        if (!cs->active && !root)
                root = cs->root[0] ? cs->root : NULL;
        if (!cs->active && !root)
                return -EOPNOTSUPP;
        return cpuset_v1_rebuild_root_domains(cs, root);
}
