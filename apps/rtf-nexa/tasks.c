/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The three real-time tasks of section 4.2, on <rtf/native.h>, with the
 * paper's priorities: latency 99, transmitter (driver) 80, dial decoder 60.
 * Nothing here allocates, writes a file or logs: messages go to a log ring
 * that the main thread drains, edges into preallocated arrays.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "nexa-app.h"

#define MS 1000000LL
#define TX_LEAD_NS (1 * MS)     /* from reading a command to its first edge */
#define DIAL_PERIOD_NS (NEXA_DIAL_SAMPLE_MS * MS)

enum { PRIO_LATENCY = 99, PRIO_TX = 80, PRIO_DIAL = 60 };

void log_ring_push(struct log_ring *r, int prio, const char *fmt, ...) {
        unsigned head = atomic_load_explicit(&r->head, memory_order_relaxed);
        va_list ap;

        if (head - atomic_load_explicit(&r->tail, memory_order_acquire) >= LOG_RING) {
                atomic_fetch_add(&r->lost, 1);
                return;
        }
        va_start(ap, fmt);
        vsnprintf(r->msg[head % LOG_RING], LOG_MSG, fmt, ap);
        va_end(ap);
        r->prio[head % LOG_RING] = prio;
        atomic_store_explicit(&r->head, head + 1, memory_order_release);
}

void out_line_set(struct out_line *l, bool level, int64_t ideal_ns) {
        int64_t now = (int64_t) rt_timer_read();
        unsigned i;

        if (l->gpio)
                gpio_set(l->gpio, l->gpio_offset, level);
        l->level = level;
        if (!l->edges)
                return;
        i = atomic_load_explicit(&l->count, memory_order_relaxed);
        if (i >= l->capacity) {
                atomic_fetch_add(&l->dropped, 1);
                return;
        }
        l->edges[i] = (struct nexa_edge) { .at_ns = now, .ideal_ns = ideal_ns, .level = level };
        atomic_store_explicit(&l->count, i + 1, memory_order_release);
}

/* ---- transmitter ---------------------------------------------------------------- */

/* Arms `a` for the absolute time `ideal`: the edges of a bit never inherit a late start. */
static void arm(RT_ALARM *a, int64_t ideal) {
        int64_t now = (int64_t) rt_timer_read();

        rt_alarm_start(a, ideal > now ? (RTIME) (ideal - now) : 1, TM_INFINITE);
}

static void transmit(struct nexa_app *app, uint16_t code) {
        struct nexa_pulse p[NEXA_PULSES];
        int64_t T = (int64_t) app->cfg.t_us * 1000, b;
        RT_ALARM *a = app->alarms;

        nexa_pulses(code, p);
        b = (int64_t) rt_timer_read() + TX_LEAD_NS;
        arm(&a[3], b);
        rt_alarm_wait(&a[3]);
        for (int rep = 0; rep < NEXA_REPEATS; rep++) {
                for (int bit = 0; bit <= NEXA_BITS; bit++) {
                        const struct nexa_pulse *p0 = &p[2 * bit], *p1 = bit < NEXA_BITS ? &p[2 * bit + 1] : NULL;
                        int64_t off0, on1, off1, end;

                        out_line_set(&app->tx_line, true, b);
                        /*
                         * A bit that starts late by more than T/4 (the task was held up) moves the
                         * rest of the message with it, as the paper's alarms relative to the bit's
                         * start do: aiming at times already past would squeeze pulses to nothing
                         * and merge repeats.  On time, the schedule stays absolute.
                         */
                        if ((int64_t) rt_timer_read() - b > T / 4)
                                b = (int64_t) rt_timer_read();
                        off0 = b + p0->on_t * T;
                        on1 = b + (p0->on_t + p0->off_t) * T;
                        off1 = p1 ? on1 + p1->on_t * T : 0;
                        end = p1 ? on1 + (p1->on_t + p1->off_t) * T : on1;

                        /* Section 4.2.1: every alarm of the bit is started at its beginning. */
                        arm(&a[0], off0);
                        if (p1) {
                                arm(&a[1], on1);
                                arm(&a[2], off1);
                        }
                        arm(&a[3], end);
                        rt_alarm_wait(&a[0]);
                        out_line_set(&app->tx_line, false, off0);
                        if (p1) {
                                rt_alarm_wait(&a[1]);
                                out_line_set(&app->tx_line, true, on1);
                                rt_alarm_wait(&a[2]);
                                out_line_set(&app->tx_line, false, off1);
                        }
                        rt_alarm_wait(&a[3]);
                        b = end;
                }
        }
}

