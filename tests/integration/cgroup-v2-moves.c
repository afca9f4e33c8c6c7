/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Drives rtfd's own cgroup v2 thread placement (src/daemon/cpuset-v2.c) on a
 * real unified hierarchy that has no cpuset controller, for
 * test_cgroup_v2.py: everything of a v2 partition except the cpuset files.
 * The tree that cpuset_v2_setup() would make is made here without them
 * (rtf/ and the threaded rtf/cpu1); a child process with a second thread
 * starts in the cgroup rtf-test-origin.  Prints, one "key: value" line each,
 * the v2 cgroups of the child and of its thread after every step, and exits
 * non-zero if a step returned an error.
 *
 *   cgroup-v2-moves V2_MOUNT
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup-parse.h"
#include "cpuset-private.h"

static int pipe_fds[2];

static void *blocked(void *arg) {
        pid_t tid = gettid();

        (void)arg;
        if (write(pipe_fds[1], &tid, sizeof(tid)) != sizeof(tid))
                _exit(1);
        pause();
        return NULL;
}

static void show(const char *step, pid_t pid, pid_t tid) {
        char path[64], buf[4096], cg[512];
        pid_t ids[2] = { pid, tid };
        const char *who[2] = { "process", "thread" };

        for (int i = 0; i < 2; i++) {
                FILE *f;
                size_t len;

                snprintf(path, sizeof(path), "/proc/%d/task/%d/cgroup", (int)pid, (int)ids[i]);
                f = fopen(path, "re");
                len = f ? fread(buf, 1, sizeof(buf), f) : 0;
                if (f)
                        fclose(f);
                if (cgroup_parse_v2_path(buf, len, cg, sizeof(cg)) < 0)
                        snprintf(cg, sizeof(cg), "?");
                printf("%s %s: %s\n", step, who[i], cg);
        }
}

static int make(const char *root, const char *name) {
        char dir[1024];

        snprintf(dir, sizeof(dir), "%s/%s", root, name);
        return mkdir(dir, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

static int check(const char *what, int r) {
        printf("%s: %d\n", what, r);
        return r < 0;
}

int main(int argc, char **argv) {
        struct cpuset cs = CPUSET_NULL;
        char dir[1024], id[32];
        pid_t child, tid = 0;
        int failed = 0;

        if (argc != 2) {
                fprintf(stderr, "usage: cgroup-v2-moves V2_MOUNT\n");
                return 2;
        }
        cs.version = CPUSET_V2;
        snprintf(cs.root, sizeof(cs.root), "%s", argv[1]);
        cs.n_cpus = 2;
        cs.partitioned[1] = true;
        cs.active = true;

        snprintf(dir, sizeof(dir), "%s/rtf/cpu1", argv[1]);
        if (make(argv[1], "rtf-test-origin") < 0 || make(argv[1], "rtf") < 0 || make(argv[1], "rtf/cpu1") < 0 ||
            cpuset_write_file(dir, "cgroup.type", "threaded") < 0) {
                perror("setting up the cgroups");
                return 1;
        }
        if (pipe(pipe_fds) < 0)
                return 1;
        child = fork();
        if (child == 0) {
                pthread_t t;

                snprintf(dir, sizeof(dir), "%s/rtf-test-origin", argv[1]);
                snprintf(id, sizeof(id), "%d", (int)getpid());
                if (cpuset_write_file(dir, "cgroup.procs", id) < 0 || pthread_create(&t, NULL, blocked, NULL) != 0)
                        _exit(1);
                pause();
                _exit(0);
        }
        if (child < 0 || read(pipe_fds[0], &tid, sizeof(tid)) != sizeof(tid))
                return 1;

        show("start", child, tid);
        failed |= check("into partition", cpuset_move_thread(&cs, tid, 1));
        show("partitioned", child, tid);
        failed |= check("out of partition", cpuset_move_thread(&cs, tid, -1));
        show("released", child, tid);
        failed |= check("into partition again", cpuset_move_thread(&cs, tid, 1));
        show("again", child, tid);
        cpuset_teardown(&cs);
        show("teardown", child, tid);
        snprintf(dir, sizeof(dir), "%s/rtf", argv[1]);
        printf("rtf left: %d\n", access(dir, F_OK) == 0);

        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        snprintf(dir, sizeof(dir), "%s/rtf-test-origin", argv[1]);
        for (int i = 0; i < 100 && rmdir(dir) < 0 && errno == EBUSY; i++)
                usleep(10000);
        return failed;
}
