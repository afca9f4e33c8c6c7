/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtfctl run / rtfctl attach: a reservation of rtfd for a program that does
 * not use librtf itself.  rtfctl asks as the calling user through librtf (the
 * same requests, policy and audit as any client), holds the connection for
 * the program's life, and gives everything back when it ends.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "rtf/rtf.h"

/* Exit statuses of rtfctl run itself, as env(1) and timeout(1) use them. */
#define LAUNCH_EXIT_FAILED 125          /* rtfctl failed, or rtfd refused: the program did not run */
#define LAUNCH_EXIT_CANNOT_EXEC 126     /* the program was found but could not be executed */
#define LAUNCH_EXIT_NOT_FOUND 127       /* no such program */

#define LAUNCH_RESCAN_MS_DEFAULT 100u
#define LAUNCH_MAX_THREADS_DEFAULT 64u
#define LAUNCH_MAX_THREADS_LIMIT 4096u  /* one spec each; rtfd's per-user limit applies too */
#define LAUNCH_NAMES_MAX 32u

enum launch_threads {
        LAUNCH_THREADS_ONE = 0,         /* the main thread (run, attach --pid) or the one thread (attach --tid) */
        LAUNCH_THREADS_ALL,             /* every thread, those created later too */
        LAUNCH_THREADS_NAMED,           /* the threads whose comm matches one of names[] */
};

struct launch_opts {
        struct rtf_params params;
        enum launch_threads threads;
        const char *names[LAUNCH_NAMES_MAX];    /* fnmatch(3) patterns, into the caller's argv */
        unsigned n_names;
        unsigned rescan_ms;
        unsigned max_threads;
        bool verbose;
        pid_t pid;                      /* attach: --pid */
        pid_t tid;                      /* attach: --tid */
        const char *policy;             /* --policy: fifo, rr, deadline; NULL: rtfd chooses */
        char names_buf[1024];           /* --threads, split in place */
};

/* A time in microseconds: a number with an optional unit (us, ms, s); 0 on success or -EINVAL. */
int launch_parse_time_us(const char *text, uint64_t *ret_us);

/*
 * Parse the options of `rtfctl run` (attach = false) or `rtfctl attach`,
 * argv[0] being the subcommand.  Returns the index of the program's argv
 * (run) or 0 (attach) when rtfctl is to go on; -1 when it printed the help
 * and is done; -2 after a usage error it has explained on stderr.
 */
int launch_parse(int argc, char **argv, bool attach, struct launch_opts *ret);

/* Index of a --policy name, or -EINVAL. */
int launch_policy_valid(const char *policy);
/* Whether plugins of `type` (the status listing's "type": FP, RR, RM, EDF) give policy `index`. */
bool launch_policy_gives(int index, const char *type);
/* Name in *params the first plugin of rtfd that gives `policy`; says on stderr why not.  0 or -errno. */
int launch_pick_plugin(const char *policy, struct rtf_params *params);

/* Run argv under the reservation (--policy resolved into o->params); returns rtfctl's exit status (the program's, or LAUNCH_EXIT_*). */
int launch_run(struct launch_opts *o, char **argv);

/* Hold a reservation for o->pid or o->tid until it ends or rtfctl is stopped; the exit status. */
int launch_attach(struct launch_opts *o);

void launch_help_run(void);
void launch_help_attach(void);
