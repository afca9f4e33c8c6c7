/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Parser and evaluator of rtfd's access-control policy (acl.h).
 *
 * The file is root's, but it is parsed as untrusted input all the same, like
 * the configuration: it is fuzzed, every resource it can make us allocate
 * has a limit, and nothing reads beyond `len` bytes of a buffer that is not
 * NUL-terminated.  A policy that cannot mean what its author wrote (two
 * different values for one limit, a minimum above its maximum) is refused at
 * load time rather than resolved by some precedence the administrator would
 * have to guess.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "text.h"
#include "util.h"

#define ACL_COLUMNS 4u
#define ACL_UTIL_DECIMALS 9u
/* Filenames only appear in messages; a longer one is a caller's bug, not a path. */
#define ACL_FILENAME_MAX 4096u
/* "4294967295.999999999" and the like. */
#define ACL_VALUE_STR_MAX 32u

static const char *const property_names[_ACL_PROPERTY_MAX] = {
        [ACL_MAX_UTILIZATION] = "max_utilization",
        [ACL_MAX_RUNTIME] = "max_runtime",
        [ACL_MIN_PERIOD] = "min_period",
        [ACL_MAX_PERIOD] = "max_period",
        [ACL_MIN_DEADLINE] = "min_deadline",
        [ACL_MAX_DEADLINE] = "max_deadline",
        [ACL_MIN_PRIORITY] = "min_priority",
        [ACL_MAX_PRIORITY] = "max_priority",
        [ACL_IGNORE_ADM_TEST] = "ignore_adm_test",
        [ACL_LATENCY_HINT] = "latency_hint",
};

const char *acl_property_to_string(enum acl_property p) {
        if ((unsigned)p >= _ACL_PROPERTY_MAX)
                return NULL;
        return property_names[p];
}

/* The other end of a min/max pair, or _ACL_PROPERTY_MAX. */
static enum acl_property property_partner(enum acl_property p) {
        switch (p) {
        case ACL_MIN_PERIOD:
                return ACL_MAX_PERIOD;
        case ACL_MAX_PERIOD:
                return ACL_MIN_PERIOD;
        case ACL_MIN_DEADLINE:
                return ACL_MAX_DEADLINE;
        case ACL_MAX_DEADLINE:
                return ACL_MIN_DEADLINE;
        case ACL_MIN_PRIORITY:
                return ACL_MAX_PRIORITY;
        case ACL_MAX_PRIORITY:
                return ACL_MIN_PRIORITY;
        default:
                return _ACL_PROPERTY_MAX;
        }
}

static bool property_is_min(enum acl_property p) {
        return p == ACL_MIN_PERIOD || p == ACL_MIN_DEADLINE || p == ACL_MIN_PRIORITY;
}

/* Exact, without floating point: "0.7" was meant as 700000000 ppb, not 0.69999... */
static void format_ppb(char *buf, size_t size, uint64_t v) {
        uint64_t whole = v / ACL_UTIL_ONE, frac = v % ACL_UTIL_ONE;
        int n;

        if (frac == 0) {
                snprintf(buf, size, "%" PRIu64, whole);
                return;
        }
        n = snprintf(buf, size, "%" PRIu64 ".%09" PRIu64, whole, frac);
        if (n < 0 || (size_t)n >= size)
                return;
        while (n > 0 && buf[n - 1] == '0')
                buf[--n] = '\0';
}

static void format_value(char *buf, size_t size, enum acl_property p, uint64_t v) {
        if (p == ACL_MAX_UTILIZATION)
                format_ppb(buf, size, v);
        else if (p == ACL_IGNORE_ADM_TEST || p == ACL_LATENCY_HINT)
                snprintf(buf, size, "%s", v ? "true" : "false");
        else
                snprintf(buf, size, "%" PRIu64, v);
}

/* ---- parser ---- */

struct parser {
        const char *filename;
        const struct acl_lookup *lookup;
        const char *const *plugins;
        size_t n_plugins;
        unsigned line;                  /* 0 while the error concerns the whole file */
        char *err;
        size_t errlen;
        int n_warnings;
};

