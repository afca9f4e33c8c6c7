/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rtf-bare's kernel command line (src/bare/lib/cmdline.c). */
#include <errno.h>
#include <string.h>

#include "lib/cmdline.h"
#include "tap.h"

static int parse(const char *s, struct bare_options *o, char *err) {
        *o = (struct bare_options) BARE_OPTIONS_DEFAULT;
        return cmdline_parse(s, strlen(s), o, err, 32);
}

int main(void) {
        struct bare_options o;
        char err[32];

        CHECK_EQ(parse("", &o, err), 0);
        CHECK_EQ(o.tests, BARE_TEST_SELF | BARE_TEST_LATENCY);
        CHECK_EQ(o.samples, 20000);

        CHECK_EQ(parse("BOOT_IMAGE=/rtf-bare  test=latency timer=periodic load=cpu samples=250000 "
                       "period_us=100 clock=pit hist=0 quiet", &o, err), 0);
        CHECK_EQ(o.tests, BARE_TEST_LATENCY);
        CHECK_EQ(o.modes, BARE_MODE_PERIODIC);
        CHECK_EQ(o.loads, BARE_LOAD_CPU);
        CHECK_EQ(o.samples, 250000);
        CHECK_EQ(o.clock, BARE_CLOCK_PIT);
        CHECK(!o.histogram);
        CHECK_EQ(o.unknown, 2);

        CHECK_EQ(parse("test=self,overflow\ttimer=oneshot,periodic", &o, err), 0);
        CHECK_EQ(o.tests, BARE_TEST_SELF | BARE_TEST_OVERFLOW);
        CHECK_EQ(o.modes, BARE_MODE_ONESHOT | BARE_MODE_PERIODIC);

        /* A known key with a bad value is refused, named, and changes nothing. */
        o = (struct bare_options) BARE_OPTIONS_DEFAULT;
        o.samples = 7;
        CHECK_EQ(cmdline_parse("samples=9 test=nope", 19, &o, err, sizeof(err)), -EINVAL);
        CHECK(strcmp(err, "test=nope") == 0);
        CHECK_EQ(o.samples, 7);
        CHECK_EQ(parse("samples=0", &o, err), -EINVAL);
        CHECK_EQ(parse("samples=10000001", &o, err), -EINVAL);
        CHECK_EQ(parse("samples=99999999999999", &o, err), -EINVAL);
        CHECK_EQ(parse("samples=12x", &o, err), -EINVAL);
        CHECK_EQ(parse("period_us=9", &o, err), -EINVAL);
        CHECK_EQ(parse("clock=lapic,pit", &o, err), -EINVAL);
        CHECK_EQ(parse("test=", &o, err), -EINVAL);
        CHECK_EQ(parse("test=self,", &o, err), -EINVAL);
        CHECK_EQ(parse("hist=2", &o, err), -EINVAL);

        /* The length bounds the parse; an error word is cut to the buffer. */
        o = (struct bare_options) BARE_OPTIONS_DEFAULT;
        CHECK_EQ(cmdline_parse("samples=5 test=nope", 9, &o, err, sizeof(err)), 0);
        CHECK_EQ(o.samples, 5);
        CHECK_EQ(cmdline_parse("test=aaaaaaaaaaaaaaaaaaaaaaaa", 29, &o, err, 8), -EINVAL);
        CHECK(strcmp(err, "test=aa") == 0);
        return test_done();
}
