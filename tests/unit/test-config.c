/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests of rtfd's configuration parser. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "tap.h"

#define FILENAME "t.conf"

static char err[512];

/*
 * Parses from a heap copy of exactly `len` bytes, without a terminating NUL,
 * so that AddressSanitizer catches any read past the end.
 */
static int parse_n(const char *text, size_t len, uint32_t n_cpus, struct rtf_config *ret) {
        struct rtf_config sentinel, c;
        char *copy = test_copy_exact(text, len);
        int r;

        memset(&sentinel, 0x5A, sizeof(sentinel));
        c = sentinel;
        err[0] = '\0';
        r = rtf_config_parse(copy, len, FILENAME, n_cpus, &c, err, sizeof(err));
        free(copy);
        if (r < 0)
                /* *ret is untouched on error. */
                CHECK(memcmp(&c, &sentinel, sizeof(c)) == 0);
        else
                CHECK_EQ(err[0], '\0');
        *ret = c;
        return r;
}

static int parse(const char *text, uint32_t n_cpus, struct rtf_config *ret) {
        return parse_n(text, strlen(text), n_cpus, ret);
}

/* Appends "PREFIX<i>SUFFIX" for i = 0 .. n-1: as many items as a limit allows. */
static void append_n(char *text, size_t size, const char *prefix, const char *suffix, int n) {
        for (int i = 0; i < n; i++) {
                size_t len = strlen(text);

                snprintf(text + len, size - len, "%s%d%s", prefix, i, suffix);
        }
}

static bool str_eq(const char *a, const char *b) {
        return a && b && strcmp(a, b) == 0;
}

static bool cpus_are(const struct rtf_config_plugin *p, const uint32_t *cpus, uint32_t n) {
        if (p->n_cpus != n)
                return false;
        return n == 0 || memcmp(p->cpus, cpus, n * sizeof(*cpus)) == 0;
}
#define CPUS_ARE(p, ...) cpus_are(p, (const uint32_t[]){ __VA_ARGS__ }, \
                                  sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t))

/*
 * Checks that `text` is refused with "t.conf:LINE: ..." (LINE 0: "t.conf: ...")
 * and that the message contains `what`.
 */
static void expect_error(const char *text, uint32_t n_cpus, unsigned line, const char *what, int src_line) {
        struct rtf_config c;
        int r = parse(text, n_cpus, &c);

        check_parse_error(r, -EINVAL, err, FILENAME, line, what, __FILE__, src_line);
        if (r >= 0)
                rtf_config_deinit(&c);
}
#define EXPECT_ERROR(text, n_cpus, line, what) expect_error(text, n_cpus, line, what, __LINE__)

static void expect_ok(const char *text, uint32_t n_cpus, int src_line) {
        struct rtf_config c;
        int r = parse(text, n_cpus, &c);

        if (r < 0)
                fprintf(stderr, "test-config.c:%d: unexpected error %d: %s\n", src_line, r, err);
        CHECK_EQ(r, 0);
        if (r >= 0)
                rtf_config_deinit(&c);
}
#define EXPECT_OK(text, n_cpus) expect_ok(text, n_cpus, __LINE__)

/* Listing 2 of the paper, cores adapted to a 2-CPU machine. */
static const char listing2_2cpus[] =
        "# Name Plugin Priority Cores\n"
        "EDF EDF.so 100-100 0\n"
        "RM1 RM.so 50-99 1\n"
        "RR RR.so 1-50 1\n"
        "RM2 RM.so 1-99 0\n"
        "FP FP.so 1-99 0-1\n";

/* The same listing for the 8-CPU machine of the paper. */
static const char listing2_8cpus[] =
        "# Name Plugin Priority Cores\n"
        "EDF EDF.so 100-100 0\n"
        "RM1 RM.so 50-99 1,2\n"
        "RR RR.so 1-50 1,2\n"
        "RM2 RM.so 1-99 3-4\n"
        "FP FP.so 1-99 5-7\n";

