/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rtfctl top: a live view of rtfd's tasks. */
#pragma once

#include <stdbool.h>

/* argv[0] is "top"; `json` from rtfctl's own options.  Returns rtfctl's exit status. */
int top_main(int argc, char **argv, const char *socket_path, bool json);
void top_help(void);
