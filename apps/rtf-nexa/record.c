/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The recording backend's files, written when rtf-nexa ends (SIGTERM
 * included) from the edges the tasks timestamped: an rtl_433 pulse file,
 * a baseband I/Q capture synthesised from the achieved edge times (so that
 * rtl_433's own demodulator sees the real timing), a VCD, and the timing
 * report (JSON).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "nexa-app.h"

#define BURST_GAP_NS 100000000LL        /* a longer silence separates transmissions */
#define LAST_OFF_US 20000               /* after a burst's last pulse: past rtl_433's reset limit */
#define IQ_RATE 250000                  /* rtl_433's default sample rate for files */
#define IQ_NS_PER_SAMPLE (1000000000LL / IQ_RATE)
#define IQ_LEAD_NS 2000000LL
#define IQ_TAIL_NS 20000000LL
#define IQ_AMPLITUDE 90.0
#define IQ_OFFSET_HZ 25000.0            /* the carrier sits a little off the tuned frequency */

/* Pulse i starts at an ON edge: its end and the next start (0 if the burst ends). */
static bool pulse_at(const struct nexa_edge *e, uint32_t n, uint32_t i, int64_t *ret_off, int64_t *ret_next) {
        if (i + 1 >= n || !e[i].level || e[i + 1].level)
                return false;
        *ret_off = e[i + 1].at_ns;
        *ret_next = i + 2 < n && e[i + 2].level && e[i + 2].at_ns - e[i + 1].at_ns < BURST_GAP_NS ? e[i + 2].at_ns : 0;
        return true;
}

int record_write_ook(const struct nexa_edge *e, uint32_t n, FILE *f) {
        bool open = false;

        fprintf(f, ";pulse data\n;version 1\n;timescale 1us\n");
        for (uint32_t i = 0; i < n;) {
                int64_t off, next;

                if (!pulse_at(e, n, i, &off, &next)) {
                        i++;
                        continue;
                }
                open = true;
                fprintf(f, "%lld %lld\n", (long long) ((off - e[i].at_ns + 500) / 1000),
                        next ? (long long) ((next - off + 500) / 1000) : (long long) LAST_OFF_US);
                if (!next) {
                        fprintf(f, ";end\n");
                        open = false;
                }
                i += 2;
        }
        if (open)
                fprintf(f, ";end\n");
        return ferror(f) ? -EIO : 0;
}

/* Deterministic noise, so that two runs on the same edges give the same file. */
static double noise(uint32_t *state) {
        *state = *state * 1664525u + 1013904223u;
        return ((double) (*state >> 16) / 65536.0 - 0.5) * 6.0;
}

static int write_iq(const struct nexa_edge *e, uint32_t n, FILE *f) {
        uint32_t rng = 1;
        uint64_t sample = 0;

        for (uint32_t i = 0; i < n;) {
                int64_t t0, t1, off, next;
                uint32_t j = i, k;

                if (!pulse_at(e, n, i, &off, &next)) {
                        i++;
                        continue;
                }
                /* the burst: pulses from i while they follow each other */
                while (pulse_at(e, n, j, &off, &next) && next)
                        j += 2;
                t0 = e[i].at_ns - IQ_LEAD_NS;
                t1 = off + IQ_TAIL_NS;
                k = i;
                for (int64_t t = t0; t < t1; t += IQ_NS_PER_SAMPLE, sample++) {
                        int64_t on_ns = 0, s_end = t + IQ_NS_PER_SAMPLE;
                        double frac, phase, ii, qq;

                        /* how much of this sample the carrier is on, from the achieved edges */
                        while (k <= j && e[k + 1].at_ns <= t)
                                k += 2;
                        for (uint32_t m = k; m <= j && e[m].at_ns < s_end; m += 2) {
                                int64_t a = e[m].at_ns > t ? e[m].at_ns : t;
                                int64_t b = e[m + 1].at_ns < s_end ? e[m + 1].at_ns : s_end;

                                if (b > a)
                                        on_ns += b - a;
                        }
                        frac = (double) on_ns / (double) IQ_NS_PER_SAMPLE;
                        phase = 2.0 * M_PI * IQ_OFFSET_HZ * (double) sample / IQ_RATE;
                        ii = 127.5 + IQ_AMPLITUDE * frac * cos(phase) + noise(&rng);
                        qq = 127.5 + IQ_AMPLITUDE * frac * sin(phase) + noise(&rng);
                        fputc((int) lround(fmin(fmax(ii, 0.0), 255.0)), f);
                        fputc((int) lround(fmin(fmax(qq, 0.0), 255.0)), f);
                }
                i = j + 2;
        }
        return ferror(f) ? -EIO : 0;
}

static int write_vcd(const struct nexa_app *app, const struct nexa_edge *e, uint32_t n, FILE *f) {
        fprintf(f, "$comment rtf-nexa: achieved edges of the transmitter line $end\n"
                   "$timescale 1ns $end\n$scope module rtf_nexa $end\n"
                   "$var wire 1 t tx $end\n$var wire 1 i tx_ideal $end\n$upscope $end\n$enddefinitions $end\n"
                   "#0\n0t\n0i\n");
        /* The ideal line as a second wire: both sorted by time, merged. */
        for (uint32_t a = 0, b = 0; a < n || b < n;) {
                bool take_ideal = b < n && (a >= n || e[b].ideal_ns < e[a].at_ns);
                const struct nexa_edge *x = take_ideal ? &e[b++] : &e[a++];
                int64_t t = (take_ideal ? x->ideal_ns : x->at_ns) - app->start_ns;

                fprintf(f, "#%lld\n%d%c\n", (long long) (t > 0 ? t : 0), x->level ? 1 : 0, take_ideal ? 'i' : 't');
        }
        return ferror(f) ? -EIO : 0;
}

static json_object *stats_json(const struct hist *h, int64_t min_ns) {
        json_object *o = json_object_new_object();

        json_object_object_add(o, "count", json_object_new_uint64(h->count));
        json_object_object_add(o, "min_ns", json_object_new_int64(h->count ? min_ns : 0));
        json_object_object_add(o, "p50_ns", json_object_new_uint64(hist_percentile_ns(h, 0.50)));
        json_object_object_add(o, "p99_ns", json_object_new_uint64(hist_percentile_ns(h, 0.99)));
        json_object_object_add(o, "max_ns", json_object_new_uint64(h->count ? h->max_ns : 0));
        return o;
}

static json_object *report(const struct nexa_app *app, int argc, char **argv) {
        const struct out_line *tx = &app->tx_line;
        uint32_t n = atomic_load(&tx->count);
        json_object *o = envelope_new(TOOL, argc, argv), *t, *d, *l;
        struct hist h = HIST_NULL;
        int64_t min_err = INT64_MAX;

        t = json_object_new_object();
        json_object_object_add(t, "t_us", json_object_new_int64(app->cfg.t_us));
        json_object_object_add(t, "commands_read", json_object_new_uint64(atomic_load(&app->commands_read)));
        json_object_object_add(t, "commands_bad", json_object_new_uint64(atomic_load(&app->commands_bad)));
        json_object_object_add(t, "transmissions", json_object_new_uint64(atomic_load(&app->transmissions)));
        json_object_object_add(t, "edges", json_object_new_uint64(n));
        json_object_object_add(t, "edges_dropped", json_object_new_uint64(atomic_load(&tx->dropped)));
        if (hist_init(&h, 20000) == 0) {
                for (uint32_t i = 0; i < n; i++) {
                        int64_t err = tx->edges[i].at_ns - tx->edges[i].ideal_ns;

                        if (err < min_err)
                                min_err = err;
                        hist_add(&h, err > 0 ? (uint64_t) err : 0);
                }
                json_object_object_add(t, "edge_error", stats_json(&h, min_err));
                hist_deinit(&h);
        }
        json_object_object_add(o, "transmitter", t);

        d = json_object_new_object();
        json_object_object_add(d, "dials", json_object_new_int64(app->cfg.dials));
        json_object_object_add(d, "releases", json_object_new_uint64(atomic_load(&app->dial_releases)));
        json_object_object_add(d, "overruns", json_object_new_uint64(atomic_load(&app->dial_overruns)));
        /* releases from the first to the last served, by the clock: what "releases" must count */
        json_object_object_add(d, "span_ns", json_object_new_int64(app->dial_last_ns - app->dial_first_ns));
        json_object_object_add(d, "commands", json_object_new_uint64(atomic_load(&app->dial_commands)));
        json_object_object_add(d, "commands_written", json_object_new_uint64(atomic_load(&app->dial_written)));
        json_object_object_add(d, "commands_pipe_full", json_object_new_uint64(atomic_load(&app->dial_pipe_full)));
        json_object_object_add(o, "dial", d);

        l = json_object_new_object();
        json_object_object_add(l, "period_us", json_object_new_int64(app->cfg.latency_period_us));
        json_object_object_add(l, "releases", json_object_new_uint64(atomic_load(&app->latency_releases)));
        json_object_object_add(l, "overruns", json_object_new_uint64(atomic_load(&app->latency_overruns)));
        json_object_object_add(l, "span_ns", json_object_new_int64(app->latency_last_ns - app->latency_first_ns));
        json_object_object_add(l, "release_error", stats_json(&app->latency_hist, 0));
        json_object_object_add(o, "latency", l);
        json_object_object_add(o, "duration_ns", json_object_new_int64(app->end_ns - app->start_ns));
        json_object_object_add(o, "log_lost", json_object_new_uint64(atomic_load(&app->tx_log.lost) +
                                                                      atomic_load(&app->dial_log.lost)));
        return o;
}

static int write_file(const char *path, const char *mode, int (*fn)(const struct nexa_app *, FILE *),
                      const struct nexa_app *app) {
        FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, mode);
        int r;

        if (!f)
                return -errno;
        r = fn(app, f);
        if (f == stdout)
                return fflush(f) == 0 ? r : -errno;
        if (fclose(f) != 0 && r == 0)
                r = -errno;
        return r;
}

