/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Encoder and decoder of the wire protocol (protocol.h).
 *
 * The wire layout of a packet is exactly the in-memory layout of struct
 * rtf_msg truncated to the packet size, so both directions are one memcpy
 * plus checks.  That only holds while no struct has implicit padding, which
 * the assertions below pin down: a padding hole would carry uninitialised
 * bytes across the trust boundary and make the layout compiler-dependent.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "protocol.h"
#include "rtf/rtf-plugin.h"
#include "util.h"

#define FIELD_SIZE(type, field) sizeof(((type *)0)->field)

/* The rows of STATUS_REPLY/TASKS_REPLY follow total, start, count, reserved. */
#define ROWS_PREFIX_SIZE 16u

_Static_assert(sizeof(struct rtf_msg_header) == 16, "header size");
_Static_assert(sizeof(struct rtf_msg_header) ==
               FIELD_SIZE(struct rtf_msg_header, version) + FIELD_SIZE(struct rtf_msg_header, type) +
               FIELD_SIZE(struct rtf_msg_header, size) + FIELD_SIZE(struct rtf_msg_header, seq) +
               FIELD_SIZE(struct rtf_msg_header, reserved),
               "padding in struct rtf_msg_header");

_Static_assert(sizeof(struct rtf_wire_params) == 72, "wire params size");
_Static_assert(sizeof(struct rtf_wire_params) ==
               FIELD_SIZE(struct rtf_wire_params, flags) + FIELD_SIZE(struct rtf_wire_params, priority) +
               FIELD_SIZE(struct rtf_wire_params, period_us) + FIELD_SIZE(struct rtf_wire_params, runtime_us) +
               FIELD_SIZE(struct rtf_wire_params, des_runtime_us) +
               FIELD_SIZE(struct rtf_wire_params, deadline_us) + FIELD_SIZE(struct rtf_wire_params, plugin),
               "padding in struct rtf_wire_params");
_Static_assert(FIELD_SIZE(struct rtf_wire_params, plugin) == FIELD_SIZE(struct rtf_params, scheduler),
               "plugin name fields differ between the API and the wire");

_Static_assert(sizeof(struct rtf_msg_create) == 72, "create size");
_Static_assert(sizeof(struct rtf_msg_change) == 80, "change size");
_Static_assert(sizeof(struct rtf_msg_change) ==
               FIELD_SIZE(struct rtf_msg_change, id) + FIELD_SIZE(struct rtf_msg_change, params),
               "padding in struct rtf_msg_change");
_Static_assert(sizeof(struct rtf_msg_id) == 8, "id size");
_Static_assert(sizeof(struct rtf_msg_attach) == 16, "attach size");
_Static_assert(sizeof(struct rtf_msg_attach) ==
               FIELD_SIZE(struct rtf_msg_attach, id) + FIELD_SIZE(struct rtf_msg_attach, tid) +
               FIELD_SIZE(struct rtf_msg_attach, reserved),
               "padding in struct rtf_msg_attach");
_Static_assert(sizeof(struct rtf_msg_list) == 8, "list size");
_Static_assert(sizeof(struct rtf_msg_list) ==
               FIELD_SIZE(struct rtf_msg_list, start) + FIELD_SIZE(struct rtf_msg_list, reserved),
               "padding in struct rtf_msg_list");

_Static_assert(sizeof(struct rtf_msg_reply) == 192, "reply size");
_Static_assert(sizeof(struct rtf_msg_reply) ==
               FIELD_SIZE(struct rtf_msg_reply, result) + FIELD_SIZE(struct rtf_msg_reply, priority) +
               FIELD_SIZE(struct rtf_msg_reply, id) + FIELD_SIZE(struct rtf_msg_reply, accepted_runtime_us) +
               FIELD_SIZE(struct rtf_msg_reply, cpu) + FIELD_SIZE(struct rtf_msg_reply, reserved) +
               FIELD_SIZE(struct rtf_msg_reply, plugin) + FIELD_SIZE(struct rtf_msg_reply, reason),
               "padding in struct rtf_msg_reply");

