/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librtf against a peer that misbehaves or answers as scripted
 * (client-fixture.h): connection failures, broken replies, every request and
 * its reply, and several threads on one connection.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client-fixture.h"
#include "tap.h"

static void test_connect_failures(void) {
        char path[200];

        snprintf(path, sizeof(path), "%s/nonexistent", peer_dir());
        setenv("RTF_SOCKET", path, 1);
        CHECK_EQ(rtf_connect(), RTF_CONNECTION_ERR);
        CHECK(strstr(rtf_last_reason(), "No such file or directory") != NULL);

        memset(path, 'a', sizeof(path) - 1);
        path[0] = '/';
        path[sizeof(path) - 1] = '\0';
        setenv("RTF_SOCKET", path, 1);
        CHECK_EQ(rtf_connect(), RTF_CONNECTION_ERR);
        CHECK(strstr(rtf_last_reason(), "too long") != NULL);

        setenv("RTF_SOCKET", peer_path(), 1);
}

/* One create against a misbehaving peer: the result, the reason, and no connection left. */
static void expect_failure(enum peer_mode mode, int expect, const char *reason) {
        struct rtf_spec s = RTF_SPEC_INIT;
        struct rtf_params p;

        peer_set(mode, NULL);
        CHECK_EQ(rtf_connect(), RTF_OK);
        make_params(&p, 10000);
        CHECK_EQ(rtf_spec_create(&s, &p), expect);
        if (!strstr(rtf_last_reason(), reason))
                fprintf(stderr, "mode %d: reason '%s', expected '%s'\n", mode, rtf_last_reason(), reason);
        CHECK(strstr(rtf_last_reason(), reason) != NULL);
        CHECK_EQ(s.id, 0);
        /* the connection was dropped: a late reply cannot be misread */
        CHECK_EQ(rtf_spec_create(&s, &p), -ENOTCONN);
}

static void test_broken_peer(void) {
        unsigned hung_up;
        int64_t t0, dt;

        /* closed before answering anything: what an rtfd of an older protocol version does */
        expect_failure(PEER_CLOSE, RTF_CONNECTION_ERR, "closed the connection without answering");
        expect_failure(PEER_GARBAGE, -EPROTO, "malformed reply");
        expect_failure(PEER_WRONG_SEQ, -EPROTO, "out of sequence");
        expect_failure(PEER_WRONG_TYPE, -EPROTO, "out of sequence");
        expect_failure(PEER_OVERSIZE, -EPROTO, "larger than");

        t0 = now_ms();
        expect_failure(PEER_SILENT, RTF_CONNECTION_ERR, "no reply from rtfd within 300 ms");
        dt = now_ms() - t0;
        CHECK(dt >= TIMEOUT_MS - 10);
        CHECK(dt < 10 * TIMEOUT_MS);

        /* hung up before the request: send() fails with EPIPE, and no SIGPIPE */
        hung_up = peer_hung_up();
        peer_set(PEER_HANG_UP, NULL);
        CHECK_EQ(rtf_connect(), RTF_OK);
        for (int i = 0; i < 5000 && peer_hung_up() == hung_up; i++)
                usleep(1000);
        CHECK_EQ(peer_hung_up(), hung_up + 1);
        expect_failure(PEER_HANG_UP, RTF_CONNECTION_ERR, "sending to rtfd: Broken pipe");
}

