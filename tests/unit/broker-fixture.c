/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The broker over a fake kernel: see broker-fixture.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "broker-fixture.h"
#include "tap.h"

static struct fake_thread *fake_find(struct fake_kernel *k, pid_t tid) {
        for (size_t i = 0; i < FAKE_THREADS; i++)
                if (k->threads[i].tid == tid)
                        return &k->threads[i];
        return NULL;
}

static int take(int *fail) {
        int r = *fail;

        *fail = 0;
        return r;
}

static int fake_thread_open(void *data, pid_t tid, struct thread *ret) {
        struct fake_kernel *k = data;
        struct fake_thread *f = fake_find(k, tid);
        int r = take(&k->fail_open);

        if (r < 0)
                return r;
        if (!f || !f->alive)
                return -ESRCH;
        *ret = THREAD_NULL;
        ret->tid = tid;
        ret->tgid = tid;
        ret->ruid = ret->euid = f->uid;
        ret->pidfd = dup(f->pidfd);
        k->n_open++;
        return ret->pidfd < 0 ? -errno : 0;
}

static void fake_thread_close(void *data, struct thread *t) {
        struct fake_kernel *k = data;

        if (t->pidfd >= 0)
                close(t->pidfd);
        t->pidfd = -1;
        k->n_close++;
}

static bool fake_thread_alive(void *data, const struct thread *t) {
        struct fake_thread *f = fake_find(data, t->tid);

        return f && f->alive;
}

static int fake_thread_read_owners(void *data, const struct thread *t, uid_t *ret_ruid, uid_t *ret_euid) {
        struct fake_kernel *k = data;
        struct fake_thread *f = fake_find(k, t->tid);
        int r = take(&k->fail_owners);

        if (r < 0)
                return r;
        if (!f || !f->alive)
                return -ESRCH;
        *ret_ruid = *ret_euid = f->uid;
        return 0;
}

static int fake_thread_apply(void *data, struct thread *t, const struct rtf_sched_setting *s) {
        struct fake_kernel *k = data;
        struct fake_thread *f = fake_find(k, t->tid);

        k->n_apply++;
        if (k->fail_apply_times) {
                k->fail_apply_times--;
                return k->fail_apply;
        }
        if (!f || !f->alive)
                return -ESRCH;
        f->setting = *s;
        f->applies++;
        t->applied = *s;
        t->promoted = true;
        return 0;
}

static int fake_thread_demote(void *data, struct thread *t) {
        struct fake_kernel *k = data;
        struct fake_thread *f = fake_find(k, t->tid);
        int r = take(&k->fail_demote);

        k->n_demote++;
        if (r < 0)
                return r;
        if (!f || !f->alive)
                return -ESRCH;
        f->setting = (struct rtf_sched_setting){ .policy = RTF_POLICY_OTHER, .cpu = -1 };
        t->promoted = false;
        return 0;
}

static int fake_thread_read_dl_state(void *data, const struct thread *t, int64_t *ret_runtime_ns,
                                     int64_t *ret_deadline_ns) {
        return -ENOENT;
}

static int fake_rebuild_root_domains(void *data) {
        struct fake_kernel *k = data;

        k->n_rebuild++;
        return take(&k->fail_rebuild);
}

static void fake_latency_hint(void *data, bool wanted, int32_t value_us) {
        struct fake_kernel *k = data;

        k->hint = wanted && value_us >= 0;
}

static const struct kernel_ops fake_ops = {
        .thread_open = fake_thread_open,
        .thread_close = fake_thread_close,
        .thread_alive = fake_thread_alive,
        .thread_read_owners = fake_thread_read_owners,
        .thread_apply = fake_thread_apply,
        .thread_demote = fake_thread_demote,
        .thread_read_dl_state = fake_thread_read_dl_state,
        .rebuild_root_domains = fake_rebuild_root_domains,
        .latency_hint = fake_latency_hint,
};

struct fake_thread *fake_spawn(struct fake_kernel *k, pid_t tid, uid_t uid) {
        for (size_t i = 0; i < FAKE_THREADS; i++)
                if (!k->threads[i].tid) {
                        k->threads[i] = (struct fake_thread){
                                .tid = tid,
                                .uid = uid,
                                .alive = true,
                                .pidfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK),
                                .setting = { .policy = RTF_POLICY_OTHER, .cpu = -1 },
                        };
                        return &k->threads[i];
                }
        abort();
}

