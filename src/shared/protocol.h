/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The wire protocol between librtf (and rtfctl) and rtfd.
 *
 * One message per SOCK_SEQPACKET packet: a 16-byte header (version, type,
 * size of the whole packet, sequence number) and a fixed-layout body whose
 * size is determined by the type.  Both ends are on the same machine, so
 * fields are in host byte order; every struct has explicit padding and a
 * static size check.  The decoder is a pure function over a buffer so that
 * it can be fuzzed: it checks version, type, exact size, NUL termination
 * of strings and that reserved fields are zero.
 *
 * Who the peer is never appears in a message: rtfd learns it from the
 * kernel (SO_PEERCRED, SO_PEERPIDFD).
 *
 * Versions.  A peer sends every message with its own version in the header;
 * rtfd accepts RTF_PROTO_VERSION_MIN..RTF_PROTO_VERSION and answers each
 * request in the version it came in, so an older client only ever sees
 * packets of its own version.  A type that a version does not define is an
 * unknown type in that version.  Layouts of existing types never change: a
 * version only adds types.
 *
 * Changelog:
 *   1  first version.
 *   2  REPORT: a client's periodic-task statistics for one of its own
 *      specifications, one way (rtfd never answers it); TASK_STATS /
 *      TASK_STATS_REPLY: the last report of every specification that has one,
 *      for rtfctl.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "rtf/rtf.h"

#define RTF_PROTO_VERSION 2u
#define RTF_PROTO_VERSION_MIN 1u        /* the oldest version rtfd still serves */
#define RTF_MSG_MAX 4096u               /* no packet is larger */
#define RTF_REASON_MAX 128u

enum rtf_msg_type {
        /* requests, client -> rtfd */
        RTF_MSG_CREATE = 1,
        RTF_MSG_CHANGE = 2,
        RTF_MSG_RELEASE = 3,
        RTF_MSG_ATTACH = 4,
        RTF_MSG_DETACH = 5,
        RTF_MSG_STATUS = 6,
        RTF_MSG_TASKS = 7,
        RTF_MSG_REPORT = 8,             /* version 2; one way, never answered */
        RTF_MSG_TASK_STATS = 9,         /* version 2 */
        /* replies, rtfd -> client; the seq of the request is echoed */
        RTF_MSG_REPLY = 0x101,
        RTF_MSG_STATUS_REPLY = 0x106,
        RTF_MSG_TASKS_REPLY = 0x107,
        RTF_MSG_TASK_STATS_REPLY = 0x109, /* version 2 */
};

struct rtf_msg_header {
        uint16_t version;               /* RTF_PROTO_VERSION */
        uint16_t type;                  /* enum rtf_msg_type */
        uint32_t size;                  /* of the whole packet, header included */
        uint32_t seq;                   /* chosen by the client, echoed in the reply */
        uint32_t reserved;              /* zero */
};

/* Every RTF_PARAM_* flag this protocol version knows; others are refused. */
#define RTF_PARAM_KNOWN (RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_RUNTIME | RTF_PARAM_HAS_DES_RUNTIME | \
                         RTF_PARAM_HAS_DEADLINE | RTF_PARAM_HAS_PRIORITY | RTF_PARAM_HAS_SCHEDULER | \
                         RTF_PARAM_IGNORE_ADMISSION | RTF_PARAM_OVERRUN_SIGNAL)

struct rtf_wire_params {
        uint32_t flags;                 /* RTF_PARAM_* */
        uint32_t priority;
        uint64_t period_us;
        uint64_t runtime_us;
        uint64_t des_runtime_us;
        uint64_t deadline_us;
        char plugin[RTF_PLUGIN_NAME_MAX]; /* NUL-terminated, "" = any */
};

/* CREATE */
struct rtf_msg_create {
        struct rtf_wire_params params;
};

/* CHANGE */
struct rtf_msg_change {
        uint64_t id;
        struct rtf_wire_params params;
};

/* RELEASE, DETACH */
struct rtf_msg_id {
        uint64_t id;
};

