/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How rtf-sim prints: text with '#' comments, or the JSON envelope; and the PNG plots. */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

/* One --check result as text. */
void output_check_text(FILE *f, json_object *res);
void output_scenario_text(FILE *f, json_object *res);
void output_curves_text(FILE *f, json_object *res);
void output_curves2_text(FILE *f, json_object *res);
/* Run tools/plot/plot-sim.py on doc with mode "curves" or "gantt"; 0 or -1 (message printed). */
int output_plot(json_object *doc, const char *prefix);
