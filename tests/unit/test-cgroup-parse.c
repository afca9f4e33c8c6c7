/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests of the cgroup parsers that decide between v1 and v2 cpusets. */
#include <errno.h>
#include <string.h>

#include "cgroup-parse.h"
#include "tap.h"

/* This development machine (hybrid: v1 cpuset, cgroup2 without it). */
static const char hybrid[] =
        "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
        "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
        "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
        "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
        "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

/* Stock Debian 12: cgroup2 alone, with optional fields before the "-". */
static const char unified[] =
        "22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
        "26 23 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 "
        "rw,nsdelegate,memory_recursiveprot\n";

static void test_mountinfo(void) {
        struct cgroup_mounts m;

        CHECK_EQ(cgroup_parse_mountinfo(hybrid, strlen(hybrid), &m), 0);
        CHECK(strcmp(m.v1_cpuset, "/sys/fs/cgroup/cpuset") == 0);
        CHECK(strcmp(m.v2, "/sys/fs/cgroup/unified") == 0);

        CHECK_EQ(cgroup_parse_mountinfo(unified, strlen(unified), &m), 0);
        CHECK_EQ(m.v1_cpuset[0], 0);
        CHECK(strcmp(m.v2, "/sys/fs/cgroup") == 0);

        /* "cpuset" must be an option of its own, not part of one; a v1
         * hierarchy with several controllers counts; escapes are decoded. */
        static const char other[] =
                "1 1 0:1 / /a rw - cgroup cgroup rw,name=cpusetx\n"
                "2 1 0:2 / /my\\040cpus rw - cgroup none rw,cpu,cpuset,cpuacct\n";
        CHECK_EQ(cgroup_parse_mountinfo(other, strlen(other), &m), 0);
        CHECK(strcmp(m.v1_cpuset, "/my cpus") == 0);
        CHECK_EQ(m.v2[0], 0);

        /* Without a trailing newline, and empty. */
        CHECK_EQ(cgroup_parse_mountinfo(unified, strlen(unified) - 1, &m), 0);
        CHECK(strcmp(m.v2, "/sys/fs/cgroup") == 0);
        CHECK_EQ(cgroup_parse_mountinfo("", 0, &m), 0);
        CHECK_EQ(m.v2[0], 0);

        /* Malformed: no separator, or too few fields after it. */
        static const char no_dash[] = "1 1 0:1 / /a rw cgroup cgroup rw\n";
        static const char short_tail[] = "1 1 0:1 / /a rw - cgroup2\n";
        CHECK_EQ(cgroup_parse_mountinfo(no_dash, strlen(no_dash), &m), -EINVAL);
        CHECK_EQ(cgroup_parse_mountinfo(short_tail, strlen(short_tail), &m), -EINVAL);

        char longer[2048] = "1 1 0:1 / /";
        memset(longer + strlen(longer), 'x', 600);
        strcat(longer, " rw - cgroup2 cgroup2 rw\n");
        CHECK_EQ(cgroup_parse_mountinfo(longer, strlen(longer), &m), -ENAMETOOLONG);
}

static void test_v2_path(void) {
        static const char hybrid_self[] = "9:name=systemd:/\n3:cpuset:/rtf-system\n0::/\n";
        static const char service[] = "0::/system.slice/rtfd.service\n";
        char path[64];

        CHECK_EQ(cgroup_parse_v2_path(hybrid_self, strlen(hybrid_self), path, sizeof(path)), 0);
        CHECK(strcmp(path, "/") == 0);
        CHECK_EQ(cgroup_parse_v2_path(service, strlen(service) - 1, path, sizeof(path)), 0);
        CHECK(strcmp(path, "/system.slice/rtfd.service") == 0);
        CHECK_EQ(cgroup_parse_v2_path(service, strlen(service), path, 8), -ENAMETOOLONG);
        CHECK_EQ(cgroup_parse_v2_path("3:cpuset:/\n", 11, path, sizeof(path)), -ENOENT);
        CHECK_EQ(cgroup_parse_v2_path("0::\n", 4, path, sizeof(path)), -EINVAL);
}

static void test_list(void) {
        CHECK(cgroup_list_has("cpuset cpu io memory pids\n", "cpuset"));
        CHECK(cgroup_list_has("cpu io cpuset", "cpuset"));
        CHECK(!cgroup_list_has("cpu cpusetx hugetlb", "cpuset"));
        CHECK(!cgroup_list_has("hugetlb", "cpuset"));
        CHECK(!cgroup_list_has("", "cpuset"));
        CHECK(!cgroup_list_has(NULL, "cpuset"));
}

int main(void) {
        test_mountinfo();
        test_v2_path();
        test_list();
        return test_done();
}
