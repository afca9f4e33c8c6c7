/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librtf against a scripted peer (client-fixture.h): the statistics reports
 * of the periodic path, and a forked child's connection.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client-fixture.h"
#include "tap.h"

/* Waits (bounded) until the peer has seen more than `n` reports; returns how many it has. */
static unsigned wait_reports(unsigned n, struct rtf_msg *ret_last) {
        unsigned got = 0;

        for (int i = 0; i < 5000; i++) {
                *ret_last = peer_last_report(&got);
                if (got > n)
                        break;
                usleep(1000);
        }
        return got;
}

struct held_change {
        struct rtf_spec spec;
        struct rtf_params params;
        atomic_int done;
        int result;
};

static void *held_change_thread(void *arg) {
        struct held_change *h = arg;

        h->result = rtf_spec_change(&h->spec, &h->params);
        atomic_store(&h->done, 1);
        return NULL;
}

/*
 * The periodic path reports its statistics one way (no reply to wait for):
 * at once, then at most about once a second, and a last time on
 * rtf_task_stop().  When another thread's request holds the connection it
 * skips the report instead of waiting for it.
 */
static void test_reports(void) {
        struct rtf_msg_reply ok = {
                .result = RTF_OK, .id = 77, .accepted_runtime_us = 300, .cpu = -1, .plugin = "FP",
        };
        struct rtf_task_attr attr = RTF_TASK_ATTR_INIT;
        struct rtf_spec s = RTF_SPEC_INIT;
        struct held_change h = { .spec = RTF_SPEC_INIT };
        struct rtf_params p;
        struct rtf_msg last;
        unsigned reports0, reports, requests;
        pthread_t thread;

        attr.flags = RTF_TASK_NO_SOFT_BUDGET;   /* no timer signals in this test */
        peer_set(PEER_SCRIPT, &ok);
        /* A held request must outlast the test's steps however slow the machine: not 300 ms. */
        setenv("RTF_TIMEOUT_MS", "30000", 1);
        CHECK_EQ(rtf_connect(), RTF_OK);
        make_params(&p, 1000);
        CHECK_EQ(rtf_spec_create(&s, &p), RTF_OK);
        CHECK_EQ(peer_last(NULL).header.version, RTF_PROTO_VERSION);

        peer_last_report(&reports0);
        CHECK_EQ(rtf_task_start_attr(&s, &attr), 0);
        for (int i = 0; i < 5; i++)
                CHECK(rtf_task_wait_period(&s) >= 0);
        reports = wait_reports(reports0, &last);
        CHECK(reports > reports0 && reports - reports0 < 5);
        CHECK_EQ(last.header.version, RTF_PROTO_VERSION);
        CHECK_EQ(last.report.id, 77);
        CHECK_EQ(last.report.stats.flags, 0);
        CHECK_EQ(last.report.stats.budget_mode, RTF_BUDGET_NONE);
        CHECK_EQ(last.report.stats.period_ns, 1000000);
        CHECK(last.report.stats.periods >= 1 && last.report.stats.periods <= 5);

        /* Nothing answered the reports: the next request gets its own reply. */
        CHECK_EQ(rtf_spec_change(&s, &p), RTF_OK);

        CHECK_EQ(rtf_task_stop(&s), 0);
        reports0 = reports;
        reports = wait_reports(reports0, &last);
        CHECK_EQ(reports, reports0 + 1);
        CHECK_EQ(last.report.stats.flags, RTF_STATS_FINAL);
        CHECK_EQ(last.report.stats.periods, 5);

        /* Another thread's request holds the connection: reports are skipped, not waited for. */
        CHECK_EQ(rtf_task_start_attr(&s, &attr), 0);
        h.spec = s;
        h.spec.task = NULL;
        h.params = p;
        peer_last(&requests);
        peer_set(PEER_HOLD, &ok);
        CHECK_EQ(pthread_create(&thread, NULL, held_change_thread, &h), 0);
        /* Once the peer holds the request, its thread holds the connection until peer_release(). */
        for (unsigned i = 0, now = requests; i < 30000 && now == requests; i++) {
                usleep(1000);
                peer_last(&now);
        }
        CHECK(rtf_task_wait_period(&s) >= 0);   /* a report is due: the first of this task */
        CHECK_EQ(rtf_task_stop(&s), 0);         /* and the last */
        CHECK_EQ(atomic_load(&h.done), 0);      /* both returned while the request was held */
        peer_release();
        pthread_join(thread, NULL);
        CHECK_EQ(h.result, RTF_OK);
        peer_set(PEER_SCRIPT, &ok);
        CHECK_EQ(rtf_spec_change(&s, &p), RTF_OK);      /* after anything sent before it */
        peer_last_report(&reports0);
        CHECK_EQ(reports0, reports);

        /* A released spec has nobody left to report to. */
        CHECK_EQ(rtf_task_start_attr(&s, &attr), 0);
        CHECK_EQ(rtf_spec_release(&s), RTF_OK);
        CHECK_EQ(rtf_spec_create(&s, &p), RTF_OK);      /* a round trip after the release */
        peer_last_report(&reports0);
        CHECK_EQ(reports0, reports);
        CHECK_EQ(rtf_spec_release(&s), RTF_OK);
        CHECK_EQ(rtf_disconnect(), RTF_OK);
}

static int child_after_fork(void) {
        struct rtf_spec s = RTF_SPEC_INIT;
        struct rtf_params p;

        make_params(&p, 777);
        if (rtf_spec_create(&s, &p) != -ENOTCONN)
                return 1;
        if (rtf_connect() != RTF_OK)
                return 2;
        if (rtf_spec_create(&s, &p) != RTF_SCHEDULE_FAIL || strcmp(rtf_last_reason(), "777") != 0)
                return 3;
        return 0;
}

/* A child does not speak on its parent's connection. */
static void test_fork(void) {
        struct rtf_spec s = RTF_SPEC_INIT;
        struct rtf_params p;
        unsigned accepted;
        int status = -1;
        pid_t pid;

        peer_set(PEER_ECHO, NULL);
        CHECK_EQ(rtf_connect(), RTF_OK);
        /* A round trip: the peer has accepted the parent's connection before it is counted. */
        make_params(&p, 887);
        CHECK_EQ(rtf_spec_create(&s, &p), RTF_SCHEDULE_FAIL);
        accepted = peer_accepted();

        pid = fork();
        CHECK(pid >= 0);
        if (pid == 0)
                _exit(child_after_fork());
        CHECK_EQ(waitpid(pid, &status, 0), pid);
        CHECK(WIFEXITED(status));
        CHECK_EQ(WEXITSTATUS(status), 0);
        CHECK_EQ(peer_accepted(), accepted + 1);

        make_params(&p, 888);
        CHECK_EQ(rtf_spec_create(&s, &p), RTF_SCHEDULE_FAIL);
        CHECK(strcmp(rtf_last_reason(), "888") == 0);
        CHECK_EQ(rtf_disconnect(), RTF_OK);
}

int main(void) {
        static void (*const tests[])(void) = {
                test_fork, test_reports,
        };

        return peer_tests_run(tests, ELEMS(tests));
}
