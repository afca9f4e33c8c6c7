/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rtfctl reload: have rtfd read its configuration and policy again. */
#pragma once

/* Returns rtfctl's exit status. */
int reload_main(const char *socket_path);
