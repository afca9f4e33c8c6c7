/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"

pid_t child_spawn(char *const argv[], const char *output) {
        pid_t parent = getpid(), pid;

        pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                sigset_t none;
                int fd;

                setpgid(0, 0);
                /* Die with the tool; the check closes the race with a parent that died before prctl(). */
                if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
                        _exit(127);
                sigemptyset(&none);
                sigprocmask(SIG_SETMASK, &none, NULL);
                signal(SIGINT, SIG_DFL);
                signal(SIGTERM, SIG_DFL);
                signal(SIGHUP, SIG_DFL);
                signal(SIGPIPE, SIG_DFL);
                fd = open(output ? output : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
                if (fd >= 0) {
                        dup2(fd, STDOUT_FILENO);
                        dup2(fd, STDERR_FILENO);
                }
                fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
                if (fd >= 0)
                        dup2(fd, STDIN_FILENO);
                execvp(argv[0], argv);
                _exit(127);
        }
        /* Also from here: the group must exist before anyone signals it. */
        setpgid(pid, pid);
        return pid;
}

static int64_t now_ms(void) {
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int child_wait(pid_t pid, int timeout_ms, volatile bool *interrupted) {
        int64_t end = now_ms() + timeout_ms;

        /* Blocking, so that a waiting real-time tool does not disturb the child it waits for. */
        while (timeout_ms < 0) {
                int status;
                pid_t r = waitpid(pid, &status, 0);

                if (r == pid)
                        return status & 0x7fffffff;
                if (r < 0 && errno != EINTR)
                        return -errno;
                if (interrupted && *interrupted)
                        return -EINTR;
        }
        for (;;) {
                int status;
                pid_t r = waitpid(pid, &status, WNOHANG);

                if (r == pid)
                        return status & 0x7fffffff;
                if (r < 0)
                        return -errno;
                if (interrupted && *interrupted)
                        return -EINTR;
                if (timeout_ms >= 0 && now_ms() >= end)
                        return -ETIMEDOUT;
                usleep(2000);
        }
}

bool child_group_alive(pid_t pgid) {
        return kill(-pgid, 0) == 0;
}

void child_stop(pid_t pid, int grace_ms) {
        if (pid <= 0)
                return;
        kill(-pid, SIGTERM);
        kill(pid, SIGTERM);
        if (child_wait(pid, grace_ms, NULL) == -ETIMEDOUT) {
                kill(-pid, SIGKILL);
                kill(pid, SIGKILL);
                child_wait(pid, -1, NULL);
        }
        /* Workers stress-ng left in the group after their parent went. */
        for (int i = 0; i < 100 && child_group_alive(pid); i++) {
                kill(-pid, SIGKILL);
                usleep(10000);
        }
}
