/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the wire decoder.  Whatever it accepts must re-encode to the very
 * same bytes and decode to the very same message: otherwise the two ends
 * could disagree about what was said.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Static: a struct rtf_msg is 4 KiB, and libFuzzer calls us from one thread. */
static struct rtf_msg msg, again;
static uint8_t packet[RTF_MSG_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        int r, n;

        r = rtf_msg_decode(data, size, &msg);
        if (r < 0) {
                if (r < RTF_PROTO_E_SHORT || r > RTF_PROTO_E_LAST)
                        abort();
                return 0;
        }

        bool rows = msg.header.type == RTF_MSG_STATUS_REPLY || msg.header.type == RTF_MSG_TASKS_REPLY ||
                    msg.header.type == RTF_MSG_TASK_STATS_REPLY;
        if (msg.header.size != size || rtf_msg_size(msg.header.type, rows ? msg.rows.count : 0) != size)
                abort();
        /* Nothing newer than the version it came in. */
        if (rtf_msg_type_version(msg.header.type) == 0 || rtf_msg_type_version(msg.header.type) > msg.header.version)
                abort();

        n = rtf_msg_encode(&msg, packet, sizeof(packet));
        if (n < 0 || (size_t)n != size || memcmp(packet, data, size) != 0)
                abort();
        if (rtf_msg_encode(&msg, packet, size - 1) != -ENOBUFS)
                abort();

        memset(&again, 0xA5, sizeof(again));
        if (rtf_msg_decode(packet, (size_t)n, &again) != 0 || memcmp(&msg, &again, sizeof(msg)) != 0)
                abort();

        /* librtf's own report encoder agrees with the general one. */
        if (msg.header.type == RTF_MSG_REPORT) {
                n = rtf_msg_encode_report(msg.header.seq, msg.report.id, &msg.report.stats, packet, sizeof(packet));
                if (n < 0 || (size_t)n != size || memcmp(packet, data, size) != 0)
                        abort();
        }

        /* The params conversions never overrun a name, whatever follows its NUL. */
        if (msg.header.type == RTF_MSG_CREATE) {
                struct rtf_params p;
                struct rtf_wire_params w;

                rtf_wire_params_to(&p, &msg.create.params);
                rtf_wire_params_from(&w, &p);
                if (strcmp(w.plugin, msg.create.params.plugin) != 0 || w.flags != msg.create.params.flags ||
                    w.period_us != msg.create.params.period_us || w.deadline_us != msg.create.params.deadline_us)
                        abort();
        }
        return 0;
}
