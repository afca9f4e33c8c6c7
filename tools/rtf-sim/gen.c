/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <math.h>

#include "gen.h"

uint64_t gen_next(struct gen *g) {
        uint64_t z = (g->state += 0x9e3779b97f4a7c15ULL);

        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
}

double gen_unit(struct gen *g) {
        return (double)(gen_next(g) >> 11) / (double)(1ULL << 53);
}

uint64_t gen_range(struct gen *g, uint64_t lo, uint64_t hi) {
        return hi <= lo ? lo : lo + gen_next(g) % (hi - lo + 1);
}

uint64_t gen_log_uniform(struct gen *g, uint64_t lo, uint64_t hi) {
        double v = exp(log((double)lo) + gen_unit(g) * (log((double)hi) - log((double)lo)));
        uint64_t r = (uint64_t)v;

        return r < lo ? lo : r > hi ? hi : r;
}

void gen_uunifast(struct gen *g, size_t n, double total, double *ret) {
        double sum = total;

        for (size_t i = 1; i < n; i++) {
                double next = sum * pow(gen_unit(g), 1.0 / (double)(n - i));

                ret[i - 1] = sum - next;
                sum = next;
        }
        if (n > 0)
                ret[n - 1] = sum;
}
