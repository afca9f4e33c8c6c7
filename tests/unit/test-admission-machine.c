/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whole-machine admission (src/shared/admission/machine.c): the sets of
 * issue 11 that every plugin admits on its own (checked here against the
 * built plugins) and that the machine as a whole cannot schedule.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission/machine.h"
#include "plugin-host.h"
#include "tap.h"

static const bool no_partition[2] = { false, false };
static const bool both_partitioned[2] = { true, true };

static struct adm_machine_host host(const bool *partitioned) {
        return (struct adm_machine_host) {
                .n_cpus = 2,
                .partitioned = partitioned,
                .rt_share = ADM_MACHINE_RT_SHARE_DEFAULT,
                .fair_share = ADM_MACHINE_FAIR_SHARE_DEFAULT,
        };
}

static struct adm_machine_task dl(uint32_t inst, int32_t cpu, uint64_t t, uint64_t q) {
        return (struct adm_machine_task) {
                .instance = inst, .policy = ADM_MACHINE_DEADLINE, .cpu = cpu,
                .runtime_us = q, .period_us = t,
        };
}

static struct adm_machine_task fifo(uint32_t inst, int32_t cpu, uint32_t prio, uint64_t t,
                                    uint64_t c, uint64_t d) {
        return (struct adm_machine_task) {
                .instance = inst, .policy = ADM_MACHINE_FIFO, .cpu = cpu, .priority = prio,
                .runtime_us = c, .period_us = t, .deadline_us = d,
        };
}

static int check(const struct adm_machine_host *h, const struct adm_machine_task *t, size_t n,
                 struct adm_machine_verdict *v) {
        char why[256];
        int r = adm_machine_check(h, t, n, v);

        if (r == ADM_REJECT) {
                adm_machine_explain(v, NULL, 0, t, why, sizeof(why));
                fprintf(stderr, "# %s\n", why);
        }
        return r;
}

/* ---- the real plugins, to show each admits its part ----------------------- */

/* One instance of `file` on one CPU; prio 100 is EDF's range, else prio..99. */
static int instance_open(struct plugin_instance *in, const char *file, uint32_t cpu, uint32_t prio,
                         const bool *partitioned) {
        const uint32_t cpus[1] = { cpu };
        struct rtf_plugin_config cfg = config(file, prio, prio == 100 ? 100 : 99, cpus, partitioned, 1, NULL, 0);

        if (plugin_instance_load(in, file) < 0)
                return -ENOENT;
        return plugin_instance_init(in, &cfg);
}

static int admit(struct plugin_instance *in, struct rtf_plugin_task *t, uint64_t period, uint64_t runtime) {
        struct rtf_plugin_decision d;
        int v;

        *t = (struct rtf_plugin_task) { .params = params(period, runtime, 0, 0, 0, 0), .core = -1 };
        v = in->ops->accept(in->state, &t->params, &d);
        if (v == RTF_PLUGIN_OK)
                CHECK_EQ(in->ops->schedule(in->state, t, &d), 0);
        return v;
}

