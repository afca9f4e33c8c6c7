/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The few x86 instructions rtf-bare needs, the same in i386 and x86-64 code.
 * What differs (the interrupt frame, the stack pointer, the FPU state) is in
 * the architecture's arch.h (arch/x86/arch.h, arch/x86_64/arch.h), which the
 * kernel includes as "arch.h" through the image's include path.  Files under
 * arch/x86/ that both images compile include "kernel/kernel.h", never
 * "arch.h" directly: the directory of the includer would win.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

static inline void outb(uint16_t port, uint8_t v) {
        __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port) {
        uint8_t v;

        __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
        return v;
}

static inline void outl(uint16_t port, uint32_t v) {
        __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint64_t rdtsc(void) {
        uint32_t lo, hi;

        __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
        return (uint64_t) hi << 32 | lo;
}

static inline void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d) {
        __asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

static inline uint64_t rdmsr(uint32_t msr) {
        uint32_t lo, hi;

        __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
        return (uint64_t) hi << 32 | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v) {
        __asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t) v), "d"((uint32_t) (v >> 32)));
}

static inline uint32_t irq_save(void) {
        unsigned long flags;            /* pushf/pop: 32 or 64 bits, as the mode has them */

        __asm__ volatile("pushf; pop %0; cli" : "=r"(flags) : : "memory");
        return (uint32_t) flags;
}

static inline void irq_restore(uint32_t flags) {
        if (flags & 0x200)
                __asm__ volatile("sti" : : : "memory");
}

static inline void irq_enable(void) {
        __asm__ volatile("sti" : : : "memory");
}

static inline void cpu_halt(void) {
        /* sti takes effect after the next instruction: no wake-up is lost in between. */
        __asm__ volatile("sti; hlt" : : : "memory");
}

#define VECTOR_PIT 0x20                 /* IRQ 0 after the 8259 remap */
#define VECTOR_PIC_SPURIOUS_MASTER 0x27
#define VECTOR_PIC_SPURIOUS_SLAVE 0x2f
#define VECTOR_LAPIC_TIMER 0x40
#define VECTOR_YIELD 0x41               /* a task gives up the CPU: int $0x41 */
#define VECTOR_LAPIC_SPURIOUS 0xff

struct trap_frame;

/* entry.S: the address of each vector's stub */
extern const uintptr_t trap_stubs[256];

/* idt.c */
void trap_init(void);
/* trap.c: returns the frame to resume (the same, or another task's) */
uintptr_t trap_dispatch(struct trap_frame *f);

static inline void cpu_yield(void) {
        __asm__ volatile("int $0x41" : : : "memory");
}

/* console.c: COM1, and QEMU's isa-debug-exit at 0xf4. */
void console_init(void);
void console_write(const char *s, uint32_t len);
/* The transmitter can take a character now (console_put_raw does not wait). */
bool console_ready(void);
void console_put_raw(char c);
__attribute__((noreturn)) void machine_exit(uint8_t value);
