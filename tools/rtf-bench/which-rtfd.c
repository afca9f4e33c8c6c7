/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which rtfd is measured: a private one per configuration, started and
 * stopped here, or the external one at --socket, asked what it serves.
 */
#include "bench.h"

static int write_text(const char *path, const char *text) {
        FILE *f = fopen(path, "we");

        if (!f)
                return -errno;
        fputs(text, f);
        if (fclose(f) != 0)
                return -errno;
        return chmod(path, 0644) < 0 ? -errno : 0;
}

void which_rtfd_stop(struct daemon *d) {
        char path[192];

        rtf_disconnect();
        if (d->pid > 0)
                child_stop(d->pid, 5000);
        d->pid = 0;
        if (!d->dir[0])
                return;
        for (const char *f = "rtfd.conf\0acl.conf\0state\0rtfd.log\0rtfd.sock\0"; *f; f += strlen(f) + 1) {
                snprintf(path, sizeof(path), "%s/%s", d->dir, f);
                unlink(path);
        }
        rmdir(d->dir);
        d->dir[0] = '\0';
}

/* policy NULL: none (only root is served); else it is written, and other uids may reach the socket. */
int which_rtfd_start(struct bench *ctx, struct daemon *d, const char *config, const char *policy) {
        char conf[128], acl[128], state[128], log[128], cpuset[128];
        char *argv[20];
        int n = 0, r;

        *d = (struct daemon){ 0 };
        /* rtfd trusts files here (docs/SECURITY.md, "Trusted directories"):
         * mkdtemp() makes a fresh root-owned 0700 directory that nobody else
         * may replace inside sticky /tmp, nor have created first. */
        snprintf(d->dir, sizeof(d->dir), "/tmp/rtf-bench-XXXXXX");
        if (!mkdtemp(d->dir)) {
                d->dir[0] = '\0';
                return -errno;
        }
        snprintf(conf, sizeof(conf), "%s/rtfd.conf", d->dir);
        snprintf(acl, sizeof(acl), "%s/acl.conf", d->dir);
        snprintf(state, sizeof(state), "%s/state", d->dir);
        snprintf(log, sizeof(log), "%s/rtfd.log", d->dir);
        snprintf(cpuset, sizeof(cpuset), "%s/no-cpusets", d->dir);
        snprintf(d->socket, sizeof(d->socket), "%s/rtfd.sock", d->dir);
        if ((r = write_text(conf, config)) < 0 || (r = write_text(acl, policy ? policy : "")) < 0)
                goto fail;
        if (policy && chmod(d->dir, 0755) < 0) {
                r = -errno;
                goto fail;
        }
        argv[n++] = (char *)ctx->arg.rtfd;
        argv[n++] = "--foreground";
        argv[n++] = "--config";
        argv[n++] = conf;
        argv[n++] = "--socket";
        argv[n++] = d->socket;
        argv[n++] = "--plugindir";
        argv[n++] = (char *)ctx->arg.plugindir;
        argv[n++] = "--acl";
        argv[n++] = acl;
        argv[n++] = "--state-file";
        argv[n++] = state;
        argv[n++] = "--cpuset-root";
        argv[n++] = cpuset;
        argv[n] = NULL;
        d->pid = child_spawn(argv, log);
        if (d->pid < 0) {
                r = d->pid;
                d->pid = 0;
                goto fail;
        }
        setenv("RTF_SOCKET", d->socket, 1);
        for (int i = 0; i < 500; i++) {
                if (waitpid(d->pid, NULL, WNOHANG) == d->pid) {
                        d->pid = 0;
                        r = -ECHILD;
                        goto fail;
                }
                if (access(d->socket, F_OK) == 0 && rtf_connect() == RTF_OK) {
                        bench_pin(d->pid, ctx->arg.daemon_cpu);
                        return 0;
                }
                usleep(10000);
        }
        r = -ETIMEDOUT;
fail:
        fprintf(stderr, TOOL ": cannot start %s with\n%s(%s); see %s\n", ctx->arg.rtfd, config, strerror(-r), log);
        {
                /* Show rtfd's complaint before the directory goes. */
                char line[512];
                FILE *f = fopen(log, "re");

                while (f && fgets(line, sizeof(line), f))
                        fprintf(stderr, "  %s", line);
                if (f)
                        fclose(f);
        }
        which_rtfd_stop(d);
        return r;
}

const struct rtfd_instance *which_rtfd_instance(struct bench *ctx, const char *name) {
        for (size_t i = 0; i < ctx->target.n_instances; i++)
                if (strcasecmp(ctx->target.instances[i].name, name) == 0)
                        return &ctx->target.instances[i];
        return NULL;
}