/* Issue 11, point 1: E0 EDF on CPU 0, E1 EDF on CPU 1, no partitions. */
static void test_two_edf_without_partitions(void) {
        struct adm_machine_host h = host(no_partition);
        struct adm_machine_task set[] = { dl(0, -1, 1000, 850), dl(1, -1, 100, 40), dl(1, -1, 100, 40) };
        struct adm_machine_verdict v;
        struct plugin_instance e0, e1;
        struct rtf_plugin_task t[3];

        /* Each instance, alone, admits its part. */
        if (instance_open(&e0, "EDF.so", 0, 100, no_partition) == 0 &&
            instance_open(&e1, "EDF.so", 1, 100, no_partition) == 0) {
                CHECK_EQ(admit(&e0, &t[0], 1000, 850), RTF_PLUGIN_OK);
                CHECK_EQ(admit(&e1, &t[1], 100, 40), RTF_PLUGIN_OK);
                CHECK_EQ(admit(&e1, &t[2], 100, 40), RTF_PLUGIN_OK);
                /* global mode: not pinned */
                CHECK_EQ(t[0].core, -1);
                e1.ops->release(e1.state, &t[2]);
                e1.ops->release(e1.state, &t[1]);
                e0.ops->release(e0.state, &t[0]);
                plugin_instance_close(&e0);
                plugin_instance_close(&e1);
        } else
                CHECK(!"EDF.so loads");

        /* The machine: all three float over both CPUs. */
        CHECK_EQ(check(&h, set, 3, &v), ADM_REJECT);
        CHECK_EQ(v.refusal, ADM_MACHINE_DL_BANDWIDTH);
        CHECK_EQ(v.m, 2);
        /* 0.85 + 0.4 + 0.4 + (2 - 1) * 0.85 = 2.5 > 2 * 0.9 */
        CHECK_EQ(v.load, 2500000000ULL);
        CHECK_EQ(v.cap, 1800000000ULL);
        /* lighter sets that global EDF provably schedules pass */
        set[0] = dl(0, -1, 1000, 400);
        CHECK_EQ(check(&h, set, 3, &v), ADM_ADMIT);

        /* With a partition per CPU each thread is pinned: per-CPU EDF, all fine. */
        h = host(both_partitioned);
        set[0] = dl(0, 0, 1000, 850);
        set[1] = dl(1, 1, 100, 40);
        set[2] = dl(1, 1, 100, 40);
        CHECK_EQ(check(&h, set, 3, &v), ADM_ADMIT);
        set[2] = dl(1, 1, 100, 60);
        /* 0.4 + 0.6 > 0.9 on CPU 1 */
        CHECK_EQ(check(&h, set, 3, &v), ADM_REJECT);
        CHECK_EQ(v.cpu, 1);
        CHECK_EQ(v.m, 1);
        /* density 0.8 + 0.3 > 0.9 but processor demand holds: with scratch, admitted */
        {
                struct adm_edf_task scratch[3];

                set[1] = dl(1, 1, 1000, 400);
                set[1].deadline_us = 500;
                set[2] = dl(1, 1, 1000, 300);
                CHECK_EQ(check(&h, set, 3, &v), ADM_REJECT);
                h.scratch = scratch;
                h.scratch_size = 3;
                CHECK_EQ(check(&h, set, 3, &v), ADM_ADMIT);
                set[2].deadline_us = 600;
                CHECK_EQ(check(&h, set, 3, &v), ADM_REJECT);
                h.scratch = NULL;
        }
}

/* Issue 11, point 2: EDF on CPU 0, RM on CPU 1, no partitions. */
static void test_edf_and_rm_without_partitions(void) {
        struct adm_machine_host h = host(no_partition);
        struct adm_machine_task set[] = { dl(0, -1, 1000, 900), fifo(1, 1, 99, 10000, 5000, 0) };
        struct adm_machine_verdict v;
        struct plugin_instance e, rm;
        struct rtf_plugin_task t[2];
        char why[256];

        if (instance_open(&e, "EDF.so", 0, 100, no_partition) == 0 &&
            instance_open(&rm, "RM.so", 1, 1, no_partition) == 0) {
                CHECK_EQ(admit(&e, &t[0], 1000, 900), RTF_PLUGIN_OK);
                CHECK_EQ(admit(&rm, &t[1], 10000, 5000), RTF_PLUGIN_OK);
                CHECK_EQ(t[1].priority, 99);
                rm.ops->release(rm.state, &t[1]);
                e.ops->release(e.state, &t[0]);
                plugin_instance_close(&e);
                plugin_instance_close(&rm);
        } else
                CHECK(!"EDF.so and RM.so load");

        CHECK_EQ(check(&h, set, 2, &v), ADM_REJECT);
        CHECK_EQ(v.refusal, ADM_MACHINE_CPU_OVERLOAD);
        CHECK_EQ(v.cpu, 1);
        CHECK_EQ(v.load_deadline, 900000000ULL);
        CHECK_EQ(v.load, 1400000000ULL);
        adm_machine_explain(&v, NULL, 0, set, why, sizeof(why));
        CHECK(strstr(why, "CPU 1") != NULL);
        CHECK(strstr(why, "SCHED_DEADLINE 0.900000") != NULL);

        /* With CPU 0 partitioned, the DEADLINE thread is pinned there: CPU 1 is RM's alone. */
        {
                const bool part0[2] = { true, false };

                h = host(part0);
                set[0] = dl(0, 0, 1000, 900);
                CHECK_EQ(check(&h, set, 2, &v), ADM_ADMIT);
        }

        /* Within the utilisation cap, a DEADLINE server still delays a FIFO deadline: RTA. */
        h = host(no_partition);
        set[0] = dl(0, -1, 1000, 100);
        set[1] = fifo(1, 1, 99, 1000, 500, 550);
        CHECK_EQ(check(&h, set, 2, &v), ADM_REJECT);
        CHECK_EQ(v.refusal, ADM_MACHINE_RTA_MISS);
        CHECK_EQ(v.task, 1);
        set[1] = fifo(1, 1, 99, 1000, 500, 800);
        CHECK_EQ(check(&h, set, 2, &v), ADM_ADMIT);
}

