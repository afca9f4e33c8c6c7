/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The supervisor behind rtfctl run and rtfctl attach.
 *
 * rtfctl is an ordinary librtf client: it creates one specification per
 * thread and attaches the thread to it.  rtfd accepts any thread whose real
 * and effective uid are the caller's, so a child or another process of the
 * same user can be attached; rtfd frees everything when the connection
 * closes, which is why rtfctl must outlive the program.
 *
 * run: the child waits on a pipe until its main thread is attached, so the
 * program is real-time from its first instruction; a second (close-on-exec)
 * pipe tells whether exec succeeded.  Signals are taken through a signalfd, so
 * that nothing runs in a handler.  A non-root caller's program runs with
 * no_new_privs: set-uid bits and file capabilities do not apply to it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hint.h"
#include "launch.h"

static const int forwarded[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT };

struct tracked {
        pid_t tid;
        bool seen;
        struct rtf_spec spec;           /* id == 0: rtfd refused this thread, which is left alone */
};

struct supervisor {
        const struct launch_opts *o;
        pid_t pid;                      /* the process whose threads are scanned */
        struct tracked *t;
        unsigned n;
        bool said_max;
};

/* tid 0: the program, before it runs. */
static void say_refusal(pid_t tid, const char *comm, int r) {
        const char *why = rtf_last_reason();

        if (tid == 0)
                fprintf(stderr, "rtfctl: no reservation for %s, not run: %s%s%s\n", comm, rtf_strerror(r),
                        why[0] ? ": " : "", why);
        else
                fprintf(stderr, "rtfctl: no reservation for thread %d (%s): %s%s%s\n", (int)tid, comm,
                        rtf_strerror(r), why[0] ? ": " : "", why);
        if (r == RTF_CONNECTION_ERR)
                ctl_hint_connect_probe(ctl_socket_path());
}

static void read_comm(pid_t pid, pid_t tid, char *buf, size_t size) {
        char path[64];
        ssize_t n = -1;
        int fd;

        snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
                n = read(fd, buf, size - 1);
                close(fd);
        }
        if (n <= 0) {
                snprintf(buf, size, "?");
                return;
        }
        buf[n] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
}

static bool name_wanted(const struct launch_opts *o, const char *comm) {
        for (unsigned i = 0; i < o->n_names; i++)
                if (fnmatch(o->names[i], comm, 0) == 0)
                        return true;
        return false;
}

/* A reservation for `tid`; the refusal is said.  RTF_OK or the result of the failed request. */
static int reserve(const struct launch_opts *o, pid_t tid, const char *comm, struct rtf_spec *spec) {
        int r;

        *spec = (struct rtf_spec) RTF_SPEC_INIT;
        r = rtf_spec_create(spec, &o->params);
        if (r == RTF_OK) {
                r = rtf_spec_attach(spec, tid);
                if (r != RTF_OK) {
                        char why[256];

                        /* Keep the attach's reason: the release would clear it. */
                        snprintf(why, sizeof(why), "%s", rtf_last_reason());
                        (void) rtf_spec_release(spec);
                        fprintf(stderr, "rtfctl: cannot attach thread %d (%s): %s%s%s\n", (int)tid, comm,
                                rtf_strerror(r), why[0] ? ": " : "", why);
                        *spec = (struct rtf_spec) RTF_SPEC_INIT;
                        return r;
                }
        } else {
                say_refusal(tid, comm, r);
                *spec = (struct rtf_spec) RTF_SPEC_INIT;
                return r;
        }
        if (o->verbose)
                fprintf(stderr, "rtfctl: thread %d (%s): spec %llu on %s, priority %u, runtime %llu us, cpu %d\n",
                        (int)tid, comm, (unsigned long long)spec->id, spec->plugin, spec->priority,
                        (unsigned long long)spec->accepted_runtime_us, spec->core);
        return RTF_OK;
}

