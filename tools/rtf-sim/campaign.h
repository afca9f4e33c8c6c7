/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What rtf-sim runs: named plugin configurations, the fixed scenarios of
 * issue 11, random campaigns (--check) and acceptance-ratio curves.
 * Results go to a json-c object; the front end prints it.
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "host.h"

struct campaign_options {
        const char *plugin_dir;
        uint64_t seed;
        uint64_t sets;                  /* --check: admitted sets to simulate per configuration */
        uint64_t horizon_us;            /* bound of a simulation when the hyperperiod is longer */
        bool veto;                      /* the whole-machine check (--no-machine turns it off) */
        bool friendly_placement;
        bool verbose;
        uint32_t curve_sets;            /* --curves: sets per utilisation step */
};

/* Names of the configurations, NULL-terminated, and a line about each. */
extern const char *const campaign_configs[];
const char *campaign_config_about(const char *name);
/* Fill h (instances, CPUs, partitions, the kernel's share) for a named configuration; -EINVAL. */
int campaign_config(const char *name, struct host *h);

/* --check on one configuration: >= 0 misses found (details in out), negative errno. */
int campaign_check(const struct campaign_options *o, const char *config, json_object *out);
/* --scenario: a fixed sequence; 1 if a deadline was missed, 0 if not; trace for --gantt. */
int campaign_scenario(const struct campaign_options *o, const char *name, json_object *out,
                      json_object *gantt);
/*
 * --curves for "RM" or "EDF" on one CPU, "RM2" or "EDF2" on two (the
 * placement heuristics against the best partition): rows of admitted
 * shares per utilisation.
 */
int campaign_curves(const struct campaign_options *o, const char *plugin, json_object *out);
int campaign_curves2(const struct campaign_options *o, const char *plugin, json_object *out);
