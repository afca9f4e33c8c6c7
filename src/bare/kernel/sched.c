/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The scheduler: fixed priorities, preemptive, one CPU.  Every switch is a
 * return from an interrupt (arch/x86/entry.S): the timer's, or int $0x41
 * when a task blocks.  kernel_trap() charges the CPU time of the task that
 * was running, checks its stack, wakes the tasks whose time has come, picks
 * the first ready task, and sets the timer for the next event: the next
 * wake-up, or the moment the chosen task's budget runs out (one-shot mode),
 * so a budget is enforced to the timer's resolution, not to a tick.
 *
 * Periodic tasks are the state machine of src/shared/task/periodic.c, the
 * code librtf runs on Linux; this file only feeds it time and CPU time.
 */
#include <errno.h>
#include <string.h>

#include "admission/admission.h"
#include "kernel.h"
#include "lib/format.h"

static struct kernel *kernel_instance;

struct kernel *kernel_get(void) {
        return kernel_instance;
}

/*
 * With a periodic timer, time follows the ticks (as in RTAI, where time is
 * counted in ticks): the last tick's place on the grid plus the TSC time
 * since that tick really fired.  Otherwise a calibration error of a few ppm
 * between the timer and the TSC would move every release off its tick, by
 * half a millisecond after the paper's 250,000 periods.
 */
int64_t kernel_now_ns(const struct kernel *k) {
        int64_t tsc_ns = hwtimer_now_ns(&k->timer, rdtsc());

        if (k->periodic_mode && k->timer_running)
                return k->tick_time_ns + (tsc_ns - k->tick_anchor_ns);
        return tsc_ns;
}

void panic(const char *fmt, ...) {
        struct kernel *k = kernel_instance;
        char line[200];
        va_list ap;

        __asm__ volatile("cli");
        va_start(ap, fmt);
        fmt_vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        if (k)
                printk_flush_now(k);            /* what was queued before, then the panic */
        if (k && k->current)
                rt_printk("\nPANIC: task '%s' (priority %d): %s\n", k->current->name, k->current->priority, line);
        else
                rt_printk("\nPANIC: %s\n", line);
        rt_printk("rtf-bare: exit status %d (panic)\n", BARE_EXIT_PANIC);
        machine_exit(BARE_EXIT_PANIC);
}

/* ---- task states and queues ---------------------------------------------- */

static void ready_insert(struct kernel *k, RT_TASK *t) {
        pq_insert(&k->ready, &t->link, t->priority);
}

/* Set a waiting reason: a task that was ready leaves the ready queue. */
static void state_set(struct kernel *k, RT_TASK *t, uint32_t bits) {
        if (t->state == TASK_READY)
                pq_remove(&t->link);
        t->state |= bits;
}

/* Clear one: a task with no reason left joins the ready queue. */
static void state_clear(struct kernel *k, RT_TASK *t, uint32_t bits) {
        if (!(t->state & bits))
                return;
        t->state &= ~bits;
        if (t->state == TASK_READY)
                ready_insert(k, t);
}

static void timed_insert(struct kernel *k, RT_TASK *t, int64_t wake_ns) {
        if (pq_linked(&t->timed))
                pq_remove(&t->timed);
        t->wake_ns = wake_ns;
        pq_insert(&k->timed, &t->timed, wake_ns);
}

static void account(struct kernel *k, int64_t now) {
        if (now > k->run_since_ns)
                k->current->cpu_ns += (uint64_t) (now - k->run_since_ns);
        k->run_since_ns = now;
}

static void stack_check(struct kernel *k, RT_TASK *t, uintptr_t sp) {
        const uint32_t *canary = (const uint32_t *) t->stack;
        uint32_t fill = STACK_FILL * 0x01010101u;

        if (!t->stack)
                return;
        /*
         * Room for one more interrupt frame above the canary: the next one
         * must not land below the stack (on x86-64 a frame is 176 bytes).
         */
        if (sp < (uintptr_t) t->stack + STACK_CANARY_BYTES + sizeof(struct trap_frame) ||
            sp > (uintptr_t) t->stack + t->stack_size)
                panic("stack overflow: sp 0x%x outside its %u-byte stack at %p", (uint32_t) sp, t->stack_size,
                      t->stack);
        for (uint32_t i = 0; i < STACK_CANARY_BYTES / 4; i++)
                if (canary[i] != fill)
                        panic("stack overflow: canary at %p overwritten (%u-byte stack)", t->stack, t->stack_size);
}

