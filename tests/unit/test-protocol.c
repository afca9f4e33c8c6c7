/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests of the wire protocol codec: round trips and every refusal. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "protocol.h"
#include "rtf/rtf-plugin.h"
#include "tap.h"

#define HDR sizeof(struct rtf_msg_header)
#define ROWS_OFF(field) (HDR + offsetof(struct rtf_msg_rows, field))

/* An odd offset into this buffer checks that the decoder copes with unaligned packets. */
static _Alignas(8) uint8_t packet_storage[RTF_MSG_MAX + 16];

static void fill_params(struct rtf_wire_params *w, unsigned salt) {
        memset(w, 0, sizeof(*w));
        w->flags = RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_RUNTIME;
        w->priority = 10 + salt;
        w->period_us = 1000000 + salt;
        w->runtime_us = 1000 + salt;
        w->des_runtime_us = 2000 + salt;
        w->deadline_us = 900000 + salt;
        snprintf(w->plugin, sizeof(w->plugin), "EDF%u", salt);
}

static void fill_stats(struct rtf_wire_stats *st, unsigned salt) {
        memset(st, 0, sizeof(*st));
        st->budget_mode = RTF_BUDGET_SOFT;
        st->flags = salt % 2 ? RTF_STATS_FINAL : 0;
        st->period_ns = 1000000 + salt;
        st->budget_ns = 250000 + salt;
        st->periods = 500 + salt;
        st->overruns = 20 + salt;
        st->missed_releases = 30 + salt;
        st->budget_exhaustions = 40 + salt;
        st->ignored_waits = 10 + salt;
        st->max_response_ns = 1500000 + salt;
        st->max_job_cpu_ns = 375000 + salt;
}

/* A message of `type` with every field set to something other than zero. */
static void make_msg(struct rtf_msg *m, uint16_t type, uint32_t count) {
        memset(m, 0, sizeof(*m));
        m->header.type = type;
        m->header.seq = 0x12345678u + type;

        switch (type) {
        case RTF_MSG_CREATE:
                fill_params(&m->create.params, 1);
                break;
        case RTF_MSG_CHANGE:
                m->change.id = 0xdeadbeefcafeULL;
                fill_params(&m->change.params, 2);
                break;
        case RTF_MSG_RELEASE:
        case RTF_MSG_DETACH:
                m->id.id = 42 + type;
                break;
        case RTF_MSG_ATTACH:
                m->attach.id = 7;
                m->attach.tid = 1234;
                break;
        case RTF_MSG_STATUS:
        case RTF_MSG_TASKS:
        case RTF_MSG_TASK_STATS:
                m->list.start = 3;
                break;
        case RTF_MSG_REPORT:
                m->report.id = 0x1234567890ULL;
                fill_stats(&m->report.stats, 1);
                break;
        case RTF_MSG_REPLY:
                m->reply.result = -EBUSY;
                m->reply.priority = 77;
                m->reply.id = 99;
                m->reply.accepted_runtime_us = 1500;
                m->reply.cpu = 3;
                strcpy(m->reply.plugin, "RM1");
                strcpy(m->reply.reason, "utilisation bound exceeded on CPU 3");
                break;
        case RTF_MSG_STATUS_REPLY:
                m->rows.total = count + 5;
                m->rows.start = 5;
                m->rows.count = count;
                for (uint32_t i = 0; i < count; i++) {
                        struct rtf_wire_core *c = &m->rows.cores[i];

                        snprintf(c->plugin, sizeof(c->plugin), "P%u", i);
                        strcpy(c->policy, "DEADLINE");
                        c->cpu = (int32_t)i;
                        c->partitioned = 1;
                        c->tasks = i * 2;
                        c->prio_min = 1;
                        c->prio_max = 99;
                        c->prio_lowest = 10;
                        c->prio_highest = 20;
                        c->utilization_ppm = 500000 + i;
                }
                break;
        case RTF_MSG_TASKS_REPLY:
                m->rows.total = count;
                m->rows.start = 0;
                m->rows.count = count;
                for (uint32_t i = 0; i < count; i++) {
                        struct rtf_wire_task *t = &m->rows.tasks[i];

                        t->id = 1000 + i;
                        t->uid = 1000;
                        t->pid = 4000 + (int32_t)i;
                        t->tid = 4001 + (int32_t)i;
                        t->cpu = -1;
                        t->priority = 50;
                        t->accepted_runtime_us = 300;
                        fill_params(&t->params, i);
                }
                break;
        case RTF_MSG_TASK_STATS_REPLY:
                m->rows.total = count + 1;
                m->rows.start = 1;
                m->rows.count = count;
                for (uint32_t i = 0; i < count; i++) {
                        m->rows.task_stats[i].id = 2000 + i;
                        m->rows.task_stats[i].age_ms = 10 * i + 1;
                        fill_stats(&m->rows.task_stats[i].stats, i);
                }
                break;
        default:
                break;
        }
}

