/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtfd's log: one line per event on stderr, with a syslog "<N>" prefix when
 * stderr is the journal (JOURNAL_STREAM is set), so systemd keeps levels.
 * Every log_*_errno() returns the negative errno it was given, so that an
 * error is logged and returned in one step.
 */
#pragma once

#include <syslog.h>

#include "util.h"

void log_set_max_level(int level);
int log_get_max_level(void);
void log_open(void);

_printf_(2, 3) void log_full(int level, const char *fmt, ...);
_printf_(3, 4) int log_full_errno(int level, int error, const char *fmt, ...);

#define log_error(...) log_full(LOG_ERR, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_full(LOG_DEBUG, __VA_ARGS__)

/* %m in fmt prints strerror(error). */
#define log_error_errno(e, ...) log_full_errno(LOG_ERR, (e), __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_WARNING, (e), __VA_ARGS__)
#define log_notice_errno(e, ...) log_full_errno(LOG_NOTICE, (e), __VA_ARGS__)
#define log_debug_errno(e, ...) log_full_errno(LOG_DEBUG, (e), __VA_ARGS__)