/* The window of a budget ended (timer queue): the task may run again, budget replenished. */
static void budget_window_end(struct kernel *k, RT_TASK *t, int64_t now) {
        periodic_budget_resume(&t->core, now, t->cpu_ns);
        state_clear(k, t, TASK_BUDGET);
}

/* Wake every delayed task due at or before `due`. */
static void timed_expire(struct kernel *k, int64_t due, int64_t now) {
        struct pq_node *n;

        while ((n = pq_first(&k->timed)) && n->key <= due) {
                RT_TASK *t = pq_entry(n, RT_TASK, timed);

                pq_remove(n);
                if (t->state & TASK_BUDGET) {
                        t->state &= ~TASK_DELAYED;
                        budget_window_end(k, t, now);
                } else if (t->state & (TASK_SEMAPHORE | TASK_MBX)) {
                        t->state &= ~TASK_DELAYED;
                        kernel_wait_cancel(k, t, RTE_TIMOUT);
                } else {
                        state_clear(k, t, TASK_DELAYED);
                }
        }
}

/*
 * The first ready task, after taking out those whose budget is used up
 * (suspended until their window ends, in the timer queue).
 */
static RT_TASK *pick(struct kernel *k, int64_t now) {
        for (;;) {
                RT_TASK *t = pq_entry(pq_first(&k->ready), RT_TASK, link);
                struct periodic_budget b;

                t->budget_deadline_ns = INT64_MAX;
                if (!t->periodic || t->core.budget_ns == 0)
                        return t;
                periodic_budget_check(&t->core, now, t->cpu_ns, &b);
                if (!b.exhausted) {
                        t->budget_deadline_ns = now + (int64_t) b.left_ns;
                        return t;
                }
                /* How far past its budget the task got: the timer's and this path's latency. */
                uint64_t used = t->cpu_ns - t->core.window_cpu_ns;
                if (used > t->core.budget_ns && used - t->core.budget_ns > t->budget_overshoot_max_ns)
                        t->budget_overshoot_max_ns = used - t->core.budget_ns;
                state_set(k, t, TASK_BUDGET | TASK_DELAYED);
                timed_insert(k, t, b.window_end_ns);
        }
}

static void timer_program(struct kernel *k, RT_TASK *next, int64_t now) {
        struct pq_node *first = pq_first(&k->timed);
        int64_t event = first ? first->key : INT64_MAX;

        if (!k->timer_running || k->periodic_mode)
                return;
        if (next->budget_deadline_ns < event)
                event = next->budget_deadline_ns;
        if (event == k->armed_ns)
                return;
        k->armed_ns = event;
        if (event == INT64_MAX)
                hwtimer_stop(&k->timer);
        else
                hwtimer_oneshot(&k->timer, event > now ? (uint64_t) (event - now) : 0);
}

uintptr_t kernel_trap(struct kernel *k, struct trap_frame *f) {
        int64_t now = kernel_now_ns(k);
        RT_TASK *cur = k->current, *next;

        account(k, now);
        cur->sp = (uintptr_t) f;
        if (!(cur->state & TASK_DELETED))
                stack_check(k, cur, cur->sp);
        /* The RT_TASK may be reused already: what matters is that we are off its stack. */
        if (k->zombie_stack && (cur->sp < (uintptr_t) k->zombie_stack ||
                                cur->sp >= (uintptr_t) k->zombie_stack + k->zombie_stack_size)) {
                heap_free(&k->heap, k->zombie_stack);
                k->zombie_stack = NULL;
        }
        if (f->vector == VECTOR_LAPIC_TIMER || f->vector == VECTOR_PIT) {
                hwtimer_eoi(&k->timer);
                k->timer_interrupts++;
                k->armed_ns = INT64_MAX;
                if (k->periodic_mode && k->timer_running) {
                        /* One tick further on the grid; anchored where the hardware tick really was. */
                        int64_t tsc_ns = hwtimer_now_ns(&k->timer, rdtsc());

                        k->tick_time_ns += k->tick_ns;
                        k->tick_anchor_ns = tsc_ns - (int64_t) hwtimer_since_tick_ns(&k->timer);
                        now = kernel_now_ns(k);
                        timed_expire(k, k->tick_time_ns, now);
                } else if (k->timer_running) {
                        timed_expire(k, now, now);
                }
        }
        next = pick(k, now);
        if (next != cur) {
                arch_fpu_switch(cur->fpu, cur->uses_fpu, next->fpu, next->uses_fpu);
                k->current = next;
                k->switches++;
                next->switches_in++;
        }
        timer_program(k, next, now);
        return next->sp;
}

