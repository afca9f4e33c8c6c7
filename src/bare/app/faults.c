/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Two faults an embedded engineer wants caught and named: a stack overflow, an undeclared FPU user. */
#include "app.h"

/* Each level leaves 256 bytes on the stack and passes through the scheduler, which checks the stack. */
__attribute__((noinline)) static uint32_t recurse(uint32_t depth) {
        volatile uint8_t frame[256];
        uint32_t r;

        for (uint32_t i = 0; i < sizeof(frame); i++)
                frame[i] = (uint8_t) (depth + i);
        rt_task_yield();
        if (depth > 100000)
                return 0;
        r = recurse(depth + 1);
        /* The frame is read after the call: the compiler cannot turn this into a loop. */
        frame[1] = (uint8_t) r;
        return frame[0] + frame[1];
}

static void overflow_task(long data) {
        recurse((uint32_t) data);
}

void fault_overflow_run(struct kernel *k) {
        static RT_TASK t;

        rt_printk("# fault: a task recursing without bound on a 2 KiB stack\n");
        rt_task_init(&t, overflow_task, 0, 2048, 10, 0, 0);
        rt_task_set_name(&t, "deep");
        rt_task_resume(&t);
        rt_printk("not ok - the overflow was not detected\n");
}

void fault_fpu_run(struct kernel *k) {
        static RT_TASK t;

        rt_printk("# fault: a task using the FPU, created with uses_fpu = 0\n");
        rt_task_init(&t, fpu_task_body, 3, 2048, 10, 0, 0);
        rt_task_set_name(&t, "nofpu");
        rt_task_resume(&t);
        rt_printk("not ok - the FPU use was not detected\n");
}
