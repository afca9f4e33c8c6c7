/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * 64-bit division on i386: gcc calls these libgcc helpers for / and % on
 * 64-bit integers, and there is no 32-bit libgcc without multilib.  The
 * shared periodic code divides by the period once per job; a divisor that
 * fits in 32 bits (every period up to 4.29 s) takes two divl instructions.
 */
#include <stdint.h>

uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem);
uint64_t __udivdi3(uint64_t n, uint64_t d);
uint64_t __umoddi3(uint64_t n, uint64_t d);
int64_t __divdi3(int64_t n, int64_t d);
int64_t __moddi3(int64_t n, int64_t d);

static unsigned clz64(uint64_t v) {
        uint32_t hi = (uint32_t) (v >> 32), lo = (uint32_t) v;

        return hi ? (unsigned) __builtin_clz(hi) : 32u + (unsigned) __builtin_clz(lo);
}

uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem) {
        uint64_t q = 0;

        if (d == 0)
                __builtin_trap();       /* #UD: the kernel panics and names the task */
        if (n < d) {
                if (rem)
                        *rem = n;
                return 0;
        }
        if (d >> 32 == 0) {
                uint32_t d32 = (uint32_t) d, hi = (uint32_t) (n >> 32), lo = (uint32_t) n;
                uint32_t qhi = hi / d32, r = hi % d32, qlo;

                /* r < d32, so the quotient of r:lo fits in 32 bits. */
                __asm__("divl %4" : "=a"(qlo), "=d"(r) : "a"(lo), "d"(r), "rm"(d32));
                if (rem)
                        *rem = r;
                return (uint64_t) qhi << 32 | qlo;
        }
        /* Divisor of 33+ bits: shift and subtract, at most 32 rounds. */
        unsigned shift = clz64(d) - clz64(n);

        d <<= shift;
        for (unsigned i = 0; i <= shift; i++) {
                q <<= 1;
                if (n >= d) {
                        n -= d;
                        q |= 1;
                }
                d >>= 1;
        }
        if (rem)
                *rem = n;
        return q;
}

uint64_t __udivdi3(uint64_t n, uint64_t d) {
        return __udivmoddi4(n, d, 0);
}

uint64_t __umoddi3(uint64_t n, uint64_t d) {
        uint64_t r;

        __udivmoddi4(n, d, &r);
        return r;
}

int64_t __divdi3(int64_t n, int64_t d) {
        uint64_t un = n < 0 ? -(uint64_t) n : (uint64_t) n, ud = d < 0 ? -(uint64_t) d : (uint64_t) d;
        uint64_t q = __udivmoddi4(un, ud, 0);

        return (n < 0) != (d < 0) ? -(int64_t) q : (int64_t) q;
}

int64_t __moddi3(int64_t n, int64_t d) {
        uint64_t un = n < 0 ? -(uint64_t) n : (uint64_t) n, ud = d < 0 ? -(uint64_t) d : (uint64_t) d, r;

        __udivmoddi4(un, ud, &r);
        return n < 0 ? -(int64_t) r : (int64_t) r;
}