_printf_(3, 0) static void parser_vmessage(const struct parser *p, unsigned line, const char *fmt, va_list ap) {
        int n;

        if (!p->err || p->errlen == 0)
                return;
        if (line > 0)
                n = snprintf(p->err, p->errlen, "%s:%u: ", p->filename, line);
        else
                n = snprintf(p->err, p->errlen, "%s: ", p->filename);
        if (n < 0 || (size_t)n >= p->errlen)
                return;
        vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
}

/* Writes the message and returns `r`, so that lookup errors are forwarded unchanged. */
_printf_(3, 4) static int parser_error_errno(const struct parser *p, int r, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        parser_vmessage(p, p->line, fmt, ap);
        va_end(ap);
        return r;
}

#define parser_error(p, ...) parser_error_errno(p, -EINVAL, __VA_ARGS__)

/* Only the first warning is kept: the caller logs it with the count. */
_printf_(2, 3) static void parser_warning(struct parser *p, const char *fmt, ...) {
        va_list ap;

        if (p->n_warnings++ > 0)
                return;
        va_start(ap, fmt);
        parser_vmessage(p, p->line, fmt, ap);
        va_end(ap);
}

/* Character classes by hand: the <ctype.h> ones depend on the locale. */
static bool str_all_digits(const char *s) {
        if (!*s)
                return false;
        for (; *s; s++)
                if (!text_is_digit(*s))
                        return false;
        return true;
}

static int parse_digits(const char *s, size_t n, uint64_t max, uint64_t *ret) {
        return text_parse_decimal(s, n, max, ret);
}

/* "2", "0.7", "1.000000001": CPUs with at most 9 decimals, into ppb. */
static int parse_util(const struct parser *p, const char *word, uint64_t *ret) {
        const char *dot = strchr(word, '.');
        size_t whole_len = dot ? (size_t)(dot - word) : strlen(word);
        uint64_t whole, frac = 0, v;

        /* A whole part that fits 32 bits keeps whole * 10^9 + frac within 64 bits. */
        if (parse_digits(word, whole_len, UINT32_MAX, &whole) < 0)
                return parser_error(p, "invalid max_utilization \"%s\" (expected CPUs > 0 such as 0.7 or 2, at most %" PRIu32 ")",
                                    word, UINT32_MAX);
        if (dot) {
                size_t frac_len = strlen(dot + 1);

                if (frac_len > ACL_UTIL_DECIMALS && str_all_digits(dot + 1))
                        return parser_error(p, "max_utilization \"%s\" has more than %u decimals",
                                            word, ACL_UTIL_DECIMALS);
                if (parse_digits(dot + 1, frac_len, UINT32_MAX, &frac) < 0)
                        return parser_error(p, "invalid max_utilization \"%s\" (expected CPUs > 0 such as 0.7 or 2)",
                                            word);
                for (size_t i = frac_len; i < ACL_UTIL_DECIMALS; i++)
                        frac *= 10;
        }
        v = whole * ACL_UTIL_ONE + frac;
        if (v == 0)
                return parser_error(p, "max_utilization must be greater than 0");
        *ret = v;
        return 0;
}

static int parse_value(const struct parser *p, enum acl_property prop, const char *word, uint64_t *ret) {
        const char *name = property_names[prop];
        uint64_t v;

        switch (prop) {
        case ACL_MAX_UTILIZATION:
                return parse_util(p, word, ret);
        case ACL_IGNORE_ADM_TEST:
        case ACL_LATENCY_HINT:
                if (strcmp(word, "true") == 0)
                        v = 1;
                else if (strcmp(word, "false") == 0)
                        v = 0;
                else
                        return parser_error(p, "invalid %s \"%s\" (expected true or false)", name, word);
                break;
        case ACL_MIN_PRIORITY:
        case ACL_MAX_PRIORITY:
                if (parse_digits(word, strlen(word), ACL_PRIORITY_MAX, &v) < 0 || v < ACL_PRIORITY_MIN)
                        return parser_error(p, "invalid %s \"%s\" (expected %u..%u)", name, word,
                                            ACL_PRIORITY_MIN, ACL_PRIORITY_MAX);
                break;
        default:
                if (parse_digits(word, strlen(word), ACL_TIME_MAX_US, &v) < 0 || v == 0)
                        return parser_error(p, "invalid %s \"%s\" (expected microseconds, 1..%" PRIu64 ")",
                                            name, word, ACL_TIME_MAX_US);
                break;
        }
        *ret = v;
        return 0;
}

