/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The per-uid accounting objects (src/daemon/user.c). */
#include <stdlib.h>

#include "tap.h"
#include "user.h"

static void test_refs(void) {
        struct user_registry r = USER_REGISTRY_NULL;
        struct user *u[200], *again;

        CHECK(user_registry_find(&r, 1000) == NULL);
        /* Enough users for the table to grow several times. */
        for (unsigned i = 0; i < 200; i++) {
                CHECK_EQ(user_registry_ref(&r, 1000 + i, 0, 10, &u[i]), 0);
                u[i]->specs = i;
        }
        CHECK_EQ(r.n_users, 200);
        for (unsigned i = 0; i < 200; i++) {
                struct user *f = user_registry_find(&r, 1000 + i);

                CHECK(f == u[i]);
                CHECK_EQ(f ? f->specs : 9999, i);
        }
        /* A second reference shares the object; it lives until the last is dropped. */
        CHECK_EQ(user_registry_ref(&r, 1000, 0, 10, &again), 0);
        CHECK(again == u[0]);
        CHECK_EQ(r.n_users, 200);
        CHECK(user_unref(&r, u[0], 0) == NULL);
        CHECK(user_registry_find(&r, 1000) == again);
        CHECK(user_unref(&r, again, 0) == NULL);
        CHECK(user_registry_find(&r, 1000) == NULL);
        CHECK_EQ(r.n_users, 199);
        CHECK(user_unref(&r, NULL, 0) == NULL);
        for (unsigned i = 1; i < 100; i++)
                user_unref(&r, u[i], 0);
        CHECK_EQ(r.n_users, 100);
        CHECK(user_registry_find(&r, 1150) == u[150]);
        user_registry_deinit(&r);       /* frees the rest */
        CHECK_EQ(r.n_users, 0);
}

static void test_rate(void) {
        struct user_registry r = USER_REGISTRY_NULL;
        const int64_t sec = 1000000000;
        unsigned n = 0;
        struct user *u;

        CHECK_EQ(user_registry_ref(&r, 5, 10 * sec, 3, &u), 0);
        /* A full bucket of 3, then nothing until time passes. */
        for (int i = 0; i < 10; i++)
                n += user_rate_allows(u, 10 * sec, 100, 3);
        CHECK_EQ(n, 3);
        /* 100 per second: 50 ms buys 5, capped by the burst of 3. */
        n = 0;
        for (int i = 0; i < 10; i++)
                n += user_rate_allows(u, 10 * sec + sec / 20, 100, 3);
        CHECK_EQ(n, 3);
        /* 10 ms buys 1. */
        n = 0;
        for (int i = 0; i < 10; i++)
                n += user_rate_allows(u, 10 * sec + sec / 20 + sec / 100, 100, 3);
        CHECK_EQ(n, 1);
        /* A clock that goes backwards buys nothing. */
        CHECK(!user_rate_allows(u, 0, 100, 3));
        user_unref(&r, u, 0);
        user_registry_deinit(&r);
}

/* rtfd's time per uid: 250 per mille, 50 ms burst. */
static void test_busy(void) {
        struct user_registry r = USER_REGISTRY_NULL;
        const int64_t ms = 1000000, t0 = 5000 * ms;
        const uint64_t burst = 50 * ms;
        unsigned n = 0;
        struct user *u;

        CHECK_EQ(user_registry_ref(&r, 7, t0, 3, &u), 0);
        /* A full bucket: 1 ms requests until 50 ms are spent. */
        for (int i = 0; i < 100; i++)
                if (user_busy_allows(u, t0, 250, burst)) {
                        user_busy_charge(u, 1 * ms);
                        n++;
                }
        CHECK_EQ(n, 50);
        /* 40 ms of wall time give back 10 ms of rtfd's time. */
        n = 0;
        for (int i = 0; i < 100; i++)
                if (user_busy_allows(u, t0 + 40 * ms, 250, burst)) {
                        user_busy_charge(u, 1 * ms);
                        n++;
                }
        CHECK_EQ(n, 10);
        /* One request that took 100 ms is paid in full before the next: 400 ms
         * of wall time at 250 per mille. */
        CHECK(user_busy_allows(u, t0 + 44 * ms, 250, burst));
        CHECK_EQ(user_busy_wait_ns(u, 250), 0);
        user_busy_charge(u, 100 * ms);
        /* 99 ms owed at 250 per mille: 396 ms to wait. */
        CHECK(!user_busy_allows(u, t0 + 44 * ms, 250, burst));
        CHECK(user_busy_wait_ns(u, 250) > 395 * ms && user_busy_wait_ns(u, 250) <= 396 * ms + 1);
        CHECK(!user_busy_allows(u, t0 + 44 * ms + 390 * ms, 250, burst));
        CHECK(user_busy_allows(u, t0 + 44 * ms + 410 * ms, 250, burst));
        /* Idle for long: never more than the burst. */
        n = 0;
        for (int i = 0; i < 100; i++)
                if (user_busy_allows(u, t0 + 100000 * ms, 250, burst)) {
                        user_busy_charge(u, 1 * ms);
                        n++;
                }
        CHECK_EQ(n, 50);
        user_unref(&r, u, 0);
        user_registry_deinit(&r);
}

/* A uid that spent its buckets keeps its debt across its last connection
 * (test_hostile.py: reconnecting refilled them). */
static void test_debt_outlives_the_last_reference(void) {
        struct user_registry r = USER_REGISTRY_NULL;
        const int64_t sec = 1000000000, t0 = 10 * sec;
        struct user *u, *again, *other;
        int64_t until;

        CHECK_EQ(user_registry_ref(&r, 9, t0, 3, &u), 0);
        CHECK_EQ(user_owes_until_ns(u, t0, 100, 3, 250, 50000000), 0);
        for (int i = 0; i < 3; i++)
                CHECK(user_rate_allows(u, t0, 100, 3));
        /* 3 tokens at 100 per second: full 30 ms later. */
        until = user_owes_until_ns(u, t0, 100, 3, 250, 50000000);
        CHECK(until > t0 + 29 * sec / 1000 && until <= t0 + 30 * sec / 1000 + 1);
        user_unref(&r, u, until);
        CHECK(user_registry_find(&r, 9) == u);
        CHECK_EQ(user_registry_ref(&r, 9, t0, 3, &again), 0);
        CHECK(again == u);
        CHECK(!user_rate_allows(again, t0, 100, 3));
        /* rtfd's time owed too: 100 ms charged over a 50 ms burst at 250 per mille. */
        CHECK(user_busy_allows(again, t0, 250, 50000000));
        user_busy_charge(again, 100000000);
        until = user_owes_until_ns(again, t0, 100, 3, 250, 50000000);
        CHECK(until > t0 + 399 * sec / 1000 && until <= t0 + 400 * sec / 1000 + 1);
        user_unref(&r, again, until);
        /* Another uid's first connection before that time keeps it, after frees it. */
        CHECK_EQ(user_registry_ref(&r, 10, t0 + sec / 10, 3, &other), 0);
        CHECK(user_registry_find(&r, 9) != NULL);
        user_unref(&r, other, 0);
        CHECK_EQ(user_registry_ref(&r, 10, t0 + sec, 3, &other), 0);
        CHECK(user_registry_find(&r, 9) == NULL);
        CHECK_EQ(r.n_users, 1);
        user_unref(&r, other, 0);
        user_registry_deinit(&r);
}

int main(void) {
        test_refs();
        test_rate();
        test_busy();
        test_debt_outlives_the_last_reference();
        return test_done();
}