/* Encodes, checks the header, decodes (unaligned), and compares with the original. */
static void check_round_trip(uint16_t type, uint32_t count) {
        uint8_t *buf = packet_storage + 1;
        struct rtf_msg in, out;
        struct rtf_msg_header h;
        size_t expected = rtf_msg_size(type, count);
        int n;

        make_msg(&in, type, count);
        n = rtf_msg_encode(&in, buf, RTF_MSG_MAX);
        CHECK(expected > 0);
        CHECK_EQ(n, expected);
        if (n <= 0)
                return;

        memcpy(&h, buf, sizeof(h));
        CHECK_EQ(h.version, RTF_PROTO_VERSION);
        CHECK_EQ(h.type, type);
        CHECK_EQ(h.size, n);
        CHECK_EQ(h.seq, in.header.seq);
        CHECK_EQ(h.reserved, 0);

        memset(&out, 0xAA, sizeof(out));
        CHECK_EQ(rtf_msg_decode(buf, (size_t)n, &out), 0);
        /* The encoder fills version and size; everything else must come back as sent. */
        in.header.version = RTF_PROTO_VERSION;
        in.header.size = (uint32_t)n;
        CHECK(memcmp(&in, &out, sizeof(in)) == 0);
}

/* Encodes a valid message of `type` into packet_storage + 1 and returns its size. */
static size_t encode_valid(uint16_t type, uint32_t count, uint8_t **ret_buf) {
        struct rtf_msg m;
        int n;

        make_msg(&m, type, count);
        n = rtf_msg_encode(&m, packet_storage + 1, RTF_MSG_MAX);
        CHECK(n > 0);
        *ret_buf = packet_storage + 1;
        return n > 0 ? (size_t)n : 0;
}

static void poke_u32(uint8_t *buf, size_t offset, uint32_t v) {
        memcpy(buf + offset, &v, sizeof(v));
}

static void poke_u16(uint8_t *buf, size_t offset, uint16_t v) {
        memcpy(buf + offset, &v, sizeof(v));
}

/* Decodes and checks the result; *ret must stay untouched on failure. */
static int decode_expect(const uint8_t *buf, size_t len, int expected, int line) {
        struct rtf_msg m, sentinel;
        int r;

        memset(&m, 0x5A, sizeof(m));
        memset(&sentinel, 0x5A, sizeof(sentinel));
        r = rtf_msg_decode(buf, len, &m);
        if (r != expected)
                fprintf(stderr, "line %d: decode returned %d (%s), expected %d\n",
                        line, r, rtf_proto_strerror(r), expected);
        CHECK_EQ(r, expected);
        if (r < 0)
                CHECK(memcmp(&m, &sentinel, sizeof(m)) == 0);
        return r;
}
#define DECODE_EXPECT(buf, len, expected) decode_expect(buf, len, expected, __LINE__)