static int parse_domain(const struct parser *p, const char *word, enum acl_domain *ret_domain, uint32_t *ret_id) {
        bool group = word[0] == '@';
        const char *name = group ? word + 1 : word;
        const char *what = group ? "group" : "user";
        int (*resolve)(void *, const char *, uint32_t *) = NULL;
        uint32_t id;
        int r;

        if (strcmp(word, "-") == 0) {
                *ret_domain = ACL_DOMAIN_ALL;
                *ret_id = 0;
                return 0;
        }
        if (name[0] == '\0')
                return parser_error(p, "empty group name after '@'");
        if (strlen(name) >= ACL_NAME_MAX)
                return parser_error(p, "%s name is too long (at most %u characters)", what, ACL_NAME_MAX - 1);

        if (p->lookup)
                resolve = group ? p->lookup->group : p->lookup->user;
        r = resolve ? resolve(p->lookup->data, name, &id) : -ENOENT;
        /* A callback that answers something undocumented resolved nothing. */
        if (r == -ENOENT || r > 0) {
                if (str_all_digits(name))
                        return parser_error(p, "unknown %s \"%s\" (numeric ids are not accepted: use the name)",
                                            what, name);
                return parser_error(p, "unknown %s \"%s\"", what, name);
        }
        if (r < 0)
                return parser_error_errno(p, r, "cannot look up %s \"%s\": %s", what, name, strerror(-r));

        *ret_domain = group ? ACL_DOMAIN_GROUP : ACL_DOMAIN_USER;
        *ret_id = id;
        return 0;
}

/*
 * `-` always means any plugin: a plugin instance that the configuration
 * happens to call "-" cannot be named here.
 */
static int parse_plugin(const struct parser *p, const char *word, char ret[static RTF_PLUGIN_NAME_MAX]) {
        size_t n = strlen(word);

        if (strcmp(word, "-") == 0) {
                ret[0] = '\0';
                return 0;
        }
        for (size_t i = 0; i < p->n_plugins; i++)
                if (p->plugins[i] && strcmp(p->plugins[i], word) == 0) {
                        if (n >= RTF_PLUGIN_NAME_MAX)
                                break;
                        memcpy(ret, word, n + 1);
                        return 0;
                }
        return parser_error(p, "unknown plugin \"%s\" (not an instance in rtfd's configuration)", word);
}

static int parse_property(const struct parser *p, const char *word, enum acl_property *ret) {
        for (unsigned i = 0; i < _ACL_PROPERTY_MAX; i++)
                if (strcmp(word, property_names[i]) == 0) {
                        *ret = (enum acl_property)i;
                        return 0;
                }
        return parser_error(p, "unknown property \"%s\" (expected max_utilization, max_runtime, min_period, max_period, min_deadline, max_deadline, min_priority, max_priority, ignore_adm_test or latency_hint)",
                            word);
}

static bool same_subject(const struct acl_rule *a, const struct acl_rule *b) {
        return a->domain == b->domain && a->id == b->id && strcmp(a->plugin, b->plugin) == 0;
}

/*
 * A rule against every earlier one: the error lands on the later line and
 * names the earlier, so the first mistake in file order is the one reported.
 * Quadratic, but bounded by ACL_MAX_RULES and run once per load.
 */
static int check_against_earlier(struct parser *p, const struct acl_policy *pol, const struct acl_rule *rule) {
        enum acl_property partner = property_partner(rule->property);
        const char *name = property_names[rule->property];
        char a[ACL_VALUE_STR_MAX], b[ACL_VALUE_STR_MAX];
        bool repeated = false;

        for (size_t i = 0; i < pol->n_rules; i++) {
                const struct acl_rule *q = &pol->rules[i];

                if (!same_subject(q, rule))
                        continue;
                if (q->property == rule->property) {
                        if (q->value != rule->value) {
                                format_value(a, sizeof(a), rule->property, rule->value);
                                format_value(b, sizeof(b), q->property, q->value);
                                return parser_error(p, "%s %s contradicts %s %s on line %u for the same domain and plugin",
                                                    name, a, name, b, q->line);
                        }
                        if (!repeated)
                                parser_warning(p, "rule repeats line %u", q->line);
                        repeated = true;
                } else if (q->property == partner) {
                        bool rule_is_min = property_is_min(rule->property);
                        uint64_t min = rule_is_min ? rule->value : q->value;
                        uint64_t max = rule_is_min ? q->value : rule->value;

                        if (min <= max)
                                continue;
                        format_value(a, sizeof(a), rule->property, rule->value);
                        format_value(b, sizeof(b), q->property, q->value);
                        return parser_error(p, "%s %s and %s %s on line %u cannot both hold: no request satisfies them",
                                            name, a, property_names[q->property], b, q->line);
                }
        }
        return 0;
}

