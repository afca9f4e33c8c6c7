/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "log.h"
#include "pmqos.h"

#define PMQOS_PATH "/dev/cpu_dma_latency"

static int pmqos_fd = -1;
static int32_t pmqos_value = PMQOS_OFF;

static int pmqos_write(int fd, int32_t value_us) {
        /* The device takes a binary s32 (or a hex string); one write replaces the request. */
        ssize_t n = write(fd, &value_us, sizeof(value_us));

        if (n < 0)
                return -errno;
        return n == sizeof(value_us) ? 0 : -EIO;
}

static void pmqos_close(void) {
        if (pmqos_fd < 0)
                return;
        close(pmqos_fd);
        pmqos_fd = -1;
        pmqos_value = PMQOS_OFF;
        log_debug("Latency hint released");
}

void pmqos_update(bool wanted, int32_t value_us) {
        int r;

        if (!wanted || value_us < 0) {
                pmqos_close();
                return;
        }
        if (pmqos_fd >= 0 && pmqos_value == value_us)
                return;
        if (pmqos_fd < 0) {
                pmqos_fd = open(PMQOS_PATH, O_WRONLY | O_CLOEXEC);
                if (pmqos_fd < 0) {
                        log_warning_errno(errno, "Cannot open " PMQOS_PATH ", no latency hint: %m");
                        return;
                }
        }
        r = pmqos_write(pmqos_fd, value_us);
        if (r < 0) {
                log_warning_errno(r, "Cannot write the latency hint to " PMQOS_PATH ": %m");
                pmqos_close();
                return;
        }
        pmqos_value = value_us;
        log_debug("Latency hint held at %d us", (int)value_us);
}

bool pmqos_held(void) {
        return pmqos_fd >= 0;
}