static struct tracked *track(struct supervisor *s, pid_t tid) {
        if (!s->t) {
                s->t = calloc(s->o->max_threads, sizeof(*s->t));
                if (!s->t)
                        return NULL;
        }
        if (s->n >= s->o->max_threads) {
                if (!s->said_max)
                        fprintf(stderr, "rtfctl: more than %u threads: thread %d and later ones stay as they are "
                                "(--max-threads)\n", s->o->max_threads, (int)tid);
                s->said_max = true;
                return NULL;
        }
        s->t[s->n] = (struct tracked) { .tid = tid, .seen = true, .spec = RTF_SPEC_INIT };
        return &s->t[s->n++];
}

static void untrack(struct supervisor *s, unsigned i) {
        if (s->t[i].spec.id != 0)
                (void) rtf_spec_release(&s->t[i].spec);
        s->t[i] = s->t[--s->n];
}

static void release_all(struct supervisor *s) {
        while (s->n > 0)
                untrack(s, s->n - 1);
        free(s->t);
        s->t = NULL;
}

static struct tracked *find(struct supervisor *s, pid_t tid) {
        for (unsigned i = 0; i < s->n; i++)
                if (s->t[i].tid == tid)
                        return &s->t[i];
        return NULL;
}

/*
 * One pass over the process's threads: reserve for the new ones that are
 * wanted, release for those that ended.  -ESRCH when the process is gone.
 */
static int scan(struct supervisor *s) {
        char path[64], comm[64];
        struct dirent *de;
        DIR *dir;

        snprintf(path, sizeof(path), "/proc/%d/task", (int)s->pid);
        dir = opendir(path);
        if (!dir)
                return errno == ENOENT ? -ESRCH : -errno;
        for (unsigned i = 0; i < s->n; i++)
                s->t[i].seen = false;
        while ((de = readdir(dir))) {
                struct tracked *t;
                char *end;
                long tid = strtol(de->d_name, &end, 10);

                if (*end != '\0' || tid <= 0)
                        continue;
                t = find(s, (pid_t)tid);
                if (t) {
                        t->seen = true;
                        continue;
                }
                read_comm(s->pid, (pid_t)tid, comm, sizeof(comm));
                if (s->o->threads == LAUNCH_THREADS_NAMED && !name_wanted(s->o, comm))
                        continue;       /* looked at again next time: it may rename itself */
                t = track(s, (pid_t)tid);
                if (t)
                        (void) reserve(s->o, t->tid, comm, &t->spec);
        }
        closedir(dir);
        for (unsigned i = s->n; i-- > 0;)
                if (!s->t[i].seen)
                        untrack(s, i);
        return 0;
}