/* Rank for attach and the USS fill: fixed priorities first (no bandwidth), DEADLINE never for attach. */
int which_rtfd_kind_rank(const char *kind) {
        static const char *const order[] = { "FP", "RR", "RM" };

        for (int i = 0; i < 3; i++)
                if (bench_kind_is(kind, order[i]))
                        return i;
        return bench_kind_is(kind, "EDF") ? 4 : 3;
}

/* The process whose USS is rtfd's: SO_PEERCRED's, unless --daemon-pid or it is not rtfd. */
pid_t which_rtfd_uss_pid(struct bench *ctx) {
        if (ctx->arg.daemon_pid > 0)
                return ctx->arg.daemon_pid;
        if (ctx->target.pid <= 0) {
                bench_note(ctx, "uss_idle_kib, uss_full_kib: not measured: the kernel did not tell the pid of the socket's "
                     "listener (another pid namespace?); --daemon-pid PID names it");
                return 0;
        }
        if (strcmp(ctx->target.comm, "rtfd") != 0) {
                bench_note(ctx, "uss_idle_kib, uss_full_kib: not measured: the socket's listener is pid %d \"%s\", not rtfd "
                     "(socket activation?); --daemon-pid PID names rtfd", (int)ctx->target.pid, ctx->target.comm);
                return 0;
        }
        return ctx->target.pid;
}

/*
 * The floor's CPUs, when --cpus did not say: the echo gets rtfd's affinity
 * (one CPU if rtfd is pinned, and then the client another), so that it is
 * placed as rtfd is.
 */
void which_rtfd_cpus(struct bench *ctx, long n_cpus, cpu_set_t *allowed) {
        pid_t pid = ctx->arg.daemon_pid > 0 ? ctx->arg.daemon_pid : ctx->target.pid;

        CPU_ZERO(allowed);
        if (pid <= 0 || sched_getaffinity(pid, sizeof(*allowed), allowed) < 0) {
                CPU_ZERO(allowed);
                return;
        }
        if (ctx->arg.cpus_given)
                return;
        if (CPU_COUNT(allowed) > 1) {
                ctx->echo_cpus = *allowed;
                ctx->arg.daemon_cpu = -1;
                return;
        }
        for (int c = 0; c < CPU_SETSIZE; c++)
                if (CPU_ISSET(c, allowed))
                        ctx->arg.daemon_cpu = c;
        ctx->arg.client_cpu = ctx->arg.daemon_cpu == 0 && n_cpus > 1 ? 1 : 0;
}

/* The build tree's rtfd and plugins when this binary runs from the build tree. */
void which_rtfd_default_paths(struct bench *ctx) {
        static char rtfd[PATH_MAX + 32];
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

        if (!ctx->arg.rtfd && n > 0) {
                char *slash;

                self[n] = '\0';
                slash = strrchr(self, '/');
                if (slash) {
                        *slash = '\0';
                        snprintf(rtfd, sizeof(rtfd), "%s/../../src/daemon/rtfd", self);
                        if (access(rtfd, X_OK) == 0) {
                                ctx->arg.rtfd = rtfd;
                                if (!ctx->arg.plugindir)
                                        ctx->arg.plugindir = RTF_BUILD_PLUGINDIR;
                        }
                }
        }
        if (!ctx->arg.rtfd)
                ctx->arg.rtfd = RTF_SBINDIR "/rtfd";
        if (!ctx->arg.plugindir)
                ctx->arg.plugindir = RTF_PLUGINDIR;
}

/* The external rtfd's STATUS, and --plugins checked against its instances. */
int which_rtfd_query(struct bench *ctx) {
        int r = rtfd_info_query(ctx->arg.socket, &ctx->target);

        if (r < 0) {
                fprintf(stderr, TOOL ": cannot ask rtfd at %s (%s) for its status: %s\n", ctx->arg.socket,
                        ctx->arg.socket_option ? "--socket" : "RTF_SOCKET", strerror(-r));
                return -1;
        }
        if (ctx->target.n_instances == 0) {
                fprintf(stderr, TOOL ": rtfd at %s serves no plugin instance\n", ctx->arg.socket);
                return -1;
        }
        for (int i = 0; i < ctx->arg.n_plugins; i++) {
                const struct rtfd_instance *in = which_rtfd_instance(ctx, ctx->arg.plugins[i]);

                if (!in) {
                        fprintf(stderr, TOOL ": rtfd at %s serves no instance \"%s\"; it serves", ctx->arg.socket,
                                ctx->arg.plugins[i]);
                        for (size_t k = 0; k < ctx->target.n_instances; k++)
                                fprintf(stderr, "%s %s", k ? "," : "", ctx->target.instances[k].name);
                        fprintf(stderr, "\n");
                        return -1;
                }
        }
        return 0;
}
