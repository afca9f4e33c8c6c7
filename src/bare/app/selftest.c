/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The self-test: the semantics of the task API, checked by counting (never
 * by absolute time, which depends on the machine): periodic releases,
 * overruns, a budget exhausted and the ignored wait call, suspend/resume, a
 * task deleting another, semaphores, a mailbox, FPU contexts, both timer
 * modes.  Each part runs its tasks and waits for them on a semaphore.
 */
#include <errno.h>
#include <string.h>

#include "app.h"
#include "rtai_mbx.h"
#include "rtai_sem.h"

#define US 1000LL
#define MS 1000000LL

struct ctx {
        SEM done;
        RT_TASK a, b, c;
        volatile uint32_t count_a, count_b, count_c;
        volatile int result[64];
        struct periodic_stats stats, budget_stats;
        MBX mbx;
        SEM sem;
        volatile uint32_t order[4], order_n;
};

/* Burn `ns` of the calling task's own CPU time (preemption does not count). */
static void burn_cpu_ns(int64_t ns) {
        RT_TASK *me = rt_whoami();
        RTIME c0 = rt_task_cpu_time_ns(me);

        /*
         * Reading the CPU time blocks interrupts for a moment; mostly loop with
         * them on, or QEMU (which looks for interrupts between blocks of
         * translated code) would deliver the timer late.
         */
        while (rt_task_cpu_time_ns(me) - c0 < ns)
                for (volatile int i = 0; i < 50; i++)
                        ;
}

/* ---- periodic releases and overruns ---- */

static void periodic_body(long data) {
        struct ctx *c = (struct ctx *) data;

        for (int i = 0; i < 20; i++) {
                if (i == 5)
                        burn_cpu_ns(2500 * US);        /* job 5 runs into the releases of jobs 6-8 */
                c->result[i] = rt_task_wait_period();
                c->count_a++;
        }
        rt_task_stats(&c->a, &c->stats);
        rt_sem_signal(&c->done);
}

static int part_periodic(struct ctx *c) {
        int failed = 0, overruns = 0;

        rt_task_init(&c->a, periodic_body, (long) c, 2048, 5, 0, 0);
        rt_task_set_name(&c->a, "periodic");
        rt_task_make_periodic_relative_ns(&c->a, 1 * MS, 1 * MS);
        rt_sem_wait(&c->done);
        for (int i = 0; i < 20; i++)
                overruns += c->result[i] == RTE_TMROVRN;
        rt_printk("# periodic: jobs %u, overruns %u, missed %u, wait_period returned RTE_TMROVRN %d times\n",
                  (uint32_t) c->stats.periods, (uint32_t) c->stats.overruns, (uint32_t) c->stats.missed, overruns);
        failed += check(c->count_a == 20 && c->stats.periods == 20, "periodic: 20 releases, 20 jobs");
        failed += check(c->result[0] == 0 && c->result[4] == 0 && c->result[19] == 0, "periodic: on-time jobs wait");
        failed += check(c->result[5] == RTE_TMROVRN && overruns >= 2,
                        "periodic: a 2.5-period job overruns, the late releases run back to back (RTE_TMROVRN)");
        failed += check(c->stats.overruns >= 2 && c->stats.overruns <= 3, "periodic: overruns counted");
        failed += check(rt_task_resume(&c->a) == -EINVAL, "delete: a task ended by returning is gone");
        return failed;
}

/* ---- budget (the RTAI budget paper, section 3.2) ---- */

static void budget_body(long data) {
        struct ctx *c = (struct ctx *) data;

        for (int i = 0; i < 10; i++) {
                burn_cpu_ns(500 * US);                 /* wants 500 us, is granted 300 per period */
                c->result[i] = rt_task_wait_period();
                c->count_a++;
        }
        rt_task_stats(&c->a, &c->budget_stats);
        c->result[20] = (int) (rt_task_cpu_time_ns(&c->a) / US);
        c->result[21] = (int) rt_task_budget_overshoot_ns(&c->a);
        rt_sem_signal(&c->done);
}