_Static_assert(sizeof(struct rtf_wire_core) == 88, "core row size");
_Static_assert(sizeof(struct rtf_wire_core) ==
               FIELD_SIZE(struct rtf_wire_core, plugin) + FIELD_SIZE(struct rtf_wire_core, policy) +
               FIELD_SIZE(struct rtf_wire_core, cpu) + FIELD_SIZE(struct rtf_wire_core, partitioned) +
               FIELD_SIZE(struct rtf_wire_core, tasks) + FIELD_SIZE(struct rtf_wire_core, prio_min) +
               FIELD_SIZE(struct rtf_wire_core, prio_max) + FIELD_SIZE(struct rtf_wire_core, prio_lowest) +
               FIELD_SIZE(struct rtf_wire_core, prio_highest) + FIELD_SIZE(struct rtf_wire_core, reserved) +
               FIELD_SIZE(struct rtf_wire_core, utilization_ppm),
               "padding in struct rtf_wire_core");

_Static_assert(sizeof(struct rtf_wire_task) == 112, "task row size");
_Static_assert(sizeof(struct rtf_wire_task) ==
               FIELD_SIZE(struct rtf_wire_task, id) + FIELD_SIZE(struct rtf_wire_task, uid) +
               FIELD_SIZE(struct rtf_wire_task, pid) + FIELD_SIZE(struct rtf_wire_task, tid) +
               FIELD_SIZE(struct rtf_wire_task, cpu) + FIELD_SIZE(struct rtf_wire_task, priority) +
               FIELD_SIZE(struct rtf_wire_task, reserved) +
               FIELD_SIZE(struct rtf_wire_task, accepted_runtime_us) + FIELD_SIZE(struct rtf_wire_task, params),
               "padding in struct rtf_wire_task");

_Static_assert(sizeof(struct rtf_wire_stats) == 80, "stats size");
_Static_assert(sizeof(struct rtf_wire_stats) ==
               FIELD_SIZE(struct rtf_wire_stats, budget_mode) + FIELD_SIZE(struct rtf_wire_stats, flags) +
               FIELD_SIZE(struct rtf_wire_stats, period_ns) + FIELD_SIZE(struct rtf_wire_stats, budget_ns) +
               FIELD_SIZE(struct rtf_wire_stats, periods) + FIELD_SIZE(struct rtf_wire_stats, overruns) +
               FIELD_SIZE(struct rtf_wire_stats, missed_releases) +
               FIELD_SIZE(struct rtf_wire_stats, budget_exhaustions) +
               FIELD_SIZE(struct rtf_wire_stats, ignored_waits) + FIELD_SIZE(struct rtf_wire_stats, max_response_ns) +
               FIELD_SIZE(struct rtf_wire_stats, max_job_cpu_ns),
               "padding in struct rtf_wire_stats");
_Static_assert(sizeof(struct rtf_msg_report) == 88, "report size");
_Static_assert(sizeof(struct rtf_msg_report) ==
               FIELD_SIZE(struct rtf_msg_report, id) + FIELD_SIZE(struct rtf_msg_report, stats),
               "padding in struct rtf_msg_report");
_Static_assert(sizeof(struct rtf_wire_task_stats) == 96, "task stats row size");
_Static_assert(sizeof(struct rtf_wire_task_stats) ==
               FIELD_SIZE(struct rtf_wire_task_stats, id) + FIELD_SIZE(struct rtf_wire_task_stats, age_ms) +
               FIELD_SIZE(struct rtf_wire_task_stats, stats),
               "padding in struct rtf_wire_task_stats");

_Static_assert(offsetof(struct rtf_msg_rows, cores) == ROWS_PREFIX_SIZE, "rows prefix");
_Static_assert(offsetof(struct rtf_msg_rows, tasks) == ROWS_PREFIX_SIZE, "rows prefix");
_Static_assert(offsetof(struct rtf_msg_rows, task_stats) == ROWS_PREFIX_SIZE, "rows prefix");
_Static_assert(RTF_STATUS_ROWS_MAX >= 1 && RTF_TASKS_ROWS_MAX >= 1 && RTF_TASK_STATS_ROWS_MAX >= 1,
               "a reply must hold a row");

/* The body starts right after the header, on the wire and in struct rtf_msg. */
_Static_assert(offsetof(struct rtf_msg, create) == sizeof(struct rtf_msg_header), "body offset");
_Static_assert(offsetof(struct rtf_msg, rows) == sizeof(struct rtf_msg_header), "body offset");