static void test_sizes(void) {
        CHECK_EQ(sizeof(struct rtf_msg_header), 16);
        CHECK_EQ(sizeof(struct rtf_wire_params), 72);
        CHECK_EQ(sizeof(struct rtf_wire_core), 88);
        CHECK_EQ(sizeof(struct rtf_wire_task), 112);
        CHECK_EQ(sizeof(struct rtf_wire_stats), 80);
        CHECK_EQ(sizeof(struct rtf_wire_task_stats), 96);
        CHECK_EQ(rtf_msg_size(RTF_MSG_CREATE, 0), HDR + 72);
        CHECK_EQ(rtf_msg_size(RTF_MSG_CHANGE, 0), HDR + 80);
        CHECK_EQ(rtf_msg_size(RTF_MSG_RELEASE, 0), HDR + 8);
        CHECK_EQ(rtf_msg_size(RTF_MSG_ATTACH, 0), HDR + 16);
        CHECK_EQ(rtf_msg_size(RTF_MSG_DETACH, 0), HDR + 8);
        CHECK_EQ(rtf_msg_size(RTF_MSG_STATUS, 0), HDR + 8);
        CHECK_EQ(rtf_msg_size(RTF_MSG_TASKS, 0), HDR + 8);
        CHECK_EQ(rtf_msg_size(RTF_MSG_REPORT, 0), HDR + 88);
        CHECK_EQ(rtf_msg_size(RTF_MSG_TASK_STATS, 0), HDR + 8);
        CHECK_EQ(rtf_msg_size(RTF_MSG_TASK_STATS_REPLY, 4), HDR + 16 + 4 * 96);
        CHECK(rtf_msg_size(RTF_MSG_TASK_STATS_REPLY, RTF_TASK_STATS_ROWS_MAX) <= RTF_MSG_MAX);
        CHECK_EQ(rtf_msg_size(RTF_MSG_TASK_STATS_REPLY, RTF_TASK_STATS_ROWS_MAX + 1), 0);
        CHECK_EQ(rtf_msg_size(RTF_MSG_REPLY, 0), HDR + 192);
        CHECK_EQ(rtf_msg_size(RTF_MSG_STATUS_REPLY, 0), HDR + 16);
        CHECK_EQ(rtf_msg_size(RTF_MSG_STATUS_REPLY, 2), HDR + 16 + 2 * 88);
        CHECK_EQ(rtf_msg_size(RTF_MSG_TASKS_REPLY, 3), HDR + 16 + 3 * 112);
        CHECK(rtf_msg_size(RTF_MSG_STATUS_REPLY, RTF_STATUS_ROWS_MAX) <= RTF_MSG_MAX);
        CHECK(rtf_msg_size(RTF_MSG_TASKS_REPLY, RTF_TASKS_ROWS_MAX) <= RTF_MSG_MAX);
        CHECK_EQ(rtf_msg_size(RTF_MSG_STATUS_REPLY, RTF_STATUS_ROWS_MAX + 1), 0);
        CHECK_EQ(rtf_msg_size(RTF_MSG_TASKS_REPLY, RTF_TASKS_ROWS_MAX + 1), 0);
        CHECK_EQ(rtf_msg_size(RTF_MSG_TASKS_REPLY, UINT32_MAX), 0);
        CHECK_EQ(rtf_msg_size(0, 0), 0);
        CHECK_EQ(rtf_msg_size(10, 0), 0);
        CHECK_EQ(rtf_msg_size(0x100, 0), 0);
        CHECK_EQ(rtf_msg_size(0xffff, 0), 0);

        /* Version 2 only adds types. */
        CHECK_EQ(rtf_msg_type_version(RTF_MSG_CREATE), 1);
        CHECK_EQ(rtf_msg_type_version(RTF_MSG_TASKS_REPLY), 1);
        CHECK_EQ(rtf_msg_type_version(RTF_MSG_REPORT), 2);
        CHECK_EQ(rtf_msg_type_version(RTF_MSG_TASK_STATS), 2);
        CHECK_EQ(rtf_msg_type_version(RTF_MSG_TASK_STATS_REPLY), 2);
        CHECK_EQ(rtf_msg_type_version(10), 0);
        CHECK_EQ(RTF_PROTO_VERSION, 2);
        CHECK_EQ(RTF_PROTO_VERSION_MIN, 1);
}

static void test_round_trips(void) {
        static const uint16_t fixed[] = {
                RTF_MSG_CREATE, RTF_MSG_CHANGE, RTF_MSG_RELEASE, RTF_MSG_ATTACH,
                RTF_MSG_DETACH, RTF_MSG_STATUS, RTF_MSG_TASKS, RTF_MSG_REPLY,
                RTF_MSG_REPORT, RTF_MSG_TASK_STATS,
        };

        for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
                check_round_trip(fixed[i], 0);

        check_round_trip(RTF_MSG_STATUS_REPLY, 0);
        check_round_trip(RTF_MSG_STATUS_REPLY, 1);
        check_round_trip(RTF_MSG_STATUS_REPLY, RTF_STATUS_ROWS_MAX);
        check_round_trip(RTF_MSG_TASKS_REPLY, 0);
        check_round_trip(RTF_MSG_TASKS_REPLY, 2);
        check_round_trip(RTF_MSG_TASKS_REPLY, RTF_TASKS_ROWS_MAX);
        check_round_trip(RTF_MSG_TASK_STATS_REPLY, 0);
        check_round_trip(RTF_MSG_TASK_STATS_REPLY, 3);
        check_round_trip(RTF_MSG_TASK_STATS_REPLY, RTF_TASK_STATS_ROWS_MAX);
}

/*
 * An older peer: every version-1 type still decodes in a version-1 header
 * and encodes back to the same bytes with the version kept, which is how
 * rtfd answers a client of version 1.  Types of version 2 are unknown there.
 */
