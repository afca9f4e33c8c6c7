/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-bare's start: the console, the command line, the kernel, then the
 * programs the command line asks for, a footprint report, and the exit
 * status through QEMU's isa-debug-exit (0: every check passed).
 */
#include <string.h>

#include "app.h"

#define HEAP_SIZE (32u * 1024u)
#define BOOT_PARAMS_CMD_LINE_PTR 0x228

extern uint8_t _kernel_start[], _text_end[], _rodata_start[], _rodata_end[], _data_start[], _data_end[],
        _bss_start[], _bss_end[];

int check(bool ok, const char *what) {
        rt_printk("%s - %s\n", ok ? "ok" : "not ok", what);
        return !ok;
}

static void memory_report(struct kernel *k) {
        uint32_t text = (uint32_t) (_text_end - _kernel_start), rodata = (uint32_t) (_rodata_end - _rodata_start);
        uint32_t data = (uint32_t) (_data_end - _data_start), bss = (uint32_t) (_bss_end - _bss_start);
        uint32_t stacks = 0, task_max = k->stack_used_max;

        /* Root and idle live on in .bss; task stacks come from the heap (its high-water mark). */
        for (RT_TASK *t = k->tasks; t; t = t->next_task) {
                uint32_t used = rt_task_stack_used(t);

                if (t == &k->root || t == &k->idle)
                        stacks += used;
                else if (used > task_max)
                        task_max = used;
        }
        /* One line a tool can read: key=value, sizes in bytes. */
        rt_printk("memory text=%u rodata=%u data=%u bss=%u heap_size=%u heap_high_water=%u "
                  "root_idle_stacks_used=%u task_stack_used_max=%u footprint=%u\n",
                  text, rodata, data, bss, (uint32_t) k->heap.size, (uint32_t) k->heap.high_water, stacks,
                  task_max, (uint32_t) (_bss_end - _kernel_start));
}

void bare_main(uint32_t boot_params, uint32_t entry);

void bare_main(uint32_t boot_params, uint32_t entry) {
        static uint8_t heap[HEAP_SIZE] __attribute__((aligned(16)));
        static struct kernel k;
        struct bare_options o = BARE_OPTIONS_DEFAULT;
        char cmdline[BARE_CMDLINE_MAX] = "", bad[32];
        uint32_t ptr;
        int failed = 0, r;

        console_init();
        trap_init();
        ptr = *(const uint32_t *) (uintptr_t) (boot_params + BOOT_PARAMS_CMD_LINE_PTR);
        if (ptr) {
                const char *src = (const char *) (uintptr_t) ptr;
                size_t n = 0;

                while (n < sizeof(cmdline) - 1 && src[n])
                        n++;
                memcpy(cmdline, src, n);
                cmdline[n] = '\0';
        }
        rt_printk("rtf-bare: booted (%s-bit entry) on " ARCH_NAME ", command line \"%s\"\n", entry == 16 ? "16" : "32",
                  cmdline);
        if (cmdline_parse(cmdline, sizeof(cmdline), &o, bad, sizeof(bad)) < 0) {
                rt_printk("rtf-bare: bad option \"%s\"\nrtf-bare: exit status %d\n", bad, BARE_EXIT_USAGE);
                machine_exit(BARE_EXIT_USAGE);
        }
        r = kernel_init(&k, o.clock, heap, sizeof(heap));
        if (r < 0) {
                rt_printk("rtf-bare: no usable timer (%d)\nrtf-bare: exit status %d\n", r, BARE_EXIT_FAIL);
                machine_exit(BARE_EXIT_FAIL);
        }
        rt_printk("clock tsc_hz=%u%06u timer=%s lapic_hz=%u\n", (uint32_t) (k.timer.tsc_hz / 1000000),
                  (uint32_t) (k.timer.tsc_hz % 1000000), k.timer.device == BARE_CLOCK_LAPIC ? "lapic" : "pit",
                  k.timer.lapic_hz);
        irq_enable();
        rt_set_oneshot_mode();
        start_rt_timer(0);

        if (o.tests & BARE_TEST_OVERFLOW)
                fault_overflow_run(&k);
        if (o.tests & BARE_TEST_FPU_MISUSE)
                fault_fpu_run(&k);
        if (o.tests & BARE_TEST_SELF)
                failed += selftest_run(&k, &o);
        if (o.tests & BARE_TEST_LATENCY)
                failed += latency_run(&k, &o);
        memory_report(&k);
        rt_printk("rtf-bare: %d failed\nrtf-bare: exit status %d\n", failed, failed ? BARE_EXIT_FAIL : BARE_EXIT_PASS);
        machine_exit(failed ? BARE_EXIT_FAIL : BARE_EXIT_PASS);
}
