/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Crash safety: rtfd keeps the list of threads it promoted in a small state
 * file under /run (rewritten atomically whenever the list changes).  A
 * restarted rtfd demotes every thread of that list that still exists, is the
 * same thread (same start time) and still runs at a real-time policy: the
 * clients that owned them lost their reservations with the old rtfd's
 * connections, so nothing may keep running real-time without an owner.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * A thread is recognised by its pidfd's inode number: pidfs (Linux >= 6.9,
 * which PIDFD_THREAD needs anyway) gives every struct pid its own inode for
 * the whole boot, so a successor that reuses the thread id has another one.
 * The start time alone would not do: it moves in 10 ms steps.
 */
struct state_entry {
        pid_t tid;
        uint64_t starttime;             /* field 22 of /proc/<tid>/stat */
        uint64_t pidfd_ino;
};

int state_save(const char *path, const struct state_entry *entries, size_t n);
/* Demote what a previous rtfd left promoted; returns how many were demoted. */
int state_recover(const char *path);

/* The start time of a thread, to tell it from a successor with the same id. */
int thread_starttime(pid_t tid, uint64_t *ret);
/* Pure parser of the text of /proc/<tid>/stat (for tests). */
int stat_text_starttime(const char *text, size_t len, uint64_t *ret);
