/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Counting semaphores and mailboxes: enough for tasks to talk (rtai_sem.h, rtai_mbx.h). */
#include <errno.h>
#include <string.h>

#include "kernel.h"
#include "rtai_mbx.h"
#include "rtai_sem.h"

#define SEM_MAGIC 0x53656d61u           /* "Sema" */
#define MBX_MAGIC 0x4d627821u           /* "Mbx!" */

static int64_t timeout_of(struct kernel *k, RTIME delay) {
        return kernel_now_ns(k) + count2nano(delay > 0 ? delay : 0);
}

int rt_sem_init(SEM *sem, int value) {
        if (!sem || value < 0)
                return -EINVAL;
        *sem = (SEM) { .magic = SEM_MAGIC, .count = value };
        pq_init(&sem->waiters);
        return 0;
}

int rt_sem_delete(SEM *sem) {
        struct kernel *k = kernel_get();
        struct pq_node *n;
        uint32_t flags;

        if (!sem || sem->magic != SEM_MAGIC)
                return -EINVAL;
        flags = irq_save();
        while ((n = pq_first(&sem->waiters)))
                kernel_wake(k, pq_entry(n, RT_TASK, link), TASK_SEMAPHORE, RTE_OBJREM);
        sem->magic = 0;
        kernel_resched(k);
        irq_restore(flags);
        return 0;
}

int rt_sem_signal(SEM *sem) {
        struct kernel *k = kernel_get();
        struct pq_node *n;
        uint32_t flags;
        int r;

        if (!sem || sem->magic != SEM_MAGIC)
                return -EINVAL;
        flags = irq_save();
        if ((n = pq_first(&sem->waiters)))
                kernel_wake(k, pq_entry(n, RT_TASK, link), TASK_SEMAPHORE, 0);
        else if (sem->count < INT32_MAX)
                sem->count++;
        r = sem->count;
        kernel_resched(k);
        irq_restore(flags);
        return r;
}

static int sem_take(SEM *sem, bool block, int64_t timeout_ns) {
        struct kernel *k = kernel_get();
        uint32_t flags;
        int r;

        if (!sem || sem->magic != SEM_MAGIC)
                return -EINVAL;
        flags = irq_save();
        if (sem->count > 0) {
                r = --sem->count;
        } else if (!block) {
                r = -EAGAIN;
        } else {
                /* A signal hands the unit straight to the waiter: the count stays 0. */
                r = kernel_block(k, &sem->waiters, TASK_SEMAPHORE, timeout_ns);
        }
        irq_restore(flags);
        return r;
}

int rt_sem_wait(SEM *sem) {
        return sem_take(sem, true, INT64_MAX);
}

int rt_sem_wait_if(SEM *sem) {
        return sem_take(sem, false, INT64_MAX);
}

int rt_sem_wait_timed(SEM *sem, RTIME delay) {
        return sem_take(sem, true, timeout_of(kernel_get(), delay));
}

/* ---- mailboxes ----------------------------------------------------------- */

int rt_mbx_init(MBX *mbx, int size) {
        struct kernel *k = kernel_get();
        uint32_t flags;
        uint8_t *buf;

        if (!mbx || size <= 0 || size > (1 << 20))
                return -EINVAL;
        flags = irq_save();
        buf = heap_alloc(&k->heap, (size_t) size);
        irq_restore(flags);
        if (!buf)
                return -ENOMEM;
        *mbx = (MBX) { .magic = MBX_MAGIC, .buf = buf, .size = (uint32_t) size };
        pq_init(&mbx->senders);
        pq_init(&mbx->receivers);
        return 0;
}

static void wake_all(struct kernel *k, struct pq_node *q, int result) {
        struct pq_node *n;

        while ((n = pq_first(q)))
                kernel_wake(k, pq_entry(n, RT_TASK, link), TASK_MBX, result);
}

int rt_mbx_delete(MBX *mbx) {
        struct kernel *k = kernel_get();
        uint32_t flags;

        if (!mbx || mbx->magic != MBX_MAGIC)
                return -EINVAL;
        flags = irq_save();
        wake_all(k, &mbx->senders, RTE_OBJREM);
        wake_all(k, &mbx->receivers, RTE_OBJREM);
        mbx->magic = 0;
        heap_free(&k->heap, mbx->buf);
        kernel_resched(k);
        irq_restore(flags);
        return 0;
}

static uint32_t mbx_put(MBX *m, const uint8_t *src, uint32_t n) {
        uint32_t room = m->size - m->count, done;

        if (n > room)
                n = room;
        for (done = 0; done < n; done++)
                m->buf[(m->head + m->count + done) % m->size] = src[done];
        m->count += n;
        return n;
}

static uint32_t mbx_get(MBX *m, uint8_t *dst, uint32_t n) {
        uint32_t done;

        if (n > m->count)
                n = m->count;
        for (done = 0; done < n; done++)
                dst[done] = m->buf[(m->head + done) % m->size];
        m->head = (m->head + n) % m->size;
        m->count -= n;
        return n;
}

/* Send (or receive) in pieces, blocking while the ring is full (or empty). */
static int mbx_transfer(MBX *mbx, uint8_t *buf, int size, bool send, bool block) {
        struct kernel *k = kernel_get();
        uint32_t flags, left;

        if (!mbx || mbx->magic != MBX_MAGIC || size < 0 || (!buf && size > 0))
                return -EINVAL;
        left = (uint32_t) size;
        flags = irq_save();
        if (!block && (send ? mbx->size - mbx->count : mbx->count) < left) {
                irq_restore(flags);
                return size;            /* only whole messages without blocking */
        }
        while (left > 0) {
                uint32_t n = send ? mbx_put(mbx, buf, left) : mbx_get(mbx, buf, left);

                buf += n;
                left -= n;
                if (n > 0)
                        wake_all(k, send ? &mbx->receivers : &mbx->senders, 0);
                if (left == 0)
                        break;
                if (kernel_block(k, send ? &mbx->senders : &mbx->receivers, TASK_MBX, INT64_MAX) != 0)
                        break;          /* deleted */
        }
        kernel_resched(k);
        irq_restore(flags);
        return (int) left;
}

int rt_mbx_send(MBX *mbx, const void *msg, int size) {
        return mbx_transfer(mbx, (uint8_t *) (uintptr_t) msg, size, true, true);
}

int rt_mbx_receive(MBX *mbx, void *msg, int size) {
        return mbx_transfer(mbx, msg, size, false, true);
}

int rt_mbx_send_if(MBX *mbx, const void *msg, int size) {
        return mbx_transfer(mbx, (uint8_t *) (uintptr_t) msg, size, true, false);
}

int rt_mbx_receive_if(MBX *mbx, void *msg, int size) {
        return mbx_transfer(mbx, msg, size, false, false);
}
