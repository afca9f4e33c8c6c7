/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the config parser.  The first byte doubles as the machine's CPU
 * count, so one input exercises both the text and the core checks; the
 * parsed result is checked against the invariants the daemon relies on.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#define FUZZ_FILENAME "fuzz.conf"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_overlap(void *userdata, uint32_t i, uint32_t j, uint32_t cpu) {
        const struct rtf_config *c = userdata;
        bool in_i = false, in_j = false;

        if (i >= j || j >= c->n_plugins)
                abort();
        for (uint32_t k = 0; k < c->plugins[i].n_cpus; k++)
                in_i |= c->plugins[i].cpus[k] == cpu;
        for (uint32_t k = 0; k < c->plugins[j].n_cpus; k++)
                in_j |= c->plugins[j].cpus[k] == cpu;
        if (!in_i || !in_j)
                abort();
}

static void check_config(const struct rtf_config *c, uint32_t n_cpus) {
        if (c->n_plugins == 0 || c->n_plugins > RTF_CONFIG_MAX_PLUGINS ||
            c->n_settings > RTF_CONFIG_MAX_SETTINGS)
                abort();

        for (uint32_t i = 0; i < c->n_plugins; i++) {
                const struct rtf_config_plugin *p = &c->plugins[i];
                size_t name_len = strnlen(p->name, sizeof(p->name));

                if (name_len == 0 || name_len >= sizeof(p->name) || strcmp(p->name, "set") == 0)
                        abort();
                if (strnlen(p->file, sizeof(p->file)) >= sizeof(p->file) || p->file[0] == '\0')
                        abort();
                if (p->prio_min < 1 || p->prio_min > p->prio_max || p->prio_max > 1000)
                        abort();
                if (p->n_cpus == 0 || p->n_cpus > RTF_CONFIG_MAX_CPUS || p->n_cpus > n_cpus)
                        abort();
                for (uint32_t k = 0; k < p->n_cpus; k++)
                        if (p->cpus[k] >= n_cpus || (k > 0 && p->cpus[k] <= p->cpus[k - 1]))
                                abort();
                if (p->n_options > RTF_CONFIG_MAX_OPTIONS)
                        abort();
                for (uint32_t k = 0; k < p->n_options; k++)
                        if (!strchr(p->options[k], '='))
                                abort();
                for (uint32_t j = 0; j < i; j++)
                        if (strcmp(c->plugins[j].name, p->name) == 0)
                                abort();
        }

        for (uint32_t i = 0; i < c->n_settings; i++) {
                const char *v = rtf_config_get_setting(c, c->settings[i].key);

                /* Keys are unique, so the lookup finds this very setting. */
                if (v != c->settings[i].value)
                        abort();
        }

        rtf_config_for_each_overlap(c, check_overlap, (void *)c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct rtf_config c = RTF_CONFIG_NULL;
        uint32_t n_cpus = size > 0 ? data[0] : 0;
        char err[256];
        int r;

        r = rtf_config_parse((const char *)data, size, FUZZ_FILENAME, n_cpus, &c, err, sizeof(err));
        if (r < 0) {
                if (r != -EINVAL && r != -ENOMEM)
                        abort();
                if (r == -EINVAL && strncmp(err, FUZZ_FILENAME ":", strlen(FUZZ_FILENAME ":")) != 0)
                        abort();
                /* Untouched on error. */
                if (c.plugins || c.settings || c.n_plugins || c.n_settings)
                        abort();
                return 0;
        }

        check_config(&c, n_cpus);
        rtf_config_deinit(&c);
        rtf_config_deinit(&c);
        return 0;
}