/* The largest packet fits both the struct it is decoded into and RTF_MSG_MAX. */
#define STATUS_REPLY_MAX_SIZE (sizeof(struct rtf_msg_header) + ROWS_PREFIX_SIZE + \
                               RTF_STATUS_ROWS_MAX * sizeof(struct rtf_wire_core))
#define TASKS_REPLY_MAX_SIZE (sizeof(struct rtf_msg_header) + ROWS_PREFIX_SIZE + \
                              RTF_TASKS_ROWS_MAX * sizeof(struct rtf_wire_task))
#define TASK_STATS_REPLY_MAX_SIZE (sizeof(struct rtf_msg_header) + ROWS_PREFIX_SIZE + \
                                   RTF_TASK_STATS_ROWS_MAX * sizeof(struct rtf_wire_task_stats))
_Static_assert(STATUS_REPLY_MAX_SIZE <= RTF_MSG_MAX && STATUS_REPLY_MAX_SIZE <= sizeof(struct rtf_msg),
               "STATUS_REPLY does not fit");
_Static_assert(TASKS_REPLY_MAX_SIZE <= RTF_MSG_MAX && TASKS_REPLY_MAX_SIZE <= sizeof(struct rtf_msg),
               "TASKS_REPLY does not fit");
_Static_assert(TASK_STATS_REPLY_MAX_SIZE <= RTF_MSG_MAX && TASK_STATS_REPLY_MAX_SIZE <= sizeof(struct rtf_msg),
               "TASK_STATS_REPLY does not fit");
/* rtf_msg_encode_report() writes the header and the body side by side. */
_Static_assert(offsetof(struct rtf_msg, report) == sizeof(struct rtf_msg_header), "body offset");
/* rtf_msg_encode() returns the size as int. */
_Static_assert(RTF_MSG_MAX <= 65536, "RTF_MSG_MAX too large");

static bool msg_type_has_rows(uint16_t type) {
        return type == RTF_MSG_STATUS_REPLY || type == RTF_MSG_TASKS_REPLY || type == RTF_MSG_TASK_STATS_REPLY;
}

unsigned rtf_msg_type_version(uint16_t type) {
        switch (type) {
        case RTF_MSG_CREATE:
        case RTF_MSG_CHANGE:
        case RTF_MSG_RELEASE:
        case RTF_MSG_ATTACH:
        case RTF_MSG_DETACH:
        case RTF_MSG_STATUS:
        case RTF_MSG_TASKS:
        case RTF_MSG_REPLY:
        case RTF_MSG_STATUS_REPLY:
        case RTF_MSG_TASKS_REPLY:
                return 1;
        case RTF_MSG_REPORT:
        case RTF_MSG_TASK_STATS:
        case RTF_MSG_TASK_STATS_REPLY:
                return 2;
        default:
                return 0;
        }
}

size_t rtf_msg_size(uint16_t type, uint32_t count) {
        const size_t h = sizeof(struct rtf_msg_header);

        switch (type) {
        case RTF_MSG_CREATE:
                return h + sizeof(struct rtf_msg_create);
        case RTF_MSG_CHANGE:
                return h + sizeof(struct rtf_msg_change);
        case RTF_MSG_RELEASE:
        case RTF_MSG_DETACH:
                return h + sizeof(struct rtf_msg_id);
        case RTF_MSG_ATTACH:
                return h + sizeof(struct rtf_msg_attach);
        case RTF_MSG_STATUS:
        case RTF_MSG_TASKS:
        case RTF_MSG_TASK_STATS:
                return h + sizeof(struct rtf_msg_list);
        case RTF_MSG_REPORT:
                return h + sizeof(struct rtf_msg_report);
        case RTF_MSG_REPLY:
                return h + sizeof(struct rtf_msg_reply);
        case RTF_MSG_STATUS_REPLY:
                /* Checked before multiplying, so the product stays below RTF_MSG_MAX. */
                if (count > RTF_STATUS_ROWS_MAX)
                        return 0;
                return h + ROWS_PREFIX_SIZE + (size_t)count * sizeof(struct rtf_wire_core);
        case RTF_MSG_TASKS_REPLY:
                if (count > RTF_TASKS_ROWS_MAX)
                        return 0;
                return h + ROWS_PREFIX_SIZE + (size_t)count * sizeof(struct rtf_wire_task);
        case RTF_MSG_TASK_STATS_REPLY:
                if (count > RTF_TASK_STATS_ROWS_MAX)
                        return 0;
                return h + ROWS_PREFIX_SIZE + (size_t)count * sizeof(struct rtf_wire_task_stats);
        default:
                return 0;
        }
}

