/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>

#include "heap.h"

#define ALIGN 16u
#define MAGIC_USED 0x55534544u          /* "USED" */
#define MAGIC_FREE 0x46524545u          /* "FREE" */

/* Every block starts with this header; blocks tile the arena. */
struct block {
        uint32_t magic;
        uint32_t size;                  /* the whole block, header included, multiple of ALIGN */
        uint32_t prev_size;             /* size of the block before, 0 for the first */
        uint32_t pad;
};

_Static_assert(sizeof(struct block) == ALIGN, "header keeps payloads aligned");

static struct block *block_next(const struct heap *h, struct block *b) {
        uint8_t *n = (uint8_t *) b + b->size;

        return n < h->base + h->size ? (struct block *) n : NULL;
}

int heap_init(struct heap *h, void *mem, size_t size) {
        uintptr_t start = ((uintptr_t) mem + ALIGN - 1) & ~(uintptr_t) (ALIGN - 1);
        size_t lost = start - (uintptr_t) mem;
        struct block *b;

        if (!mem || size < lost + 2 * ALIGN || size - lost > UINT32_MAX)
                return -EINVAL;
        size = (size - lost) & ~(size_t) (ALIGN - 1);
        *h = (struct heap) { .base = (uint8_t *) start, .size = size };
        b = (struct block *) h->base;
        *b = (struct block) { .magic = MAGIC_FREE, .size = (uint32_t) size };
        return 0;
}

void *heap_alloc(struct heap *h, size_t size) {
        size_t need;

        if (size == 0 || size > h->size) {
                h->failures++;
                return NULL;
        }
        need = (size + sizeof(struct block) + ALIGN - 1) & ~(size_t) (ALIGN - 1);
        for (struct block *b = (struct block *) h->base; b; b = block_next(h, b)) {
                if (b->magic != MAGIC_FREE || b->size < need)
                        continue;
                if (b->size - need >= 2 * ALIGN) {
                        struct block *rest = (struct block *) ((uint8_t *) b + need), *after;

                        *rest = (struct block) { .magic = MAGIC_FREE, .size = (uint32_t) (b->size - need),
                                                 .prev_size = (uint32_t) need };
                        after = block_next(h, rest);
                        if (after)
                                after->prev_size = rest->size;
                        b->size = (uint32_t) need;
                }
                b->magic = MAGIC_USED;
                h->used += b->size;
                if (h->used > h->high_water)
                        h->high_water = h->used;
                h->allocations++;
                return b + 1;
        }
        h->failures++;
        return NULL;
}

int heap_free(struct heap *h, void *p) {
        struct block *b, *n;

        if (!p)
                return 0;
        b = (struct block *) p - 1;
        if ((uint8_t *) b < h->base || (uint8_t *) b >= h->base + h->size ||
            ((uintptr_t) b & (ALIGN - 1)) || b->magic != MAGIC_USED)
                return -EINVAL;
        h->used -= b->size;
        b->magic = MAGIC_FREE;
        n = block_next(h, b);
        if (n && n->magic == MAGIC_FREE) {
                b->size += n->size;
                n->magic = 0;
        }
        if (b->prev_size) {
                struct block *prev = (struct block *) ((uint8_t *) b - b->prev_size);

                if (prev->magic == MAGIC_FREE) {
                        prev->size += b->size;
                        b->magic = 0;
                        b = prev;
                }
        }
        n = block_next(h, b);
        if (n)
                n->prev_size = b->size;
        return 0;
}
