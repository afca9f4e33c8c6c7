/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>

#include "user.h"

static size_t bucket_of(size_t n_buckets, uid_t uid) {
        return (size_t)((uint64_t)uid * 0x9E3779B97F4A7C15ULL >> 32) & (n_buckets - 1);
}

static int registry_grow(struct user_registry *r) {
        size_t n = r->n_buckets ? r->n_buckets * 2 : 16;
        struct user **b = calloc(n, sizeof(*b));

        if (!b)
                return -ENOMEM;
        for (size_t i = 0; i < r->n_buckets; i++) {
                struct user *u, *next;

                LIST_FOREACH_SAFE(bucket, u, next, r->buckets[i])
                        LIST_PREPEND(bucket, b[bucket_of(n, u->uid)], u);
        }
        free(r->buckets);
        r->buckets = b;
        r->n_buckets = n;
        return 0;
}

void user_registry_deinit(struct user_registry *r) {
        for (size_t i = 0; i < r->n_buckets; i++) {
                struct user *u, *next;

                LIST_FOREACH_SAFE(bucket, u, next, r->buckets[i])
                        free(u);
        }
        free(r->buckets);
        *r = USER_REGISTRY_NULL;
}

struct user *user_registry_find(const struct user_registry *r, uid_t uid) {
        struct user *u;

        if (!r->n_buckets)
                return NULL;
        LIST_FOREACH(bucket, u, r->buckets[bucket_of(r->n_buckets, uid)])
                if (u->uid == uid)
                        return u;
        return NULL;
}

static void user_free(struct user_registry *r, struct user *u) {
        LIST_REMOVE(bucket, r->buckets[bucket_of(r->n_buckets, u->uid)], u);
        r->n_users--;
        free(u);
}

/* Free the users without references whose debts are paid by `now_ns`. */
static void registry_sweep(struct user_registry *r, int64_t now_ns) {
        for (size_t i = 0; i < r->n_buckets; i++) {
                struct user *u, *next;

                LIST_FOREACH_SAFE(bucket, u, next, r->buckets[i])
                        if (u->n_ref == 0 && u->keep_until_ns <= now_ns)
                                user_free(r, u);
        }
}

int user_registry_ref(struct user_registry *r, uid_t uid, int64_t now_ns, uint32_t burst, struct user **ret) {
        struct user *u = user_registry_find(r, uid);

        if (!u) {
                registry_sweep(r, now_ns);
                if (r->n_users + 1 > r->n_buckets * 2 && registry_grow(r) < 0)
                        return -ENOMEM;
                u = calloc(1, sizeof(*u));
                if (!u)
                        return -ENOMEM;
                u->uid = uid;
                u->tokens = burst;
                u->tokens_at_ns = now_ns;
                LIST_PREPEND(bucket, r->buckets[bucket_of(r->n_buckets, uid)], u);
                r->n_users++;
        }
        u->n_ref++;
        *ret = u;
        return 0;
}

struct user *user_unref(struct user_registry *r, struct user *u, int64_t keep_until_ns) {
        if (!u || --u->n_ref > 0)
                return NULL;
        u->keep_until_ns = keep_until_ns;
        if (keep_until_ns <= 0)
                user_free(r, u);
        return NULL;
}

/* The request bucket as it is at now_ns: refilled at per_sec, at most burst. */
static double tokens_at(const struct user *u, int64_t now_ns, uint32_t per_sec, uint32_t burst) {
        double tokens = u->tokens;

        if (now_ns > u->tokens_at_ns)
                tokens += (double)(now_ns - u->tokens_at_ns) * 1e-9 * per_sec;
        return tokens > burst ? burst : tokens;
}

/* The share of rtfd's time as it is at now_ns: refilled at permille, at most
 * burst_ns; full if it was never charged. */
static double credit_at(const struct user *u, int64_t now_ns, uint32_t permille, uint64_t burst_ns) {
        double credit = u->busy_credit_ns;

        if (!u->busy_at_ns)
                return (double)burst_ns;
        if (now_ns > u->busy_at_ns)
                credit += (double)(now_ns - u->busy_at_ns) * permille / 1000.0;
        return credit > (double)burst_ns ? (double)burst_ns : credit;
}

int64_t user_owes_until_ns(const struct user *u, int64_t now_ns, uint32_t per_sec, uint32_t burst, uint32_t permille,
                           uint64_t burst_ns) {
        double tokens = tokens_at(u, now_ns, per_sec, burst), credit = credit_at(u, now_ns, permille, burst_ns);
        int64_t until = 0;

        if (tokens < burst)
                until = per_sec ? now_ns + (int64_t)(((double)burst - tokens) * 1e9 / per_sec) + 1 : INT64_MAX;
        if (credit < (double)burst_ns) {
                int64_t t = permille ? now_ns + (int64_t)(((double)burst_ns - credit) * 1000.0 / permille) + 1
                                     : INT64_MAX;

                if (t > until)
                        until = t;
        }
        return until;
}

bool user_rate_allows(struct user *u, int64_t now_ns, uint32_t per_sec, uint32_t burst) {
        u->tokens = tokens_at(u, now_ns, per_sec, burst);
        u->tokens_at_ns = now_ns;
        if (u->tokens < 1.0)
                return false;
        u->tokens -= 1.0;
        return true;
}

bool user_busy_allows(struct user *u, int64_t now_ns, uint32_t permille, uint64_t burst_ns) {
        u->busy_credit_ns = credit_at(u, now_ns, permille, burst_ns);
        u->busy_at_ns = now_ns;
        return u->busy_credit_ns > 0;
}

void user_busy_charge(struct user *u, int64_t ns) {
        if (ns > 0)
                u->busy_credit_ns -= (double)ns;
}

int64_t user_busy_wait_ns(const struct user *u, uint32_t permille) {
        if (u->busy_credit_ns > 0)
                return 0;
        if (permille == 0)
                return INT64_MAX;
        /* +1 ns: the credit must become positive, not zero */
        return (int64_t)(-u->busy_credit_ns * 1000.0 / permille) + 1;
}
