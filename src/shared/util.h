/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small helpers shared by every binary of rtf. */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL
#define USEC_PER_SEC 1000000ULL

static inline void freep(void *p) {
        free(*(void **)p);
}

/* Hand over what a _cleanup_ variable holds: the value, and NULL left behind. */
#define TAKE_PTR(p) ({ __typeof__(p) _taken = (p); (p) = NULL; _taken; })

/* Read a small text file whole (a /proc or /sys entry): its length, NUL-terminated
 * in buf, or a negative errno (-ENOENT: no such file). */
static inline int read_text_file(const char *path, char *buf, size_t size) {
        ssize_t n;
        int fd, saved;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        n = read(fd, buf, size - 1);
        saved = errno;
        close(fd);
        if (n < 0)
                return -saved;
        buf[n] = 0;
        return (int)n;
}

static inline int safe_close(int fd) {
        if (fd >= 0) {
                int saved = errno;
                close(fd);
                errno = saved;
        }
        return -1;
}

static inline void closep(int *fd) {
        *fd = safe_close(*fd);
}

/* Copy a string into a fixed field; -ENAMETOOLONG if it does not fit. */
static inline int strscpy_field(char *dst, size_t size, const char *src) {
        size_t n = strlen(src);
        if (n >= size)
                return -ENAMETOOLONG;
        memcpy(dst, src, n + 1);
        return 0;
}

/* A field is a valid C string if it has a NUL within its size. */
static inline int field_is_string(const char *field, size_t size) {
        return memchr(field, 0, size) != NULL;
}

static inline int64_t clock_now_ns(clockid_t clock) {
        struct timespec ts;

        clock_gettime(clock, &ts);
        return (int64_t)ts.tv_sec * (int64_t)NSEC_PER_SEC + ts.tv_nsec;
}

static inline int64_t now_monotonic_ns(void) {
        return clock_now_ns(CLOCK_MONOTONIC);
}

/* The calling thread's CPU time. */
static inline int64_t now_thread_cpu_ns(void) {
        return clock_now_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* Create the directory that holds `path` (one level); -errno, 0 if it exists. */
static inline int mkdir_parent(const char *path, mode_t mode, char *ret_dir, size_t size) {
        char *slash;

        if (!path || (size_t)snprintf(ret_dir, size, "%s", path) >= size)
                return -ENAMETOOLONG;
        slash = strrchr(ret_dir, '/');
        if (!slash || slash == ret_dir)
                return 0;
        *slash = 0;
        return mkdir(ret_dir, mode) < 0 && errno != EEXIST ? -errno : 0;
}
