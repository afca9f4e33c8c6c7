/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-nexa: the application of "Real-time Linux on a Raspberry Pi" on
 * <rtf/native.h>.  What every part shares: the output and input lines
 * (recording or GPIO backend), the log ring the real-time tasks hand their
 * messages to, and the counters of the timing report.
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rtf/native.h>

#include "nexa/nexa.h"
#include "stats.h"

#define TOOL "rtf-nexa"

/* ---- lines -------------------------------------------------------------------- */

struct nexa_edge {
        int64_t at_ns;          /* when the line was written (CLOCK_MONOTONIC) */
        int64_t ideal_ns;       /* when it should have been */
        bool level;
};

struct gpio_backend;

/* An output line: its edges are kept (preallocated) for the recordings. */
struct out_line {
        const char *name;
        bool level;
        struct nexa_edge *edges;        /* NULL: not recorded */
        uint32_t capacity;
        atomic_uint count;              /* written by the line's one task */
        atomic_ullong dropped;          /* edges past the capacity */
        struct gpio_backend *gpio;
        unsigned gpio_offset;
};

void out_line_set(struct out_line *l, bool level, int64_t ideal_ns);

/* ---- the log ring: real-time tasks never write to a file or syslog ----------- */

#define LOG_RING 64
#define LOG_MSG 96

struct log_ring {
        char msg[LOG_RING][LOG_MSG];
        int prio[LOG_RING];
        atomic_uint head;       /* producer */
        atomic_uint tail;       /* consumer */
        atomic_ullong lost;
};

/* Only one task may produce on a ring. */
void log_ring_push(struct log_ring *r, int prio, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- the whole program ----------------------------------------------------------- */

struct nexa_config {
        const char *pipe_dir;
        const char *record_ook;
        const char *record_iq;
        const char *record_vcd;
        const char *report;
        const char *pid_file;
        const char *gpio_chip;
        int tx_gpio, dial_gpio, latency_gpio;
        bool daemon;
        bool plain;                     /* priority 0: no rtfd, not real-time */
        uint32_t t_us;
        uint32_t latency_period_us;     /* 0: no latency task */
        uint32_t duration_s;            /* 0: until SIGTERM */
        uint32_t max_edges;
        /* the dial */
        const char *dial_sim;           /* digits, or NULL */
        uint32_t dials;
        uint32_t dial_pps_milli;
        uint32_t dial_break_pct;
        uint32_t dial_bounce_us;
        uint32_t dial_delay_ms;
};

struct nexa_app {
        struct nexa_config cfg;
        RT_PIPE cmd_pipe;               /* rtp1: commands in */
        RT_PIPE dial_pipe;              /* rtp2: dialled commands out */
        RT_TASK tx_task, dial_task, latency_task;
        bool tx_started, dial_started, latency_started;
        RT_ALARM alarms[4];
        struct out_line tx_line, latency_line;
        struct gpio_backend *gpio;
        struct log_ring tx_log, dial_log;
        atomic_bool stop;
        int64_t start_ns;
        /* transmitter */
        atomic_ullong commands_read, commands_bad, transmissions;
        /* dial decoder */
        struct nexa_dial decoders[8];
        atomic_ullong dial_releases, dial_overruns, dial_commands, dial_written, dial_pipe_full;
        int64_t dial_first_ns, dial_last_ns;            /* first and last release served */
        /* latency task */
        struct hist latency_hist;
        atomic_ullong latency_releases, latency_overruns;
        int64_t latency_first_ns, latency_last_ns;
        uint64_t latency_max_ns;
        /* the report */
        int64_t end_ns;
        int argc;
        char **argv;
};

#define NEXA_DIALS_MAX 8

int tasks_start(struct nexa_app *app);
void tasks_stop(struct nexa_app *app);

int record_write_all(struct nexa_app *app);
/* An rtl_433 pulse file from edges (pure: into a FILE). */
int record_write_ook(const struct nexa_edge *e, uint32_t n, FILE *f);

/* GPIO (libgpiod): NULL and -EOPNOTSUPP when built without it. */
int gpio_open(const char *chip, struct gpio_backend **ret);
int gpio_request_output(struct gpio_backend *g, unsigned offset);
int gpio_request_input(struct gpio_backend *g, unsigned offset);
int gpio_set(struct gpio_backend *g, unsigned offset, bool level);
int gpio_get(struct gpio_backend *g, unsigned offset);
void gpio_close(struct gpio_backend *g);
