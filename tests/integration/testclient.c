/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A scriptable librtf client for the integration tests: one live connection
 * to rtfd that Python drives through a pipe.  Reads one command per line on
 * stdin and writes exactly one JSON object per command on stdout, flushed,
 * so that the caller can read the answer before sending the next command.
 *
 *   connect | disconnect | pid | quit
 *   create NAME [period=US] [runtime=US] [des_runtime=US] [deadline=US]
 *               [priority=N] [plugin=NAME] [ignore=1]
 *   change NAME key=value...          (same keys; a new parameter set)
 *   release NAME | detach NAME | info NAME
 *   attach NAME self|TID|thread:TNAME
 *   thread TNAME                      a thread that blocks until `exit TNAME`
 *   spin TNAME                        a thread that burns CPU until `exit TNAME`
 *   exit TNAME                        the thread returns and is joined
 *   overruns                          SIGXCPU signals received so far
 *   periodic NAME periods=N job_us=US [stop=1]
 *                                     run N periods of NAME's periodic task in
 *                                     this (main) thread, each job burning US
 *                                     of CPU time; starts the task if needed,
 *                                     stops it after (final report) with stop=1;
 *                                     answers with rtf_task_stats()
 *
 * rtfd gives SCHED_DEADLINE threads SCHED_FLAG_DL_OVERRUN: an overrun sends
 * SIGXCPU, whose default action would kill the client; it is counted here.
 *
 * Spec names and thread names are the caller's; the answer to a request
 * carries the librtf result, its text and rtfd's reason.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rtf/rtf.h>

#define MAX_SPECS 256
#define MAX_THREADS 256
#define NAME_MAX_LEN 64
#define LINE_MAX_LEN 4096

struct named_spec {
        char name[NAME_MAX_LEN];
        struct rtf_spec spec;
};

struct named_thread {
        char name[NAME_MAX_LEN];
        pthread_t handle;
        pid_t tid;
        bool spin;
        atomic_bool stop;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        sem_t started;
};

static atomic_uint sigxcpu_count;
static struct named_spec specs[MAX_SPECS];
static unsigned n_specs;
static struct named_thread *threads[MAX_THREADS];

static void reply(json_object *o) {
        printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        fflush(stdout);
        json_object_put(o);
}

static void reply_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void reply_error(const char *fmt, ...) {
        json_object *o = json_object_new_object();
        char msg[512];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        json_object_object_add(o, "error", json_object_new_string(msg));
        reply(o);
}

static json_object *result_object(int r) {
        json_object *o = json_object_new_object();

        json_object_object_add(o, "result", json_object_new_int(r));
        json_object_object_add(o, "strerror", json_object_new_string(rtf_strerror(r)));
        json_object_object_add(o, "reason", json_object_new_string(rtf_last_reason()));
        return o;
}

static void add_spec_fields(json_object *o, const struct rtf_spec *s) {
        json_object_object_add(o, "id", json_object_new_uint64(s->id));
        json_object_object_add(o, "plugin", json_object_new_string(s->plugin));
        json_object_object_add(o, "cpu", json_object_new_int(s->core));
        json_object_object_add(o, "priority", json_object_new_int64(s->priority));
        json_object_object_add(o, "accepted_runtime_us", json_object_new_uint64(s->accepted_runtime_us));
        json_object_object_add(o, "tid", json_object_new_int(s->tid));
}

static struct named_spec *spec_lookup(const char *name, bool create) {
        for (unsigned i = 0; i < n_specs; i++)
                if (strcmp(specs[i].name, name) == 0)
                        return &specs[i];
        if (!create || n_specs >= MAX_SPECS || strlen(name) >= NAME_MAX_LEN)
                return NULL;
        snprintf(specs[n_specs].name, NAME_MAX_LEN, "%s", name);
        specs[n_specs].spec = (struct rtf_spec)RTF_SPEC_INIT;
        return &specs[n_specs++];
}

static struct named_thread **thread_slot(const char *name, bool free_slot) {
        struct named_thread **empty = NULL;

