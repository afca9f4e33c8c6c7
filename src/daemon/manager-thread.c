/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The broker's attached threads: attach, detach, a thread's exit, the
 * watchdog, and applying settings (through mgr->kops only).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "log.h"
#include "manager-private.h"

/* ---- kernel side ---- */

/* Journal a promotion or its end, for a restart after a crash (state.c). */
static void note_thread(struct manager *mgr, const struct thread *changed, bool add) {
        struct state_entry one = state_entry_of(changed);
        _cleanup_(freep) struct state_entry *live = NULL;
        size_t n = 0;

        /* The live list is only needed when the journal is due for compaction. */
        if (mgr->state.lines >= STATE_COMPACT_LINES) {
                for (struct spec_thread *a = mgr->attached; a; a = a->attached_next)
                        n++;
                for (struct lingering_thread *l = mgr->lingering; l; l = l->lingering_next)
                        n++;
                live = calloc(n ? n : 1, sizeof(*live));
                if (!live)
                        log_warning("Out of memory: the state file %s is not compacted now", mgr->state.path);
                n = 0;
                for (struct spec_thread *a = mgr->attached; live && a; a = a->attached_next)
                        live[n++] = state_entry_of(&a->thread);
                for (struct lingering_thread *l = mgr->lingering; live && l; l = l->lingering_next)
                        live[n++] = state_entry_of(&l->thread);
        }
        state_note(&mgr->state, add, &one, live, n);
}

static void note_state(struct manager *mgr, const struct spec *changed, bool add) {
        note_thread(mgr, &changed->att->thread, add);
}

/* Demote the threads whose demotion failed when they were let go; keep those
 * that still refuse (watchdog, and at the end). */
void manager_retry_lingering(struct manager *mgr) {
        struct lingering_thread *l, *next;

        LIST_FOREACH_SAFE(lingering, l, next, mgr->lingering) {
                int r = mgr->kops->thread_alive(mgr->kdata, &l->thread) ?
                        mgr->kops->thread_demote(mgr->kdata, &l->thread) : -ESRCH;

                if (r < 0 && r != -ESRCH)
                        continue;
                if (r >= 0)
                        log_notice("Thread %d demoted at last (its demotion had failed when it was let go)",
                                   (int)l->thread.tid);
                LIST_REMOVE(lingering, mgr->lingering, l);
                note_thread(mgr, &l->thread, false);
                mgr->kops->thread_close(mgr->kdata, &l->thread);
                free(l);
        }
}

static void attached_unlink(struct manager *mgr, struct spec *s) {
        struct spec_thread *a = s->att;

        LIST_REMOVE(attached, mgr->attached, a);
}

/*
 * Apply, working around the kernel's DEADLINE bandwidth leak: if the kernel
 * refuses bandwidth that our own accounting has free, rebuild the root
 * domains (which recounts the bandwidth of the tasks that exist) and retry.
 */
static int apply_setting(struct manager *mgr, struct spec *s, const struct rtf_sched_setting *set);

int manager_apply_setting(struct manager *mgr, struct spec *s, const struct rtf_sched_setting *set) {
        int r = apply_setting(mgr, s, set);

        /* Issue 10: a FIFO/RR runtime is a bound rtfd enforces (enforce.h); if
         * it cannot, the setting does not stay. */
        if (r >= 0 && mgr->kops->thread_enforce &&
            (r = mgr->kops->thread_enforce(mgr->kdata, s->id, &s->att->thread, set,
                                           s->task.accepted_runtime_us * NSEC_PER_USEC,
                                           s->task.params.period_us * NSEC_PER_USEC)) < 0)
                mgr->kops->thread_demote(mgr->kdata, &s->att->thread);
        return r;
}

static int apply_setting(struct manager *mgr, struct spec *s, const struct rtf_sched_setting *set) {
        int r;

        r = mgr->kops->thread_apply(mgr->kdata, &s->att->thread, set);
        if (r != -EBUSY || set->policy != RTF_POLICY_DEADLINE)
                return r;
        log_warning("Kernel refused SCHED_DEADLINE bandwidth for thread %d of spec %" PRIu64
                    " that rtf's admission has free: rebuilding root domains (bandwidth leak workaround)",
                    (int)s->att->thread.tid, s->id);
        if (mgr->kops->rebuild_root_domains(mgr->kdata) < 0)
                return r;
        r = mgr->kops->thread_apply(mgr->kdata, &s->att->thread, set);
        if (r >= 0) {
                mgr->leak_recoveries++;
                log_notice("Recovered leaked SCHED_DEADLINE bandwidth; thread %d promoted (recovery #%" PRIu64 ")",
                           (int)s->att->thread.tid, mgr->leak_recoveries);
        } else {
                log_warning_errno(r, "Retry after rebuilding root domains failed: %m");
        }
        return r;
}