static int add_rule(struct parser *p, struct acl_policy *pol, size_t *capacity, const struct acl_rule *rule) {
        int r;

        if (pol->n_rules >= ACL_MAX_RULES)
                return parser_error(p, "too many rules (at most %u)", ACL_MAX_RULES);
        r = check_against_earlier(p, pol, rule);
        if (r < 0)
                return r;

        if (pol->n_rules == *capacity) {
                size_t n = MIN(MAX(*capacity * 2, (size_t)16), (size_t)ACL_MAX_RULES);
                struct acl_rule *rules = reallocarray(pol->rules, n, sizeof(*rules));

                if (!rules)
                        return -ENOMEM;
                pol->rules = rules;
                *capacity = n;
        }
        pol->rules[pol->n_rules++] = *rule;
        return 0;
}

/* `text` is one line without its '\n', NUL-terminated, modified in place. */
static int parse_line(struct parser *p, struct acl_policy *pol, size_t *capacity, char *text) {
        char *words[ACL_COLUMNS];
        unsigned char bad = 0;
        size_t n_words = 0;
        struct acl_rule rule = { .line = p->line };
        int r;

        /* Control characters in a name would end up in logs and in lookups. */
        if (text_split_words(text, words, ACL_COLUMNS, &n_words, &bad) < 0)
                return parser_error(p, "control character 0x%02x", (unsigned)bad);

        if (n_words == 0)
                return 0;
        if (n_words != ACL_COLUMNS)
                return parser_error(p, "expected DOMAIN PLUGIN PROPERTY VALUE, got %zu word%s",
                                    n_words, n_words == 1 ? "" : "s");

        r = parse_domain(p, words[0], &rule.domain, &rule.id);
        if (r < 0)
                return r;
        r = parse_plugin(p, words[1], rule.plugin);
        if (r < 0)
                return r;
        r = parse_property(p, words[2], &rule.property);
        if (r < 0)
                return r;
        r = parse_value(p, rule.property, words[3], &rule.value);
        if (r < 0)
                return r;
        return add_rule(p, pol, capacity, &rule);
}

struct parse_ctx {
        struct parser *p;
        struct acl_policy *pol;
        size_t capacity;
};

static int parse_one(void *data, unsigned line, char *text) {
        struct parse_ctx *ctx = data;

        ctx->p->line = line;
        return parse_line(ctx->p, ctx->pol, &ctx->capacity, text);
}

int acl_parse(const char *buf, size_t len, const char *filename, const struct acl_lookup *lookup,
              const char *const *plugins, size_t n_plugins, struct acl_policy *ret, char *err,
              size_t errlen) {
        _cleanup_(acl_policy_deinit) struct acl_policy pol = ACL_POLICY_NULL;
        struct parser p = {
                .filename = filename ? filename : "<acl>",
                .lookup = lookup,
                .plugins = plugins,
                .n_plugins = n_plugins,
                .err = err,
                .errlen = errlen,
        };
        struct parse_ctx ctx = { .p = &p, .pol = &pol };
        int r;

        if (err && errlen > 0)
                err[0] = '\0';
        if ((!buf && len > 0) || (!plugins && n_plugins > 0) || !ret)
                return parser_error(&p, "invalid arguments");
        if (len > ACL_MAX_SIZE)
                return parser_error(&p, "file is larger than %u bytes", ACL_MAX_SIZE);

        pol.filename = strndup(p.filename, ACL_FILENAME_MAX);
        if (!pol.filename)
                return -ENOMEM;

        r = text_for_each_line(buf, len, ACL_LINE_MAX, parse_one, &ctx, &p.line);
        if (r == TEXT_E_LONG_LINE)
                return parser_error(&p, "line longer than %u characters", ACL_LINE_MAX);
        if (r == TEXT_E_NUL)
                return parser_error(&p, "NUL byte in line");
        if (r < 0)
                return r;

        *ret = pol;
        pol = ACL_POLICY_NULL;
        return p.n_warnings;
}