/* FIFO threads of two plugins on one CPU interfere (ties both ways). */
static void test_fifo_across_plugins(void) {
        struct adm_machine_host h = host(no_partition);
        struct adm_machine_task set[] = { fifo(0, 0, 99, 10, 6, 0), fifo(1, 0, 50, 20, 5, 8) };
        struct adm_machine_verdict v;

        /* RM's (10, 6) above FP's (20, 5, D = 8): R = 11 > 8 */
        CHECK_EQ(check(&h, set, 2, &v), ADM_REJECT);
        CHECK_EQ(v.refusal, ADM_MACHINE_RTA_MISS);
        CHECK_EQ(v.task, 1);
        /* on the other CPU they do not meet */
        set[1].cpu = 1;
        CHECK_EQ(check(&h, set, 2, &v), ADM_ADMIT);
        /* equal priorities delay each other both ways */
        set[1] = fifo(1, 0, 99, 20, 5, 8);
        CHECK_EQ(check(&h, set, 2, &v), ADM_REJECT);
        set[0].priority = 10;
        set[1] = fifo(1, 0, 10, 20, 2, 8);
        /* (10, 6) now sees (20, 2) at its priority: R = 8 <= 10, and (20, 2): R = 8 <= 8 */
        CHECK_EQ(check(&h, set, 2, &v), ADM_ADMIT);
}

/* Issue 11, point 3: a task without runtime never at or above a guaranteed one. */
static void test_unbounded_above(void) {
        struct adm_machine_host h = host(no_partition);
        struct adm_machine_task set[] = { fifo(0, 0, 98, 10000, 5000, 0), fifo(1, 0, 99, 1000, 0, 0) };
        struct adm_machine_verdict v;

        CHECK_EQ(check(&h, set, 2, &v), ADM_REJECT);
        CHECK_EQ(v.refusal, ADM_MACHINE_UNBOUNDED_ABOVE);
        CHECK_EQ(v.task, 1);
        CHECK_EQ(v.other, 0);
        set[1].priority = 98;
        CHECK_EQ(check(&h, set, 2, &v), ADM_REJECT);
        /*
         * Below it, the task may still take all the CPU it leaves; the
         * kernel then takes its 50 ms share at once from both: a 10 ms
         * deadline does not survive that, 100 ms does.
         */
        set[1].priority = 50;
        CHECK_EQ(check(&h, set, 2, &v), ADM_REJECT);
        CHECK_EQ(v.refusal, ADM_MACHINE_RTA_MISS);
        CHECK_EQ(v.task, 0);
        set[0] = fifo(0, 0, 98, 100000, 5000, 0);
        CHECK_EQ(check(&h, set, 2, &v), ADM_ADMIT);
        h.rt_period_us = 10000000;
        /* a window of 10 s: a 500 ms hole */
        CHECK_EQ(check(&h, set, 2, &v), ADM_REJECT);
        h.rt_period_us = 0;
        set[0] = fifo(0, 0, 98, 10000, 5000, 0);
        /* or on another CPU */
        set[1] = fifo(1, 1, 99, 1000, 0, 0);
        CHECK_EQ(check(&h, set, 2, &v), ADM_ADMIT);
}