int manager_setting_of(const struct spec *s, struct rtf_sched_setting *ret) {
        struct rtf_sched_setting set = { .cpu = -1 };
        int r;

        r = s->plugin->ops->attach(s->plugin->state, &s->task, &set);
        if (r < 0)
                return r;
        *ret = set;
        return 0;
}

static void thread_exited(struct source *src, uint32_t events);
static bool thread_taken(struct manager *mgr, pid_t tid);

/* Withdraw the thread: demote it if it still lives, close its pidfd. */
void manager_spec_unattach(struct manager *mgr, struct spec *s, bool demote) {
        struct spec_thread *a = s->att;

        if (!a)
                return;
        if (mgr->kops->thread_unenforce)
                mgr->kops->thread_unenforce(mgr->kdata, s->id);   /* issue 10: before the demotion, never after */
        bool lingers = false;

        if (demote && mgr->kops->thread_alive(mgr->kdata, &a->thread)) {
                int r = mgr->kops->thread_demote(mgr->kdata, &a->thread);

                if (r < 0 && r != -ESRCH) {
                        log_warning_errno(r, "Failed to demote thread %d of spec %" PRIu64 ": %m; rtfd keeps it "
                                          "and tries again every second", (int)a->thread.tid, s->id);
                        lingers = true;
                }
        }
        /* Issue 10: gone by its pidfd, it may run on as its process's leader
         * after an execve() with what it was given (thread.h). */
        if (mgr->kops->thread_demote_successor && !mgr->kops->thread_alive(mgr->kdata, &a->thread))
                mgr->kops->thread_demote_successor(mgr->kdata, &a->thread, thread_taken(mgr, a->thread.tgid));
        event_remove(mgr->ev, &a->source);
        s->task.attached = 0;
        attached_unlink(mgr, s);
        if (a->hint) {
                a->hint = false;
                mgr->n_hinted--;
        }
        mgr->kops->latency_hint(mgr->kdata, mgr->n_hinted > 0, mgr->opt.latency_hint_us);
        {
                struct lingering_thread *l = lingers ? calloc(1, sizeof(*l)) : NULL;

                if (l) {
                        /* Held on: its pidfd and its journal line stay (a restart demotes it). */
                        l->thread = a->thread;
                        l->uid = s->owner->uid;
                        LIST_PREPEND(lingering, mgr->lingering, l);
                } else {
                        if (lingers)
                                log_error("Out of memory: thread %d, not demoted, is let go", (int)a->thread.tid);
                        note_state(mgr, s, false);
                        mgr->kops->thread_close(mgr->kdata, &a->thread);
                }
        }
        s->att = NULL;
        /* An event of this dispatch batch may still point at its source. */
        event_defer_free(mgr->ev, a);
        if (PLUGIN_HAS(s->plugin->ops, detach))
                s->plugin->ops->detach(s->plugin->state, &s->task);
}

void manager_update_hint(struct manager *mgr, struct spec *s) {
        struct spec_thread *a = s->att;
        bool want = access_latency_hint(&mgr->access, s->owner, s->plugin->name);

        if (a && want != a->hint) {
                a->hint = want;
                if (want)
                        mgr->n_hinted++;
                else
                        mgr->n_hinted--;
        }
        mgr->kops->latency_hint(mgr->kdata, mgr->n_hinted > 0, mgr->opt.latency_hint_us);
}

static void thread_exited(struct source *src, uint32_t events) {
        struct spec_thread *a = (struct spec_thread *)((char *)src - offsetof(struct spec_thread, source));
        struct spec *s = a->spec;

        log_info("Thread %d of spec %" PRIu64 " exited; its kernel reservation is gone, the spec stays admitted",
                 (int)a->thread.tid, s->id);
        manager_spec_unattach(a->mgr, s, false);
}

static bool thread_taken(struct manager *mgr, pid_t tid) {
        struct spec_thread *a;

        LIST_FOREACH(attached, a, mgr->attached)
                if (a->thread.tid == tid && mgr->kops->thread_alive(mgr->kdata, &a->thread))
                        return true;
        return false;
}

/*
 * A thread whose demotion failed is not attached again before rtfd has
 * demoted it (the watchdog would demote it under its new specification), and
 * a uid with LINGERING_MAX_PER_UID such threads attaches none until some are
 * demoted or gone: the list stays bounded.
 */
