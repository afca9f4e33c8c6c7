/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Random task parameters for rtf-sim's campaigns: a seeded generator
 * (splitmix64, so a seed names a campaign on every machine), UUniFast
 * utilisations (Bini and Buttazzo 2005), log-uniform periods.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct gen {
        uint64_t state;
};

uint64_t gen_next(struct gen *g);
/* Uniform in [0, 1). */
double gen_unit(struct gen *g);
/* Uniform integer in [lo, hi]. */
uint64_t gen_range(struct gen *g, uint64_t lo, uint64_t hi);
/* Log-uniform integer in [lo, hi]. */
uint64_t gen_log_uniform(struct gen *g, uint64_t lo, uint64_t hi);
/* n utilisations summing to total, uniformly distributed over the simplex (UUniFast). */
void gen_uunifast(struct gen *g, size_t n, double total, double *ret);
