/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The portable 128-bit arithmetic of the bare-machine build against the
 * compiler's unsigned __int128, over edge values and a million random ones.
 */
#define ADM_WIDE_PORTABLE 1
#include "admission/wide.h"

#include "tap.h"

__extension__ typedef unsigned __int128 native;

static native to_native(adm_u128 a) {
        return (native)a.hi << 64 | a.lo;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t rnd(void) {
        /* xorshift64*, with a spread of magnitudes so that small and huge values both occur */
        rng_state ^= rng_state >> 12;
        rng_state ^= rng_state << 25;
        rng_state ^= rng_state >> 27;
        uint64_t v = rng_state * 0x2545F4914F6CDD1DULL;
        return v >> (v & 63);
}

int main(void) {
        static const uint64_t edges[] = { 0, 1, 2, 3, 999999999, 1000000000, 0xffffffffULL, 0x100000000ULL,
                                          10000000000ULL, UINT64_MAX / 2, UINT64_MAX - 1, UINT64_MAX };
        unsigned bad_mul = 0, bad_div = 0, bad_add = 0, bad_cmp = 0, bad_u64 = 0;

        for (int round = 0; round < 1000000 + 144; round++) {
                uint64_t a, b, c;

                if (round < 144) {
                        a = edges[round % 12];
                        b = edges[round / 12];
                        c = edges[(round + 5) % 12] | 1;
                } else {
                        a = rnd();
                        b = rnd();
                        c = rnd() | 1;
                }
                adm_u128 p = adm_w_mul(a, b);
                native np = (native)a * b;

                bad_mul += to_native(p) != np;
                /* a product by a third factor, where it fits in 128 bits */
                if (np == 0 || (native)-1 / np >= (c >> 1)) {
                        bad_mul += to_native(adm_w_mul64(p, c >> 1)) != np * (c >> 1);
                }
                bad_div += to_native(adm_w_div64(p, c)) != np / c;
                bad_add += to_native(adm_w_add(p, adm_w(c))) != np + c;
                if (np >= c)
                        bad_add += to_native(adm_w_sub(p, adm_w(c))) != np - c;
                bad_cmp += adm_w_cmp(p, adm_w(c)) != (np < c ? -1 : np > c);
                bad_u64 += adm_w_u64(p) != (np > UINT64_MAX ? UINT64_MAX : (uint64_t)np);
        }
        CHECK_EQ(bad_mul, 0);    /* products agree with __int128 */
        CHECK_EQ(bad_div, 0);    /* quotients */
        CHECK_EQ(bad_add, 0);    /* sums and differences */
        CHECK_EQ(bad_cmp, 0);    /* comparisons */
        CHECK_EQ(bad_u64, 0);    /* saturating conversions */
        return test_done();
}