static int lingering_allows(struct manager *mgr, const struct owner *o, pid_t tid, struct manager_result *r) {
        unsigned n = 0;

        for (struct lingering_thread *l = mgr->lingering; l; l = l->lingering_next) {
                if (!mgr->kops->thread_alive(mgr->kdata, &l->thread))
                        continue;               /* the next watchdog pass lets it go */
                if (l->thread.tid == tid)
                        return manager_fail(r, -EBUSY, "thread %d could not be demoted when it was let go; rtfd "
                                            "tries again every second and attaches it after that", (int)tid);
                if (l->uid == o->uid)
                        n++;
        }
        if (n >= LINGERING_MAX_PER_UID)
                return manager_fail(r, -EAGAIN, "%u threads of uid %u could not be demoted when they were let go; "
                                    "no more are attached until rtfd has demoted them", n, (unsigned)o->uid);
        return 0;
}

int manager_attach(struct manager *mgr, struct owner *o, uint64_t id, pid_t tid, struct manager_result *r) {
        struct rtf_sched_setting set;
        struct spec_thread *a;
        struct spec *s = NULL;
        int q;

        if (tid <= 0)
                return manager_fail(r, -EINVAL, "thread id %d is not valid", (int)tid);
        q = manager_lookup_owned(mgr, o, id, "attach", r, &s);
        if (q < 0)
                return q;
        if (s->att)
                return manager_fail(r, -EBUSY, "specification %" PRIu64 " already has thread %d attached", id,
                            (int)s->att->thread.tid);
        if (thread_taken(mgr, tid))
                return manager_fail(r, -EBUSY, "thread %d is already attached to another specification", (int)tid);
        q = lingering_allows(mgr, o, tid, r);
        if (q < 0)
                return q;
        a = calloc(1, sizeof(*a));
        if (!a)
                return manager_fail(r, -ENOMEM, "out of memory");
        a->spec = s;
        a->mgr = mgr;
        a->source.fd = -1;
        q = mgr->kops->thread_open(mgr->kdata, tid, &a->thread);
        if (q < 0) {
                free(a);
                return manager_fail(r, q, "cannot open thread %d: %s", (int)tid, strerror(-q));
        }
        /* Requirement 3 of section 4.1: only one's own threads. */
        if (o->uid != 0 && (a->thread.ruid != o->uid || a->thread.euid != o->uid)) {
                mgr->kops->thread_close(mgr->kdata, &a->thread);
                free(a);
                q = manager_fail(r, -EPERM, "thread %d does not belong to uid %u", (int)tid, (unsigned)o->uid);
                manager_audit(mgr, o, "attach", id, NULL, false, 0, r->reason);
                return q;
        }
        s->att = a;                     /* for manager_apply_setting(); not in the list yet */
        q = manager_setting_of(s, &set);
        if (q >= 0)
                q = manager_apply_setting(mgr, s, &set);
        if (q < 0)
                q = manager_fail(r, q == -EBUSY ? RTF_SCHEDULE_FAIL : q, "the kernel refused the setting: %s",
                                 strerror(-q));
        else if ((q = event_add(mgr->ev, &a->source, a->thread.pidfd, EPOLLIN, thread_exited)) < 0) {
                mgr->kops->thread_demote(mgr->kdata, &a->thread);
                q = manager_fail(r, q, "cannot watch thread %d", (int)tid);
        }
        if (q != 0) {
                if (mgr->kops->thread_unenforce)
                        mgr->kops->thread_unenforce(mgr->kdata, s->id);   /* issue 10 */
                s->att = NULL;
                mgr->kops->thread_close(mgr->kdata, &a->thread);
                free(a);
                return q;
        }
        s->task.attached = 1;
        LIST_PREPEND(attached, mgr->attached, a);
        manager_update_hint(mgr, s);
        note_state(mgr, s, true);
        manager_audit(mgr, o, "attach", id, s->plugin->name, true, 0, NULL);
        log_debug("Thread %d attached to spec %" PRIu64, (int)tid, id);
        return manager_fill_result(r, s);
}

int manager_detach(struct manager *mgr, struct owner *o, uint64_t id, struct manager_result *r) {
        struct spec *s = NULL;
        int q;

        q = manager_lookup_owned(mgr, o, id, "detach", r, &s);
        if (q < 0)
                return q;
        if (!s->att)
                return manager_fail(r, -EINVAL, "specification %" PRIu64 " has no thread attached", id);
        manager_spec_unattach(mgr, s, true);
        manager_audit(mgr, o, "detach", id, s->plugin->name, true, 0, NULL);
        return manager_fill_result(r, s);
}

/* ---- watchdog ---- */

