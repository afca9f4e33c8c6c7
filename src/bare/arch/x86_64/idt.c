/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The x86-64 IDT: 16-byte interrupt gates to entry.S's stubs, no IST (one stack per task, as on i386). */
#include "kernel/kernel.h"

struct idt_entry {
        uint16_t off_lo, selector;
        uint8_t ist, type;
        uint16_t off_mid;
        uint32_t off_hi, reserved;
} __attribute__((packed));

_Static_assert(sizeof(struct idt_entry) == 16, "long-mode gates are 16 bytes");

/* The CPU reads it through lidt: hardware state, written once at boot. */
static struct idt_entry idt[256];

void trap_init(void) {
        struct {
                uint16_t limit;
                uint64_t base;
        } __attribute__((packed)) ptr = { sizeof(idt) - 1, (uint64_t) (uintptr_t) idt };

        for (unsigned v = 0; v < 256; v++) {
                uint64_t off = trap_stubs[v];

                /* 0x8e: present, ring 0, 64-bit interrupt gate (interrupts off inside) */
                idt[v] = (struct idt_entry) { (uint16_t) off, KERNEL_CS, 0, 0x8e, (uint16_t) (off >> 16),
                                              (uint32_t) (off >> 32), 0 };
        }
        __asm__ volatile("lidt %0" : : "m"(ptr));
}
