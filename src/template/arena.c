/* arena.c - the folder's per-tag arena (t->fd.ar, fold.h): the bytes of
 * the values a tag builds, emptied at every tag (fd_tag_begin) and grown
 * here, doubling up to TPL_ARENA_CAP. A leaf: the folder (fold.c and its
 * operations) and the access chains (chain.c) put bytes in it through
 * fd_ar_reserve / fd_ar_put (tpl.h). tpl_grow_bytes is the doubling every
 * capped byte buffer of the analyser shares (the arena, the lexer's literal). */
#include "template/tpl.h"
#include "common/alloc.h"

#include <stdlib.h>

bool tpl_grow_bytes(tpl *t, uint8_t **buf, uint32_t *cap, uint32_t need, uint32_t max)
{
    if (need <= *cap)
        return true;
    uint32_t nc = *cap ? *cap : 1024;
    while (nc < need)
        nc *= 2;
    if (nc > max)
        nc = max;
    uint8_t *p = gl_realloc(*buf, nc);
    if (!p) {
        t->nomem = true;
        return false;
    }
    *buf = p;
    *cap = nc;
    return true;
}

bool fd_ar_grow(tpl *t, uint32_t n)
{
    return n <= TPL_ARENA_CAP - t->fd.ar_len &&
           tpl_grow_bytes(t, &t->fd.ar, &t->fd.ar_cap, t->fd.ar_len + n, TPL_ARENA_CAP);
}
