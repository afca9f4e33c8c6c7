/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * <rtf/native.h> without rtfd: the pure periodic timeline at its
 * boundaries, and the real pipes, alarms and priority-0 tasks (which need
 * no reservation).  Behaviour only; the few sleeps bound nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "native-private.h"
#include "tap.h"

#define MS 1000000LL

static void test_period_advance(void) {
        static const struct {
                int64_t release_ns, now_ns, next_ns;
                uint64_t overruns;
        } steps[] = {
                /* on time, and up to a whole period late: consumed, no overrun */
                { 1000, 1000, 1100, 0 },
                { 1000, 1099, 1100, 0 },
                /* exactly one period late: the next release has come too, one overrun */
                { 1000, 1100, 1200, 1 },
                { 1000, 1350, 1400, 3 },
        };
        int64_t next = 0;
        uint64_t ov = 99;

        for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
                CHECK_EQ(native_period_advance(steps[i].release_ns, 100, steps[i].now_ns, &next, &ov), 0);
                CHECK_EQ(next, steps[i].next_ns);
                CHECK_EQ(ov, steps[i].overruns);
        }
        /* woken early is impossible, but harmless */
        CHECK_EQ(native_period_advance(1000, 100, 900, &next, &ov), 0);
        CHECK_EQ(next, 1100);
        CHECK_EQ(native_period_advance(1000, 0, 1000, &next, &ov), -EINVAL);
        CHECK_EQ(native_period_advance(INT64_MAX - 10, 100, INT64_MAX - 10, &next, &ov), -EOVERFLOW);

        CHECK_EQ(native_period_first(TM_NOW, 100, 5000, &next), 0);
        CHECK_EQ(next, 5100);
        CHECK_EQ(native_period_first(7000, 100, 5000, &next), 0);
        CHECK_EQ(next, 7000);
        CHECK_EQ(native_period_first(7000, 0, 5000, &next), -EINVAL);
}

static char pipe_dir[] = "/tmp/rtf-test-native-XXXXXX";

static void test_pipe_pool_full(void) {
        char msg[100], buf[8192], path[PATH_MAX];
        RT_PIPE p = { 0 }, q = { 0 };
        int minor, writes = 0, rd;
        ssize_t n;

        memset(msg, 'x', sizeof(msg));
        minor = rt_pipe_create(&p, "pool", P_MINOR_AUTO, 4096);
        CHECK_EQ(minor, 0);
        snprintf(path, sizeof(path), "%s/rtp0", pipe_dir);
        CHECK(rtf_native_pipe_path(&p) && strcmp(rtf_native_pipe_path(&p), path) == 0);
        /* a second pipe gets the next minor; asking for a held one is -EBUSY */
        CHECK_EQ(rt_pipe_create(&q, "next", P_MINOR_AUTO, 0), 1);
        CHECK_EQ(rt_pipe_create(&(RT_PIPE) { 0 }, "held", 0, 0), -EBUSY);
        CHECK_EQ(rt_pipe_delete(&q), 0);
        CHECK_EQ(rt_pipe_delete(&q), -EIDRM);

        /* No reader: 40 messages of 100 bytes fill a 4 KiB pool, the 41st is refused whole. */
        while ((n = rt_pipe_write(&p, msg, sizeof(msg), P_NORMAL)) == (ssize_t) sizeof(msg))
                writes++;
        CHECK_EQ(n, -ENOMEM);
        CHECK_EQ(writes, 40);
        CHECK_EQ(rt_pipe_write(&p, msg, PIPE_BUF + 1, P_NORMAL), -EINVAL);

        /* An ordinary process on the FIFO reads every byte written, and no more. */
        rd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        CHECK(rd >= 0);
        n = read(rd, buf, sizeof(buf));
        CHECK_EQ(n, 40 * 100);
        /* drained: the writer goes on */
        CHECK_EQ(rt_pipe_write(&p, msg, sizeof(msg), P_NORMAL), 100);
        CHECK_EQ(read(rd, buf, sizeof(buf)), 100);
        close(rd);
        CHECK_EQ(rt_pipe_delete(&p), 0);
        CHECK(access(path, F_OK) < 0);
}

