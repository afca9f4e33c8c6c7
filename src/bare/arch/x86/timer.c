/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "timer.h"
#include "x86.h"

#define PIT_HZ 1193182u
#define PIT_CALIBRATE_LATCH 59659u      /* 50 ms */
#define LAPIC_BASE_MSR 0x1b
#define LAPIC_EOI (0xb0 / 4)
#define LAPIC_SVR (0xf0 / 4)
#define LAPIC_LVT_TIMER (0x320 / 4)
#define LAPIC_INITIAL (0x380 / 4)
#define LAPIC_CURRENT (0x390 / 4)
#define LAPIC_DIVIDE (0x3e0 / 4)
#define LVT_MASKED (1u << 16)
#define LVT_PERIODIC (1u << 17)
#define SCALE_SHIFT 24

uint64_t scale_apply(uint64_t x, struct scale s) {
        uint64_t lo = (uint64_t) (uint32_t) x * s.mult, hi = (x >> 32) * s.mult;

        return (lo >> s.shift) + (hi << (32 - s.shift));
}

/* Counts of to_hz per count of from_hz, as mult >> SCALE_SHIFT. */
struct scale scale_make(uint64_t from_hz, uint64_t to_hz) {
        return (struct scale) { .mult = (uint32_t) ((to_hz << SCALE_SHIFT) / from_hz), .shift = SCALE_SHIFT };
}

/* Remap the 8259s above the exceptions, all lines masked. */
static void pic_init(void) {
        outb(0x20, 0x11);
        outb(0xa0, 0x11);
        outb(0x21, 0x20);
        outb(0xa1, 0x28);
        outb(0x21, 0x04);
        outb(0xa1, 0x02);
        outb(0x21, 0x01);
        outb(0xa1, 0x01);
        outb(0x21, 0xff);
        outb(0xa1, 0xff);
}

static bool cpu_has_lapic(void) {
        uint32_t a, b, c, d;

        cpuid(0, &a, &b, &c, &d);
        if (a < 1)
                return false;
        cpuid(1, &a, &b, &c, &d);
        return d & (1u << 9);
}

/*
 * PIT channel 2 counts 50 ms down (gate on port 0x61, no speaker), while the
 * TSC and the LAPIC timer (if any) run: both frequencies from one window.
 */
static void calibrate(struct hwtimer *t) {
        uint64_t t0, t1;
        uint32_t l0 = 0xffffffffu, l1 = 0;

        outb(0x61, (uint8_t) ((inb(0x61) & ~0x02) | 0x01));
        outb(0x43, 0xb0);
        outb(0x42, PIT_CALIBRATE_LATCH & 0xff);
        outb(0x42, PIT_CALIBRATE_LATCH >> 8);
        if (t->lapic) {
                t->lapic[LAPIC_INITIAL] = l0;
                l0 = t->lapic[LAPIC_CURRENT];
        }
        t0 = rdtsc();
        while (!(inb(0x61) & 0x20))
                ;
        t1 = rdtsc();
        if (t->lapic) {
                l1 = t->lapic[LAPIC_CURRENT];
                t->lapic[LAPIC_INITIAL] = 0;
                t->lapic_hz = (uint32_t) ((uint64_t) (l0 - l1) * PIT_HZ / PIT_CALIBRATE_LATCH);
        }
        t->tsc_hz = (t1 - t0) * PIT_HZ / PIT_CALIBRATE_LATCH;
}

int hwtimer_init(struct hwtimer *t, enum bare_clock want) {
        bool lapic = cpu_has_lapic();

        *t = (struct hwtimer) { 0 };
        pic_init();
        if (want == BARE_CLOCK_LAPIC && !lapic)
                return -ENOSYS;
        t->device = want == BARE_CLOCK_PIT || !lapic ? BARE_CLOCK_PIT : BARE_CLOCK_LAPIC;
        if (t->device == BARE_CLOCK_LAPIC) {
                uint64_t base = rdmsr(LAPIC_BASE_MSR);

                wrmsr(LAPIC_BASE_MSR, base | (1u << 11));       /* globally enabled */
                t->lapic = (volatile uint32_t *) (uintptr_t) (base & 0xfffff000u);
                t->lapic[LAPIC_SVR] = 0x100 | 0xff;              /* software enabled, spurious 0xff */
                t->lapic[LAPIC_DIVIDE] = 0xb;                    /* divide by 1 */
                t->lapic[LAPIC_LVT_TIMER] = LVT_MASKED | 0x40;
        }
        calibrate(t);
        if (t->tsc_hz < 1000000 || (t->lapic && t->lapic_hz < 1000000))
                return -ERANGE;
        t->tsc0 = rdtsc();
        t->cyc_to_ns = scale_make(t->tsc_hz, 1000000000u);
        t->ns_to_cyc = scale_make(1000000000u, t->tsc_hz);
        if (t->lapic) {
                t->ns_to_lapic = scale_make(1000000000u, t->lapic_hz);
                t->lapic_to_ns = scale_make(t->lapic_hz, 1000000000u);
                t->lapic[LAPIC_LVT_TIMER] = 0x40;                /* vector 0x40, one-shot, unmasked */
        } else {
                outb(0x21, 0xfe);                                /* IRQ 0 only */
        }
        return 0;
}

