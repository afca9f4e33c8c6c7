/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

int text_for_each_line(const char *buf, size_t len, size_t line_max,
                       int (*fn)(void *data, unsigned line, char *text), void *data, unsigned *ret_line) {
        unsigned line = 0;
        size_t pos = 0;
        char *text;
        int r = 0;

        text = malloc(line_max + 1);
        if (!text)
                return -ENOMEM;
        while (pos < len) {
                const char *nl = memchr(buf + pos, '\n', len - pos);
                size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;

                line++;
                if (n > line_max) {
                        r = TEXT_E_LONG_LINE;
                        break;
                }
                if (memchr(buf + pos, '\0', n)) {
                        r = TEXT_E_NUL;
                        break;
                }
                memcpy(text, buf + pos, n);
                text[n] = '\0';
                r = fn(data, line, text);
                if (r < 0)
                        break;
                pos += n + (nl ? 1 : 0);
        }
        free(text);
        *ret_line = line;
        return r < 0 ? r : 0;
}

int text_split_words(char *text, char **words, size_t max_words, size_t *ret_n, unsigned char *ret_bad) {
        size_t n = 0;
        char *s, *hash;

        hash = strchr(text, '#');
        if (hash)
                *hash = '\0';
        for (s = text; *s; s++)
                if (text_is_control(*s) && !text_is_space(*s)) {
                        *ret_bad = (unsigned char)*s;
                        return -EILSEQ;
                }
        s = text;
        for (;;) {
                while (text_is_space(*s))
                        s++;
                if (*s == '\0')
                        break;
                if (n < max_words)
                        words[n] = s;
                n++;
                while (*s && !text_is_space(*s))
                        s++;
                if (*s == '\0')
                        break;
                *s++ = '\0';
        }
        *ret_n = n;
        return 0;
}

int text_parse_decimal(const char *s, size_t n, uint64_t max, uint64_t *ret) {
        uint64_t v = 0;

        if (n == 0)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                uint64_t d;

                if (!text_is_digit(s[i]))
                        return -EINVAL;
                d = (uint64_t)(s[i] - '0');
                if (d > max || v > (max - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        *ret = v;
        return 0;
}

size_t text_escape(const char *in, char *out, size_t size) {
        static const char hex[] = "0123456789abcdef";
        size_t n = 0;

        if (size == 0)
                return 0;
        for (; *in; in++) {
                unsigned char c = (unsigned char)*in;
                size_t need = c == '\\' ? 2 : c < 0x20 || c >= 0x7f ? 4 : 1;

                if (n + need > size - 1)
                        break;
                if (need == 1) {
                        out[n++] = (char)c;
                } else if (need == 2) {
                        out[n++] = '\\';
                        out[n++] = '\\';
                } else {
                        out[n++] = '\\';
                        out[n++] = 'x';
                        out[n++] = hex[c >> 4];
                        out[n++] = hex[c & 15];
                }
        }
        out[n] = 0;
        return n;
}
