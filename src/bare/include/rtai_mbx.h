/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Mailboxes (RTAI's rt_mbx_*): a byte ring of fixed size on the heap.  Send
 * and receive block until the whole message went through (in pieces if it is
 * larger than the free room) and return the bytes NOT transferred: 0 on
 * success, as in RTAI.  The _if variants never block and move a message only
 * whole.
 */
#pragma once

#include "rtai_sched.h"

typedef struct rt_mailbox {
        uint32_t magic;
        uint8_t *buf;
        uint32_t size, head, count;
        struct pq_node senders, receivers;
} MBX;

int rt_mbx_init(MBX *mbx, int size);
int rt_mbx_delete(MBX *mbx);
int rt_mbx_send(MBX *mbx, const void *msg, int size);
int rt_mbx_receive(MBX *mbx, void *msg, int size);
int rt_mbx_send_if(MBX *mbx, const void *msg, int size);
int rt_mbx_receive_if(MBX *mbx, void *msg, int size);
