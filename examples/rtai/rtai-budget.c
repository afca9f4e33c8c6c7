/* SPDX-License-Identifier: MIT */
/*
 * An RTAI/LXRT-style periodic task with a budget, written against
 * <rtf/rtai.h> only: the paper's rt_task_make_periodic_budget() through rtfd.
 *
 * Period 10 ms, budget 2 ms.  Every fifth job is "too long" (3 ms of CPU):
 * the budget suspends it at 2 ms, it finishes in the next period, and its
 * rt_task_wait_period() there is ignored so that the task catches up.
 *
 *   RTF_SOCKET=/run/rtf/rtfd.sock ./rtai-budget [JOBS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <rtf/rtai.h>

#define PERIOD_NS 10000000LL
#define BUDGET_NS 2000000LL

/* Burn `ns` of this thread's CPU time. */
static void work(RTIME ns) {
        struct timespec ts;
        long long start, now;

        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        start = ts.tv_sec * 1000000000LL + ts.tv_nsec;
        do {
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
                now = ts.tv_sec * 1000000000LL + ts.tv_nsec;
        } while (now - start < ns);
}

int main(int argc, char **argv) {
        int jobs = argc > 1 ? atoi(argv[1]) : 20, i, r, overruns = 0;
        struct rtf_task_stats st = { .size = sizeof(st) };
        RT_TASK *task;

        task = rt_task_init(nam2num("BUDGET"), 10, 0, 0);
        if (!task) {
                /* rtf_last_reason(): why, in words (rtfd's socket, its refusal). */
                fprintf(stderr, "rt_task_init failed: %s\n", rtf_last_reason());
                return 1;
        }
        r = rt_task_make_periodic_budget(task, rt_get_time() + nano2count(PERIOD_NS),
                                         nano2count(PERIOD_NS), nano2count(BUDGET_NS));
        if (r != 0) {
                fprintf(stderr, "rt_task_make_periodic_budget: %s: %s\n", rtf_strerror(r), rtf_last_reason());
                rt_task_delete(task);
                return 1;
        }
        rt_task_wait_period();          /* the first release */
        for (i = 0; i < jobs; i++) {
                work(i % 5 == 4 ? 3 * BUDGET_NS / 2 : BUDGET_NS / 4);
                r = rt_task_wait_period();
                if (r == RTE_TMROVRN)
                        overruns++;
                else if (r != 0)
                        fprintf(stderr, "rt_task_wait_period: %s\n", r < 0 ? rtf_strerror(r) : "not a periodic task");
        }
        if (rtf_task_stats(rt_task_rtf_spec(task), &st) == 0)
                printf("%d jobs: budget exhausted (job suspended until its next period) %llu times, "
                       "%llu wait calls ignored, %d overruns\n", jobs,
                       (unsigned long long) st.budget_exhaustions, (unsigned long long) st.ignored_waits, overruns);
        rt_task_delete(task);
        printf("done\n");
        return 0;
}