void acl_policy_deinit(struct acl_policy *p) {
        if (!p)
                return;
        free(p->rules);
        free(p->filename);
        *p = ACL_POLICY_NULL;
}

/* ---- evaluation ---- */

/*
 * ceil(q * 10^9 / w) without a 128-bit type, exact for every q and w > 0:
 * the fraction (q mod w) * 10^9 / w is built by shift-and-add over the 30
 * bits of 10^9, keeping quotient and remainder, so that no intermediate
 * exceeds 2w - 1 (computed as a difference, never as a sum).
 */
static uint64_t util_up(uint64_t q, uint64_t w) {
        uint64_t whole = q / w, rest = q % w, fq = 0, fr = 0;

        for (int bit = 29; bit >= 0; bit--) {
                fq *= 2;
                if (fr >= w - fr) {
                        fr -= w - fr;
                        fq++;
                } else
                        fr *= 2;
                if ((ACL_UTIL_ONE >> bit) & 1) {
                        if (fr >= w - rest) {
                                fr -= w - rest;
                                fq++;
                        } else
                                fr += rest;
                }
        }
        if (fr != 0)
                fq++;
        if (whole > (UINT64_MAX - fq) / ACL_UTIL_ONE)
                return UINT64_MAX;
        return whole * ACL_UTIL_ONE + fq;
}

uint64_t acl_request_util_ppb(const struct rtf_task_params *t) {
        uint64_t q, w;

        if (!t || !(t->flags & RTF_PARAM_HAS_RUNTIME) || !(t->flags & RTF_PARAM_HAS_PERIOD) ||
            t->period_us == 0)
                return 0;
        q = t->runtime_us;
        if ((t->flags & RTF_PARAM_HAS_DES_RUNTIME) && t->des_runtime_us > q)
                q = t->des_runtime_us;
        w = t->period_us;
        if ((t->flags & RTF_PARAM_HAS_DEADLINE) && t->deadline_us != 0 && t->deadline_us < w)
                w = t->deadline_us;
        return util_up(q, w);
}

static bool subject_valid(const struct acl_subject *s) {
        return s && s->n_groups <= ACL_GROUPS_MAX && (s->groups || s->n_groups == 0);
}

static bool subject_in_group(const struct acl_subject *s, uint32_t gid) {
        if (s->gid == gid)
                return true;
        for (size_t i = 0; i < s->n_groups; i++)
                if (s->groups[i] == gid)
                        return true;
        return false;
}

static bool rule_matches(const struct acl_rule *r, const struct acl_subject *s, const char *plugin) {
        if (r->plugin[0] && strcmp(r->plugin, plugin) != 0)
                return false;
        switch (r->domain) {
        case ACL_DOMAIN_ALL:
                return true;
        case ACL_DOMAIN_USER:
                return r->id == s->uid;
        case ACL_DOMAIN_GROUP:
                return subject_in_group(s, r->id);
        }
        return false;
}

_printf_(4, 5) static int verdict_set(struct acl_verdict *v, const struct acl_policy *p, int32_t rule,
                                      const char *fmt, ...) {
        va_list ap;

        v->rule = rule;
        v->line = rule >= 0 ? p->rules[rule].line : 0;
        va_start(ap, fmt);
        vsnprintf(v->reason, sizeof(v->reason), fmt, ap);
        va_end(ap);
        return v->allowed ? ACL_ALLOW : ACL_DENY;
}

static const char *policy_filename(const struct acl_policy *p) {
        return p->filename ? p->filename : "<acl>";
}