static void test_listing2(void) {
        struct rtf_config c;

        CHECK_EQ(parse(listing2_2cpus, 2, &c), 0);
        CHECK_EQ(c.n_plugins, 5);
        CHECK_EQ(c.n_settings, 0);
        if (c.n_plugins == 5) {
                CHECK(strcmp(c.plugins[0].name, "EDF") == 0);
                CHECK(strcmp(c.plugins[0].file, "EDF.so") == 0);
                CHECK_EQ(c.plugins[0].prio_min, 100);
                CHECK_EQ(c.plugins[0].prio_max, 100);
                CHECK(CPUS_ARE(&c.plugins[0], 0));
                CHECK_EQ(c.plugins[0].line, 2);
                CHECK_EQ(c.plugins[0].n_options, 0);

                CHECK(strcmp(c.plugins[1].name, "RM1") == 0);
                CHECK(strcmp(c.plugins[1].file, "RM.so") == 0);
                CHECK_EQ(c.plugins[1].prio_min, 50);
                CHECK_EQ(c.plugins[1].prio_max, 99);
                CHECK(CPUS_ARE(&c.plugins[1], 1));

                CHECK(strcmp(c.plugins[2].name, "RR") == 0);
                CHECK(strcmp(c.plugins[2].file, "RR.so") == 0);
                CHECK_EQ(c.plugins[2].prio_min, 1);
                CHECK_EQ(c.plugins[2].prio_max, 50);
                CHECK(CPUS_ARE(&c.plugins[2], 1));

                CHECK(strcmp(c.plugins[3].name, "RM2") == 0);
                CHECK(CPUS_ARE(&c.plugins[3], 0));

                CHECK(strcmp(c.plugins[4].name, "FP") == 0);
                CHECK(strcmp(c.plugins[4].file, "FP.so") == 0);
                CHECK_EQ(c.plugins[4].prio_min, 1);
                CHECK_EQ(c.plugins[4].prio_max, 99);
                CHECK(CPUS_ARE(&c.plugins[4], 0, 1));
                CHECK_EQ(c.plugins[4].line, 6);
        }
        rtf_config_deinit(&c);

        /* RM1's "1,2" is the first CPU this machine does not have. */
        EXPECT_ERROR(listing2_8cpus, 2, 3, "CPU 2 does not exist: this machine has 2 CPUs");
        EXPECT_ERROR(listing2_8cpus, 7, 6, "CPU 7 does not exist: this machine has 7 CPUs");
        EXPECT_ERROR(listing2_8cpus, 1, 3, "this machine has 1 CPU");

        CHECK_EQ(parse(listing2_8cpus, 8, &c), 0);
        CHECK_EQ(c.n_plugins, 5);
        if (c.n_plugins == 5) {
                CHECK(CPUS_ARE(&c.plugins[1], 1, 2));
                CHECK(CPUS_ARE(&c.plugins[3], 3, 4));
                CHECK(CPUS_ARE(&c.plugins[4], 5, 6, 7));
        }
        rtf_config_deinit(&c);
}