static void test_older_version(void) {
        static const uint16_t v1[] = {
                RTF_MSG_CREATE, RTF_MSG_CHANGE, RTF_MSG_RELEASE, RTF_MSG_ATTACH, RTF_MSG_DETACH,
                RTF_MSG_STATUS, RTF_MSG_TASKS, RTF_MSG_REPLY, RTF_MSG_STATUS_REPLY, RTF_MSG_TASKS_REPLY,
        };
        static const uint16_t v2[] = { RTF_MSG_REPORT, RTF_MSG_TASK_STATS, RTF_MSG_TASK_STATS_REPLY };
        uint8_t again[RTF_MSG_MAX];

        for (size_t i = 0; i < sizeof(v1) / sizeof(v1[0]); i++) {
                uint8_t *buf = packet_storage + 1;
                struct rtf_msg m, out;
                struct rtf_msg_header h;
                int n;

                make_msg(&m, v1[i], 2);
                m.header.version = 1;
                n = rtf_msg_encode(&m, buf, RTF_MSG_MAX);
                CHECK(n > 0);
                if (n <= 0)
                        continue;
                memcpy(&h, buf, sizeof(h));
                CHECK_EQ(h.version, 1);
                CHECK_EQ(rtf_msg_decode(buf, (size_t)n, &out), 0);
                CHECK_EQ(out.header.version, 1);
                CHECK_EQ(rtf_msg_encode(&out, again, sizeof(again)), n);
                CHECK(memcmp(again, buf, (size_t)n) == 0);
        }
        for (size_t i = 0; i < sizeof(v2) / sizeof(v2[0]); i++) {
                uint8_t *buf;
                struct rtf_msg m;
                size_t n = encode_valid(v2[i], 1, &buf);

                poke_u16(buf, offsetof(struct rtf_msg_header, version), 1);
                DECODE_EXPECT(buf, n, RTF_PROTO_E_TYPE);
                make_msg(&m, v2[i], 1);
                m.header.version = 1;
                CHECK_EQ(rtf_msg_encode(&m, again, sizeof(again)), -EINVAL);
        }
}

#define REPORT_OFF(field) (HDR + offsetof(struct rtf_msg_report, stats.field))
#define STATS_ROW_OFF(row, field) (HDR + offsetof(struct rtf_msg_rows, task_stats) + \
                                   (row) * sizeof(struct rtf_wire_task_stats) + \
                                   offsetof(struct rtf_wire_task_stats, stats.field))

static void poke_u64(uint8_t *buf, size_t offset, uint64_t v) {
        memcpy(buf + offset, &v, sizeof(v));
}

/* Statistics no librtf could have counted are refused, in a report and in a reply row. */
static void test_decode_stats_errors(void) {
        uint8_t *buf;
        size_t n;

        n = encode_valid(RTF_MSG_REPORT, 0, &buf);
        DECODE_EXPECT(buf, n, 0);
        poke_u32(buf, REPORT_OFF(budget_mode), RTF_BUDGET_HARD + 1);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_VALUE);
        poke_u32(buf, REPORT_OFF(budget_mode), RTF_BUDGET_HARD);
        DECODE_EXPECT(buf, n, 0);
        poke_u32(buf, REPORT_OFF(flags), 0x2);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_RESERVED);
        poke_u32(buf, REPORT_OFF(flags), RTF_STATS_FINAL);
        DECODE_EXPECT(buf, n, 0);

        /* the budget at the period is fine, one nanosecond beyond is not */
        n = encode_valid(RTF_MSG_REPORT, 0, &buf);
        poke_u64(buf, REPORT_OFF(period_ns), 1000);
        poke_u64(buf, REPORT_OFF(budget_ns), 1000);
        DECODE_EXPECT(buf, n, 0);
        poke_u64(buf, REPORT_OFF(budget_ns), 1001);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_VALUE);

        /* every job late is fine, more late jobs than jobs is not */
        n = encode_valid(RTF_MSG_REPORT, 0, &buf);
        poke_u64(buf, REPORT_OFF(periods), 7);
        poke_u64(buf, REPORT_OFF(overruns), 7);
        DECODE_EXPECT(buf, n, 0);
        poke_u64(buf, REPORT_OFF(overruns), 8);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_VALUE);
        poke_u64(buf, REPORT_OFF(periods), UINT64_MAX);
        poke_u64(buf, REPORT_OFF(overruns), UINT64_MAX);
        DECODE_EXPECT(buf, n, 0);

        n = encode_valid(RTF_MSG_TASK_STATS_REPLY, 3, &buf);
        poke_u32(buf, STATS_ROW_OFF(2, budget_mode), 99);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_VALUE);
        n = encode_valid(RTF_MSG_TASK_STATS_REPLY, 3, &buf);
        poke_u32(buf, STATS_ROW_OFF(1, flags), 0x80000000u);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_RESERVED);
        n = encode_valid(RTF_MSG_TASK_STATS_REPLY, 3, &buf);
        poke_u32(buf, ROWS_OFF(count), 4);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_ROWS);
        poke_u32(buf, ROWS_OFF(count), (uint32_t)RTF_TASK_STATS_ROWS_MAX + 1);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_ROWS);
}

