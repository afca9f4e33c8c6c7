/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The x86-64 image's 32-bit entry, at code32_start (1 MiB), entered as the
 * i386 one is (arch/x86/setup.S): %esi = the header page or boot_params,
 * %ebx = 16 from start16 or 0 from a 32-bit loader.  The boot protocol's
 * 32-bit entry is the one every BIOS loader uses; from it: clear .bss,
 * identity-map the first GiB (the image, its heap, the BIOS areas) and the
 * fourth (the LAPIC at 0xfee00000) with 2 MiB pages, enable PAE, EFER.LME
 * and paging, and jump through a 64-bit GDT into long mode, where
 * bare_main(boot_params, entry) runs as on i386.
 */
#define PTE_PRESENT_RW 0x003
#define PDE_2M 0x083                    /* present, writable, 2 MiB page */
#define PDE_2M_UNCACHED 0x09b           /* and PCD | PWT: device memory (LAPIC, PCI holes) */
#define MSR_EFER 0xc0000080
#define EFER_LME 0x100
#define CR4_PAE 0x20
#define CR0_PG_PE 0x80000001

        .section .text.startup32, "ax"
        .code32
        .globl startup_32
startup_32:
        cli
        cld
        lgdt gdt64_ptr
        ljmp $0x18, $1f                 /* the 32-bit code segment, until long mode */
1:      movl $0x10, %eax
        movw %ax, %ds
        movw %ax, %es
        movw %ax, %ss
        movw %ax, %fs
        movw %ax, %gs
        movl $_bss_start, %edi          /* the loader knows nothing of .bss (nor of the page tables in it) */
        movl $_bss_end, %ecx
        subl %edi, %ecx
        xorl %eax, %eax
        rep stosb

        movl $pdpt + PTE_PRESENT_RW, pml4
        movl $pd_low + PTE_PRESENT_RW, pdpt
        movl $pd_high + PTE_PRESENT_RW, pdpt + 3 * 8
        movl $pd_low, %edi
        movl $PDE_2M, %eax
        call fill_pd
        movl $pd_high, %edi
        movl $0xc0000000 + PDE_2M_UNCACHED, %eax
        call fill_pd

        movl %cr4, %eax
        orl $CR4_PAE, %eax
        movl %eax, %cr4
        movl $pml4, %eax
        movl %eax, %cr3
        movl $MSR_EFER, %ecx
        rdmsr
        orl $EFER_LME, %eax
        wrmsr
        movl %cr0, %eax
        orl $CR0_PG_PE, %eax
        movl %eax, %cr0
        ljmp $0x08, $start64

/* 512 entries of 2 MiB from %eax (flags included) at %edi: one GiB. */
fill_pd:
        movl $512, %ecx
2:      movl %eax, (%edi)
        movl $0, 4(%edi)
        addl $0x200000, %eax
        addl $8, %edi
        loop 2b
        ret

        .code64
start64:
        movl $boot_stack_top, %esp      /* zero-extended: the kernel lives below 4 GiB */
        xorl %ebp, %ebp
        movl %esi, %edi                 /* bare_main(boot_params, entry) */
        movl %ebx, %esi
        call bare_main
3:      cli
        hlt
        jmp 3b

        .section .rodata
        .balign 8
gdt64:
        .quad 0
        .quad 0x00af9a000000ffff        /* 0x08: 64-bit code */
        .quad 0x00cf92000000ffff        /* 0x10: flat data */
        .quad 0x00cf9a000000ffff        /* 0x18: flat 32-bit code, for the way into long mode */
gdt64_ptr:
        .word 31
        .long gdt64

        .section .bss
        .balign 4096
pml4:   .skip 4096
pdpt:   .skip 4096
pd_low: .skip 4096
pd_high:
        .skip 4096
        .balign 16
        .globl boot_stack_bottom
boot_stack_bottom:
        .skip 4096
boot_stack_top:

        .section .note.GNU-stack, "", @progbits