static void test_scripted(void) {
        struct rtf_msg_reply ok = {
                .result = RTF_OK, .id = 42, .accepted_runtime_us = 1500,
                .priority = 0, .cpu = 1, .plugin = "EDF",
        };
        struct rtf_msg_reply refuse = { .result = RTF_SCHEDULE_FAIL, .reason = "U > 1 on every core" };
        struct rtf_spec s = RTF_SPEC_INIT, saved, fresh = RTF_SPEC_INIT;
        struct rtf_params p;
        struct rtf_msg last;
        unsigned accepted, requests, requests2;

        peer_set(PEER_SCRIPT, &refuse);
        accepted = peer_accepted();
        CHECK_EQ(rtf_connect(), RTF_OK);
        CHECK_EQ(rtf_connect(), RTF_OK);        /* twice: the same connection */

        make_params(&p, 10000);
        rtf_params_set_des_runtime(&p, 2000);
        rtf_params_set_scheduler(&p, "EDF");
        CHECK_EQ(rtf_spec_create(&s, &p), RTF_SCHEDULE_FAIL);
        CHECK(strcmp(rtf_last_reason(), "U > 1 on every core") == 0);
        CHECK(memcmp(&s, &fresh, sizeof(s)) == 0);
        CHECK_EQ(peer_accepted(), accepted + 1);

        last = peer_last(&requests);
        CHECK_EQ(last.header.type, RTF_MSG_CREATE);
        CHECK_EQ(last.create.params.period_us, 10000);
        CHECK_EQ(last.create.params.des_runtime_us, 2000);
        CHECK(strcmp(last.create.params.plugin, "EDF") == 0);

        peer_set(PEER_SCRIPT, &ok);
        CHECK_EQ(rtf_spec_create(&s, &p), RTF_OK);
        CHECK(strcmp(rtf_last_reason(), "") == 0);
        CHECK_EQ(s.id, 42);
        CHECK_EQ(s.accepted_runtime_us, 1500);
        CHECK_EQ(rtf_spec_get_accepted_runtime(&s), 1500);
        CHECK_EQ(s.core, 1);
        CHECK(strcmp(s.plugin, "EDF") == 0);
        CHECK(memcmp(&s.params, &p, sizeof(p)) == 0);
        CHECK_EQ(s.tid, 0);

        /* a fresh spec only */
        peer_last(&requests);
        CHECK_EQ(rtf_spec_create(&s, &p), -EBUSY);
        peer_last(&requests2);
        CHECK_EQ(requests2, requests);

        /* a refused change leaves the spec alone */
        saved = s;
        rtf_params_set_runtime(&p, 3000);
        peer_set(PEER_SCRIPT, &refuse);
        CHECK_EQ(rtf_spec_change(&s, &p), RTF_SCHEDULE_FAIL);
        CHECK(memcmp(&s, &saved, sizeof(s)) == 0);
        last = peer_last(NULL);
        CHECK_EQ(last.header.type, RTF_MSG_CHANGE);
        CHECK_EQ(last.change.id, 42);
        CHECK_EQ(last.change.params.runtime_us, 3000);

        refuse.result = RTF_ACL_FAIL;
        peer_set(PEER_SCRIPT, &refuse);
        CHECK_EQ(rtf_spec_change(&s, &p), RTF_ACL_FAIL);
        CHECK(memcmp(&s, &saved, sizeof(s)) == 0);

        /* a result the API does not have */
        refuse.result = 17;
        peer_set(PEER_SCRIPT, &refuse);
        CHECK_EQ(rtf_spec_change(&s, &p), -EPROTO);
        CHECK(memcmp(&s, &saved, sizeof(s)) == 0);

        /* an answer about another reservation */
        ok.id = 43;
        peer_set(PEER_SCRIPT, &ok);
        CHECK_EQ(rtf_spec_change(&s, &p), -EPROTO);
        CHECK(memcmp(&s, &saved, sizeof(s)) == 0);

        ok.id = 42;
        ok.accepted_runtime_us = 3000;
        peer_set(PEER_SCRIPT, &ok);
        CHECK_EQ(rtf_spec_change(&s, &p), RTF_OK);
        CHECK_EQ(rtf_spec_get_accepted_runtime(&s), 3000);
        CHECK_EQ(s.params.runtime_us, 3000);

        /* attach: 0 is the calling thread */
        CHECK_EQ(rtf_spec_attach(&s, 0), RTF_OK);
        CHECK_EQ(s.tid, gettid());
        last = peer_last(NULL);
        CHECK_EQ(last.header.type, RTF_MSG_ATTACH);
        CHECK_EQ(last.attach.id, 42);
        CHECK_EQ(last.attach.tid, gettid());
        CHECK_EQ(rtf_spec_attach(&s, getpid()), RTF_OK);
        CHECK_EQ(peer_last(NULL).attach.tid, getpid());

        refuse.result = -EBUSY;
        peer_set(PEER_SCRIPT, &refuse);
        CHECK_EQ(rtf_spec_attach(&s, 12345), -EBUSY);
        CHECK_EQ(s.tid, getpid());

        refuse.result = -ENOENT;
        peer_set(PEER_SCRIPT, &refuse);
        CHECK_EQ(rtf_spec_detach(&s), -ENOENT);
        CHECK_EQ(s.tid, getpid());
        peer_set(PEER_SCRIPT, &ok);
        CHECK_EQ(rtf_spec_detach(&s), RTF_OK);
        CHECK_EQ(s.tid, 0);
        CHECK_EQ(peer_last(NULL).header.type, RTF_MSG_DETACH);

        /* release: also when rtfd no longer knows it */
        peer_set(PEER_SCRIPT, &refuse);
        CHECK_EQ(rtf_spec_release(&s), -ENOENT);
        CHECK(memcmp(&s, &fresh, sizeof(s)) == 0);
        CHECK_EQ(peer_last(NULL).header.type, RTF_MSG_RELEASE);
        CHECK_EQ(peer_last(NULL).id.id, 42);

        peer_set(PEER_SCRIPT, &ok);
        CHECK_EQ(rtf_spec_create(&s, &p), RTF_OK);
        CHECK_EQ(rtf_spec_release(&s), RTF_OK);
        CHECK(memcmp(&s, &fresh, sizeof(s)) == 0);

        /* a release that cannot reach rtfd keeps the spec */
        CHECK_EQ(rtf_spec_create(&s, &p), RTF_OK);
        saved = s;
        peer_set(PEER_CLOSE, NULL);
        CHECK_EQ(rtf_spec_release(&s), RTF_CONNECTION_ERR);
        CHECK(memcmp(&s, &saved, sizeof(s)) == 0);
        CHECK_EQ(rtf_spec_release(&s), -ENOTCONN);
        CHECK(memcmp(&s, &saved, sizeof(s)) == 0);
        CHECK_EQ(rtf_disconnect(), RTF_OK);
        CHECK_EQ(rtf_disconnect(), RTF_OK);
}

