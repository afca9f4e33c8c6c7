/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The latency hint: while at least one real-time thread is attached, rtfd
 * holds a PM QoS request on /dev/cpu_dma_latency, so that idle CPUs poll
 * instead of halting (PLATFORM.md: a periodic loop's p99 473 -> 65 us).  The
 * kernel keeps the request only while the file stays open; closing it (or
 * rtfd dying) withdraws it.
 *
 * Configured by `set latency_hint_us N` (default 0) and `set latency_hint off`.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define PMQOS_OFF (-1)

/*
 * Hold the request with `value_us` if `wanted` and value_us >= 0, else
 * release it.  Idempotent; a held request whose value changed is updated.
 * A failure to open is logged once per attempt and otherwise ignored: the
 * hint is an optimisation, never a reason to refuse a client.
 */
/* The open request, if any; embedded in its owner. */
struct pmqos {
        int fd;
        int32_t value;
};

#define PMQOS_NULL ((struct pmqos){ .fd = -1, .value = PMQOS_OFF })

void pmqos_update(struct pmqos *q, bool wanted, int32_t value_us);
bool pmqos_held(const struct pmqos *q);
/* Release the request (closing the device ends it). */
void pmqos_done(struct pmqos *q);
