/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * src/shared/nexa: the command parser (what rtf-nexa reads from its pipe)
 * and the dial decoder (what a line feeds it).  Invariants: a parsed command
 * formats back to text that parses to the same command and round-trips
 * through encode/pulses/decode; the decoder's commands are always valid.
 */
#include <stdlib.h>
#include <string.h>

#include "nexa/nexa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct nexa_dial d = NEXA_DIAL_INIT;
        struct nexa_command c, again, back;
        struct nexa_pulse p[NEXA_PULSES];
        char text[16];
        uint16_t code;

        if (nexa_command_parse((const char *) data, size, &c) == 0) {
                int n = nexa_command_format(&c, text, sizeof(text));

                if (n < 3 || nexa_command_parse(text, (size_t) n, &again) != 0 || memcmp(&c, &again, sizeof(c)) != 0)
                        abort();
                if (nexa_encode(&c, &code) != 0 || nexa_pulses(code, p) != 0 || nexa_decode(p, &back) != 0 ||
                    back.house != c.house || back.unit != c.unit || back.on != c.on)
                        abort();
        }
        /* each input bit is one 10 ms sample of the line */
        for (size_t i = 0; i < size; i++)
                for (int b = 0; b < 8; b++) {
                        char out[NEXA_COMMAND_MAX];
                        int n = nexa_dial_sample(&d, (data[i] >> b) & 1, out, sizeof(out));

                        if (n < 0 || (n > 0 && nexa_command_parse(out, (size_t) n, &c) != 0))
                                abort();
                }
        return 0;
}
