/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtfd's configuration file (Listing 2 of the paper, extended).
 *
 *   # Name  Plugin  Priority-range  Cores  [key=value ...]
 *   EDF     EDF.so  100-100         0      util=0.9
 *   RM1     RM.so   50-99           1,2
 *   FP      FP.so   1-99            5-7
 *   set     latency_hint_us  0
 *   set     shared_cpus      allow
 *
 * A plugin line has at least four columns; words after the core list are
 * plugin options (key=value) passed to the plugin unparsed.  Cores are a list
 * of numbers and ranges ("0", "1,2", "5-7", "0,2-3") or "all".  A line whose
 * first word is `set` sets a daemon option (`set KEY VALUE`); `set` is
 * therefore not a valid plugin name.  `#` starts a comment anywhere.
 *
 * The parser is a pure function over a buffer (fuzzed); it knows nothing of
 * plugins' policies, so priority ranges are only checked for shape here
 * (1..1000, low <= high) and against the policy's limits when the plugin is
 * initialised.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtf/rtf.h"

#define RTF_CONFIG_MAX_PLUGINS 64
#define RTF_CONFIG_MAX_OPTIONS 16       /* per plugin line */
#define RTF_CONFIG_MAX_SETTINGS 64      /* `set` lines */
#define RTF_CONFIG_MAX_CPUS 1024
#define RTF_CONFIG_MAX_SIZE (1u << 20)  /* bytes of a config file */
#define RTF_CONFIG_WORD_MAX 256

struct rtf_config_plugin {
        char name[RTF_PLUGIN_NAME_MAX];
        char file[RTF_CONFIG_WORD_MAX]; /* "EDF.so" or an absolute path */
        uint32_t prio_min;
        uint32_t prio_max;
        uint32_t *cpus;                 /* absolute CPU numbers, in order, no duplicates */
        uint32_t n_cpus;
        char **options;                 /* "key=value" */
        uint32_t n_options;
        unsigned line;
        const char *source;             /* the file it came from (rtf_config.filename), for FILE:LINE */
};

struct rtf_config_setting {
        char key[64];
        char value[RTF_CONFIG_WORD_MAX];
        unsigned line;
};

struct rtf_config {
        struct rtf_config_plugin *plugins;
        uint32_t n_plugins;
        struct rtf_config_setting *settings;
        uint32_t n_settings;
        char *filename;                 /* as given to rtf_config_parse(), for messages */
        bool shared_cpus_allowed;       /* `set shared_cpus allow` */
};

#define RTF_CONFIG_NULL ((struct rtf_config){ 0 })

/*
 * Parse `len` bytes of `buf`.  `filename` is used only in messages; n_cpus is
 * the number of CPUs the machine has (CPUs 0..n_cpus-1 exist), used to reject
 * core numbers that do not exist and to expand "all".
 *
 * Returns 0 and fills *ret (free with rtf_config_deinit), or -EINVAL and
 * writes "FILE:LINE: message" into err.  -ENOMEM on allocation failure.
 */
int rtf_config_parse(const char *buf, size_t len, const char *filename, uint32_t n_cpus,
                     struct rtf_config *ret, char *err, size_t errlen);

/* The built-in default used when there is no config file. */
int rtf_config_default(uint32_t n_cpus, struct rtf_config *ret);

void rtf_config_deinit(struct rtf_config *c);

/*
 * `set shared_cpus warn|allow` is the parser's own setting (the daemon does
 * not see it as an unknown key): plugins that share CPUs are warned about
 * (section 7.2 of the paper) unless the file says that it shares them on
 * purpose, as the built-in default and the shipped rtfd.conf do.
 */
#define RTF_CONFIG_SHARED_CPUS "shared_cpus"

/*
 * Section 7.2 of the paper: partially or wholly overlapping core sets of two
 * plugins.  Calls fn for every pair (i < j) of plugin indexes that share a CPU.
 */
void rtf_config_for_each_overlap(const struct rtf_config *c,
                                 void (*fn)(void *userdata, uint32_t i, uint32_t j, uint32_t cpu),
                                 void *userdata);

/* The value of a `set` key, or NULL. */
const char *rtf_config_get_setting(const struct rtf_config *c, const char *key);