/* The report encoder of librtf's periodic path writes what rtf_msg_encode() would. */
static void test_encode_report(void) {
        uint8_t buf[RTF_MSG_MAX], ref[RTF_MSG_MAX];
        struct rtf_msg m, out;
        int n;

        make_msg(&m, RTF_MSG_REPORT, 0);
        n = rtf_msg_encode_report(m.header.seq, m.report.id, &m.report.stats, buf, sizeof(buf));
        CHECK_EQ(n, rtf_msg_size(RTF_MSG_REPORT, 0));
        CHECK_EQ(rtf_msg_encode(&m, ref, sizeof(ref)), n);
        CHECK(n > 0 && memcmp(buf, ref, (size_t)n) == 0);
        CHECK_EQ(rtf_msg_decode(buf, (size_t)n, &out), 0);
        CHECK_EQ(out.header.version, RTF_PROTO_VERSION);
        CHECK_EQ(out.report.id, m.report.id);
        CHECK(memcmp(&out.report.stats, &m.report.stats, sizeof(m.report.stats)) == 0);

        CHECK_EQ(rtf_msg_encode_report(1, 1, &m.report.stats, buf, (size_t)n - 1), -ENOBUFS);
        CHECK_EQ(rtf_msg_encode_report(1, 1, &m.report.stats, NULL, 0), -ENOBUFS);
        CHECK_EQ(rtf_msg_encode_report(1, 1, NULL, buf, sizeof(buf)), -EINVAL);
        m.report.stats.overruns = m.report.stats.periods + 1;
        CHECK_EQ(rtf_msg_encode_report(1, 1, &m.report.stats, buf, sizeof(buf)), -EINVAL);
        CHECK_EQ(rtf_msg_encode(&m, buf, sizeof(buf)), -EINVAL);
}

static void test_decode_header_errors(void) {
        uint8_t *buf;
        size_t n = encode_valid(RTF_MSG_RELEASE, 0, &buf);

        /* truncated */
        DECODE_EXPECT(buf, 0, RTF_PROTO_E_SHORT);
        DECODE_EXPECT(buf, HDR - 1, RTF_PROTO_E_SHORT);
        DECODE_EXPECT(buf, n - 1, RTF_PROTO_E_SHORT);
        DECODE_EXPECT(buf, HDR, RTF_PROTO_E_SHORT);
        /* trailing bytes beyond the declared size */
        DECODE_EXPECT(buf, n + 1, RTF_PROTO_E_SIZE);
        DECODE_EXPECT(buf, n, 0);

        /* wrong version */
        n = encode_valid(RTF_MSG_RELEASE, 0, &buf);
        poke_u16(buf, offsetof(struct rtf_msg_header, version), 0);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_VERSION);
        poke_u16(buf, offsetof(struct rtf_msg_header, version), RTF_PROTO_VERSION + 1);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_VERSION);

        /* unknown types, with a size that would fit a known one */
        static const uint16_t unknown[] = { 0, 10, 0x100, 0x102, 0x108, 0x10a, 0xffff };
        for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
                n = encode_valid(RTF_MSG_RELEASE, 0, &buf);
                poke_u16(buf, offsetof(struct rtf_msg_header, type), unknown[i]);
                DECODE_EXPECT(buf, n, RTF_PROTO_E_TYPE);
        }

        /* reserved header field */
        n = encode_valid(RTF_MSG_RELEASE, 0, &buf);
        poke_u32(buf, offsetof(struct rtf_msg_header, reserved), 1);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_RESERVED);

        /* larger than any packet */
        memset(packet_storage, 0, sizeof(packet_storage));
        n = encode_valid(RTF_MSG_RELEASE, 0, &buf);
        poke_u32(buf, offsetof(struct rtf_msg_header, size), RTF_MSG_MAX + 1);
        DECODE_EXPECT(buf, RTF_MSG_MAX + 1, RTF_PROTO_E_SIZE);

        /* NULL arguments */
        struct rtf_msg m;
        CHECK_EQ(rtf_msg_decode(NULL, 16, &m), -EINVAL);
        CHECK_EQ(rtf_msg_decode(buf, n, NULL), -EINVAL);
}

