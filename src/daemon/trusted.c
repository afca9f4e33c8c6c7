/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "trusted.h"

int trusted_fd_check(int fd, const char *path, const char *what) {
        struct stat st;

        if (fstat(fd, &st) < 0)
                return log_error_errno(errno, "Failed to stat %s %s: %m", what, path);
        if (!S_ISREG(st.st_mode))
                return log_error_errno(EINVAL, "%s %s is not a regular file", what, path);
        if (st.st_uid != 0 && st.st_uid != geteuid())
                return log_error_errno(EPERM, "%s %s is not owned by root: refusing it", what, path);
        if (st.st_mode & (S_IWGRP | S_IWOTH))
                return log_error_errno(EPERM, "%s %s is writable by group or others: refusing it", what, path);
        return 0;
}

int trusted_read(const char *path, size_t max_size, const char *what, char **ret_buf, size_t *ret_len) {
        _cleanup_(freep) char *buf = NULL;
        struct stat st;
        ssize_t n;
        int fd, r;

        r = trusted_open(path, what, &fd);
        if (r < 0)
                return r;
        if (fstat(fd, &st) < 0) {
                r = -errno;
                goto out;
        }
        if ((size_t)st.st_size > max_size) {
                r = log_error_errno(EFBIG, "%s %s is larger than %zu bytes", what, path, max_size);
                goto out;
        }
        buf = malloc((size_t)st.st_size + 1);
        if (!buf) {
                r = -ENOMEM;
                goto out;
        }
        /* One byte more than the size: a file that grew meanwhile is noticed. */
        n = read(fd, buf, (size_t)st.st_size + 1);
        if (n < 0) {
                r = log_error_errno(errno, "Failed to read %s %s: %m", what, path);
                goto out;
        }
        if (n > st.st_size) {
                r = log_error_errno(EAGAIN, "%s %s changed while it was read", what, path);
                goto out;
        }
        *ret_buf = buf;
        *ret_len = (size_t)n;
        buf = NULL;
out:
        close(fd);
        return r;
}

int trusted_dir_open(const char *dir, const char *what, int level, int *ret_fd) {
        char path[4096], *p, *save = NULL;
        int fd, r = 0;

        if (dir[0] != '/' || snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
                return log_full_errno(level, EINVAL, "%s %s: not an absolute path", what, dir);
        fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        p = strtok_r(path, "/", &save);
        for (;;) {
                struct stat st;

                if (fstat(fd, &st) < 0) {
                        r = -errno;
                        break;
                }
                if (st.st_uid != 0 && st.st_uid != geteuid()) {
                        r = log_full_errno(level, EPERM, "%s %s is reached through a directory not owned by root "
                                           "(uid %u): rtfd trusts only directories that root owns and nobody "
                                           "else can write; use a path such as /run/rtf", what, dir,
                                           (unsigned)st.st_uid);
                        break;
                }
                /* A sticky directory (/tmp) that root owns is passed only on
                 * the way to a component that is checked next: nobody else
                 * can rename or remove what root owns in it, and a name
                 * another user created there fails that next check. */
                if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !((st.st_mode & S_ISVTX) && st.st_uid == 0 && p)) {
                        r = log_full_errno(level, EPERM, "%s %s is reached through a directory writable by group "
                                           "or others (mode %04o): rtfd trusts only directories that root owns "
                                           "and nobody else can write; use a path such as /run/rtf", what, dir,
                                           (unsigned)(st.st_mode & 07777));
                        break;
                }
                if (!p)
                        break;
                {
                        int next = openat(fd, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

                        if (next < 0) {
                                /* A missing directory is the caller's to report
                                 * (an optional file may be absent). */
                                r = errno == ENOENT ? -ENOENT
                                    : errno == ELOOP || errno == ENOTDIR
                                            ? log_full_errno(level, errno, "%s %s: %s on the way is a symbolic link "
                                                             "or not a directory: rtfd follows no symlink to what "
                                                             "it trusts; name the real directory", what, dir, p)
                                            : log_full_errno(level, errno, "%s %s: cannot open %s on the way: %m",
                                                             what, dir, p);
                                break;
                        }
                        close(fd);
                        fd = next;
                }
                p = strtok_r(NULL, "/", &save);
        }
        if (r < 0) {
                close(fd);
                return r;
        }
        *ret_fd = fd;
        return 0;
}

int trusted_parent_open(const char *path, const char *what, int level, int *ret_dfd, const char **ret_base) {
        char dir[4096], role[4200];
        const char *slash = strrchr(path, '/');
        int n;

        if (slash && slash[1] == 0)
                return log_full_errno(level, EINVAL, "%s %s: not a file path", what, path);
        if (!slash) {
                /* A relative name: its directory is the working directory. */
                if (!getcwd(dir, sizeof(dir)))
                        return log_full_errno(level, errno, "%s %s: no working directory: %m", what, path);
                n = 0;
        } else if (path[0] != '/') {
                char cwd[2048];

                if (!getcwd(cwd, sizeof(cwd)))
                        return log_full_errno(level, errno, "%s %s: no working directory: %m", what, path);
                n = snprintf(dir, sizeof(dir), "%s/%.*s", cwd, (int)(slash - path), path);
        } else
                n = snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
        if (n < 0 || n >= (int)sizeof(dir))
                return log_full_errno(level, ENAMETOOLONG, "%s %s: path too long", what, path);
        *ret_base = slash ? slash + 1 : path;
        snprintf(role, sizeof(role), "%s %s: its directory", what, path);
        return trusted_dir_open(dir[0] ? dir : "/", role, level, ret_dfd);
}

int trusted_open(const char *path, const char *what, int *ret_fd) {
        const char *base;
        int dfd, fd, r;

        r = trusted_parent_open(path, what, LOG_ERR, &dfd, &base);
        if (r < 0)
                return r;
        fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
        r = -errno;
        close(dfd);
        if (fd < 0 && r == -ENOENT)
                return -ENOENT;
        if (fd < 0 && r == -ELOOP)
                return log_error_errno(ELOOP, "%s %s is a symbolic link: rtfd follows no symlink to what it "
                                       "trusts; name the file itself (or install it there)", what, path);
        if (fd < 0)
                return log_error_errno(-r, "Failed to open %s %s: %m", what, path);
        r = trusted_fd_check(fd, path, what);
        if (r < 0) {
                close(fd);
                return r;
        }
        *ret_fd = fd;
        return 0;
}
