/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What rtfctl says when it cannot reach rtfd. */
#pragma once

/* The socket rtfctl and librtf use: $RTF_SOCKET, else RTF_DEFAULT_SOCKET. */
const char *ctl_socket_path(void);

/*
 * Say on stderr why `path` cannot be reached and what to do, from the errno
 * of the failed connect (`error` > 0): rtfd not running, a stale socket, a
 * permission, a wrong path.
 */
void ctl_hint_connect(const char *path, int error);

/* As above, for librtf's RTF_CONNECTION_ERR: connect once more to learn the errno. */
void ctl_hint_connect_probe(const char *path);
