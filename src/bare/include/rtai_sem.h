/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Counting semaphores (RTAI's rt_sem_*): waiters queue by priority, FIFO
 * among equals.  rt_sem_wait returns the count left after taking (>= 0),
 * RTE_OBJREM when the semaphore was deleted under it, RTE_TIMOUT when a timed
 * wait expired; rt_sem_signal returns the count after signalling (a waiter
 * taking it leaves it unchanged).
 */
#pragma once

#include "rtai_sched.h"

typedef struct rt_semaphore {
        uint32_t magic;
        int count;
        struct pq_node waiters;
} SEM;

int rt_sem_init(SEM *sem, int value);
int rt_sem_delete(SEM *sem);
int rt_sem_signal(SEM *sem);
int rt_sem_wait(SEM *sem);
int rt_sem_wait_if(SEM *sem);           /* never blocks: the count, or -EAGAIN */
int rt_sem_wait_timed(SEM *sem, RTIME delay);
