/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpuset.h"
#include "log.h"

#define SYSTEM_SET "rtf-system"

static int write_file(const char *dir, const char *name, const char *value) {
        char path[512];
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

static int read_file(const char *dir, const char *name, char *buf, size_t size) {
        char path[512];
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

/* Move every thread listed in from/tasks into to/tasks; kernel threads that
 * may not move are left where they are. */
static unsigned move_all_tasks(const char *from, const char *to) {
        char path[512], line[32];
        unsigned moved = 0;
        FILE *f;

        snprintf(path, sizeof(path), "%s/tasks", from);
        f = fopen(path, "re");
        if (!f)
                return 0;
        while (fgets(line, sizeof(line), f)) {
                line[strcspn(line, "\n")] = 0;
                if (write_file(to, "tasks", line) >= 0)
                        moved++;
        }
        fclose(f);
        return moved;
}

static void cpu_list(char *buf, size_t size, const struct cpuset *cs, bool partitioned) {
        size_t len = 0;

        buf[0] = 0;
        for (uint32_t c = 0; c < cs->n_cpus && len + 12 < size; c++)
                if (cs->partitioned[c] == partitioned)
                        len += snprintf(buf + len, size - len, "%s%" PRIu32, len ? "," : "", c);
}

/* Tasks that are exiting cannot be moved but keep the cpuset busy until they
 * are gone, and tasks forked meanwhile land in it: retry for a while. */
#define REMOVE_TRIES 100
#define REMOVE_RETRY_USEC 10000

static void remove_set(const char *root, const char *name) {
        char dir[512];
        int r = 0;

        snprintf(dir, sizeof(dir), "%s/%s", root, name);
        for (int i = 0; i < REMOVE_TRIES; i++) {
                move_all_tasks(dir, root);
                r = rmdir(dir) < 0 ? -errno : 0;
                if (r != -EBUSY)
                        break;
                usleep(REMOVE_RETRY_USEC);
        }
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "Failed to remove cpuset %s: %m", dir);
}

void cpuset_cleanup_stale(const char *root) {
        struct dirent *de;
        DIR *d;
        bool found = false;

        d = opendir(root);
        if (!d)
                return;
        while ((de = readdir(d))) {
                if (de->d_type != DT_DIR || strncmp(de->d_name, "rtf-", 4) != 0)
                        continue;
                if (!found)
                        log_notice("Removing cpusets left by an earlier rtfd under %s", root);
                found = true;
                remove_set(root, de->d_name);
        }
        closedir(d);
        if (found)
                write_file(root, "cpuset.sched_load_balance", "1");
}

int cpuset_setup(struct cpuset *cs, const char *root, uint32_t n_cpus,
                 const bool *want, bool any_wanted) {
        char buf[4096], mems[256], dir[512];
        uint32_t n_want = 0;
        int r;

        *cs = CPUSET_NULL;
        snprintf(cs->root, sizeof(cs->root), "%s", root);
        cs->n_cpus = MIN(n_cpus, (uint32_t)CPUSET_MAX_CPUS);

        if (read_file(root, "cpuset.cpus", buf, sizeof(buf)) < 0 ||
            read_file(root, "cpuset.mems", mems, sizeof(mems)) < 0) {
                if (any_wanted)
                        log_notice("No cgroup v1 cpuset hierarchy at %s: SCHED_DEADLINE runs in global mode", root);
                return CPUSET_E_UNAVAILABLE;
        }
        cs->lock_fd = open(CPUSET_LOCK_FILE, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (cs->lock_fd < 0)
                return log_error_errno(errno, "Failed to open %s: %m", CPUSET_LOCK_FILE);
        if (flock(cs->lock_fd, LOCK_EX | LOCK_NB) < 0) {
                cs->lock_fd = safe_close(cs->lock_fd);
                if (errno != EWOULDBLOCK)
                        return log_error_errno(errno, "Failed to lock %s: %m", CPUSET_LOCK_FILE);
                if (any_wanted)
                        log_notice("Another rtfd owns the cpuset partitions: SCHED_DEADLINE runs in global mode");
                return CPUSET_E_BUSY;
        }
        /* Nobody owns the rtf cpusets that exist: a crashed rtfd left them. */
        cpuset_cleanup_stale(root);

        for (uint32_t c = 0; c < cs->n_cpus && any_wanted; c++)
                n_want += want[c];
        if (n_want == 0) {
                cs->lock_fd = safe_close(cs->lock_fd);
                return 0;
        }
        if (n_want >= cs->n_cpus) {
                cs->lock_fd = safe_close(cs->lock_fd);
                log_notice("Partitioning all %" PRIu32 " CPUs would leave none for the rest of the system: "
                           "SCHED_DEADLINE runs in global mode", cs->n_cpus);
                return CPUSET_E_NO_CPU_LEFT;
        }

        r = read_file(root, "cpuset.sched_load_balance", buf, sizeof(buf));
        if (r < 0)
                return log_error_errno(r, "Failed to read %s/cpuset.sched_load_balance: %m", root);
        cs->saved_load_balance = buf[0] == '1';

        for (uint32_t c = 0; c < cs->n_cpus; c++)
                cs->partitioned[c] = want[c];

        /* First the balanced home of everything else, then the partitions. */
        snprintf(dir, sizeof(dir), "%s/" SYSTEM_SET, root);
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return log_error_errno(errno, "Failed to create cpuset %s: %m", dir);
        cpu_list(buf, sizeof(buf), cs, false);
        if ((r = write_file(dir, "cpuset.cpus", buf)) < 0 ||
            (r = write_file(dir, "cpuset.mems", mems)) < 0) {
                log_error_errno(r, "Failed to configure cpuset %s: %m", dir);
                goto fail;
        }
        for (uint32_t c = 0; c < cs->n_cpus; c++) {
                char cpu[16];

                if (!cs->partitioned[c])
                        continue;
                snprintf(dir, sizeof(dir), "%s/rtf-cpu%" PRIu32, root, c);
                snprintf(cpu, sizeof(cpu), "%" PRIu32, c);
                if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
                        r = log_error_errno(errno, "Failed to create cpuset %s: %m", dir);
                        goto fail;
                }
                if ((r = write_file(dir, "cpuset.cpus", cpu)) < 0 ||
                    (r = write_file(dir, "cpuset.mems", mems)) < 0 ||
                    (r = write_file(dir, "cpuset.cpu_exclusive", "1")) < 0 ||
                    (r = write_file(dir, "cpuset.sched_load_balance", "1")) < 0) {
                        log_error_errno(r, "Failed to configure cpuset %s: %m", dir);
                        goto fail;
                }
        }
        cs->active = true;

        /* Twice: processes forked while the first pass ran are caught by the second. */
        snprintf(dir, sizeof(dir), "%s/" SYSTEM_SET, root);
        move_all_tasks(root, dir);
        move_all_tasks(root, dir);
        r = write_file(root, "cpuset.sched_load_balance", "0");
        if (r < 0) {
                log_error_errno(r, "Failed to turn off load balancing at the cpuset root: %m");
                goto fail;
        }
        cpu_list(buf, sizeof(buf), cs, true);
        log_info("SCHED_DEADLINE partitions (root domains) on CPU %s; the rest of the system runs in %s", buf, dir);
        return 0;
fail:
        cpuset_teardown(cs);
        return r;
}

void cpuset_teardown(struct cpuset *cs) {
        if (!cs->active && !cs->root[0])
                return;
        if (cs->active) {
                write_file(cs->root, "cpuset.sched_load_balance", cs->saved_load_balance ? "1" : "0");
                for (uint32_t c = 0; c < cs->n_cpus; c++) {
                        char name[32];

                        if (!cs->partitioned[c])
                                continue;
                        snprintf(name, sizeof(name), "rtf-cpu%" PRIu32, c);
                        remove_set(cs->root, name);
                }
                remove_set(cs->root, SYSTEM_SET);
                log_info("SCHED_DEADLINE partitions removed");
        }
        cs->active = false;
        memset(cs->partitioned, 0, sizeof(cs->partitioned));
        cs->lock_fd = safe_close(cs->lock_fd);
}

int cpuset_move_thread(struct cpuset *cs, pid_t tid, int cpu) {
        char dir[512], id[32];

        if (!cs->active)
                return 0;
        if (cpu >= 0 && ((uint32_t)cpu >= cs->n_cpus || !cs->partitioned[cpu]))
                return -EINVAL;
        if (cpu >= 0)
                snprintf(dir, sizeof(dir), "%s/rtf-cpu%d", cs->root, cpu);
        else
                snprintf(dir, sizeof(dir), "%s/" SYSTEM_SET, cs->root);
        snprintf(id, sizeof(id), "%d", (int)tid);
        return write_file(dir, "tasks", id);
}

int cpuset_rebuild_root_domains(struct cpuset *cs, const char *root) {
        char dir[512];
        int r;

        /* Any change of sched_load_balance makes the kernel rebuild the root
         * domains below it and recount the DEADLINE bandwidth of the tasks that
         * really exist.  With partitions, only the partitions are toggled, so
         * that no pinned DEADLINE thread ever sees a domain wider than its CPU. */
        if (!cs->active) {
                r = write_file(root, "cpuset.sched_load_balance", "0");
                if (r < 0)
                        return r;
                return write_file(root, "cpuset.sched_load_balance", "1");
        }
        for (uint32_t c = 0; c < cs->n_cpus; c++) {
                if (!cs->partitioned[c])
                        continue;
                snprintf(dir, sizeof(dir), "%s/rtf-cpu%" PRIu32, cs->root, c);
                r = write_file(dir, "cpuset.sched_load_balance", "0");
                if (r >= 0)
                        r = write_file(dir, "cpuset.sched_load_balance", "1");
                if (r < 0)
                        return r;
        }
        return 0;
}