static void test_cores(void) {
        struct rtf_config c;

        CHECK_EQ(parse("A a.so 1 0,2-3,5\n"
                       "B b.so 1 7,1-1,3\n"
                       "C c.so 1 all\n"
                       "D d.so 1 0-7\n", 8, &c), 0);
        CHECK_EQ(c.n_plugins, 4);
        if (c.n_plugins == 4) {
                CHECK(CPUS_ARE(&c.plugins[0], 0, 2, 3, 5));
                /* Sorted, whatever the order written. */
                CHECK(CPUS_ARE(&c.plugins[1], 1, 3, 7));
                CHECK(CPUS_ARE(&c.plugins[2], 0, 1, 2, 3, 4, 5, 6, 7));
                CHECK(CPUS_ARE(&c.plugins[3], 0, 1, 2, 3, 4, 5, 6, 7));
                CHECK_EQ(c.plugins[0].prio_min, 1);
                CHECK_EQ(c.plugins[0].prio_max, 1);
        }
        rtf_config_deinit(&c);

        /* "all" on a machine as large as a line may list, and one CPU more. */
        CHECK_EQ(parse("A a.so 1 all\n", RTF_CONFIG_MAX_CPUS, &c), 0);
        CHECK_EQ(c.n_plugins, 1);
        if (c.n_plugins == 1) {
                CHECK_EQ(c.plugins[0].n_cpus, RTF_CONFIG_MAX_CPUS);
                CHECK_EQ(c.plugins[0].cpus[RTF_CONFIG_MAX_CPUS - 1], RTF_CONFIG_MAX_CPUS - 1);
        }
        rtf_config_deinit(&c);
        EXPECT_ERROR("A a.so 1 all\n", RTF_CONFIG_MAX_CPUS + 1, 1, "more than");
        EXPECT_OK("A a.so 1 3000-3999,0-23\n", 4096);
        EXPECT_ERROR("A a.so 1 3000-3999,0-24\n", 4096, 1, "more than 1024 CPUs");
        EXPECT_ERROR("A a.so 1 all\n", 0, 1, "no CPUs");

        EXPECT_ERROR("A a.so 1 2\n", 2, 1, "CPU 2 does not exist");
        EXPECT_ERROR("A a.so 1 0-2\n", 2, 1, "CPU 2 does not exist");
        EXPECT_ERROR("A a.so 1 1,1\n", 2, 1, "CPU 1 is listed twice");
        EXPECT_ERROR("A a.so 1 0-3,2\n", 4, 1, "CPU 2 is listed twice");
        EXPECT_ERROR("A a.so 1 1-0\n", 2, 1, "invalid CPU range 1-0");
        EXPECT_ERROR("A a.so 1 1,\n", 2, 1, "invalid core list");
        EXPECT_ERROR("A a.so 1 ,1\n", 2, 1, "invalid core list");
        EXPECT_ERROR("A a.so 1 0,,1\n", 2, 1, "invalid core list");
        EXPECT_ERROR("A a.so 1 all,1\n", 2, 1, "invalid core list");
        EXPECT_ERROR("A a.so 1 ALL\n", 2, 1, "invalid core list");
        EXPECT_ERROR("A a.so 1 -1\n", 2, 1, "invalid core list");
        EXPECT_ERROR("A a.so 1 +1\n", 2, 1, "invalid core list");
        EXPECT_ERROR("A a.so 1 0-\n", 2, 1, "invalid core list");
        EXPECT_ERROR("A a.so 1 0-1-2\n", 4, 1, "invalid core list");
        EXPECT_ERROR("A a.so 1 0x1\n", 2, 1, "invalid core list");
        EXPECT_ERROR("A a.so 1 4294967296\n", 2, 1, "invalid core list");
        EXPECT_ERROR("A a.so 1 99999999999999999999999\n", 2, 1, "invalid core list");
        EXPECT_ERROR("A a.so 1 4294967295\n", UINT32_MAX, 1, "CPU 4294967295 does not exist");
        EXPECT_ERROR("A a.so 1 0-4294967294\n", UINT32_MAX, 1, "more than 1024 CPUs");
}

static void test_priorities(void) {
        struct rtf_config c;

        CHECK_EQ(parse("A a.so 50 0\nB b.so 1-1000 0\nC c.so 007-8 0\n", 1, &c), 0);
        if (c.n_plugins == 3) {
                CHECK_EQ(c.plugins[0].prio_min, 50);
                CHECK_EQ(c.plugins[0].prio_max, 50);
                CHECK_EQ(c.plugins[1].prio_min, 1);
                CHECK_EQ(c.plugins[1].prio_max, 1000);
                CHECK_EQ(c.plugins[2].prio_min, 7);
                CHECK_EQ(c.plugins[2].prio_max, 8);
        }
        rtf_config_deinit(&c);

        static const char *const bad[] = {
                "0", "0-10", "1-1001", "1001", "10-5", "-5", "5-", "-", "+5", "1-+5",
                "1-2-3", "abc", "1.5", "4294967297", "99999999999999999999", "1--2",
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                char text[128];

                snprintf(text, sizeof(text), "# comment\nA a.so %s 0\n", bad[i]);
                EXPECT_ERROR(text, 1, 2, "invalid priority range");
        }
}

