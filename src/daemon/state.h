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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "thread.h"

/*
 * A thread is recognised by its pidfd's inode number: pidfs (Linux >= 6.9,
 * which PIDFD_THREAD needs anyway) gives every struct pid its own inode for
 * the whole boot, so a successor that reuses the thread id has another one.
 * The start time alone would not do: it moves in 10 ms steps.  rtfd no longer
 * records it (an attach would pay a /proc read for it); journals written by
 * older versions carry it and it is still compared when present.
 */
struct state_entry {
        pid_t tid;
        uint64_t starttime;             /* field 22 of /proc/<tid>/stat; 0 = not recorded
                                         * (recorded where the kernel has no pidfs: thread-compat.h) */
        uint64_t pidfd_ino;
        /* Since issue 10 (older journals lack them: tgid 0, an original of
         * SCHED_OTHER nice 0): the process, for a thread that exec'd while
         * no rtfd ran, and what the thread had before it was promoted. */
        pid_t tgid;
        uint64_t proc_ino;
        bool leader_was_rt;
        struct thread_original original;
};

/*
 * The file is a journal: "+ tid starttime inode tgid process-inode policy
 * nice reset-on-fork leader-was-rt" when a thread is promoted,
 * "- ..." when it is let go, one write(2) of one line each (O_APPEND), so
 * an attach costs one small write and a crash can at worst lose the line
 * being written.  When the journal grows past STATE_COMPACT_LINES it is
 * rewritten (through a new file and rename(2)) with only the live entries.
 * Every file operation after the start goes through the directory descriptor
 * that was checked then (openat, renameat, unlinkat): a path is resolved and
 * trusted once, so there is nothing to check again later.
 */
#define STATE_COMPACT_LINES 4096

struct state {
        char path[4096];                /* for messages: the files are reached through dfd */
        size_t base;                    /* offset of the journal's name in path */
        int dfd;                        /* its directory, as trusted at start */
        int fd;
        size_t lines;                   /* in the journal now */
};

#define STATE_NULL ((struct state){ .dfd = -1, .fd = -1 })

/* Demote what a previous rtfd left promoted, then start an empty journal.
 * A journal whose directory or file is not trusted (trusted.h) is neither
 * read nor written: a negative errno, logged with the path and the fix, on
 * which rtfd refuses to start. */
int state_open(struct state *st, const char *path);
/* For a journal path the administrator gave: 0 if its directory is
 * trusted, else a negative errno with an error naming the path and the fix. */
int state_check_trusted(const char *path);
/* Journal a promotion (add) or its end; `live` lists the entries in force
 * afterwards, for a compaction (NULL: no compaction now). */
void state_note(struct state *st, bool add, const struct state_entry *e,
                const struct state_entry *live, size_t n_live);
/* The journal entry of an attached thread. */
struct state_entry state_entry_of(const struct thread *t);
/* Pure parser of one journal line (for tests): 1 = an addition, 0 = a removal,
 * -EINVAL for anything else; and its inverse (sign '+' or '-'). */
int state_parse_line(const char *line, struct state_entry *ret);
int state_format_line(char *buf, size_t size, char sign, const struct state_entry *e);
/* Close the journal and remove it (at a clean stop, when nothing is promoted
 * any more), or keep it for the next rtfd (threads whose demotion failed). */
void state_close(struct state *st, bool keep);

/* The start time of a thread, to tell it from a successor with the same id. */
int thread_starttime(pid_t tid, uint64_t *ret);
/* Pure parser of the text of /proc/<tid>/stat (for tests). */
int stat_text_starttime(const char *text, size_t len, uint64_t *ret);