/* ATTACH */
struct rtf_msg_attach {
        uint64_t id;
        int32_t tid;                    /* a thread id of the caller's, > 0 */
        uint32_t reserved;
};

/* STATUS, TASKS: ask for rows starting at `start` */
struct rtf_msg_list {
        uint32_t start;
        uint32_t reserved;
};

/* REPLY to CREATE/CHANGE/RELEASE/ATTACH/DETACH */
struct rtf_msg_reply {
        int32_t result;                 /* RTF_* or -errno */
        uint32_t priority;              /* granted kernel priority */
        uint64_t id;
        uint64_t accepted_runtime_us;
        int32_t cpu;                    /* absolute CPU, -1 = not pinned */
        uint32_t reserved;
        char plugin[RTF_PLUGIN_NAME_MAX];
        char reason[RTF_REASON_MAX];    /* why a request was refused */
};

/* One (plugin, core) row of STATUS_REPLY */
struct rtf_wire_core {
        char plugin[RTF_PLUGIN_NAME_MAX];
        char policy[16];                /* "DEADLINE", "FIFO", ... */
        int32_t cpu;
        uint32_t partitioned;
        uint32_t tasks;
        uint32_t prio_min;              /* the plugin's range */
        uint32_t prio_max;
        uint32_t prio_lowest;           /* in use on this core, 0 = none */
        uint32_t prio_highest;
        uint32_t reserved;
        uint64_t utilization_ppm;       /* declared utilisation, parts per million */
};

/* One task row of TASKS_REPLY */
struct rtf_wire_task {
        uint64_t id;
        uint32_t uid;
        int32_t pid;                    /* owner process */
        int32_t tid;                    /* attached thread, 0 = none */
        int32_t cpu;                    /* -1 = not pinned / not placed */
        uint32_t priority;
        uint32_t reserved;
        uint64_t accepted_runtime_us;
        struct rtf_wire_params params;  /* .plugin = the admitting plugin */
};

/*
 * Statistics of a periodic task (struct rtf_task_stats), as its client
 * counted them.  They are the client's claim: rtfd stores and shows them but
 * measures none of it.  The decoder refuses what no librtf could have
 * counted: an unknown mode or flag, a budget above the period, more overruns
 * than periods.
 */
#define RTF_STATS_FINAL 0x1u            /* the task stopped: no report follows */
#define RTF_STATS_KNOWN RTF_STATS_FINAL

struct rtf_wire_stats {
        uint32_t budget_mode;           /* enum rtf_budget_mode */
        uint32_t flags;                 /* RTF_STATS_* */
        uint64_t period_ns;
        uint64_t budget_ns;             /* 0: none */
        uint64_t periods;
        uint64_t overruns;
        uint64_t missed_releases;
        uint64_t budget_exhaustions;
        uint64_t ignored_waits;
        uint64_t max_response_ns;
        uint64_t max_job_cpu_ns;
};

/* REPORT: statistics for one of the sending connection's own specifications */
struct rtf_msg_report {
        uint64_t id;
        struct rtf_wire_stats stats;
};

/* One row of TASK_STATS_REPLY */
struct rtf_wire_task_stats {
        uint64_t id;
        uint64_t age_ms;                /* since rtfd received the report */
        struct rtf_wire_stats stats;
};

#define RTF_STATUS_ROWS_MAX ((RTF_MSG_MAX - sizeof(struct rtf_msg_header) - 16) / sizeof(struct rtf_wire_core))
#define RTF_TASKS_ROWS_MAX ((RTF_MSG_MAX - sizeof(struct rtf_msg_header) - 16) / sizeof(struct rtf_wire_task))
#define RTF_TASK_STATS_ROWS_MAX ((RTF_MSG_MAX - sizeof(struct rtf_msg_header) - 16) / \
                                 sizeof(struct rtf_wire_task_stats))

