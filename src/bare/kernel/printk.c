/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rt_printk: formatted, straight to the serial console.  Interrupts stay off
 * for one line so that lines of different tasks do not interleave; on real
 * hardware at 115200 baud that is ~87 us per character, so tasks with tight
 * deadlines print after measuring, as the latency test does.
 */
#include "arch/x86/x86.h"
#include "kernel.h"
#include "lib/format.h"

int rt_printk(const char *fmt, ...) {
        char line[256];
        va_list ap;
        uint32_t flags;
        int n;

        va_start(ap, fmt);
        n = fmt_vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        flags = irq_save();
        console_write(line, (uint32_t) n < sizeof(line) ? (uint32_t) n : sizeof(line) - 1);
        irq_restore(flags);
        return n;
}
