/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rotary-dial decoder of section 4.2.2, and a simulated dial (nexa.h). */
#include <errno.h>

#include "nexa/nexa.h"

static const uint8_t majority[8] = { 0, 0, 0, 1, 0, 1, 1, 1 };

static void dial_reset_number(struct nexa_dial *d) {
        d->ndigits = 0;
        d->pulses = 0;
}

static void dial_enter(struct nexa_dial *d, enum nexa_dial_state s) {
        d->state = s;
        d->ticks = 0;
}

/* A digit has ended with d->pulses pulses; returns a command's length or 0. */
static int dial_digit(struct nexa_dial *d, char *out, size_t size) {
        unsigned v[NEXA_DIAL_DIGITS];
        int n;

        if (d->pulses > 10) {
                d->digits_rejected++;
                dial_reset_number(d);
                return 0;
        }
        d->digits_total++;
        d->digits[d->ndigits++] = d->pulses % 10;
        d->pulses = 0;
        if (d->ndigits < NEXA_DIAL_DIGITS)
                return 0;
        d->ndigits = 0;
        /* Digit 0 is ten pulses: house J, unit 10; as the state it means off. */
        for (int i = 0; i < NEXA_DIAL_DIGITS; i++)
                v[i] = d->digits[i] ? d->digits[i] : 10;
        if (v[2] != 1 && v[2] != 10) {
                d->digits_rejected++;
                return 0;
        }
        if (size < NEXA_COMMAND_MAX)
                return 0;
        n = 0;
        out[n++] = (char) ('a' + v[0] - 1);
        if (v[1] >= 10)
                out[n++] = '1';
        out[n++] = (char) ('0' + v[1] % 10);
        out[n++] = v[2] == 1 ? '1' : '0';
        out[n++] = '\n';
        out[n] = '\0';
        d->commands++;
        return n;
}

int nexa_dial_sample(struct nexa_dial *d, bool open, char *out, size_t size) {
        bool level;

        if (!d || !out)
                return -EINVAL;
        d->window = (uint8_t) (((d->window << 1) | (open ? 1u : 0u)) & 7u);
        if (d->filled < 3) {
                d->filled++;
                if (d->filled < 3)
                        return 0;
        }
        level = majority[d->window];
        d->ticks++;

        switch (d->state) {
        case NEXA_DIAL_ON_HOOK:
                if (!level) {
                        dial_reset_number(d);
                        dial_enter(d, NEXA_DIAL_OFF_HOOK);
                }
                return 0;
        case NEXA_DIAL_OFF_HOOK:
                if (level) {
                        d->pulses = 1;
                        dial_enter(d, NEXA_DIAL_BREAK);
                }
                return 0;
        case NEXA_DIAL_BREAK:
                if (!level) {
                        dial_enter(d, NEXA_DIAL_MAKE);
                } else if (d->ticks * NEXA_DIAL_SAMPLE_MS > NEXA_DIAL_HANGUP_MS) {
                        /* Put down: a digit or number not finished is dropped. */
                        if (d->pulses > 1 || d->ndigits > 0)
                                d->hangups_mid_digit++;
                        dial_reset_number(d);
                        dial_enter(d, NEXA_DIAL_ON_HOOK);
                }
                return 0;
        case NEXA_DIAL_MAKE:
                if (level) {
                        if (d->pulses < UINT8_MAX)
                                d->pulses++;
                        dial_enter(d, NEXA_DIAL_BREAK);
                } else if (d->ticks * NEXA_DIAL_SAMPLE_MS >= NEXA_DIAL_INTERDIGIT_MS) {
                        dial_enter(d, NEXA_DIAL_OFF_HOOK);
                        return dial_digit(d, out, size);
                }
                return 0;
        }
        return -EINVAL;
}

/* ---- the simulated dial ------------------------------------------------------- */

struct walk {
        uint64_t t;             /* the time asked about */
        uint64_t at;            /* start of the next segment */
        bool level;             /* level of the last segment walked */
        bool found;
        bool result;
        uint64_t change;        /* when the found segment's level began */
        bool before;            /* the level before that */
};

/* Appends a segment; once t falls into one, remembers it and its last change. */
static void seg(struct walk *w, uint64_t len_us, bool level) {
        if (w->found || len_us == 0)
                return;
        if (level != w->level) {
                w->change = w->at;
                w->before = w->level;
                w->level = level;
        }
        if (w->t < w->at + len_us) {
                w->found = true;
                w->result = level;
        }
        w->at += len_us;
}

static void walk_script(const struct nexa_dial_script *s, struct walk *w) {
        uint64_t period = s->pps_milli ? 1000000000ULL / s->pps_milli : 100000;
        uint64_t brk = period * s->break_pct / 100;

        w->level = true;        /* on hook */
        seg(w, (uint64_t) s->idle_ms * 1000, true);
        seg(w, (uint64_t) s->idle_ms * 1000, false);
        for (const char *c = s->digits; c && *c; c++) {
                unsigned n = *c == '0' ? 10 : (unsigned) (*c - '0');

                if (*c < '0' || *c > '9')
                        continue;
                for (unsigned i = 0; i < n; i++) {
                        seg(w, brk, true);
                        seg(w, period - brk, false);
                }
                seg(w, (uint64_t) s->interdigit_ms * 1000, false);
        }
        if (s->hangup_ms) {
                seg(w, (uint64_t) s->hangup_ms * 1000, false);
                seg(w, UINT64_MAX / 4, true);
        } else {
                seg(w, UINT64_MAX / 4, false);
        }
}

bool nexa_dial_script_open(const struct nexa_dial_script *s, uint64_t t_us) {
        struct walk w = { .t = t_us };

        walk_script(s, &w);
        if (!w.found)
                return w.level;
        if (s->bounce_us && t_us >= w.change && t_us - w.change < s->bounce_us && w.change > 0)
                /* contacts chatter: the old level back every other millisecond */
                return ((t_us - w.change) / 1000) & 1 ? w.before : w.result;
        return w.result;
}

uint64_t nexa_dial_script_length_us(const struct nexa_dial_script *s) {
        struct walk w = { .t = UINT64_MAX };

        walk_script(s, &w);
        /* everything but the final endless segment */
        return w.at - UINT64_MAX / 4;
}