/* Issue 11, point 4: the share the kernel keeps. */
static void test_reserved_share(void) {
        struct adm_machine_host h = host(no_partition);
        struct adm_machine_task set[] = { fifo(0, 0, 99, 100, 50, 0), fifo(0, 0, 98, 200, 94, 0) };
        struct adm_machine_verdict v;
        uint64_t share;

        /* U = 0.97: RTA alone would admit (R = 50 + 94 + 50 = 194 <= 200) */
        CHECK_EQ(check(&h, set, 2, &v), ADM_REJECT);
        CHECK_EQ(v.refusal, ADM_MACHINE_CPU_OVERLOAD);
        CHECK_EQ(v.cap, 950000000ULL);
        /* one task under the cap that leaves a window short of its idle time (rtf-sim found it) */
        {
                struct adm_machine_task one = fifo(0, 0, 99, 40327, 38310, 39731);

                CHECK_EQ(check(&h, &one, 1, &v), ADM_REJECT);
                CHECK_EQ(v.refusal, ADM_MACHINE_RTA_MISS);
                one.runtime_us = 30000;
                CHECK_EQ(check(&h, &one, 1, &v), ADM_ADMIT);
        }
        /* a host without throttling and without fair server */
        h.rt_share = ADM_UTIL_ONE;
        h.fair_share = 0;
        CHECK_EQ(check(&h, set, 2, &v), ADM_ADMIT);

        CHECK_EQ(adm_machine_parse_rt_share("950000\n", "1000000\n", &share), 0);
        CHECK_EQ(share, 950000000ULL);
        CHECK_EQ(adm_machine_parse_rt_share("-1\n", "1000000\n", &share), 0);
        CHECK_EQ(share, ADM_UTIL_ONE);
        CHECK_EQ(adm_machine_parse_rt_share("990000", "1000000", &share), 0);
        CHECK_EQ(share, 990000000ULL);
        CHECK_EQ(adm_machine_parse_rt_share("", "1000000", &share), -EINVAL);
        CHECK_EQ(adm_machine_parse_rt_share("2000000", "1000000", &share), -EINVAL);
        CHECK_EQ(adm_machine_parse_rt_share("1", "0", &share), -EINVAL);
        CHECK_EQ(adm_machine_parse_rt_share("1x", "10", &share), -EINVAL);
        CHECK_EQ(adm_machine_parse_rt_share("-2", "10", &share), -EINVAL);
        CHECK_EQ(adm_machine_parse_rt_share("99999999999999999999", "10", &share), -EINVAL);
}

static void test_limits_and_errors(void) {
        struct adm_machine_host h = host(no_partition);
        struct adm_machine_task set[] = { fifo(0, 0, 99, 1000, 999, 0), fifo(0, 0, 1, 10000000, 5000, 0) };
        struct adm_machine_verdict v;

        /* U = 0.9995: the fixed point needs ~15,000 iterations; cut by the work limit, and said so */
        h.rt_share = ADM_UTIL_ONE;
        h.fair_share = 0;
        h.rta_max_steps = 100;
        CHECK_EQ(check(&h, set, 2, &v), ADM_REJECT);
        CHECK_EQ(v.refusal, ADM_MACHINE_GAVE_UP);
        h.rta_max_steps = 0;
        CHECK_EQ(check(&h, set, 2, &v), ADM_ADMIT);

        /*
         * 500 tasks of one instance on a CPU: RTA of each costs at least a
         * pass of 500, beyond the default limit; when that instance tested
         * them itself (RM) and nothing else runs there, they are not
         * analysed again, and the check stays O(n).
         */
        {
                static struct adm_machine_task many[501];

                h.rta_max_steps = 0;
                for (size_t i = 0; i < 500; i++)
                        many[i] = fifo(0, 0, 1 + (uint32_t)(i % 99), 1000000, 1000, 0);
                CHECK_EQ(check(&h, many, 500, &v), ADM_REJECT);
                CHECK_EQ(v.refusal, ADM_MACHINE_GAVE_UP);
                for (size_t i = 0; i < 500; i++)
                        many[i].self_tested = true;
                CHECK_EQ(check(&h, many, 500, &v), ADM_ADMIT);
                /* a thread of another instance on that CPU: analysed again */
                many[500] = fifo(1, 0, 99, 1000000, 1000, 0);
                CHECK_EQ(check(&h, many, 501, &v), ADM_REJECT);
                CHECK_EQ(v.refusal, ADM_MACHINE_GAVE_UP);
                /* the reserved share and the order of 4 are still checked */
                many[500] = fifo(0, 0, 99, 1000000, 0, 0);
                many[500].self_tested = true;
                CHECK_EQ(check(&h, many, 501, &v), ADM_REJECT);
                CHECK_EQ(v.refusal, ADM_MACHINE_UNBOUNDED_ABOVE);
        }
        set[0] = fifo(0, 0, 99, 1000, 999, 0);
        set[0].cpu = 2;
        CHECK_EQ(adm_machine_check(&h, set, 2, &v), -EINVAL);
        set[0] = dl(0, 0, 100, 0);
        CHECK_EQ(adm_machine_check(&h, set, 1, &v), -EINVAL);
        set[0] = fifo(0, -1, 99, 100, 10, 0);
        CHECK_EQ(adm_machine_check(&h, set, 1, &v), -EINVAL);
        /* a DEADLINE task not pinned on a host where every CPU is a partition */
        h = host(both_partitioned);
        set[0] = dl(0, -1, 100, 10);
        CHECK_EQ(adm_machine_check(&h, set, 1, &v), -EINVAL);
        CHECK_EQ(adm_machine_check(&h, NULL, 0, &v), ADM_ADMIT);
}