static void test_pipe_read(void) {
        char path[PATH_MAX], buf[64];
        RT_PIPE p = { 0 };
        int64_t t0;
        int wr;

        CHECK_EQ(rt_pipe_create(&p, "cmd", 3, 0), 3);
        CHECK_EQ(rt_pipe_read(&p, buf, sizeof(buf), TM_NONBLOCK), -EWOULDBLOCK);
        t0 = native_now_ns();
        CHECK_EQ(rt_pipe_read(&p, buf, sizeof(buf), 20 * MS), -ETIMEDOUT);
        CHECK(native_now_ns() - t0 >= 20 * MS);

        snprintf(path, sizeof(path), "%s/rtp3", pipe_dir);
        wr = open(path, O_WRONLY | O_CLOEXEC);
        CHECK(wr >= 0);
        CHECK_EQ(write(wr, "d21\n", 4), 4);
        close(wr);      /* a writer that goes away is no end-of-file for the RT end */
        CHECK_EQ(rt_pipe_read(&p, buf, sizeof(buf), TM_INFINITE), 4);
        CHECK(memcmp(buf, "d21\n", 4) == 0);
        CHECK_EQ(rt_pipe_read(&p, buf, sizeof(buf), TM_NONBLOCK), -EWOULDBLOCK);
        CHECK_EQ(rt_pipe_delete(&p), 0);
        CHECK_EQ(rt_pipe_read(&p, buf, sizeof(buf), TM_NONBLOCK), -EIDRM);
        CHECK_EQ(rt_pipe_read(&(RT_PIPE) { 0 }, buf, sizeof(buf), TM_NONBLOCK), -EINVAL);
}

struct blocked_reader {
        RT_PIPE *pipe;
        atomic_int result;
        atomic_bool entered;
};

static void reader_task(void *arg) {
        struct blocked_reader *b = arg;
        char buf[8];

        atomic_store(&b->entered, true);
        atomic_store(&b->result, (int) rt_pipe_read(b->pipe, buf, sizeof(buf), TM_INFINITE));
}

static void test_pipe_delete_wakes_reader(void) {
        struct blocked_reader b = { 0 };
        RT_PIPE p = { 0 };
        RT_TASK t;

        atomic_init(&b.result, 1);
        b.pipe = &p;
        CHECK(rt_pipe_create(&p, "wake", P_MINOR_AUTO, 0) >= 0);
        CHECK_EQ(rt_task_create(&t, "reader", 0, 0, T_JOINABLE), 0);
        CHECK_EQ(rt_task_start(&t, reader_task, &b), 0);
        while (!atomic_load(&b.entered))
                usleep(1000);
        usleep(20000);
        CHECK_EQ(rt_pipe_delete(&p), 0);
        CHECK_EQ(rt_task_join(&t), 0);
        CHECK_EQ(atomic_load(&b.result), -EIDRM);
}

struct periodic_run {
        int waits;
        unsigned long overruns;
        int late_result;
        int not_periodic;
        RTIME first_wake;
        RTIME release;
};

static void periodic_task(void *arg) {
        struct periodic_run *r = arg;
        unsigned long ov = 0;

        r->not_periodic = rt_task_wait_period(NULL);
        rt_task_set_periodic(NULL, r->release, 2 * MS);
        /* a loaded machine may delay this plain task by a period: -ETIMEDOUT is a release too */
        for (int i = 0; i < 5; i++) {
                int w = rt_task_wait_period(&ov);

                if (i == 0)
                        r->first_wake = rt_timer_read();
                if (w == 0 || w == -ETIMEDOUT)
                        r->waits++;
        }
        /* miss about three releases: -ETIMEDOUT with the count */
        rt_task_sleep(7 * MS);
        r->late_result = rt_task_wait_period(&ov);
        r->overruns = ov;
}

static void test_task_periodic_plain(void) {
        struct periodic_run run = { 0 };
        RT_TASK t;

        CHECK(rt_task_self() == NULL);
        CHECK_EQ(rt_task_wait_period(NULL), -EPERM);
        CHECK_EQ(rt_task_sleep(1000), -EPERM);
        CHECK_EQ(rt_task_create(&t, "bad", 0, 100, 0), -EINVAL);
        CHECK_EQ(rt_task_create(&t, "bad", 0, 1, T_SUSP), -EINVAL);
        run.release = rt_timer_read() + 10 * MS;
        CHECK_EQ(rt_task_create(&t, "periodic", 0, 0, T_JOINABLE), 0);
        CHECK(rtf_native_task_spec(&t) == NULL);        /* priority 0: no reservation */
        CHECK_EQ(rt_task_start(&t, periodic_task, &run), 0);
        CHECK_EQ(rt_task_start(&t, periodic_task, &run), -EBUSY);
        CHECK_EQ(rt_task_join(&t), 0);
        CHECK_EQ(rt_task_join(&t), -EIDRM);
        CHECK_EQ(run.not_periodic, -EWOULDBLOCK);
        CHECK_EQ(run.waits, 5);
        CHECK(run.first_wake >= run.release);
        CHECK_EQ(run.late_result, -ETIMEDOUT);
        CHECK(run.overruns >= 2);
}

static void noop(void *arg) {
        (void) arg;
}

static void forever(void *arg) {
        (void) arg;
        for (;;)
                rt_task_sleep(1000 * MS);
}