static int wire_params_check(const struct rtf_wire_params *w) {
        if (!field_is_string(w->plugin, sizeof(w->plugin)))
                return RTF_PROTO_E_STRING;
        return 0;
}

/*
 * What librtf's periodic-task state machine can count: a known mode and
 * flags, a budget within the period, no more late jobs than jobs.  Any other
 * report is not a claim rtfd could show.
 */
static int wire_stats_check(const struct rtf_wire_stats *st) {
        if (st->flags & ~RTF_STATS_KNOWN)
                return RTF_PROTO_E_RESERVED;
        if (st->budget_mode > RTF_BUDGET_HARD || st->budget_ns > st->period_ns || st->overruns > st->periods)
                return RTF_PROTO_E_VALUE;
        return 0;
}

/*
 * A reply that starts beyond the end of the table with no rows is legal: the
 * table may have shrunk between two requests of a client paging through it.
 */
static int msg_rows_check_range(const struct rtf_msg_rows *rows) {
        if (rows->count > 0 && (uint64_t)rows->start + rows->count > rows->total)
                return RTF_PROTO_E_ROWS;
        return 0;
}

/* Checks the body of a message whose type and row count are already known to be valid. */
static int msg_check_body(const struct rtf_msg *m) {
        int r;

        switch (m->header.type) {
        case RTF_MSG_CREATE:
                return wire_params_check(&m->create.params);
        case RTF_MSG_CHANGE:
                return wire_params_check(&m->change.params);
        case RTF_MSG_RELEASE:
        case RTF_MSG_DETACH:
                return 0;
        case RTF_MSG_ATTACH:
                return m->attach.reserved != 0 ? RTF_PROTO_E_RESERVED : 0;
        case RTF_MSG_STATUS:
        case RTF_MSG_TASKS:
        case RTF_MSG_TASK_STATS:
                return m->list.reserved != 0 ? RTF_PROTO_E_RESERVED : 0;
        case RTF_MSG_REPORT:
                return wire_stats_check(&m->report.stats);
        case RTF_MSG_REPLY:
                if (!field_is_string(m->reply.plugin, sizeof(m->reply.plugin)) ||
                    !field_is_string(m->reply.reason, sizeof(m->reply.reason)))
                        return RTF_PROTO_E_STRING;
                return m->reply.reserved != 0 ? RTF_PROTO_E_RESERVED : 0;
        case RTF_MSG_STATUS_REPLY:
                r = msg_rows_check_range(&m->rows);
                if (r < 0)
                        return r;
                if (m->rows.reserved != 0)
                        return RTF_PROTO_E_RESERVED;
                for (uint32_t i = 0; i < m->rows.count; i++) {
                        const struct rtf_wire_core *c = &m->rows.cores[i];

                        if (!field_is_string(c->plugin, sizeof(c->plugin)) ||
                            !field_is_string(c->policy, sizeof(c->policy)))
                                return RTF_PROTO_E_STRING;
                        if (c->reserved != 0)
                                return RTF_PROTO_E_RESERVED;
                }
                return 0;
        case RTF_MSG_TASKS_REPLY:
                r = msg_rows_check_range(&m->rows);
                if (r < 0)
                        return r;
                if (m->rows.reserved != 0)
                        return RTF_PROTO_E_RESERVED;
                for (uint32_t i = 0; i < m->rows.count; i++) {
                        const struct rtf_wire_task *t = &m->rows.tasks[i];

                        r = wire_params_check(&t->params);
                        if (r < 0)
                                return r;
                        if (t->reserved != 0)
                                return RTF_PROTO_E_RESERVED;
                }
                return 0;
        case RTF_MSG_TASK_STATS_REPLY:
                r = msg_rows_check_range(&m->rows);
                if (r < 0)
                        return r;
                if (m->rows.reserved != 0)
                        return RTF_PROTO_E_RESERVED;
                for (uint32_t i = 0; i < m->rows.count; i++) {
                        r = wire_stats_check(&m->rows.task_stats[i].stats);
                        if (r < 0)
                                return r;
                }
                return 0;
        default:
                return RTF_PROTO_E_TYPE;
        }
}