/* ---- used by ipc.c -------------------------------------------------------- */

int kernel_block(struct kernel *k, struct pq_node *queue, uint32_t why, int64_t timeout_ns) {
        RT_TASK *t = k->current;

        if (t == &k->idle)
                panic("the idle task may not block");
        t->wait_result = 0;
        state_set(k, t, why);
        pq_insert(queue, &t->link, t->priority);
        t->wait_queue = queue;
        if (timeout_ns != INT64_MAX) {
                t->state |= TASK_DELAYED;
                timed_insert(k, t, timeout_ns);
        }
        cpu_yield();
        return t->wait_result;
}

void kernel_wake(struct kernel *k, RT_TASK *t, uint32_t why, int result) {
        pq_remove(&t->link);
        t->wait_queue = NULL;
        t->wait_result = result;
        if (pq_linked(&t->timed)) {
                pq_remove(&t->timed);
                t->state &= ~TASK_DELAYED;
        }
        state_clear(k, t, why);
}

void kernel_wait_cancel(struct kernel *k, RT_TASK *t, int result) {
        kernel_wake(k, t, t->state & (TASK_SEMAPHORE | TASK_MBX), result);
}

/* A task of higher priority than the running one became ready: switch now. */
void kernel_resched(struct kernel *k) {
        if (pq_first(&k->ready) != &k->current->link)
                cpu_yield();
}

/* ---- tasks ------------------------------------------------------------- */

static void task_exit(void) {
        rt_task_delete(rt_whoami());
        panic("a deleted task ran on");
}

static void task_link(struct kernel *k, RT_TASK *t) {
        t->next_task = k->tasks;
        k->tasks = t;
        k->task_count++;
}

static void task_unlink(struct kernel *k, RT_TASK *t) {
        for (RT_TASK **p = &k->tasks; *p; p = &(*p)->next_task)
                if (*p == t) {
                        *p = t->next_task;
                        k->task_count--;
                        return;
                }
}

static void task_setup(struct kernel *k, RT_TASK *t, const char *name, int priority, bool fpu) {
        *t = (RT_TASK) { .magic = TASK_MAGIC, .priority = priority, .uses_fpu = fpu,
                         .budget_deadline_ns = INT64_MAX };
        pq_node_init(&t->link);
        pq_node_init(&t->timed);
        fmt_snprintf(t->name, sizeof(t->name), "%s", name);
        memcpy(t->fpu, k->fpu_init, sizeof(t->fpu));
}

static bool task_valid(const RT_TASK *t) {
        return t && t->magic == TASK_MAGIC && !(t->state & TASK_DELETED);
}