static void test_config_check(void) {
        const uint32_t c0[] = { 0 }, c1[] = { 1 };
        struct adm_machine_instance two_edf[] = {
                { .name = "E0", .policy = ADM_MACHINE_DEADLINE, .cpus = c0, .n_cpus = 1 },
                { .name = "E1", .policy = ADM_MACHINE_DEADLINE, .cpus = c1, .n_cpus = 1 },
        };
        struct adm_machine_instance edf_rm[] = {
                { .name = "E", .policy = ADM_MACHINE_DEADLINE, .cpus = c0, .n_cpus = 1 },
                { .name = "RM", .policy = ADM_MACHINE_FIFO, .cpus = c1, .n_cpus = 1,
                  .prio_min = 1, .prio_max = 99, .tasks_without_runtime = true },
        };
        struct adm_machine_host h = host(no_partition);
        const bool part0[2] = { true, false };
        char buf[2048];

        CHECK_EQ(adm_machine_config_check(&h, two_edf, 2, buf, sizeof(buf)), ADM_MACHINE_CONFIG_SHARED);
        fprintf(stderr, "%s", buf);
        CHECK(strstr(buf, "E0: no partition") != NULL);
        CHECK(strstr(buf, "E1: no partition") != NULL);
        CHECK(strstr(buf, "SCHED_DEADLINE gets at most 0.900") != NULL);

        CHECK_EQ(adm_machine_config_check(&h, edf_rm, 2, buf, sizeof(buf)), ADM_MACHINE_CONFIG_SHARED);
        CHECK(strstr(buf, "CPU 1: 2 instances") != NULL);

        h = host(part0);
        CHECK_EQ(adm_machine_config_check(&h, edf_rm, 2, buf, sizeof(buf)), ADM_MACHINE_CONFIG_ISOLATED);
        CHECK(strstr(buf, "no CPU is shared") != NULL);
        /* a kernel without throttling: said, and the share is the parameter's */
        h.rt_share = ADM_UTIL_ONE;
        h.fair_share = 0;
        CHECK_EQ(adm_machine_config_check(&h, edf_rm, 2, buf, sizeof(buf)), ADM_MACHINE_CONFIG_ISOLATED);
        CHECK(strstr(buf, "RT throttling is off") != NULL);
        CHECK(strstr(buf, "the kernel keeps 0.000 of each CPU") != NULL);
        h = host(both_partitioned);
        CHECK_EQ(adm_machine_config_check(&h, two_edf, 2, buf, sizeof(buf)), ADM_MACHINE_CONFIG_ISOLATED);
        /* truncation keeps a terminated string */
        CHECK_EQ(adm_machine_config_check(&h, two_edf, 2, buf, 16), ADM_MACHINE_CONFIG_ISOLATED);
        CHECK_EQ(strlen(buf), 15);
        two_edf[1].cpus = (const uint32_t[]) { 7 };
        CHECK_EQ(adm_machine_config_check(&h, two_edf, 2, buf, sizeof(buf)), -EINVAL);
}

/* ---- host->proven: a CPU whose tasks did not change is not analysed again ---- */

static uint32_t lcg(uint64_t *state, uint32_t below) {
        *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (uint32_t)(*state >> 33) % below;
}

