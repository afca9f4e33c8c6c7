/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The subset of Xenomai 2's native skin that "Real-time Linux on a
 * Raspberry Pi" uses (section 4.3): tasks, alarms, message pipes and the
 * timer, on librtf and an unpatched kernel.  A program written for
 * <native/task.h>, <native/alarm.h>, <native/pipe.h> and <native/timer.h>
 * compiles by including <rtf/native.h> instead (link with pkg-config rtf).
 * Not to be included together with <rtf/rtai.h> (both define RT_TASK).
 *
 * Admission.  Every task with a priority of 1..99 is a reservation admitted
 * by rtfd under the caller's policy, at that SCHED_FIFO priority, through the
 * fixed-priority plugin "FP" ($RTF_NATIVE_SCHEDULER names another instance,
 * "" lets rtfd choose).  rt_task_create() asks for it (and attaches the new
 * thread), rt_task_set_periodic() declares the period (rtf_spec_change).  A
 * refusal fails the call, the task keeping what it had:
 *   -EPERM     the administrator's policy refuses it (RTF_ACL_FAIL)
 *   -EBUSY     no plugin admits it (RTF_SCHEDULE_FAIL)
 *   -ENOTCONN  rtfd cannot be reached
 * and rtf_last_reason() in the calling thread says why.  Priority 0 is a
 * plain (SCHED_OTHER) task without a reservation, as a Xenomai 2 task of
 * priority 0 is not real-time either.
 *
 * Time.  One tick is one nanosecond of CLOCK_MONOTONIC (Xenomai's aperiodic
 * mode): rt_timer_read() returns it, rt_timer_ns2ticks() is the identity.
 *
 * Where this cannot give Xenomai's guarantee:
 * - No co-kernel: a task is a SCHED_FIFO Linux thread, so its latency is the
 *   kernel's (PREEMPT_RT or not), with no primary/secondary mode.  Any
 *   system call a task makes keeps it real-time; page faults do not, so call
 *   mlockall(MCL_CURRENT | MCL_FUTURE) first (the stacks of tasks are then
 *   locked too; stksize 0 means 256 KiB, which fits RLIMIT_MEMLOCK).
 * - rt_task_delete() of *another* task cancels its thread at its next
 *   cancellation point (any blocking call of this API, or a system call that
 *   is one) and waits for it; a task spinning without a system call is not
 *   stopped.  Xenomai deletes it at once.
 * - Names are kept for inspection only; there is no registry (no -EEXIST,
 *   no rt_task_bind()).  T_CPU(n), T_FPU and T_WARMUP are accepted and
 *   ignored: rtfd places the task.
 * - Pipes are byte streams, not message queues: a read returns what is
 *   there, up to size, whatever the writes were (Xenomai's rt_pipe_stream()
 *   behaviour).  P_URGENT is treated as P_NORMAL.  See RT_PIPE below for
 *   the pool.
 * - Alarms are timerfds; the handler form runs its handler in a task of its
 *   own (the creator's priority), not in an interrupt-level timer server.
 *
 * Results are 0 (or a count) or a negative errno value, with Xenomai's
 * meaning: -EINVAL bad argument or descriptor, -EIDRM deleted object,
 * -ETIMEDOUT timeout or overrun, -EWOULDBLOCK nothing to read (TM_NONBLOCK)
 * or not periodic, -EPERM not a task context, -ENOMEM pool full.
 */
#pragma once

#include <errno.h>     /* the results are errno values, as with Xenomai's headers */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rtf/rtf.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned long long RTIME;
typedef long long SRTIME;

#define TM_INFINITE ((RTIME) 0)
#define TM_NOW ((RTIME) 0)
#define TM_NONBLOCK ((RTIME) -1)

/* ---- tasks ---------------------------------------------------------------- */

#define T_LOPRIO 0
#define T_HIPRIO 99
#define T_FPU 0x00000001
#define T_SUSP 0x00000002       /* not supported: -EINVAL */
#define T_WARMUP 0x00000008
#define T_JOINABLE 0x00000100
#define T_CPU(cpu) (0x01000000 << ((cpu) & 7))
#define T_CPUMASK 0xff000000

struct rtf_native_task;
typedef struct rt_task_placeholder {
        uint32_t magic;
        uint32_t reserved0;
        struct rtf_native_task *handle;
} RT_TASK;

/* The task's thread is created (and admitted) here; it runs once started. */
RTF_PUBLIC int rtf_native_task_create(RT_TASK *task, const char *name, int stksize, int prio, int mode);
RTF_PUBLIC int rtf_native_task_start(RT_TASK *task, void (*entry)(void *cookie), void *cookie);
/* Make the calling thread a task (admitted like rt_task_create()). */
RTF_PUBLIC int rtf_native_task_shadow(RT_TASK *task, const char *name, int prio, int mode);
/*
 * task NULL: the calling task.  idate: absolute first release, TM_NOW for
 * now + period; period TM_INFINITE makes the task aperiodic again.  Another
 * task picks the new timeline up at its next rt_task_wait_period().
 */
RTF_PUBLIC int rtf_native_task_set_periodic(RT_TASK *task, RTIME idate, RTIME period);
/*
 * Sleeps until the pending release (returns at once if it has passed);
 * -ETIMEDOUT when whole periods were missed, their number in *overruns_r,
 * and the next wait is for the first release still ahead (Xenomai 2).
 * -EWOULDBLOCK if the task is not periodic, -EPERM outside a task.
 */
RTF_PUBLIC int rtf_native_task_wait_period(unsigned long *overruns_r);
RTF_PUBLIC int rtf_native_task_sleep(RTIME delay);
RTF_PUBLIC int rtf_native_task_sleep_until(RTIME date);
/* task NULL or self: ends the calling task (does not return on success). */
RTF_PUBLIC int rtf_native_task_delete(RT_TASK *task);
RTF_PUBLIC int rtf_native_task_join(RT_TASK *task);
RTF_PUBLIC RT_TASK *rtf_native_task_self(void);
/* rtf extension: the reservation behind a task (NULL for priority 0). */
RTF_PUBLIC struct rtf_spec *rtf_native_task_spec(RT_TASK *task);

#define rt_task_create rtf_native_task_create
#define rt_task_start rtf_native_task_start
#define rt_task_shadow rtf_native_task_shadow
#define rt_task_set_periodic rtf_native_task_set_periodic
#define rt_task_wait_period rtf_native_task_wait_period
#define rt_task_sleep rtf_native_task_sleep
#define rt_task_sleep_until rtf_native_task_sleep_until
#define rt_task_delete rtf_native_task_delete
#define rt_task_join rtf_native_task_join
#define rt_task_self rtf_native_task_self

/* ---- timer ---------------------------------------------------------------- */

RTF_PUBLIC RTIME rtf_native_timer_read(void);
static inline SRTIME rt_timer_ns2ticks(SRTIME ns) { return ns; }
static inline SRTIME rt_timer_ticks2ns(SRTIME ticks) { return ticks; }
#define rt_timer_read rtf_native_timer_read

/* ---- alarms --------------------------------------------------------------- */

struct rtf_native_alarm;
typedef struct rt_alarm_placeholder {
        uint32_t magic;
        uint32_t reserved0;
        struct rtf_native_alarm *handle;
} RT_ALARM;

/* Xenomai 2: rt_alarm_create(alarm, name), then rt_alarm_wait() in a task. */
RTF_PUBLIC int rtf_native_alarm_create(RT_ALARM *alarm, const char *name);
/* Xenomai 3 (alchemy): rt_alarm_create(alarm, name, handler, arg). */
RTF_PUBLIC int rtf_native_alarm_create_handler(RT_ALARM *alarm, const char *name,
                                               void (*handler)(void *arg), void *arg);
/*
 * value: relative date of the first shot (0 = at once); interval: period of
 * the following shots, TM_INFINITE for one shot.  Restarting re-arms.
 */
RTF_PUBLIC int rtf_native_alarm_start(RT_ALARM *alarm, RTIME value, RTIME interval);
/* 0 after the next shot; -EIDRM if the alarm is deleted meanwhile. */
RTF_PUBLIC int rtf_native_alarm_wait(RT_ALARM *alarm);
RTF_PUBLIC int rtf_native_alarm_stop(RT_ALARM *alarm);
RTF_PUBLIC int rtf_native_alarm_delete(RT_ALARM *alarm);
/* rtf extension: shots that rt_alarm_wait() took (a late wait counts each one it missed). */
RTF_PUBLIC int64_t rtf_native_alarm_expiries(RT_ALARM *alarm);

/* Two arguments: Xenomai 2; four: Xenomai 3.  Three does not compile. */
#define RTF_NATIVE_PICK4_(a, b, c, d, name, ...) name
#define rt_alarm_create(...) RTF_NATIVE_PICK4_(__VA_ARGS__, rtf_native_alarm_create_handler, \
                rtf_native_alarm_create_wrong_arity, rtf_native_alarm_create, none)(__VA_ARGS__)
