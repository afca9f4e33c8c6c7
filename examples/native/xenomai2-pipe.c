/* SPDX-License-Identifier: MIT */
/*
 * A Xenomai 2 native-skin program, unchanged but for its include lines:
 *
 *     #include <native/task.h>             ->  #include <rtf/native.h>
 *     #include <native/timer.h>
 *     #include <native/pipe.h>
 *     #include <native/alarm.h>
 *
 * A periodic task (1 ms, priority 80) measures how late it wakes, an alarm
 * counts shots, and the task reports on a pipe that `cat DIR/rtp0` reads
 * (DIR: $RTF_PIPE_DIR, see <rtf/native.h>).  Prints one line, "periods N
 * overruns N worst_late_us N alarm_shots N", and exits 0; a refusal by rtfd
 * exits 1 with rtf_last_reason().
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <rtf/native.h>

#define PERIOD_NS 1000000ULL
#define PERIODS 200

static RT_TASK task;
static RT_ALARM alarm_;
static RT_PIPE pipe_;
static unsigned long periods, overruns;
static RTIME worst_late;

static void loop(void *cookie) {
        RTIME release = rt_timer_read() + 10 * PERIOD_NS;
        unsigned long ov;
        char line[64];
        int n;

        (void) cookie;
        rt_task_set_periodic(NULL, release, PERIOD_NS);
        for (int i = 0; i < PERIODS; i++) {
                RTIME late;

                if (rt_task_wait_period(&ov) == -ETIMEDOUT)
                        overruns += ov;
                release += (ov + 1) * PERIOD_NS;
                late = rt_timer_read() - (release - PERIOD_NS);
                if (late > worst_late)
                        worst_late = late;
                periods++;
                ov = 0;
        }
        n = snprintf(line, sizeof(line), "periods %lu\n", periods);
        rt_pipe_write(&pipe_, line, (size_t) n, P_NORMAL);
}

int main(void) {
        int r;

        mlockall(MCL_CURRENT | MCL_FUTURE);
        if ((r = rt_pipe_create(&pipe_, "report", P_MINOR_AUTO, 0)) < 0 ||
            (r = rt_alarm_create(&alarm_, "tick")) < 0 ||
            (r = rt_task_create(&task, "loop", 0, 80, T_JOINABLE)) < 0) {
                fprintf(stderr, "xenomai2-pipe: %s (%s)\n", strerror(-r), rtf_last_reason());
                return 1;
        }
        rt_alarm_start(&alarm_, PERIOD_NS, 10 * PERIOD_NS);
        rt_task_start(&task, loop, NULL);
        for (int i = 0; i < 3; i++)
                rt_alarm_wait(&alarm_);
        rt_task_join(&task);
        rt_alarm_stop(&alarm_);
        printf("periods %lu overruns %lu worst_late_us %llu alarm_shots %lld\n", periods, overruns,
               worst_late / 1000, (long long) rtf_native_alarm_expiries(&alarm_));
        rt_alarm_delete(&alarm_);
        rt_pipe_delete(&pipe_);
        return 0;
}