static int part_budget(struct ctx *c) {
        int failed = 0;
        RTIME t0 = rt_get_time_ns(), elapsed;

        rt_task_init(&c->a, budget_body, (long) c, 2048, 5, 0, 0);
        rt_task_set_name(&c->a, "budget");
        rt_task_make_periodic_budget(&c->a, rt_get_time() + nano2count(1 * MS), nano2count(1 * MS),
                                     nano2count(300 * US));
        rt_sem_wait(&c->done);
        elapsed = rt_get_time_ns() - t0;
        rt_printk("# budget: jobs %u, exhaustions %u, ignored waits %u, cpu %d us in %d us, "
                  "at most %d ns past the budget\n",
                  (uint32_t) c->budget_stats.periods, (uint32_t) c->budget_stats.exhaustions,
                  (uint32_t) c->budget_stats.ignored_waits, c->result[20], (int) (elapsed / US), c->result[21]);
        failed += check(c->budget_stats.exhaustions >= 10, "budget: exhausted in every period");
        failed += check(c->budget_stats.ignored_waits >= 5, "budget: the wait calls of exhausted periods are ignored");
        /* 10 jobs of 500 us at 300 us per 1 ms window need about 17 windows. */
        failed += check(elapsed >= 15 * MS, "budget: the task got no more than its budget per period");
        /* The timer stops the task at its budget: past it by the interrupt path only (< 5 %). */
        failed += check(c->result[21] >= 0 && c->result[21] < 300 * US / 20, "budget: enforced by the timer, exactly");
        failed += check((int64_t) c->result[20] * US <= (elapsed / MS + 1) * 300 * US + 50 * US,
                        "budget: CPU time <= budget x windows");
        return failed;
}

/* ---- suspend, resume, delete ---- */

static void counter_body(long data) {
        volatile uint32_t *n = (volatile uint32_t *) data;

        for (;;) {
                (*n)++;
                rt_sleep(nano2count(100 * US));
        }
}

static void deleter_body(long data) {
        struct ctx *c = (struct ctx *) data;

        rt_sleep(nano2count(2 * MS));
        c->result[0] = rt_task_delete(&c->b);
        rt_sem_signal(&c->done);
}

static int part_tasks(struct ctx *c) {
        uint32_t n1, n2, n3;
        size_t heap_before;
        int failed = 0;

        rt_sleep(nano2count(100 * US));         /* a task that ended is freed at the next switch */
        heap_before = kernel_get()->heap.used;

        rt_task_init(&c->b, counter_body, (long) &c->count_b, 2048, 20, 0, 0);
        rt_task_set_name(&c->b, "counter");
        failed += check(rt_task_resume(&c->b) == 0, "resume: starts a new (suspended) task");
        rt_sleep(nano2count(1 * MS));
        n1 = c->count_b;
        rt_task_suspend(&c->b);
        n2 = c->count_b;
        rt_sleep(nano2count(1 * MS));
        n3 = c->count_b;
        failed += check(n1 >= 5 && n3 == n2, "suspend: a suspended task does not run");
        rt_task_resume(&c->b);
        rt_sleep(nano2count(1 * MS));
        failed += check(c->count_b > n3, "resume: it runs again");

        rt_task_init(&c->c, deleter_body, (long) c, 2048, 10, 0, 0);
        rt_task_set_name(&c->c, "deleter");
        rt_task_resume(&c->c);
        rt_sem_wait(&c->done);
        n1 = c->count_b;
        rt_sleep(nano2count(1 * MS));
        failed += check(c->result[0] == 0 && c->count_b == n1, "delete: a task deletes another, which stops");
        failed += check(rt_task_suspend(&c->b) == -EINVAL, "delete: the deleted task is invalid");
        rt_sleep(nano2count(1 * MS));           /* the deleter ended: its stack is freed at the next switch */
        failed += check(kernel_get()->heap.used == heap_before, "delete: both stacks returned to the heap");
        return failed;
}

/* ---- semaphores and a mailbox ---- */

static void sem_waiter(long data) {
        struct ctx *c = (struct ctx *) data;
        RT_TASK *me = rt_whoami();

        if (rt_sem_wait(&c->sem) >= 0)
                c->order[c->order_n++] = me == &c->a ? 1 : 2;
        rt_sem_signal(&c->done);
}

