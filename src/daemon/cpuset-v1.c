/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cgroup v1 cpuset partitions (cpuset.h). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpuset-private.h"
#include "log.h"

#define SYSTEM_SET "rtf-system"

/* Move every thread listed in from/tasks into to/tasks; kernel threads that
 * may not move are left where they are. */
static unsigned move_all_tasks(const char *from, const char *to) {
        char path[1024], line[32];
        unsigned moved = 0;
        FILE *f;

        snprintf(path, sizeof(path), "%s/tasks", from);
        f = fopen(path, "re");
        if (!f)
                return 0;
        while (fgets(line, sizeof(line), f)) {
                line[strcspn(line, "\n")] = 0;
                if (cpuset_write_file(to, "tasks", line) >= 0)
                        moved++;
        }
        fclose(f);
        return moved;
}

static void remove_set(const char *root, const char *name) {
        char dir[1024];
        int r = 0;

        snprintf(dir, sizeof(dir), "%s/%s", root, name);
        for (int i = 0; i < CPUSET_REMOVE_TRIES; i++) {
                move_all_tasks(dir, root);
                r = rmdir(dir) < 0 ? -errno : 0;
                if (r != -EBUSY)
                        break;
                usleep(CPUSET_REMOVE_RETRY_USEC);
        }
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "Failed to remove cpuset %s: %m", dir);
}

void cpuset_v1_cleanup_stale(const char *root) {
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
                cpuset_write_file(root, "cpuset.sched_load_balance", "1");
}

int cpuset_v1_setup(struct cpuset *cs) {
        char buf[4096], mems[256], dir[1024];
        const char *root = cs->root;
        int r;

        r = cpuset_read_file(root, "cpuset.mems", mems, sizeof(mems));
        if (r < 0)
                return log_error_errno(r, "Failed to read %s/cpuset.mems: %m", root);
        r = cpuset_read_file(root, "cpuset.sched_load_balance", buf, sizeof(buf));
        if (r < 0)
                return log_error_errno(r, "Failed to read %s/cpuset.sched_load_balance: %m", root);
        cs->saved_load_balance = buf[0] == '1';

        /* First the balanced home of everything else, then the partitions. */
        snprintf(dir, sizeof(dir), "%s/" SYSTEM_SET, root);
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return log_error_errno(errno, "Failed to create cpuset %s: %m", dir);
        cs->active = true;      /* from here on, teardown removes what exists */
        cpuset_cpu_list(buf, sizeof(buf), cs, false);
        if ((r = cpuset_write_file(dir, "cpuset.cpus", buf)) < 0 ||
            (r = cpuset_write_file(dir, "cpuset.mems", mems)) < 0) {
                log_error_errno(r, "Failed to configure cpuset %s: %m", dir);
                return r;
        }
        for (uint32_t c = 0; c < cs->n_cpus; c++) {
                char cpu[16];

                if (!cs->partitioned[c])
                        continue;
                snprintf(dir, sizeof(dir), "%s/rtf-cpu%" PRIu32, root, c);
                snprintf(cpu, sizeof(cpu), "%" PRIu32, c);
                if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                        return log_error_errno(errno, "Failed to create cpuset %s: %m", dir);
                if ((r = cpuset_write_file(dir, "cpuset.cpus", cpu)) < 0 ||
                    (r = cpuset_write_file(dir, "cpuset.mems", mems)) < 0 ||
                    (r = cpuset_write_file(dir, "cpuset.cpu_exclusive", "1")) < 0 ||
                    (r = cpuset_write_file(dir, "cpuset.sched_load_balance", "1")) < 0)
                        return log_error_errno(r, "Failed to configure cpuset %s: %m", dir);
        }

        /* Twice: processes forked while the first pass ran are caught by the second. */
        snprintf(dir, sizeof(dir), "%s/" SYSTEM_SET, root);
        move_all_tasks(root, dir);
        move_all_tasks(root, dir);
        r = cpuset_write_file(root, "cpuset.sched_load_balance", "0");
        if (r < 0)
                return log_error_errno(r, "Failed to turn off load balancing at the cpuset root: %m");
        cpuset_cpu_list(buf, sizeof(buf), cs, true);
        log_info("SCHED_DEADLINE partitions (root domains) on CPU %s; the rest of the system runs in %s", buf, dir);
        return 0;
}

void cpuset_v1_teardown(struct cpuset *cs) {
        cpuset_write_file(cs->root, "cpuset.sched_load_balance", cs->saved_load_balance ? "1" : "0");
        for (uint32_t c = 0; c < cs->n_cpus; c++) {
                char name[32];

                if (!cs->partitioned[c])
                        continue;
                snprintf(name, sizeof(name), "rtf-cpu%" PRIu32, c);
                remove_set(cs->root, name);
        }
        remove_set(cs->root, SYSTEM_SET);
}

int cpuset_v1_move_thread(struct cpuset *cs, pid_t tid, int cpu) {
        char dir[1024], id[32];

        if (cpu >= 0)
                snprintf(dir, sizeof(dir), "%s/rtf-cpu%d", cs->root, cpu);
        else
                snprintf(dir, sizeof(dir), "%s/" SYSTEM_SET, cs->root);
        snprintf(id, sizeof(id), "%d", (int)tid);
        return cpuset_write_file(dir, "tasks", id);
}

int cpuset_v1_rebuild_root_domains(struct cpuset *cs, const char *root) {
        char dir[1024];
        int r;

        /* Any change of sched_load_balance makes the kernel rebuild the root
         * domains below it and recount the DEADLINE bandwidth of the tasks that
         * really exist.  With partitions, only the partitions are toggled, so
         * that no pinned DEADLINE thread ever sees a domain wider than its CPU. */
        if (!cs->active) {
                r = cpuset_write_file(root, "cpuset.sched_load_balance", "0");
                if (r < 0)
                        return r;
                return cpuset_write_file(root, "cpuset.sched_load_balance", "1");
        }
        for (uint32_t c = 0; c < cs->n_cpus; c++) {
                if (!cs->partitioned[c])
                        continue;
                snprintf(dir, sizeof(dir), "%s/rtf-cpu%" PRIu32, cs->root, c);
                r = cpuset_write_file(dir, "cpuset.sched_load_balance", "0");
                if (r >= 0)
                        r = cpuset_write_file(dir, "cpuset.sched_load_balance", "1");
                if (r < 0)
                        return r;
        }
        return 0;
}
