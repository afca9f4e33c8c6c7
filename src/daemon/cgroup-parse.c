/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "cgroup-parse.h"

#define MOUNTINFO_FIELDS_MAX 64

static bool is_octal(char c) {
        return c >= '0' && c <= '7';
}

/* Decode the \ooo escapes the kernel writes for space, tab, newline and '\'. */
static int unescape(const char *s, size_t n, char *ret, size_t size) {
        size_t o = 0;

        for (size_t i = 0; i < n; i++) {
                char c = s[i];

                if (c == '\\' && i + 3 < n && is_octal(s[i + 1]) && is_octal(s[i + 2]) &&
                    is_octal(s[i + 3])) {
                        c = (char)(((s[i + 1] - '0') << 6) | ((s[i + 2] - '0') << 3) | (s[i + 3] - '0'));
                        i += 3;
                }
                if (o + 1 >= size)
                        return -ENAMETOOLONG;
                ret[o++] = c;
        }
        ret[o] = 0;
        return 0;
}

struct word {
        const char *s;
        size_t n;
};

/* Split [s, end) at spaces; returns the number of words (at most max). */
static size_t split(const char *s, const char *end, struct word *words, size_t max) {
        size_t n = 0;

        while (s < end && n < max) {
                const char *w;

                while (s < end && *s == ' ')
                        s++;
                if (s >= end)
                        break;
                w = s;
                while (s < end && *s != ' ')
                        s++;
                words[n++] = (struct word){ w, (size_t)(s - w) };
        }
        return n;
}

static bool word_is(const struct word *w, const char *text) {
        return w->n == strlen(text) && memcmp(w->s, text, w->n) == 0;
}

/* Whether the comma-separated `opts` contain `opt`. */
static bool opts_have(const struct word *opts, const char *opt) {
        size_t n = strlen(opt);

        for (const char *s = opts->s, *end = opts->s + opts->n; s < end;) {
                const char *comma = memchr(s, ',', (size_t)(end - s));
                size_t len = comma ? (size_t)(comma - s) : (size_t)(end - s);

                if (len == n && memcmp(s, opt, n) == 0)
                        return true;
                if (!comma)
                        break;
                s = comma + 1;
        }
        return false;
}

int cgroup_parse_mountinfo(const char *buf, size_t len, struct cgroup_mounts *ret) {
        struct cgroup_mounts m = { "", "" };
        const char *s = buf, *end = buf + len;

        while (s < end) {
                const char *nl = memchr(s, '\n', (size_t)(end - s));
                const char *eol = nl ? nl : end;
                struct word w[MOUNTINFO_FIELDS_MAX];
                size_t n = split(s, eol, w, MOUNTINFO_FIELDS_MAX), dash = 0;

                s = nl ? nl + 1 : end;
                if (n == 0)
                        continue;
                /* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS */
                for (size_t i = 6; i < n && !dash; i++)
                        if (word_is(&w[i], "-"))
                                dash = i;
                if (!dash || dash + 3 >= n)
                        return -EINVAL;
                if (word_is(&w[dash + 1], "cgroup") && !m.v1_cpuset[0] && opts_have(&w[dash + 3], "cpuset")) {
                        int r = unescape(w[4].s, w[4].n, m.v1_cpuset, sizeof(m.v1_cpuset));

                        if (r < 0)
                                return r;
                } else if (word_is(&w[dash + 1], "cgroup2") && !m.v2[0]) {
                        int r = unescape(w[4].s, w[4].n, m.v2, sizeof(m.v2));

                        if (r < 0)
                                return r;
                }
        }
        *ret = m;
        return 0;
}

int cgroup_parse_v2_path(const char *buf, size_t len, char *ret, size_t size) {
        const char *s = buf, *end = buf + len;

        while (s < end) {
                const char *nl = memchr(s, '\n', (size_t)(end - s));
                size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);

                if (n >= 3 && memcmp(s, "0::", 3) == 0) {
                        if (n - 3 == 0 || s[3] != '/')
                                return -EINVAL;
                        if (n - 3 >= size)
                                return -ENAMETOOLONG;
                        memcpy(ret, s + 3, n - 3);
                        ret[n - 3] = 0;
                        return 0;
                }
                s = nl ? nl + 1 : end;
        }
        return -ENOENT;
}

bool cgroup_list_has(const char *list, const char *word) {
        struct word w[64];
        size_t n;

        if (!list || !word)
                return false;
        n = split(list, list + strcspn(list, "\n"), w, 64);
        for (size_t i = 0; i < n; i++)
                if (word_is(&w[i], word))
                        return true;
        return false;
}
