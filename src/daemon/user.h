/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One accounting object per uid (after dbus-broker's UserRegistry): every
 * per-user limit (connections, specifications, requests per second) is
 * checked against it, and the utilisation a user's live specifications add
 * up to is kept in it.  A struct user lives while anything refers to it
 * (each connection of the uid holds a reference) and is freed with the last
 * one, or, if the uid still owes requests or rtfd's time then, once that is
 * paid (so reconnecting refills nothing); the registry never grows beyond the
 * users connected now and those of the last few seconds.
 *
 * Pure: no OS calls (the caller passes the time), unit-tested in
 * tests/unit/test-user.c.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "list.h"

struct user {
        uid_t uid;
        unsigned n_ref;
        uint32_t connections;           /* accepted, not refused */
        uint32_t specs;
        uint64_t bandwidth_ppb;         /* utilisation of its live specs, 1e9 = one CPU */
        double tokens;                  /* request rate (token bucket) */
        int64_t tokens_at_ns;
        double busy_credit_ns;          /* rtfd time it may still take (a bucket of nanoseconds) */
        int64_t busy_at_ns;             /* 0 = never charged: the bucket is full */
        int64_t keep_until_ns;          /* no reference left: kept until its buckets are full */
        LIST_FIELDS(struct user, bucket);
};

struct user_registry {
        struct user **buckets;
        size_t n_buckets;               /* a power of two, or 0 */
        size_t n_users;
};

#define USER_REGISTRY_NULL ((struct user_registry){ 0 })

void user_registry_deinit(struct user_registry *r);
/* The user of `uid` while anything refers to it or user_unref() keeps it, else NULL. */
struct user *user_registry_find(const struct user_registry *r, uid_t uid);
/* A new reference to the user of `uid`, created on first use (its token
 * bucket full at `now_ns`, `burst` tokens); users kept by user_unref() whose
 * time has passed are freed first. */
int user_registry_ref(struct user_registry *r, uid_t uid, int64_t now_ns, uint32_t burst, struct user **ret);
/*
 * Drop a reference; takes NULL, returns NULL.  A user whose last reference
 * goes while it still owes (user_owes_until_ns() > 0, passed as
 * `keep_until_ns`) stays in the registry until then: otherwise closing the
 * last connection and opening another would give it full buckets again.
 * Such users are freed by user_registry_ref() once that time has passed.
 */
struct user *user_unref(struct user_registry *r, struct user *u, int64_t keep_until_ns);
/* When both of its buckets (requests at `per_sec` up to `burst`, rtfd's time
 * at `permille` up to `burst_ns`) are full again, seen at `now_ns`; 0 if they
 * are now. */
int64_t user_owes_until_ns(const struct user *u, int64_t now_ns, uint32_t per_sec, uint32_t burst, uint32_t permille,
                           uint64_t burst_ns);

/* One request of `u` at `now_ns` against `per_sec` with `burst`: true if it may go. */
bool user_rate_allows(struct user *u, int64_t now_ns, uint32_t per_sec, uint32_t burst);

/*
 * rtfd's time: the bucket fills at `permille` / 1000 of wall time up to
 * `burst_ns`; a request may start while it holds any credit, and what it
 * took is charged afterwards (user_busy_charge, possibly below zero: a long
 * request is paid in full before the next one).  Pure.
 */
bool user_busy_allows(struct user *u, int64_t now_ns, uint32_t permille, uint64_t burst_ns);
void user_busy_charge(struct user *u, int64_t ns);
/* After a refusal by user_busy_allows(): how long until it allows again (ns). */
int64_t user_busy_wait_ns(const struct user *u, uint32_t permille);