static struct adm_machine_task random_task(uint64_t *st) {
        uint64_t t = 1000 + lcg(st, 4000);

        if (lcg(st, 3) == 0)
                return dl(lcg(st, 2), (int32_t)lcg(st, 4) - 1, t, 1 + lcg(st, (uint32_t)t / 4));
        return (struct adm_machine_task) {
                .instance = lcg(st, 2), .policy = lcg(st, 2) ? ADM_MACHINE_FIFO : ADM_MACHINE_RR,
                .cpu = (int32_t)lcg(st, 3), .priority = 1 + lcg(st, 5),
                .runtime_us = lcg(st, 5) ? 1 + lcg(st, (uint32_t)t / 3) : 0, .period_us = t,
                .deadline_us = lcg(st, 2) ? t / 2 + lcg(st, (uint32_t)t / 2) : 0, .self_tested = lcg(st, 4) == 0,
        };
}

/*
 * Random sets that the check admits, one task changed, added or removed:
 * the check with proven[] from adm_machine_same_cpus() must give the same
 * verdict as the full check (it fails if same_cpus() calls a changed CPU
 * unchanged).
 */
static void test_proven_cpus_random(void) {
        bool partitioned[3], same[3];
        struct adm_machine_task prev[16], cur[17];
        unsigned compared = 0, skipped_and_refused = 0, mismatches = 0;
        uint64_t st = 42;

        for (unsigned round = 0; round < 20000; round++) {
                struct adm_machine_host h = {
                        .n_cpus = 3, .partitioned = partitioned, .rt_share = ADM_MACHINE_RT_SHARE_DEFAULT,
                        .fair_share = ADM_MACHINE_FAIR_SHARE_DEFAULT, .rta_max_steps = 1000000000,
                };
                struct adm_machine_verdict v1, v2;
                size_t n = 1 + lcg(&st, 10), m;
                int r1, r2;
                bool any = false;

                for (uint32_t c = 0; c < 3; c++)
                        partitioned[c] = lcg(&st, 2);
                for (size_t i = 0; i < n; i++)
                        prev[i] = random_task(&st);
                if (adm_machine_check(&h, prev, n, &v1) != ADM_ADMIT)
                        continue;
                memcpy(cur, prev, n * sizeof(*prev));
                m = n;
                switch (lcg(&st, 4)) {
                case 0:                 /* add one */
                        cur[m++] = random_task(&st);
                        break;
                case 1: {               /* remove one */
                        size_t k = lcg(&st, (uint32_t)n);

                        memmove(&cur[k], &cur[k + 1], (n - k - 1) * sizeof(*cur));
                        m--;
                        break;
                }
                case 2:                 /* a heavier runtime */
                        cur[lcg(&st, (uint32_t)n)].runtime_us += 1 + lcg(&st, 1500);
                        break;
                default:                /* another task in its place */
                        cur[lcg(&st, (uint32_t)n)] = random_task(&st);
                }
                adm_machine_same_cpus(&h, prev, n, cur, m, same);
                r1 = adm_machine_check(&h, cur, m, &v1);
                h.proven = same;
                r2 = adm_machine_check(&h, cur, m, &v2);
                compared++;
                for (uint32_t c = 0; c < 3; c++)
                        any |= same[c];
                skipped_and_refused += any && r1 == ADM_REJECT;
                mismatches += r1 != r2 || (r1 == ADM_REJECT && (v1.refusal != v2.refusal || v1.cpu != v2.cpu));
        }
        CHECK_EQ(mismatches, 0);
        CHECK(compared > 1000);
        CHECK(skipped_and_refused > 100);       /* the comparison means something */
        /* Out of range: nothing is the same. */
        {
                struct adm_machine_host h = host(no_partition);
                struct adm_machine_task bad = fifo(0, 7, 1, 1000, 10, 0);

                adm_machine_same_cpus(&h, &bad, 1, &bad, 1, same);
                CHECK(!same[0] && !same[1]);
        }
}

int main(void) {
        test_two_edf_without_partitions();
        test_edf_and_rm_without_partitions();
        test_fifo_across_plugins();
        test_unbounded_above();
        test_reserved_share();
        test_limits_and_errors();
        test_config_check();
        test_proven_cpus_random();
        return test_done();
}
