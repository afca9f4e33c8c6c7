/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-sim's schedule simulator (tools/rtf-sim/sim.c) on hand-checked
 * schedules: fixed priorities and their ties, RR slices, partitioned and
 * global EDF, the kernel's reserved share, DEADLINE above FIFO.
 */
#include <errno.h>
#include <string.h>

#include "sim.h"
#include "tap.h"

static struct sim_task fifo(int32_t cpu, uint32_t prio, uint64_t c, uint64_t t, uint64_t d) {
        return (struct sim_task) { .policy = SIM_FIFO, .cpu = cpu, .priority = prio, .exec_us = c,
                                   .period_us = t, .deadline_us = d ? d : t };
}

static struct sim_task dl(int32_t cpu, uint64_t q, uint64_t t, uint64_t d) {
        return (struct sim_task) { .policy = SIM_DEADLINE, .cpu = cpu, .exec_us = q, .period_us = t,
                                   .deadline_us = d ? d : t };
}

static struct sim_config one_cpu(uint64_t horizon) {
        return (struct sim_config) { .n_cpus = 1, .horizon_us = horizon, .rr_slice_us = 100000 };
}

struct trace {
        int32_t task[64];
        uint64_t start[64];
        unsigned n;
};

static void record(void *data, uint32_t cpu, int32_t task, uint64_t start, uint64_t end) {
        struct trace *t = data;

        if (t->n < 64 && (t->n == 0 || t->task[t->n - 1] != task)) {
                t->task[t->n] = task;
                t->start[t->n++] = start;
        }
}

static void test_fixed_priority(void) {
        /* (2,5), (4,7) under RM: U = 0.97 but R2 = 8 > 7 */
        struct sim_task set[] = { fifo(0, 2, 2, 5, 0), fifo(0, 1, 4, 7, 0) };
        struct sim_config c = one_cpu(35);
        struct sim_result r;

        CHECK_EQ(sim_run(&c, set, 2, &r), 0);
        CHECK(r.missed);
        CHECK_EQ(r.task, 1);
        CHECK_EQ(r.deadline_us, 7);
        CHECK_EQ(r.left_us, 1);
        /* (1,2), (2,4) harmonic at U = 1: fine over the hyperperiod */
        set[0] = fifo(0, 2, 1, 2, 0);
        set[1] = fifo(0, 1, 2, 4, 0);
        c.horizon_us = sim_hyperperiod(set, 2, 1000);
        CHECK_EQ(c.horizon_us, 4);
        CHECK_EQ(sim_run(&c, set, 2, &r), 0);
        CHECK(!r.missed);
        /* equal priorities: FIFO order, the first released (then the first listed) runs to completion */
        {
                struct sim_task tie[] = { fifo(0, 5, 3, 10, 0), fifo(0, 5, 3, 10, 4) };
                struct trace t = { .n = 0 };

                c = one_cpu(10);
                c.trace = record;
                c.trace_data = &t;
                CHECK_EQ(sim_run(&c, tie, 2, &r), 0);
                /* task 0 holds the CPU until 3: task 1 ends at 6 > 4 */
                CHECK(r.missed);
                CHECK_EQ(r.task, 1);
                CHECK_EQ(t.task[0], 0);
                CHECK_EQ(t.task[1], 1);
                CHECK_EQ(t.start[1], 3);
        }
}

static void test_rr(void) {
        struct sim_task set[] = { fifo(0, 5, 30, 100, 0), fifo(0, 5, 30, 100, 0) };
        struct sim_config c = one_cpu(100);
        struct trace t = { .n = 0 };
        struct sim_result r;

        set[0].policy = set[1].policy = SIM_RR;
        c.rr_slice_us = 10;
        c.trace = record;
        c.trace_data = &t;
        CHECK_EQ(sim_run(&c, set, 2, &r), 0);
        CHECK(!r.missed);
        /* 0 1 0 1 0 1 then idle */
        CHECK_EQ(t.n, 7);
        for (unsigned i = 0; i < 6; i++) {
                CHECK_EQ(t.task[i], (int32_t)(i % 2));
                CHECK_EQ(t.start[i], 10 * i);
        }
        CHECK_EQ(t.task[6], -1);
}

