/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* librtf without rtfd or any peer: argument checks, the texts and the reasons. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "client-fixture.h"
#include "tap.h"

static void test_strerror(void) {
        const char *texts[4];

        for (int r = RTF_OK; r <= RTF_CONNECTION_ERR; r++) {
                texts[r] = rtf_strerror(r);
                CHECK(texts[r] && texts[r][0]);
                for (int q = RTF_OK; q < r; q++)
                        CHECK(strcmp(texts[q], texts[r]) != 0);
        }
        CHECK(strcmp(rtf_strerror(-EINVAL), "Invalid argument") == 0);
        CHECK(strcmp(rtf_strerror(-ENOTCONN), "Transport endpoint is not connected") == 0);
        for (int e = 1; e < 134; e++)
                CHECK(rtf_strerror(-e) && rtf_strerror(-e)[0]);
        CHECK(strcmp(rtf_strerror(4), "Unknown result 4") == 0);
        CHECK(strcmp(rtf_strerror(-100000), "Unknown result -100000") == 0);
        CHECK(strcmp(rtf_strerror(INT_MIN), "Unknown result -2147483648") == 0);
        CHECK(strcmp(rtf_strerror(INT_MAX), "Unknown result 2147483647") == 0);
        CHECK(strcmp(rtf_last_reason(), "") == 0);
}

struct strerror_job {
        int code;
        unsigned bad;
};

static void *strerror_thread(void *arg) {
        struct strerror_job *job = arg;
        char want[64];

        snprintf(want, sizeof(want), "Unknown result %d", job->code);
        for (int i = 0; i < 10000; i++)
                if (strcmp(rtf_strerror(job->code), want) != 0)
                        job->bad++;
        return NULL;
}

static void test_strerror_threads(void) {
        struct strerror_job jobs[4] = {
                { .code = 1000 }, { .code = 2000 }, { .code = -200000 }, { .code = 4 },
        };
        pthread_t t[4];

        for (int i = 0; i < 4; i++)
                CHECK_EQ(pthread_create(&t[i], NULL, strerror_thread, &jobs[i]), 0);
        for (int i = 0; i < 4; i++) {
                pthread_join(t[i], NULL);
                CHECK_EQ(jobs[i].bad, 0);
        }
}