#define rt_alarm_start rtf_native_alarm_start
#define rt_alarm_wait rtf_native_alarm_wait
#define rt_alarm_stop rtf_native_alarm_stop
#define rt_alarm_delete rtf_native_alarm_delete

/* ---- message pipes -------------------------------------------------------- */
/*
 * The real-time end is the program's; the other end is a FIFO
 * DIR/rtpN (N = minor) that any process of the same user can `cat` into or
 * out of, as /dev/rtpN in Xenomai.  DIR is $RTF_PIPE_DIR, else
 * $XDG_RUNTIME_DIR/rtf-pipes, else /tmp/rtf-pipes-UID; the last component is
 * created (0700) when missing, and must be a directory owned by the caller.
 * A FIFO left by an earlier run is reused; one held by a live pipe (flock)
 * gives -EBUSY.  The FIFO is mode 0600 and removed by rt_pipe_delete().
 *
 * Both directions share the one FIFO, so a program uses a pipe one way (as
 * the paper does: commands in on rtp1, dial output out on rtp2).
 *
 * Pool: the FIFO's kernel buffer, sized to poolsize (rounded up to a power
 * of two pages; 0: the system default, 64 KiB).  rt_pipe_write() never
 * blocks and never allocates in the process: a write of up to PIPE_BUF
 * (4096) bytes goes in whole or not at all, and when the pool lacks room for
 * all of it, it writes nothing and returns -ENOMEM (Xenomai's "pool
 * exhausted"), whether or not a reader is attached; the writer may retry
 * once the reader drains the pool.  Bigger writes are refused (-EINVAL).
 * The kernel itself allocates a page for a pool slot the first time it is
 * filled (Xenomai's pool is allocated up front).
 */

