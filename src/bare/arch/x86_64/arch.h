/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What is x86-64 about rtf-bare's kernel: the frame entry.S saves, the stack
 * pointer, and the FPU state of FPU tasks.  64-bit code does its floating
 * point in SSE registers, so a task's state is fxsave's 512 bytes (x87 and
 * SSE); CR0.TS traps the first x87 or SSE instruction of a task created with
 * uses_fpu = 0, as on i386.  The rest of arch/x86/ (console, timer, trap
 * dispatch, the setup header) is shared.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/timer.h"
#include "arch/x86/x86.h"

#define ARCH_NAME "x86-64"
#define KERNEL_CS 0x08
#define KERNEL_DS 0x10
#define ARCH_FPU_BYTES 512

/* What entry.S pushes: the 15 registers, then the vector and error code, then the CPU's frame. */
struct trap_frame {
        uint64_t r15, r14, r13, r12, r11, r10, r9, r8, rbp, rdi, rsi, rdx, rcx, rbx, rax;
        uint64_t vector, error;
        uint64_t ip, cs, rflags, sp, ss;
};

static inline uintptr_t stack_pointer(void) {
        uintptr_t sp;

        __asm__ volatile("movq %%rsp, %0" : "=r"(sp));
        return sp;
}

/*
 * A frame as entry.S leaves it below a new stack, so that the first switch
 * "returns" into fn(data) (in %rdi), with ret as its return address: %rsp
 * ends in 8 at the function's entry, as after a call.
 */
static inline uintptr_t arch_frame_init(uint8_t *stack_top, void (*fn)(long), long data, void (*ret)(void)) {
        uint64_t *sp = (uint64_t *) ((uintptr_t) stack_top & ~(uintptr_t) 15) - 1;
        struct trap_frame *f;

        *sp = (uint64_t) (uintptr_t) ret;
        f = (struct trap_frame *) (sp - 1) - 1;
        *f = (struct trap_frame) { .rdi = (uint64_t) data, .ip = (uint64_t) (uintptr_t) fn, .cs = KERNEL_CS,
                                   .rflags = 0x202, .sp = (uint64_t) (uintptr_t) sp, .ss = KERNEL_DS };
        return (uintptr_t) f;
}

/*
 * x87 and SSE on: CR0.MP and NE, no EM, no TS; CR4.OSFXSR (fxsave saves the
 * SSE registers, SSE instructions do not #UD) and OSXMMEXCPT (SIMD errors
 * are #XM).  init gets the clean state every FPU task starts with.
 */
static inline void arch_fpu_init(uint8_t init[ARCH_FPU_BYTES]) {
        uint64_t cr0, cr4;

        __asm__ volatile("movq %%cr4, %0" : "=r"(cr4));
        __asm__ volatile("movq %0, %%cr4" : : "r"(cr4 | 0x200u | 0x400u));
        __asm__ volatile("movq %%cr0, %0" : "=r"(cr0));
        cr0 = (cr0 & ~(uint64_t) (4u | 8u)) | 2u | 32u;
        __asm__ volatile("movq %0, %%cr0; fninit; fxsave %1" : : "r"(cr0), "m"(*(uint8_t(*)[ARCH_FPU_BYTES]) init)
                         : "memory");
}

static inline void arch_fpu_switch(uint8_t prev[ARCH_FPU_BYTES], bool prev_uses, uint8_t next[ARCH_FPU_BYTES],
                                   bool next_uses) {
        uint64_t cr0;

        if (prev_uses)
                __asm__ volatile("fxsave %0" : "=m"(*(uint8_t(*)[ARCH_FPU_BYTES]) prev));
        __asm__ volatile("movq %%cr0, %0" : "=r"(cr0));
        if (next_uses) {
                __asm__ volatile("clts; fxrstor %0" : : "m"(*(uint8_t(*)[ARCH_FPU_BYTES]) next));
        } else {
                /* TS set: the first x87 or SSE instruction of this task raises #NM and a panic. */
                __asm__ volatile("movq %0, %%cr0" : : "r"(cr0 | 8u));
        }
}
