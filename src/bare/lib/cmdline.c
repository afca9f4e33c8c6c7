/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "cmdline.h"

struct word {
        const char *key, *value;
        size_t key_len, value_len;
};

static bool word_is(const char *s, size_t n, const char *lit) {
        size_t l = strlen(lit);

        return n == l && memcmp(s, lit, l) == 0;
}

static int parse_u32(const char *s, size_t n, uint32_t min, uint32_t max, uint32_t *ret) {
        uint64_t v = 0;

        if (n == 0 || n > 10)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return -EINVAL;
                v = v * 10 + (uint64_t) (s[i] - '0');
        }
        if (v < min || v > max)
                return -EINVAL;
        *ret = (uint32_t) v;
        return 0;
}

struct name_bit {
        const char *name;
        uint32_t bits;
};

/* A comma-separated list of names, each giving bits. */
static int parse_list(const char *s, size_t n, const struct name_bit *names, uint32_t *ret) {
        uint32_t bits = 0;
        size_t start = 0;

        if (n == 0)
                return -EINVAL;
        for (size_t i = 0; i <= n; i++) {
                const struct name_bit *nb;

                if (i < n && s[i] != ',')
                        continue;
                for (nb = names; nb->name; nb++)
                        if (word_is(s + start, i - start, nb->name))
                                break;
                if (!nb->name)
                        return -EINVAL;
                bits |= nb->bits;
                start = i + 1;
        }
        *ret = bits;
        return 0;
}

static const struct name_bit test_names[] = {
        { "self", BARE_TEST_SELF },
        { "latency", BARE_TEST_LATENCY },
        { "overflow", BARE_TEST_OVERFLOW },
        { "fpu-misuse", BARE_TEST_FPU_MISUSE },
        { "all", BARE_TEST_SELF | BARE_TEST_LATENCY },
        { NULL, 0 },
};

static const struct name_bit mode_names[] = {
        { "oneshot", BARE_MODE_ONESHOT },
        { "periodic", BARE_MODE_PERIODIC },
        { "both", BARE_MODE_ONESHOT | BARE_MODE_PERIODIC },
        { NULL, 0 },
};

static const struct name_bit load_names[] = {
        { "idle", BARE_LOAD_IDLE },
        { "cpu", BARE_LOAD_CPU },
        { "both", BARE_LOAD_IDLE | BARE_LOAD_CPU },
        { NULL, 0 },
};

static const struct name_bit clock_names[] = {
        { "auto", BARE_CLOCK_AUTO },
        { "lapic", BARE_CLOCK_LAPIC },
        { "pit", BARE_CLOCK_PIT },
        { NULL, 0 },
};

static int apply(const struct word *w, struct bare_options *o) {
        uint32_t v;
        int r;

        if (word_is(w->key, w->key_len, "test"))
                return parse_list(w->value, w->value_len, test_names, &o->tests);
        if (word_is(w->key, w->key_len, "timer"))
                return parse_list(w->value, w->value_len, mode_names, &o->modes);
        if (word_is(w->key, w->key_len, "load"))
                return parse_list(w->value, w->value_len, load_names, &o->loads);
        if (word_is(w->key, w->key_len, "clock")) {
                /* One device: a list of two makes no sense. */
                for (size_t i = 0; i < w->value_len; i++)
                        if (w->value[i] == ',')
                                return -EINVAL;
                r = parse_list(w->value, w->value_len, clock_names, &v);
                if (r == 0)
                        o->clock = (enum bare_clock) v;
                return r;
        }
        if (word_is(w->key, w->key_len, "samples"))
                return parse_u32(w->value, w->value_len, 1, 10000000, &o->samples);
        if (word_is(w->key, w->key_len, "period_us"))
                return parse_u32(w->value, w->value_len, 10, 100000, &o->period_us);
        if (word_is(w->key, w->key_len, "hist")) {
                r = parse_u32(w->value, w->value_len, 0, 1, &v);
                if (r == 0)
                        o->histogram = v;
                return r;
        }
        o->unknown++;
        return 0;
}

int cmdline_parse(const char *s, size_t len, struct bare_options *ret, char *err, size_t err_size) {
        struct bare_options o = *ret;
        size_t i = 0;

        if (err_size > 0)
                err[0] = '\0';
        while (i < len && s[i]) {
                struct word w = { 0 };
                size_t start;

                while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n'))
                        i++;
                if (i >= len || !s[i])
                        break;
                start = i;
                while (i < len && s[i] && s[i] != ' ' && s[i] != '\t' && s[i] != '\n')
                        i++;
                w.key = s + start;
                const char *eq = memchr(w.key, '=', i - start);
                if (eq) {
                        w.key_len = (size_t) (eq - w.key);
                        w.value = eq + 1;
                        w.value_len = i - start - w.key_len - 1;
                } else {
                        w.key_len = i - start;
                        w.value = w.key + w.key_len;
                }
                if (apply(&w, &o) < 0) {
                        size_t n = i - start;

                        if (err_size > 0) {
                                if (n >= err_size)
                                        n = err_size - 1;
                                memcpy(err, w.key, n);
                                err[n] = '\0';
                        }
                        return -EINVAL;
                }
        }
        *ret = o;
        return 0;
}