static void test_names_and_files(void) {
        EXPECT_OK("a_b.c-D9 x.so 1 0\n", 1);
        EXPECT_OK("abcdefghijklmnopqrstuvwxyz01234 x.so 1 0\n", 1);   /* 31 characters */
        EXPECT_ERROR("abcdefghijklmnopqrstuvwxyz012345 x.so 1 0\n", 1, 1, "too long");
        EXPECT_ERROR("a/b x.so 1 0\n", 1, 1, "invalid plugin name");
        EXPECT_ERROR("a,b x.so 1 0\n", 1, 1, "invalid plugin name");
        EXPECT_ERROR("\xc3\xa9 x.so 1 0\n", 1, 1, "invalid plugin name");
        EXPECT_ERROR("EDF EDF.so 100 0\nRM RM.so 1 0\nEDF FP.so 1 0\n", 1, 3,
                     "duplicate plugin name \"EDF\" (first defined on line 1)");
        /* Names are case-sensitive. */
        EXPECT_OK("EDF EDF.so 100 0\nedf EDF.so 100 0\n", 1);

        EXPECT_OK("A /usr/lib/rtf/plugins/EDF.so 1 0\n", 1);
        EXPECT_OK("A /opt/rtf/my..plugin.so 1 0\n", 1);
        EXPECT_OK("A /opt/..hidden/x 1 0\n", 1);
        EXPECT_OK("A ..so 1 0\n", 1);
        EXPECT_ERROR("A EDF 1 0\n", 1, 1, "invalid plugin file");
        EXPECT_ERROR("A .so 1 0\n", 1, 1, "invalid plugin file");
        EXPECT_ERROR("A EDF.SO 1 0\n", 1, 1, "invalid plugin file");
        EXPECT_ERROR("A EDF.so.1 1 0\n", 1, 1, "invalid plugin file");
        EXPECT_ERROR("A ./EDF.so 1 0\n", 1, 1, "invalid plugin file");
        EXPECT_ERROR("A plugins/EDF.so 1 0\n", 1, 1, "invalid plugin file");
        EXPECT_ERROR("A ../EDF.so 1 0\n", 1, 1, "invalid plugin file");
        EXPECT_ERROR("A /usr/lib/../../etc/x.so 1 0\n", 1, 1, "contains \"..\"");
        EXPECT_ERROR("A /usr/lib/.. 1 0\n", 1, 1, "contains \"..\"");
        EXPECT_ERROR("A /.. 1 0\n", 1, 1, "contains \"..\"");
        EXPECT_ERROR("A /usr/lib/ 1 0\n", 1, 1, "is a directory");
        EXPECT_ERROR("A / 1 0\n", 1, 1, "is a directory");

        char text[600];
        memset(text, 0, sizeof(text));
        strcpy(text, "A /");
        memset(text + 3, 'x', 252);
        strcat(text, ".so 1 0\n");        /* a 258-character path */
        EXPECT_ERROR(text, 1, 1, "too long");
}

static void test_columns_and_options(void) {
        struct rtf_config c;

        CHECK_EQ(parse("EDF EDF.so 100-100 0 util=0.9 mode=fast _x1=/a/b=c\n", 1, &c), 0);
        CHECK_EQ(c.n_plugins, 1);
        if (c.n_plugins == 1) {
                CHECK_EQ(c.plugins[0].n_options, 3);
                if (c.plugins[0].n_options == 3) {
                        CHECK(strcmp(c.plugins[0].options[0], "util=0.9") == 0);
                        CHECK(strcmp(c.plugins[0].options[1], "mode=fast") == 0);
                        CHECK(strcmp(c.plugins[0].options[2], "_x1=/a/b=c") == 0);
                }
        }
        rtf_config_deinit(&c);

        EXPECT_ERROR("EDF\n", 1, 1, "expected NAME PLUGIN PRIORITY CORES");
        EXPECT_ERROR("EDF EDF.so\n", 1, 1, "got 2 words");
        EXPECT_ERROR("\n\nEDF EDF.so 100\n", 1, 3, "got 3 words");
        EXPECT_ERROR("A a.so 1 0 util\n", 1, 1, "expected KEY=VALUE");
        EXPECT_ERROR("A a.so 1 0 =5\n", 1, 1, "invalid option key");
        EXPECT_ERROR("A a.so 1 0 Util=5\n", 1, 1, "invalid option key");
        EXPECT_ERROR("A a.so 1 0 1x=5\n", 1, 1, "invalid option key");
        EXPECT_ERROR("A a.so 1 0 a-b=5\n", 1, 1, "invalid option key");
        EXPECT_ERROR("A a.so 1 0 x=\n", 1, 1, "has no value");
        EXPECT_ERROR("A a.so 1 0 x=1 y=2 x=3\n", 1, 1, "option \"x\" given twice");
        EXPECT_OK("A a.so 1 0 x=1 xy=2 xyz=3\n", 1);

        /* At most RTF_CONFIG_MAX_OPTIONS options. */
        char text[512] = "A a.so 1 0";
        append_n(text, sizeof(text), " o", "=1", RTF_CONFIG_MAX_OPTIONS);
        strcat(text, "\n");
        CHECK_EQ(parse(text, 1, &c), 0);
        if (c.n_plugins == 1)
                CHECK_EQ(c.plugins[0].n_options, RTF_CONFIG_MAX_OPTIONS);
        rtf_config_deinit(&c);
        text[strlen(text) - 1] = '\0';
        strcat(text, " last=1\n");
        EXPECT_ERROR(text, 1, 1, "too many options");
}

