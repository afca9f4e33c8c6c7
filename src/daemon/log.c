/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "text.h"

static int max_level = LOG_INFO;
static bool journal;

void log_set_max_level(int level) {
        max_level = level;
}

int log_get_max_level(void) {
        return max_level;
}

void log_open(void) {
        journal = getenv("JOURNAL_STREAM") != NULL;
}

static const char *level_name(int level) {
        switch (level) {
        case LOG_ERR: return "error";
        case LOG_WARNING: return "warning";
        case LOG_NOTICE: return "notice";
        case LOG_INFO: return "info";
        default: return "debug";
        }
}

_printf_(3, 0) static void log_va(int level, int error, const char *fmt, va_list ap) {
        char raw[1024], line[1024];
        int saved = errno;

        if (level > max_level)
                return;
        /* %m must print the error we were handed, not whatever errno is now. */
        errno = error;
        vsnprintf(raw, sizeof(raw), fmt, ap);
        /* Issue 10: whatever a client sent (a plugin name, a reason that
         * quotes it) reaches the log escaped, as one line (text.h). */
        text_escape(raw, line, sizeof(line));
        if (journal)
                fprintf(stderr, "<%d>%s\n", level, line);
        else
                fprintf(stderr, "rtfd[%s]: %s\n", level_name(level), line);
        errno = saved;
}

void log_full(int level, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        log_va(level, errno, fmt, ap);
        va_end(ap);
}

int log_full_errno(int level, int error, const char *fmt, ...) {
        va_list ap;

        error = error < 0 ? -error : error;
        va_start(ap, fmt);
        log_va(level, error, fmt, ap);
        va_end(ap);
        return -error;
}
