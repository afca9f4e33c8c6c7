/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fetch.h"
#include "hint.h"
#include "listing.h"

#define ROWS_LIMIT (1u << 20)   /* never page forever through a broken daemon */

int ctl_conn_open(struct ctl_conn *c, const char *socket_path) {
        int fd = rtf_listing_connect(socket_path);

        c->fd = -1;
        c->seq = 1;
        if (fd < 0) {
                fprintf(stderr, "rtfctl: cannot connect to rtfd at %s: %s\n", socket_path, strerror(-fd));
                ctl_hint_connect(socket_path, -fd);
                return fd;
        }
        c->fd = fd;
        return 0;
}

void ctl_conn_close(struct ctl_conn *c) {
        if (c->fd >= 0)
                close(c->fd);
        c->fd = -1;
}

/* One page of rows starting at `start` (listing.h); rtfd's refusal is said on stderr. */
static int fetch(struct ctl_conn *c, uint16_t type, uint32_t start, struct rtf_msg *ret) {
        char why[RTF_REASON_MAX] = "";
        int r = rtf_listing_fetch(c->fd, type, start, c->seq++, ret, why, sizeof(why));

        if (r < 0 && why[0])
                fprintf(stderr, "rtfctl: %s\n", why);
        return r;
}

int ctl_fetch_all(struct ctl_conn *c, uint16_t type, size_t row_size, void **ret_rows, uint32_t *ret_n) {
        struct rtf_msg *reply = malloc(sizeof(*reply));
        uint8_t *rows = NULL;
        uint32_t n = 0;
        int r = 0;

        if (!reply)
                return -ENOMEM;
        for (;;) {
                uint8_t *more;

                r = fetch(c, type, n, reply);
                if (r < 0)
                        break;
                if (reply->rows.count > 0) {
                        more = realloc(rows, ((size_t)n + reply->rows.count) * row_size);
                        if (!more) {
                                r = -ENOMEM;
                                break;
                        }
                        rows = more;
                        /* The rows of every listing start at the same offset of the union. */
                        memcpy(rows + (size_t)n * row_size, reply->rows.cores, (size_t)reply->rows.count * row_size);
                        n += reply->rows.count;
                }
                if (reply->rows.count == 0 || n >= reply->rows.total || n >= ROWS_LIMIT)
                        break;
        }
        free(reply);
        if (r < 0) {
                free(rows);
                return r;
        }
        *ret_rows = rows;
        *ret_n = n;
        return 0;
}