static int ook_fn(const struct nexa_app *app, FILE *f) {
        return record_write_ook(app->tx_line.edges, atomic_load(&app->tx_line.count), f);
}

static int iq_fn(const struct nexa_app *app, FILE *f) {
        return write_iq(app->tx_line.edges, atomic_load(&app->tx_line.count), f);
}

static int vcd_fn(const struct nexa_app *app, FILE *f) {
        return write_vcd(app, app->tx_line.edges, atomic_load(&app->tx_line.count), f);
}

static int report_fn(const struct nexa_app *app, FILE *f) {
        json_object *o = report(app, app->argc, app->argv);

        envelope_finish(o, 0);
        fprintf(f, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
        json_object_put(o);
        return ferror(f) ? -EIO : 0;
}

int record_write_all(struct nexa_app *app) {
        static const struct {
                size_t field;
                const char *mode;
                int (*fn)(const struct nexa_app *, FILE *);
        } outputs[] = {
                { offsetof(struct nexa_config, record_ook), "w", ook_fn },
                { offsetof(struct nexa_config, record_iq), "wb", iq_fn },
                { offsetof(struct nexa_config, record_vcd), "w", vcd_fn },
                { offsetof(struct nexa_config, report), "w", report_fn },
        };
        int r = 0;

        for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++) {
                const char *path = *(const char *const *) ((const char *) &app->cfg + outputs[i].field);
                int q;

                if (!path)
                        continue;
                q = write_file(path, outputs[i].mode, outputs[i].fn, app);
                if (q < 0) {
                        fprintf(stderr, TOOL ": cannot write %s: %s\n", path, strerror(-q));
                        r = q;
                }
        }
        return r;
}
