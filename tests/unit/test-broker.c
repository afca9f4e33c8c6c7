/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The whole broker (src/daemon/manager*.c) as an ordinary user: the real
 * plugins from $RTF_BUILD_PLUGINDIR, a real config and policy file, and a
 * fake kernel_ops table in place of the kernel, which records every setting
 * a thread gets and can fail any step.  Covers plugin choice, commit,
 * rollback, per-user accounting, limits and each kernel step's failure; the
 * integration suite checks the same paths against the real kernel.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "event.h"
#include "kernel.h"
#include "manager.h"
#include "thread.h"
#include "rtf/rtf.h"
#include "tap.h"

/* ---- the fake kernel ---- */

#define FAKE_THREADS 8

struct fake_thread {
        pid_t tid;
        uid_t uid;
        bool alive;
        int pidfd;                      /* an eventfd: written = "exited" */
        struct rtf_sched_setting setting;       /* in force; policy OTHER = demoted */
        unsigned applies;               /* settings it was given */
};

struct fake_kernel {
        struct fake_thread threads[FAKE_THREADS];
        int fail_open, fail_apply, fail_demote, fail_owners, fail_rebuild;      /* -errno for the next call */
        unsigned fail_apply_times;      /* how many applies fail_apply fails */
        unsigned n_open, n_close, n_apply, n_demote, n_rebuild;
        bool hint;
};

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

