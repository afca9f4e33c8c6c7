/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The options of rtfctl run / attach (src/ctl/launch-options.c): pure parsing, no rtfd. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"
#include "tap.h"

static void test_times(void) {
        uint64_t us = 0;

        CHECK_EQ(launch_parse_time_us("7", &us), 0);
        CHECK_EQ(us, 7);
        CHECK_EQ(launch_parse_time_us("500us", &us), 0);
        CHECK_EQ(us, 500);
        CHECK_EQ(launch_parse_time_us("2ms", &us), 0);
        CHECK_EQ(us, 2000);
        CHECK_EQ(launch_parse_time_us("1s", &us), 0);
        CHECK_EQ(us, 1000000);
        const char *bad[] = { "", "ms", "-1", "1.5ms", "5m", "2 ms", " 2", "18446744073709551615s", NULL };
        for (int i = 0; bad[i]; i++)
                CHECK_EQ(launch_parse_time_us(bad[i], &us), -EINVAL);
}

static int parse(bool attach, struct launch_opts *o, char **argv) {
        int argc = 0;

        while (argv[argc])
                argc++;
        return launch_parse(argc, argv, attach, o);
}

static void test_run_options(void) {
        static struct launch_opts o;
        char *ok[] = { "run", "--period", "5ms", "--runtime", "1ms", "-P", "EDF", "--threads", "audio*,mixer",
                       "--", "prog", "-p", "3", NULL };
        char *all[] = { "run", "-p", "20", "-a", "--rescan-ms", "20", "prog", NULL };
        char *fifo[] = { "run", "-f", "-p", "20", "prog", NULL };

        CHECK_EQ(parse(false, &o, ok), 10);     /* the program's argv, its own -p untouched */
        CHECK_EQ(rtf_params_get_period(&o.params), 5000);
        CHECK_EQ(rtf_params_get_runtime(&o.params), 1000);
        CHECK(strcmp(rtf_params_get_scheduler(&o.params), "EDF") == 0);
        CHECK_EQ(o.threads, LAUNCH_THREADS_NAMED);
        CHECK_EQ(o.n_names, 2);
        CHECK(strcmp(o.names[0], "audio*") == 0 && strcmp(o.names[1], "mixer") == 0);

        CHECK_EQ(parse(false, &o, all), 6);
        CHECK_EQ(o.threads, LAUNCH_THREADS_ALL);
        CHECK_EQ(o.rescan_ms, 20);
        CHECK_EQ(rtf_params_get_priority(&o.params), 20);

        CHECK_EQ(parse(false, &o, fifo), 4);
        CHECK(o.policy && strcmp(o.policy, "fifo") == 0);
}

static void test_usage_errors(void) {
        static struct launch_opts o;
        char *cases[][8] = {
                { "run", NULL },                                /* no command */
                { "run", "-p", "0", "prog", NULL },             /* priority out of range */
                { "run", "-p", "100", "prog", NULL },
                { "run", "--period", "0", "prog", NULL },       /* time out of range */
                { "run", "--period", "5x", "prog", NULL },
                { "run", "--policy", "idle", "prog", NULL },
                { "run", "-f", "-P", "FP", "prog", NULL },      /* policy and plugin */
                { "run", "--max-threads", "5000", "prog", NULL },
                { "run", "--pid", "1", "prog", NULL },          /* attach's option */
        };
        char *attach_cases[][8] = {
                { "attach", NULL },                             /* neither --pid nor --tid */
                { "attach", "--pid", "1", "--tid", "2", NULL },
                { "attach", "--tid", "2", "-a", NULL },
                { "attach", "--pid", "1", "extra", NULL },
        };
        char *attach_ok[] = { "attach", "--pid", "42", "--threads", "w", "-p", "3", NULL };

        /* The errors go to stderr: keep the test's output readable. */
        fflush(stderr);
        int saved = dup(STDERR_FILENO);
        FILE *null = freopen("/dev/null", "w", stderr);

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                CHECK_EQ(parse(false, &o, cases[i]), -2);
        for (size_t i = 0; i < sizeof(attach_cases) / sizeof(attach_cases[0]); i++)
                CHECK_EQ(parse(true, &o, attach_cases[i]), -2);
        if (null)
                fflush(null);
        dup2(saved, STDERR_FILENO);
        close(saved);

        CHECK_EQ(parse(true, &o, attach_ok), 0);
        CHECK_EQ(o.pid, 42);
        CHECK_EQ(o.threads, LAUNCH_THREADS_NAMED);
}

int main(void) {
        test_times();
        test_run_options();
        test_usage_errors();
        return test_done();
}
