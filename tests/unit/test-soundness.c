/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtfd's whole-machine veto (src/daemon/soundness.c) on machines described
 * as the broker describes them: what each plugin's attach() gives the
 * kernel.  Issue 11's points 1 and 2, and what must stay admitted.
 */
#include <string.h>

#include "soundness.h"
#include "tap.h"

#define MS 1000000ULL

static const uint32_t cpu0[] = { 0 }, cpu1[] = { 1 };
static const bool no_partition[] = { false }, partition[] = { true };

static struct manager_machine_task dl(const struct rtf_task_params *p, int32_t cpu, uint64_t q_us, uint64_t t_us) {
        return (struct manager_machine_task){
                .params = p, .cpu = cpu, .accepted_runtime_us = q_us,
                .setting = { .policy = RTF_POLICY_DEADLINE, .cpu = cpu, .runtime_ns = q_us * 1000,
                             .deadline_ns = t_us * 1000, .period_ns = t_us * 1000 },
        };
}

static struct manager_machine_task fifo(const struct rtf_task_params *p, int32_t cpu, uint32_t prio) {
        return (struct manager_machine_task){
                .params = p, .cpu = cpu, .priority = prio, .accepted_runtime_us = p->runtime_us,
                .setting = { .policy = RTF_POLICY_FIFO, .cpu = cpu, .priority = prio },
        };
}

static struct manager_machine_instance instance(const char *name, const char *policy, const uint32_t *cpus,
                                                const bool *part, struct manager_machine_task *tasks, uint32_t n) {
        return (struct manager_machine_instance){
                .name = name, .policy = policy, .n_cpus = 1, .cpus = cpus, .partitioned = part,
                .prio_min = policy[0] == 'E' ? 100 : 1, .prio_max = policy[0] == 'E' ? 100 : 99,
                .n_tasks = n, .tasks = tasks,
        };
}

static int veto(struct soundness *sd, struct manager_machine_instance *in, uint32_t n, char *why, size_t size) {
        struct manager_machine m = { .n_cpus = 2, .n_instances = n, .instances = in };

        why[0] = 0;
        return soundness_veto(sd, &m, why, size);
}

int main(void) {
        struct soundness sd = { .rt_share = 950000000ULL, .rt_period_us = 1000000, .fair_share = 50000000ULL };
        const struct rtf_task_params heavy = { .flags = RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_RUNTIME,
                                               .period_us = 1000, .runtime_us = 850 };
        const struct rtf_task_params shrt = { .flags = RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_RUNTIME,
                                              .period_us = 100, .runtime_us = 40 };
        const struct rtf_task_params dl900 = { .flags = RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_RUNTIME,
                                               .period_us = 1000, .runtime_us = 900 };
        const struct rtf_task_params rm = { .flags = RTF_PARAM_HAS_PERIOD | RTF_PARAM_HAS_RUNTIME,
                                            .period_us = 10000, .runtime_us = 5000 };
        struct manager_machine_task e0[1], e1[2], r1[1];
        struct manager_machine_instance in[2];
        char why[256];

        /* Point 1: two EDF instances without partitions; their threads float
         * over both CPUs.  The heavy one and one short one fit... */
        e0[0] = dl(&heavy, 0, 850, 1000);
        e1[0] = dl(&shrt, 1, 40, 100);
        in[0] = instance("E0", "EDF", cpu0, no_partition, e0, 1);
        in[1] = instance("E1", "EDF", cpu1, no_partition, e1, 0);
        CHECK_EQ(veto(&sd, in, 2, why, sizeof(why)), 0);
        /* ... but with both short ones the floating set is not schedulable. */
        e1[1] = dl(&shrt, 1, 40, 100);
        in[1].n_tasks = 2;
        CHECK(veto(&sd, in, 2, why, sizeof(why)) != 0);
        CHECK(why[0] != 0);
        /* The same tasks, each instance with a partition of its own: fine. */
        in[0].partitioned = partition;
        in[1].partitioned = partition;
        in[1].n_tasks = 1;
        CHECK_EQ(veto(&sd, in, 2, why, sizeof(why)), 0);

        /* Point 2: EDF on CPU 0 without a partition, RM on CPU 1: the
         * DEADLINE thread also runs on CPU 1, above every FIFO priority. */
        e0[0] = dl(&dl900, 0, 900, 1000);
        r1[0] = fifo(&rm, 1, 99);
        in[0] = instance("E", "EDF", cpu0, no_partition, e0, 1);
        in[1] = instance("R", "RM", cpu1, no_partition, r1, 1);
        CHECK(veto(&sd, in, 2, why, sizeof(why)) != 0);
        CHECK(strstr(why, "CPU 1") || strstr(why, "R"));
        /* With EDF in a partition of CPU 0, CPU 1 is RM's alone. */
        in[0].partitioned = partition;
        CHECK_EQ(veto(&sd, in, 2, why, sizeof(why)), 0);

        soundness_deinit(&sd);
        return test_done();
}