/* The size a packet of this header must have, read from the packet itself for row types. */
static int msg_check_size(const struct rtf_msg_header *h, const uint8_t *buf, size_t len) {
        size_t expected;

        if (msg_type_has_rows(h->type)) {
                uint32_t count;

                if (len < sizeof(*h) + ROWS_PREFIX_SIZE)
                        return RTF_PROTO_E_SIZE;
                memcpy(&count, buf + sizeof(*h) + offsetof(struct rtf_msg_rows, count), sizeof(count));
                expected = rtf_msg_size(h->type, count);
                if (expected == 0 || expected != len)
                        return RTF_PROTO_E_ROWS;
                return 0;
        }

        expected = rtf_msg_size(h->type, 0);
        if (expected == 0)
                return RTF_PROTO_E_TYPE;
        if (expected != len)
                return RTF_PROTO_E_SIZE;
        return 0;
}

int rtf_msg_decode(const void *buf, size_t len, struct rtf_msg *ret) {
        struct rtf_msg_header h;
        struct rtf_msg m;
        int r;

        if (!ret || (!buf && len > 0))
                return -EINVAL;

        if (len < sizeof(h))
                return RTF_PROTO_E_SHORT;
        /* buf comes straight from recv() and need not be aligned. */
        memcpy(&h, buf, sizeof(h));

        /* The version decides how the rest is to be read, so it goes first. */
        if (h.version < RTF_PROTO_VERSION_MIN || h.version > RTF_PROTO_VERSION)
                return RTF_PROTO_E_VERSION;
        if (h.size > len)
                return RTF_PROTO_E_SHORT;
        if (h.size < len || len > RTF_MSG_MAX)
                return RTF_PROTO_E_SIZE;
        if (h.reserved != 0)
                return RTF_PROTO_E_RESERVED;
        /* A type that came after the sender's version is unknown in it. */
        if (rtf_msg_type_version(h.type) > h.version)
                return RTF_PROTO_E_TYPE;

        r = msg_check_size(&h, buf, len);
        if (r < 0)
                return r;
        /* Guaranteed by the static assertions on the largest packet; kept as a last fence. */
        if (len > sizeof(m))
                return RTF_PROTO_E_SIZE;

        /* Zero first, so that rows beyond count and bytes beyond the body are defined. */
        memset(&m, 0, sizeof(m));
        memcpy(&m, buf, len);

        r = msg_check_body(&m);
        if (r < 0)
                return r;

        memcpy(ret, &m, sizeof(m));
        return 0;
}

int rtf_msg_encode(const struct rtf_msg *msg, void *buf, size_t buflen) {
        struct rtf_msg_header h;
        uint16_t version;
        uint32_t count = 0;
        size_t size;

        if (!msg || (!buf && buflen > 0))
                return -EINVAL;
        version = msg->header.version ? msg->header.version : RTF_PROTO_VERSION;
        if (version < RTF_PROTO_VERSION_MIN || version > RTF_PROTO_VERSION ||
            rtf_msg_type_version(msg->header.type) > version)
                return -EINVAL;

        if (msg_type_has_rows(msg->header.type))
                count = msg->rows.count;
        size = rtf_msg_size(msg->header.type, count);
        if (size == 0)
                return -EINVAL;

        /* Never send what the peer would reject: that is a bug on this side. */
        if (msg_check_body(msg) < 0)
                return -EINVAL;

        if (buflen < size)
                return -ENOBUFS;

        h = (struct rtf_msg_header) {
                .version = version,
                .type = msg->header.type,
                .size = (uint32_t)size,
                .seq = msg->header.seq,
        };
        memcpy(buf, &h, sizeof(h));
        memcpy((uint8_t *)buf + sizeof(h), &msg->create, size - sizeof(h));
        return (int)size;
}