static void test_settings(void) {
        struct rtf_config c;

        CHECK_EQ(parse("set latency_hint_us 0\n"
                       "EDF EDF.so 100 0\n"
                       "set   log_level\tdebug   # trailing comment\n", 1, &c), 0);
        CHECK_EQ(c.n_plugins, 1);
        CHECK_EQ(c.n_settings, 2);
        CHECK(rtf_config_get_setting(&c, "latency_hint_us") != NULL);
        CHECK(str_eq(rtf_config_get_setting(&c, "latency_hint_us"), "0"));
        CHECK(str_eq(rtf_config_get_setting(&c, "log_level"), "debug"));
        CHECK(rtf_config_get_setting(&c, "nope") == NULL);
        CHECK(rtf_config_get_setting(&c, "LOG_LEVEL") == NULL);
        CHECK(rtf_config_get_setting(NULL, "log_level") == NULL);
        CHECK(rtf_config_get_setting(&c, NULL) == NULL);
        if (c.n_settings == 2)
                CHECK_EQ(c.settings[1].line, 3);
        rtf_config_deinit(&c);

        /* shared_cpus is the parser's: checked here, so --check-config and a start agree. */
        CHECK_EQ(parse("A a.so 1 0\nset shared_cpus allow\n", 1, &c), 0);
        CHECK(c.shared_cpus_allowed);
        rtf_config_deinit(&c);
        CHECK_EQ(parse("A a.so 1 0\nset shared_cpus warn\n", 1, &c), 0);
        CHECK(!c.shared_cpus_allowed);
        rtf_config_deinit(&c);
        CHECK_EQ(parse("A a.so 1 0\n", 1, &c), 0);
        CHECK(!c.shared_cpus_allowed);
        CHECK(c.filename && strcmp(c.filename, FILENAME) == 0);
        if (c.n_plugins == 1)
                CHECK(c.plugins[0].source == c.filename);
        rtf_config_deinit(&c);
        EXPECT_ERROR("A a.so 1 0\nset shared_cpus yes\n", 1, 2, "neither \"warn\" nor \"allow\"");

        EXPECT_ERROR("A a.so 1 0\nset x\n", 1, 2, "expected: set KEY VALUE");
        EXPECT_ERROR("A a.so 1 0\nset\n", 1, 2, "expected: set KEY VALUE");
        EXPECT_ERROR("A a.so 1 0\nset x 1 2\n", 1, 2, "expected: set KEY VALUE");
        /* `set` cannot be a plugin name. */
        EXPECT_ERROR("set set.so 1 0\n", 1, 1, "expected: set KEY VALUE");
        EXPECT_ERROR("A a.so 1 0\nset Key 1\n", 1, 2, "invalid setting key");
        EXPECT_ERROR("A a.so 1 0\nset a-b 1\n", 1, 2, "invalid setting key");
        EXPECT_ERROR("A a.so 1 0\nset a=b 1\n", 1, 2, "invalid setting key");
        EXPECT_ERROR("A a.so 1 0\nset x 1\n# c\nset x 2\n", 1, 4, "\"x\" is already set on line 2");
        /* Keys of 63 characters, not 64. */
        EXPECT_OK("A a.so 1 0\nset k23456789012345678901234567890123456789012345678901234567890123 1\n", 1);
        EXPECT_ERROR("A a.so 1 0\nset k234567890123456789012345678901234567890123456789012345678901234 1\n",
                     1, 2, "invalid setting key");
        /* Only settings is still no plugin. */
        EXPECT_ERROR("set x 1\n", 1, 0, "no plugin configured");

        char text[8192] = "A a.so 1 0\n";
        append_n(text, sizeof(text), "set k", " 1\n", RTF_CONFIG_MAX_SETTINGS);
        EXPECT_OK(text, 1);
        strcat(text, "set one_more 1\n");
        EXPECT_ERROR(text, 1, RTF_CONFIG_MAX_SETTINGS + 2, "too many settings");

        char value[300];
        memset(value, 'v', sizeof(value));
        value[sizeof(value) - 1] = '\0';
        snprintf(text, sizeof(text), "A a.so 1 0\nset k %s\n", value);
        EXPECT_ERROR(text, 1, 2, "too long");
}

