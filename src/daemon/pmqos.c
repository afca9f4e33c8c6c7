/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "log.h"
#include "pmqos.h"

#define PMQOS_PATH "/dev/cpu_dma_latency"

static int pmqos_write(int fd, int32_t value_us) {
        /* The device takes a binary s32 (or a hex string); one write replaces the request. */
        ssize_t n = write(fd, &value_us, sizeof(value_us));

        if (n < 0)
                return -errno;
        return n == sizeof(value_us) ? 0 : -EIO;
}

void pmqos_done(struct pmqos *q) {
        if (q->fd < 0)
                return;
        close(q->fd);
        q->fd = -1;
        q->value = PMQOS_OFF;
        log_debug("Latency hint released");
}

void pmqos_update(struct pmqos *q, bool wanted, int32_t value_us) {
        int r;

        if (!wanted || value_us < 0) {
                pmqos_done(q);
                return;
        }
        if (q->fd >= 0 && q->value == value_us)
                return;
        if (q->fd < 0) {
                q->fd = open(PMQOS_PATH, O_WRONLY | O_CLOEXEC);
                if (q->fd < 0) {
                        log_warning_errno(errno, "Cannot open " PMQOS_PATH ", no latency hint: %m");
                        return;
                }
        }
        r = pmqos_write(q->fd, value_us);
        if (r < 0) {
                log_warning_errno(r, "Cannot write the latency hint to " PMQOS_PATH ": %m");
                pmqos_done(q);
                return;
        }
        q->value = value_us;
        log_debug("Latency hint held at %d us", (int)value_us);
}

bool pmqos_held(const struct pmqos *q) {
        return q->fd >= 0;
}