int rt_task_init(RT_TASK *task, void (*rt_thread)(long), long data, int stack_size, int priority,
                 int uses_fpu, void (*signal)(void)) {
        struct kernel *k = kernel_instance;
        uint32_t flags, size;
        uint8_t *stack;

        if (!task || !rt_thread || priority < 0 || priority > RT_SCHED_LOWEST_PRIORITY ||
            stack_size < RT_TASK_STACK_MIN || stack_size > (1 << 20))
                return -EINVAL;
        size = ((uint32_t) stack_size + 15u) & ~15u;
        flags = irq_save();
        stack = heap_alloc(&k->heap, size);
        irq_restore(flags);
        if (!stack)
                return -ENOMEM;
        task_setup(k, task, "", priority, uses_fpu);
        fmt_snprintf(task->name, sizeof(task->name), "task%u", k->task_count);
        task->stack = stack;
        task->stack_size = size;
        task->stack_owned = true;
        task->entry = rt_thread;
        task->data = data;
        task->signal = signal;
        memset(stack, STACK_FILL, size);

        /* The first switch "returns" into rt_thread(data); its return goes to task_exit. */
        task->sp = arch_frame_init(stack + size, rt_thread, data, task_exit);

        flags = irq_save();
        task->state = TASK_SUSPENDED;   /* RTAI: created suspended */
        task->suspend_depth = 1;
        task_link(k, task);
        irq_restore(flags);
        return 0;
}

int rt_task_set_name(RT_TASK *task, const char *name) {
        if (!task_valid(task) || !name)
                return -EINVAL;
        fmt_snprintf(task->name, sizeof(task->name), "%s", name);
        return 0;
}

RT_TASK *rt_whoami(void) {
        return kernel_instance->current;
}

int rt_task_suspend(RT_TASK *task) {
        struct kernel *k = kernel_instance;
        uint32_t flags;

        if (!task)
                task = k->current;
        if (!task_valid(task) || task == &k->idle)
                return -EINVAL;
        flags = irq_save();
        task->suspend_depth++;
        state_set(k, task, TASK_SUSPENDED);
        if (task == k->current)
                cpu_yield();
        irq_restore(flags);
        return 0;
}

int rt_task_resume(RT_TASK *task) {
        struct kernel *k = kernel_instance;
        uint32_t flags;

        if (!task_valid(task))
                return -EINVAL;
        flags = irq_save();
        if (task->suspend_depth > 0 && --task->suspend_depth == 0)
                state_clear(k, task, TASK_SUSPENDED);
        kernel_resched(k);
        irq_restore(flags);
        return 0;
}

int rt_task_delete(RT_TASK *task) {
        struct kernel *k = kernel_instance;
        uint32_t flags;
        uint32_t used;

        if (!task_valid(task) || task == &k->idle || task == &k->root)
                return -EINVAL;
        used = rt_task_stack_used(task);        /* before interrupts go off: it scans the stack */
        flags = irq_save();
        if (used > k->stack_used_max)
                k->stack_used_max = used;
        if (pq_linked(&task->link))
                pq_remove(&task->link);         /* ready queue or a wait queue */
        if (pq_linked(&task->timed))
                pq_remove(&task->timed);
        task->state = TASK_DELETED;
        task->magic = 0;
        task_unlink(k, task);
        if (task == k->current) {
                if (task->stack_owned) {
                        k->zombie_stack = task->stack;  /* freed once off it */
                        k->zombie_stack_size = task->stack_size;
                }
                cpu_yield();
                panic("deleted task resumed");
        }
        if (task->stack_owned)
                heap_free(&k->heap, task->stack);
        irq_restore(flags);
        return 0;
}

int rt_task_yield(void) {
        struct kernel *k = kernel_instance;
        RT_TASK *t = k->current;
        uint32_t flags = irq_save();

        /* Behind the others of its priority. */
        if (t->state == TASK_READY) {
                pq_remove(&t->link);
                ready_insert(k, t);
        }
        cpu_yield();
        irq_restore(flags);
        return 0;
}

int rt_change_prio(RT_TASK *task, int priority) {
        struct kernel *k = kernel_instance;
        uint32_t flags;
        int old;

        if (!task_valid(task) || priority < 0 || priority > RT_SCHED_LOWEST_PRIORITY)
                return -EINVAL;
        flags = irq_save();
        old = task->priority;
        task->priority = priority;
        if (task->state == TASK_READY) {
                pq_remove(&task->link);
                ready_insert(k, task);
        } else if (task->wait_queue && pq_linked(&task->link)) {
                /* Waiters queue by priority too. */
                pq_remove(&task->link);
                pq_insert(task->wait_queue, &task->link, priority);
        }
        kernel_resched(k);
        irq_restore(flags);
        return old;
}

