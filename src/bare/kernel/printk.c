/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rt_printk: formatted output on the serial console.  A line goes into a
 * ring whole, with interrupts off only for the copy, so lines of different
 * tasks never interleave; then the caller writes the ring out with
 * interrupts on, taking one character at a time and only when the UART can
 * take it at once.  A task that preempts a writer and prints writes out the
 * whole ring (its predecessor's rest first), so output stays in order.  On
 * real hardware at 115200 baud each character still costs the caller ~87 us
 * of waiting, so tasks with tight deadlines print after measuring, as the
 * latency test does; but nobody else waits with interrupts off.
 */
#include "arch.h"
#include "kernel.h"
#include "lib/format.h"

/* Interrupts off: append, "\n" as "\r\n"; false when the line does not fit yet. */
static bool ring_put_line(struct kernel *k, const char *s, uint32_t n) {
        uint32_t need = n;

        for (uint32_t i = 0; i < n; i++)
                need += s[i] == '\n';
        if (need > PRINTK_RING - k->printk.count)
                return false;
        for (uint32_t i = 0; i < n; i++) {
                if (s[i] == '\n')
                        k->printk.buf[(k->printk.head + k->printk.count++) % PRINTK_RING] = '\r';
                k->printk.buf[(k->printk.head + k->printk.count++) % PRINTK_RING] = s[i];
        }
        return true;
}

/* Interrupts off: one character out, if there is one and the UART takes it. */
static bool ring_put_char(struct kernel *k) {
        if (k->printk.count == 0 || !console_ready())
                return false;
        console_put_raw(k->printk.buf[k->printk.head]);
        k->printk.head = (k->printk.head + 1) % PRINTK_RING;
        k->printk.count--;
        return true;
}

static void ring_drain(struct kernel *k) {
        for (;;) {
                uint32_t flags;
                bool empty;

                while (!console_ready())
                        ;
                flags = irq_save();
                ring_put_char(k);
                empty = k->printk.count == 0;
                irq_restore(flags);
                if (empty)
                        return;
        }
}

void printk_flush_now(struct kernel *k) {
        while (k->printk.count > 0)
                if (!ring_put_char(k))
                        while (!console_ready())
                                ;
}

int rt_printk(const char *fmt, ...) {
        struct kernel *k = kernel_get();
        char line[256];
        uint32_t flags, len;
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = fmt_vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        len = (uint32_t) n < sizeof(line) ? (uint32_t) n : sizeof(line) - 1;
        if (!k) {
                console_write(line, len);       /* before the kernel: nothing else runs */
                return n;
        }
        for (;;) {
                bool queued;

                flags = irq_save();
                queued = ring_put_line(k, line, len);
                irq_restore(flags);
                if (queued)
                        break;
                ring_drain(k);                  /* full: make room */
        }
        ring_drain(k);
        return n;
}
