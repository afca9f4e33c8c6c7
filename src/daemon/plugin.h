/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Loading plugin instances (one per config line) and calling them through
 * their versioned ops table.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "rtf/rtf-plugin.h"

struct cpuset;

/*
 * Whether the plugin's ops table reaches `member` (it may be older and
 * shorter than ours) and fills it: every optional member is called only
 * after this check.
 */
#define PLUGIN_HAS(ops, member) \
        ((ops)->size >= offsetof(struct rtf_plugin_ops, member) + sizeof((ops)->member) && (ops)->member)

/* Callbacks the daemon provides to plugins (see rtf_plugin_host). */
struct plugin;
struct plugin_host_ops {
        void (*task_updated)(void *data, struct plugin *p, struct rtf_plugin_task *task);
        void *data;
};

struct plugin {
        char name[RTF_PLUGIN_NAME_MAX]; /* the instance name from the config */
        char file[RTF_CONFIG_WORD_MAX];
        unsigned line;
        const char *source;             /* the config file, for FILE:LINE (owned by the config) */
        void *dl;
        int fd;                         /* the file dl was loaded from, see open_checked() */
        const struct rtf_plugin_ops *ops;
        void *state;
        struct rtf_plugin_host host;
        struct rtf_plugin_config config;
        uint32_t *cpus;
        bool *partitioned;
        char **options;
        uint32_t n_tasks;               /* specs this instance holds */
        const struct plugin_host_ops *hops;
};

/*
 * Open the plugin file of `cfg` (a bare name inside plugindir, or an absolute
 * path; either way a regular file owned by root, or by rtfd's user, and not
 * writable by group or others), check its entry point and ABI version, and
 * call init.
 */
int plugin_load(struct plugin *p, const struct rtf_config_plugin *cfg, const char *plugindir,
                const struct cpuset *cs, const struct plugin_host_ops *hops);
void plugin_unload(struct plugin *p);

/* Which CPUs any plugin wants partitioned (RTF_PLUGIN_WANTS_PARTITIONS), by
 * peeking at the plugin's ops without initialising it. */
int plugin_peek_flags(const struct rtf_config_plugin *cfg, const char *plugindir, uint32_t *ret_flags);

/* The absolute CPU number of a task's core index, -1 for none. */
int plugin_cpu_of(const struct plugin *p, int32_t core);
