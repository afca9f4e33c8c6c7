/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Parser of rtfd's configuration file (config.h).
 *
 * The file is root's, but it is still parsed as untrusted input: it is fuzzed,
 * every resource it can make us allocate has a limit, and nothing here reads
 * beyond `len` bytes, since the caller hands us a mapping or a read buffer
 * that is not NUL-terminated.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "text.h"
#include "util.h"

#define CONFIG_LINE_MAX 4096u
#define CONFIG_PRIO_MIN 1u
#define CONFIG_PRIO_MAX 1000u
/* Name, plugin file, priority range, cores, options. */
#define CONFIG_PLUGIN_COLUMNS 4u
#define CONFIG_WORDS_MAX (CONFIG_PLUGIN_COLUMNS + RTF_CONFIG_MAX_OPTIONS)
#define CONFIG_SETTING_KEY_MAX (sizeof(((struct rtf_config_setting *)0)->key) - 1)

struct parser {
        const char *filename;
        uint32_t n_cpus;
        unsigned line;                  /* 0 while the error concerns the whole file */
        char *err;
        size_t errlen;
};

_printf_(2, 3) static int parser_error(const struct parser *p, const char *fmt, ...) {
        va_list ap;
        int n;

        if (!p->err || p->errlen == 0)
                return -EINVAL;

        if (p->line > 0)
                n = snprintf(p->err, p->errlen, "%s:%u: ", p->filename, p->line);
        else
                n = snprintf(p->err, p->errlen, "%s: ", p->filename);
        if (n < 0 || (size_t)n >= p->errlen)
                return -EINVAL;

        va_start(ap, fmt);
        vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* Character classes by hand: the <ctype.h> ones depend on the locale. */
static bool char_is_key(char c) {
        return (c >= 'a' && c <= 'z') || text_is_digit(c) || c == '_';
}

static bool char_is_name(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || text_is_digit(c) ||
                c == '_' || c == '.' || c == '-';
}

static bool str_all(const char *s, size_t n, bool (*is)(char)) {
        for (size_t i = 0; i < n; i++)
                if (!is(s[i]))
                        return false;
        return true;
}

static int parse_u32(const char *s, size_t n, uint32_t *ret) {
        uint64_t v;
        int r = text_parse_decimal(s, n, UINT32_MAX, &v);

        if (r >= 0)
                *ret = (uint32_t)v;
        return r;
}

/* "A-B" or "N"; on success *ret_low and *ret_high are set. */
static int parse_range(const char *s, size_t n, uint32_t *ret_low, uint32_t *ret_high) {
        const char *dash = memchr(s, '-', n);
        uint32_t low, high;
        int r;

        if (!dash) {
                r = parse_u32(s, n, &low);
                if (r < 0)
                        return r;
                high = low;
        } else {
                r = parse_u32(s, (size_t)(dash - s), &low);
                if (r < 0)
                        return r;
                r = parse_u32(dash + 1, n - (size_t)(dash - s) - 1, &high);
                if (r < 0)
                        return r;
        }
        *ret_low = low;
        *ret_high = high;
        return 0;
}

static int cmp_u32(const void *a, const void *b) {
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

        return (x > y) - (x < y);
}

static int parse_name(const struct parser *p, const struct rtf_config *c, const char *word) {
        size_t n = strlen(word);

        if (n >= RTF_PLUGIN_NAME_MAX)
                return parser_error(p, "plugin name \"%s\" is too long (at most %d characters)",
                                    word, RTF_PLUGIN_NAME_MAX - 1);
        if (!str_all(word, n, char_is_name))
                return parser_error(p, "invalid plugin name \"%s\" (letters, digits, '_', '.' and '-' only)",
                                    word);
        for (uint32_t i = 0; i < c->n_plugins; i++)
                if (strcmp(c->plugins[i].name, word) == 0)
                        return parser_error(p, "duplicate plugin name \"%s\" (first defined on line %u)",
                                            word, c->plugins[i].line);
        return 0;
}

/*
 * A bare name is looked up in the plugin directory; an absolute path is
 * taken as is (the daemon checks who owns it).  Anything relative with a
 * '/' in it would depend on rtfd's working directory, and ".." would walk
 * out of a directory the administrator meant.
 */
static int parse_plugin_file(const struct parser *p, const char *word) {
        size_t n = strlen(word);

        if (n >= RTF_CONFIG_WORD_MAX)
                return parser_error(p, "plugin file name is too long (at most %d characters)",
                                    RTF_CONFIG_WORD_MAX - 1);
        if (word[0] == '/') {
                if (strstr(word, "/../") || (n >= 3 && strcmp(word + n - 3, "/..") == 0))
                        return parser_error(p, "plugin path \"%s\" contains \"..\"", word);
                if (word[n - 1] == '/')
                        return parser_error(p, "plugin path \"%s\" is a directory", word);
                return 0;
        }
        if (n < 4 || strcmp(word + n - 3, ".so") != 0 || !str_all(word, n, char_is_name))
                return parser_error(p, "invalid plugin file \"%s\" (expected NAME.so or an absolute path)",
                                    word);
        return 0;
}

static int parse_priority(const struct parser *p, const char *word, uint32_t *ret_min, uint32_t *ret_max) {
        uint32_t low, high;

        if (parse_range(word, strlen(word), &low, &high) < 0 ||
            low < CONFIG_PRIO_MIN || high > CONFIG_PRIO_MAX || low > high)
                return parser_error(p, "invalid priority range \"%s\" (expected LOW-HIGH with %u <= LOW <= HIGH <= %u)",
                                    word, CONFIG_PRIO_MIN, CONFIG_PRIO_MAX);
        *ret_min = low;
        *ret_max = high;
        return 0;
}

static int parse_cpus(const struct parser *p, const char *word, uint32_t **ret_cpus, uint32_t *ret_n) {
        _cleanup_(freep) uint32_t *cpus = NULL;
        size_t n = 0;

        /* Bounded before anything is allocated or expanded: n_cpus comes from the caller. */
        cpus = malloc(RTF_CONFIG_MAX_CPUS * sizeof(*cpus));
        if (!cpus)
                return -ENOMEM;

        if (strcmp(word, "all") == 0) {
                if (p->n_cpus == 0)
                        return parser_error(p, "\"all\" CPUs: this machine has no CPUs");
                if (p->n_cpus > RTF_CONFIG_MAX_CPUS)
                        return parser_error(p, "\"all\" is %u CPUs, more than the %d a line may list",
                                            p->n_cpus, RTF_CONFIG_MAX_CPUS);
                for (uint32_t cpu = 0; cpu < p->n_cpus; cpu++)
                        cpus[n++] = cpu;
        } else {
                const char *s = word, *end = word + strlen(word);

                for (;;) {
                        const char *comma = memchr(s, ',', (size_t)(end - s));
                        size_t item_len = comma ? (size_t)(comma - s) : (size_t)(end - s);
                        uint32_t low, high;

                        if (parse_range(s, item_len, &low, &high) < 0)
                                return parser_error(p, "invalid core list \"%s\" (expected \"all\" or numbers and ranges such as 0,2-3)",
                                                    word);
                        if (low > high)
                                return parser_error(p, "invalid CPU range %u-%u in \"%s\"", low, high, word);
                        if (high >= p->n_cpus)
                                return parser_error(p, "CPU %u does not exist: this machine has %u CPU%s",
                                                    high, p->n_cpus, p->n_cpus == 1 ? "" : "s");
                        /* 64-bit: high - low + 1 overflows 32 bits for 0-4294967295. */
                        if ((uint64_t)n + ((uint64_t)high - low + 1) > RTF_CONFIG_MAX_CPUS)
                                return parser_error(p, "more than %d CPUs in \"%s\"", RTF_CONFIG_MAX_CPUS, word);
                        for (uint64_t cpu = low; cpu <= high; cpu++)
                                cpus[n++] = (uint32_t)cpu;

                        if (!comma)
                                break;
                        s = comma + 1;
                }
        }

        qsort(cpus, n, sizeof(*cpus), cmp_u32);
        for (size_t i = 1; i < n; i++)
                if (cpus[i] == cpus[i - 1])
                        return parser_error(p, "CPU %u is listed twice in \"%s\"", cpus[i], word);

        /* Shrinking never fails in practice, but keeping the big buffer is harmless if it does. */
        uint32_t *shrunk = realloc(cpus, n * sizeof(*cpus));
        if (shrunk)
                cpus = shrunk;

        *ret_cpus = cpus;
        *ret_n = (uint32_t)n;
        cpus = NULL;
        return 0;
}

static int parse_option(const struct parser *p, char *const *options, uint32_t n_options, const char *word) {
        const char *eq = strchr(word, '=');
        size_t key_len;

        if (strlen(word) >= RTF_CONFIG_WORD_MAX)
                return parser_error(p, "option is too long (at most %d characters)", RTF_CONFIG_WORD_MAX - 1);
        if (!eq)
                return parser_error(p, "invalid option \"%s\" (expected KEY=VALUE)", word);
        key_len = (size_t)(eq - word);
        if (key_len == 0 || text_is_digit(word[0]) || !str_all(word, key_len, char_is_key))
                return parser_error(p, "invalid option key in \"%s\" (lowercase letters, digits and '_', not starting with a digit)",
                                    word);
        if (eq[1] == '\0')
                return parser_error(p, "option \"%s\" has no value", word);
        /* Plugins get the options unparsed; a repeated key would leave it to each plugin which one wins. */
        for (uint32_t i = 0; i < n_options; i++)
                if (strncmp(options[i], word, key_len + 1) == 0)
                        return parser_error(p, "option \"%.*s\" given twice", (int)key_len, word);
        return 0;
}

static void plugin_free(struct rtf_config_plugin *pl) {
        free(pl->cpus);
        for (uint32_t i = 0; i < pl->n_options; i++)
                free(pl->options[i]);
        free(pl->options);
}

static int parse_plugin_line(const struct parser *p, struct rtf_config *c, char **words, size_t n_words) {
        struct rtf_config_plugin pl = { .line = p->line };
        struct rtf_config_plugin *plugins;
        int r;

        if (n_words < CONFIG_PLUGIN_COLUMNS)
                return parser_error(p, "expected NAME PLUGIN PRIORITY CORES [KEY=VALUE ...], got %zu word%s",
                                    n_words, n_words == 1 ? "" : "s");
        if (n_words > CONFIG_WORDS_MAX)
                return parser_error(p, "too many options (at most %d)", RTF_CONFIG_MAX_OPTIONS);
        if (c->n_plugins >= RTF_CONFIG_MAX_PLUGINS)
                return parser_error(p, "too many plugins (at most %d)", RTF_CONFIG_MAX_PLUGINS);

        r = parse_name(p, c, words[0]);
        if (r < 0)
                return r;
        r = parse_plugin_file(p, words[1]);
        if (r < 0)
                return r;
        r = parse_priority(p, words[2], &pl.prio_min, &pl.prio_max);
        if (r < 0)
                return r;
        /* Lengths were checked above. */
        memcpy(pl.name, words[0], strlen(words[0]) + 1);
        memcpy(pl.file, words[1], strlen(words[1]) + 1);

        r = parse_cpus(p, words[3], &pl.cpus, &pl.n_cpus);
        if (r < 0)
                return r;

        if (n_words > CONFIG_PLUGIN_COLUMNS) {
                pl.options = calloc(n_words - CONFIG_PLUGIN_COLUMNS, sizeof(*pl.options));
                if (!pl.options) {
                        r = -ENOMEM;
                        goto fail;
                }
        }
        for (size_t i = CONFIG_PLUGIN_COLUMNS; i < n_words; i++) {
                r = parse_option(p, pl.options, pl.n_options, words[i]);
                if (r < 0)
                        goto fail;
                pl.options[pl.n_options] = strdup(words[i]);
                if (!pl.options[pl.n_options]) {
                        r = -ENOMEM;
                        goto fail;
                }
                pl.n_options++;
        }

        plugins = reallocarray(c->plugins, c->n_plugins + 1, sizeof(*plugins));
        if (!plugins) {
                r = -ENOMEM;
                goto fail;
        }
        c->plugins = plugins;
        c->plugins[c->n_plugins++] = pl;
        return 0;

fail:
        plugin_free(&pl);
        return r;
}

static int parse_setting_line(const struct parser *p, struct rtf_config *c, char **words, size_t n_words) {
        struct rtf_config_setting *settings;
        size_t key_len, value_len;

        if (n_words != 3)
                return parser_error(p, "expected: set KEY VALUE");

        key_len = strlen(words[1]);
        if (key_len > CONFIG_SETTING_KEY_MAX || !str_all(words[1], key_len, char_is_key))
                return parser_error(p, "invalid setting key \"%s\" (at most %zu lowercase letters, digits and '_')",
                                    words[1], CONFIG_SETTING_KEY_MAX);
        value_len = strlen(words[2]);
        if (value_len >= RTF_CONFIG_WORD_MAX)
                return parser_error(p, "value of \"%s\" is too long (at most %d characters)",
                                    words[1], RTF_CONFIG_WORD_MAX - 1);
        for (uint32_t i = 0; i < c->n_settings; i++)
                if (strcmp(c->settings[i].key, words[1]) == 0)
                        return parser_error(p, "\"%s\" is already set on line %u", words[1], c->settings[i].line);
        if (strcmp(words[1], RTF_CONFIG_SHARED_CPUS) == 0) {
                if (strcmp(words[2], "allow") != 0 && strcmp(words[2], "warn") != 0)
                        return parser_error(p, "set %s: \"%s\" is neither \"warn\" nor \"allow\"",
                                            RTF_CONFIG_SHARED_CPUS, words[2]);
                c->shared_cpus_allowed = strcmp(words[2], "allow") == 0;
        }
        if (c->n_settings >= RTF_CONFIG_MAX_SETTINGS)
                return parser_error(p, "too many settings (at most %d)", RTF_CONFIG_MAX_SETTINGS);

        settings = reallocarray(c->settings, c->n_settings + 1, sizeof(*settings));
        if (!settings)
                return -ENOMEM;
        c->settings = settings;

        struct rtf_config_setting *s = &c->settings[c->n_settings];
        memset(s, 0, sizeof(*s));
        memcpy(s->key, words[1], key_len + 1);
        memcpy(s->value, words[2], value_len + 1);
        s->line = p->line;
        c->n_settings++;
        return 0;
}

/* `text` is one line without its '\n', NUL-terminated, modified in place. */
static int parse_line(const struct parser *p, struct rtf_config *c, char *text) {
        char *words[CONFIG_WORDS_MAX];
        unsigned char bad = 0;
        size_t n_words = 0;

        /* Control characters in a word would end up in logs and in plugins' options. */
        if (text_split_words(text, words, CONFIG_WORDS_MAX, &n_words, &bad) < 0)
                return parser_error(p, "control character 0x%02x", (unsigned)bad);
        if (n_words == 0)
                return 0;
        if (strcmp(words[0], "set") == 0)
                return parse_setting_line(p, c, words, n_words);
        return parse_plugin_line(p, c, words, n_words);
}

struct parse_ctx {
        struct parser *p;
        struct rtf_config *c;
};

static int parse_one(void *data, unsigned line, char *text) {
        struct parse_ctx *ctx = data;

        ctx->p->line = line;
        return parse_line(ctx->p, ctx->c, text);
}

int rtf_config_parse(const char *buf, size_t len, const char *filename, uint32_t n_cpus,
                     struct rtf_config *ret, char *err, size_t errlen) {
        _cleanup_(rtf_config_deinit) struct rtf_config c = RTF_CONFIG_NULL;
        struct parser p = {
                .filename = filename ? filename : "<config>",
                .n_cpus = n_cpus,
                .err = err,
                .errlen = errlen,
        };
        struct parse_ctx ctx = { .p = &p, .c = &c };
        int r;

        if ((!buf && len > 0) || !ret)
                return parser_error(&p, "invalid arguments");
        if (len > RTF_CONFIG_MAX_SIZE)
                return parser_error(&p, "file is larger than %u bytes", RTF_CONFIG_MAX_SIZE);

        r = text_for_each_line(buf, len, CONFIG_LINE_MAX, parse_one, &ctx, &p.line);
        if (r == TEXT_E_LONG_LINE)
                return parser_error(&p, "line longer than %u characters", CONFIG_LINE_MAX);
        if (r == TEXT_E_NUL)
                return parser_error(&p, "NUL byte in line");
        if (r < 0)
                return r;

        p.line = 0;
        if (c.n_plugins == 0)
                return parser_error(&p, "no plugin configured");
        c.filename = strdup(p.filename);
        if (!c.filename)
                return -ENOMEM;
        for (uint32_t i = 0; i < c.n_plugins; i++)
                c.plugins[i].source = c.filename;

        *ret = c;
        c = RTF_CONFIG_NULL;
        return 0;
}

int rtf_config_default(uint32_t n_cpus, struct rtf_config *ret) {
        /* Written as a config file, so the default goes through the same checks as any file.
         * data/conf/rtfd.conf says the same (tests/unit/test-config.c compares them). */
        static const char text[] =
                "EDF EDF.so 100-100 all\n"
                "RM  RM.so  50-89   all\n"
                "FP  FP.so  1-89    all\n"
                "RR  RR.so  1-89    all\n"
                "set shared_cpus allow\n";
        char err[256];

        return rtf_config_parse(text, sizeof(text) - 1, "<built-in>", n_cpus, ret, err, sizeof(err));
}

void rtf_config_deinit(struct rtf_config *c) {
        if (!c)
                return;
        for (uint32_t i = 0; i < c->n_plugins; i++)
                plugin_free(&c->plugins[i]);
        free(c->plugins);
        free(c->settings);
        free(c->filename);
        *c = RTF_CONFIG_NULL;
}

/*
 * fn is called once per shared CPU, in ascending CPU order for each pair, so
 * a caller that wants one report per pair can compare with the previous call.
 */
void rtf_config_for_each_overlap(const struct rtf_config *c,
                                 void (*fn)(void *userdata, uint32_t i, uint32_t j, uint32_t cpu),
                                 void *userdata) {
        if (!c || !fn)
                return;

        for (uint32_t i = 0; i < c->n_plugins; i++)
                for (uint32_t j = i + 1; j < c->n_plugins; j++) {
                        const struct rtf_config_plugin *a = &c->plugins[i], *b = &c->plugins[j];
                        uint32_t x = 0, y = 0;

                        /* Both lists are sorted: a merge finds the common CPUs. */
                        while (x < a->n_cpus && y < b->n_cpus) {
                                if (a->cpus[x] < b->cpus[y])
                                        x++;
                                else if (a->cpus[x] > b->cpus[y])
                                        y++;
                                else {
                                        fn(userdata, i, j, a->cpus[x]);
                                        x++;
                                        y++;
                                }
                        }
                }
}

const char *rtf_config_get_setting(const struct rtf_config *c, const char *key) {
        if (!c || !key)
                return NULL;
        for (uint32_t i = 0; i < c->n_settings; i++)
                if (strcmp(c->settings[i].key, key) == 0)
                        return c->settings[i].value;
        return NULL;
}
