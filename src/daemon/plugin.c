/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpuset.h"
#include "log.h"
#include "plugin.h"
#include "trusted.h"

_printf_(3, 4) static void host_log(void *data, int level, const char *fmt, ...) {
        struct plugin *p = data;
        char msg[512];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        /* The config line that made this instance: its options and range are
         * what a plugin complains about. */
        log_full(level < LOG_ERR ? LOG_ERR : level, "%s:%u: plugin %s: %s", p->source, p->line, p->name, msg);
}

static void host_task_updated(void *data, struct rtf_plugin_task *task) {
        struct plugin *p = data;

        p->hops->task_updated(p->hops->data, p, task);
}

/* dlopen() the very file whose ownership was checked, through its fd, so
 * that nobody can swap it in between.  The loader knows the object by the
 * name "/proc/self/fd/N" and returns an already loaded object of the same
 * name instead of opening the file: a plugin that stays loaded keeps its fd
 * (ret_fd), so that no later plugin gets the same N. */
static void *open_checked(const struct rtf_config_plugin *cfg, const char *plugindir, int *ret_fd,
                          int *ret_error) {
        char path[RTF_CONFIG_WORD_MAX * 2 + 2], fdpath[64];
        void *dl;
        int fd, r;

        if (cfg->file[0] == '/')
                snprintf(path, sizeof(path), "%s", cfg->file);
        else
                snprintf(path, sizeof(path), "%s/%s", plugindir, cfg->file);
        /* Issue 10: through a trusted directory chain, the plugin itself
         * opened without following a symlink (one planted in the plugin
         * directory would point rtfd at any root-owned library). */
        r = trusted_open(path, "plugin", &fd);
        if (r == -ENOENT)
                r = log_error_errno(ENOENT, "Failed to open plugin %s (line %u): %m", path, cfg->line);
        if (r < 0) {
                *ret_error = r;
                return NULL;
        }
        snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
        dl = dlopen(fdpath, RTLD_NOW | RTLD_LOCAL);
        if (!dl) {
                log_error("Failed to load plugin %s: %s", path, dlerror());
                *ret_error = -ENOEXEC;
        }
        if (dl && ret_fd)
                *ret_fd = fd;
        else
                close(fd);
        return dl;
}

static const struct rtf_plugin_ops *entry_ops(void *dl, const char *file, int *ret_error) {
        const struct rtf_plugin_ops *ops;
        rtf_plugin_entry_fn entry;

        *(void **)&entry = dlsym(dl, RTF_PLUGIN_ENTRY_NAME);
        if (!entry) {
                *ret_error = log_error_errno(ENOEXEC, "Plugin %s has no %s symbol", file, RTF_PLUGIN_ENTRY_NAME);
                return NULL;
        }
        ops = entry(RTF_PLUGIN_ABI_VERSION);
        if (!ops || ops->version != RTF_PLUGIN_ABI_VERSION ||
            ops->size < offsetof(struct rtf_plugin_ops, detach)) {
                *ret_error = log_error_errno(EPROTO, "Plugin %s does not speak plugin ABI version %u", file,
                                             RTF_PLUGIN_ABI_VERSION);
                return NULL;
        }
        if (!ops->init || !ops->accept || !ops->change || !ops->schedule || !ops->release || !ops->attach) {
                *ret_error = log_error_errno(EPROTO, "Plugin %s lacks a mandatory method", file);
                return NULL;
        }
        return ops;
}

int plugin_peek_flags(const struct rtf_config_plugin *cfg, const char *plugindir, uint32_t *ret_flags) {
        const struct rtf_plugin_ops *ops;
        void *dl;
        int r = 0;

        dl = open_checked(cfg, plugindir, NULL, &r);
        if (!dl)
                return r;
        ops = entry_ops(dl, cfg->file, &r);
        if (ops)
                *ret_flags = ops->flags;
        dlclose(dl);
        return ops ? 0 : r;
}

int plugin_load(struct plugin *p, const struct rtf_config_plugin *cfg, const char *plugindir,
                const struct cpuset *cs, const struct plugin_host_ops *hops) {
        int r = 0;

        memset(p, 0, sizeof(*p));
        p->fd = -1;
        snprintf(p->name, sizeof(p->name), "%s", cfg->name);
        snprintf(p->file, sizeof(p->file), "%s", cfg->file);
        p->line = cfg->line;
        p->source = cfg->source ? cfg->source : "<config>";

        p->dl = open_checked(cfg, plugindir, &p->fd, &r);
        if (!p->dl)
                return r;
        p->ops = entry_ops(p->dl, cfg->file, &r);
        if (!p->ops)
                goto fail;

        p->cpus = calloc(cfg->n_cpus, sizeof(*p->cpus));
        p->partitioned = calloc(cfg->n_cpus, sizeof(*p->partitioned));
        p->options = calloc(cfg->n_options + 1, sizeof(*p->options));
        if (!p->cpus || !p->partitioned || !p->options) {
                r = -ENOMEM;
                goto fail;
        }
        for (uint32_t i = 0; i < cfg->n_cpus; i++) {
                p->cpus[i] = cfg->cpus[i];
                p->partitioned[i] = cs->active && cfg->cpus[i] < cs->n_cpus && cs->partitioned[cfg->cpus[i]];
        }
        for (uint32_t i = 0; i < cfg->n_options; i++) {
                p->options[i] = strdup(cfg->options[i]);
                if (!p->options[i]) {
                        r = -ENOMEM;
                        goto fail;
                }
        }
        p->config = (struct rtf_plugin_config){
                .size = sizeof(struct rtf_plugin_config),
                .n_cpus = cfg->n_cpus,
                .instance = p->name,
                .prio_min = cfg->prio_min,
                .prio_max = cfg->prio_max,
                .cpus = p->cpus,
                .partitioned = p->partitioned,
                .n_options = cfg->n_options,
                .options = (const char *const *)p->options,
        };
        p->host = (struct rtf_plugin_host){
                .version = RTF_PLUGIN_ABI_VERSION,
                .size = sizeof(struct rtf_plugin_host),
                .data = p,
                .log = host_log,
                .task_updated = host_task_updated,
        };
        p->hops = hops;
        r = p->ops->init(&p->host, &p->config, &p->state);
        if (r < 0) {
                log_error("%s:%u: plugin %s (%s) failed to initialise: %s", p->source, cfg->line, p->name,
                          p->file, strerror(-r));
                goto fail;
        }
        return 0;
fail:
        plugin_unload(p);
        return r < 0 ? r : -EINVAL;
}

void plugin_unload(struct plugin *p) {
        if (p->ops && p->state && PLUGIN_HAS(p->ops, fini))
                p->ops->fini(p->state);
        p->state = NULL;
        if (p->dl)
                dlclose(p->dl);
        p->dl = NULL;
        p->fd = safe_close(p->fd);
        p->ops = NULL;
        if (p->options)
                for (uint32_t i = 0; p->options[i]; i++)
                        free(p->options[i]);
        free(p->options);
        free(p->cpus);
        free(p->partitioned);
        p->options = NULL;
        p->cpus = NULL;
        p->partitioned = NULL;
}

int plugin_cpu_of(const struct plugin *p, int32_t core) {
        if (core < 0 || (uint32_t)core >= p->config.n_cpus)
                return -1;
        return (int)p->cpus[core];
}
