/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The JSON envelope of a measurement, as users know it from cyclictest
 * (rt-tests src/lib/rt-utils.c): file version, tool and version, command
 * line, kernel, start and end time, return code.  The tool adds its own
 * keys to the same object.
 */
#pragma once

#include <json-c/json.h>
#include <time.h>

#define ENVELOPE_FILE_VERSION 1

/* A new object with file_version, tool, tool_version, cmdline, kernel, start_time. */
json_object *envelope_new(const char *tool, int argc, char *const argv[]);
/* Replace start_time: for a tool that builds its document after measuring. */
void envelope_set_start_time(json_object *o, const struct timespec *t);
/* Add end_time and return_code. */
void envelope_finish(json_object *o, int return_code);
/* ISO 8601 UTC ("2026-11-22T10:11:12.345Z") of a CLOCK_REALTIME time, pure. */
void envelope_format_time(const struct timespec *t, char *buf, size_t size);
/* argv joined with spaces, arguments with spaces or quotes single-quoted; pure. */
int envelope_join_cmdline(int argc, char *const argv[], char *buf, size_t size);