static struct fake_thread *fake_spawn(struct fake_kernel *k, pid_t tid, uid_t uid) {
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

static void fake_exit(struct fake_thread *f) {
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

/* ---- a broker to test ---- */

struct fixture {
        char dir[64];
        char config[96], acl[96], state[96];
        struct event_loop ev;
        struct fake_kernel k;
        struct manager *mgr;
};

static void write_file(const char *path, const char *text) {
        FILE *f = fopen(path, "we");

        if (!f || fputs(text, f) < 0 || fclose(f) != 0)
                abort();
}

/* A policy for uid 65534 (nobody): EDF up to 0.5 of the CPU in all, RM never. */
#define POLICY "nobody EDF max_utilization 0.5\nnobody FP max_priority 40\n"
#define CONFIG "EDF EDF.so 100-100 0\nFP FP.so 1-89 0\n"

static int fixture_start_with(struct fixture *fx, const char *config, const char *policy, const struct limits *limits) {
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
        return r;
}

static int fixture_start(struct fixture *fx, const char *config, const struct limits *limits) {
        return fixture_start_with(fx, config, POLICY, limits);
}

static void fixture_stop(struct fixture *fx) {
        fx->mgr = manager_free(fx->mgr);
        event_dispatch(&fx->ev, 0);
        event_done(&fx->ev);
        fake_free(&fx->k);
        unlink(fx->config);
        unlink(fx->acl);
        unlink(fx->state);
        rmdir(fx->dir);
}

/* A connection's owner as server.c makes it. */
static void owner_init(struct fixture *fx, struct owner *o) {
        CHECK_EQ(manager_owner_init(fx->mgr, o, true), 0);
}

static struct rtf_task_params edf(uint64_t runtime_us, uint64_t period_us) {
        return (struct rtf_task_params){
                .flags = RTF_PARAM_HAS_RUNTIME | RTF_PARAM_HAS_PERIOD,
                .runtime_us = runtime_us,
                .period_us = period_us,
        };
}

static struct rtf_task_params prio(uint32_t priority) {
        return (struct rtf_task_params){ .flags = RTF_PARAM_HAS_PRIORITY, .priority = priority };
}

struct listed {
        unsigned n;
        struct manager_task_row rows[16];
        struct rtf_task_params params[16];
};

static void collect(void *userdata, const struct manager_task_row *row) {
        struct listed *l = userdata;

        if (l->n < 16) {
                l->params[l->n] = *row->params;
                l->rows[l->n] = *row;
                l->rows[l->n].params = NULL;        /* the copy in params[] outlives the call */
                l->n++;
        }
}

static struct listed list(struct manager *m) {
        struct listed l = { 0 };

        manager_list_tasks(m, 0, 16, collect, &l);
        return l;
}

/* ---- tests ---- */

static void test_choice(void) {
        struct owner root = { .uid = 0, .pid = 1 };
        struct manager_result res;
        struct rtf_task_params p;
        struct fixture fx;
        int r;

        if (fixture_start(&fx, CONFIG, NULL) < 0)
                return;
        owner_init(&fx, &root);
        /* A reservation: the first plugin in the config that accepts it. */
        p = edf(1000, 10000);
        r = manager_create(fx.mgr, &root, &p, "", &res);
        CHECK_EQ(r, RTF_OK);
        CHECK(strcmp(res.plugin, "EDF") == 0);
        CHECK_EQ(res.accepted_runtime_us, 1000);
        CHECK_EQ(res.cpu, -1);         /* global EDF (no partitions): not pinned */
        CHECK_EQ(res.reason[0], 0);
        /* A priority only: EDF cannot, FP can. */
        p = prio(30);
        r = manager_create(fx.mgr, &root, &p, "", &res);
        CHECK_EQ(r, RTF_OK);
        CHECK(strcmp(res.plugin, "FP") == 0);
        CHECK_EQ(res.priority, 30);
        /* Named, but not configured. */
        p = edf(1000, 10000);
        p.flags |= RTF_PARAM_HAS_SCHEDULER;
        r = manager_create(fx.mgr, &root, &p, "RM", &res);
        CHECK_EQ(r, RTF_SCHEDULE_FAIL);
        CHECK(strstr(res.reason, "no plugin named \"RM\"") != NULL);
        /* The name and its flag must agree. */
        r = manager_create(fx.mgr, &root, &p, "", &res);
        CHECK_EQ(r, -EINVAL);
        /* Shape checks before any plugin is asked. */
        p = edf(0, 10000);
        r = manager_create(fx.mgr, &root, &p, "", &res);
        CHECK_EQ(r, -EINVAL);
        CHECK(strstr(res.reason, "runtime 0 us is out of range") != NULL);
        p = prio(100);
        CHECK_EQ(manager_create(fx.mgr, &root, &p, "", &res), -EINVAL);
        /* One ceiling with librtf: 2^32 us is out (it used to pass rtfd). */
        p = edf(1000, UINT64_C(1) << 32);
        CHECK_EQ(manager_create(fx.mgr, &root, &p, "", &res), -EINVAL);
        CHECK(strstr(res.reason, "period 4294967296 us is out of range") != NULL);
        /* More than the CPU: every plugin refuses, and the reply says why each did. */
        p = edf(9500, 10000);
        r = manager_create(fx.mgr, &root, &p, "", &res);
        CHECK_EQ(r, RTF_SCHEDULE_FAIL);
        CHECK(strncmp(res.reason, "EDF: ", 5) == 0);
        CHECK(strstr(res.reason, "; FP: a priority is mandatory") != NULL);
        CHECK_EQ(list(fx.mgr).n, 2);
        CHECK_EQ(fx.k.n_apply, 0);      /* nothing attached: the kernel is not asked */
        manager_owner_gone(fx.mgr, &root);
        CHECK_EQ(list(fx.mgr).n, 0);
        fixture_stop(&fx);
}

static void test_attach(void) {
        struct owner root = { .uid = 0, .pid = 1 };
        struct manager_result res;
        struct rtf_task_params p = edf(2000, 10000);
        struct fake_thread *t;
        struct fixture fx;
        uint64_t id;

        if (fixture_start(&fx, CONFIG, NULL) < 0)
                return;
        owner_init(&fx, &root);
        t = fake_spawn(&fx.k, 100, 0);
        CHECK_EQ(manager_create(fx.mgr, &root, &p, "", &res), RTF_OK);
        id = res.id;
        CHECK_EQ(manager_attach(fx.mgr, &root, id, 100, &res), RTF_OK);
        CHECK_EQ(t->setting.policy, RTF_POLICY_DEADLINE);
        CHECK_EQ(t->setting.runtime_ns, 2000000);
        CHECK_EQ(t->setting.period_ns, 10000000);
        CHECK(fx.k.hint);
        CHECK_EQ(list(fx.mgr).rows[0].tid, 100);
        /* One thread, one spec. */
        CHECK_EQ(manager_create(fx.mgr, &root, &p, "", &res), RTF_OK);
        CHECK_EQ(manager_attach(fx.mgr, &root, res.id, 100, &res), -EBUSY);
        CHECK_EQ(manager_attach(fx.mgr, &root, id, 101, &res), -EBUSY);
        /* Detach demotes and lets the latency hint go. */
        CHECK_EQ(manager_detach(fx.mgr, &root, id, &res), RTF_OK);
        CHECK_EQ(t->setting.policy, RTF_POLICY_OTHER);
        CHECK(!fx.k.hint);
        CHECK_EQ(manager_detach(fx.mgr, &root, id, &res), -EINVAL);
        /* The thread's exit: seen through its pidfd, the spec stays. */
        CHECK_EQ(manager_attach(fx.mgr, &root, id, 100, &res), RTF_OK);
        fake_exit(t);
        CHECK_EQ(event_dispatch(&fx.ev, 0), 0);
        CHECK_EQ(list(fx.mgr).rows[0].tid, 0);
        CHECK_EQ(list(fx.mgr).n, 2);
        CHECK_EQ(fx.k.n_open, fx.k.n_close);
        /* Opening a thread that is gone. */
        CHECK_EQ(manager_attach(fx.mgr, &root, id, 100, &res), -ESRCH);
        CHECK_EQ(manager_attach(fx.mgr, &root, id, 0, &res), -EINVAL);
        manager_owner_gone(fx.mgr, &root);
        fixture_stop(&fx);
}

/* Every kernel step of attach and change fails once; the broker is left as before. */
static void test_kernel_failures(void) {
        struct owner root = { .uid = 0, .pid = 1 };
        struct manager_result res;
        struct rtf_task_params p = edf(2000, 10000), big = edf(4000, 10000);
        struct fake_thread *t;
        struct fixture fx;
        struct listed l;
        uint64_t id;

        if (fixture_start(&fx, CONFIG, NULL) < 0)
                return;
        owner_init(&fx, &root);
        t = fake_spawn(&fx.k, 200, 0);
        CHECK_EQ(manager_create(fx.mgr, &root, &p, "", &res), RTF_OK);
        id = res.id;

        /* open */
        fx.k.fail_open = -ENOMEM;
        CHECK_EQ(manager_attach(fx.mgr, &root, id, 200, &res), -ENOMEM);
        CHECK(strstr(res.reason, "cannot open thread 200") != NULL);
        /* apply: the kernel refuses the bandwidth, also after the root domains are rebuilt */
        fx.k.fail_apply = -EBUSY;
        fx.k.fail_apply_times = 2;
        CHECK_EQ(manager_attach(fx.mgr, &root, id, 200, &res), RTF_SCHEDULE_FAIL);
        CHECK_EQ(fx.k.n_rebuild, 1);
        CHECK_EQ(t->setting.policy, RTF_POLICY_OTHER);
        CHECK_EQ(list(fx.mgr).rows[0].tid, 0);
        CHECK_EQ(fx.k.n_open, fx.k.n_close);
        /* apply: refused, and the rebuild of the root domains fails too */
        fx.k.fail_apply = -EBUSY;
        fx.k.fail_apply_times = 1;
        fx.k.fail_rebuild = -EIO;
        CHECK_EQ(manager_attach(fx.mgr, &root, id, 200, &res), RTF_SCHEDULE_FAIL);
        CHECK_EQ(fx.k.n_rebuild, 2);
        CHECK_EQ(fx.k.n_apply, 3);      /* no retry without a rebuild */
        CHECK_EQ(list(fx.mgr).rows[0].tid, 0);
        /* apply: refused once, the rebuild of the root domains recovers it */
        fx.k.fail_apply = -EBUSY;
        fx.k.fail_apply_times = 1;
        CHECK_EQ(manager_attach(fx.mgr, &root, id, 200, &res), RTF_OK);
        CHECK_EQ(fx.k.n_rebuild, 3);
        CHECK_EQ(t->setting.policy, RTF_POLICY_DEADLINE);

        /* change: the new setting is refused; the old one is back on the thread and in the plugin */
        fx.k.fail_apply = -EPERM;
        fx.k.fail_apply_times = 1;
        CHECK_EQ(manager_change(fx.mgr, &root, id, &big, "", &res), -EPERM);
        CHECK(strstr(res.reason, "the kernel refused the new setting") != NULL);
        CHECK_EQ(t->setting.policy, RTF_POLICY_DEADLINE);
        CHECK_EQ(t->setting.runtime_ns, 2000000);
        l = list(fx.mgr);
        CHECK_EQ(l.params[0].runtime_us, 2000);
        CHECK_EQ(l.rows[0].accepted_runtime_us, 2000);
        CHECK_EQ(l.rows[0].tid, 200);
        /* ... and the plugin still counts the old runtime only: 0.2 + 0.7 fits */
        {
                struct rtf_task_params q = edf(7000, 10000);
                struct manager_result r2;

                CHECK_EQ(manager_create(fx.mgr, &root, &q, "EDF", &r2), -EINVAL);      /* flag missing */
                q.flags |= RTF_PARAM_HAS_SCHEDULER;
                CHECK_EQ(manager_create(fx.mgr, &root, &q, "EDF", &r2), RTF_OK);
                CHECK_EQ(manager_release(fx.mgr, &root, r2.id, &r2), RTF_OK);
        }
        /* change: both the new and the restored setting are refused: demoted, detached */
        fx.k.fail_apply = -EPERM;
        fx.k.fail_apply_times = 2;
        CHECK_EQ(manager_change(fx.mgr, &root, id, &big, "", &res), -EPERM);
        CHECK_EQ(t->setting.policy, RTF_POLICY_OTHER);
        CHECK_EQ(list(fx.mgr).rows[0].tid, 0);
        CHECK_EQ(list(fx.mgr).params[0].runtime_us, 2000);
        /* change that works */
        CHECK_EQ(manager_attach(fx.mgr, &root, id, 200, &res), RTF_OK);
        CHECK_EQ(manager_change(fx.mgr, &root, id, &big, "", &res), RTF_OK);
        CHECK_EQ(t->setting.runtime_ns, 4000000);
        CHECK_EQ(res.accepted_runtime_us, 4000);
        /* release: a failed demotion does not keep the spec, but the thread
         * is still held (not closed) and demoted again by the watchdog */
        fx.k.fail_demote = -EIO;
        CHECK_EQ(manager_release(fx.mgr, &root, id, &res), RTF_OK);
        CHECK_EQ(list(fx.mgr).n, 0);
        CHECK_EQ(fx.k.n_open, fx.k.n_close + 1);
        CHECK(t->setting.policy != RTF_POLICY_OTHER);
        manager_watchdog(fx.mgr);
        CHECK_EQ(t->setting.policy, RTF_POLICY_OTHER);
        CHECK_EQ(fx.k.n_open, fx.k.n_close);
        manager_owner_gone(fx.mgr, &root);
        fixture_stop(&fx);
}

/* The policy, per-user accounting, ownership and the limits, for uid 65534. */
static void test_policy_and_limits(void) {
        struct owner a = { .uid = 65534, .gid = 65534, .pid = 10 }, b = { .uid = 65534, .gid = 65534, .pid = 11 };
        struct owner other = { .uid = 65533, .gid = 65533, .pid = 12 };
        struct limits lim = LIMITS_DEFAULT;
        struct manager_result res;
        struct rtf_task_params p = edf(3000, 10000);
        struct fixture fx;
        uint64_t first;

        /* Named: FP would refuse a request without a priority for its own reason. */
        p.flags |= RTF_PARAM_HAS_SCHEDULER;

        lim.max_specs_per_client = 3;
        lim.max_specs_per_uid = 4;
        if (fixture_start(&fx, CONFIG, &lim) < 0)
                return;
        owner_init(&fx, &a);
        owner_init(&fx, &b);
        owner_init(&fx, &other);
        CHECK_EQ(manager_connections_of(fx.mgr, 65534), 2);
        CHECK_EQ(manager_connections_of(fx.mgr, 65533), 1);
        CHECK_EQ(manager_connections_of(fx.mgr, 1), 0);
        /* max_utilization 0.5 summed over all of the user's connections */
        CHECK_EQ(manager_create(fx.mgr, &a, &p, "EDF", &res), RTF_OK);
        first = res.id;
        CHECK_EQ(manager_create(fx.mgr, &b, &p, "EDF", &res), RTF_ACL_FAIL);
        CHECK(strstr(res.reason, "max_utilization") != NULL);
        CHECK_EQ(manager_release(fx.mgr, &a, first, &res), RTF_OK);
        CHECK_EQ(manager_create(fx.mgr, &b, &p, "EDF", &res), RTF_OK);
        CHECK_EQ(manager_bandwidth_of(fx.mgr, 65534), 300000000);
        /* A change is judged without the spec's own old utilisation. */
        p = edf(4000, 10000);
        p.flags |= RTF_PARAM_HAS_SCHEDULER;
        CHECK_EQ(manager_change(fx.mgr, &b, res.id, &p, "EDF", &res), RTF_OK);
        CHECK_EQ(manager_bandwidth_of(fx.mgr, 65534), 400000000);
        /* Only one's own specifications. */
        CHECK_EQ(manager_release(fx.mgr, &a, res.id, &res), -EPERM);
        CHECK_EQ(manager_release(fx.mgr, &a, 9999, &res), -ENOENT);
        /* A thread of another user cannot be attached. */
        fake_spawn(&fx.k, 300, 0);
        CHECK_EQ(manager_attach(fx.mgr, &b, 2, 300, &res), -EPERM);
        CHECK_EQ(fx.k.n_apply, 0);
        /* A runtime above the period is refused as such, before the policy is asked. */
        p = edf(20000, 10000);
        p.flags |= RTF_PARAM_HAS_SCHEDULER;
        CHECK_EQ(manager_create(fx.mgr, &other, &p, "EDF", &res), -EINVAL);
        CHECK(strstr(res.reason, "runtime must be at most the period") != NULL);
        p = edf(4000, 10000);
        p.flags |= RTF_PARAM_HAS_SCHEDULER;
        /* No rule for this user and plugin: refused by the policy. */
        CHECK_EQ(manager_create(fx.mgr, &other, &p, "EDF", &res), RTF_ACL_FAIL);
        /* max_priority 40 on FP */
        p = prio(50);
        CHECK_EQ(manager_create(fx.mgr, &a, &p, "", &res), RTF_ACL_FAIL);
        p = prio(40);
        CHECK_EQ(manager_create(fx.mgr, &a, &p, "", &res), RTF_OK);
        /* max_specs_per_client 3, max_specs_per_uid 4 (b holds one) */
        CHECK_EQ(manager_create(fx.mgr, &a, &p, "", &res), RTF_OK);
        CHECK_EQ(manager_create(fx.mgr, &a, &p, "", &res), RTF_OK);
        CHECK_EQ(manager_create(fx.mgr, &a, &p, "", &res), -EUSERS);
        CHECK(strstr(res.reason, "max_specs_per_client") != NULL);
        CHECK_EQ(manager_create(fx.mgr, &b, &p, "", &res), -EUSERS);
        CHECK(strstr(res.reason, "max_specs_per_uid") != NULL);
        /* A connection gone gives its share back to the user. */
        manager_owner_gone(fx.mgr, &a);
        CHECK_EQ(manager_connections_of(fx.mgr, 65534), 1);
        CHECK_EQ(manager_create(fx.mgr, &b, &p, "", &res), RTF_OK);
        CHECK_EQ(list(fx.mgr).n, 2);
        CHECK_EQ(manager_bandwidth_of(fx.mgr, 65534), 400000000);   /* b's EDF spec; FP has no runtime */
        manager_owner_gone(fx.mgr, &b);
        CHECK_EQ(manager_bandwidth_of(fx.mgr, 65534), 0);
        manager_owner_gone(fx.mgr, &other);
        fixture_stop(&fx);
}

/* A thread that changes owners (a setuid exec) loses its setting at the next watchdog round. */
static void test_watchdog_owners(void) {
        struct owner a = { .uid = 65534, .gid = 65534, .pid = 10 };
        struct manager_result res;
        struct rtf_task_params p = edf(1000, 10000);
        struct fake_thread *t;
        struct fixture fx;

        if (fixture_start(&fx, CONFIG, NULL) < 0)
                return;
        owner_init(&fx, &a);
        t = fake_spawn(&fx.k, 400, 65534);
        CHECK_EQ(manager_create(fx.mgr, &a, &p, "", &res), RTF_OK);
        CHECK_EQ(manager_attach(fx.mgr, &a, res.id, 400, &res), RTF_OK);
        CHECK_EQ(t->setting.policy, RTF_POLICY_DEADLINE);
        manager_watchdog(fx.mgr);
        CHECK_EQ(t->setting.policy, RTF_POLICY_DEADLINE);
        /* Owners that cannot be read count as changed. */
        fx.k.fail_owners = -EIO;
        manager_watchdog(fx.mgr);
        CHECK_EQ(t->setting.policy, RTF_POLICY_OTHER);
        CHECK_EQ(list(fx.mgr).rows[0].tid, 0);
        CHECK_EQ(manager_attach(fx.mgr, &a, 1, 400, &res), RTF_OK);
        t->uid = 0;
        manager_watchdog(fx.mgr);
        CHECK_EQ(t->setting.policy, RTF_POLICY_OTHER);
        CHECK_EQ(list(fx.mgr).rows[0].tid, 0);
        manager_owner_gone(fx.mgr, &a);
        fixture_stop(&fx);
}

/*
 * Explicit commits: RM re-prioritises the other tasks of a CPU when a change
 * brings a new period.  When the kernel then refuses the changed task's
 * setting, the change is rolled back, and the other thread gets its (old)
 * setting once, after the rollback, instead of the new one and then the old
 * one in the middle of the commit.
 */
static void test_commit_defers_updates(void) {
        struct owner root = { .uid = 0, .pid = 1 };
        struct manager_result res;
        struct rtf_task_params a = edf(1000, 10000), b = edf(1000, 20000), fast = edf(1000, 5000);
        struct fake_thread *ta, *tb;
        struct fixture fx;
        uint32_t prio_a, prio_b;
        unsigned applies_a;
        uint64_t id_b;

        if (fixture_start_with(&fx, "RM RM.so 50-89 0\n", "", NULL) < 0)
                return;
        owner_init(&fx, &root);
        ta = fake_spawn(&fx.k, 500, 0);
        tb = fake_spawn(&fx.k, 501, 0);
        CHECK_EQ(manager_create(fx.mgr, &root, &a, "", &res), RTF_OK);
        CHECK_EQ(manager_attach(fx.mgr, &root, res.id, 500, &res), RTF_OK);
        CHECK_EQ(manager_create(fx.mgr, &root, &b, "", &res), RTF_OK);
        id_b = res.id;
        CHECK_EQ(manager_attach(fx.mgr, &root, id_b, 501, &res), RTF_OK);
        prio_a = ta->setting.priority;
        prio_b = tb->setting.priority;
        CHECK(prio_a > prio_b);         /* rate-monotonic: the shorter period ranks higher */
        applies_a = ta->applies;

        fx.k.fail_apply = -EPERM;
        fx.k.fail_apply_times = 1;
        CHECK_EQ(manager_change(fx.mgr, &root, id_b, &fast, "", &res), -EPERM);
        CHECK_EQ(ta->setting.priority, prio_a);
        CHECK_EQ(tb->setting.priority, prio_b);
        CHECK(ta->applies <= applies_a + 1);

        /* The same change, committed: A moves down once, B gets the top. */
        applies_a = ta->applies;
        CHECK_EQ(manager_change(fx.mgr, &root, id_b, &fast, "", &res), RTF_OK);
        CHECK(tb->setting.priority > ta->setting.priority);
        CHECK(ta->setting.priority < prio_a);
        CHECK_EQ(ta->applies, applies_a + 1);
        manager_owner_gone(fx.mgr, &root);
        CHECK_EQ(ta->setting.policy, RTF_POLICY_OTHER);
        fixture_stop(&fx);
}

/* A whole-machine check that refuses any tentative task of 4000 us, and shows what it was given. */
struct veto_seen {
        unsigned calls;
        uint32_t n_instances, n_tasks, n_tentative;
        char first_instance[32];
};

static int veto_4000(void *userdata, const struct manager_machine *m, char *reason, size_t reason_size) {
        struct veto_seen *seen = userdata;
        bool refuse = false;

        seen->calls++;
        seen->n_instances = m->n_instances;
        seen->n_tasks = seen->n_tentative = 0;
        snprintf(seen->first_instance, sizeof(seen->first_instance), "%s", m->instances[0].name);
        for (uint32_t i = 0; i < m->n_instances; i++)
                for (uint32_t k = 0; k < m->instances[i].n_tasks; k++) {
                        const struct manager_machine_task *t = &m->instances[i].tasks[k];

                        seen->n_tasks++;
                        seen->n_tentative += t->tentative;
                        refuse |= t->tentative && t->params->runtime_us == 4000;
                }
        if (refuse)
                snprintf(reason, reason_size, "4000 us does not fit");
        return refuse ? -1 : 0;
}

static void test_machine_veto(void) {
        struct owner root = { .uid = 0, .pid = 1 };
        struct manager_result res;
        struct rtf_task_params small = edf(3000, 10000), refused = edf(4000, 10000), big = edf(5000, 10000);
        struct veto_seen seen = { 0 };
        struct fake_thread *t;
        struct fixture fx;
        uint64_t id;

        if (fixture_start(&fx, CONFIG, NULL) < 0)
                return;
        owner_init(&fx, &root);
        manager_set_veto(fx.mgr, veto_4000, &seen);
        t = fake_spawn(&fx.k, 600, 0);
        CHECK_EQ(manager_create(fx.mgr, &root, &small, "", &res), RTF_OK);
        id = res.id;
        CHECK_EQ(seen.calls, 1);
        CHECK_EQ(seen.n_instances, 2);
        CHECK(strcmp(seen.first_instance, "EDF") == 0);
        CHECK_EQ(seen.n_tasks, 1);
        CHECK_EQ(seen.n_tentative, 1);
        CHECK_EQ(manager_attach(fx.mgr, &root, id, 600, &res), RTF_OK);
        /* Refused by the veto: rolled back, the plugin holds nothing of it. */
        CHECK_EQ(manager_create(fx.mgr, &root, &refused, "", &res), RTF_SCHEDULE_FAIL);
        CHECK(strstr(res.reason, "whole machine: 4000 us does not fit") != NULL);
        CHECK_EQ(seen.n_tasks, 2);
        CHECK_EQ(list(fx.mgr).n, 1);
        CHECK_EQ(manager_create(fx.mgr, &root, &big, "", &res), RTF_OK);       /* 0.3 + 0.5 fits */
        CHECK_EQ(manager_release(fx.mgr, &root, res.id, &res), RTF_OK);
        /* A change refused by the veto keeps the old parameters and setting. */
        CHECK_EQ(manager_change(fx.mgr, &root, id, &refused, "", &res), RTF_SCHEDULE_FAIL);
        CHECK_EQ(list(fx.mgr).params[0].runtime_us, 3000);
        CHECK_EQ(t->setting.runtime_ns, 3000000);
        CHECK_EQ(manager_change(fx.mgr, &root, id, &big, "", &res), RTF_OK);
        CHECK_EQ(t->setting.runtime_ns, 5000000);
        manager_owner_gone(fx.mgr, &root);
        fixture_stop(&fx);
}

/* The veto's kept arrays: every spec once, in its instance, in list order, the create's own tentative. */
struct veto_layout {
        unsigned calls, bad, n_tasks, n_tentative;
};

static int veto_layout_check(void *userdata, const struct manager_machine *m, char *reason, size_t reason_size) {
        struct veto_layout *seen = userdata;

        (void)reason, (void)reason_size;
        seen->calls++;
        seen->n_tasks = seen->n_tentative = 0;
        for (uint32_t i = 0; i < m->n_instances; i++) {
                uint32_t want = strcmp(m->instances[i].name, "EDF") == 0 ? RTF_POLICY_DEADLINE : RTF_POLICY_FIFO;
                uint64_t last = 0;

                for (uint32_t k = 0; k < m->instances[i].n_tasks; k++) {
                        const struct manager_machine_task *t = &m->instances[i].tasks[k];

                        seen->bad += t->setting.policy != want || (t->id != 0 && t->id <= last);
                        last = t->id ? t->id : last;    /* the create's own has no id yet */
                        seen->n_tasks++;
                        seen->n_tentative += t->tentative;
                }
        }
        return 0;
}

/* 64 creates over two instances, interleaved, every fifth followed by a release from the middle. */
static void test_machine_veto_layout(void) {
        struct owner root = { .uid = 0, .pid = 1 };
        struct veto_layout seen = { 0 };
        struct manager_result res;
        struct fixture fx;
        uint64_t ids[64];
        uint32_t live = 0;

        if (fixture_start(&fx, CONFIG, NULL) < 0)
                return;
        owner_init(&fx, &root);
        manager_set_veto(fx.mgr, veto_layout_check, &seen);
        for (uint32_t i = 0; i < 64; i++) {
                struct rtf_task_params p = i % 3 ? prio(1 + i % 80) : edf(10, 100000);

                p.flags |= RTF_PARAM_HAS_SCHEDULER;
                CHECK_EQ(manager_create(fx.mgr, &root, &p, i % 3 ? "FP" : "EDF", &res), RTF_OK);
                ids[live++] = res.id;
                CHECK(seen.n_tasks == live && seen.n_tentative == 1);
                if (i % 5 == 4) {
                        CHECK_EQ(manager_release(fx.mgr, &root, ids[live / 2], &res), RTF_OK);
                        memmove(&ids[live / 2], &ids[live / 2 + 1], (live - live / 2 - 1) * sizeof(ids[0]));
                        live--;
                }
        }
        CHECK(seen.calls == 64 && seen.bad == 0);
        manager_owner_gone(fx.mgr, &root);
        fixture_stop(&fx);
}

/* The request rate per uid: a second connection buys no more. */
static void test_rate_per_uid(void) {
        struct owner a = { .uid = 65534, .pid = 10 }, b = { .uid = 65534, .pid = 11 }, root = { .uid = 0 };
        struct limits lim = LIMITS_DEFAULT;
        struct fixture fx;
        unsigned allowed = 0;

        lim.max_requests_per_sec_per_uid = 1;   /* next token in a second: none comes during the test */
        lim.request_burst_per_uid = 5;
        if (fixture_start(&fx, CONFIG, &lim) < 0)
                return;
        owner_init(&fx, &a);
        owner_init(&fx, &b);
        owner_init(&fx, &root);
        for (int i = 0; i < 4; i++)
                allowed += manager_user_rate_allows(fx.mgr, &a);
        for (int i = 0; i < 4; i++)
                allowed += manager_user_rate_allows(fx.mgr, &b);
        CHECK_EQ(allowed, 5);
        for (int i = 0; i < 20; i++)
                CHECK(manager_user_rate_allows(fx.mgr, &root));
        manager_owner_gone(fx.mgr, &a);
        manager_owner_gone(fx.mgr, &b);
        manager_owner_gone(fx.mgr, &root);
        fixture_stop(&fx);
}

/*
 * max_priority bounds the priority the plugin grants (issue 10, 3): RM ignores
 * the request's priority and gives the top of its range to a lone task; FP
 * maps a requested 10 into its range 50-89.  Both are refused, and rolled back.
 */
static void test_policy_on_granted(void) {
        struct owner a = { .uid = 65534, .gid = 65534, .pid = 10 }, root = { .uid = 0 };
        struct rtf_task_params rm = edf(1000, 10000), fp = prio(10);
        struct manager_result res;
        struct fixture fx;

        if (fixture_start_with(&fx, "RM RM.so 50-89 0\nFP FP.so 50-89 0\n",
                               "nobody RM max_priority 60\nnobody FP max_priority 20\n", NULL) < 0)
                return;
        owner_init(&fx, &a);
        owner_init(&fx, &root);
        rm.flags |= RTF_PARAM_HAS_SCHEDULER;
        fp.flags |= RTF_PARAM_HAS_SCHEDULER;
        CHECK_EQ(manager_create(fx.mgr, &a, &rm, "RM", &res), RTF_ACL_FAIL);
        CHECK(strstr(res.reason, "max_priority 60") != NULL);
        CHECK_EQ(manager_create(fx.mgr, &a, &fp, "FP", &res), RTF_ACL_FAIL);
        CHECK(strstr(res.reason, "max_priority 20") != NULL);
        CHECK_EQ(list(fx.mgr).n, 0);
        /* Rolled back: root gets the very same grants. */
        CHECK_EQ(manager_create(fx.mgr, &root, &rm, "RM", &res), RTF_OK);
        CHECK_EQ(res.priority, 89);
        CHECK_EQ(manager_create(fx.mgr, &root, &fp, "FP", &res), RTF_OK);
        CHECK_EQ(res.priority, 50);
        CHECK_EQ(list(fx.mgr).n, 2);
        manager_owner_gone(fx.mgr, &a);
        manager_owner_gone(fx.mgr, &root);
        fixture_stop(&fx);
}

/* The latency hint is a property of the policy: root keeps it, others only where a rule grants it. */
static void test_latency_hint(void) {
        struct owner a = { .uid = 65534, .gid = 65534, .pid = 10 }, root = { .uid = 0 };
        struct rtf_task_params p = edf(1000, 10000);
        struct manager_result res;
        uint64_t on_edf, on_fp;
        struct fixture fx;

        if (fixture_start_with(&fx, CONFIG, "nobody EDF max_utilization 0.5\nnobody EDF latency_hint true\n"
                               "nobody FP max_priority 40\n", NULL) < 0)
                return;
        owner_init(&fx, &a);
        owner_init(&fx, &root);
        fake_spawn(&fx.k, 700, 65534);
        fake_spawn(&fx.k, 701, 65534);
        fake_spawn(&fx.k, 702, 0);
        p.flags |= RTF_PARAM_HAS_SCHEDULER;
        CHECK_EQ(manager_create(fx.mgr, &a, &p, "EDF", &res), RTF_OK);
        on_edf = res.id;
        p = prio(30);
        CHECK_EQ(manager_create(fx.mgr, &a, &p, "", &res), RTF_OK);
        on_fp = res.id;
        /* No rule grants it on FP: attached, but no hint. */
        CHECK_EQ(manager_attach(fx.mgr, &a, on_fp, 701, &res), RTF_OK);
        CHECK(!fx.k.hint);
        CHECK_EQ(manager_attach(fx.mgr, &a, on_edf, 700, &res), RTF_OK);
        CHECK(fx.k.hint);
        CHECK_EQ(manager_detach(fx.mgr, &a, on_edf, &res), RTF_OK);
        CHECK(!fx.k.hint);              /* the FP thread alone does not hold it */
        /* Root: as before, any attached thread holds it. */
        CHECK_EQ(manager_create(fx.mgr, &root, &p, "", &res), RTF_OK);
        CHECK_EQ(manager_attach(fx.mgr, &root, res.id, 702, &res), RTF_OK);
        CHECK(fx.k.hint);
        manager_owner_gone(fx.mgr, &root);
        CHECK(!fx.k.hint);
        manager_owner_gone(fx.mgr, &a);
        fixture_stop(&fx);
}

/* Reload: every live spec moves to the new instances (and its thread gets their
 * setting), or, if one cannot, nothing changes. */
static void test_reload(void) {
        struct owner root = { .uid = 0 };
        struct rtf_task_params p = prio(30);
        struct manager_result res;
        struct fake_thread *t;
        struct fixture fx;
        unsigned applies;

        if (fixture_start(&fx, CONFIG, NULL) < 0)
                return;
        owner_init(&fx, &root);
        t = fake_spawn(&fx.k, 800, 0);
        CHECK_EQ(manager_create(fx.mgr, &root, &p, "", &res), RTF_OK);
        CHECK(strcmp(res.plugin, "FP") == 0);
        CHECK_EQ(manager_attach(fx.mgr, &root, res.id, 800, &res), RTF_OK);
        CHECK_EQ(t->setting.priority, 30);
        /* FP's range moves up: the thread follows at once. */
        write_file(fx.config, "EDF EDF.so 100-100 0\nFP FP.so 40-89 0\n");
        applies = t->applies;
        CHECK_EQ(manager_reload(fx.mgr), 0);
        CHECK_EQ(t->applies, applies + 1);
        CHECK_EQ(t->setting.policy, RTF_POLICY_FIFO);
        CHECK(t->setting.priority >= 40);
        /* A configuration without FP cannot hold the spec: refused, the old one stays. */
        write_file(fx.config, "EDF EDF.so 100-100 0\n");
        CHECK(manager_reload(fx.mgr) < 0);
        CHECK_EQ(list(fx.mgr).n, 1);
        CHECK(strcmp(list(fx.mgr).rows[0].plugin, "FP") == 0);
        CHECK_EQ(t->setting.policy, RTF_POLICY_FIFO);
        /* A change still works on the instances in force. */
        p = prio(60);
        CHECK_EQ(manager_change(fx.mgr, &root, 1, &p, "", &res), RTF_OK);
        CHECK_EQ(t->setting.priority, res.priority);
        manager_owner_gone(fx.mgr, &root);
        CHECK_EQ(t->setting.policy, RTF_POLICY_OTHER);
        fixture_stop(&fx);
}

int main(void) {
        if (!getenv("RTF_BUILD_PLUGINDIR")) {
                fprintf(stderr, "RTF_BUILD_PLUGINDIR is not set: no plugins to test the broker with\n");
                return 77;
        }
        test_choice();
        test_attach();
        test_kernel_failures();
        test_policy_and_limits();
        test_watchdog_owners();
        test_commit_defers_updates();
        test_machine_veto();
        test_machine_veto_layout();
        test_rate_per_uid();
        test_policy_on_granted();
        test_latency_hint();
        test_reload();
        return test_done();
}
