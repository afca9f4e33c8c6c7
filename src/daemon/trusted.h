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
 * Open a file for reading that is trusted (trusted_fd_check) and reached
 * through trusted directories (trusted_dir_open), its last component
 * opened with O_NOFOLLOW too.  -ENOENT (the file missing) without a log
 * line; any other refusal is logged with the path and the fix.
 */
int trusted_open(const char *path, const char *what, int *ret_fd);

/*
 * Read a whole trusted file of at most max_size bytes into a new buffer
 * (not NUL-terminated).  -ENOENT is returned without a log line, so that
 * callers can treat a missing optional file themselves.
 */
int trusted_read(const char *path, size_t max_size, const char *what, char **ret_buf, size_t *ret_len);

/*
 * Issue 10, point 9: a directory is trusted only if it and every directory
 * on the way from / are owned by root (or rtfd's user) and writable by
 * nobody else.  A sticky directory such as /tmp that root owns is passed on
 * the way to a directory that is itself trusted (nobody else may rename or
 * remove it, and one another user created fails its own check), but it is
 * never trusted as `dir` itself (anyone may create names in it).  The walk opens each
 * component with O_NOFOLLOW from its parent, so a symlink on the way is
 * refused too.  Returns an O_PATH fd of `dir` in *ret_fd, or a negative
 * errno with a log line that names the path and the fix (at `level`);
 * -ENOENT, a directory missing on the way, without a log line.
 */
int trusted_dir_open(const char *dir, const char *what, int level, int *ret_fd);

/* trusted_dir_open() of the directory that holds `path` (relative to the
 * working directory if `path` is), and the last component in *ret_base. */
int trusted_parent_open(const char *path, const char *what, int level, int *ret_dfd, const char **ret_base);