/* STATUS_REPLY / TASKS_REPLY / TASK_STATS_REPLY: `count` rows follow, of `total` */
struct rtf_msg_rows {
        uint32_t total;
        uint32_t start;
        uint32_t count;
        uint32_t reserved;
        union {
                struct rtf_wire_core cores[RTF_STATUS_ROWS_MAX];
                struct rtf_wire_task tasks[RTF_TASKS_ROWS_MAX];
                struct rtf_wire_task_stats task_stats[RTF_TASK_STATS_ROWS_MAX];
        };
};

/* A decoded message: the header and a copy of the body. */
struct rtf_msg {
        struct rtf_msg_header header;
        union {
                struct rtf_msg_create create;
                struct rtf_msg_change change;
                struct rtf_msg_id id;
                struct rtf_msg_attach attach;
                struct rtf_msg_list list;
                struct rtf_msg_report report;
                struct rtf_msg_reply reply;
                struct rtf_msg_rows rows;
        };
};

/* Outcomes of decoding, all negative: the connection is to be closed. */
enum {
        RTF_PROTO_E_SHORT = -1000,      /* shorter than a header, or than its size */
        RTF_PROTO_E_VERSION,            /* unsupported protocol version */
        RTF_PROTO_E_TYPE,               /* unknown message type */
        RTF_PROTO_E_SIZE,               /* size does not match the type */
        RTF_PROTO_E_STRING,             /* a string field is not NUL-terminated */
        RTF_PROTO_E_RESERVED,           /* a reserved field is not zero */
        RTF_PROTO_E_ROWS,               /* row count inconsistent with size */
        RTF_PROTO_E_VALUE,              /* a field holds a value no peer could mean */
        RTF_PROTO_E_LAST = RTF_PROTO_E_VALUE,
};

/*
 * Size of a packet of `type` (rows: with `count` rows), 0 if the type is
 * unknown or `count` exceeds the type's RTF_*_ROWS_MAX.
 */
size_t rtf_msg_size(uint16_t type, uint32_t count);

/* The protocol version that introduced `type`, 0 if the type is unknown. */
unsigned rtf_msg_type_version(uint16_t type);

/*
 * Decode one packet of `len` bytes (need not be aligned) into *ret.  Returns
 * 0, one of RTF_PROTO_E_*, or -EINVAL for a NULL argument; *ret is written
 * only on success, and then entirely (rows beyond `count` are zero).  Rows
 * replies must have start + count <= total unless count is 0.
 */
int rtf_msg_decode(const void *buf, size_t len, struct rtf_msg *ret);

/*
 * Encode *msg (header.version, header.type, header.seq and the body are read;
 * size is filled in, header.reserved is written as zero) into buf.  Version 0
 * means RTF_PROTO_VERSION; rtfd sets the version of the request it answers.
 * Returns the packet size, -ENOBUFS if buflen is too small, or -EINVAL if the
 * type or version is unknown, or the message would not pass rtf_msg_decode().
 */
int rtf_msg_encode(const struct rtf_msg *msg, void *buf, size_t buflen);

/*
 * Encode a REPORT (version RTF_PROTO_VERSION) without a struct rtf_msg, for
 * librtf's periodic path: a few hundred bytes of stack, no allocation.
 * Returns the packet size, -ENOBUFS or -EINVAL as rtf_msg_encode().
 */
int rtf_msg_encode_report(uint32_t seq, uint64_t id, const struct rtf_wire_stats *stats, void *buf,
                          size_t buflen);

/* A text for an RTF_PROTO_E_* code, for logs. */
const char *rtf_proto_strerror(int code);

/* Conversions between the public params and the wire. */
void rtf_wire_params_from(struct rtf_wire_params *w, const struct rtf_params *p);
void rtf_wire_params_to(struct rtf_params *p, const struct rtf_wire_params *w);
/* The same for rtfd, whose parameter model is struct rtf_task_params
 * (task-params.h); the plugin name travels beside it. */
struct rtf_task_params;
void rtf_wire_params_to_task(struct rtf_task_params *t, char *plugin, size_t plugin_size,
                             const struct rtf_wire_params *w);
void rtf_wire_params_from_task(struct rtf_wire_params *w, const struct rtf_task_params *t, const char *plugin);
