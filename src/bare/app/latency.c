/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The paper's latency test (section 4.2): a task with a 100 us period
 * records its activation time minus the expected one, in one-shot and
 * periodic timer mode, idle and with a CPU load (a lowest-priority task
 * that never stops).  Each run prints one line a tool can read:
 *   latency {"timer":..., "load":..., "samples":N, "min_ns":..., ...,
 *            "histogram_ns":[[bucket_lower_edge_ns, count], ...]}
 * (tools/plot/plot-bare.py draws them).  Printing happens after measuring.
 */
#include "app.h"
#include "lib/hist.h"
#include "rtai_sem.h"

struct run {
        SEM done;
        RT_TASK measure, load;
        uint32_t samples;
        RTIME period;
        struct hist hist;
        volatile uint32_t load_loops;
        uint32_t overruns;
        bool has_load;
};

static void measure_body(long data) {
        struct run *r = (struct run *) data;
        RT_TASK *me = rt_whoami();

        /* Expected: the release of the job, on the grid of make_periodic's start time. */
        for (uint32_t i = 0; i < r->samples; i++) {
                if (rt_task_wait_period() == RTE_TMROVRN)
                        r->overruns++;
                hist_add(&r->hist, rt_get_time_ns() - rt_task_release_ns(me));
        }
        if (r->has_load)
                rt_task_delete(&r->load);
        rt_sem_signal(&r->done);
}

static void load_body(long data) {
        struct run *r = (struct run *) data;

        for (;;)
                r->load_loops++;
}

static void print_run(const struct run *r, const char *timer, const char *load, bool histogram) {
        const struct hist *h = &r->hist;

        /* In pieces: rt_printk formats at most 255 characters at a time. */
        rt_printk("latency {\"timer\":\"%s\",\"load\":\"%s\",\"period_ns\":%lld,\"samples\":%llu,"
                  "\"min_ns\":%lld,\"avg_ns\":%lld,\"p99_ns\":%lld,\"max_ns\":%lld,",
                  timer, load, (long long) count2nano(r->period), (unsigned long long) h->count,
                  (long long) h->min_ns, (long long) hist_mean_ns(h), (long long) hist_percentile_ns(h, 990),
                  (long long) h->max_ns);
        rt_printk("\"overruns\":%u,\"load_loops\":%u,\"bucket_ns\":%u,\"below\":%llu,\"above\":%llu,"
                  "\"histogram_ns\":[", r->overruns, r->load_loops, h->bucket_ns,
                  (unsigned long long) h->below, (unsigned long long) h->above);
        bool first = true;
        for (uint32_t i = 0; histogram && i < HIST_BUCKETS; i++) {
                if (!h->buckets[i])
                        continue;
                rt_printk("%s[%lld,%u]", first ? "" : ",", (long long) (h->lo_ns + (int64_t) i * h->bucket_ns),
                          h->buckets[i]);
                first = false;
        }
        rt_printk("]}\n");
}

static int one_run(struct run *r, const struct bare_options *o, bool periodic, bool cpu_load) {
        const char *timer = periodic ? "periodic" : "oneshot", *load = cpu_load ? "cpu" : "idle";
        int failed = 0;

        stop_rt_timer();
        if (periodic)
                rt_set_periodic_mode();
        else
                rt_set_oneshot_mode();
        r->period = start_rt_timer((int) nano2count((RTIME) o->period_us * 1000));
        if (!periodic)
                r->period = nano2count((RTIME) o->period_us * 1000);
        r->samples = o->samples;
        r->load_loops = 0;
        r->overruns = 0;
        hist_init(&r->hist, -20000, 250);
        rt_sem_init(&r->done, 0);
        rt_task_init(&r->measure, measure_body, (long) r, 2048, 0, 0, 0);
        rt_task_set_name(&r->measure, "latency");
        r->has_load = cpu_load;
        rt_task_make_periodic(&r->measure, rt_get_time() + r->period, r->period);
        if (cpu_load) {
                /* Above the root task: the root runs again once the latency task deleted it. */
                rt_task_init(&r->load, load_body, (long) r, 1024, RT_SCHED_LOWEST_PRIORITY, 0, 0);
                rt_task_set_name(&r->load, "cpuload");
                rt_task_resume(&r->load);
        }
        rt_sem_wait(&r->done);
        stop_rt_timer();
        rt_set_oneshot_mode();
        start_rt_timer(0);
        print_run(r, timer, load, o->histogram);
        failed += check(r->hist.count == r->samples, "latency: every sample recorded");
        if (cpu_load)
                failed += check(r->load_loops > 0, "latency: the CPU load ran between activations");
        return failed;
}

int latency_run(struct kernel *k, const struct bare_options *o) {
        static struct run r;
        int failed = 0;

        rt_printk("# latency: period %u us, %u samples per run\n", o->period_us, o->samples);
        for (int p = 0; p < 2; p++) {
                if (!(o->modes & (p ? BARE_MODE_PERIODIC : BARE_MODE_ONESHOT)))
                        continue;
                for (int l = 0; l < 2; l++)
                        if (o->loads & (l ? BARE_LOAD_CPU : BARE_LOAD_IDLE))
                                failed += one_run(&r, o, p, l);
        }
        return failed;
}
