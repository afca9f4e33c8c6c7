/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The serial console (COM1, 115200 8N1, polled) and the way out of QEMU. */
#include "x86.h"

#define COM1 0x3f8
#define DEBUG_EXIT_PORT 0xf4

void console_init(void) {
        outb(COM1 + 1, 0x00);           /* no interrupts: output is polled */
        outb(COM1 + 3, 0x80);           /* divisor latch */
        outb(COM1 + 0, 0x01);           /* 115200 baud */
        outb(COM1 + 1, 0x00);
        outb(COM1 + 3, 0x03);           /* 8N1 */
        outb(COM1 + 2, 0xc7);           /* FIFO on, cleared */
        outb(COM1 + 4, 0x03);           /* DTR, RTS */
}

static void console_putc(char c) {
        /* Bounded: a missing UART (all bits 1 or 0) must not hang the kernel. */
        for (uint32_t i = 0; i < 100000 && !(inb(COM1 + 5) & 0x20); i++)
                ;
        outb(COM1, (uint8_t) c);
}

bool console_ready(void) {
        uint8_t lsr = inb(COM1 + 5);

        /* 0xff: no UART there; writes go nowhere, so never wait for it. */
        return lsr == 0xff || (lsr & 0x20);
}

void console_put_raw(char c) {
        outb(COM1, (uint8_t) c);
}

void console_write(const char *s, uint32_t len) {
        for (uint32_t i = 0; i < len; i++) {
                if (s[i] == '\n')
                        console_putc('\r');
                console_putc(s[i]);
        }
}

void machine_exit(uint8_t value) {
        __asm__ volatile("cli");
        /* QEMU exits with (value << 1) | 1; elsewhere the port is unused and we halt. */
        outl(DEBUG_EXIT_PORT, value);
        for (;;)
                __asm__ volatile("hlt");
}
