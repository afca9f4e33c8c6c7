/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Task specifications (Table 2 of the paper).  A spec is created fresh
 * (id == 0), holds a reservation of rtfd while id != 0, and is reset to
 * RTF_SPEC_INIT once rtfd no longer has it.  *s is written only when rtfd
 * said yes: rtfd applies a change atomically, so on any failure the spec
 * still describes what the kernel is doing.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "error.h"
#include "params.h"
#include "protocol.h"
#include "rtf/rtf.h"
#include "struct-size.h"
#include "util.h"

/* Each entry point starts with one of these: a local refusal never leaves an older reason behind. */
static bool spec_usable(const struct rtf_spec *s) {
        reason_clear();
        if (!s) {
                reason_set("no specification (NULL)");
                return false;
        }
        if (!RTF_STRUCT_VALID(s)) {
                reason_set("struct rtf_spec has size %u, this librtf knows %zu (initialise it with RTF_SPEC_INIT)",
                           s->size, sizeof(*s));
                return false;
        }
        return true;
}

static bool spec_created(const struct rtf_spec *s) {
        if (!spec_usable(s))
                return false;
        if (s->id == 0) {
                reason_set("the specification holds no reservation (create it with rtf_spec_create(); a "
                           "released one is empty)");
                return false;
        }
        return true;
}

/* A result as the API promises it: RTF_OK, a refusal, or a negative errno. */
static int reply_result(int32_t result) {
        switch (result) {
        case RTF_OK:
        case RTF_SCHEDULE_FAIL:
        case RTF_ACL_FAIL:
                return result;
        }
        if (result < 0 && result > -4096)
                return result;
        reason_set("rtfd answered with an unknown result %d", (int) result);
        return -EPROTO;
}

/* Send *msg, wait for its REPLY, and return the daemon's result. */
static int spec_call(struct rtf_msg *msg) {
        int r;

        r = client_request(msg, RTF_MSG_REPLY);
        if (r != 0)
                return r;
        if (msg->reply.reason[0]) {
                /* The decoder checked that it is terminated within its field. */
                reason_set("%s", msg->reply.reason);
        }
        return reply_result(msg->reply.result);
}

/* Take what rtfd granted; s and p stay untouched unless the reply makes sense. */
static int spec_accept(struct rtf_spec *s, const struct rtf_params *p, const struct rtf_msg_reply *reply) {
        if (reply->id == 0 || (s->id != 0 && reply->id != s->id)) {
                reason_set("rtfd answered for reservation %llu", (unsigned long long) reply->id);
                return -EPROTO;
        }

        s->id = reply->id;
        s->accepted_runtime_us = reply->accepted_runtime_us;
        s->priority = reply->priority;
        s->core = reply->cpu;
        memcpy(s->plugin, reply->plugin, sizeof(s->plugin));
        s->plugin[sizeof(s->plugin) - 1] = '\0';
        s->params = *p;
        /* A running periodic task follows a new period from its next release on. */
        if (s->period_ns != 0 && (p->flags & RTF_PARAM_HAS_PERIOD))
                s->period_ns = p->period_us * NSEC_PER_USEC;
        return RTF_OK;
}

RTF_PUBLIC rtf_result_t rtf_spec_create(struct rtf_spec *s, const struct rtf_params *p) {
        struct rtf_msg msg = { .header.type = RTF_MSG_CREATE };
        int r;

        if (!spec_usable(s) || params_validate(p) < 0)
                return -EINVAL;
        if (s->id != 0) {
                reason_set("the specification already holds reservation %llu (rtf_spec_change() changes it)",
                           (unsigned long long)s->id);
                return -EBUSY;
        }

        rtf_wire_params_from(&msg.create.params, p);
        r = spec_call(&msg);
        if (r != RTF_OK)
                return r;
        return spec_accept(s, p, &msg.reply);
}

RTF_PUBLIC rtf_result_t rtf_spec_change(struct rtf_spec *s, const struct rtf_params *p) {
        struct rtf_msg msg = { .header.type = RTF_MSG_CHANGE };
        int r;

        if (!spec_created(s) || params_validate(p) < 0)
                return -EINVAL;

        msg.change.id = s->id;
        rtf_wire_params_from(&msg.change.params, p);
        r = spec_call(&msg);
        if (r != RTF_OK)
                return r;
        return spec_accept(s, p, &msg.reply);
}

RTF_PUBLIC rtf_result_t rtf_spec_release(struct rtf_spec *s) {
        struct rtf_msg msg = { .header.type = RTF_MSG_RELEASE };
        int r;

        if (!spec_created(s))
                return -EINVAL;

        msg.id.id = s->id;
        r = spec_call(&msg);
        /* -ENOENT: rtfd no longer has it either, so the spec is free again. */
        if (r == RTF_OK || r == -ENOENT) {
                s->id = 0;      /* gone from rtfd: the task's last report has nowhere to go */
                rtf_task_stop(s);
                *s = (struct rtf_spec) RTF_SPEC_INIT;
        }
        return r;
}

RTF_PUBLIC rtf_result_t rtf_spec_attach(struct rtf_spec *s, pid_t tid) {
        struct rtf_msg msg = { .header.type = RTF_MSG_ATTACH };
        int r;

        if (!spec_created(s))
                return -EINVAL;
        if (tid < 0) {
                reason_set("thread id %d is not valid", (int)tid);
                return -EINVAL;
        }
        if (tid == 0)
                tid = gettid();

        msg.attach.id = s->id;
        msg.attach.tid = tid;
        r = spec_call(&msg);
        if (r == RTF_OK)
                s->tid = tid;
        return r;
}

RTF_PUBLIC rtf_result_t rtf_spec_detach(struct rtf_spec *s) {
        struct rtf_msg msg = { .header.type = RTF_MSG_DETACH };
        int r;

        if (!spec_created(s))
                return -EINVAL;

        msg.id.id = s->id;
        r = spec_call(&msg);
        if (r == RTF_OK)
                s->tid = 0;
        return r;
}

RTF_PUBLIC int64_t rtf_spec_get_accepted_runtime(const struct rtf_spec *s) {
        /* A getter: leaves rtf_last_reason() alone. */
        if (!s || s->size != sizeof(*s) || s->id == 0)
                return -EINVAL;
        return (int64_t) s->accepted_runtime_us;
}
