/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-sim's plugin host: the real plugin modules (EDF.so, RM.so, FP.so,
 * RR.so), loaded and driven the way rtfd drives them (accept, schedule,
 * change, release, attach), with the whole-machine check of
 * src/shared/admission/machine.c as the veto at commit.  What the plugins
 * decide (attach(): policy, priority, runtime, CPU) is what is simulated.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "admission/machine.h"
#include "rtf/rtf-plugin.h"
#include "sim.h"

#define HOST_MAX_INSTANCES 8
#define HOST_MAX_TASKS 64

struct host_instance {
        char name[16];
        char file[16];                  /* "EDF.so" */
        uint32_t cpus[SIM_MAX_CPUS];
        uint32_t n_cpus;
        uint32_t prio_min, prio_max;
        const char *options[4];
        uint32_t n_options;
        /* loaded */
        void *dl;
        const struct rtf_plugin_ops *ops;
        void *state;
        bool partitioned[SIM_MAX_CPUS];
};

/* What a client asked for (a zero means "not given"). */
struct host_request {
        uint64_t period_us, runtime_us, des_runtime_us, deadline_us;
        uint32_t priority;
};

struct host_task {
        struct rtf_plugin_task task;
        uint32_t instance;
        bool used;
};

struct host {
        struct rtf_plugin_host plugin_host;
        uint32_t n_cpus;
        bool partitioned[SIM_MAX_CPUS];
        struct adm_machine_host machine;
        bool veto;                      /* run the whole-machine check at commit */
        struct host_instance inst[HOST_MAX_INSTANCES];
        uint32_t n_inst;
        struct host_task tasks[HOST_MAX_TASKS];
        uint64_t next_id;
        char reason[256];               /* of the last refusal */
};

/* Load every instance's plugin from plugin_dir and init it; 0 or negative errno (message on stderr). */
int host_open(struct host *h, const char *plugin_dir);
void host_close(struct host *h);

/* Create on instance i: the index of the new task, or -1 when refused (h->reason says why). */
int host_create(struct host *h, uint32_t i, const struct host_request *rq);
/* Change task k: 1 when admitted, 0 when refused (the old task stays). */
int host_change(struct host *h, uint32_t k, const struct host_request *rq);
void host_release(struct host *h, uint32_t k);
void host_release_all(struct host *h);
uint32_t host_count(const struct host *h);

/*
 * The tasks as the kernel would run them (from attach()): fills sim tasks
 * (label = host task index) and returns how many.
 */
size_t host_sim_tasks(struct host *h, struct sim_task *ret, size_t max);