#define THREADS 8
#define REQUESTS 200

struct echo_job {
        unsigned index;
        unsigned bad;
};

static void *echo_thread(void *arg) {
        struct echo_job *job = arg;

        for (unsigned i = 0; i < REQUESTS; i++) {
                struct rtf_spec s = RTF_SPEC_INIT;
                struct rtf_params p;
                char want[32];
                uint64_t period = 1000 + job->index * 100000 + i;

                make_params(&p, period);
                snprintf(want, sizeof(want), "%llu", (unsigned long long) period);
                if (rtf_spec_create(&s, &p) != RTF_SCHEDULE_FAIL || strcmp(rtf_last_reason(), want) != 0)
                        job->bad++;
        }
        return NULL;
}

/* Requests of several threads on the one connection: each gets its own answer. */
static void test_concurrent(void) {
        struct echo_job jobs[THREADS];
        pthread_t t[THREADS];
        unsigned requests0, requests1;

        peer_set(PEER_ECHO, NULL);
        CHECK_EQ(rtf_connect(), RTF_OK);
        peer_last(&requests0);
        for (unsigned i = 0; i < THREADS; i++) {
                jobs[i] = (struct echo_job) { .index = i };
                CHECK_EQ(pthread_create(&t[i], NULL, echo_thread, &jobs[i]), 0);
        }
        for (unsigned i = 0; i < THREADS; i++) {
                pthread_join(t[i], NULL);
                CHECK_EQ(jobs[i].bad, 0);
        }
        peer_last(&requests1);
        CHECK_EQ(requests1 - requests0, THREADS * REQUESTS);
}

int main(void) {
        static void (*const tests[])(void) = {
                test_connect_failures, test_broken_peer, test_scripted, test_concurrent,
        };

        return peer_tests_run(tests, ELEMS(tests));
}
