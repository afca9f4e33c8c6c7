/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The broker's kernel_ops for real: thread.c's system calls with the
 * manager's cpuset partitions, and /dev/cpu_dma_latency (pmqos.c).
 */
#include "manager-private.h"

static int linux_thread_open(void *data, pid_t tid, struct thread *ret) {
        return thread_open(tid, ret);
}

static void linux_thread_close(void *data, struct thread *t) {
        thread_close(t);
}

static bool linux_thread_alive(void *data, const struct thread *t) {
        return thread_alive(t);
}

static int linux_thread_read_owners(void *data, const struct thread *t, uid_t *ret_ruid, uid_t *ret_euid) {
        return thread_read_owners(t, ret_ruid, ret_euid);
}

static int linux_thread_apply(void *data, struct thread *t, const struct rtf_sched_setting *s) {
        struct manager *mgr = data;

        return thread_apply(t, s, &mgr->cpuset, mgr->n_cpus);
}

static int linux_thread_demote(void *data, struct thread *t) {
        struct manager *mgr = data;

        return thread_demote(t, &mgr->cpuset, mgr->n_cpus);
}

static int linux_thread_read_dl_state(void *data, const struct thread *t, int64_t *ret_runtime_ns,
                                      int64_t *ret_deadline_ns) {
        return thread_read_dl_state(t, ret_runtime_ns, ret_deadline_ns);
}

static int linux_rebuild_root_domains(void *data) {
        struct manager *mgr = data;

        return cpuset_rebuild_root_domains(&mgr->cpuset, mgr->opt.cpuset_root);
}

static void linux_latency_hint(void *data, bool wanted, int32_t value_us) {
        struct manager *mgr = data;

        pmqos_update(&mgr->pmqos, wanted, value_us);
}

static int linux_thread_enforce(void *data, uint64_t key, const struct thread *t,
                                const struct rtf_sched_setting *applied, uint64_t runtime_ns, uint64_t period_ns) {
        struct manager *mgr = data;

        return enforce_update(&mgr->enforcer, key, t, applied, runtime_ns, period_ns, mgr->opt.rttime_us);
}

static void linux_thread_unenforce(void *data, uint64_t key) {
        struct manager *mgr = data;

        enforce_remove(mgr->enforcer, key);
}

static int linux_thread_demote_successor(void *data, struct thread *t, bool leader_attached) {
        struct manager *mgr = data;

        return thread_demote_exec_successor(t, &mgr->cpuset, mgr->n_cpus, leader_attached);
}

static int linux_thread_placement_holds(void *data, const struct thread *t) {
        struct manager *mgr = data;

        return thread_placement_holds(t, mgr->n_cpus);
}

const struct kernel_ops kernel_linux_ops = {
        .thread_open = linux_thread_open,
        .thread_close = linux_thread_close,
        .thread_alive = linux_thread_alive,
        .thread_read_owners = linux_thread_read_owners,
        .thread_apply = linux_thread_apply,
        .thread_demote = linux_thread_demote,
        .thread_read_dl_state = linux_thread_read_dl_state,
        .rebuild_root_domains = linux_rebuild_root_domains,
        .latency_hint = linux_latency_hint,
        .thread_enforce = linux_thread_enforce,
        .thread_unenforce = linux_thread_unenforce,
        .thread_demote_successor = linux_thread_demote_successor,
        .thread_placement_holds = linux_thread_placement_holds,
};
