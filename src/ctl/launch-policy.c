/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * --policy fifo|rr|deadline: people think in kernel policies (chrt -f, -r,
 * -d), rtfd in plugins.  rtfctl picks the first plugin instance, in rtfd's
 * configuration order, of a type that gives that policy (launch-options.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hint.h"
#include "launch.h"
#include "listing.h"

int launch_pick_plugin(const char *policy, struct rtf_params *params) {
        struct rtf_msg *reply = malloc(sizeof(*reply));
        char seen[256] = "";
        uint32_t start = 0, seq = 1;
        int index = launch_policy_valid(policy), fd, r = -ENOENT;

        if (!reply || index < 0) {
                free(reply);
                return -EINVAL;
        }
        fd = rtf_listing_connect(ctl_socket_path());
        if (fd < 0) {
                fprintf(stderr, "rtfctl: cannot connect to rtfd at %s: %s\n", ctl_socket_path(), strerror(-fd));
                ctl_hint_connect(ctl_socket_path(), -fd);
                free(reply);
                return fd;
        }
        while (r == -ENOENT) {
                char why[RTF_REASON_MAX] = "";
                int q = rtf_listing_fetch(fd, RTF_MSG_STATUS, start, seq++, reply, why, sizeof(why));

                if (q < 0) {
                        fprintf(stderr, "rtfctl: cannot list rtfd's plugins: %s\n", why[0] ? why : strerror(-q));
                        r = q;
                        break;
                }
                for (uint32_t i = 0; i < reply->rows.count && r == -ENOENT; i++) {
                        const struct rtf_wire_core *c = &reply->rows.cores[i];

                        if (launch_policy_gives(index, c->policy)) {
                                r = rtf_params_set_scheduler(params, c->plugin);
                        } else if (!strstr(seen, c->plugin) && strlen(seen) + strlen(c->plugin) + 8 < sizeof(seen)) {
                                snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s%s (%s)",
                                         seen[0] ? ", " : "", c->plugin, c->policy);
                        }
                }
                start += reply->rows.count;
                if (reply->rows.count == 0 || start >= reply->rows.total)
                        break;
        }
        close(fd);
        free(reply);
        if (r == -ENOENT)
                fprintf(stderr, "rtfctl: no plugin of rtfd gives --policy %s; it has: %s\n", policy,
                        seen[0] ? seen : "none");
        return r;
}