static void test_lexical(void) {
        struct rtf_config c;

        /* Comments anywhere, blank lines, tabs, CRLF, no final newline. */
        CHECK_EQ(parse("\n   \n\t\n# only a comment\n"
                       "  EDF\tEDF.so  100-100 0 # EDF on CPU 0\r\n"
                       "RM RM.so#no space before the comment\n"
                       "\r\n"
                       "FP FP.so 1-99 0-1", 2, &c), -EINVAL);
        /* RM's line has only two words once the comment is gone. */
        CHECK(strncmp(err, FILENAME ":6: ", strlen(FILENAME ":6: ")) == 0);

        CHECK_EQ(parse("\n   \n\t\n# only a comment\n"
                       "  EDF\tEDF.so  100-100 0 # EDF on CPU 0\r\n"
                       "RM RM.so 1 1#no space before the comment\n"
                       "\r\n"
                       "FP FP.so 1-99 0-1", 2, &c), 0);
        CHECK_EQ(c.n_plugins, 3);
        if (c.n_plugins == 3) {
                CHECK_EQ(c.plugins[0].line, 5);
                CHECK(strcmp(c.plugins[0].file, "EDF.so") == 0);
                CHECK(CPUS_ARE(&c.plugins[0], 0));
                CHECK(CPUS_ARE(&c.plugins[1], 1));
                CHECK_EQ(c.plugins[2].line, 8);
                CHECK(CPUS_ARE(&c.plugins[2], 0, 1));
        }
        rtf_config_deinit(&c);

        EXPECT_ERROR("", 1, 0, "no plugin configured");
        EXPECT_ERROR("# nothing\n\n", 1, 0, "no plugin configured");
        EXPECT_ERROR("A a.so 1 0\nB b.so 1\x01 0\n", 1, 2, "control character 0x01");
        EXPECT_ERROR("A a.so 1 0\x7f\n", 1, 1, "control character 0x7f");
        EXPECT_OK("A a.so 1 0 # \x01 in a comment is nobody's business\n", 1);

        /* A NUL byte anywhere, even in a comment. */
        static const char with_nul[] = "A a.so 1 0\n# x\0y\n";
        CHECK_EQ(parse_n(with_nul, sizeof(with_nul) - 1, 1, &c), -EINVAL);
        CHECK(strncmp(err, FILENAME ":2: ", strlen(FILENAME ":2: ")) == 0);
        CHECK(strstr(err, "NUL") != NULL);

        /* Lines of 4096 characters are fine, 4097 are not. */
        static char big[RTF_CONFIG_MAX_SIZE + 2];
        size_t n;
        strcpy(big, "A a.so 1 0 #");
        n = strlen(big);
        memset(big + n, 'c', 4096 - n);
        big[4096] = '\n';
        CHECK_EQ(parse_n(big, 4097, 1, &c), 0);
        rtf_config_deinit(&c);
        CHECK_EQ(parse_n(big, 4096, 1, &c), 0);     /* without the newline */
        rtf_config_deinit(&c);
        memmove(big + 13, big + 12, 4096 - 12);
        big[12] = 'c';
        big[4097] = '\n';
        CHECK_EQ(parse_n(big, 4098, 1, &c), -EINVAL);
        CHECK(strncmp(err, FILENAME ":1: line longer than 4096", strlen(FILENAME ":1: line longer than 4096")) == 0);

        /* A file of RTF_CONFIG_MAX_SIZE bytes is fine, one byte more is not. */
        memset(big, '\n', sizeof(big));
        memcpy(big, "A a.so 1 0", 10);
        CHECK_EQ(parse_n(big, RTF_CONFIG_MAX_SIZE, 1, &c), 0);
        rtf_config_deinit(&c);
        CHECK_EQ(parse_n(big, RTF_CONFIG_MAX_SIZE + 1, 1, &c), -EINVAL);
        CHECK(strncmp(err, FILENAME ": file is larger", strlen(FILENAME ": file is larger")) == 0);
}

static void test_limits(void) {
        static char text[RTF_CONFIG_MAX_PLUGINS * 32 + 64];

        text[0] = '\0';
        append_n(text, sizeof(text), "P", " p.so 1 0\n", RTF_CONFIG_MAX_PLUGINS);
        EXPECT_OK(text, 1);
        strcat(text, "one_more p.so 1 0\n");
        EXPECT_ERROR(text, 1, RTF_CONFIG_MAX_PLUGINS + 1, "too many plugins");
}