static void test_edf(void) {
        /* partitioned EDF at U = 1 with D = T: fine; D < T beyond demand: a miss */
        struct sim_task set[] = { dl(0, 2, 4, 0), dl(0, 3, 6, 0) };
        struct sim_config c = { .n_cpus = 1, .partitioned = { true }, .horizon_us = 12 };
        struct sim_result r;

        CHECK_EQ(sim_run(&c, set, 2, &r), 0);
        CHECK(!r.missed);
        set[1].deadline_us = 4;
        CHECK_EQ(sim_run(&c, set, 2, &r), 0);
        CHECK(r.missed);

        /* global EDF on 2 CPUs: the (1000, 850) + 2 x (100, 40) */
        {
                struct sim_task g[] = { dl(-1, 850, 1000, 0), dl(-1, 40, 100, 0), dl(-1, 40, 100, 0) };
                struct sim_config c2 = { .n_cpus = 2, .horizon_us = 1000 };

                CHECK_EQ(sim_run(&c2, g, 3, &r), 0);
                CHECK(r.missed);
                CHECK_EQ(r.task, 0);
                CHECK_EQ(r.left_us, 210);
                g[0].exec_us = 600;
                CHECK_EQ(sim_run(&c2, g, 3, &r), 0);
                CHECK(!r.missed);
        }
}

static void test_deadline_above_fifo(void) {
        /* global DEADLINE (1000, 900) on 2 CPUs and FIFO 99 on CPU 1 */
        struct sim_task set[] = { dl(-1, 900, 1000, 0), fifo(1, 99, 5000, 10000, 0) };
        struct sim_config c = { .n_cpus = 2, .horizon_us = 10000 };
        struct sim_result r;

        /* placed where the FIFO work is: the FIFO task gets 100 us per ms */
        CHECK_EQ(sim_run(&c, set, 2, &r), 0);
        CHECK(r.missed);
        CHECK_EQ(r.task, 1);
        CHECK_EQ(r.left_us, 4000);
        /* a kernel that keeps it on CPU 0: no miss (the placement is not under rtfd's control) */
        c.friendly_placement = true;
        CHECK_EQ(sim_run(&c, set, 2, &r), 0);
        CHECK(!r.missed);
}

static void test_reserved_share(void) {
        /* a hog below (1000, 10): the kernel's 50 ms at the end of the second hits both */
        struct sim_task set[] = { fifo(0, 99, 10, 1000, 0), fifo(0, 1, 0, 0, 0) };
        struct sim_config c = one_cpu(2000000);
        struct sim_result r;

        c.reserve_us = 50000;
        c.reserve_period_us = 1000000;
        CHECK_EQ(sim_run(&c, set, 2, &r), 0);
        CHECK(r.missed);
        CHECK_EQ(r.task, 0);
        CHECK(r.deadline_us > 950000 && r.deadline_us <= 1000000);
        /* without the hog, the idle time pays the share: no miss */
        CHECK_EQ(sim_run(&c, set, 1, &r), 0);
        CHECK(!r.missed);
        CHECK_EQ(r.end_us, 2000000);
        /* DEADLINE threads are not stopped by it */
        set[0] = dl(0, 10, 1000, 0);
        c.partitioned[0] = true;
        CHECK_EQ(sim_run(&c, set, 2, &r), 0);
        CHECK(!r.missed);
}

static void test_invalid(void) {
        struct sim_task set[] = { fifo(-1, 1, 1, 10, 0) };
        struct sim_config c = one_cpu(10);
        struct sim_result r;

        CHECK_EQ(sim_run(&c, set, 1, &r), -EINVAL);
        set[0] = fifo(0, 1, 11, 10, 0);
        CHECK_EQ(sim_run(&c, set, 1, &r), -EINVAL);
        c.n_cpus = 0;
        CHECK_EQ(sim_run(&c, NULL, 0, &r), -EINVAL);
        set[0] = fifo(0, 1, 1, 1ULL << 40, 0);
        CHECK_EQ(sim_hyperperiod(set, 1, 1000), 0);
}

int main(void) {
        test_fixed_priority();
        test_rr();
        test_edf();
        test_deadline_above_fifo();
        test_reserved_share();
        test_invalid();
        return test_done();
}