static void printable(const char *in, size_t n, char *out, size_t size) {
        size_t j = 0;

        for (size_t i = 0; i < n && j + 1 < size; i++)
                out[j++] = isprint((unsigned char) in[i]) ? in[i] : '?';
        out[j] = '\0';
}

static void tx_command(struct nexa_app *app, const char *line, size_t len, bool overlong) {
        struct nexa_command c;
        char shown[16];
        uint16_t code;

        while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
                len--;
        if (len == 0 && !overlong)
                return;
        printable(line, len, shown, sizeof(shown));
        if (overlong || nexa_command_parse(line, len, &c) < 0 || nexa_encode(&c, &code) < 0) {
                atomic_fetch_add(&app->commands_bad, 1);
                log_ring_push(&app->tx_log, LOG_WARNING, "ignored bad command '%s%s' (want e.g. d21: house a-p, "
                              "unit 1-16, 1 on / 0 off)", shown, overlong ? "..." : "");
                return;
        }
        atomic_fetch_add(&app->commands_read, 1);
        transmit(app, code);
        atomic_fetch_add(&app->transmissions, 1);
        log_ring_push(&app->tx_log, LOG_INFO, "sent %s: house %c unit %u %s", shown, c.house, c.unit,
                      c.on ? "on" : "off");
}

static void tx_main(void *cookie) {
        struct nexa_app *app = cookie;
        char buf[64], line[NEXA_COMMAND_MAX];
        bool overlong = false;
        size_t len = 0;

        for (;;) {
                ssize_t n = rt_pipe_read(&app->cmd_pipe, buf, sizeof(buf), TM_INFINITE);

                if (n == -EINTR)
                        continue;
                if (n < 0)
                        return;         /* -EIDRM: the pipe is gone, we are stopping */
                for (ssize_t i = 0; i < n; i++) {
                        if (buf[i] == '\n' || buf[i] == ';') {
                                tx_command(app, line, len, overlong);
                                len = 0;
                                overlong = false;
                        } else if (len < sizeof(line)) {
                                line[len++] = buf[i];
                        } else {
                                overlong = true;
                        }
                }
        }
}

/* ---- dial decoder ------------------------------------------------------------------ */

static void dial_main(void *cookie) {
        struct nexa_app *app = cookie;
        const struct nexa_config *cfg = &app->cfg;
        struct nexa_dial_script script = {
                .digits = cfg->dial_sim, .pps_milli = cfg->dial_pps_milli, .break_pct = cfg->dial_break_pct,
                .idle_ms = 200, .interdigit_ms = 400, .hangup_ms = 300, .bounce_us = cfg->dial_bounce_us,
        };
        int64_t t0, release;

        t0 = (int64_t) rt_timer_read() + (int64_t) cfg->dial_delay_ms * MS;
        release = (int64_t) rt_timer_read() + DIAL_PERIOD_NS;
        rt_task_set_periodic(NULL, (RTIME) release, DIAL_PERIOD_NS);
        while (!atomic_load(&app->stop)) {
                unsigned long ov = 0;
                int64_t now;

                rt_task_wait_period(&ov);
                atomic_fetch_add(&app->dial_releases, 1 + ov);
                atomic_fetch_add(&app->dial_overruns, ov);
                now = (int64_t) rt_timer_read();
                if (!app->dial_first_ns)
                        app->dial_first_ns = release;
                release += (int64_t) (ov + 1) * DIAL_PERIOD_NS;
                app->dial_last_ns = release - DIAL_PERIOD_NS;
                /* Several decoders in one loop (section 4.2.2), one after the other. */
                for (uint32_t k = 0; k < cfg->dials; k++) {
                        char out[NEXA_COMMAND_MAX];
                        bool open;
                        ssize_t w;
                        int n;

                        if (cfg->dial_sim)
                                open = now < t0 || nexa_dial_script_open(&script, (uint64_t) (now - t0) / 1000);
                        else
                                open = gpio_get(app->gpio, (unsigned) cfg->dial_gpio + k) != 0;
                        n = nexa_dial_sample(&app->decoders[k], open, out, sizeof(out));
                        if (n <= 0)
                                continue;
                        atomic_fetch_add(&app->dial_commands, 1);
                        w = rt_pipe_write(&app->dial_pipe, out, (size_t) n, P_NORMAL);
                        if (w == n) {
                                atomic_fetch_add(&app->dial_written, 1);
                                log_ring_push(&app->dial_log, LOG_INFO, "dial %u: %.*s", k, n - 1, out);
                        } else {
                                atomic_fetch_add(&app->dial_pipe_full, 1);
                                /* the number, not strerror(): nothing on this path may allocate */
                                log_ring_push(&app->dial_log, LOG_WARNING, "dial %u: %.*s not written to rtp2: "
                                              "errno %d%s", k, n - 1, out, (int) -w,
                                              w == -ENOMEM ? " (pool full: nobody reads rtp2)" : "");
                        }
                }
        }
}