void fake_exit(struct fake_thread *f) {
        f->alive = false;
        if (eventfd_write(f->pidfd, 1) < 0)
                abort();
}

static void fake_free(struct fake_kernel *k) {
        for (size_t i = 0; i < FAKE_THREADS; i++)
                if (k->threads[i].tid)
                        close(k->threads[i].pidfd);
        memset(k, 0, sizeof(*k));
}

int broker_tests_run(void (*const *tests)(void), size_t n) {
        if (!getenv("RTF_BUILD_PLUGINDIR")) {
                fprintf(stderr, "RTF_BUILD_PLUGINDIR is not set: no plugins to test the broker with\n");
                return 77;
        }
        for (size_t i = 0; i < n; i++)
                tests[i]();
        return test_done();
}

void write_file(const char *path, const char *text) {
        FILE *f = fopen(path, "we");

        if (!f || fputs(text, f) < 0 || fclose(f) != 0)
                abort();
}

int fixture_start_with(struct fixture *fx, const char *config, const char *policy, const struct limits *limits) {
        struct manager_options o = {
                .plugindir = getenv("RTF_BUILD_PLUGINDIR"),
                .cpuset_root = "/nonexistent/rtf-test-broker",
                .limits = limits ? *limits : LIMITS_DEFAULT,
                .latency_hint_us = 0,
                .acl_required = true,
        };
        int r;

        memset(fx, 0, sizeof(*fx));
        snprintf(fx->dir, sizeof(fx->dir), "/tmp/rtf-test-broker.XXXXXX");
        if (!mkdtemp(fx->dir))
                abort();
        snprintf(fx->config, sizeof(fx->config), "%s/rtfd.conf", fx->dir);
        snprintf(fx->acl, sizeof(fx->acl), "%s/acl.conf", fx->dir);
        snprintf(fx->state, sizeof(fx->state), "%s/rtfd.state", fx->dir);
        write_file(fx->config, config);
        write_file(fx->acl, policy);
        o.config_path = fx->config;
        o.acl_path = fx->acl;
        o.state_path = fx->state;
        if (event_init(&fx->ev) < 0)
                abort();
        r = manager_new(&o, &fake_ops, &fx->k, &fx->ev, &fx->mgr);
        CHECK_EQ(r, 0);
        if (r < 0)
                return r;
        fx->root = (struct owner){ .uid = 0, .pid = 1 };
        owner_init(fx, &fx->root);
        return 0;
}

int fixture_start(struct fixture *fx, const char *config, const struct limits *limits) {
        return fixture_start_with(fx, config, POLICY, limits);
}

void fixture_stop(struct fixture *fx) {
        manager_owner_gone(fx->mgr, &fx->root);         /* a second time is a no-op */
        fx->mgr = manager_free(fx->mgr);
        event_dispatch(&fx->ev, 0);
        event_done(&fx->ev);
        fake_free(&fx->k);
        unlink(fx->config);
        unlink(fx->acl);
        unlink(fx->state);
        rmdir(fx->dir);
}

void owner_init(struct fixture *fx, struct owner *o) {
        CHECK_EQ(manager_owner_init(fx->mgr, o, true), 0);
}

struct rtf_task_params edf(uint64_t runtime_us, uint64_t period_us) {
        return (struct rtf_task_params){
                .flags = RTF_PARAM_HAS_RUNTIME | RTF_PARAM_HAS_PERIOD,
                .runtime_us = runtime_us,
                .period_us = period_us,
        };
}

struct rtf_task_params prio(uint32_t priority) {
        return (struct rtf_task_params){ .flags = RTF_PARAM_HAS_PRIORITY, .priority = priority };
}


static void collect(void *userdata, const struct manager_task_row *row) {
        struct listed *l = userdata;

        if (l->n < 16) {
                l->params[l->n] = *row->params;
                l->rows[l->n] = *row;
                l->rows[l->n].params = NULL;        /* the copy in params[] outlives the call */
                l->n++;
        }
}

struct listed list(struct manager *m) {
        struct listed l = { 0 };

        manager_list_tasks(m, 0, 16, collect, &l);
        return l;
}