        for (unsigned i = 0; i < MAX_THREADS; i++) {
                if (threads[i] && strcmp(threads[i]->name, name) == 0)
                        return &threads[i];
                if (!threads[i] && !empty)
                        empty = &threads[i];
        }
        return free_slot ? empty : NULL;
}

static int parse_u64(const char *s, uint64_t *ret) {
        char *end;
        unsigned long long v;

        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno || end == s || *end || s[0] == '-')
                return -EINVAL;
        *ret = v;
        return 0;
}

/* Fill *p from "key=value" words; on error names the bad word. */
static int parse_params(char **words, int n, struct rtf_params *p, const char **ret_bad) {
        rtf_params_init(p);
        for (int i = 0; i < n; i++) {
                char *eq = strchr(words[i], '=');
                const char *key = words[i], *value;
                uint64_t v = 0;
                int r;

                *ret_bad = words[i];
                if (!eq)
                        return -EINVAL;
                *eq = 0;
                value = eq + 1;
                if (strcmp(key, "plugin") == 0) {
                        r = rtf_params_set_scheduler(p, value);
                } else {
                        if (parse_u64(value, &v) < 0) {
                                *eq = '=';
                                return -EINVAL;
                        }
                        if (strcmp(key, "period") == 0)
                                r = rtf_params_set_period(p, v);
                        else if (strcmp(key, "runtime") == 0)
                                r = rtf_params_set_runtime(p, v);
                        else if (strcmp(key, "des_runtime") == 0)
                                r = rtf_params_set_des_runtime(p, v);
                        else if (strcmp(key, "deadline") == 0)
                                r = rtf_params_set_deadline(p, v);
                        else if (strcmp(key, "priority") == 0)
                                r = v > UINT32_MAX ? -EINVAL : rtf_params_set_priority(p, (uint32_t)v);
                        else if (strcmp(key, "ignore") == 0)
                                r = rtf_params_ignore_admission(p, v != 0);
                        else if (strcmp(key, "overrun") == 0) {
                                /* ask for SIGXCPU on overruns; this client counts them */
                                if (v)
                                        p->flags |= RTF_PARAM_OVERRUN_SIGNAL;
                                else
                                        p->flags &= ~RTF_PARAM_OVERRUN_SIGNAL;
                                r = 0;
                        }
                        else
                                r = -EINVAL;
                }
                *eq = '=';
                if (r < 0)
                        return r;
        }
        return 0;
}

static void *thread_main(void *arg) {
        struct named_thread *t = arg;

        t->tid = gettid();
        sem_post(&t->started);
        if (t->spin) {
                while (!atomic_load_explicit(&t->stop, memory_order_relaxed))
                        ;
        } else {
                pthread_mutex_lock(&t->lock);
                while (!atomic_load(&t->stop))
                        pthread_cond_wait(&t->cond, &t->lock);
                pthread_mutex_unlock(&t->lock);
        }
        return NULL;
}

static void cmd_thread(const char *name, bool spin) {
        struct named_thread **slot = thread_slot(name, true);
        struct named_thread *t;
        json_object *o;
        int r;

        if (!slot || *slot || strlen(name) >= NAME_MAX_LEN) {
                reply_error("cannot start thread '%s' (exists, or too many)", name);
                return;
        }
        t = calloc(1, sizeof(*t));
        if (!t) {
                reply_error("out of memory");
                return;
        }
        snprintf(t->name, sizeof(t->name), "%s", name);
        t->spin = spin;
        atomic_init(&t->stop, false);
        pthread_mutex_init(&t->lock, NULL);
        pthread_cond_init(&t->cond, NULL);
        sem_init(&t->started, 0, 0);
        r = pthread_create(&t->handle, NULL, thread_main, t);
        if (r != 0) {
                free(t);
                reply_error("pthread_create failed: %s", strerror(r));
                return;
        }
        while (sem_wait(&t->started) < 0 && errno == EINTR)
                ;
        *slot = t;
        o = json_object_new_object();
        json_object_object_add(o, "thread", json_object_new_string(name));
        json_object_object_add(o, "tid", json_object_new_int(t->tid));
        reply(o);
}

