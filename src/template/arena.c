/* arena.c - the folder's per-tag arena (t->fd.ar, fold.h): the bytes of
 * the values a tag builds, emptied at every tag (fd_tag_begin) and grown
 * here, doubling up to TPL_ARENA_CAP. A leaf: the folder (fold.c and its
 * operations) and the access chains (chain.c) put bytes in it through
 * fd_ar_reserve / fd_ar_put (tpl.h). */
#include "template/tpl.h"
#include "common/alloc.h"

#include <stdlib.h>

bool fd_ar_grow(tpl *t, uint32_t n)
{
    if (n > TPL_ARENA_CAP - t->fd.ar_len)
        return false;
    uint32_t need = t->fd.ar_len + n;
    if (need <= t->fd.ar_cap)
        return true;
    uint32_t nc = t->fd.ar_cap ? t->fd.ar_cap : 1024;
    while (nc < need)
        nc *= 2;
    if (nc > TPL_ARENA_CAP)
        nc = TPL_ARENA_CAP;
    uint8_t *p = gl_realloc(t->fd.ar, nc);
    if (!p) {
        t->nomem = true;
        return false;
    }
    t->fd.ar = p;
    t->fd.ar_cap = nc;
    return true;
}