static void reader_forever(void *arg) {
        char buf[8];

        rt_pipe_read(arg, buf, sizeof(buf), TM_INFINITE);
}

static void test_delete_task_blocked_in_a_pipe(void) {
        RT_PIPE p = { 0 };
        RT_TASK t;

        CHECK(rt_pipe_create(&p, "cancel", P_MINOR_AUTO, 0) >= 0);
        CHECK_EQ(rt_task_create(&t, "blocked", 0, 0, 0), 0);
        CHECK_EQ(rt_task_start(&t, reader_forever, &p), 0);
        usleep(20000);
        CHECK_EQ(rt_task_delete(&t), 0);
        /* the cancelled reader has left the pipe: deleting it does not wait for it */
        CHECK_EQ(rt_pipe_delete(&p), 0);
}

static void test_task_delete(void) {
        RT_TASK a, b, c;

        /* deleted before it starts, while it blocks, and after it ended */
        CHECK_EQ(rt_task_create(&a, "unstarted", 0, 0, 0), 0);
        CHECK_EQ(rt_task_delete(&a), 0);
        CHECK_EQ(rt_task_delete(&a), -EIDRM);
        CHECK_EQ(rt_task_create(&b, "sleeper", 64 * 1024, 0, 0), 0);
        CHECK_EQ(rt_task_start(&b, forever, NULL), 0);
        usleep(10000);
        CHECK_EQ(rt_task_delete(&b), 0);
        CHECK_EQ(rt_task_create(&c, "short", 0, 0, 0), 0);
        CHECK_EQ(rt_task_start(&c, noop, NULL), 0);
        usleep(10000);
        CHECK_EQ(rt_task_delete(&c), 0);
}

struct alarm_run {
        RT_ALARM *alarm;
        int shots;
        RTIME at[4];
};

static void alarm_task(void *arg) {
        struct alarm_run *r = arg;

        while (r->shots < 4 && rt_alarm_wait(r->alarm) == 0)
                r->at[r->shots++] = rt_timer_read();
}

static atomic_int handled;

static void on_alarm(void *arg) {
        atomic_fetch_add(&handled, *(int *) arg);
}

static void test_alarms(void) {
        struct alarm_run run = { 0 };
        RT_ALARM al, h;
        RT_TASK t;
        RTIME t0;
        int weight = 1;

        CHECK_EQ(rt_alarm_create(&al, "edge"), 0);
        run.alarm = &al;
        CHECK_EQ(rt_task_create(&t, "waiter", 0, 0, T_JOINABLE), 0);
        t0 = rt_timer_read();
        CHECK_EQ(rt_alarm_start(&al, 5 * MS, 2 * MS), 0);
        CHECK_EQ(rt_task_start(&t, alarm_task, &run), 0);
        CHECK_EQ(rt_task_join(&t), 0);
        CHECK_EQ(run.shots, 4);
        CHECK(run.at[0] >= t0 + 5 * MS);
        CHECK(run.at[3] >= t0 + 11 * MS);
        CHECK_EQ(rt_alarm_stop(&al), 0);
        CHECK(rtf_native_alarm_expiries(&al) >= 4);
        CHECK_EQ(rt_alarm_delete(&al), 0);
        CHECK_EQ(rt_alarm_wait(&al), -EIDRM);

        /* Xenomai 3's form: the handler runs on every shot, in a task of its own. */
        CHECK_EQ(rt_alarm_create(&h, "handler", on_alarm, &weight), 0);
        CHECK_EQ(rt_alarm_wait(&h), -EINVAL);
        CHECK_EQ(rt_alarm_start(&h, 1 * MS, 1 * MS), 0);
        while (atomic_load(&handled) < 3)
                usleep(1000);
        CHECK_EQ(rt_alarm_delete(&h), 0);
}

static void test_descriptors_abi(void) {
        /* The descriptors live in the program's memory: their layout is ABI. */
        CHECK_EQ(sizeof(RT_TASK), 8 + sizeof(void *));
        CHECK_EQ(sizeof(RT_ALARM), 8 + sizeof(void *));
        CHECK_EQ(sizeof(RT_PIPE), 8 + sizeof(void *));
        CHECK_EQ(TM_NONBLOCK, ~0ULL);
        CHECK_EQ(TM_INFINITE, 0);
}

int main(void) {
        test_descriptors_abi();
        test_period_advance();
        if (!mkdtemp(pipe_dir)) {
                perror("mkdtemp");
                return 1;
        }
        setenv("RTF_PIPE_DIR", pipe_dir, 1);
        test_pipe_pool_full();
        test_pipe_read();
        test_pipe_delete_wakes_reader();
        test_task_periodic_plain();
        test_task_delete();
        test_delete_task_blocked_in_a_pipe();
        test_alarms();
        rmdir(pipe_dir);
        return test_done();
}