static void test_params(void) {
        struct rtf_params p = RTF_PARAM_INIT, q;
        uint64_t (*getters[])(const struct rtf_params *) = {
                rtf_params_get_period, rtf_params_get_runtime,
                rtf_params_get_des_runtime, rtf_params_get_deadline,
        };
        int (*setters[])(struct rtf_params *, uint64_t) = {
                rtf_params_set_period, rtf_params_set_runtime,
                rtf_params_set_des_runtime, rtf_params_set_deadline,
        };
        char name[64];

        memset(&q, 0xa5, sizeof(q));
        CHECK_EQ(rtf_params_init(&q), 0);
        CHECK(memcmp(&p, &q, sizeof(p)) == 0);
        CHECK_EQ(rtf_params_init(NULL), -EINVAL);

        for (unsigned i = 0; i < 4; i++) {
                CHECK_EQ(getters[i](&p), 0);
                CHECK_EQ(setters[i](&p, 0), -EINVAL);
                CHECK_EQ(setters[i](&p, UINT64_C(1) << 32), -EINVAL);
                CHECK_EQ(setters[i](&p, UINT64_MAX), -EINVAL);
                CHECK_EQ(getters[i](&p), 0);
                CHECK_EQ(setters[i](&p, (UINT64_C(1) << 32) - 1), 0);
                CHECK_EQ(getters[i](&p), (UINT64_C(1) << 32) - 1);
                CHECK_EQ(setters[i](&p, 1), 0);
                CHECK_EQ(getters[i](&p), 1);
                CHECK_EQ(setters[i](NULL, 1), -EINVAL);
                CHECK_EQ(getters[i](NULL), 0);
        }
        CHECK_EQ(p.flags, RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_RUNTIME |
                 RTF_PARAM_HAS_DES_RUNTIME | RTF_PARAM_HAS_DEADLINE);

        CHECK_EQ(rtf_params_get_priority(&p), 0);
        CHECK_EQ(rtf_params_set_priority(&p, 0), -EINVAL);
        CHECK_EQ(rtf_params_set_priority(&p, 100), -EINVAL);
        CHECK_EQ(rtf_params_get_priority(&p), 0);
        CHECK_EQ(rtf_params_set_priority(&p, 1), 0);
        CHECK_EQ(rtf_params_get_priority(&p), 1);
        CHECK_EQ(rtf_params_set_priority(&p, 99), 0);
        CHECK_EQ(rtf_params_get_priority(&p), 99);

        CHECK(rtf_params_get_scheduler(&p) == NULL);
        CHECK_EQ(rtf_params_set_scheduler(&p, "EDF"), 0);
        CHECK(strcmp(rtf_params_get_scheduler(&p), "EDF") == 0);
        memset(name, 'x', sizeof(name));
        name[31] = '\0';
        CHECK_EQ(rtf_params_set_scheduler(&p, name), 0);
        CHECK(strcmp(rtf_params_get_scheduler(&p), name) == 0);
        name[31] = 'x';
        name[32] = '\0';
        CHECK_EQ(rtf_params_set_scheduler(&p, name), -EINVAL);
        CHECK(strlen(rtf_params_get_scheduler(&p)) == 31);
        CHECK_EQ(rtf_params_set_scheduler(&p, ""), 0);
        CHECK(rtf_params_get_scheduler(&p) == NULL);
        CHECK_EQ(rtf_params_set_scheduler(&p, "RM"), 0);
        CHECK_EQ(rtf_params_set_scheduler(&p, NULL), 0);
        CHECK(rtf_params_get_scheduler(&p) == NULL);
        CHECK_EQ(p.flags & RTF_PARAM_HAS_SCHEDULER, 0);

        CHECK_EQ(rtf_params_ignore_admission(&p, true), 0);
        CHECK(p.flags & RTF_PARAM_IGNORE_ADMISSION);
        CHECK_EQ(rtf_params_ignore_admission(&p, false), 0);
        CHECK(!(p.flags & RTF_PARAM_IGNORE_ADMISSION));
        CHECK_EQ(rtf_params_ignore_admission(NULL, true), -EINVAL);

        /* the size prefix: only this library's size is accepted */
        q = p;
        q.size = sizeof(q) - 8;
        CHECK_EQ(rtf_params_set_period(&q, 10), -EINVAL);
        CHECK_EQ(rtf_params_set_priority(&q, 10), -EINVAL);
        CHECK_EQ(rtf_params_set_scheduler(&q, "EDF"), -EINVAL);
        CHECK_EQ(rtf_params_ignore_admission(&q, true), -EINVAL);
        CHECK_EQ(rtf_params_get_period(&q), 0);
        CHECK_EQ(rtf_params_get_priority(&q), 0);
        CHECK(rtf_params_get_scheduler(&q) == NULL);
}

