/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Names for what rtfd lists by number: users and threads.  rtfd's rows carry
 * uid and tid only (the protocol is unchanged); rtfctl runs on the same
 * machine and reads the names itself.  Under /proc's hidepid another user's
 * thread has no name for us: "?".
 */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* The login name of `uid`, or its number. */
const char *ctl_user_name(uid_t uid, char *buf, size_t size);

/* /proc/TID/comm (the kernel's name of a thread, 15 characters at most), or "?". */
const char *ctl_thread_comm(pid_t tid, char *buf, size_t size);

/*
 * For a column of text, into out (at most size - 1 characters): anything
 * outside printable ASCII becomes \xNN as in rtfd's logs (text_escape(): a
 * name is the user's choice, and a control character, C1 ones included,
 * would drive the reader's terminal), and blanks '_', so a name is one word.
 */
const char *ctl_one_word(const char *name, char *out, size_t size);