/*
 * Requirement 3 of section 4.1 holds while a thread stays attached, not only
 * when it was: a thread that changed owners since (it exec'd a setuid
 * program) loses what its former owner's specification gave it.
 */
static bool owners_still_match(struct manager *mgr, struct spec *s) {
        uid_t ruid, euid;
        int r;

        if (s->owner->uid == 0)
                return true;
        r = mgr->kops->thread_read_owners(mgr->kdata, &s->att->thread, &ruid, &euid);
        if (r == -ESRCH)
                return true;            /* its exit is handled by its pidfd */
        if (r >= 0 && ruid == s->owner->uid && euid == s->owner->uid)
                return true;
        if (r < 0)
                log_warning_errno(r, "Cannot read the owners of thread %d of spec %" PRIu64 ": %m; demoting it",
                                  (int)s->att->thread.tid, s->id);
        else
                log_notice("audit: uid %u pid %d: thread %d of spec %" PRIu64 " now belongs to uid %u/%u "
                           "(a setuid program?): demoted and detached",
                           (unsigned)s->owner->uid, (int)s->owner->pid, (int)s->att->thread.tid, s->id,
                           (unsigned)ruid, (unsigned)euid);
        manager_spec_unattach(mgr, s, true);
        return false;
}

void manager_watchdog(struct manager *mgr) {
        struct spec_thread *a, *next;

        manager_retry_lingering(mgr);
        LIST_FOREACH_SAFE(attached, a, next, mgr->attached) {
                struct spec *s = a->spec;
                struct dl_sample cur;
                struct rtf_sched_setting set;
                bool stuck;
                int r;

                /* Before Linux 6.9 a thread's exit does not make the pidfd
                 * (its process's) readable (thread-compat.h): found here. */
                if (!mgr->kops->thread_alive(mgr->kdata, &a->thread)) {
                        thread_exited(&a->source, 0);
                        continue;
                }
                if (!owners_still_match(mgr, s))
                        continue;
                /* Issue 10: a thread that left the CPU its plugin chose loses its policy. */
                if (mgr->kops->thread_placement_holds &&
                    mgr->kops->thread_placement_holds(mgr->kdata, &s->att->thread) == 0) {
                        log_notice("audit: uid %u pid %d: thread %d of spec %" PRIu64 " moved itself off CPU %d: "
                                   "demoted and detached", (unsigned)s->owner->uid, (int)s->owner->pid,
                                   (int)s->att->thread.tid, s->id, s->att->thread.applied.cpu);
                        manager_spec_unattach(mgr, s, true);
                        continue;
                }
                if (!s->att->thread.promoted || s->att->thread.applied.policy != RTF_POLICY_DEADLINE)
                        continue;
                r = mgr->kops->thread_read_dl_state(mgr->kdata, &s->att->thread, &cur.runtime_ns, &cur.deadline_ns);
                if (r < 0)
                        continue;
                cur.now_ns = now_monotonic_ns();
                stuck = dl_state_is_stuck(s->att->have_sample ? &s->att->last_sample : NULL, &cur,
                                          s->att->thread.applied.period_ns, s->att->thread.applied.deadline_ns);
                if (mgr->inject_stuck_id == s->id) {
                        stuck = true;
                        mgr->inject_stuck_id = 0;
                }
                s->att->last_sample = cur;
                s->att->have_sample = true;
                if (!stuck)
                        continue;
                log_warning("Thread %d of spec %" PRIu64 " is left throttled by the kernel (runtime %" PRId64
                            " ns, deadline %+.3f s ahead, unchanged): resetting its reservation",
                            (int)s->att->thread.tid, s->id, cur.runtime_ns,
                            (double)(cur.deadline_ns - cur.now_ns) / 1e9);
                /* Leaving SCHED_DEADLINE discards the kernel's broken CBS
                 * state; coming back starts a fresh one. */
                r = mgr->kops->thread_demote(mgr->kdata, &s->att->thread);
                if (r >= 0)
                        r = manager_setting_of(s, &set);
                if (r >= 0)
                        r = manager_apply_setting(mgr, s, &set);
                s->att->have_sample = false;
                if (r < 0) {
                        log_warning_errno(r, "Failed to restore thread %d of spec %" PRIu64 ": %m; left demoted",
                                          (int)s->att->thread.tid, s->id);
                        manager_spec_unattach(mgr, s, true);
                        continue;
                }
                mgr->stuck_recoveries++;
                log_notice("Thread %d of spec %" PRIu64 " runs again with a fresh reservation (recovery #%" PRIu64 ")",
                           (int)s->att->thread.tid, s->id, mgr->stuck_recoveries);
        }
}
