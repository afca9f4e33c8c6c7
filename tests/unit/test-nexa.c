/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * src/shared/nexa: the code-wheel message for every house, unit and state,
 * checked against the bit reading of rtl_433's Waveman decoder; the rotary
 * dial decoder over every three-digit number, slow and fast dials within
 * the standard's tolerance, sampling phases, contact bounce, glitches,
 * digit 0 as ten pulses and hang-ups in the middle.
 */
#include <errno.h>
#include <string.h>

#include "nexa/nexa.h"
#include "tap.h"

/* rtl_433 -R 4 reads a pulse as bit 1 when short and 0 when long, then pairs. */
static void waveman_read(const struct nexa_pulse p[NEXA_PULSES], char *house, int *unit, bool *on) {
        unsigned nb[3] = { 0 };

        for (int i = 0; i < 12; i++) {
                bool first_short = p[2 * i].on_t == 1, second_short = p[2 * i + 1].on_t == 1;

                CHECK(first_short);     /* "every even bit set" */
                if (!second_short)
                        nb[i / 4] |= 1u << (i % 4);
        }
        *house = (char) ('A' + nb[0]);
        *unit = (int) ((nb[1] >> 2) * 4 + (nb[1] & 3) + 1);
        *on = nb[2] == 0xe;
}

static void test_codewheel_all(void) {
        int n = 0;

        for (char h = 'a'; h <= 'p'; h++)
                for (int u = 1; u <= 16; u++)
                        for (int s = 0; s <= 1; s++) {
                                struct nexa_command c, back;
                                struct nexa_pulse p[NEXA_PULSES];
                                char text[8], out[8], rh;
                                uint16_t code;
                                int ru, total = 0;
                                bool ron;

                                snprintf(text, sizeof(text), "%c%d%d\n", h, u, s);
                                CHECK_EQ(nexa_command_parse(text, strlen(text), &c), 0);
                                CHECK_EQ(nexa_command_format(&c, out, sizeof(out)), (int) strlen(text) - 1);
                                CHECK(strncmp(out, text, strlen(text) - 1) == 0);
                                CHECK_EQ(nexa_encode(&c, &code), 0);
                                CHECK_EQ(nexa_pulses(code, p), 0);
                                for (int i = 0; i < NEXA_PULSES; i++)
                                        total += p[i].on_t + p[i].off_t;
                                CHECK_EQ(total, 12 * 8 + 37);
                                CHECK_EQ(nexa_decode(p, &back), 0);
                                CHECK(back.house == h - 'a' + 'A' && back.unit == u && back.on == (s == 1));
                                waveman_read(p, &rh, &ru, &ron);
                                CHECK(rh == h - 'a' + 'A' && ru == u && ron == (s == 1));
                                n++;
                        }
        CHECK_EQ(n, 512);
}

static void test_codewheel_paper_example(void) {
        struct nexa_command c;
        uint16_t code;

        /* d21: house D = 3 -> 1100, unit 2 -> 1000, ON -> 0111 */
        CHECK_EQ(nexa_command_parse("D21\r\n", 5, &c), 0);
        CHECK_EQ(nexa_encode(&c, &code), 0);
        CHECK_EQ(code, 0xC87);
        CHECK_EQ(nexa_command_parse("d20", 3, &c), 0);
        CHECK_EQ(nexa_encode(&c, &code), 0);
        CHECK_EQ(code, 0xC86);
}

static void test_codewheel_rejects(void) {
        static const char *bad[] = { "", "d", "d2", "q21", "d01", "d171", "d22", "dx1", "d2 1", "21d",
                                     "d0011", "d-11", "d21\n\n", "\n" };
        struct nexa_command c = { .house = 'Z' };

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                CHECK_EQ(nexa_command_parse(bad[i], strlen(bad[i]), &c), -EINVAL);
                CHECK(c.house == 'Z');
        }
        CHECK_EQ(nexa_pulses(0x1000, (struct nexa_pulse[NEXA_PULSES]) { 0 }), -EINVAL);
}

/* Runs a script through the decoder at 100 Hz from `phase_us`; collects the commands. */
static int run_dial(const struct nexa_dial_script *s, uint64_t phase_us, int glitch_at, struct nexa_dial *d,
                    char *cmds, size_t size) {
        uint64_t end = nexa_dial_script_length_us(s) + 500000;
        size_t used = 0;
        int k = 0;

        cmds[0] = '\0';
        for (uint64_t t = phase_us; t < end; t += NEXA_DIAL_SAMPLE_MS * 1000, k++) {
                char out[NEXA_COMMAND_MAX];
                bool open = nexa_dial_script_open(s, t);
                int n;

                if (k == glitch_at)
                        open = !open;
                n = nexa_dial_sample(d, open, out, sizeof(out));
                CHECK(n >= 0);
                if (n > 0 && used + (size_t) n < size) {
                        memcpy(cmds + used, out, (size_t) n + 1);
                        used += (size_t) n;
                }
        }
        return (int) used;
}

static void expected_command(const char *digits, char *out, size_t size) {
        unsigned v[3];

        for (int i = 0; i < 3; i++)
                v[i] = digits[i] == '0' ? 10 : (unsigned) (digits[i] - '0');
        if (v[2] != 1 && v[2] != 10) {
                out[0] = '\0';
                return;
        }
        snprintf(out, size, "%c%u%c\n", 'a' + v[0] - 1, v[1], v[2] == 1 ? '1' : '0');
}

