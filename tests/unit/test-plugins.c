/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The built plugins (EDF.so, RM.so, FP.so, RR.so from $RTF_BUILD_PLUGINDIR)
 * driven through the plugin ABI the way rtfd drives them: a test host
 * records log lines and task_updated calls; create/change/rollback follow
 * the daemon's protocol (accept+schedule; change, release, new params,
 * schedule; release and re-schedule the old decision).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtf/rtf-plugin.h"
#include "rtf/rtf.h"
#include "tap.h"

#define ELEMS(x) (sizeof(x) / sizeof((x)[0]))
#define MAX_LOG 128
#define MAX_UPDATES 128

struct test_host {
        struct rtf_plugin_host host;
        char log[MAX_LOG][256];
        unsigned n_log;
        struct rtf_plugin_task *updated[MAX_UPDATES];
        unsigned n_updated;
};

static struct test_host th;
static uint64_t next_id;

__attribute__((format(printf, 3, 4))) static void host_log(void *data, int level, const char *fmt, ...) {
        struct test_host *h = data;
        char line[256];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        fprintf(stderr, "# <%d> %s\n", level, line);
        if (h->n_log < MAX_LOG)
                memcpy(h->log[h->n_log++], line, sizeof(line));
}

static void host_task_updated(void *data, struct rtf_plugin_task *task) {
        struct test_host *h = data;

        if (h->n_updated < MAX_UPDATES)
                h->updated[h->n_updated++] = task;
}

static void host_reset(void) {
        memset(&th, 0, sizeof(th));
        th.host = (struct rtf_plugin_host) {
                .version = RTF_PLUGIN_ABI_VERSION,
                .size = sizeof(struct rtf_plugin_host),
                .data = &th,
                .log = host_log,
                .task_updated = host_task_updated,
        };
}

static bool logged(const char *needle) {
        for (unsigned i = 0; i < th.n_log; i++)
                if (strstr(th.log[i], needle))
                        return true;
        return false;
}

static bool was_updated(const struct rtf_plugin_task *t) {
        for (unsigned i = 0; i < th.n_updated; i++)
                if (th.updated[i] == t)
                        return true;
        return false;
}

static void updates_clear(void) {
        th.n_updated = 0;
}

static const struct rtf_plugin_ops *load(const char *file, void **ret_dl) {
        const char *dir = getenv("RTF_BUILD_PLUGINDIR");
        const struct rtf_plugin_ops *ops;
        rtf_plugin_entry_fn entry;
        char path[4096];
        void *dl, *sym;

        snprintf(path, sizeof(path), "%s/%s", dir, file);
        dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        CHECK(dl != NULL);
        if (!dl) {
                fprintf(stderr, "# %s\n", dlerror());
                return NULL;
        }
        /* ISO C has no cast from object to function pointer; POSIX guarantees the copy. */
        sym = dlsym(dl, RTF_PLUGIN_ENTRY_NAME);
        CHECK(sym != NULL);
        memcpy(&entry, &sym, sizeof(entry));
        /* only the entry is exported */
        CHECK(dlsym(dl, "plugin_base_init") == NULL);
        CHECK(dlsym(dl, "adm_edf_test_core") == NULL);
        CHECK(dlsym(dl, "prio_plugin_accept") == NULL);
        if (!sym) {
                dlclose(dl);
                return NULL;
        }
        CHECK(entry(RTF_PLUGIN_ABI_VERSION + 1) == NULL);
        CHECK(entry(0) == NULL);
        ops = entry(RTF_PLUGIN_ABI_VERSION);
        CHECK(ops != NULL);
        if (!ops) {
                dlclose(dl);
                return NULL;
        }
        CHECK_EQ(ops->version, RTF_PLUGIN_ABI_VERSION);
        CHECK_EQ(ops->size, sizeof(struct rtf_plugin_ops));
        CHECK(ops->init && ops->fini && ops->accept && ops->change && ops->schedule &&
              ops->release && ops->attach && ops->core_status);
        *ret_dl = dl;
        return ops;
}

static struct rtf_plugin_config config(const char *instance, uint32_t lo, uint32_t hi,
                                       const uint32_t *cpus, const bool *partitioned, uint32_t n,
                                       const char *const *options, uint32_t n_options) {
        return (struct rtf_plugin_config) {
                .size = sizeof(struct rtf_plugin_config),
                .n_cpus = n,
                .instance = instance,
                .prio_min = lo,
                .prio_max = hi,
                .cpus = cpus,
                .partitioned = partitioned,
                .n_options = n_options,
                .options = options,
        };
}

/* Parameters; a zero means "not given". */
static struct rtf_task_params params(uint64_t period, uint64_t runtime, uint64_t des_runtime,
                                     uint64_t deadline, uint32_t priority, uint32_t extra_flags) {
        return (struct rtf_task_params) {
                .flags = (period ? RTF_PARAM_HAS_PERIOD : 0) | (runtime ? RTF_PARAM_HAS_RUNTIME : 0) |
                         (des_runtime ? RTF_PARAM_HAS_DES_RUNTIME : 0) |
                         (deadline ? RTF_PARAM_HAS_DEADLINE : 0) |
                         (priority ? RTF_PARAM_HAS_PRIORITY : 0) | extra_flags,
                .priority = priority,
                .period_us = period,
                .runtime_us = runtime,
                .des_runtime_us = des_runtime,
                .deadline_us = deadline,
        };
}

