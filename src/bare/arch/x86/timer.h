/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Time and timer of rtf-bare: the TSC is the clock (calibrated at boot
 * against the PIT), the local APIC timer raises the events, one-shot or
 * periodic, with the PIT (through the 8259) as the fallback.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "lib/cmdline.h"

/* x * mult >> shift, for conversions without division (mult, shift as in Linux's clocksource). */
struct scale {
        uint32_t mult, shift;
};

struct hwtimer {
        enum bare_clock device;         /* LAPIC or PIT, never AUTO after init */
        uint64_t tsc_hz;
        uint64_t tsc0;                  /* TSC at boot: rt_get_time() counts from it */
        struct scale cyc_to_ns, ns_to_cyc;
        uint32_t lapic_hz;
        struct scale ns_to_lapic, lapic_to_ns;
        uint32_t count;                 /* periodic: counts per tick */
        volatile uint32_t *lapic;
        bool periodic;
        uint64_t period_ns;             /* periodic mode: the tick the hardware really has */
};

uint64_t scale_apply(uint64_t x, struct scale s);
struct scale scale_make(uint64_t from_hz, uint64_t to_hz);

int hwtimer_init(struct hwtimer *t, enum bare_clock want);
/* Fire once, delta_ns from now (at least the device's minimum). */
void hwtimer_oneshot(struct hwtimer *t, uint64_t delta_ns);
/* Tick every period_ns (rounded to the device); returns the tick it has, in ns. */
uint64_t hwtimer_periodic(struct hwtimer *t, uint64_t period_ns);
void hwtimer_stop(struct hwtimer *t);
/* Periodic mode: how long ago the current tick began (read from the counter). */
uint64_t hwtimer_since_tick_ns(const struct hwtimer *t);
void hwtimer_eoi(const struct hwtimer *t);

static inline int64_t hwtimer_now_ns(const struct hwtimer *t, uint64_t tsc) {
        return (int64_t) scale_apply(tsc - t->tsc0, t->cyc_to_ns);
}
