/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The GPIO backend, through libgpiod (1.x, Debian 12's): built only when
 * libgpiod is found.  The development machines have no GPIO chip (and no
 * gpio-sim), so this file is compiled there but has never driven a line:
 * see docs/NEXA.md.  Line handles are requested before the tasks start, so
 * gpio_set()/gpio_get() are one ioctl each on the real-time path.
 */
#include <errno.h>
#include <stdlib.h>

#include "nexa-app.h"

#ifdef HAVE_GPIOD
#include <gpiod.h>

#define GPIO_LINES_MAX 64

struct gpio_backend {
        struct gpiod_chip *chip;
        struct gpiod_line *lines[GPIO_LINES_MAX];
};

int gpio_open(const char *chip, struct gpio_backend **ret) {
        struct gpio_backend *g = calloc(1, sizeof(*g));

        if (!g)
                return -ENOMEM;
        g->chip = gpiod_chip_open_lookup(chip);
        if (!g->chip) {
                int r = -errno;

                free(g);
                return r ? r : -ENODEV;
        }
        *ret = g;
        return 0;
}

static int request(struct gpio_backend *g, unsigned offset, bool output) {
        struct gpiod_line *l;

        if (offset >= GPIO_LINES_MAX)
                return -EINVAL;
        l = gpiod_chip_get_line(g->chip, offset);
        if (!l)
                return -errno;
        if ((output ? gpiod_line_request_output(l, TOOL, 0)
                    : gpiod_line_request_input_flags(l, TOOL, GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP)) < 0)
                return -errno;
        g->lines[offset] = l;
        return 0;
}

int gpio_request_output(struct gpio_backend *g, unsigned offset) {
        return request(g, offset, true);
}

int gpio_request_input(struct gpio_backend *g, unsigned offset) {
        return request(g, offset, false);
}

int gpio_set(struct gpio_backend *g, unsigned offset, bool level) {
        if (!g || offset >= GPIO_LINES_MAX || !g->lines[offset])
                return -EINVAL;
        return gpiod_line_set_value(g->lines[offset], level) < 0 ? -errno : 0;
}

int gpio_get(struct gpio_backend *g, unsigned offset) {
        int v;

        if (!g || offset >= GPIO_LINES_MAX || !g->lines[offset])
                return -EINVAL;
        v = gpiod_line_get_value(g->lines[offset]);
        return v < 0 ? -errno : v;
}

void gpio_close(struct gpio_backend *g) {
        if (!g)
                return;
        gpiod_chip_close(g->chip);      /* releases the lines too */
        free(g);
}

#else

int gpio_open(const char *chip, struct gpio_backend **ret) {
        (void) chip;
        *ret = NULL;
        return -EOPNOTSUPP;
}

int gpio_request_output(struct gpio_backend *g, unsigned offset) {
        (void) g, (void) offset;
        return -EOPNOTSUPP;
}

int gpio_request_input(struct gpio_backend *g, unsigned offset) {
        (void) g, (void) offset;
        return -EOPNOTSUPP;
}

int gpio_set(struct gpio_backend *g, unsigned offset, bool level) {
        (void) g, (void) offset, (void) level;
        return -EOPNOTSUPP;
}

int gpio_get(struct gpio_backend *g, unsigned offset) {
        (void) g, (void) offset;
        return -EOPNOTSUPP;
}

void gpio_close(struct gpio_backend *g) {
        (void) g;
}

#endif