static void test_dial_every_number(void) {
        /* nominal, slow and fast dials, break/make within the standard's tolerance */
        static const struct { uint32_t pps_milli, break_pct; } dials[] = {
                { 10000, 60 }, { 8000, 67 }, { 12000, 58 }, { 9000, 64 }, { 11000, 62 },
        };
        unsigned failures = 0, runs = 0;

        for (int num = 0; num < 1000; num++)
                for (size_t k = 0; k < sizeof(dials) / sizeof(dials[0]); k++) {
                        char digits[4], want[16], got[64];
                        struct nexa_dial d = NEXA_DIAL_INIT;
                        struct nexa_dial_script s = {
                                .digits = digits, .pps_milli = dials[k].pps_milli, .break_pct = dials[k].break_pct,
                                .idle_ms = 300, .interdigit_ms = 400, .hangup_ms = 300,
                                .bounce_us = (num & 1) ? 3000 : 0,
                        };

                        snprintf(digits, sizeof(digits), "%03d", num);
                        expected_command(digits, want, sizeof(want));
                        /* a different sampling phase and one glitch somewhere, per run */
                        run_dial(&s, (uint64_t) (num % 10) * 1000, (num * 7 + (int) k * 13) % 250, &d, got,
                                 sizeof(got));
                        runs++;
                        if (strcmp(got, want) != 0) {
                                if (failures++ < 5)
                                        fprintf(stderr, "dial %s at %u pps/1000 %u%%: got '%s' want '%s'\n", digits,
                                                dials[k].pps_milli, dials[k].break_pct, got, want);
                        }
                        CHECK_EQ(d.digits_total, 3);
                        CHECK_EQ(d.state, NEXA_DIAL_ON_HOOK);
                }
        CHECK_EQ(failures, 0);
        CHECK_EQ(runs, 5000);
}

static void test_dial_two_commands_and_zero(void) {
        struct nexa_dial d = NEXA_DIAL_INIT;
        struct nexa_dial_script s = { .digits = "421420", .pps_milli = 10000, .break_pct = 60,
                                      .idle_ms = 200, .interdigit_ms = 500 };
        char got[64];

        run_dial(&s, 0, -1, &d, got, sizeof(got));
        CHECK(strcmp(got, "d21\nd20\n") == 0);
        CHECK_EQ(d.commands, 2);
        /* digit 0 is ten pulses: house J, unit 10 */
        d = (struct nexa_dial) NEXA_DIAL_INIT;
        s.digits = "001";
        run_dial(&s, 0, -1, &d, got, sizeof(got));
        CHECK(strcmp(got, "j101\n") == 0);
}

/* Feeds `ms` of a constant level. */
static void feed(struct nexa_dial *d, bool open, int ms, char *last) {
        for (int t = 0; t < ms; t += NEXA_DIAL_SAMPLE_MS) {
                char out[NEXA_COMMAND_MAX];

                if (nexa_dial_sample(d, open, out, sizeof(out)) > 0)
                        strcpy(last, out);
        }
}

static void pulses(struct nexa_dial *d, int n, char *last) {
        for (int i = 0; i < n; i++) {
                feed(d, true, 60, last);
                feed(d, false, 40, last);
        }
}

static void test_dial_hangup_mid_digit(void) {
        struct nexa_dial d = NEXA_DIAL_INIT;
        char last[NEXA_COMMAND_MAX] = "";

        feed(&d, true, 300, last);
        feed(&d, false, 300, last);
        pulses(&d, 4, last);
        feed(&d, false, 400, last);
        pulses(&d, 2, last);
        /* put down during the second digit */
        feed(&d, true, 1000, last);
        CHECK_EQ(d.state, NEXA_DIAL_ON_HOOK);
        CHECK_EQ(d.hangups_mid_digit, 1);
        CHECK_EQ(d.ndigits, 0);
        /* picked up again: the half-dialled number is gone, a new one works */
        feed(&d, false, 300, last);
        pulses(&d, 1, last);
        feed(&d, false, 400, last);
        CHECK(last[0] == '\0');
        pulses(&d, 3, last);
        feed(&d, false, 400, last);
        pulses(&d, 1, last);
        feed(&d, false, 400, last);
        CHECK(strcmp(last, "a31\n") == 0);
}

static void test_dial_rejects(void) {
        struct nexa_dial d = NEXA_DIAL_INIT;
        char last[NEXA_COMMAND_MAX] = "";

        feed(&d, true, 100, last);
        feed(&d, false, 300, last);
        pulses(&d, 11, last);           /* no digit has eleven pulses */
        feed(&d, false, 400, last);
        CHECK_EQ(d.digits_rejected, 1);
        CHECK_EQ(d.ndigits, 0);
        pulses(&d, 4, last);
        feed(&d, false, 400, last);
        pulses(&d, 2, last);
        feed(&d, false, 400, last);
        pulses(&d, 5, last);            /* state 5: neither on nor off */
        feed(&d, false, 400, last);
        CHECK(last[0] == '\0');
        CHECK_EQ(d.digits_rejected, 2);
        /* a glitch of one sample while idle is no pulse */
        d = (struct nexa_dial) NEXA_DIAL_INIT;
        feed(&d, false, 100, last);
        feed(&d, true, 10, last);
        feed(&d, false, 400, last);
        CHECK_EQ(d.digits_total, 0);
        CHECK_EQ(d.state, NEXA_DIAL_OFF_HOOK);
        CHECK_EQ(nexa_dial_sample(NULL, true, last, sizeof(last)), -EINVAL);
}

int main(void) {
        test_codewheel_all();
        test_codewheel_paper_example();
        test_codewheel_rejects();
        test_dial_every_number();
        test_dial_two_commands_and_zero();
        test_dial_hangup_mid_digit();
        test_dial_rejects();
        return test_done();
}