/* A fixed-size type with a body that is one row too long or too short. */
static void test_decode_size_errors(void) {
        static const uint16_t types[] = {
                RTF_MSG_CREATE, RTF_MSG_CHANGE, RTF_MSG_RELEASE, RTF_MSG_ATTACH,
                RTF_MSG_DETACH, RTF_MSG_STATUS, RTF_MSG_TASKS, RTF_MSG_REPLY,
                RTF_MSG_REPORT, RTF_MSG_TASK_STATS,
        };

        for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
                uint8_t *buf;
                size_t n = encode_valid(types[i], 0, &buf);

                poke_u32(buf, offsetof(struct rtf_msg_header, size), (uint32_t)(n + 8));
                DECODE_EXPECT(buf, n + 8, RTF_PROTO_E_SIZE);
                poke_u32(buf, offsetof(struct rtf_msg_header, size), (uint32_t)(n - 8));
                DECODE_EXPECT(buf, n - 8, RTF_PROTO_E_SIZE);
                poke_u32(buf, offsetof(struct rtf_msg_header, size), (uint32_t)HDR);
                DECODE_EXPECT(buf, HDR, RTF_PROTO_E_SIZE);
        }

        /* A rows reply too short for total/start/count/reserved. */
        uint8_t *buf;
        encode_valid(RTF_MSG_STATUS_REPLY, 0, &buf);
        poke_u32(buf, offsetof(struct rtf_msg_header, size), (uint32_t)(HDR + 8));
        DECODE_EXPECT(buf, HDR + 8, RTF_PROTO_E_SIZE);
}

static void test_decode_row_errors(void) {
        uint8_t *buf;
        size_t n;

        /* count says 2, the packet holds 1 */
        n = encode_valid(RTF_MSG_STATUS_REPLY, 1, &buf);
        poke_u32(buf, ROWS_OFF(count), 2);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_ROWS);
        /* count says 0, the packet holds 1 */
        poke_u32(buf, ROWS_OFF(count), 0);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_ROWS);
        /* count larger than could ever fit, with a size that matches count modulo 2^32 */
        poke_u32(buf, ROWS_OFF(count), UINT32_MAX);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_ROWS);
        poke_u32(buf, ROWS_OFF(count), (uint32_t)RTF_STATUS_ROWS_MAX + 1);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_ROWS);

        n = encode_valid(RTF_MSG_TASKS_REPLY, 2, &buf);
        poke_u32(buf, ROWS_OFF(count), 3);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_ROWS);
        poke_u32(buf, ROWS_OFF(count), (uint32_t)RTF_TASKS_ROWS_MAX + 1);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_ROWS);

        /* rows beyond total */
        n = encode_valid(RTF_MSG_TASKS_REPLY, 2, &buf);
        poke_u32(buf, ROWS_OFF(total), 1);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_ROWS);
        poke_u32(buf, ROWS_OFF(total), 2);
        poke_u32(buf, ROWS_OFF(start), 1);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_ROWS);
        /* start + count must not wrap around */
        poke_u32(buf, ROWS_OFF(total), UINT32_MAX);
        poke_u32(buf, ROWS_OFF(start), UINT32_MAX);
        DECODE_EXPECT(buf, n, RTF_PROTO_E_ROWS);
        poke_u32(buf, ROWS_OFF(start), UINT32_MAX - 2);
        DECODE_EXPECT(buf, n, 0);

        /* an empty page past the end of a table that shrank is fine */
        n = encode_valid(RTF_MSG_STATUS_REPLY, 0, &buf);
        poke_u32(buf, ROWS_OFF(total), 3);
        poke_u32(buf, ROWS_OFF(start), 10);
        DECODE_EXPECT(buf, n, 0);
}

static void test_decode_string_errors(void) {
        struct {
                uint16_t type;
                uint32_t count;
                size_t offset;
                size_t size;
        } fields[] = {
                { RTF_MSG_CREATE, 0, HDR + offsetof(struct rtf_msg_create, params.plugin), RTF_PLUGIN_NAME_MAX },
                { RTF_MSG_CHANGE, 0, HDR + offsetof(struct rtf_msg_change, params.plugin), RTF_PLUGIN_NAME_MAX },
                { RTF_MSG_REPLY, 0, HDR + offsetof(struct rtf_msg_reply, plugin), RTF_PLUGIN_NAME_MAX },
                { RTF_MSG_REPLY, 0, HDR + offsetof(struct rtf_msg_reply, reason), RTF_REASON_MAX },
                { RTF_MSG_STATUS_REPLY, 3, ROWS_OFF(cores) + 2 * sizeof(struct rtf_wire_core) +
                        offsetof(struct rtf_wire_core, plugin), RTF_PLUGIN_NAME_MAX },
                { RTF_MSG_STATUS_REPLY, 3, ROWS_OFF(cores) + 1 * sizeof(struct rtf_wire_core) +
                        offsetof(struct rtf_wire_core, policy), 16 },
                { RTF_MSG_TASKS_REPLY, 2, ROWS_OFF(tasks) + 1 * sizeof(struct rtf_wire_task) +
                        offsetof(struct rtf_wire_task, params.plugin), RTF_PLUGIN_NAME_MAX },
        };

        for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
                uint8_t *buf;
                size_t n = encode_valid(fields[i].type, fields[i].count, &buf);

                memset(buf + fields[i].offset, 'x', fields[i].size);
                DECODE_EXPECT(buf, n, RTF_PROTO_E_STRING);
                /* A NUL in the last byte is enough. */
                buf[fields[i].offset + fields[i].size - 1] = '\0';
                DECODE_EXPECT(buf, n, 0);
        }
}