/* ---- time ----------------------------------------------------------------- */

RTIME rt_get_time(void) {
        return nano2count(kernel_now_ns(kernel_instance));
}

RTIME rt_get_time_ns(void) {
        return kernel_now_ns(kernel_instance);
}

RTIME count2nano(RTIME counts) {
        const struct hwtimer *t = &kernel_instance->timer;

        return counts < 0 ? -(RTIME) scale_apply((uint64_t) -counts, t->cyc_to_ns)
                          : (RTIME) scale_apply((uint64_t) counts, t->cyc_to_ns);
}

RTIME nano2count(RTIME ns) {
        const struct hwtimer *t = &kernel_instance->timer;

        return ns < 0 ? -(RTIME) scale_apply((uint64_t) -ns, t->ns_to_cyc)
                      : (RTIME) scale_apply((uint64_t) ns, t->ns_to_cyc);
}

/* Periodic mode: times lie on the tick grid; round up to it. */
static int64_t tick_align(const struct kernel *k, int64_t ns) {
        int64_t off;

        if (!k->periodic_mode || !k->timer_running || ns <= k->tick_time_ns)
                return ns;
        off = ns - k->tick_time_ns;
        return k->tick_time_ns + (int64_t) (((uint64_t) off + (uint64_t) k->tick_ns - 1) / (uint64_t) k->tick_ns) *
                                     k->tick_ns;
}

static int sleep_until_ns(struct kernel *k, int64_t wake) {
        RT_TASK *t = k->current;
        uint32_t flags;

        if (t == &k->idle)
                return -EINVAL;
        flags = irq_save();
        wake = tick_align(k, wake);
        if (wake > kernel_now_ns(k)) {
                state_set(k, t, TASK_DELAYED);
                timed_insert(k, t, wake);
                cpu_yield();
        }
        irq_restore(flags);
        return 0;
}

int rt_sleep(RTIME delay) {
        struct kernel *k = kernel_instance;

        return sleep_until_ns(k, kernel_now_ns(k) + count2nano(delay > 0 ? delay : 0));
}

int rt_sleep_until(RTIME time) {
        return sleep_until_ns(kernel_instance, count2nano(time));
}

void rt_set_oneshot_mode(void) {
        struct kernel *k = kernel_instance;

        if (!k->timer_running)
                k->periodic_mode = false;
}

void rt_set_periodic_mode(void) {
        struct kernel *k = kernel_instance;

        if (!k->timer_running)
                k->periodic_mode = true;
}

RTIME start_rt_timer(int period) {
        struct kernel *k = kernel_instance;
        uint32_t flags = irq_save();
        RTIME r = 0;

        if (k->timer_running)
                hwtimer_stop(&k->timer);
        k->timer_running = true;
        k->armed_ns = INT64_MAX;
        if (k->periodic_mode) {
                int64_t ns = count2nano(period > 0 ? period : nano2count(1000000));

                k->tick_time_ns = hwtimer_now_ns(&k->timer, rdtsc());
                k->tick_anchor_ns = k->tick_time_ns;
                k->tick_ns = (int64_t) hwtimer_periodic(&k->timer, (uint64_t) ns);
                r = nano2count(k->tick_ns);
        }
        timer_program(k, k->current, kernel_now_ns(k));
        irq_restore(flags);
        return r;
}

void stop_rt_timer(void) {
        struct kernel *k = kernel_instance;
        uint32_t flags = irq_save();

        hwtimer_stop(&k->timer);
        k->timer_running = false;
        k->armed_ns = INT64_MAX;
        irq_restore(flags);
}

/* ---- periodic tasks (src/shared/task/periodic.c) ------------------------- */

/*
 * A task with a budget is a reservation: the timer stops it at its budget,
 * so the budget is a bound of its execution time and rtf's fixed-priority
 * response-time analysis (src/shared/admission/, the code of rtfd's FP
 * plugins) proves the set schedulable or refuses the newcomer (-EBUSY, as
 * librtf does).  Tasks without a budget are admitted as RTAI does.  Runs
 * with interrupts off: a setup-time call, bounded by ADMISSION_STEPS.
 */
