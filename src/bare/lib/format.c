/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdbool.h>
#include <stdint.h>

#include "format.h"

struct out {
        char *buf;
        size_t size, len;
};

static void put(struct out *o, char c) {
        if (o->len + 1 < o->size)
                o->buf[o->len] = c;
        o->len++;
}

static void put_padded(struct out *o, const char *s, size_t n, unsigned width, bool left, char pad,
                       bool negative) {
        size_t total = n + negative;

        if (negative && pad == '0')
                put(o, '-');
        if (!left)
                for (; total < width; total++)
                        put(o, pad);
        if (negative && pad != '0')
                put(o, '-');
        for (size_t i = 0; i < n; i++)
                put(o, s[i]);
        if (left)
                for (; total < width; total++)
                        put(o, ' ');
}

/* Digits of v in base 10 or 16 without 64-bit division: repeated halving is cheap enough. */
static size_t digits(char tmp[24], uint64_t v, unsigned base, bool upper) {
        const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
        size_t n = 0;

        do {
                uint64_t q;
                unsigned r;

                if (base == 16) {
                        q = v >> 4;
                        r = (unsigned) (v & 15);
                } else {
                        /* v / 10 as (v * 0xCCCC...CD) >> 67, without a 128-bit type. */
                        uint64_t lo = (uint32_t) v, hi = v >> 32, m_lo = 0xCCCCCCCDu, m_hi = 0xCCCCCCCCu;
                        uint64_t t = lo * m_lo, mid1 = hi * m_lo, mid2 = lo * m_hi;
                        uint64_t carry = (t >> 32) + (uint32_t) mid1 + (uint32_t) mid2;
                        uint64_t high = hi * m_hi + (mid1 >> 32) + (mid2 >> 32) + (carry >> 32);

                        q = high >> 3;
                        r = (unsigned) (v - q * 10);
                }
                tmp[n++] = set[r];
                v = q;
        } while (v);
        return n;
}

int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap) {
        struct out o = { .buf = buf, .size = size };

        for (const char *p = fmt; *p; p++) {
                char tmp[24], rev[24], pad = ' ';
                bool left = false, negative = false, is_signed = false, upper = false;
                unsigned width = 0, lng = 0, base = 10;
                uint64_t v;
                size_t n;

                if (*p != '%') {
                        put(&o, *p);
                        continue;
                }
                p++;
                for (;; p++) {
                        if (*p == '-')
                                left = true;
                        else if (*p == '0')
                                pad = '0';
                        else
                                break;
                }
                if (left)
                        pad = ' ';
                while (*p >= '0' && *p <= '9' && width < 1000)
                        width = width * 10 + (unsigned) (*p++ - '0');
                while (*p == 'l' || *p == 'z') {
                        lng += *p == 'z' ? (sizeof(size_t) == 8 ? 2 : 1) : 1;
                        p++;
                }
                switch (*p) {
                case '\0':
                        p--;
                        continue;
                case '%':
                        put(&o, '%');
                        continue;
                case 'c':
                        tmp[0] = (char) va_arg(ap, int);
                        put_padded(&o, tmp, 1, width, left, ' ', false);
                        continue;
                case 's': {
                        const char *s = va_arg(ap, const char *);

                        if (!s)
                                s = "(null)";
                        for (n = 0; s[n]; n++)
                                ;
                        put_padded(&o, s, n, width, left, ' ', false);
                        continue;
                }
                case 'p':
                        v = (uintptr_t) va_arg(ap, void *);
                        put(&o, '0');
                        put(&o, 'x');
                        base = 16;
                        goto number;
                case 'd':
                case 'i':
                        is_signed = true;
                        break;
                case 'u':
                        break;
                case 'X':
                        upper = true;
                        /* fall through */
                case 'x':
                        base = 16;
                        break;
                default:
                        put(&o, '%');
                        put(&o, *p);
                        continue;
                }
                if (is_signed) {
                        int64_t s = lng >= 2 ? va_arg(ap, long long) : lng == 1 ? va_arg(ap, long) : va_arg(ap, int);

                        negative = s < 0;
                        v = negative ? -(uint64_t) s : (uint64_t) s;
                } else {
                        v = lng >= 2 ? va_arg(ap, unsigned long long)
                          : lng == 1 ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int);
                }
number:
                n = digits(tmp, v, base, upper);
                for (size_t i = 0; i < n; i++)
                        rev[i] = tmp[n - 1 - i];
                put_padded(&o, rev, n, width, left, pad, negative);
        }
        if (size > 0)
                buf[o.len < size ? o.len : size - 1] = '\0';
        return o.len > INT32_MAX ? INT32_MAX : (int) o.len;
}

int fmt_snprintf(char *buf, size_t size, const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = fmt_vsnprintf(buf, size, fmt, ap);
        va_end(ap);
        return r;
}