static void test_decode_reserved_errors(void) {
        struct {
                uint16_t type;
                uint32_t count;
                size_t offset;
        } fields[] = {
                { RTF_MSG_ATTACH, 0, HDR + offsetof(struct rtf_msg_attach, reserved) },
                { RTF_MSG_STATUS, 0, HDR + offsetof(struct rtf_msg_list, reserved) },
                { RTF_MSG_TASKS, 0, HDR + offsetof(struct rtf_msg_list, reserved) },
                { RTF_MSG_TASK_STATS, 0, HDR + offsetof(struct rtf_msg_list, reserved) },
                { RTF_MSG_TASK_STATS_REPLY, 0, ROWS_OFF(reserved) },
                { RTF_MSG_REPLY, 0, HDR + offsetof(struct rtf_msg_reply, reserved) },
                { RTF_MSG_STATUS_REPLY, 0, ROWS_OFF(reserved) },
                { RTF_MSG_TASKS_REPLY, 0, ROWS_OFF(reserved) },
                { RTF_MSG_STATUS_REPLY, 2, ROWS_OFF(cores) + 1 * sizeof(struct rtf_wire_core) +
                        offsetof(struct rtf_wire_core, reserved) },
                { RTF_MSG_TASKS_REPLY, 2, ROWS_OFF(tasks) + 1 * sizeof(struct rtf_wire_task) +
                        offsetof(struct rtf_wire_task, reserved) },
        };

        for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
                uint8_t *buf;
                size_t n = encode_valid(fields[i].type, fields[i].count, &buf);

                poke_u32(buf, fields[i].offset, 0x80000000u);
                DECODE_EXPECT(buf, n, RTF_PROTO_E_RESERVED);
        }
}

static void test_encode_errors(void) {
        uint8_t buf[RTF_MSG_MAX];
        struct rtf_msg m;

        make_msg(&m, RTF_MSG_REPLY, 0);
        CHECK_EQ(rtf_msg_encode(&m, buf, rtf_msg_size(RTF_MSG_REPLY, 0) - 1), -ENOBUFS);
        CHECK_EQ(rtf_msg_encode(&m, buf, 0), -ENOBUFS);
        CHECK_EQ(rtf_msg_encode(&m, NULL, 0), -ENOBUFS);
        CHECK_EQ(rtf_msg_encode(&m, buf, rtf_msg_size(RTF_MSG_REPLY, 0)), (int)rtf_msg_size(RTF_MSG_REPLY, 0));

        make_msg(&m, RTF_MSG_TASKS_REPLY, 3);
        CHECK_EQ(rtf_msg_encode(&m, buf, rtf_msg_size(RTF_MSG_TASKS_REPLY, 3) - 1), -ENOBUFS);

        /* Size and reserved are the encoder's business, and version 0 is the current one. */
        make_msg(&m, RTF_MSG_RELEASE, 0);
        m.header.version = 0;
        m.header.size = 1;
        m.header.reserved = 5;
        CHECK_EQ(rtf_msg_encode(&m, buf, sizeof(buf)), (int)rtf_msg_size(RTF_MSG_RELEASE, 0));
        CHECK_EQ(DECODE_EXPECT(buf, rtf_msg_size(RTF_MSG_RELEASE, 0), 0), 0);
        CHECK_EQ(((const struct rtf_msg_header *)buf)->version, RTF_PROTO_VERSION);
        /* A version nobody speaks is not sent. */
        m.header.version = RTF_PROTO_VERSION + 1;
        CHECK_EQ(rtf_msg_encode(&m, buf, sizeof(buf)), -EINVAL);
        m.header.version = 77;
        CHECK_EQ(rtf_msg_encode(&m, buf, sizeof(buf)), -EINVAL);

        /* Nothing the decoder would refuse leaves the encoder. */
        make_msg(&m, 0x42, 0);
        CHECK_EQ(rtf_msg_encode(&m, buf, sizeof(buf)), -EINVAL);
        make_msg(&m, RTF_MSG_STATUS_REPLY, 0);
        m.rows.count = RTF_STATUS_ROWS_MAX + 1;
        CHECK_EQ(rtf_msg_encode(&m, buf, sizeof(buf)), -EINVAL);
        make_msg(&m, RTF_MSG_STATUS_REPLY, 2);
        m.rows.total = 1;
        CHECK_EQ(rtf_msg_encode(&m, buf, sizeof(buf)), -EINVAL);
        make_msg(&m, RTF_MSG_CREATE, 0);
        memset(m.create.params.plugin, 'A', sizeof(m.create.params.plugin));
        CHECK_EQ(rtf_msg_encode(&m, buf, sizeof(buf)), -EINVAL);
        make_msg(&m, RTF_MSG_ATTACH, 0);
        m.attach.reserved = 1;
        CHECK_EQ(rtf_msg_encode(&m, buf, sizeof(buf)), -EINVAL);
        CHECK_EQ(rtf_msg_encode(NULL, buf, sizeof(buf)), -EINVAL);
        CHECK_EQ(rtf_msg_encode(&m, NULL, sizeof(buf)), -EINVAL);
}