static void cmd_exit(const char *name) {
        struct named_thread **slot = thread_slot(name, false);
        struct named_thread *t;
        json_object *o;

        if (!slot) {
                reply_error("no thread '%s'", name);
                return;
        }
        t = *slot;
        pthread_mutex_lock(&t->lock);
        atomic_store(&t->stop, true);
        pthread_cond_signal(&t->cond);
        pthread_mutex_unlock(&t->lock);
        pthread_join(t->handle, NULL);
        o = json_object_new_object();
        json_object_object_add(o, "thread", json_object_new_string(name));
        json_object_object_add(o, "tid", json_object_new_int(t->tid));
        json_object_object_add(o, "exited", json_object_new_boolean(true));
        pthread_mutex_destroy(&t->lock);
        pthread_cond_destroy(&t->cond);
        sem_destroy(&t->started);
        free(t);
        *slot = NULL;
        reply(o);
}

static int target_tid(const char *target, pid_t *ret) {
        uint64_t v;

        if (strcmp(target, "self") == 0) {
                *ret = 0;
                return 0;
        }
        if (strncmp(target, "thread:", 7) == 0) {
                struct named_thread **slot = thread_slot(target + 7, false);

                if (!slot)
                        return -ENOENT;
                *ret = (*slot)->tid;
                return 0;
        }
        if (parse_u64(target, &v) < 0 || v > INT32_MAX)
                return -EINVAL;
        *ret = (pid_t)v;
        return 0;
}

static void cmd_spec(const char *cmd, char **words, int n) {
        struct named_spec *ns;
        struct rtf_params p;
        const char *bad = NULL;
        json_object *o;
        pid_t tid = 0;
        int r;

        if (n < 1) {
                reply_error("%s: missing spec name", cmd);
                return;
        }
        ns = spec_lookup(words[0], strcmp(cmd, "create") == 0);
        if (!ns) {
                reply_error("unknown spec '%s'", words[0]);
                return;
        }

        if (strcmp(cmd, "create") == 0 || strcmp(cmd, "change") == 0) {
                r = parse_params(words + 1, n - 1, &p, &bad);
                if (r < 0) {
                        reply_error("bad parameter '%s'", bad);
                        return;
                }
                if (strcmp(cmd, "create") == 0)
                        r = rtf_spec_create(&ns->spec, &p);
                else
                        r = rtf_spec_change(&ns->spec, &p);
        } else if (strcmp(cmd, "release") == 0) {
                r = rtf_spec_release(&ns->spec);
        } else if (strcmp(cmd, "attach") == 0) {
                if (n != 2) {
                        reply_error("attach: need NAME TARGET");
                        return;
                }
                if (target_tid(words[1], &tid) < 0) {
                        reply_error("attach: bad target '%s'", words[1]);
                        return;
                }
                r = rtf_spec_attach(&ns->spec, tid);
        } else if (strcmp(cmd, "detach") == 0) {
                r = rtf_spec_detach(&ns->spec);
        } else { /* info */
                o = json_object_new_object();
                json_object_object_add(o, "name", json_object_new_string(ns->name));
                add_spec_fields(o, &ns->spec);
                reply(o);
                return;
        }
        o = result_object(r);
        add_spec_fields(o, &ns->spec);
        reply(o);
}

