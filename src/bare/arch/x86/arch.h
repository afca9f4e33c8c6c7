/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What is i386 about rtf-bare's kernel: the frame entry.S saves, the stack
 * pointer, and the x87 state of FPU tasks (fnsave/frstor, 108 bytes).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "timer.h"
#include "x86.h"

#define ARCH_NAME "i386"
#define KERNEL_CS 0x08
#define ARCH_FPU_BYTES 108

/* What entry.S pushes: pusha, then the vector and error code, then the CPU's frame. */
struct trap_frame {
        uint32_t edi, esi, ebp, esp_unused, ebx, edx, ecx, eax;
        uint32_t vector, error;
        uint32_t ip, cs, eflags;
};

static inline uintptr_t stack_pointer(void) {
        uintptr_t sp;

        __asm__ volatile("movl %%esp, %0" : "=r"(sp));
        return sp;
}

/*
 * A frame as entry.S leaves it at the top of a new stack, so that the first
 * switch "returns" into fn(data), and fn's return into ret.  Returns the
 * task's saved stack pointer.
 */
static inline uintptr_t arch_frame_init(uint8_t *stack_top, void (*fn)(long), long data, void (*ret)(void)) {
        uint32_t *sp = (uint32_t *) stack_top;
        struct trap_frame *f;

        *--sp = (uint32_t) data;
        *--sp = (uint32_t) (uintptr_t) ret;
        f = (struct trap_frame *) sp - 1;
        *f = (struct trap_frame) { .ip = (uint32_t) (uintptr_t) fn, .cs = KERNEL_CS, .eflags = 0x202 };
        return (uintptr_t) f;
}

/* x87 on (no emulation, errors as exceptions); a clean state for every FPU task in init. */
static inline void arch_fpu_init(uint8_t init[ARCH_FPU_BYTES]) {
        uint32_t cr0;

        __asm__ volatile("movl %%cr0, %0" : "=r"(cr0));
        cr0 = (cr0 & ~(4u | 8u)) | 2u | 32u;
        __asm__ volatile("movl %0, %%cr0; fninit; fnsave %1" : : "r"(cr0), "m"(*(uint8_t(*)[ARCH_FPU_BYTES]) init) : "memory");
}

static inline void arch_fpu_switch(uint8_t prev[ARCH_FPU_BYTES], bool prev_uses, uint8_t next[ARCH_FPU_BYTES],
                                   bool next_uses) {
        uint32_t cr0;

        if (prev_uses)
                __asm__ volatile("fnsave %0" : "=m"(*(uint8_t(*)[ARCH_FPU_BYTES]) prev));
        __asm__ volatile("movl %%cr0, %0" : "=r"(cr0));
        if (next_uses) {
                __asm__ volatile("clts; frstor %0" : : "m"(*(uint8_t(*)[ARCH_FPU_BYTES]) next));
        } else {
                /* TS set: the first FPU instruction of this task raises #NM and a panic. */
                __asm__ volatile("movl %0, %%cr0" : : "r"(cr0 | 8u));
        }
}
