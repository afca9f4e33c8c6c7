/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What happens on each vector, for i386 and x86-64: exceptions panic, the rest go to the scheduler. */
#include "kernel/kernel.h"

static const char *const exception_names[32] = {
        "#DE divide error", "#DB debug", "NMI", "#BP breakpoint", "#OF overflow",
        "#BR bound range", "#UD invalid opcode", "#NM FPU not available", "#DF double fault",
        "coprocessor segment overrun", "#TS invalid TSS", "#NP segment not present",
        "#SS stack fault", "#GP general protection", "#PF page fault", "reserved",
        "#MF x87 floating point", "#AC alignment check", "#MC machine check",
        "#XM SIMD floating point", "#VE virtualization", "#CP control protection",
};

uintptr_t trap_dispatch(struct trap_frame *f) {
        struct kernel *k = kernel_get();

        if (f->vector < 32) {
                const char *name = exception_names[f->vector] ? exception_names[f->vector] : "exception";
                uint32_t vector = (uint32_t) f->vector, error = (uint32_t) f->error;

                /* Addresses fit in 32 bits: the kernel runs in the low 4 GiB on both architectures. */
                if (vector == 7 && k && k->current && !k->current->uses_fpu)
                        panic("FPU used by a task created with uses_fpu = 0 (eip 0x%x)", (uint32_t) f->ip);
                panic("%s (vector %u, error 0x%x) at eip 0x%x", name, vector, error, (uint32_t) f->ip);
        }
        if (f->vector == VECTOR_LAPIC_SPURIOUS || f->vector == VECTOR_PIC_SPURIOUS_MASTER ||
            f->vector == VECTOR_PIC_SPURIOUS_SLAVE || !k)
                return (uintptr_t) f;
        return kernel_trap(k, f);
}