/* rtfd's create: accept, then schedule the same decision. */
static int create(const struct rtf_plugin_ops *ops, void *st, struct rtf_plugin_task *t,
                  struct rtf_task_params p, struct rtf_plugin_decision *d) {
        int v;

        *t = (struct rtf_plugin_task) { .id = ++next_id, .core = -1 };
        v = ops->accept(st, &p, d);
        if (v <= RTF_PLUGIN_NO)
                return v;
        t->params = p;
        CHECK_EQ(ops->schedule(st, t, d), 0);
        CHECK_EQ(t->core, d->core);
        CHECK_EQ(t->priority, d->priority);
        CHECK_EQ(t->accepted_runtime_us, d->accepted_runtime_us);
        return v;
}

/* rtfd's change inside one plugin: change, release, new params, schedule. */
static int change(const struct rtf_plugin_ops *ops, void *st, struct rtf_plugin_task *t,
                  struct rtf_task_params p, struct rtf_plugin_decision *d) {
        int v = ops->change(st, t, &p, d);

        if (v <= RTF_PLUGIN_NO)
                return v;
        ops->release(st, t);
        t->params = p;
        CHECK_EQ(ops->schedule(st, t, d), 0);
        CHECK_EQ(t->core, d->core);
        CHECK_EQ(t->priority, d->priority);
        CHECK_EQ(t->accepted_runtime_us, d->accepted_runtime_us);
        return v;
}

/* rtfd's rollback after a failed apply: release, old params, old decision. */
static void rollback(const struct rtf_plugin_ops *ops, void *st, struct rtf_plugin_task *t,
                     const struct rtf_plugin_task *old) {
        struct rtf_plugin_decision d = {
                .core = old->core,
                .priority = old->priority,
                .accepted_runtime_us = old->accepted_runtime_us,
        };

        ops->release(st, t);
        t->params = old->params;
        CHECK_EQ(ops->schedule(st, t, &d), 0);
        CHECK_EQ(t->core, old->core);
        CHECK_EQ(t->priority, old->priority);
        CHECK_EQ(t->accepted_runtime_us, old->accepted_runtime_us);
}

static double core_util(const struct rtf_plugin_ops *ops, void *st, uint32_t core) {
        struct rtf_plugin_core_status cs;

        CHECK_EQ(ops->core_status(st, core, &cs), 0);
        return cs.utilization;
}

static uint32_t core_tasks(const struct rtf_plugin_ops *ops, void *st, uint32_t core) {
        struct rtf_plugin_core_status cs;

        CHECK_EQ(ops->core_status(st, core, &cs), 0);
        return cs.tasks;
}

#define CHECK_NEAR(a, b) CHECK((a) > (b) - 1e-6 && (a) < (b) + 1e-6)

/* init must fail (and say why) for these option lists. */
static void check_bad_options(const struct rtf_plugin_ops *ops, const char *const *opts,
                              uint32_t n, uint32_t lo, uint32_t hi) {
        static const uint32_t cpus[] = { 1 };
        struct rtf_plugin_config c = config("BAD", lo, hi, cpus, NULL, 1, opts, n);
        void *st = NULL;

        host_reset();
        CHECK_EQ(ops->init(&th.host, &c, &st), -EINVAL);
        CHECK(st == NULL);
        CHECK(th.n_log > 0);
}

