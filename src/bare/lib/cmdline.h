/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-bare's kernel command line: words separated by spaces, each `key=value`
 * or a bare key.  Keys the image does not know (BOOT_IMAGE= from GRUB, say)
 * are counted and ignored, as Linux does; a known key with a bad value is an
 * error.  Pure, over a buffer, so it is unit-tested (and fuzzable) on the host.
 *
 *   test=LIST         self,latency,overflow,fpu-misuse (comma-separated) or all
 *                     (default: self,latency with a short latency run)
 *   timer=MODE        oneshot, periodic, or both (latency test; default both)
 *   clock=DEV         lapic, pit, or auto (default: the LAPIC if there is one)
 *   samples=N         latency samples per run, 1..10000000 (default 20000)
 *   period_us=N       latency task period, 10..100000 us (default 100)
 *   load=WHICH        idle, cpu, or both (default both)
 *   hist=0|1          print the latency histograms (default 1)
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BARE_CMDLINE_MAX 256

enum {
        BARE_TEST_SELF = 1u << 0,
        BARE_TEST_LATENCY = 1u << 1,
        BARE_TEST_OVERFLOW = 1u << 2,   /* ends in a panic on purpose */
        BARE_TEST_FPU_MISUSE = 1u << 3, /* ends in a panic on purpose */
};

enum { BARE_MODE_ONESHOT = 1u << 0, BARE_MODE_PERIODIC = 1u << 1 };
enum { BARE_LOAD_IDLE = 1u << 0, BARE_LOAD_CPU = 1u << 1 };
enum bare_clock { BARE_CLOCK_AUTO, BARE_CLOCK_LAPIC, BARE_CLOCK_PIT };

struct bare_options {
        uint32_t tests;
        uint32_t modes;
        uint32_t loads;
        enum bare_clock clock;
        uint32_t samples;
        uint32_t period_us;
        bool histogram;
        uint32_t unknown;               /* keys ignored */
};

#define BARE_OPTIONS_DEFAULT {                                                  \
                .tests = BARE_TEST_SELF | BARE_TEST_LATENCY,                    \
                .modes = BARE_MODE_ONESHOT | BARE_MODE_PERIODIC,                \
                .loads = BARE_LOAD_IDLE | BARE_LOAD_CPU,                        \
                .clock = BARE_CLOCK_AUTO,                                       \
                .samples = 20000,                                               \
                .period_us = 100,                                               \
                .histogram = true,                                              \
        }

/*
 * Parse len bytes of s (a NUL ends it early).  Returns 0 and fills *ret, or
 * -EINVAL and writes the offending word into err (NUL-terminated, cut to
 * err_size); *ret is then left as it was.
 */
int cmdline_parse(const char *s, size_t len, struct bare_options *ret, char *err, size_t err_size);