int rtf_msg_encode_report(uint32_t seq, uint64_t id, const struct rtf_wire_stats *stats, void *buf,
                          size_t buflen) {
        const size_t size = sizeof(struct rtf_msg_header) + sizeof(struct rtf_msg_report);
        struct rtf_msg_header h = {
                .version = RTF_PROTO_VERSION,
                .type = RTF_MSG_REPORT,
                .size = (uint32_t)size,
                .seq = seq,
        };
        struct rtf_msg_report body = { .id = id };

        if (!stats || (!buf && buflen > 0))
                return -EINVAL;
        body.stats = *stats;
        if (wire_stats_check(&body.stats) < 0)
                return -EINVAL;
        if (buflen < size)
                return -ENOBUFS;
        memcpy(buf, &h, sizeof(h));
        memcpy((uint8_t *)buf + sizeof(h), &body, sizeof(body));
        return (int)size;
}

const char *rtf_proto_strerror(int code) {
        switch (code) {
        case 0:
                return "success";
        case RTF_PROTO_E_SHORT:
                return "packet shorter than its header or its declared size";
        case RTF_PROTO_E_VERSION:
                return "unsupported protocol version";
        case RTF_PROTO_E_TYPE:
                return "unknown message type";
        case RTF_PROTO_E_SIZE:
                return "packet size does not match its message type";
        case RTF_PROTO_E_STRING:
                return "string field not NUL-terminated";
        case RTF_PROTO_E_RESERVED:
                return "reserved field not zero";
        case RTF_PROTO_E_ROWS:
                return "row count or range inconsistent with the packet";
        case RTF_PROTO_E_VALUE:
                return "field value out of range";
        case -EINVAL:
                return "invalid message";
        case -ENOBUFS:
                return "buffer too small for the message";
        default:
                return "unknown protocol error";
        }
}

/* Copies at most size-1 bytes and zero-fills the rest, so no stale bytes reach the wire. */
static void name_copy(char *dst, const char *src, size_t size) {
        size_t n = strnlen(src, size - 1);

        memcpy(dst, src, n);
        memset(dst + n, 0, size - n);
}

void rtf_wire_params_from(struct rtf_wire_params *w, const struct rtf_params *p) {
        const struct rtf_task_params t = {
                .flags = p->flags,
                .priority = p->priority,
                .period_us = p->period_us,
                .runtime_us = p->runtime_us,
                .des_runtime_us = p->des_runtime_us,
                .deadline_us = p->deadline_us,
        };

        /* p->scheduler and w->plugin have the same size; name_copy() stops at it. */
        rtf_wire_params_from_task(w, &t, p->scheduler);
}

void rtf_wire_params_to_task(struct rtf_task_params *t, char *plugin, size_t plugin_size,
                             const struct rtf_wire_params *w) {
        *t = (struct rtf_task_params){
                .flags = w->flags,
                .priority = w->priority,
                .period_us = w->period_us,
                .runtime_us = w->runtime_us,
                .des_runtime_us = w->des_runtime_us,
                .deadline_us = w->deadline_us,
        };
        name_copy(plugin, w->plugin, plugin_size);
}

void rtf_wire_params_from_task(struct rtf_wire_params *w, const struct rtf_task_params *t, const char *plugin) {
        memset(w, 0, sizeof(*w));
        w->flags = t->flags;
        w->priority = t->priority;
        w->period_us = t->period_us;
        w->runtime_us = t->runtime_us;
        w->des_runtime_us = t->des_runtime_us;
        w->deadline_us = t->deadline_us;
        name_copy(w->plugin, plugin, sizeof(w->plugin));
}

void rtf_wire_params_to(struct rtf_params *p, const struct rtf_wire_params *w) {
        memset(p, 0, sizeof(*p));
        p->size = sizeof(*p);
        p->flags = w->flags;
        p->priority = w->priority;
        p->period_us = w->period_us;
        p->runtime_us = w->runtime_us;
        p->des_runtime_us = w->des_runtime_us;
        p->deadline_us = w->deadline_us;
        name_copy(p->scheduler, w->plugin, sizeof(p->scheduler));
}
