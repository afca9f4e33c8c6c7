/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The test host of the plugin tests: see plugin-host.h. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin-host.h"
#include "tap.h"

struct test_host th;
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

void host_reset(void) {
        memset(&th, 0, sizeof(th));
        th.host = (struct rtf_plugin_host) {
                .version = RTF_PLUGIN_ABI_VERSION,
                .size = sizeof(struct rtf_plugin_host),
                .data = &th,
                .log = host_log,
                .task_updated = host_task_updated,
        };
}

bool logged(const char *needle) {
        for (unsigned i = 0; i < th.n_log; i++)
                if (strstr(th.log[i], needle))
                        return true;
        return false;
}

bool was_updated(const struct rtf_plugin_task *t) {
        for (unsigned i = 0; i < th.n_updated; i++)
                if (th.updated[i] == t)
                        return true;
        return false;
}

void updates_clear(void) {
        th.n_updated = 0;
}

/* The built plugin `file` from $RTF_BUILD_PLUGINDIR, or NULL with the reason on stderr. */
static void *plugin_dlopen(const char *file) {
        const char *dir = getenv("RTF_BUILD_PLUGINDIR");
        char path[4096];
        void *dl;

        snprintf(path, sizeof(path), "%s/%s", dir ? dir : ".", file);
        dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!dl)
                fprintf(stderr, "# %s\n", dlerror());
        return dl;
}

static const struct rtf_plugin_ops *load(const char *file, void **ret_dl) {
        const struct rtf_plugin_ops *ops;
        rtf_plugin_entry_fn entry;
        void *dl = plugin_dlopen(file), *sym;

        CHECK(dl != NULL);
        if (!dl)
                return NULL;
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

struct rtf_plugin_config config(const char *instance, uint32_t lo, uint32_t hi, const uint32_t *cpus,
                                const bool *partitioned, uint32_t n, const char *const *options,
                                uint32_t n_options) {
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

struct rtf_task_params params(uint64_t period, uint64_t runtime, uint64_t des_runtime, uint64_t deadline,
                              uint32_t priority, uint32_t extra_flags) {
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

/* Schedules `d` for t with parameters p, as rtfd does after an accept or change; t takes the decision. */
static void schedule(const struct rtf_plugin_ops *ops, void *st, struct rtf_plugin_task *t,
                     const struct rtf_task_params *p, const struct rtf_plugin_decision *d) {
        t->params = *p;
        CHECK_EQ(ops->schedule(st, t, d), 0);
        CHECK_EQ(t->core, d->core);
        CHECK_EQ(t->priority, d->priority);
        CHECK_EQ(t->accepted_runtime_us, d->accepted_runtime_us);
}

int create(const struct rtf_plugin_ops *ops, void *st, struct rtf_plugin_task *t, struct rtf_task_params p,
           struct rtf_plugin_decision *d) {
        int v;

        *t = (struct rtf_plugin_task) { .id = ++next_id, .core = -1 };
        v = ops->accept(st, &p, d);
        if (v > RTF_PLUGIN_NO)
                schedule(ops, st, t, &p, d);
        return v;
}

int change(const struct rtf_plugin_ops *ops, void *st, struct rtf_plugin_task *t, struct rtf_task_params p,
           struct rtf_plugin_decision *d) {
        int v = ops->change(st, t, &p, d);

        if (v <= RTF_PLUGIN_NO)
                return v;
        ops->release(st, t);
        schedule(ops, st, t, &p, d);
        return v;
}

void rollback(const struct rtf_plugin_ops *ops, void *st, struct rtf_plugin_task *t,
              const struct rtf_plugin_task *old) {
        const struct rtf_plugin_decision d = {
                .core = old->core,
                .priority = old->priority,
                .accepted_runtime_us = old->accepted_runtime_us,
        };

        ops->release(st, t);
        schedule(ops, st, t, &old->params, &d);
}

double core_util(const struct rtf_plugin_ops *ops, void *st, uint32_t core) {
        struct rtf_plugin_core_status cs;

        CHECK_EQ(ops->core_status(st, core, &cs), 0);
        return cs.utilization;
}

uint32_t core_tasks(const struct rtf_plugin_ops *ops, void *st, uint32_t core) {
        struct rtf_plugin_core_status cs;

        CHECK_EQ(ops->core_status(st, core, &cs), 0);
        return cs.tasks;
}

int host_init(const struct rtf_plugin_ops *ops, const struct rtf_plugin_config *c, void **ret_state) {
        host_reset();
        return ops->init(&th.host, c, ret_state);
}

void check_bad_options(const struct rtf_plugin_ops *ops, const char *const *opts, uint32_t n, uint32_t lo,
                       uint32_t hi) {
        static const uint32_t cpus[] = { 1 };
        struct rtf_plugin_config c = config("BAD", lo, hi, cpus, NULL, 1, opts, n);
        void *st = NULL;

        CHECK_EQ(host_init(ops, &c, &st), -EINVAL);
        CHECK(st == NULL);
        CHECK(th.n_log > 0);
}

int plugin_instance_load(struct plugin_instance *in, const char *file) {
        rtf_plugin_entry_fn entry;
        void *sym;

        *in = (struct plugin_instance){ .dl = plugin_dlopen(file) };
        if (!in->dl)
                return -ENOENT;
        sym = dlsym(in->dl, RTF_PLUGIN_ENTRY_NAME);
        memcpy(&entry, &sym, sizeof(entry));
        in->ops = sym ? entry(RTF_PLUGIN_ABI_VERSION) : NULL;
        if (!in->ops) {
                dlclose(in->dl);
                *in = (struct plugin_instance){ 0 };
                return -ENOENT;
        }
        return 0;
}

int plugin_instance_init(struct plugin_instance *in, const struct rtf_plugin_config *c) {
        return host_init(in->ops, c, &in->state);
}

void plugin_instance_close(struct plugin_instance *in) {
        if (in->state)
                in->ops->fini(in->state);
        if (in->dl)
                dlclose(in->dl);
        *in = (struct plugin_instance){ 0 };
}

int plugin_tests_run(const struct plugin_test *tests, size_t n) {
        if (!getenv("RTF_BUILD_PLUGINDIR")) {
                fprintf(stderr, "RTF_BUILD_PLUGINDIR is not set: no plugins to test\n");
                return 77;
        }
        for (size_t i = 0; i < n; i++) {
                const struct rtf_plugin_ops *ops;
                void *dl = NULL;

                fprintf(stderr, "# %s: %s\n", tests[i].file, tests[i].name);
                ops = load(tests[i].file, &dl);
                if (!ops)
                        continue;
                CHECK(strcmp(ops->name, tests[i].name) == 0);
                tests[i].test(ops);
                dlclose(dl);
        }
        return test_done();
}