#define P_MINOR_AUTO (-1)
#define P_NORMAL 0
#define P_URGENT 1
#define RTF_NATIVE_PIPE_MINORS 64       /* minors 0..63 */

struct rtf_native_pipe;
typedef struct rt_pipe_placeholder {
        uint32_t magic;
        uint32_t reserved0;
        struct rtf_native_pipe *handle;
} RT_PIPE;

/* Returns the minor (>= 0) or a negative errno. */
RTF_PUBLIC int rtf_native_pipe_create(RT_PIPE *pipe, const char *name, int minor, size_t poolsize);
/*
 * Up to size bytes; waits up to timeout ns (TM_INFINITE: forever,
 * TM_NONBLOCK: not at all).  -ETIMEDOUT, -EWOULDBLOCK, -EIDRM (deleted while
 * waiting) or another negative errno.
 */
RTF_PUBLIC ssize_t rtf_native_pipe_read(RT_PIPE *pipe, void *buf, size_t size, RTIME timeout);
RTF_PUBLIC ssize_t rtf_native_pipe_write(RT_PIPE *pipe, const void *buf, size_t size, int mode);
RTF_PUBLIC int rtf_native_pipe_delete(RT_PIPE *pipe);
/* rtf extension: the path of the pipe's FIFO (valid until rt_pipe_delete()). */
RTF_PUBLIC const char *rtf_native_pipe_path(RT_PIPE *pipe);

#define rt_pipe_create rtf_native_pipe_create
#define rt_pipe_read rtf_native_pipe_read
#define rt_pipe_write rtf_native_pipe_write
#define rt_pipe_delete rtf_native_pipe_delete

#ifdef __cplusplus
}
#endif
