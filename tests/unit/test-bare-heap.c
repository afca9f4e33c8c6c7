/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rtf-bare's heap (src/bare/lib/heap.c): first fit, merging, the high-water mark. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "lib/heap.h"
#include "tap.h"

int main(void) {
        static uint8_t arena[4096 + 8];
        struct heap h;
        void *a, *b, *c, *d;

        CHECK_EQ(heap_init(&h, NULL, 100), -EINVAL);
        CHECK_EQ(heap_init(&h, arena, 8), -EINVAL);
        CHECK_EQ(heap_init(&h, arena + 3, 4096), 0);     /* unaligned start: aligned inside */
        CHECK_EQ((uintptr_t) h.base % 16, 0);

        a = heap_alloc(&h, 100);
        b = heap_alloc(&h, 1000);
        c = heap_alloc(&h, 10);
        CHECK(a && b && c);
        CHECK_EQ((uintptr_t) a % 16, 0);
        CHECK_EQ((uintptr_t) b % 16, 0);
        CHECK((uint8_t *) b >= (uint8_t *) a + 100);
        memset(a, 1, 100);
        memset(b, 2, 1000);
        memset(c, 3, 10);
        CHECK_EQ(h.used, 128 + 1024 + 32);
        CHECK_EQ(h.high_water, h.used);

        CHECK_EQ(heap_free(&h, b), 0);
        CHECK_EQ(heap_free(&h, b), -EINVAL);             /* twice */
        CHECK_EQ(heap_free(&h, (uint8_t *) a + 16), -EINVAL);
        CHECK_EQ(heap_free(&h, NULL), 0);
        d = heap_alloc(&h, 500);                         /* first fit: b's place */
        CHECK(d == b);
        CHECK_EQ(h.high_water, 128 + 1024 + 32);

        /* Everything freed merges back into one block that fits the whole arena again. */
        CHECK_EQ(heap_free(&h, a), 0);
        CHECK_EQ(heap_free(&h, c), 0);
        CHECK_EQ(heap_free(&h, d), 0);
        CHECK_EQ(h.used, 0);
        a = heap_alloc(&h, h.size - 16);
        CHECK(a != NULL);
        CHECK(heap_alloc(&h, 1) == NULL);
        CHECK_EQ(h.failures, 1);
        CHECK(heap_alloc(&h, 0) == NULL);
        CHECK(heap_alloc(&h, SIZE_MAX) == NULL);
        return test_done();
}