static void mbx_sender(long data) {
        struct ctx *c = (struct ctx *) data;
        uint8_t msg[12];

        for (int i = 0; i < 100; i++) {
                for (int j = 0; j < 12; j++)
                        msg[j] = (uint8_t) (i * 7 + j);
                c->result[0] += rt_mbx_send(&c->mbx, msg, sizeof(msg));
        }
}

static void mbx_receiver(long data) {
        struct ctx *c = (struct ctx *) data;
        uint8_t msg[12];
        uint32_t good = 0;

        for (int i = 0; i < 100; i++) {
                c->result[1] += rt_mbx_receive(&c->mbx, msg, sizeof(msg));
                bool ok = true;
                for (int j = 0; j < 12; j++)
                        ok &= msg[j] == (uint8_t) (i * 7 + j);
                good += ok;
        }
        c->count_c = good;
        rt_sem_signal(&c->done);
}

static int part_ipc(struct ctx *c) {
        int failed = 0, r;
        RTIME t0;

        rt_sem_init(&c->sem, 0);
        failed += check(rt_sem_wait_if(&c->sem) == -EAGAIN, "semaphore: wait_if on 0 does not block");
        t0 = rt_get_time_ns();
        r = rt_sem_wait_timed(&c->sem, nano2count(500 * US));
        failed += check(r == RTE_TIMOUT && rt_get_time_ns() - t0 >= 500 * US, "semaphore: a timed wait times out");
        /* Two waiters: the later, higher-priority one is served first. */
        c->order_n = 0;
        rt_task_init(&c->a, sem_waiter, (long) c, 2048, 30, 0, 0);
        rt_task_init(&c->b, sem_waiter, (long) c, 2048, 20, 0, 0);
        rt_task_resume(&c->a);
        rt_task_resume(&c->b);
        failed += check(rt_sem_signal(&c->sem) == 0, "semaphore: a signal goes to a waiter, the count stays 0");
        rt_sem_wait(&c->done);
        failed += check(c->order_n == 1 && c->order[0] == 2, "semaphore: the higher-priority waiter first");
        rt_sem_signal(&c->sem);
        rt_sem_wait(&c->done);
        failed += check(c->order_n == 2 && c->order[1] == 1, "semaphore: then the other");
        /* rt_change_prio re-sorts a waiter: the one raised from 30 to 10 is served first. */
        c->order_n = 0;
        rt_task_init(&c->a, sem_waiter, (long) c, 2048, 30, 0, 0);
        rt_task_init(&c->b, sem_waiter, (long) c, 2048, 20, 0, 0);
        rt_task_resume(&c->a);
        rt_task_resume(&c->b);
        failed += check(rt_change_prio(&c->a, 10) == 30, "change_prio: returns the old priority");
        rt_sem_signal(&c->sem);
        rt_sem_wait(&c->done);
        rt_sem_signal(&c->sem);
        rt_sem_wait(&c->done);
        failed += check(c->order_n == 2 && c->order[0] == 1 && c->order[1] == 2,
                        "change_prio: a waiter moves in the semaphore's queue");
        rt_sem_signal(&c->sem);
        rt_sem_signal(&c->sem);
        failed += check(rt_sem_wait(&c->sem) == 1 && rt_sem_wait(&c->sem) == 0, "semaphore: counts");
        rt_sem_delete(&c->sem);

        c->result[0] = c->result[1] = 0;
        failed += check(rt_mbx_init(&c->mbx, 32) == 0, "mailbox: 32 bytes");
        rt_task_init(&c->a, mbx_sender, (long) c, 2048, 20, 0, 0);
        rt_task_init(&c->b, mbx_receiver, (long) c, 2048, 25, 0, 0);
        rt_task_resume(&c->b);
        rt_task_resume(&c->a);
        rt_sem_wait(&c->done);
        failed += check(c->result[0] == 0 && c->result[1] == 0 && c->count_c == 100,
                        "mailbox: 100 messages of 12 bytes through 32 bytes, all intact, in order");
        failed += check(rt_mbx_receive_if(&c->mbx, (void *) c->order, 4) == 4, "mailbox: receive_if on empty");
        rt_mbx_delete(&c->mbx);
        return failed;
}

