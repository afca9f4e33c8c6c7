/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the RTAI task API means on both sides of rtf, librtf's <rtf/rtai.h>
 * on Linux and rtf-bare's <rtai_sched.h> on a bare machine: the time type,
 * the priority range, the result codes and task names.  Freestanding: no
 * libc header, so the bare-machine build includes it too.
 */
#pragma once

typedef long long RTIME;

#define RT_SCHED_HIGHEST_PRIORITY 0
#define RT_SCHED_LOWEST_PRIORITY 0x3fffFfff
#define RT_SCHED_LINUX_PRIORITY 0x7fffFfff

/* RTAI's result codes (the classic numbering, without CONFIG_RTAI_USE_NEWERR). */
#define RTE_BASE 0xFFFB
#define RTE_TMROVRN (RTE_BASE + 1)
#define RTE_UNBLKD (RTE_BASE + 2)
#define RTE_TIMOUT (RTE_BASE + 3)
#define RTE_OBJREM (RTE_BASE + 4)
#define RTE_OBJINV RTE_OBJREM   /* RTAI aliases them in this numbering */

/* Task names as RTAI packs them: up to 6 characters of [A-Z0-9_$]. */
static inline unsigned long nam2num(const char *name) {
        unsigned long retval = 0;
        int i;

        for (i = 0; i < 6 && name[i]; i++) {
                int c = name[i], d;

                if (c >= 'a' && c <= 'z')
                        c += 'A' - 'a';
                if (c >= 'A' && c <= 'Z')
                        d = c - 'A' + 1;
                else if (c >= '0' && c <= '9')
                        d = c - '0' + 27;
                else if (c == '_')
                        d = 37;
                else
                        d = 38;
                retval = retval * 40 + (unsigned long) d;
        }
        return retval + 2;
}
