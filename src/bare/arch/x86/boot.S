/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The i386 image's 32-bit entry, at code32_start (1 MiB): reached from
 * start16 (setup.S) or directly from a 32-bit loader, %esi = the header page
 * or boot_params, %ebx = 16 or 0.  Loads the kernel's GDT, clears .bss and
 * calls bare_main(boot_params, entry).
 */
        .section .text.startup32, "ax"
        .code32
        .globl startup_32
startup_32:
        cli
        cld
        lgdt gdt32_ptr
        ljmp $0x08, $1f
1:      movl $0x10, %eax
        movw %ax, %ds
        movw %ax, %es
        movw %ax, %ss
        movw %ax, %fs
        movw %ax, %gs
        movl $_bss_start, %edi          /* the loader knows nothing of .bss */
        movl $_bss_end, %ecx
        subl %edi, %ecx
        xorl %eax, %eax
        rep stosb
        movl $boot_stack_top, %esp
        xorl %ebp, %ebp
        pushl %ebx                      /* 16: through start16, 0: a 32-bit loader */
        pushl %esi
        call bare_main
2:      cli
        hlt
        jmp 2b

        .section .rodata
        .balign 8
gdt32:
        .quad 0
        .quad 0x00cf9a000000ffff        /* 0x08: flat code */
        .quad 0x00cf92000000ffff        /* 0x10: flat data */
gdt32_ptr:
        .word 23
        .long gdt32

        .section .bss
        .balign 16
        .globl boot_stack_bottom
boot_stack_bottom:
        .skip 4096
boot_stack_top:

        .section .note.GNU-stack, "", @progbits