/* ---- FPU contexts ---- */

/* Preempts an FPU task five times, using the FPU registers itself each time. */
static void fpu_preempt_body(long data) {
        struct fpu_hold *h = (struct fpu_hold *) data;

        for (int i = 0; i < 5; i++) {
                rt_sleep(nano2count(100 * US));
                fpu_clobber(i + 7);
        }
        h->stop = true;
}

static int part_fpu(struct ctx *c) {
        static struct fpu_hold hold;
        int failed = 0;
        int64_t alone;

        rt_task_init(&c->a, fpu_task_body, 0, 2048, 20, 1, 0);
        rt_task_resume(&c->a);                  /* runs alone to its end (higher priority) */
        alone = fpu_results[0];
        fpu_results[0] = 0;
        rt_task_init(&c->a, fpu_task_body, 0, 2048, 20, 1, 0);
        rt_task_init(&c->b, fpu_task_body, 1, 2048, 20, 1, 0);
        rt_task_resume(&c->a);                  /* a and b yield to each other 50 times */
        rt_task_resume(&c->b);
        rt_sleep(nano2count(1 * MS));
        failed += check(alone == fpu_results[0] && alone != 0 && fpu_results[1] == 2 * alone,
                        "fpu: interleaved FPU tasks keep their own x87 state");

        /* b preempts a in the middle of its loop: a's registers are saved and restored around b. */
        hold = (struct fpu_hold) { 0 };
        rt_task_init(&c->a, fpu_hold_body, (long) &hold, 2048, 21, 1, 0);
        rt_task_init(&c->b, fpu_preempt_body, (long) &hold, 2048, 20, 1, 0);
        rt_task_resume(&c->b);                  /* sleeps at once */
        rt_task_resume(&c->a);                  /* spins until b, after five preemptions, stops it */
        failed += check(hold.stop && hold.loops > 0 && hold.intact,
                        "fpu: an FPU task preempted mid-computation keeps its registers (state saved by the kernel)");
        return failed;
}

/* ---- admission of tasks with budgets (rtf's fixed-priority RTA) ---- */

static void never_body(long data) {
        for (;;)
                rt_task_wait_period();
}

static int part_admission(struct ctx *c) {
        RTIME later = rt_get_time() + nano2count(1000 * MS);
        int failed = 0, r;

        /* 400/1000 + 800/2000: response of the second 1600 us <= 2000 */
        rt_task_init(&c->a, never_body, 0, 1024, 10, 0, 0);
        rt_task_init(&c->b, never_body, 0, 1024, 11, 0, 0);
        rt_task_init(&c->c, never_body, 0, 1024, 12, 0, 0);
        failed += check(rt_task_make_periodic_budget(&c->a, later, nano2count(1 * MS), nano2count(400 * US)) == 0 &&
                        rt_task_make_periodic_budget(&c->b, later, nano2count(2 * MS), nano2count(800 * US)) == 0,
                        "admission: two reservations of 40 % each");
        r = rt_task_make_periodic_budget(&c->c, later, nano2count(4 * MS), nano2count(1 * MS));
        failed += check(r == -EBUSY, "admission: a third of 25 % is refused (-EBUSY): U > 1");
        failed += check(rt_task_make_periodic_budget(&c->c, later, nano2count(4 * MS), nano2count(100 * US)) == 0,
                        "admission: 2.5 % fits (response 1700 us <= 4000)");
        failed += check(rt_task_make_periodic(&c->c, later, nano2count(1 * MS)) == 0,
                        "admission: a task without a budget is not a reservation (RTAI admits it)");
        rt_task_delete(&c->a);
        rt_task_delete(&c->b);
        rt_task_delete(&c->c);
        return failed;
}

/* ---- the periodic timer mode ---- */

static void tick_body(long data) {
        struct ctx *c = (struct ctx *) data;

        for (int i = 0; i < 10; i++) {
                c->result[i] = (int) (rt_get_time_ns() / US);
                rt_task_wait_period();
        }
        rt_task_stats(&c->a, &c->stats);
        rt_sem_signal(&c->done);
}

