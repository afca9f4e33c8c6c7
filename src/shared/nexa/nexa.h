/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The application of "Real-time Linux on a Raspberry Pi" (section 4.2),
 * pure: no system calls, no allocation, so that rtf-nexa and a bare-machine
 * build share it.
 *
 * Code wheel (Nexa / KaKu / Waveman, the 12-trit PT2262 family that
 * rtl_433 decodes with -R 4): a message is 12 bits, 4 for the house (A..P),
 * 4 for the unit (1..16), then 0111 (ON) or 0110 (OFF), each bit sent as a
 * trit of 8 T: bit 0 = T on, 3T off, T on, 3T off; bit 1 = T on, 3T off,
 * 3T on, T off; then the stop symbol, T on and 36 T off.  House and unit
 * numbers go least significant bit first (house D = 3 = 1100, unit 2 =
 * unit-1 = 1 = 1000), as the receivers (and rtl_433) read them.
 *
 * Rotary dial (section 4.2.2): one sample of the line every 10 ms, a
 * four-state machine that moves only on the majority of the last three
 * samples.  The line reads "open" (1) when the loop is broken: on hook, and
 * during each dial pulse (break, nominally 60 ms of a 100 ms pulse).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- code wheel ------------------------------------------------------------ */

#define NEXA_T_US 360
#define NEXA_BITS 12
#define NEXA_PULSES (NEXA_BITS * 2 + 1)         /* two per bit, and the stop symbol */
#define NEXA_REPEATS 4
#define NEXA_HOUSES 16                          /* A..P */
#define NEXA_UNITS 16                           /* 1..16 */
#define NEXA_COMMAND_MAX 8                      /* "p161" and a newline fit */

struct nexa_command {
        char house;             /* 'A'..'P' */
        uint8_t unit;           /* 1..16 */
        bool on;
};

/* One pulse: `on_t` units of T carrier on, then `off_t` off. */
struct nexa_pulse {
        uint8_t on_t;
        uint8_t off_t;
};

/*
 * "d21" (house D, unit 2, ON), "D20", "p161" (P, 16, ON), optionally ended
 * by "\n" or "\r\n".  Returns 0 or -EINVAL, writing *ret only on success.
 */
int nexa_command_parse(const char *buf, size_t len, struct nexa_command *ret);
/* The canonical text ("d21"), NUL-terminated; returns its length or -EINVAL. */
int nexa_command_format(const struct nexa_command *c, char *buf, size_t size);
/* The 12 bits, first to send in bit 11. */
int nexa_encode(const struct nexa_command *c, uint16_t *ret_code);
/* The message's 25 pulses (NEXA_PULSES), in sending order. */
int nexa_pulses(uint16_t code, struct nexa_pulse ret[NEXA_PULSES]);
/* Inverse of nexa_pulses() on ideal durations; for the tests. */
int nexa_decode(const struct nexa_pulse p[NEXA_PULSES], struct nexa_command *ret);

/* ---- rotary dial -------------------------------------------------------------- */

#define NEXA_DIAL_SAMPLE_MS 10
/* A break longer than this is the receiver put down (hang-up), not a pulse. */
#define NEXA_DIAL_HANGUP_MS 200
/* A make longer than this ends the digit. */
#define NEXA_DIAL_INTERDIGIT_MS 150
#define NEXA_DIAL_DIGITS 3                      /* house, unit, state: "421" */

enum nexa_dial_state {
        NEXA_DIAL_ON_HOOK = 0,
        NEXA_DIAL_OFF_HOOK,     /* loop closed, between digits */
        NEXA_DIAL_BREAK,        /* in a pulse */
        NEXA_DIAL_MAKE,         /* between pulses of a digit */
};

struct nexa_dial {
        enum nexa_dial_state state;
        uint8_t window;         /* last three samples, bit 0 the newest */
        uint8_t filled;
        uint32_t ticks;         /* samples spent in this state */
        uint8_t pulses;
        uint8_t ndigits;
        uint8_t digits[NEXA_DIAL_DIGITS];
        /* counts, for the tests and "no event lost" */
        uint32_t digits_total;
        uint32_t digits_rejected;       /* more than ten pulses */
        uint32_t hangups_mid_digit;
        uint32_t commands;
};

#define NEXA_DIAL_INIT { .state = NEXA_DIAL_ON_HOOK }

/*
 * Feed one sample (open: the loop is broken).  When the third digit is
 * complete, writes the command for it ("421" -> "d21\n", NUL-terminated)
 * into out and returns its length; otherwise returns 0.  Digits: 1..9 are
 * houses A..I and units 1..9, the third digit is the state (0 off, 1 on,
 * anything else rejected).  -EINVAL for a bad argument.
 */
int nexa_dial_sample(struct nexa_dial *d, bool open, char *out, size_t size);

/*
 * A simulated rotary dial: the line's level at time t_us of a script that
 * lifts the receiver at 0, waits idle_ms, dials `digits` at `pps` pulses per
 * second with `break_pct` % break, pausing interdigit_ms between digits, and
 * hangs up hangup_ms after the last digit (0: never).  Contacts bounce for
 * bounce_us after each change (alternating every 1 ms, deterministic).
 * Pure, so the decoder's tests and rtf-nexa's --dial-sim share it.
 */
struct nexa_dial_script {
        const char *digits;
        uint32_t pps_milli;             /* pulses per second x 1000 */
        uint32_t break_pct;
        uint32_t idle_ms;
        uint32_t interdigit_ms;
        uint32_t hangup_ms;
        uint32_t bounce_us;
};

bool nexa_dial_script_open(const struct nexa_dial_script *s, uint64_t t_us);
/* When the script is over (on hook again, or the last digit plus a pause). */
uint64_t nexa_dial_script_length_us(const struct nexa_dial_script *s);
