/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's one context object.  The RTAI API takes no context argument
 * and an interrupt brings none, so exactly one pointer to it exists
 * (kernel_get()), set once at boot; everything below it takes it explicitly.
 */
#pragma once

#include <stdint.h>

#include "admission/admission.h"
/* The architecture's arch.h (arch/x86/ or arch/x86_64/: the image's include path picks it). */
#include "arch.h"
#include "lib/heap.h"
#include "rtai_sched.h"

#define TASK_MAGIC 0x7254736bu          /* "rTsk" */
#define TASK_READY 0u
#define TASK_SUSPENDED (1u << 0)
#define TASK_DELAYED (1u << 1)          /* in the timer queue */
#define TASK_SEMAPHORE (1u << 2)        /* waiting on a semaphore */
#define TASK_MBX (1u << 3)              /* waiting on a mailbox */
#define TASK_BUDGET (1u << 4)           /* budget used up, until its window ends */
#define TASK_DELETED (1u << 5)

#define PRIORITY_ROOT ((int64_t) RT_SCHED_LINUX_PRIORITY)
#define PRIORITY_IDLE ((int64_t) RT_SCHED_LINUX_PRIORITY + 1)

#define BARE_ADMISSION_MAX 32u           /* tasks with a budget */
#define PRINTK_RING 1024u               /* bytes of rt_printk output not yet on the wire */
#define STACK_FILL 0xa5u
#define STACK_CANARY_BYTES 32u

enum bare_exit {
        BARE_EXIT_PASS = 0,
        BARE_EXIT_FAIL = 1,
        BARE_EXIT_PANIC = 2,
        BARE_EXIT_USAGE = 3,
};

struct kernel {
        struct hwtimer timer;
        struct heap heap;
        struct pq_node ready;           /* runnable tasks, the running one first */
        struct pq_node timed;           /* delayed tasks by wake-up time */
        RT_TASK *current;
        RT_TASK *tasks;                 /* every task, for reports */
        uint8_t *zombie_stack;          /* of a task that deleted itself: freed at the next trap */
        uint32_t zombie_stack_size;
        RT_TASK root;                   /* bare_main, on the boot stack */
        RT_TASK idle;
        int64_t run_since_ns;           /* when current started running */
        int64_t armed_ns;               /* one-shot: the event the timer is set for */
        bool periodic_mode;             /* rt_set_periodic_mode() */
        bool timer_running;             /* start_rt_timer() .. stop_rt_timer() */
        int64_t tick_ns;                /* periodic: the tick */
        int64_t tick_time_ns;           /* periodic: when the last tick was due, on the grid */
        int64_t tick_anchor_ns;         /* periodic: TSC time of that tick */
        uint32_t task_count;
        uint64_t timer_interrupts, switches;
        uint32_t stack_used_max;        /* the deepest stack of a deleted task */
        struct adm_fp_task admission_set[BARE_ADMISSION_MAX];
        struct {
                char buf[PRINTK_RING];
                uint32_t head, count;
        } printk;
        uint8_t fpu_init[ARCH_FPU_BYTES] __attribute__((aligned(16)));
};

struct kernel *kernel_get(void);
int kernel_init(struct kernel *k, enum bare_clock clock, void *heap_mem, uint32_t heap_size);
uintptr_t kernel_trap(struct kernel *k, struct trap_frame *f);
int64_t kernel_now_ns(const struct kernel *k);
/* Write out what rt_printk queued, with interrupts off (panic, exit). */
void printk_flush_now(struct kernel *k);
/* Print the reason, the current task, and stop the machine (status BARE_EXIT_PANIC). */
__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt, ...);

/* ipc.c: a waiter leaves its queue (timeout, deletion). */
void kernel_wait_cancel(struct kernel *k, RT_TASK *t, int result);
/* sched.c, for ipc.c: block the current task on a queue (interrupts off); returns its wait_result. */
int kernel_block(struct kernel *k, struct pq_node *queue, uint32_t why, int64_t timeout_ns);
void kernel_wake(struct kernel *k, RT_TASK *t, uint32_t why, int result);
void kernel_resched(struct kernel *k);
