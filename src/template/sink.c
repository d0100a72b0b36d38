/* sink.c - the leaf every part of the template analyser reports to: the
 * hit table (one hit kept per kind, with a count of the others; its
 * messages escaped and placed by line and column) and the line and column
 * of a template byte (a ring of the last TPL_NL_RING newlines, each byte
 * scanned once as it is fed). It calls no other file of src/template/:
 * the parts call it, core.c drives them (tests/check_layers.py orders the
 * files). */
#include "template/tpl.h"

#include "common/escape.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- lines */

/* The open blocks waiting for their line and column whose tags lie before
 * `limit`: the newlines before them are all counted, the last at `last`
 * (UINT64_MAX: none yet). */
static void lc_pending(tpl *t, uint64_t limit, uint64_t last)
{
    tpl_eval *e = &t->ev;
    while (e->lc_next < e->n_blocks && e->blocks[e->lc_next].index < limit) {
        block *b = &e->blocks[e->lc_next++];
        b->line = 1 + t->nl_count;
        b->col = last == UINT64_MAX ? b->index + 1 : b->index - last;
        b->lc_known = true;
    }
}

/* Record the newlines of the bytes before `upto` (within the chunk being
 * fed) in the ring; each byte is scanned once. The open blocks whose tags
 * the scan passes are placed on the way (lc_pending). */
static void nl_advance(tpl *t, uint64_t upto)
{
    if (!t->chunk_p || t->nl_scan < t->chunk_index)
        return; /* a byte of an earlier chunk was never scanned: cannot happen */
    uint64_t end = t->chunk_index + t->chunk_n;
    if (upto > end)
        upto = end;
    while (t->nl_scan < upto) {
        const uint8_t *from = t->chunk_p + (t->nl_scan - t->chunk_index);
        const uint8_t *nl = memchr(from, '\n', (size_t)(upto - t->nl_scan));
        uint64_t at = nl ? t->chunk_index + (uint64_t)(nl - t->chunk_p) : upto;
        if (t->ev.lc_next < t->ev.n_blocks)
            lc_pending(t, at,
                       t->nl_count ? t->nl_ring[(t->nl_count - 1) & (TPL_NL_RING - 1)]
                                   : UINT64_MAX);
        if (!nl) {
            t->nl_scan = upto;
            break;
        }
        t->nl_ring[t->nl_count & (TPL_NL_RING - 1)] = at;
        t->nl_count++;
        t->nl_scan = at + 1;
    }
}

void tpl_lc_settle(tpl *t, uint64_t index)
{
    if (index > t->nl_scan)
        nl_advance(t, index);
}

bool tpl_line_col(tpl *t, uint64_t index, uint64_t *line, uint64_t *col)
{
    if (index == UINT64_MAX)
        return false;
    if (index > t->nl_scan)
        nl_advance(t, index);
    if (index > t->nl_scan)
        return false;
    /* the ring holds the last `have` newlines in increasing order: count
     * those at or after `index` (binary search) */
    uint64_t have = t->nl_count < TPL_NL_RING ? t->nl_count : TPL_NL_RING;
    uint64_t first = t->nl_count - have; /* newline number of the oldest kept */
    uint64_t lo = 0, hi = have;          /* first kept entry >= index */
    /* most questions are about the last lines read: look there first */
    while (hi > 0 && have - hi < 8 && t->nl_ring[(first + hi - 1) & (TPL_NL_RING - 1)] >= index)
        hi--;
    if (have - hi < 8 || hi == 0)
        lo = hi;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (t->nl_ring[(first + mid) & (TPL_NL_RING - 1)] < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 && first > 0)
        return false; /* the newline before it is no longer kept */
    *line = 1 + first + lo;
    *col = lo == 0 ? index + 1 : index - t->nl_ring[(first + lo - 1) & (TPL_NL_RING - 1)];
    return true;
}

const char *tpl_where_lc(char *buf, size_t cap, uint64_t line, uint64_t col)
{
    snprintf(buf, cap, " (template line %llu, column %llu)", (unsigned long long)line,
             (unsigned long long)col);
    return buf;
}

const char *tpl_where(tpl *t, uint64_t index, char *buf, size_t cap)
{
    uint64_t line, col;
    if (cap == 0)
        return buf;
    buf[0] = '\0';
    if (tpl_line_col(t, index, &line, &col))
        tpl_where_lc(buf, cap, line, col);
    return buf;
}

/* ------------------------------------------------------------------ hits */

/* The hit's message, with " (template line L, column C)" for index
 * (none for UINT64_MAX); loc places the finding (check_template). */
static void hit_write(tpl *t, tpl_hit *h, uint64_t index, uint64_t loc, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
static void hit_write(tpl *t, tpl_hit *h, uint64_t index, uint64_t loc, const char *fmt, va_list ap)
{
    h->index = index;
    h->loc = loc;
    int n = vsnprintf(h->msg, sizeof h->msg, fmt, ap);
    char where[64];
    if (n >= 0 && (size_t)n < sizeof h->msg)
        snprintf(h->msg + n, sizeof h->msg - (size_t)n, "%s",
                 tpl_where(t, index, where, sizeof where));
}

/* Whether this hit of `kind` (at index) is the one to write: the first of
 * its kind, or with `earliest` one before the hit kept. Every other is
 * counted. */
static bool hit_keep(tpl *t, int kind, uint64_t index, bool earliest)
{
    tpl_hit *h = &t->hits[kind];
    if (h->have) {
        h->more++;
        return earliest && index < h->index;
    }
    h->have = true;
    t->hit_mask |= 1u << kind;
    h->more = 0;
    return true;
}

void tpl_report(tpl *t, int kind, uint64_t index, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (hit_keep(t, kind, index, false))
        hit_write(t, &t->hits[kind], index, index, fmt, ap);
    va_end(ap);
}

void tpl_report_loc(tpl *t, int kind, uint64_t loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (hit_keep(t, kind, loc, false))
        hit_write(t, &t->hits[kind], UINT64_MAX, loc, fmt, ap);
    va_end(ap);
}

void tpl_report_earliest(tpl *t, int kind, uint64_t index, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (hit_keep(t, kind, index, true))
        hit_write(t, &t->hits[kind], index, index, fmt, ap);
    va_end(ap);
}

const char *tpl_quote(char *buf, size_t cap, const uint8_t *s, size_t n, size_t max_in)
{
    esc_fixed(buf, cap, s, n, max_in);
    return buf;
}

bool tpl_hit_count(tpl *t, int kind)
{
    if (!t->hits[kind].have)
        return false;
    t->hits[kind].more++;
    return true;
}
