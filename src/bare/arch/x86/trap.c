/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The IDT, and what happens on each vector: exceptions panic, the rest go to the scheduler. */
#include "kernel/kernel.h"
#include "x86.h"

struct idt_entry {
        uint16_t off_lo, selector;
        uint8_t zero, type;
        uint16_t off_hi;
} __attribute__((packed));

/* The CPU reads it through lidt: hardware state, written once at boot. */
static struct idt_entry idt[256];

static const char *const exception_names[32] = {
        "#DE divide error", "#DB debug", "NMI", "#BP breakpoint", "#OF overflow",
        "#BR bound range", "#UD invalid opcode", "#NM FPU not available", "#DF double fault",
        "coprocessor segment overrun", "#TS invalid TSS", "#NP segment not present",
        "#SS stack fault", "#GP general protection", "#PF page fault", "reserved",
        "#MF x87 floating point", "#AC alignment check", "#MC machine check",
        "#XM SIMD floating point", "#VE virtualization", "#CP control protection",
};

void trap_init(void) {
        struct {
                uint16_t limit;
                uint32_t base;
        } __attribute__((packed)) ptr = { sizeof(idt) - 1, (uint32_t) (uintptr_t) idt };

        for (unsigned v = 0; v < 256; v++) {
                uint32_t off = trap_stubs[v];

                /* 0x8e: present, ring 0, 32-bit interrupt gate (interrupts off inside) */
                idt[v] = (struct idt_entry) { (uint16_t) off, KERNEL_CS, 0, 0x8e, (uint16_t) (off >> 16) };
        }
        __asm__ volatile("lidt %0" : : "m"(ptr));
}

uint32_t trap_dispatch(struct trap_frame *f) {
        struct kernel *k = kernel_get();

        if (f->vector < 32) {
                const char *name = exception_names[f->vector] ? exception_names[f->vector] : "exception";

                if (f->vector == 7 && k && k->current && !k->current->uses_fpu)
                        panic("FPU used by a task created with uses_fpu = 0 (eip 0x%x)", f->eip);
                panic("%s (vector %u, error 0x%x) at eip 0x%x", name, f->vector, f->error, f->eip);
        }
        if (f->vector == VECTOR_LAPIC_SPURIOUS || f->vector == VECTOR_PIC_SPURIOUS_MASTER ||
            f->vector == VECTOR_PIC_SPURIOUS_SLAVE || !k)
                return (uint32_t) (uintptr_t) f;
        return kernel_trap(k, f);
}