static uint32_t pit_count(uint64_t ns) {
        if (ns >= 60000000u)
                return 0xffff;
        uint64_t c = (ns * PIT_HZ + 999999999u) / 1000000000u;

        return c < 1 ? 1 : c > 0xffff ? 0xffff : (uint32_t) c;
}

void hwtimer_oneshot(struct hwtimer *t, uint64_t delta_ns) {
        if (t->device == BARE_CLOCK_LAPIC) {
                /* Rounded up, so that it never fires before the target. */
                uint64_t c = scale_apply(delta_ns, t->ns_to_lapic) + 1;

                if (t->periodic) {
                        t->lapic[LAPIC_LVT_TIMER] = 0x40;
                        t->periodic = false;
                }
                t->lapic[LAPIC_INITIAL] = c > 0xffffffffu ? 0xffffffffu : (uint32_t) c;
                return;
        }
        uint32_t c = pit_count(delta_ns);

        t->periodic = false;
        outb(0x43, 0x30);               /* channel 0, lo/hi, mode 0: interrupt on terminal count */
        outb(0x40, (uint8_t) c);
        outb(0x40, (uint8_t) (c >> 8));
}

uint64_t hwtimer_periodic(struct hwtimer *t, uint64_t period_ns) {
        t->periodic = true;
        if (t->device == BARE_CLOCK_LAPIC) {
                uint64_t c = scale_apply(period_ns, t->ns_to_lapic);

                if (c < 1)
                        c = 1;
                if (c > 0xffffffffu)
                        c = 0xffffffffu;
                t->lapic[LAPIC_LVT_TIMER] = 0x40 | LVT_PERIODIC;
                t->lapic[LAPIC_INITIAL] = (uint32_t) c;
                t->count = (uint32_t) c;
                t->period_ns = c * 1000000000u / t->lapic_hz;
                return t->period_ns;
        }
        uint32_t c = (uint32_t) ((period_ns * PIT_HZ + 500000000u) / 1000000000u);

        if (c < 2)
                c = 2;
        if (c > 0xffff)
                c = 0xffff;
        t->count = c;
        outb(0x43, 0x34);               /* channel 0, lo/hi, mode 2: rate generator */
        outb(0x40, (uint8_t) c);
        outb(0x40, (uint8_t) (c >> 8));
        t->period_ns = (uint64_t) c * 1000000000u / PIT_HZ;
        return t->period_ns;
}

void hwtimer_stop(struct hwtimer *t) {
        t->periodic = false;
        if (t->device == BARE_CLOCK_LAPIC) {
                t->lapic[LAPIC_LVT_TIMER] = 0x40;
                t->lapic[LAPIC_INITIAL] = 0;
                return;
        }
        outb(0x43, 0x30);               /* mode 0 with the longest count, and the line masked */
        outb(0x40, 0xff);
        outb(0x40, 0xff);
}

uint64_t hwtimer_since_tick_ns(const struct hwtimer *t) {
        uint32_t now;

        if (t->device == BARE_CLOCK_LAPIC) {
                now = t->lapic[LAPIC_CURRENT];
                return now <= t->count ? scale_apply(t->count - now, t->lapic_to_ns) : 0;
        }
        outb(0x43, 0x00);               /* latch channel 0 */
        now = inb(0x40);
        now |= (uint32_t) inb(0x40) << 8;
        return now <= t->count ? (uint64_t) (t->count - now) * 1000000000u / PIT_HZ : 0;
}

void hwtimer_eoi(const struct hwtimer *t) {
        if (t->device == BARE_CLOCK_LAPIC)
                t->lapic[LAPIC_EOI] = 0;
        else
                outb(0x20, 0x20);
}
