/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Nexa code-wheel message (see nexa.h): parse, encode, pulses. */
#include <errno.h>

#include "nexa/nexa.h"

int nexa_command_parse(const char *buf, size_t len, struct nexa_command *ret) {
        unsigned unit = 0;
        char house, state;
        size_t i;

        if (!buf || !ret)
                return -EINVAL;
        if (len > 0 && buf[len - 1] == '\n')
                len--;
        if (len > 0 && buf[len - 1] == '\r')
                len--;
        /* letter, one or two unit digits, state digit */
        if (len < 3 || len > 4)
                return -EINVAL;
        house = buf[0];
        if (house >= 'a' && house <= 'z')
                house = (char) (house - 'a' + 'A');
        if (house < 'A' || house >= 'A' + NEXA_HOUSES)
                return -EINVAL;
        for (i = 1; i < len - 1; i++) {
                if (buf[i] < '0' || buf[i] > '9')
                        return -EINVAL;
                unit = unit * 10 + (unsigned) (buf[i] - '0');
        }
        if (buf[1] == '0' || unit < 1 || unit > NEXA_UNITS)
                return -EINVAL;
        state = buf[len - 1];
        if (state != '0' && state != '1')
                return -EINVAL;
        *ret = (struct nexa_command) { .house = house, .unit = (uint8_t) unit, .on = state == '1' };
        return 0;
}

static bool command_valid(const struct nexa_command *c) {
        return c && c->house >= 'A' && c->house < 'A' + NEXA_HOUSES && c->unit >= 1 && c->unit <= NEXA_UNITS;
}

int nexa_command_format(const struct nexa_command *c, char *buf, size_t size) {
        size_t n = 0;

        if (!command_valid(c) || !buf || size < 5)
                return -EINVAL;
        buf[n++] = (char) (c->house - 'A' + 'a');
        if (c->unit >= 10)
                buf[n++] = '1';
        buf[n++] = (char) ('0' + c->unit % 10);
        buf[n++] = c->on ? '1' : '0';
        buf[n] = '\0';
        return (int) n;
}

int nexa_encode(const struct nexa_command *c, uint16_t *ret_code) {
        unsigned house, unit, code = 0;

        if (!command_valid(c) || !ret_code)
                return -EINVAL;
        house = (unsigned) (c->house - 'A');
        unit = c->unit - 1u;
        /* least significant bit first: sent bit k of the field is bit k of the number */
        for (int k = 0; k < 4; k++) {
                code |= ((house >> k) & 1u) << (11 - k);
                code |= ((unit >> k) & 1u) << (7 - k);
        }
        code |= c->on ? 0x7u : 0x6u;   /* 0111 / 0110, in sending order */
        *ret_code = (uint16_t) code;
        return 0;
}

int nexa_pulses(uint16_t code, struct nexa_pulse ret[NEXA_PULSES]) {
        if (!ret || code >> NEXA_BITS)
                return -EINVAL;
        for (int i = 0; i < NEXA_BITS; i++) {
                bool one = (code >> (NEXA_BITS - 1 - i)) & 1u;

                ret[2 * i] = (struct nexa_pulse) { 1, 3 };
                ret[2 * i + 1] = one ? (struct nexa_pulse) { 3, 1 } : (struct nexa_pulse) { 1, 3 };
        }
        ret[NEXA_PULSES - 1] = (struct nexa_pulse) { 1, 36 };
        return 0;
}

int nexa_decode(const struct nexa_pulse p[NEXA_PULSES], struct nexa_command *ret) {
        unsigned code = 0, house = 0, unit = 0;

        if (!p || !ret || p[NEXA_PULSES - 1].on_t != 1)
                return -EINVAL;
        for (int i = 0; i < NEXA_BITS; i++) {
                const struct nexa_pulse *a = &p[2 * i], *b = &p[2 * i + 1];

                if (a->on_t != 1 || a->off_t != 3 || a->on_t + a->off_t + b->on_t + b->off_t != 8)
                        return -EINVAL;
                code = code << 1 | (b->on_t == 3 ? 1u : 0u);
        }
        if ((code & 0xf) != 0x7 && (code & 0xf) != 0x6)
                return -EINVAL;
        for (int k = 0; k < 4; k++) {
                house |= ((code >> (11 - k)) & 1u) << k;
                unit |= ((code >> (7 - k)) & 1u) << k;
        }
        *ret = (struct nexa_command) { .house = (char) ('A' + house), .unit = (uint8_t) (unit + 1),
                                       .on = (code & 0xf) == 0x7 };
        return 0;
}
