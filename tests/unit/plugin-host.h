/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The built plugins (EDF.so, RM.so, FP.so, RR.so from $RTF_BUILD_PLUGINDIR)
 * driven through the plugin ABI the way rtfd drives them, for
 * test-plugins-*.c: a test host records log lines and task_updated calls;
 * create/change/rollback follow the daemon's protocol (accept+schedule;
 * change, release, new params, schedule; release and re-schedule the old
 * decision).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtf/rtf-plugin.h"
#include "rtf/rtf.h"

#define MAX_LOG 128
#define MAX_UPDATES 128
#define CHECK_NEAR(a, b) CHECK((a) > (b) - 1e-6 && (a) < (b) + 1e-6)

struct test_host {
        struct rtf_plugin_host host;
        char log[MAX_LOG][256];
        unsigned n_log;
        struct rtf_plugin_task *updated[MAX_UPDATES];
        unsigned n_updated;
};

/* The host every test hands to the plugin under test. */
extern struct test_host th;

/* A fresh host: no log lines, no updates. */
void host_reset(void);
/* Whether a log line since host_reset() contains `needle`. */
bool logged(const char *needle);
/* Whether task_updated() was called for `t` since updates_clear(). */
bool was_updated(const struct rtf_plugin_task *t);
void updates_clear(void);

struct rtf_plugin_config config(const char *instance, uint32_t lo, uint32_t hi, const uint32_t *cpus,
                                const bool *partitioned, uint32_t n, const char *const *options,
                                uint32_t n_options);
/* Parameters; a zero means "not given". */
struct rtf_task_params params(uint64_t period, uint64_t runtime, uint64_t des_runtime, uint64_t deadline,
                              uint32_t priority, uint32_t extra_flags);

/* rtfd's create: accept, then schedule the same decision. */
int create(const struct rtf_plugin_ops *ops, void *st, struct rtf_plugin_task *t, struct rtf_task_params p,
           struct rtf_plugin_decision *d);
/* rtfd's change inside one plugin: change, release, new params, schedule. */
int change(const struct rtf_plugin_ops *ops, void *st, struct rtf_plugin_task *t, struct rtf_task_params p,
           struct rtf_plugin_decision *d);
/* rtfd's rollback after a failed apply: release, old params, old decision. */
void rollback(const struct rtf_plugin_ops *ops, void *st, struct rtf_plugin_task *t,
              const struct rtf_plugin_task *old);

double core_util(const struct rtf_plugin_ops *ops, void *st, uint32_t core);
uint32_t core_tasks(const struct rtf_plugin_ops *ops, void *st, uint32_t core);

/* An instance on a fresh host (host_reset()): ops->init()'s result. */
int host_init(const struct rtf_plugin_ops *ops, const struct rtf_plugin_config *c, void **ret_state);

/* init must fail (and say why) for these option lists. */
void check_bad_options(const struct rtf_plugin_ops *ops, const char *const *opts, uint32_t n, uint32_t lo,
                       uint32_t hi);

/* A plugin loaded and made an instance of, outside plugin_tests_run(). */
struct plugin_instance {
        void *dl;
        const struct rtf_plugin_ops *ops;
        void *state;
};

/* Loads `file` from $RTF_BUILD_PLUGINDIR: 0, or -ENOENT with the reason on stderr. */
int plugin_instance_load(struct plugin_instance *in, const char *file);
/* An instance on a fresh host (host_init()): ops->init()'s result. */
int plugin_instance_init(struct plugin_instance *in, const struct rtf_plugin_config *c);
/* Its fini() if it has a state, and the library unloaded. */
void plugin_instance_close(struct plugin_instance *in);

struct plugin_test {
        const char *file, *name;
        void (*test)(const struct rtf_plugin_ops *ops);
};

/* Loads each test's plugin (checking its entry point) and runs the test: main()'s exit code. */
int plugin_tests_run(const struct plugin_test *tests, size_t n);