#define ADMISSION_STEPS 20000u

static int admission_test(struct kernel *k, const RT_TASK *task, int64_t period_ns, int64_t budget_ns) {
        struct adm_fp_task *set = k->admission_set;
        uint64_t steps = ADMISSION_STEPS;
        size_t n = 0, failed;
        int r;

        if (budget_ns == 0)
                return 0;
        for (const RT_TASK *t = k->tasks; t; t = t->next_task) {
                bool self = t == task;

                if (!self && (!t->periodic || t->core.budget_ns == 0))
                        continue;
                if (n == BARE_ADMISSION_MAX)
                        return -ENOSPC;
                set[n++] = (struct adm_fp_task) {
                        /* budget rounded up, period down: never more optimistic than the truth */
                        .runtime_us = ((self ? (uint64_t) budget_ns : t->core.budget_ns) + 999) / 1000,
                        .period_us = (self ? (uint64_t) period_ns : t->core.period_ns) / 1000,
                        .priority = (uint32_t) (RT_SCHED_LOWEST_PRIORITY - t->priority),
                };
                set[n - 1].deadline_us = set[n - 1].period_us;
                if (set[n - 1].period_us == 0 || set[n - 1].runtime_us > set[n - 1].period_us)
                        return -EBUSY;
        }
        r = adm_fp_rta(set, n, UINT32_MAX, &steps, &failed);
        return r == ADM_ADMIT ? 0 : r < 0 ? r : -EBUSY;
}

int rt_task_make_periodic_budget(RT_TASK *task, RTIME start_time, RTIME period, RTIME budget) {
        struct kernel *k = kernel_instance;
        int64_t start_ns, period_ns, budget_ns, now;
        uint32_t flags;
        int r;

        if (!task_valid(task) || task == &k->idle || period <= 0 || budget < 0 || budget > period)
                return -EINVAL;
        start_ns = count2nano(start_time);
        period_ns = count2nano(period);
        budget_ns = count2nano(budget);
        flags = irq_save();
        now = kernel_now_ns(k);
        if (task == k->current)
                account(k, now);
        if (k->periodic_mode && k->timer_running) {
                /* RTAI: a periodic timer makes every period a whole number of ticks. */
                int64_t ticks = (period_ns + k->tick_ns / 2) / k->tick_ns;

                period_ns = (ticks > 0 ? ticks : 1) * k->tick_ns;
                if (budget_ns > period_ns)
                        budget_ns = period_ns;
                start_ns = tick_align(k, start_ns > now ? start_ns : now);
        }
        if (start_ns < now)
                start_ns = now;
        r = admission_test(k, task, period_ns, budget_ns);
        if (r < 0) {
                irq_restore(flags);
                return r;
        }
        r = periodic_init(&task->core, (uint64_t) period_ns, (uint64_t) budget_ns, PERIODIC_CATCH_UP,
                          start_ns + period_ns, now, task->cpu_ns);
        if (r < 0) {
                irq_restore(flags);
                return r;
        }
        task->periodic = true;
        task->suspend_depth = 0;
        if (start_ns > now) {
                /* Released at start_time, as RTAI does, even when the task makes itself periodic. */
                state_set(k, task, TASK_DELAYED);
                task->state &= ~TASK_SUSPENDED;
                timed_insert(k, task, start_ns);
        } else {
                state_clear(k, task, TASK_SUSPENDED);
        }
        if (task == k->current) {
                cpu_yield();
                periodic_job_begin(&task->core, kernel_now_ns(k), task->cpu_ns);
        } else {
                kernel_resched(k);
        }
        irq_restore(flags);
        return 0;
}

int rt_task_make_periodic(RT_TASK *task, RTIME start_time, RTIME period) {
        return rt_task_make_periodic_budget(task, start_time, period, 0);
}

int rt_task_make_periodic_relative_ns(RT_TASK *task, RTIME start_delay, RTIME period) {
        if (start_delay < 0)
                return -EINVAL;
        return rt_task_make_periodic(task, rt_get_time() + nano2count(start_delay), nano2count(period));
}

