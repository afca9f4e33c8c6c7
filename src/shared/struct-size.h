/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Public structs that carry their own size can grow (libbpf's OPTS_VALID /
 * OPTS_HAS): a caller built against a newer header passes a larger struct,
 * which is accepted if everything beyond what this library knows is zero (it
 * asks for nothing we do not know); one built against an older header passes
 * a smaller one, whose missing members count as 0.  `min` is the size of the
 * first version (today every struct is at its first version, so min is its
 * size); a member added later is read only if RTF_STRUCT_HAS() says the
 * caller's struct reaches it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RTF_STRUCT_HAS(p, member) \
        ((size_t)(p)->size >= offsetof(__typeof__(*(p)), member) + sizeof((p)->member))

static inline bool rtf_struct_size_ok(const void *p, size_t size, size_t min, size_t known) {
        if (size < min)
                return false;
        for (size_t i = known; i < size; i++)
                if (((const uint8_t *)p)[i] != 0)
                        return false;
        return true;
}

/* For a struct `p` of type T with a `size` member, at its first version. */
#define RTF_STRUCT_VALID(p) \
        ((p) && rtf_struct_size_ok((p), (p)->size, sizeof(*(p)), sizeof(*(p))))