static void test_not_connected(void) {
        struct rtf_spec s = RTF_SPEC_INIT, t;
        struct rtf_params p;

        make_params(&p, 10000);
        CHECK_EQ(rtf_spec_create(&s, &p), -ENOTCONN);
        CHECK(strstr(rtf_last_reason(), "rtf_connect") != NULL);
        CHECK_EQ(s.id, 0);

        /* state and argument checks come before the connection */
        CHECK_EQ(rtf_spec_change(&s, &p), -EINVAL);
        CHECK_EQ(rtf_spec_release(&s), -EINVAL);
        CHECK_EQ(rtf_spec_attach(&s, 0), -EINVAL);
        CHECK_EQ(rtf_spec_detach(&s), -EINVAL);
        CHECK_EQ(rtf_spec_get_accepted_runtime(&s), -EINVAL);
        CHECK_EQ(rtf_spec_create(NULL, &p), -EINVAL);
        CHECK_EQ(rtf_spec_create(&s, NULL), -EINVAL);

        t = s;
        t.size = 8;
        CHECK_EQ(rtf_spec_create(&t, &p), -EINVAL);
        p.size = 8;
        CHECK_EQ(rtf_spec_create(&s, &p), -EINVAL);
        make_params(&p, 10000);
        p.flags |= 1u << 20;            /* a flag this library does not know */
        CHECK_EQ(rtf_spec_create(&s, &p), -EINVAL);
        make_params(&p, 10000);
        p.priority = 100;               /* written directly, bypassing the setter */
        p.flags |= RTF_PARAM_HAS_PRIORITY;
        CHECK_EQ(rtf_spec_create(&s, &p), -EINVAL);
        make_params(&p, 10000);

        s.id = 5;
        CHECK_EQ(rtf_spec_create(&s, &p), -EBUSY);
        CHECK_EQ(rtf_spec_change(&s, &p), -ENOTCONN);
        CHECK_EQ(rtf_spec_release(&s), -ENOTCONN);
        CHECK_EQ(rtf_spec_attach(&s, 0), -ENOTCONN);
        CHECK_EQ(rtf_spec_attach(&s, -1), -EINVAL);
        CHECK_EQ(rtf_spec_detach(&s), -ENOTCONN);
        CHECK_EQ(s.id, 5);
        CHECK_EQ(rtf_disconnect(), RTF_OK);
}

/* A local -EINVAL says why, and never leaves an older reason behind (issue 12). */
static void test_local_reasons(void) {
        struct rtf_spec s = RTF_SPEC_INIT;
        struct rtf_params p;

        make_params(&p, 10000);
        CHECK_EQ(rtf_spec_create(&s, &p), -ENOTCONN);
        CHECK(strstr(rtf_last_reason(), "rtf_connect") != NULL);

        CHECK_EQ(rtf_params_set_runtime(&p, 20000), 0);
        CHECK_EQ(strcmp(rtf_last_reason(), ""), 0);     /* a call that succeeds clears it */
        CHECK_EQ(rtf_spec_create(&s, &p), -EINVAL);
        CHECK(strstr(rtf_last_reason(), "runtime must be at most the period") != NULL);

        make_params(&p, 10000);
        CHECK_EQ(rtf_params_set_deadline(&p, 5000), 0);
        CHECK_EQ(rtf_params_set_runtime(&p, 6000), 0);
        CHECK_EQ(rtf_spec_create(&s, &p), -EINVAL);
        CHECK(strstr(rtf_last_reason(), "runtime must be at most the deadline") != NULL);

        make_params(&p, 10000);
        CHECK_EQ(rtf_params_set_des_runtime(&p, 10001), 0);
        CHECK_EQ(rtf_spec_create(&s, &p), -EINVAL);
        CHECK(strstr(rtf_last_reason(), "desired runtime must be at most the period") != NULL);

        CHECK_EQ(rtf_params_set_period(&p, 0), -EINVAL);
        CHECK(strstr(rtf_last_reason(), "period must be in 1..") != NULL);
        CHECK_EQ(rtf_params_set_priority(&p, 100), -EINVAL);
        CHECK(strstr(rtf_last_reason(), "priority must be in 1..99") != NULL);
        CHECK_EQ(rtf_spec_release(&s), -EINVAL);
        CHECK(strstr(rtf_last_reason(), "holds no reservation") != NULL);
        s.size = 8;
        CHECK_EQ(rtf_spec_attach(&s, 0), -EINVAL);
        CHECK(strstr(rtf_last_reason(), "RTF_SPEC_INIT") != NULL);
        CHECK_EQ(rtf_spec_create(NULL, &p), -EINVAL);
        CHECK(strstr(rtf_last_reason(), "NULL") != NULL);
        s = (struct rtf_spec) RTF_SPEC_INIT;
        CHECK_EQ(rtf_task_start(&s), -EINVAL);
        CHECK(strstr(rtf_last_reason(), "created with a period") != NULL);
}

int main(void) {
        test_strerror();
        test_strerror_threads();
        test_params();
        test_not_connected();
        test_local_reasons();
        return test_done();
}
