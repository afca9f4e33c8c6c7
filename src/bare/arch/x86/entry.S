/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One stub per vector pushes (error code,) vector, then the registers, and
 * calls trap_dispatch(frame), which returns the stack pointer to resume:
 * the same frame, or another task's.  So every task switch, preemptive or
 * voluntary (int $0x41), is a return from an interrupt onto another stack.
 */
        .text
        .code32

/* Vectors whose exception pushes an error code: 8, 10-14, 17, 21, 29, 30. */
.macro STUB v
        .balign 16
stub_\v:
        .if (\v == 8) || (\v >= 10 && \v <= 14) || (\v == 17) || (\v == 21) || (\v == 29) || (\v == 30)
        .else
        pushl $0
        .endif
        pushl $\v
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
        pushal
        movl %esp, %eax
        pushl %eax
        call trap_dispatch
        movl %eax, %esp
        popal
        addl $8, %esp
        iret

        .section .rodata
        .balign 4
        .globl trap_stubs
trap_stubs:
        .set v, 0
        .rept 256
        .long stubs_start + v * 16
        .set v, v + 1
        .endr

        .section .note.GNU-stack, "", @progbits
