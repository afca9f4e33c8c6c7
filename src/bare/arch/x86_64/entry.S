/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * x86-64 interrupt entry, as arch/x86/entry.S on i386: one stub per vector
 * pushes (error code,) vector, then the 15 general registers, and calls
 * trap_dispatch(frame), which returns the stack pointer to resume: the same
 * frame, or another task's.  In long mode the CPU always pushes SS:RSP and
 * aligns the stack to 16 bytes first, so the frame (22 quadwords) leaves
 * the stack 16-byte aligned for the call, as the ABI wants.
 *
 * Unlike i386, the kernel's part runs on a stack of its own: the frames of
 * 64-bit code are twice as large, and a task's stack then only needs room
 * for the frame itself (the canary check in kernel/sched.c, and the stack
 * use a task reports, are the task's own).  A fault inside the kernel stays
 * on the kernel stack, on its way to a panic.
 */
        .text
        .code64

/* Vectors whose exception pushes an error code: 8, 10-14, 17, 21, 29, 30. */
.macro STUB v
        .balign 16
stub_\v:
        .if (\v == 8) || (\v >= 10 && \v <= 14) || (\v == 17) || (\v == 21) || (\v == 29) || (\v == 30)
        .else
        pushq $0
        .endif
        pushq $\v
        jmp trap_common
.endm

        .balign 16
        .globl stubs_start
stubs_start:
        .altmacro
        .set v, 0
        .rept 256
        STUB %v
        .set v, v + 1
        .endr

trap_common:
        pushq %rax
        pushq %rbx
        pushq %rcx
        pushq %rdx
        pushq %rsi
        pushq %rdi
        pushq %rbp
        pushq %r8
        pushq %r9
        pushq %r10
        pushq %r11
        pushq %r12
        pushq %r13
        pushq %r14
        pushq %r15
        movq %rsp, %rdi
        cmpq $kernel_stack_bottom, %rsp
        jb 1f
        cmpq $kernel_stack_top, %rsp
        jbe 2f                          /* on it already: a fault in the kernel */
1:      movq $kernel_stack_top, %rsp
2:      call trap_dispatch
        movq %rax, %rsp
        popq %r15
        popq %r14
        popq %r13
        popq %r12
        popq %r11
        popq %r10
        popq %r9
        popq %r8
        popq %rbp
        popq %rdi
        popq %rsi
        popq %rdx
        popq %rcx
        popq %rbx
        popq %rax
        addq $16, %rsp
        iretq

        .section .bss
        .balign 16
kernel_stack_bottom:
        .skip 2048
kernel_stack_top:

        .section .rodata
        .balign 8
        .globl trap_stubs
trap_stubs:
        .set v, 0
        .rept 256
        .quad stubs_start + v * 16
        .set v, v + 1
        .endr

        .section .note.GNU-stack, "", @progbits
