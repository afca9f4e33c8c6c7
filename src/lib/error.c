/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Texts for results.  Everything here is per thread: rtf_strerror() formats
 * unknown codes into a thread-local buffer and rtf_last_reason() returns the
 * reason kept for the calling thread, so no caller sees another's text.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "rtf/rtf.h"

/* Long enough for a socket path (108) and an errno text, or rtfd's reason
 * (RTF_REASON_MAX) and the RTAI layer's advice after it. */
#define REASON_MAX 512

static _Thread_local char last_reason[REASON_MAX];
static _Thread_local char strerror_buf[64];

void reason_clear(void) {
        last_reason[0] = '\0';
}

void reason_set(const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(last_reason, sizeof(last_reason), fmt, ap);
        va_end(ap);
}

RTF_PUBLIC const char *rtf_last_reason(void) {
        return last_reason;
}

RTF_PUBLIC const char *rtf_strerror(int result) {
        const char *text = NULL;

        switch (result) {
        case RTF_OK:
                return "Success";
        case RTF_SCHEDULE_FAIL:
                return "No scheduling plugin can admit the request";
        case RTF_ACL_FAIL:
                return "The access-control policy refuses the request";
        case RTF_CONNECTION_ERR:
                return "Cannot communicate with the rtf daemon";
        }

        /* -INT_MIN does not exist; everything else negative is an errno. */
        if (result < 0 && result != INT_MIN)
                text = strerrordesc_np(-result);
        if (text)
                return text;

        snprintf(strerror_buf, sizeof(strerror_buf), "Unknown result %d", result);
        return strerror_buf;
}

int result_to_errno(int result, int refused_errno) {
        switch (result) {
        case RTF_OK:
                return 0;
        case RTF_SCHEDULE_FAIL:
                return -EBUSY;
        case RTF_ACL_FAIL:
                return refused_errno;
        case RTF_CONNECTION_ERR:
                return -ENOTCONN;
        }
        return result < 0 ? result : -EPROTO;
}
