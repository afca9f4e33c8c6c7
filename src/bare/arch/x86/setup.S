/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The image's first KiB: a Linux boot-protocol header (version 2.06,
 * Documentation/arch/x86/boot.rst), so that every loader that starts a
 * bzImage starts rtf-bare, and the two ways in:
 *
 *   16-bit: QEMU -kernel, syslinux and GRUB's linux16 jump to start16 in real
 *           mode (CS = setup segment + 0x20).  It enables A20, switches to a
 *           flat protected mode and jumps to code32_start.
 *   32-bit: GRUB's linux command enters startup_32 (at code32_start, 1 MiB)
 *           in protected mode with %esi = the zero page (boot_params), whose
 *           offset 0x1f1 holds a copy of this header.
 *
 * Both images (i386, x86-64) start with this file; each has its own
 * startup_32 (arch/x86/boot.S, arch/x86_64/boot.S).
 *
 * Either way startup_32 gets %esi pointing at a header whose cmd_line_ptr
 * (offset 0x228) the loader filled in, and %ebx = 16 from start16 (the 32-bit
 * protocol guarantees 0), so the kernel can say which way it came.
 */
        .section .setup, "ax"
        .code16
        .globl setup_header_start
setup_header_start:
        .org 0x1f1
        .byte 1                         /* setup_sects: this boot sector + 1 */
        .word 0                         /* root_flags */
        .long _syssize                  /* syssize: 32-bit part, 16-byte units */
        .word 0                         /* ram_size */
        .word 0xffff                    /* vid_mode: normal */
        .word 0                         /* root_dev */
        .word 0xaa55                    /* boot_flag */
        /* 0x200 */
        .byte 0xeb, start16 - 0x202     /* jump */
        .ascii "HdrS"
        .word 0x0206                    /* protocol version */
        .long 0                         /* realmode_swtch */
        .word 0x1000                    /* start_sys_seg */
        .word version_string - 0x200    /* kernel_version */
        .byte 0                         /* type_of_loader: the loader writes it */
        .byte 0x01                      /* loadflags: LOADED_HIGH (at 1 MiB) */
        .word 0                         /* setup_move_size */
        .long 0x100000                  /* code32_start */
        .long 0, 0                      /* ramdisk_image, ramdisk_size */
        .long 0                         /* bootsect_kludge */
        .word 0                         /* heap_end_ptr */
        .byte 0, 0                      /* ext_loader_ver, ext_loader_type */
        .long 0                         /* cmd_line_ptr: the loader writes it */
        .long 0x7fffffff                /* initrd_addr_max */
        .long 0x1000                    /* kernel_alignment */
        .byte 0                         /* relocatable_kernel: no */
        .byte 0                         /* min_alignment */
        .word 0                         /* xloadflags */
        .long 255                       /* cmdline_size (BARE_CMDLINE_MAX - 1) */

        .org 0x240
start16:
        cli
        cld
        movw %cs, %ax
        subw $0x20, %ax
        movw %ax, %ds
        movzwl %ax, %esi
        shll $4, %esi                   /* linear address of the header page */
        inb $0x92, %al                  /* fast A20 */
        orb $2, %al
        andb $0xfe, %al
        outb %al, $0x92
        leal gdt16(%esi), %eax
        movl %eax, gdt16_ptr + 2
        lgdtl gdt16_ptr
        movl %cr0, %eax
        orl $1, %eax
        movl %eax, %cr0
        movw $0x18, %ax                 /* flat data, as the 32-bit protocol has it */
        movw %ax, %ds
        movw %ax, %es
        movw %ax, %ss
        movw %ax, %fs
        movw %ax, %gs
        movl $16, %ebx                  /* tells startup_32 which way we came (the 32-bit protocol has 0) */
        ljmpl $0x10, $0x100000

        .balign 8
gdt16:                                  /* the selectors of the 32-bit boot protocol */
        .quad 0, 0
        .quad 0x00cf9a000000ffff        /* 0x10: flat code */
        .quad 0x00cf92000000ffff        /* 0x18: flat data */
gdt16_ptr:
        .word 31
        .long 0
version_string:
        .asciz "rtf-bare"
        .org 0x400

        .section .note.GNU-stack, "", @progbits
