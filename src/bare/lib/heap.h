/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtf-bare's heap (task stacks, mailbox buffers): first fit over one arena
 * the caller owns, 16-byte blocks, neighbours merged on free.  Like the
 * paper's slob: small, for a system that allocates at start and rarely after.
 * It counts what a footprint report needs: bytes in use and their high-water
 * mark.  Pure, so it is unit-tested on the host.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct heap {
        uint8_t *base;
        size_t size;
        size_t used;                    /* bytes in allocated blocks, headers included */
        size_t high_water;              /* the most `used` has been */
        uint32_t allocations, failures;
};

int heap_init(struct heap *h, void *mem, size_t size);
void *heap_alloc(struct heap *h, size_t size);
/* NULL is ignored; a pointer the heap did not hand out returns -EINVAL. */
int heap_free(struct heap *h, void *p);