static void test_args(void) {
        struct rtf_config c = RTF_CONFIG_NULL;

        /* err may be NULL, and a NULL file name still yields a message. */
        CHECK_EQ(rtf_config_parse("x", 1, FILENAME, 1, &c, NULL, 0), -EINVAL);
        CHECK_EQ(rtf_config_parse("x", 1, NULL, 1, &c, err, sizeof(err)), -EINVAL);
        CHECK(strncmp(err, "<config>:1: ", 12) == 0);
        CHECK_EQ(rtf_config_parse(NULL, 0, FILENAME, 1, &c, err, sizeof(err)), -EINVAL);
        CHECK_EQ(rtf_config_parse(NULL, 5, FILENAME, 1, &c, err, sizeof(err)), -EINVAL);
        CHECK_EQ(rtf_config_parse("A a.so 1 0", 10, FILENAME, 1, NULL, err, sizeof(err)), -EINVAL);
        /* A tiny error buffer truncates, but stays a string. */
        char small[8];
        CHECK_EQ(rtf_config_parse("x", 1, FILENAME, 1, &c, small, sizeof(small)), -EINVAL);
        CHECK_EQ(strlen(small), sizeof(small) - 1);
        CHECK(c.plugins == NULL);

        /* Only len bytes are read: the rest of the string is not a second line. */
        CHECK_EQ(rtf_config_parse("A a.so 1 0\nbogus", 10, FILENAME, 1, &c, err, sizeof(err)), 0);
        CHECK_EQ(c.n_plugins, 1);
        rtf_config_deinit(&c);

        /* deinit is safe on an empty config, twice, and on NULL. */
        c = RTF_CONFIG_NULL;
        rtf_config_deinit(&c);
        rtf_config_deinit(&c);
        rtf_config_deinit(NULL);
        CHECK_EQ(parse(listing2_2cpus, 2, &c), 0);
        rtf_config_deinit(&c);
        CHECK(c.plugins == NULL);
        CHECK_EQ(c.n_plugins, 0);
        rtf_config_deinit(&c);
}

struct overlap {
        uint32_t i, j, cpu;
};

struct overlaps {
        struct overlap o[64];
        unsigned n;
};

static void record_overlap(void *userdata, uint32_t i, uint32_t j, uint32_t cpu) {
        struct overlaps *ov = userdata;

        if (ov->n < sizeof(ov->o) / sizeof(ov->o[0]))
                ov->o[ov->n] = (struct overlap){ i, j, cpu };
        ov->n++;
}

static void test_overlaps(void) {
        /* EDF(0) RM1(1) RR(1) RM2(0) FP(0,1): every pair sharing a CPU, once per CPU. */
        static const struct overlap expected[] = {
                { 0, 3, 0 }, { 0, 4, 0 }, { 1, 2, 1 }, { 1, 4, 1 }, { 2, 4, 1 }, { 3, 4, 0 },
        };
        struct overlaps ov = { .n = 0 };
        struct rtf_config c;

        CHECK_EQ(parse(listing2_2cpus, 2, &c), 0);
        rtf_config_for_each_overlap(&c, record_overlap, &ov);
        CHECK_EQ(ov.n, sizeof(expected) / sizeof(expected[0]));
        for (unsigned k = 0; k < ov.n && k < sizeof(expected) / sizeof(expected[0]); k++) {
                CHECK_EQ(ov.o[k].i, expected[k].i);
                CHECK_EQ(ov.o[k].j, expected[k].j);
                CHECK_EQ(ov.o[k].cpu, expected[k].cpu);
        }
        rtf_config_deinit(&c);

        /* Disjoint sets: no call; two full sets: one call per CPU, ascending. */
        ov.n = 0;
        CHECK_EQ(parse("A a.so 1 0,2\nB b.so 1 1,3\n", 4, &c), 0);
        rtf_config_for_each_overlap(&c, record_overlap, &ov);
        CHECK_EQ(ov.n, 0);
        rtf_config_deinit(&c);

        ov.n = 0;
        CHECK_EQ(parse("A a.so 1 all\nB b.so 1 3,1-2\n", 4, &c), 0);
        rtf_config_for_each_overlap(&c, record_overlap, &ov);
        CHECK_EQ(ov.n, 3);
        if (ov.n == 3) {
                CHECK_EQ(ov.o[0].cpu, 1);
                CHECK_EQ(ov.o[1].cpu, 2);
                CHECK_EQ(ov.o[2].cpu, 3);
        }
        rtf_config_deinit(&c);

        rtf_config_for_each_overlap(NULL, record_overlap, &ov);
        rtf_config_for_each_overlap(&c, NULL, NULL);
}

