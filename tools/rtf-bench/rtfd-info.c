/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "listing.h"
#include "protocol.h"
#include "rtfd-info.h"

#define ROWS_LIMIT 65536u               /* 64 plugins x 1024 CPUs: never page forever */

static struct rtfd_instance *instance_of(struct rtfd_info *info, const struct rtf_wire_core *row) {
        struct rtfd_instance *v;

        for (size_t i = 0; i < info->n_instances; i++)
                if (strcmp(info->instances[i].name, row->plugin) == 0)
                        return &info->instances[i];
        v = realloc(info->instances, (info->n_instances + 1) * sizeof(*v));
        if (!v)
                return NULL;
        info->instances = v;
        v = &info->instances[info->n_instances++];
        *v = (struct rtfd_instance){ 0 };
        snprintf(v->name, sizeof(v->name), "%s", row->plugin);
        snprintf(v->kind, sizeof(v->kind), "%s", row->policy);
        return v;
}

static int add_row(struct rtfd_info *info, const struct rtf_wire_core *row) {
        struct rtfd_instance *in = instance_of(info, row);
        int32_t *cpus;

        if (!in)
                return -ENOMEM;
        cpus = realloc(in->cpus, (in->n_cpus + 1) * sizeof(*cpus));
        if (!cpus)
                return -ENOMEM;
        in->cpus = cpus;
        in->cpus[in->n_cpus++] = row->cpu;
        in->partitioned |= row->partitioned != 0;
        in->tasks += row->tasks;
        in->utilization += (double)row->utilization_ppm / 1e6;
        return 0;
}

static void read_comm(pid_t pid, char *buf, size_t size) {
        char path[64];
        ssize_t n;
        int fd;

        buf[0] = '\0';
        snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return;
        n = read(fd, buf, size - 1);
        close(fd);
        if (n <= 0)
                return;
        buf[n] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
}

int rtfd_info_query(const char *socket_path, struct rtfd_info *ret) {
        struct rtfd_info info = { 0 };
        struct ucred cred = { 0 };
        socklen_t len = sizeof(cred);
        struct rtf_msg *reply;
        uint32_t start = 0, seq = 1;
        int fd, r = 0;

        reply = malloc(sizeof(*reply));
        if (!reply)
                return -ENOMEM;
        fd = rtf_listing_connect(socket_path);
        if (fd < 0) {
                free(reply);
                return fd;
        }
        /*
         * The credentials of whoever called listen(): rtfd, unless systemd
         * passed it the socket (socket activation), when they are systemd's.
         */
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.pid > 0) {
                info.pid = cred.pid;
                info.uid = cred.uid;
                read_comm(cred.pid, info.comm, sizeof(info.comm));
        }
        for (;;) {
                r = rtf_listing_fetch(fd, RTF_MSG_STATUS, start, seq++, reply, NULL, 0);
                if (r < 0)
                        break;
                for (uint32_t i = 0; i < reply->rows.count && r >= 0; i++)
                        r = add_row(&info, &reply->rows.cores[i]);
                if (r < 0)
                        break;
                start += reply->rows.count;
                if (reply->rows.count == 0 || start >= reply->rows.total || start >= ROWS_LIMIT)
                        break;
        }
        close(fd);
        free(reply);
        if (r < 0) {
                rtfd_info_deinit(&info);
                return r;
        }
        *ret = info;
        return 0;
}

void rtfd_info_deinit(struct rtfd_info *info) {
        if (!info)
                return;
        for (size_t i = 0; i < info->n_instances; i++)
                free(info->instances[i].cpus);
        free(info->instances);
        *info = (struct rtfd_info){ 0 };
}

int proc_uss_kib(pid_t pid, long *ret_kib) {
        char path[64], line[256];
        long total = -1, v;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
        f = fopen(path, "re");
        if (!f)
                return -errno;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "Private_Clean: %ld kB", &v) == 1 || sscanf(line, "Private_Dirty: %ld kB", &v) == 1 ||
                    sscanf(line, "Private_Hugetlb: %ld kB", &v) == 1)
                        total = (total < 0 ? 0 : total) + v;
        if (ferror(f)) {
                int r = -errno;

                fclose(f);
                return r < 0 ? r : -EIO;
        }
        fclose(f);
        if (total < 0)
                return -ENODATA;
        *ret_kib = total;
        return 0;
}