static int signals_block(sigset_t *ret_old) {
        sigset_t set;

        sigemptyset(&set);
        for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
                sigaddset(&set, forwarded[i]);
        sigaddset(&set, SIGCHLD);
        if (sigprocmask(SIG_BLOCK, &set, ret_old) < 0)
                return -errno;
        return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static bool is_forwarded(int sig) {
        for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
                if (forwarded[i] == sig)
                        return true;
        return false;
}

static int connect_or_say(void) {
        int r = rtf_connect();

        if (r != RTF_OK) {
                fprintf(stderr, "rtfctl: cannot connect to rtfd: %s\n", rtf_last_reason()[0] ? rtf_last_reason() :
                        rtf_strerror(r));
                ctl_hint_connect_probe(ctl_socket_path());
        }
        return r;
}

/* As the shell sees it: the program's exit status, or death by the same signal. */
static int pass_status(int status) {
        if (WIFEXITED(status))
                return WEXITSTATUS(status);
        if (WIFSIGNALED(status)) {
                int sig = WTERMSIG(status);
                sigset_t set;

                /* rtfctl's own core is of no use to anybody. */
                (void) setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
                signal(sig, SIG_DFL);
                sigemptyset(&set);
                sigaddset(&set, sig);
                sigprocmask(SIG_UNBLOCK, &set, NULL);
                raise(sig);
                return 128 + sig;
        }
        return LAUNCH_EXIT_FAILED;
}

static void child_exec(char **argv, int go, int err, const sigset_t *mask) {
        char c;
        int e;

        sigprocmask(SIG_SETMASK, mask, NULL);
        /* EOF: the parent gave up (the attach was refused); the program must not run. */
        if (read(go, &c, 1) != 1)
                _exit(LAUNCH_EXIT_FAILED);
        /* Attached before exec: a set-uid or file-capability program would
         * start as another user with this user's reservation, until rtfd's
         * owner watchdog notices (docs/SECURITY.md).  Without new privileges
         * it runs as this user, which is what the reservation is for. */
        if (getuid() != 0 && prctl(PR_SET_NO_NEW_PRIVS, 1UL, 0UL, 0UL, 0UL) < 0) {
                e = errno;
                (void) !write(err, &e, sizeof(e));
                _exit(LAUNCH_EXIT_CANNOT_EXEC);
        }
        execvp(argv[0], argv);
        e = errno;
        (void) !write(err, &e, sizeof(e));
        _exit(e == ENOENT ? LAUNCH_EXIT_NOT_FOUND : LAUNCH_EXIT_CANNOT_EXEC);
}

int launch_run(struct launch_opts *o, char **argv) {
        struct supervisor s = { .o = o };
        int go[2] = { -1, -1 }, err[2] = { -1, -1 };
        int sfd, status = 0, e = 0, r;
        sigset_t old;
        pid_t child;

        sfd = signals_block(&old);
        if (sfd < 0) {
                fprintf(stderr, "rtfctl: signalfd: %s\n", strerror(-sfd));
                return LAUNCH_EXIT_FAILED;
        }
        if (o->policy && launch_pick_plugin(o->policy, &o->params) < 0)
                return LAUNCH_EXIT_FAILED;
        if (connect_or_say() != RTF_OK)
                return LAUNCH_EXIT_FAILED;
        /* The main thread's reservation first: a refusal runs nothing. */
        if (o->threads != LAUNCH_THREADS_NAMED) {
                struct tracked *t = track(&s, 0);

                if (!t)
                        return LAUNCH_EXIT_FAILED;
                t->spec = (struct rtf_spec) RTF_SPEC_INIT;
                r = rtf_spec_create(&t->spec, &o->params);
                if (r != RTF_OK) {
                        say_refusal(0, argv[0], r);
                        release_all(&s);
                        return LAUNCH_EXIT_FAILED;
                }
        }
        if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
                fprintf(stderr, "rtfctl: pipe: %s\n", strerror(errno));
                release_all(&s);
                return LAUNCH_EXIT_FAILED;
        }
        child = fork();
        if (child < 0) {
                fprintf(stderr, "rtfctl: fork: %s\n", strerror(errno));
                release_all(&s);
                return LAUNCH_EXIT_FAILED;
        }
        if (child == 0) {
                close(go[1]);
                close(err[0]);
                close(sfd);
                child_exec(argv, go[0], err[1], &old);
        }
        close(go[0]);
        close(err[1]);
        s.pid = child;
        if (s.n == 1) {
                s.t[0].tid = child;
                r = rtf_spec_attach(&s.t[0].spec, child);
                if (r != RTF_OK) {
                        fprintf(stderr, "rtfctl: cannot attach %s (pid %d): %s%s%s\n", argv[0], (int)child,
                                rtf_strerror(r), rtf_last_reason()[0] ? ": " : "", rtf_last_reason());
                        close(go[1]);
                        waitpid(child, NULL, 0);
                        release_all(&s);
                        return LAUNCH_EXIT_FAILED;
                }
                if (o->verbose)
                        fprintf(stderr, "rtfctl: %s (pid %d): spec %llu on %s, priority %u, runtime %llu us, "
                                "cpu %d\n", argv[0], (int)child, (unsigned long long)s.t[0].spec.id,
                                s.t[0].spec.plugin, s.t[0].spec.priority,
                                (unsigned long long)s.t[0].spec.accepted_runtime_us, s.t[0].spec.core);
        }
        (void) !write(go[1], "g", 1);
        close(go[1]);
        if (read(err[0], &e, sizeof(e)) == (ssize_t)sizeof(e)) {
                fprintf(stderr, "rtfctl: cannot run %s: %s\n", argv[0], strerror(e));
                waitpid(child, &status, 0);
                release_all(&s);
                return WIFEXITED(status) ? WEXITSTATUS(status) : LAUNCH_EXIT_CANNOT_EXEC;
        }
        close(err[0]);

        for (bool done = false; !done;) {
                struct pollfd p = { .fd = sfd, .events = POLLIN };
                struct signalfd_siginfo si;

                if (o->threads != LAUNCH_THREADS_ONE)
                        (void) scan(&s);
                if (poll(&p, 1, o->threads == LAUNCH_THREADS_ONE ? -1 : (int)o->rescan_ms) < 0 && errno != EINTR) {
                        /* Never leave the program behind: its reservation ends with it. */
                        while (waitpid(child, &status, 0) < 0 && errno == EINTR)
                                ;
                        break;
                }
                while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
                        /* The terminal sends its signals to the whole process group: the program has it. */
                        if (is_forwarded((int)si.ssi_signo) && si.ssi_code != SI_KERNEL)
                                kill(child, (int)si.ssi_signo);
                }
                r = waitpid(child, &status, WNOHANG);
                if (r == child || (r < 0 && errno == ECHILD))
                        done = true;
        }
        release_all(&s);
        rtf_disconnect();
        close(sfd);
        return pass_status(status);
}