static void test_default(void) {
        struct rtf_config c = RTF_CONFIG_NULL;

        CHECK_EQ(rtf_config_default(4, &c), 0);
        CHECK_EQ(c.n_plugins, 4);
        CHECK_EQ(c.n_settings, 1);
        CHECK(c.shared_cpus_allowed);
        if (c.n_plugins == 4) {
                static const struct {
                        const char *name, *file;
                        uint32_t min, max;
                } want[] = {
                        { "EDF", "EDF.so", 100, 100 },
                        { "RM", "RM.so", 50, 89 },
                        { "FP", "FP.so", 1, 89 },
                        { "RR", "RR.so", 1, 89 },
                };
                for (unsigned k = 0; k < 4; k++) {
                        CHECK(strcmp(c.plugins[k].name, want[k].name) == 0);
                        CHECK(strcmp(c.plugins[k].file, want[k].file) == 0);
                        CHECK_EQ(c.plugins[k].prio_min, want[k].min);
                        CHECK_EQ(c.plugins[k].prio_max, want[k].max);
                        CHECK(CPUS_ARE(&c.plugins[k], 0, 1, 2, 3));
                        CHECK_EQ(c.plugins[k].n_options, 0);
                }
        }
        rtf_config_deinit(&c);

        CHECK_EQ(rtf_config_default(1, &c), 0);
        if (c.n_plugins == 4)
                CHECK(CPUS_ARE(&c.plugins[3], 0));
        rtf_config_deinit(&c);

        CHECK_EQ(rtf_config_default(0, &c), -EINVAL);
        CHECK_EQ(rtf_config_default(RTF_CONFIG_MAX_CPUS + 1, &c), -EINVAL);
        CHECK(c.plugins == NULL);
}

/* data/conf/rtfd.conf says it matches the built-in default: the same plugin
 * set and settings, so that both start alike (and without overlap warnings). */
static void test_shipped_file_is_the_default(void) {
        const char *path = getenv("RTF_SHIPPED_CONFIG");
        struct rtf_config d = RTF_CONFIG_NULL, f = RTF_CONFIG_NULL;
        char buf[8192];
        size_t len;
        FILE *in;

        CHECK(path != NULL);
        in = path ? fopen(path, "re") : NULL;
        CHECK(in != NULL);
        if (!in)
                return;
        len = fread(buf, 1, sizeof(buf), in);
        fclose(in);
        for (uint32_t n_cpus = 1; n_cpus <= 8; n_cpus++) {
                CHECK_EQ(rtf_config_default(n_cpus, &d), 0);
                CHECK_EQ(parse_n(buf, len, n_cpus, &f), 0);
                CHECK_EQ(f.n_plugins, d.n_plugins);
                CHECK_EQ(f.n_settings, d.n_settings);
                CHECK_EQ(f.shared_cpus_allowed, d.shared_cpus_allowed);
                for (uint32_t i = 0; i < f.n_plugins && i < d.n_plugins; i++) {
                        const struct rtf_config_plugin *a = &f.plugins[i], *b = &d.plugins[i];

                        CHECK(strcmp(a->name, b->name) == 0);
                        CHECK(strcmp(a->file, b->file) == 0);
                        CHECK_EQ(a->prio_min, b->prio_min);
                        CHECK_EQ(a->prio_max, b->prio_max);
                        CHECK_EQ(a->n_cpus, b->n_cpus);
                        CHECK(a->n_cpus == b->n_cpus && memcmp(a->cpus, b->cpus, a->n_cpus * sizeof(*a->cpus)) == 0);
                        CHECK_EQ(a->n_options, b->n_options);
                }
                for (uint32_t i = 0; i < f.n_settings && i < d.n_settings; i++) {
                        CHECK(strcmp(f.settings[i].key, d.settings[i].key) == 0);
                        CHECK(strcmp(f.settings[i].value, d.settings[i].value) == 0);
                }
                rtf_config_deinit(&d);
                rtf_config_deinit(&f);
        }
}

int main(void) {
        test_listing2();
        test_cores();
        test_priorities();
        test_names_and_files();
        test_columns_and_options();
        test_settings();
        test_lexical();
        test_limits();
        test_args();
        test_overlaps();
        test_default();
        test_shipped_file_is_the_default();
        return test_done();
}
