/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unsigned 128-bit arithmetic for the exact admission tests (products of a
 * time in microseconds, another time and ADM_UTIL_ONE overflow 64 bits).
 *
 * Where the compiler has unsigned __int128 (x86-64 Linux) it is used; the
 * bare-machine build (i386, freestanding) has none, and gets the portable
 * version below.  Both implement exactly the same operations, and
 * tests/unit/test-admission-wide.c checks the portable one against the
 * native one (it defines ADM_WIDE_PORTABLE to get it on the host).
 *
 * Only what the tests need: products of two 64-bit numbers, a product by a
 * 64-bit number, sums, differences (never below zero), comparisons and a
 * division by a 64-bit number.  A result that does not fit in 128 bits is a
 * caller's bug (the callers bound their operands: times <= ADM_TIME_MAX_US).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#if defined(__SIZEOF_INT128__) && !defined(ADM_WIDE_PORTABLE)

__extension__ typedef unsigned __int128 adm_u128;

static inline adm_u128 adm_w(uint64_t a) { return a; }
static inline adm_u128 adm_w_mul(uint64_t a, uint64_t b) { return (adm_u128)a * b; }
static inline adm_u128 adm_w_mul64(adm_u128 a, uint64_t b) { return a * b; }
static inline adm_u128 adm_w_add(adm_u128 a, adm_u128 b) { return a + b; }
static inline adm_u128 adm_w_sub(adm_u128 a, adm_u128 b) { return a - b; }
static inline adm_u128 adm_w_div64(adm_u128 a, uint64_t d) { return a / d; }
static inline int adm_w_cmp(adm_u128 a, adm_u128 b) { return a < b ? -1 : a > b; }
/* The value, or UINT64_MAX if it does not fit in 64 bits. */
static inline uint64_t adm_w_u64(adm_u128 a) { return a > UINT64_MAX ? UINT64_MAX : (uint64_t)a; }

#else

typedef struct {
        uint64_t hi, lo;
} adm_u128;

static inline adm_u128 adm_w(uint64_t a) { return (adm_u128){ 0, a }; }

static inline adm_u128 adm_w_add(adm_u128 a, adm_u128 b) {
        adm_u128 r = { a.hi + b.hi, a.lo + b.lo };

        r.hi += r.lo < a.lo;
        return r;
}

static inline adm_u128 adm_w_sub(adm_u128 a, adm_u128 b) {
        adm_u128 r = { a.hi - b.hi, a.lo - b.lo };

        r.hi -= a.lo < b.lo;
        return r;
}

static inline adm_u128 adm_w_mul(uint64_t a, uint64_t b) {
        uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
        uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
        uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;

        return (adm_u128){ p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32), (mid << 32) | (uint32_t)p00 };
}

static inline adm_u128 adm_w_mul64(adm_u128 a, uint64_t b) {
        adm_u128 r = adm_w_mul(a.lo, b);

        r.hi += a.hi * b;
        return r;
}

static inline int adm_w_cmp(adm_u128 a, adm_u128 b) {
        if (a.hi != b.hi)
                return a.hi < b.hi ? -1 : 1;
        return a.lo < b.lo ? -1 : a.lo > b.lo;
}

/* Restoring division, one bit a step: 128 steps, no 64-bit division helper
 * needed (the i386 build has no libgcc). */
static inline adm_u128 adm_w_div64(adm_u128 a, uint64_t d) {
        adm_u128 q = { 0, 0 };
        uint64_t rem = 0;

        for (int i = 127; i >= 0; i--) {
                uint64_t bit = i >= 64 ? (a.hi >> (i - 64)) & 1 : (a.lo >> i) & 1;
                bool carry = rem >> 63;

                rem = rem << 1 | bit;
                if (carry || rem >= d) {
                        rem -= d;
                        if (i >= 64)
                                q.hi |= UINT64_C(1) << (i - 64);
                        else
                                q.lo |= UINT64_C(1) << i;
                }
        }
        return q;
}

static inline uint64_t adm_w_u64(adm_u128 a) { return a.hi ? UINT64_MAX : a.lo; }

#endif

static inline bool adm_w_gt(adm_u128 a, adm_u128 b) { return adm_w_cmp(a, b) > 0; }
static inline bool adm_w_le(adm_u128 a, adm_u128 b) { return adm_w_cmp(a, b) <= 0; }
