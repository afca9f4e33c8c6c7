/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The i386 IDT: 8-byte interrupt gates to entry.S's stubs. */
#include "kernel/kernel.h"

struct idt_entry {
        uint16_t off_lo, selector;
        uint8_t zero, type;
        uint16_t off_hi;
} __attribute__((packed));

/* The CPU reads it through lidt: hardware state, written once at boot. */
static struct idt_entry idt[256];

void trap_init(void) {
        struct {
                uint16_t limit;
                uint32_t base;
        } __attribute__((packed)) ptr = { sizeof(idt) - 1, (uint32_t) (uintptr_t) idt };

        for (unsigned v = 0; v < 256; v++) {
                uint32_t off = (uint32_t) trap_stubs[v];

                /* 0x8e: present, ring 0, 32-bit interrupt gate (interrupts off inside) */
                idt[v] = (struct idt_entry) { (uint16_t) off, KERNEL_CS, 0, 0x8e, (uint16_t) (off >> 16) };
        }
        __asm__ volatile("lidt %0" : : "m"(ptr));
}