static void test_strerror(void) {
        for (int code = RTF_PROTO_E_SHORT; code <= RTF_PROTO_E_LAST; code++) {
                const char *s = rtf_proto_strerror(code);

                CHECK(s != NULL);
                CHECK(strcmp(s, "unknown protocol error") != 0);
                for (int other = RTF_PROTO_E_SHORT; other < code; other++)
                        CHECK(strcmp(s, rtf_proto_strerror(other)) != 0);
        }
        CHECK(strcmp(rtf_proto_strerror(12345), "unknown protocol error") == 0);
        CHECK(rtf_proto_strerror(-ENOBUFS) != NULL);
}

static void test_params(void) {
        struct rtf_params p = RTF_PARAMS_INIT, q;
        struct rtf_wire_params w;

        p.flags = RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_SCHEDULER;
        p.period_us = 10000;
        p.runtime_us = 1000;
        p.des_runtime_us = 2000;
        p.deadline_us = 9000;
        p.priority = 33;
        strcpy(p.scheduler, "RM1");
        p.reserved[0] = 7;      /* not part of the wire */

        memset(&w, 0xEE, sizeof(w));
        rtf_wire_params_from(&w, &p);
        CHECK_EQ(w.flags, p.flags);
        CHECK_EQ(w.priority, 33);
        CHECK_EQ(w.period_us, 10000);
        CHECK_EQ(w.runtime_us, 1000);
        CHECK_EQ(w.des_runtime_us, 2000);
        CHECK_EQ(w.deadline_us, 9000);
        CHECK(strcmp(w.plugin, "RM1") == 0);
        /* No stale bytes after the name reach the wire. */
        for (size_t i = strlen("RM1"); i < sizeof(w.plugin); i++)
                CHECK_EQ(w.plugin[i], 0);

        memset(&q, 0xEE, sizeof(q));
        rtf_wire_params_to(&q, &w);
        CHECK_EQ(q.size, sizeof(struct rtf_params));
        CHECK_EQ(q.flags, p.flags);
        CHECK_EQ(q.period_us, p.period_us);
        CHECK_EQ(q.runtime_us, p.runtime_us);
        CHECK_EQ(q.des_runtime_us, p.des_runtime_us);
        CHECK_EQ(q.deadline_us, p.deadline_us);
        CHECK_EQ(q.priority, p.priority);
        CHECK(strcmp(q.scheduler, "RM1") == 0);
        CHECK_EQ(q.reserved[0], 0);

        /* An unterminated name is cut, never overrun. */
        memset(p.scheduler, 'Z', sizeof(p.scheduler));
        rtf_wire_params_from(&w, &p);
        CHECK_EQ(strlen(w.plugin), RTF_PLUGIN_NAME_MAX - 1);
        memset(w.plugin, 'Y', sizeof(w.plugin));
        rtf_wire_params_to(&q, &w);
        CHECK_EQ(strlen(q.scheduler), RTF_PLUGIN_NAME_MAX - 1);
}

/* rtfd's conversions between the wire and its parameter model. */
static void test_task_params(void) {
        const struct rtf_task_params t = {
                .flags = RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_RUNTIME | RTF_PARAM_HAS_SCHEDULER,
                .period_us = 10000, .runtime_us = 1000,
        };
        struct rtf_task_params back;
        struct rtf_wire_params w;
        char plugin[RTF_PLUGIN_NAME_MAX];

        rtf_wire_params_from_task(&w, &t, "EDF");
        CHECK_EQ(w.flags, t.flags);
        CHECK_EQ(w.period_us, 10000);
        CHECK(strcmp(w.plugin, "EDF") == 0);
        rtf_wire_params_to_task(&back, plugin, sizeof(plugin), &w);
        CHECK(memcmp(&back, &t, sizeof(t)) == 0);
        CHECK(strcmp(plugin, "EDF") == 0);
}

int main(void) {
        test_task_params();
        test_sizes();
        test_round_trips();
        test_older_version();
        test_decode_stats_errors();
        test_encode_report();
        test_decode_header_errors();
        test_decode_size_errors();
        test_decode_row_errors();
        test_decode_string_errors();
        test_decode_reserved_errors();
        test_encode_errors();
        test_strerror();
        test_params();
        return test_done();
}