static uint64_t thread_cpu_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void cmd_periodic(char **words, int n) {
        uint64_t periods = 0, job_us = 0, stop = 0;
        struct rtf_task_stats st = { .size = sizeof(st) };
        struct named_spec *ns;
        json_object *o;
        int r = 0;

        if (n < 1 || !(ns = spec_lookup(words[0], false))) {
                reply_error("periodic: unknown spec '%s'", n < 1 ? "" : words[0]);
                return;
        }
        for (int i = 1; i < n; i++) {
                uint64_t *v = strncmp(words[i], "periods=", 8) == 0 ? &periods :
                              strncmp(words[i], "job_us=", 7) == 0 ? &job_us :
                              strncmp(words[i], "stop=", 5) == 0 ? &stop : NULL;

                if (!v || parse_u64(strchr(words[i], '=') + 1, v) < 0) {
                        reply_error("periodic: bad argument '%s'", words[i]);
                        return;
                }
        }
        if (!ns->spec.task)
                r = rtf_task_start(&ns->spec);
        for (uint64_t k = 0; r >= 0 && k < periods; k++) {
                uint64_t until = thread_cpu_ns() + job_us * 1000;

                while (thread_cpu_ns() < until)
                        ;
                r = rtf_task_wait_period(&ns->spec);
        }
        if (r >= 0)
                r = rtf_task_stats(&ns->spec, &st);
        if (r >= 0 && stop)
                r = rtf_task_stop(&ns->spec);
        o = result_object(r < 0 ? r : 0);
        json_object_object_add(o, "budget_mode", json_object_new_int64(st.budget_mode));
        json_object_object_add(o, "periods", json_object_new_uint64(st.periods));
        json_object_object_add(o, "overruns", json_object_new_uint64(st.overruns));
        json_object_object_add(o, "missed_releases", json_object_new_uint64(st.missed_releases));
        json_object_object_add(o, "budget_exhaustions", json_object_new_uint64(st.budget_exhaustions));
        json_object_object_add(o, "ignored_waits", json_object_new_uint64(st.ignored_waits));
        json_object_object_add(o, "max_response_ns", json_object_new_uint64(st.max_response_ns));
        json_object_object_add(o, "max_job_cpu_ns", json_object_new_uint64(st.max_job_cpu_ns));
        reply(o);
}

static void on_sigxcpu(int sig) {
        atomic_fetch_add(&sigxcpu_count, 1);
}

int main(void) {
        struct sigaction sa = { .sa_handler = on_sigxcpu, .sa_flags = SA_RESTART };
        char line[LINE_MAX_LEN];

        sigemptyset(&sa.sa_mask);
        sigaction(SIGXCPU, &sa, NULL);

        /* Python reads our answers through a pipe: never keep one back. */
        setvbuf(stdout, NULL, _IOLBF, 0);
        while (fgets(line, sizeof(line), stdin)) {
                char *words[64], *save = NULL, *w;
                int n = 0;

                for (w = strtok_r(line, " \t\r\n", &save); w && n < 64; w = strtok_r(NULL, " \t\r\n", &save))
                        words[n++] = w;
                if (n == 0)
                        continue;
                if (strcmp(words[0], "connect") == 0) {
                        reply(result_object(rtf_connect()));
                } else if (strcmp(words[0], "disconnect") == 0) {
                        reply(result_object(rtf_disconnect()));
                } else if (strcmp(words[0], "pid") == 0) {
                        json_object *o = json_object_new_object();

                        json_object_object_add(o, "pid", json_object_new_int(getpid()));
                        json_object_object_add(o, "tid", json_object_new_int(gettid()));
                        reply(o);
                } else if (strcmp(words[0], "overruns") == 0) {
                        json_object *o = json_object_new_object();

                        json_object_object_add(o, "sigxcpu", json_object_new_int64(atomic_load(&sigxcpu_count)));
                        reply(o);
                } else if (strcmp(words[0], "quit") == 0) {
                        json_object *o = json_object_new_object();

                        json_object_object_add(o, "bye", json_object_new_boolean(true));
                        reply(o);
                        /* Threads still blocked die with the process. */
                        _exit(0);
                } else if (strcmp(words[0], "thread") == 0 || strcmp(words[0], "spin") == 0) {
                        if (n != 2)
                                reply_error("%s: need a thread name", words[0]);
                        else
                                cmd_thread(words[1], strcmp(words[0], "spin") == 0);
                } else if (strcmp(words[0], "exit") == 0) {
                        if (n != 2)
                                reply_error("exit: need a thread name");
                        else
                                cmd_exit(words[1]);
                } else if (strcmp(words[0], "periodic") == 0) {
                        cmd_periodic(words + 1, n - 1);
                } else if (strcmp(words[0], "create") == 0 || strcmp(words[0], "change") == 0 ||
                           strcmp(words[0], "release") == 0 || strcmp(words[0], "attach") == 0 ||
                           strcmp(words[0], "detach") == 0 || strcmp(words[0], "info") == 0) {
                        cmd_spec(words[0], words + 1, n - 1);
                } else {
                        reply_error("unknown command '%s'", words[0]);
                }
        }
        return 0;
}