/* ---- latency ------------------------------------------------------------------------- */

static void latency_main(void *cookie) {
        struct nexa_app *app = cookie;
        int64_t period = (int64_t) app->cfg.latency_period_us * 1000, release;
        bool level = false;

        release = (int64_t) rt_timer_read() + 10 * MS;
        rt_task_set_periodic(NULL, (RTIME) release, (RTIME) period);
        while (!atomic_load(&app->stop)) {
                unsigned long ov = 0;
                int64_t err, ideal;

                rt_task_wait_period(&ov);
                /*
                 * The toggle was due at the release waited for: a late one counts in full,
                 * as in cyclictest, even when later releases were skipped (overruns).
                 */
                ideal = release;
                if (!app->latency_first_ns)
                        app->latency_first_ns = ideal;
                app->latency_last_ns = ideal + (int64_t) ov * period;
                level = !level;
                out_line_set(&app->latency_line, level, ideal);
                err = (int64_t) rt_timer_read() - ideal;
                release += (int64_t) (ov + 1) * period;
                hist_add(&app->latency_hist, err > 0 ? (uint64_t) err : 0);
                if (err > 0 && (uint64_t) err > app->latency_max_ns)
                        app->latency_max_ns = (uint64_t) err;
                atomic_fetch_add(&app->latency_releases, 1 + ov);
                atomic_fetch_add(&app->latency_overruns, ov);
        }
}

/* ---- lifetime ------------------------------------------------------------------------- */

static int start_one(struct nexa_app *app, RT_TASK *t, const char *name, int prio, void (*fn)(void *)) {
        int r = rt_task_create(t, name, 0, app->cfg.plain ? 0 : prio, T_JOINABLE);

        if (r < 0)
                return r;
        r = rt_task_start(t, fn, app);
        if (r < 0)
                rt_task_delete(t);
        return r;
}

int tasks_start(struct nexa_app *app) {
        int r;

        for (int i = 0; i < 4; i++) {
                r = rt_alarm_create(&app->alarms[i], "tx-edge");
                if (r < 0)
                        return r;
        }
        if (app->cfg.latency_period_us) {
                r = start_one(app, &app->latency_task, "latency", PRIO_LATENCY, latency_main);
                if (r < 0)
                        return r;
                app->latency_started = true;
        }
        r = start_one(app, &app->tx_task, "driver", PRIO_TX, tx_main);
        if (r < 0)
                return r;
        app->tx_started = true;
        if (app->cfg.dials) {
                r = start_one(app, &app->dial_task, "dial", PRIO_DIAL, dial_main);
                if (r < 0)
                        return r;
                app->dial_started = true;
        }
        return 0;
}

void tasks_stop(struct nexa_app *app) {
        atomic_store(&app->stop, true);
        /* The periodic tasks see `stop` at their next release; the driver ends its transmission. */
        if (app->latency_started)
                rt_task_join(&app->latency_task);
        if (app->dial_started)
                rt_task_join(&app->dial_task);
        rt_pipe_delete(&app->cmd_pipe);
        if (app->tx_started)
                rt_task_join(&app->tx_task);
        rt_pipe_delete(&app->dial_pipe);
        for (int i = 0; i < 4; i++)
                rt_alarm_delete(&app->alarms[i]);
        app->end_ns = (int64_t) rt_timer_read();
}