int rt_task_wait_period(void) {
        struct kernel *k = kernel_instance;
        RT_TASK *t = k->current;
        struct periodic_wait w;
        uint32_t flags;
        int64_t now;
        int r;

        if (!t->periodic)
                return RTE_OBJINV;
        flags = irq_save();
        now = kernel_now_ns(k);
        account(k, now);
        r = periodic_job_end(&t->core, now, t->cpu_ns, &w);
        if (r < 0) {
                irq_restore(flags);
                return r;
        }
        if (w.sleep) {
                state_set(k, t, TASK_DELAYED);
                timed_insert(k, t, w.wake_ns);
                cpu_yield();
                now = kernel_now_ns(k);
                account(k, now);
                periodic_job_begin(&t->core, now, t->cpu_ns);
        }
        irq_restore(flags);
        return !w.ignored && w.missed > 0 ? RTE_TMROVRN : 0;
}

int rt_task_stats(const RT_TASK *task, struct periodic_stats *ret) {
        if (!task_valid(task) || !ret)
                return -EINVAL;
        *ret = task->core.stats;
        return 0;
}

RTIME rt_task_budget_overshoot_ns(const RT_TASK *task) {
        return task_valid(task) ? (RTIME) task->budget_overshoot_max_ns : -EINVAL;
}

RTIME rt_task_release_ns(const RT_TASK *task) {
        return task_valid(task) && task->periodic ? task->core.job_release_ns : -EINVAL;
}

RTIME rt_task_cpu_time_ns(const RT_TASK *task) {
        struct kernel *k = kernel_instance;
        uint32_t flags;
        RTIME r;

        if (!task_valid(task))
                return -EINVAL;
        flags = irq_save();
        if (task == k->current)
                account(k, kernel_now_ns(k));
        r = (RTIME) task->cpu_ns;
        irq_restore(flags);
        return r;
}

uint32_t rt_task_stack_used(const RT_TASK *task) {
        uint32_t i = 0;

        if (!task || !task->stack)
                return 0;
        while (i < task->stack_size && task->stack[i] == STACK_FILL)
                i++;
        return task->stack_size - i;
}

/* ---- boot ----------------------------------------------------------------- */

static void idle_loop(long unused) {
        for (;;)
                cpu_halt();
}

int kernel_init(struct kernel *k, enum bare_clock clock, void *heap_mem, uint32_t heap_size) {
        static uint8_t idle_stack[RT_TASK_STACK_MIN] __attribute__((aligned(16)));
        extern uint8_t boot_stack_bottom[];
        int r;

        *k = (struct kernel) { .armed_ns = INT64_MAX };
        pq_init(&k->ready);
        pq_init(&k->timed);
        r = heap_init(&k->heap, heap_mem, heap_size);
        if (r < 0)
                return r;
        r = hwtimer_init(&k->timer, clock);
        if (r < 0)
                return r;

        arch_fpu_init(k->fpu_init);

        task_setup(k, &k->root, "root", RT_SCHED_LINUX_PRIORITY, false);
        k->root.stack = boot_stack_bottom;
        k->root.stack_size = 4096;
        /* The boot stack below what is in use gets the fill, for the canary and the high-water mark. */
        memset(boot_stack_bottom, STACK_FILL, stack_pointer() - (uintptr_t) boot_stack_bottom - 256);
        pq_insert(&k->ready, &k->root.link, PRIORITY_ROOT);
        task_link(k, &k->root);

        task_setup(k, &k->idle, "idle", RT_SCHED_LINUX_PRIORITY, false);
        k->idle.stack = idle_stack;
        k->idle.stack_size = sizeof(idle_stack);
        memset(idle_stack, STACK_FILL, sizeof(idle_stack));
        k->idle.sp = arch_frame_init(idle_stack + sizeof(idle_stack), idle_loop, 0, NULL);
        pq_insert(&k->ready, &k->idle.link, PRIORITY_IDLE);
        task_link(k, &k->idle);

        k->current = &k->root;
        k->run_since_ns = kernel_now_ns(k);
        kernel_instance = k;
        return 0;
}