static int part_periodic_mode(struct ctx *c) {
        int failed = 0, spacing_ok = 1;
        RTIME tick;

        stop_rt_timer();
        rt_set_periodic_mode();
        tick = start_rt_timer((int) nano2count(100 * US));
        rt_task_init(&c->a, tick_body, (long) c, 2048, 5, 0, 0);
        rt_task_make_periodic(&c->a, rt_get_time() + nano2count(1 * MS), nano2count(1 * MS));
        rt_sem_wait(&c->done);
        for (int i = 1; i < 10; i++)
                spacing_ok &= c->result[i] - c->result[i - 1] >= 900 && c->result[i] - c->result[i - 1] <= 1100;
        /* The budget task again: with a periodic timer the budget is checked at each tick. */
        rt_task_init(&c->a, budget_body, (long) c, 2048, 5, 0, 0);
        rt_task_make_periodic_budget(&c->a, rt_get_time() + nano2count(1 * MS), nano2count(1 * MS),
                                     nano2count(300 * US));
        rt_sem_wait(&c->done);
        rt_printk("# periodic mode budget: jobs %u, exhaustions %u, ignored waits %u, at most %d ns past it\n",
                  (uint32_t) c->budget_stats.periods, (uint32_t) c->budget_stats.exhaustions,
                  (uint32_t) c->budget_stats.ignored_waits, c->result[21]);
        stop_rt_timer();
        rt_set_oneshot_mode();
        start_rt_timer(0);
        failed += check(count2nano(tick) >= 99 * US && count2nano(tick) <= 101 * US, "periodic mode: a 100 us tick");
        failed += check(c->stats.periods == 10 && c->stats.overruns == 0 && spacing_ok,
                        "periodic mode: 10 releases one period (10 ticks) apart");
        failed += check(c->budget_stats.exhaustions >= 10 && c->budget_stats.ignored_waits >= 5 &&
                        c->result[21] >= 0 && c->result[21] <= count2nano(tick) * 21 / 20,
                        "periodic mode: a budget is enforced at the next tick, the wait calls ignored");
        return failed;
}

/* lib/div64.c: i386 has no 64-bit divide; volatile, so the compiler cannot fold these. */
static int part_div64(void) {
        static const struct {
                uint64_t n, d, q, r;
        } cases[] = {
                { 0xffffffffffffffffULL, 3, 0x5555555555555555ULL, 0 },
                { 1000000000000000000ULL, 7, 0x1fb87d085a09249ULL, 1 },
                { 0x10000000005ULL, 0x200000001ULL, 0x7f, 0x1ffffff86ULL },
                { 0x123456789abcdef0ULL, 0xffffffffULL, 0x12345678, 0xacf13568ULL },
                { 0xfedcba9876543210ULL, 0x100000001ULL, 0xfedcba97ULL, 0x77777779ULL },
                { 12345, 1ULL << 40, 0, 12345 },
        };
        volatile int64_t sn = -1000000000000000LL, sd = 7;
        bool ok = sn / sd == -142857142857142LL && sn % sd == -6;

        for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                volatile uint64_t n = cases[i].n, d = cases[i].d;

                ok &= n / d == cases[i].q && n % d == cases[i].r;
        }
        return check(ok, "div64: 64-bit division and remainder, both paths, signed too");
}

int selftest_run(struct kernel *k, const struct bare_options *o) {
        static struct ctx c;
        int failed = 0;
        RTIME x = nano2count(123456789);

        rt_sem_init(&c.done, 0);
        rt_printk("# self-test\n");
        failed += check(count2nano(x) >= 123456780 && count2nano(x) <= 123456798, "time: nano2count/count2nano");
        failed += check(rt_task_init(&c.a, 0, 0, 2048, 5, 0, 0) == -EINVAL &&
                        rt_task_init(&c.a, periodic_body, 0, 16, 5, 0, 0) == -EINVAL, "task: bad arguments refused");
        failed += check(rt_task_wait_period() == RTE_OBJINV, "wait_period: not a periodic task");
        failed += part_div64();
        failed += part_periodic(&c);
        failed += part_budget(&c);
        failed += part_tasks(&c);
        failed += part_ipc(&c);
        failed += part_fpu(&c);
        failed += part_admission(&c);
        failed += part_periodic_mode(&c);
        return failed;
}
