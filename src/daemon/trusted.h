/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Files that decide what rtfd does as root — its configuration, the
 * access-control policy, plugins — are trusted only if they are regular
 * files owned by root (or by rtfd's own user) and not writable by group or
 * others.  The check is made on the open fd, so the file cannot be swapped
 * between the check and the use.
 */
#pragma once

#include <stddef.h>

/* 0, or a negative errno with the reason logged ("what" names the file's role). */
int trusted_fd_check(int fd, const char *path, const char *what);

/*
 * Read a whole trusted file of at most max_size bytes into a new buffer
 * (not NUL-terminated).  -ENOENT is returned without a log line, so that
 * callers can treat a missing optional file themselves.
 */
int trusted_read(const char *path, size_t max_size, const char *what, char **ret_buf, size_t *ret_len);