/* A bound on a parameter the request leaves to the plugin cannot be enforced. */
static int deny_undeclared(struct acl_verdict *v, const struct acl_policy *p, const struct acl_subject *s,
                           size_t i, const char *what, const char *declare) {
        return verdict_set(v, p, (int32_t)i, "uid %" PRIu32 ": rule %s:%u bounds the %s: declare %s",
                           s->uid, policy_filename(p), p->rules[i].line, what, declare);
}

static int deny_bound(struct acl_verdict *v, const struct acl_policy *p, const struct acl_subject *s,
                      size_t i, const char *what, uint64_t value, const char *unit) {
        const struct acl_rule *r = &p->rules[i];

        return verdict_set(v, p, (int32_t)i, "uid %" PRIu32 ": %s %" PRIu64 "%s %c %s %" PRIu64 " (%s:%u)",
                           s->uid, what, value, unit, property_is_min(r->property) ? '<' : '>',
                           property_names[r->property], r->value, policy_filename(p), r->line);
}

/*
 * One matching rule against the request: ACL_ALLOW if it holds, else
 * ACL_DENY with the verdict written.
 */
static int check_rule(const struct acl_policy *p, size_t i, const struct acl_subject *s,
                      const struct acl_request *req, uint64_t held, struct acl_verdict *v) {
        const struct acl_rule *r = &p->rules[i];
        const struct rtf_task_params *t = &req->params;
        bool has_period = t->flags & RTF_PARAM_HAS_PERIOD;
        bool has_runtime = t->flags & RTF_PARAM_HAS_RUNTIME;
        bool has_des_runtime = t->flags & RTF_PARAM_HAS_DES_RUNTIME;
        bool has_deadline = t->flags & RTF_PARAM_HAS_DEADLINE;
        const char *what;
        uint64_t x;

        switch (r->property) {
        case ACL_MAX_UTILIZATION: {
                char used[ACL_VALUE_STR_MAX], asked[ACL_VALUE_STR_MAX], limit[ACL_VALUE_STR_MAX];

                if (!has_runtime || !has_period)
                        return deny_undeclared(v, p, s, i, "utilization", "a runtime and a period");
                if (held <= r->value && req->util_ppb <= r->value - held)
                        return ACL_ALLOW;
                format_ppb(asked, sizeof(asked), req->util_ppb);
                format_ppb(used, sizeof(used), held);
                format_ppb(limit, sizeof(limit), r->value);
                return verdict_set(v, p, (int32_t)i, "uid %" PRIu32 ": utilization %s + %s held > max_utilization %s (%s:%u)",
                                   s->uid, asked, used, limit, policy_filename(p), r->line);
        }
        case ACL_MAX_RUNTIME:
                if (!has_runtime && !has_des_runtime)
                        return deny_undeclared(v, p, s, i, "runtime", "one");
                /* The plugin may grant up to the desired runtime, so that is what is bounded. */
                if (has_des_runtime && (!has_runtime || t->des_runtime_us > t->runtime_us)) {
                        x = t->des_runtime_us;
                        what = "desired runtime";
                } else {
                        x = t->runtime_us;
                        what = "runtime";
                }
                return x <= r->value ? ACL_ALLOW : deny_bound(v, p, s, i, what, x, " us");
        case ACL_MIN_PERIOD:
        case ACL_MAX_PERIOD:
                if (!has_period)
                        return deny_undeclared(v, p, s, i, "period", "one");
                x = t->period_us;
                if (r->property == ACL_MIN_PERIOD ? x >= r->value : x <= r->value)
                        return ACL_ALLOW;
                return deny_bound(v, p, s, i, "period", x, " us");
        case ACL_MIN_DEADLINE:
        case ACL_MAX_DEADLINE:
                /* An implicit deadline is the period, as the kernel and the plugins take it. */
                if (has_deadline) {
                        x = t->deadline_us;
                        what = "deadline";
                } else if (has_period) {
                        x = t->period_us;
                        what = "deadline (the period)";
                } else
                        return deny_undeclared(v, p, s, i, "deadline", "a deadline or a period");
                if (r->property == ACL_MIN_DEADLINE ? x >= r->value : x <= r->value)
                        return ACL_ALLOW;
                return deny_bound(v, p, s, i, what, x, " us");
        case ACL_MIN_PRIORITY:
        case ACL_MAX_PRIORITY:
                /* Only a declared priority is bounded: EDF has none, and what RM or a
                 * priority map grants is declared by rtfd once the plugin has
                 * decided (manager.c, check_granted()). */
                if (!(t->flags & RTF_PARAM_HAS_PRIORITY))
                        return ACL_ALLOW;
                x = t->priority;
                if (r->property == ACL_MIN_PRIORITY ? x >= r->value : x <= r->value)
                        return ACL_ALLOW;
                return deny_bound(v, p, s, i, "priority", x, "");
        case ACL_IGNORE_ADM_TEST:
                if ((t->flags & RTF_PARAM_IGNORE_ADMISSION) && r->value == 0)
                        return verdict_set(v, p, (int32_t)i, "uid %" PRIu32 ": ignore_adm_test is false (%s:%u)",
                                           s->uid, policy_filename(p), r->line);
                return ACL_ALLOW;
        case ACL_LATENCY_HINT:
                return ACL_ALLOW;
        case _ACL_PROPERTY_MAX:
                break;
        }
        /* Only a policy that did not come from acl_parse() gets here. */
        return verdict_set(v, p, (int32_t)i, "invalid rule (%s:%u)", policy_filename(p), r->line);
}