static void test_edf_partitioned(const struct rtf_plugin_ops *ops) {
        static const uint32_t cpus[] = { 5, 7 };
        static const bool part[] = { true, true };
        static const char *const opts[] = { "util=0.5" };
        struct rtf_plugin_config c = config("EDF1", 100, 100, cpus, part, 2, opts, 1);
        struct rtf_plugin_task a, b, t3, d, e, old;
        struct rtf_plugin_decision dec;
        struct rtf_sched_setting set;
        void *st = NULL;

        host_reset();
        CHECK_EQ(ops->init(&th.host, &c, &st), 0);
        if (!st)
                return;
        CHECK(logged("EDF1: 2 partitioned CPUs"));

        /* worst-fit spreads: core 0 (CPU 5), then core 1 (CPU 7) */
        CHECK_EQ(create(ops, st, &a, params(10000, 2000, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(a.core, 0);
        CHECK_EQ(a.accepted_runtime_us, 2000);
        CHECK_EQ(ops->attach(st, &a, &set), 0);
        CHECK_EQ(set.policy, RTF_POLICY_DEADLINE);
        CHECK_EQ(set.cpu, 5);
        CHECK_EQ(set.runtime_ns, 2000000);
        CHECK_EQ(set.deadline_ns, 10000000);
        CHECK_EQ(set.period_ns, 10000000);
        CHECK_EQ(set.flags, 0);         /* the overrun signal is opt-in */
        a.params.flags |= RTF_PARAM_OVERRUN_SIGNAL;
        CHECK_EQ(ops->attach(st, &a, &set), 0);
        CHECK_EQ(set.flags, RTF_SETTING_DL_OVERRUN);
        a.params.flags &= ~RTF_PARAM_OVERRUN_SIGNAL;
        CHECK_EQ(create(ops, st, &b, params(10000, 2000, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(b.core, 1);
        CHECK_EQ(ops->attach(st, &b, &set), 0);
        CHECK_EQ(set.cpu, 7);

        /* exactly U_thr: admitted; one more microsecond: refused */
        CHECK_EQ(create(ops, st, &t3, params(10000, 3000, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(t3.core, 0);
        CHECK_NEAR(core_util(ops, st, 0), 0.5);
        CHECK_EQ(create(ops, st, &d, params(10000, 3001, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK_EQ(dec.core, -1);
        CHECK(strcmp(dec.reason, "EDF: CPU 7 utilisation 0.2000 + 0.3001 = 0.5001 > 0.5000") == 0);
        fprintf(stderr, "# reason: %s\n", dec.reason);

        /* eq. 4: Q = 1000, Qd = 5000 on a core at 0.2 of 0.5 -> 3000; the deadline is the window */
        CHECK_EQ(create(ops, st, &d, params(20000, 1000, 5000, 10000, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(d.core, 1);
        CHECK_EQ(d.accepted_runtime_us, 3000);
        CHECK_EQ(ops->attach(st, &d, &set), 0);
        CHECK_EQ(set.runtime_ns, 3000000);
        CHECK_EQ(set.deadline_ns, 10000000);
        CHECK_EQ(set.period_ns, 20000000);
        CHECK_NEAR(core_util(ops, st, 1), 0.5);

        /* everything full: refused, unless the ACL lets the client ignore the test: then Q */
        CHECK_EQ(create(ops, st, &e, params(10000, 100, 900, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK_EQ(create(ops, st, &e, params(10000, 100, 900, 0, 0, RTF_PARAM_IGNORE_ADMISSION), &dec),
                 RTF_PLUGIN_OK);
        CHECK(strstr(dec.reason, "ignored") != NULL);
        CHECK_EQ(e.accepted_runtime_us, 100);
        CHECK_EQ(e.core, 0);
        CHECK_NEAR(core_util(ops, st, 0), 0.51);
        ops->release(st, &e);
        CHECK(e.plugin_data == NULL);
        CHECK_NEAR(core_util(ops, st, 0), 0.5);

        /* mandatory and sane parameters */
        CHECK_EQ(ops->accept(st, &(struct rtf_task_params) { .flags = RTF_PARAM_HAS_PERIOD, .period_us = 1000 }, &dec),
                 RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "mandatory") != NULL);
        {
                struct rtf_task_params bad[] = {
                        params(10000, 100, 0, 20000, 0, 0),     /* D > T */
                        params(10000, 1, 0, 0, 0, 0),           /* runtime below 1024 ns */
                        params(10000, 200, 100, 0, 0, 0),       /* Qd < Q */
                        params(50, 10, 0, 0, 0, 0),             /* period below 100 us */
                        params(5000000, 10, 0, 0, 0, 0),        /* period above 2^22 us */
                        params(10000, 600, 0, 500, 0, 0),       /* runtime > deadline */
                };

                for (size_t i = 0; i < ELEMS(bad); i++) {
                        CHECK_EQ(ops->accept(st, &bad[i], &dec), RTF_PLUGIN_NO);
                        CHECK(strncmp(dec.reason, "EDF: ", 5) == 0);
                }
        }

        CHECK_EQ(core_tasks(ops, st, 0), 2);
        CHECK_EQ(core_tasks(ops, st, 1), 2);
        {
                struct rtf_plugin_core_status cs;

                CHECK_EQ(ops->core_status(st, 2, &cs), -EINVAL);
        }

        /* change: the task's own share is not counted against it */
        CHECK_EQ(change(ops, st, &a, params(10000, 2500, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK_EQ(a.accepted_runtime_us, 2000);
        CHECK_EQ(change(ops, st, &a, params(10000, 1000, 4000, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(a.core, 0);
        CHECK_EQ(a.accepted_runtime_us, 2000); /* room (0.5 - 0.3) x 10000 */
        CHECK_NEAR(core_util(ops, st, 0), 0.5);
        CHECK_EQ(change(ops, st, &a, params(10000, 1000, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_NEAR(core_util(ops, st, 0), 0.4);

        /* rollback: the old decision is re-scheduled and the books are as before */
        old = t3;
        CHECK_EQ(change(ops, st, &t3, params(10000, 500, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_NEAR(core_util(ops, st, 0), 0.15);
        rollback(ops, st, &t3, &old);
        CHECK_NEAR(core_util(ops, st, 0), 0.4);
        CHECK_EQ(core_tasks(ops, st, 0), 2);

        ops->release(st, &a);
        ops->release(st, &b);
        ops->release(st, &t3);
        ops->release(st, &d);
        CHECK_EQ(core_tasks(ops, st, 0) + core_tasks(ops, st, 1), 0);
        CHECK_NEAR(core_util(ops, st, 0) + core_util(ops, st, 1), 0);
        CHECK_EQ(th.n_updated, 0);
        ops->fini(st);
}

static void test_edf_global(const struct rtf_plugin_ops *ops) {
        static const uint32_t cpus[] = { 5, 7 };
        static const bool part[] = { true, false };
        static const char *const opts[] = { "util=1" };
        struct rtf_plugin_config c = config("EDFG", 100, 100, cpus, part, 2, opts, 1);
        struct rtf_plugin_task a, b, x;
        struct rtf_plugin_decision dec;
        struct rtf_sched_setting set;
        void *st = NULL;

        host_reset();
        CHECK_EQ(ops->init(&th.host, &c, &st), 0);
        if (!st)
                return;
        CHECK(logged("global EDF"));

        /* GFB on 2 CPUs: 0.9 + 0.9 (max) = 1.8 <= 2 */
        CHECK_EQ(create(ops, st, &a, params(10000, 9000, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(a.core, -1);
        CHECK_EQ(ops->attach(st, &a, &set), 0);
        CHECK_EQ(set.cpu, -1);
        CHECK_EQ(set.policy, RTF_POLICY_DEADLINE);
        /* 1.8 + 0.9 = 2.7 > 2, 1.4 + 0.9 = 2.3 > 2, 1.1 + 0.9 = 2.0 <= 2 */
        CHECK_EQ(create(ops, st, &b, params(10000, 9000, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "global") != NULL);
        fprintf(stderr, "# reason: %s\n", dec.reason);
        CHECK_EQ(create(ops, st, &b, params(10000, 5000, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK_EQ(create(ops, st, &b, params(10000, 2000, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(core_tasks(ops, st, 0) + core_tasks(ops, st, 1), 2);
        CHECK_NEAR(core_util(ops, st, 0) + core_util(ops, st, 1), 1.1);

        /* without the 0.9 task the max drops: 0.2 + 0.9 + 0.9 = 2.0 */
        ops->release(st, &a);
        CHECK_EQ(create(ops, st, &a, params(10000, 9000, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        /* change of the max holder: counted without its own density */
        CHECK_EQ(change(ops, st, &a, params(10000, 9000, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &x, params(10000, 100, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        ops->release(st, &a);
        ops->release(st, &b);
        CHECK_EQ(core_tasks(ops, st, 0) + core_tasks(ops, st, 1), 0);
        ops->fini(st);

        /* no partition information at all: global too */
        c.partitioned = NULL;
        host_reset();
        CHECK_EQ(ops->init(&th.host, &c, &st), 0);
        CHECK(logged("global EDF"));
        ops->fini(st);
}

/* GFB's room on m CPUs at U_thr 1 (ppb), as admission/edf.c computes it. */
static int64_t model_gfb_room(uint64_t sum, uint64_t max, uint64_t m) {
        uint64_t cap = m * 1000000000ULL;

        if (sum + (m - 1) * max > cap)
                return -1;
        if (cap - sum - (m - 1) * max < max)
                return (int64_t)(cap - sum - (m - 1) * max);
        return (int64_t)((cap - sum) / m);
}

/*
 * The largest density of the global pool, kept through random creates,
 * changes and releases (a heap in EDF.so), seen from outside: a probe that
 * asks for the whole window is granted exactly the room GFB leaves, and that
 * room depends on the largest density.
 */
static void test_edf_global_max(const struct rtf_plugin_ops *ops) {
        static const uint32_t cpus[] = { 0, 1 };
        static const char *const opts[] = { "util=1" };
        struct rtf_plugin_config c = config("EDFM", 100, 100, cpus, NULL, 2, opts, 1);
        enum { N = 16, WINDOW = 1000000 };
        struct rtf_plugin_task t[N];
        uint64_t runtime[N] = { 0 };    /* 0 = not admitted; density = runtime * 1000 ppb */
        struct rtf_plugin_decision dec;
        unsigned seed = 12345, mismatches = 0;
        void *st = NULL;

        host_reset();
        CHECK_EQ(ops->init(&th.host, &c, &st), 0);
        if (!st)
                return;
        for (int step = 0; step < 3000; step++) {
                uint64_t sum = 0, max = 0, r;
                unsigned i = (unsigned)rand_r(&seed) % N;
                int64_t room;
                int v;

                r = 5000 + (uint64_t)rand_r(&seed) % 400000;
                for (unsigned k = 0; k < N; k++)
                        if (k != i && runtime[k]) {
                                sum += runtime[k] * 1000;
                                max = runtime[k] * 1000 > max ? runtime[k] * 1000 : max;
                        }
                room = model_gfb_room(sum, max > r * 1000 ? max : r * 1000, 2);
                if (runtime[i] && rand_r(&seed) % 3 == 0) {
                        ops->release(st, &t[i]);
                        runtime[i] = 0;
                } else if (runtime[i]) {
                        v = change(ops, st, &t[i], params(WINDOW, r, 0, 0, 0, 0), &dec);
                        mismatches += (v == RTF_PLUGIN_OK) != (room >= (int64_t)(r * 1000));
                        if (v == RTF_PLUGIN_OK)
                                runtime[i] = r;
                } else {
                        v = create(ops, st, &t[i], params(WINDOW, r, 0, 0, 0, 0), &dec);
                        mismatches += (v == RTF_PLUGIN_OK) != (room >= (int64_t)(r * 1000));
                        if (v == RTF_PLUGIN_OK)
                                runtime[i] = r;
                }

                sum = max = 0;
                for (unsigned k = 0; k < N; k++)
                        if (runtime[k]) {
                                sum += runtime[k] * 1000;
                                max = runtime[k] * 1000 > max ? runtime[k] * 1000 : max;
                        }
                room = model_gfb_room(sum, max > 2000 ? max : 2000, 2);
                v = ops->accept(st, &(struct rtf_task_params){ .flags = RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_RUNTIME |
                                                                       RTF_PARAM_HAS_DES_RUNTIME,
                                                              .period_us = WINDOW, .runtime_us = 2,
                                                              .des_runtime_us = WINDOW }, &dec);
                if (room >= 2000)
                        mismatches += v != RTF_PLUGIN_OK ||
                                      dec.accepted_runtime_us != (uint64_t)room * WINDOW / 1000000000ULL;
                else
                        mismatches += v != RTF_PLUGIN_NO;
        }
        CHECK_EQ(mismatches, 0);
        for (unsigned k = 0; k < N; k++)
                if (runtime[k])
                        ops->release(st, &t[k]);
        CHECK_EQ(core_tasks(ops, st, 0) + core_tasks(ops, st, 1), 0);
        ops->fini(st);
}

static void test_edf_options(const struct rtf_plugin_ops *ops) {
        static const char *const bad[][2] = {
                { "util=0", NULL }, { "util=1.5", NULL }, { "util=abc", NULL },
                { "util=", NULL }, { "util", NULL }, { "foo=1", NULL },
                { "util=0.5", "util=0.6" }, { "max_tasks=0", NULL }, { "max_tasks=-1", NULL },
                { "=3", NULL },
        };
        static const uint32_t cpus[] = { 0, 1 };
        static const bool part[] = { true, true };
        static const char *const opts[] = { "max_tasks=1", "util=1" };
        struct rtf_plugin_config c = config("EDFM", 100, 100, cpus, part, 2, opts, 2);
        struct rtf_plugin_task t[3];
        struct rtf_plugin_decision dec;
        void *st = NULL;

        for (size_t i = 0; i < ELEMS(bad); i++)
                check_bad_options(ops, bad[i], bad[i][1] ? 2 : 1, 100, 100);
        check_bad_options(ops, bad[5], 1, 100, 100);
        CHECK(logged("unknown option 'foo'"));

        /* a bad host or config: refused */
        host_reset();
        th.host.version = RTF_PLUGIN_ABI_VERSION + 1;
        CHECK_EQ(ops->init(&th.host, &c, &st), -EINVAL);
        host_reset();
        c.n_cpus = 0;
        CHECK_EQ(ops->init(&th.host, &c, &st), -EINVAL);
        c.n_cpus = 2;

        /* max_tasks per core */
        host_reset();
        CHECK_EQ(ops->init(&th.host, &c, &st), 0);
        CHECK_EQ(create(ops, st, &t[0], params(1000, 10, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &t[1], params(1000, 10, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &t[2], params(1000, 10, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "every core") != NULL);
        /* a change of a task that is there is not blocked by the limit */
        CHECK_EQ(change(ops, st, &t[1], params(1000, 20, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        /* fini with tasks still scheduled frees our side only */
        ops->fini(st);
}

static void test_rm(const struct rtf_plugin_ops *ops) {
        static const uint32_t cpus[] = { 5, 7 };
        struct rtf_plugin_config c = config("RM1", 10, 12, cpus, NULL, 2, NULL, 0);
        struct rtf_plugin_task a, b, t3, d, e;
        struct rtf_plugin_decision dec;
        struct rtf_sched_setting set;
        struct rtf_plugin_core_status cs;
        void *st = NULL;

        CHECK_EQ(ops->flags & RTF_PLUGIN_WANTS_PARTITIONS, 0);
        /* the range must lie in 1..99 */
        {
                static const uint32_t ranges[][2] = { { 0, 99 }, { 50, 100 }, { 60, 50 } };

                for (size_t i = 0; i < ELEMS(ranges); i++) {
                        struct rtf_plugin_config r = config("RMX", ranges[i][0], ranges[i][1], cpus, NULL, 2, NULL, 0);

                        host_reset();
                        CHECK_EQ(ops->init(&th.host, &r, &st), -EINVAL);
                        CHECK(logged("priority range"));
                }
        }
        {
                static const char *const bad[][1] = { { "util=1.5" }, { "rta_max_steps=5" } };

                check_bad_options(ops, bad[0], 1, 1, 99);
                check_bad_options(ops, bad[1], 1, 1, 99);
        }

        host_reset();
        CHECK_EQ(ops->init(&th.host, &c, &st), 0);
        if (!st)
                return;

        CHECK_EQ(create(ops, st, &a, params(100, 10, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(a.core, 0);
        CHECK_EQ(a.priority, 12);
        CHECK_EQ(create(ops, st, &b, params(100, 10, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(b.core, 1);
        CHECK_EQ(b.priority, 12);
        /* a shorter period on core 0 takes the top; a is pushed down and reported */
        updates_clear();
        CHECK_EQ(create(ops, st, &t3, params(50, 5, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(t3.core, 0);
        CHECK_EQ(t3.priority, 12);
        CHECK_EQ(a.priority, 11);
        CHECK_EQ(th.n_updated, 1);
        CHECK(was_updated(&a));
        CHECK_EQ(ops->attach(st, &a, &set), 0);
        CHECK_EQ(set.policy, RTF_POLICY_FIFO);
        CHECK_EQ(set.priority, 11);
        CHECK_EQ(set.cpu, 5);
        CHECK_EQ(ops->attach(st, &b, &set), 0);
        CHECK_EQ(set.cpu, 7);
        CHECK_EQ(set.priority, 12);

        /* a longer period on the less loaded core 1: nobody moves */
        updates_clear();
        CHECK_EQ(create(ops, st, &d, params(200, 10, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(d.core, 1);
        CHECK_EQ(d.priority, 11);
        CHECK_EQ(th.n_updated, 0);

        /*
         * no runtime: never above a task with one (issue 11 point 3), and not
         * below these either (test-plugins-soundness.c has the details)
         */
        CHECK_EQ(create(ops, st, &e, params(25, 0, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "without runtime") != NULL);
        CHECK_EQ(ops->core_status(st, 1, &cs), 0);
        CHECK_EQ(cs.tasks, 2);
        CHECK_EQ(cs.prio_lowest, 11);
        CHECK_EQ(cs.prio_highest, 12);
        CHECK_NEAR(cs.utilization, 0.15);

        /* releases re-prioritise back */
        updates_clear();
        ops->release(st, &t3);
        CHECK_EQ(a.priority, 12);
        CHECK_EQ(th.n_updated, 1);
        CHECK(was_updated(&a));

        /* change: a alone on core 0 takes a new period and stays there */
        CHECK_EQ(change(ops, st, &a, params(25, 5, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(a.core, 0);
        CHECK_EQ(a.priority, 12);
        CHECK_EQ(ops->core_status(st, 0, &cs), 0);
        CHECK_EQ(cs.tasks, 1);
        CHECK_NEAR(cs.utilization, 0.2);
        /* change of d to the shortest period on core 1: d and b swap, b is reported */
        updates_clear();
        CHECK_EQ(change(ops, st, &d, params(20, 2, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(d.core, 1);
        CHECK_EQ(d.priority, 12);
        CHECK_EQ(b.priority, 11);
        CHECK(was_updated(&b));
        CHECK_EQ(core_tasks(ops, st, 1), 2);

        /* mandatory period, sane runtime */
        CHECK_EQ(ops->accept(st, &(struct rtf_task_params) { .flags = RTF_PARAM_HAS_RUNTIME, .runtime_us = 10 }, &dec),
                 RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "period") != NULL);
        CHECK_EQ(ops->accept(st, &(struct rtf_task_params) { .flags = RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_RUNTIME, .period_us = 100 }, &dec),
                 RTF_PLUGIN_NO);
        CHECK_EQ(ops->accept(st, &(struct rtf_task_params[]) { params(100, 60, 0, 50, 0, 0) }[0], &dec),
                 RTF_PLUGIN_NO);

        ops->release(st, &a);
        ops->release(st, &b);
        ops->release(st, &d);
        CHECK_EQ(core_tasks(ops, st, 0) + core_tasks(ops, st, 1), 0);
        ops->fini(st);
}

static void test_rm_analysis(const struct rtf_plugin_ops *ops) {
        static const uint32_t one[] = { 3 }, two[] = { 5, 7 };
        /* util=1: the tests below are about RTA, not the kernel's reserved share */
        static const char *const util1[] = { "util=1" };
        struct rtf_plugin_config c = config("RM2", 1, 99, one, NULL, 1, util1, 1);
        struct rtf_plugin_task t[4];
        struct rtf_plugin_decision dec;
        struct rtf_sched_setting set;
        void *st = NULL;

        /* (2,5), (4,7): U = 0.97 but R = 8 > 7 */
        host_reset();
        CHECK_EQ(ops->init(&th.host, &c, &st), 0);
        CHECK_EQ(create(ops, st, &t[0], params(5, 2, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &t[1], params(7, 4, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "miss its deadline") != NULL);
        fprintf(stderr, "# reason: %s\n", dec.reason);
        /* U > 1 is refused before any RTA */
        CHECK_EQ(create(ops, st, &t[1], params(7, 5, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "utilisation") != NULL);
        /* ... unless the ACL allows ignoring the test */
        CHECK_EQ(create(ops, st, &t[1], params(7, 4, 0, 0, 0, RTF_PARAM_IGNORE_ADMISSION), &dec),
                 RTF_PLUGIN_OK);
        CHECK(strstr(dec.reason, "ignored") != NULL);
        CHECK_EQ(t[1].priority, 98);
        ops->release(st, &t[1]);
        ops->release(st, &t[0]);
        /* harmonic (1,2), (2,4): U = 1, beyond the hyperbolic bound, fine for RTA */
        CHECK_EQ(create(ops, st, &t[0], params(2, 1, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &t[1], params(4, 2, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &t[2], params(8, 1, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        ops->release(st, &t[0]);
        ops->release(st, &t[1]);
        ops->fini(st);

        /* the least loaded core fails the RTA, the next one takes the task */
        c = config("RM3", 1, 99, two, NULL, 2, util1, 1);
        host_reset();
        CHECK_EQ(ops->init(&th.host, &c, &st), 0);
        CHECK_EQ(create(ops, st, &t[0], params(5, 2, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &t[1], params(100, 41, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(t[0].core, 0);
        CHECK_EQ(t[1].core, 1);
        CHECK_EQ(t[1].priority, 99);
        updates_clear();
        CHECK_EQ(create(ops, st, &t[2], params(7, 4, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(t[2].core, 1);
        CHECK_EQ(t[2].priority, 99);
        CHECK_EQ(t[1].priority, 98);
        CHECK(was_updated(&t[1]));
        CHECK_EQ(ops->attach(st, &t[2], &set), 0);
        CHECK_EQ(set.cpu, 7);
        for (int i = 0; i < 3; i++)
                ops->release(st, &t[i]);
        ops->fini(st);

        /*
         * Two priorities for three periods: (1,3) alone at 21, (1,4) and
         * (3,20) share 20.  In RM order the set passes the hyperbolic bound;
         * with the shared priority (3,20) delays (1,4) to 6 > 4.
         */
        c = config("RM4", 20, 21, one, NULL, 1, NULL, 0);
        host_reset();
        CHECK_EQ(ops->init(&th.host, &c, &st), 0);
        CHECK_EQ(create(ops, st, &t[0], params(3, 1, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &t[1], params(20, 3, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(t[0].priority, 21);
        CHECK_EQ(t[1].priority, 20);
        CHECK_EQ(create(ops, st, &t[2], params(4, 1, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "RTA") != NULL);
        /* without a runtime it would share priority 20 with (3, 20): refused */
        CHECK_EQ(create(ops, st, &t[2], params(4, 0, 0, 0, 0, 0), &dec), RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "without runtime") != NULL);
        /* a light one that passes RTA at the shared priority: the tie is logged */
        updates_clear();
        CHECK_EQ(create(ops, st, &t[2], params(40, 1, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(t[2].priority, 20);
        CHECK_EQ(t[1].priority, 20);
        CHECK_EQ(th.n_updated, 0);
        CHECK(logged("share"));
        ops->release(st, &t[2]);
        CHECK(logged("strict rate-monotonic order again"));
        for (int i = 0; i < 2; i++)
                ops->release(st, &t[i]);
        ops->fini(st);

        c = config("RM5", 20, 22, one, NULL, 1, util1, 1);
        host_reset();
        CHECK_EQ(ops->init(&th.host, &c, &st), 0);
        CHECK_EQ(create(ops, st, &t[0], params(3, 1, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &t[1], params(20, 3, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &t[2], params(4, 1, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(t[0].priority, 22);
        CHECK_EQ(t[2].priority, 21);
        CHECK_EQ(t[1].priority, 20);
        /* rollback of a change that moved priorities restores them */
        {
                struct rtf_plugin_task old = t[2];

                CHECK_EQ(change(ops, st, &t[2], params(2, 1, 0, 0, 0, 0), &dec), RTF_PLUGIN_OK);
                CHECK_EQ(t[2].priority, 22);
                CHECK_EQ(t[0].priority, 21);
                rollback(ops, st, &t[2], &old);
                CHECK_EQ(t[0].priority, 22);
                CHECK_EQ(t[2].priority, 21);
                CHECK_EQ(t[1].priority, 20);
        }
        ops->fini(st); /* tasks still scheduled: our side is freed, theirs untouched */
}

static void test_fp(const struct rtf_plugin_ops *ops) {
        static const uint32_t cpus[] = { 2, 3 };
        struct rtf_plugin_config c = config("FP1", 50, 52, cpus, NULL, 2, NULL, 0);
        struct rtf_plugin_task p10, p20, p30, p5, p40, p45, p60;
        struct rtf_plugin_decision dec;
        struct rtf_sched_setting set;
        void *st = NULL;

        {
                static const char *const bad[][1] = { { "util=0.9" } };

                check_bad_options(ops, bad[0], 1, 1, 99);
        }
        host_reset();
        CHECK_EQ(ops->init(&th.host, &(struct rtf_plugin_config[]) { config("FPX", 0, 99, cpus, NULL, 2, NULL, 0) }[0], &st),
                 -EINVAL);

        host_reset();
        CHECK_EQ(ops->init(&th.host, &c, &st), 0);
        if (!st)
                return;
        CHECK_EQ(create(ops, st, &p10, params(0, 0, 0, 0, 10, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(p10.core, 0);
        CHECK_EQ(p10.priority, 50);
        CHECK_EQ(create(ops, st, &p20, params(0, 0, 0, 0, 20, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(p20.core, 1);
        CHECK_EQ(p20.priority, 50);
        CHECK_EQ(create(ops, st, &p30, params(0, 0, 0, 0, 30, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(p30.core, 0);
        CHECK_EQ(p30.priority, 51);
        CHECK_EQ(p10.priority, 50);
        CHECK_EQ(th.n_updated, 0);
        /* 5 below 20 on core 1: 20 moves up and is reported */
        CHECK_EQ(create(ops, st, &p5, params(0, 0, 0, 0, 5, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(p5.core, 1);
        CHECK_EQ(p5.priority, 50);
        CHECK_EQ(p20.priority, 51);
        CHECK_EQ(th.n_updated, 1);
        CHECK(was_updated(&p20));
        CHECK_EQ(create(ops, st, &p40, params(0, 0, 0, 0, 40, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(create(ops, st, &p45, params(0, 0, 0, 0, 45, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(p40.core, 0);
        CHECK_EQ(p40.priority, 52);
        CHECK_EQ(p45.core, 1);
        CHECK_EQ(p45.priority, 52);
        /* a fourth distinct priority in three levels: eq. 6 fails, said and logged */
        updates_clear();
        CHECK_EQ(create(ops, st, &p60, params(0, 0, 0, 0, 60, 0), &dec), RTF_PLUGIN_OK);
        CHECK(strstr(dec.reason, "order not kept") != NULL);
        CHECK_EQ(p60.core, 0);
        CHECK_EQ(p60.priority, 52);
        CHECK_EQ(p40.priority, 51);
        CHECK_EQ(p30.priority, 50);
        CHECK_EQ(p10.priority, 50);
        CHECK_EQ(th.n_updated, 2);
        CHECK(was_updated(&p40) && was_updated(&p30));
        CHECK(logged("FP1: CPU 2: 4 distinct priorities share 3 levels"));
        CHECK_EQ(ops->attach(st, &p60, &set), 0);
        CHECK_EQ(set.policy, RTF_POLICY_FIFO);
        CHECK_EQ(set.priority, 52);
        CHECK_EQ(set.cpu, 2);
        CHECK_EQ(ops->attach(st, &p45, &set), 0);
        CHECK_EQ(set.cpu, 3);
        updates_clear();
        ops->release(st, &p60);
        CHECK_EQ(p40.priority, 52);
        CHECK_EQ(p30.priority, 51);
        CHECK_EQ(th.n_updated, 2);
        CHECK(logged("order kept again"));

        /* change of p10 to 35, staying on core 0 */
        CHECK_EQ(change(ops, st, &p10, params(0, 0, 0, 0, 35, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(p10.core, 0);
        CHECK_EQ(p30.priority, 50);
        CHECK_EQ(p10.priority, 51);
        CHECK_EQ(p40.priority, 52);
        CHECK_EQ(core_tasks(ops, st, 0), 3);
        CHECK_EQ(core_tasks(ops, st, 1), 3);

        /* the priority is mandatory and a POSIX one */
        CHECK_EQ(ops->accept(st, &(struct rtf_task_params) { .flags = RTF_PARAM_HAS_PERIOD, .period_us = 10 }, &dec),
                 RTF_PLUGIN_NO);
        CHECK(strstr(dec.reason, "mandatory") != NULL);
        CHECK_EQ(ops->accept(st, &(struct rtf_task_params) { .flags = RTF_PARAM_HAS_PRIORITY, .priority = 0 }, &dec),
                 RTF_PLUGIN_NO);
        CHECK_EQ(ops->accept(st, &(struct rtf_task_params) { .flags = RTF_PARAM_HAS_PRIORITY, .priority = 100 }, &dec),
                 RTF_PLUGIN_NO);

        ops->release(st, &p10);
        ops->release(st, &p20);
        ops->release(st, &p30);
        ops->release(st, &p5);
        ops->release(st, &p40);
        ops->release(st, &p45);
        CHECK_EQ(core_tasks(ops, st, 0) + core_tasks(ops, st, 1), 0);
        ops->fini(st);

        /* the full range keeps requests as they are */
        c = config("FP2", 1, 99, cpus, NULL, 2, NULL, 0);
        host_reset();
        CHECK_EQ(ops->init(&th.host, &c, &st), 0);
        CHECK_EQ(create(ops, st, &p10, params(0, 0, 0, 0, 17, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(p10.priority, 17);
        CHECK_EQ(create(ops, st, &p20, params(0, 0, 0, 0, 99, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(p20.priority, 99);
        ops->release(st, &p10);
        ops->release(st, &p20);
        ops->fini(st);
}

static void test_rr(const struct rtf_plugin_ops *ops) {
        static const uint32_t cpus[] = { 9 };
        struct rtf_plugin_config c = config("RR", 1, 50, cpus, NULL, 1, NULL, 0);
        struct rtf_plugin_task a, b;
        struct rtf_plugin_decision dec;
        struct rtf_sched_setting set;
        void *st = NULL;

        CHECK(strcmp(ops->name, "RR") == 0);
        host_reset();
        CHECK_EQ(ops->init(&th.host, &c, &st), 0);
        CHECK_EQ(create(ops, st, &a, params(0, 0, 0, 0, 80, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(a.priority, 50);
        CHECK_EQ(create(ops, st, &b, params(0, 0, 0, 0, 90, 0), &dec), RTF_PLUGIN_OK);
        CHECK_EQ(a.priority, 49);
        CHECK_EQ(b.priority, 50);
        CHECK(was_updated(&a));
        CHECK_EQ(ops->attach(st, &b, &set), 0);
        CHECK_EQ(set.policy, RTF_POLICY_RR);
        CHECK_EQ(set.priority, 50);
        CHECK_EQ(set.cpu, 9);
        ops->release(st, &a);
        ops->release(st, &b);
        ops->fini(st);
}

int main(void) {
        static const struct {
                const char *file, *name;
                void (*test)(const struct rtf_plugin_ops *ops);
        } plugins[] = {
                { "EDF.so", "EDF", test_edf_partitioned },
                { "EDF.so", "EDF", test_edf_global },
                { "EDF.so", "EDF", test_edf_global_max },
                { "EDF.so", "EDF", test_edf_options },
                { "RM.so", "RM", test_rm },
                { "RM.so", "RM", test_rm_analysis },
                { "FP.so", "FP", test_fp },
                { "RR.so", "RR", test_rr },
        };

        if (!getenv("RTF_BUILD_PLUGINDIR")) {
                fprintf(stderr, "RTF_BUILD_PLUGINDIR is not set: no plugins to test\n");
                return 77;
        }
        for (size_t i = 0; i < ELEMS(plugins); i++) {
                const struct rtf_plugin_ops *ops;
                void *dl = NULL;

                fprintf(stderr, "# %s: %s\n", plugins[i].file, plugins[i].name);
                ops = load(plugins[i].file, &dl);
                if (!ops)
                        continue;
                CHECK(strcmp(ops->name, plugins[i].name) == 0);
                plugins[i].test(ops);
                dlclose(dl);
        }
        return test_done();
}