static bool thread_exists(pid_t tid) {
        char path[32];

        snprintf(path, sizeof(path), "/proc/%d", (int)tid);
        return access(path, F_OK) == 0;
}

int launch_attach(struct launch_opts *o) {
        struct supervisor s = { .o = o, .pid = o->pid ? o->pid : o->tid };
        int sfd, pidfd = -1, r = 0;
        sigset_t old;

        sfd = signals_block(&old);
        if (sfd < 0) {
                fprintf(stderr, "rtfctl: signalfd: %s\n", strerror(-sfd));
                return LAUNCH_EXIT_FAILED;
        }
        if (!thread_exists(s.pid)) {
                fprintf(stderr, "rtfctl: no %s %d\n", o->pid ? "process" : "thread", (int)s.pid);
                return LAUNCH_EXIT_FAILED;
        }
        if (o->pid)
                pidfd = (int)syscall(SYS_pidfd_open, o->pid, 0);
        if (o->policy && launch_pick_plugin(o->policy, &o->params) < 0)
                return LAUNCH_EXIT_FAILED;
        if (connect_or_say() != RTF_OK)
                return LAUNCH_EXIT_FAILED;
        if (o->threads == LAUNCH_THREADS_ONE) {
                struct tracked *t = track(&s, s.pid);
                char comm[64];

                read_comm(s.pid, s.pid, comm, sizeof(comm));
                if (!t || reserve(o, s.pid, comm, &t->spec) != RTF_OK) {
                        release_all(&s);
                        return LAUNCH_EXIT_FAILED;
                }
        } else if (scan(&s) < 0) {
                fprintf(stderr, "rtfctl: no process %d\n", (int)s.pid);
                release_all(&s);
                return LAUNCH_EXIT_FAILED;
        }

        for (bool done = false; !done;) {
                struct pollfd p[2] = { { .fd = sfd, .events = POLLIN }, { .fd = pidfd, .events = POLLIN } };
                struct signalfd_siginfo si;

                if (poll(p, pidfd >= 0 ? 2 : 1, (int)o->rescan_ms) < 0 && errno != EINTR)
                        break;
                while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
                        if (si.ssi_signo != SIGCHLD && si.ssi_signo != SIGWINCH && si.ssi_signo != SIGCONT)
                                done = true;
                if (p[1].revents)
                        done = true;
                else if (o->threads != LAUNCH_THREADS_ONE)
                        done = done || scan(&s) == -ESRCH;
                else if (!thread_exists(s.pid))
                        done = true;
        }
        release_all(&s);
        rtf_disconnect();
        if (pidfd >= 0)
                close(pidfd);
        close(sfd);
        return r;
}
