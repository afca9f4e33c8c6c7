/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "names.h"
#include "text.h"

const char *ctl_user_name(uid_t uid, char *buf, size_t size) {
        struct passwd pw, *found = NULL;
        char scratch[1024];

        if (getpwuid_r(uid, &pw, scratch, sizeof(scratch), &found) == 0 && found && found->pw_name[0])
                snprintf(buf, size, "%s", found->pw_name);
        else
                snprintf(buf, size, "%u", (unsigned)uid);
        return buf;
}

const char *ctl_thread_comm(pid_t tid, char *buf, size_t size) {
        char path[32];
        ssize_t n = -1;
        int fd;

        snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
        fd = tid > 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
        if (fd >= 0) {
                n = read(fd, buf, size - 1);
                close(fd);
        }
        if (n <= 0) {
                snprintf(buf, size, "?");
                return buf;
        }
        buf[n] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        return buf;
}

const char *ctl_one_word(const char *name, char *out, size_t size) {
        text_escape(name, out, size);
        for (char *c = out; *c; c++)
                if (*c == ' ')
                        *c = '_';
        return out;
}