bool acl_grants_latency_hint(const struct acl_policy *p, const struct acl_subject *subject, const char *plugin) {
        bool granted = false;

        if (!p || !subject_valid(subject) || !plugin)
                return false;
        for (size_t i = 0; i < p->n_rules; i++) {
                const struct acl_rule *r = &p->rules[i];

                if (r->property != ACL_LATENCY_HINT || !rule_matches(r, subject, plugin))
                        continue;
                if (!r->value)
                        return false;
                granted = true;
        }
        return granted;
}

int acl_check(const struct acl_policy *p, const struct acl_subject *subject, const char *plugin,
              const struct acl_request *req, const uint64_t *usage, size_t n_usage,
              struct acl_verdict *ret_verdict) {
        struct acl_verdict v = { .allowed = false, .rule = -1 };
        bool ignore_granted = false;
        int32_t first_match = -1;

        if (!p || p->n_rules > ACL_MAX_RULES || (!p->rules && p->n_rules > 0) || !subject_valid(subject) ||
            !plugin || !req || !ret_verdict || (usage ? n_usage != p->n_rules : n_usage != 0))
                return -EINVAL;

        for (size_t i = 0; i < p->n_rules; i++) {
                const struct acl_rule *r = &p->rules[i];

                if (!rule_matches(r, subject, plugin))
                        continue;
                if (first_match < 0)
                        first_match = (int32_t)i;
                if (r->property == ACL_IGNORE_ADM_TEST && r->value)
                        ignore_granted = true;
                if (check_rule(p, i, subject, req, usage ? usage[i] : 0, &v) != ACL_ALLOW) {
                        *ret_verdict = v;
                        return ACL_DENY;
                }
        }

        if (first_match < 0)
                verdict_set(&v, p, -1, "no rule grants uid %" PRIu32 " the plugin %s", subject->uid, plugin);
        else if ((req->params.flags & RTF_PARAM_IGNORE_ADMISSION) && !ignore_granted)
                verdict_set(&v, p, -1, "uid %" PRIu32 ": no rule grants ignore_adm_test on %s", subject->uid,
                            plugin);
        else {
                v.allowed = true;
                verdict_set(&v, p, first_match, "granted by %s:%u", policy_filename(p),
                            p->rules[first_match].line);
        }
        *ret_verdict = v;
        return v.allowed ? ACL_ALLOW : ACL_DENY;
}

int acl_for_each_util_rule(const struct acl_policy *p, const struct acl_subject *subject,
                           const char *plugin, void (*fn)(void *data, size_t rule), void *data) {
        int n = 0;

        if (!p || p->n_rules > ACL_MAX_RULES || (!p->rules && p->n_rules > 0) || !subject_valid(subject) ||
            !plugin)
                return -EINVAL;

        for (size_t i = 0; i < p->n_rules; i++) {
                if (p->rules[i].property != ACL_MAX_UTILIZATION || !rule_matches(&p->rules[i], subject, plugin))
                        continue;
                if (fn)
                        fn(data, i);
                n++;
        }
        return n;
}
