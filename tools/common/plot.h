/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * --plot of every tool: its JSON document goes to a private temporary file
 * and tools/plot/NAME draws it, run by the Python that has Debian's
 * python3-matplotlib.  The scripts explain their own failures (no
 * matplotlib, a file they cannot write); the tool adds which file was not
 * written.
 */
#pragma once

#include <json-c/json.h>
#include <stddef.h>

/* $RTF_PYTHON, else /usr/bin/python3 (where Debian's matplotlib is, whatever python3 PATH finds first), else python3. */
const char *plot_python(void);
/*
 * The script `name` ("plot-bench.py"): $env_override if set, else the
 * installed one, else the source tree's (a build tree not installed); the
 * path is made in buf.
 */
const char *plot_script(const char *env_override, const char *name, char *buf, size_t size);
/*
 * Run `python script DATA out` on a copy of `doc` and wait for it.  Returns
 * 0, or -1 after "TOOL: --plot: OUT not written (...)" on stderr.
 */
int plot_run(const char *tool, const char *script, json_object *doc, const char *out);
