/* core.c - the template analyser's entry points and the state every part
 * shares (struct tpl in tpl.h): the template being fed (its length, the
 * index of the next byte, the chunks it came in) and the hit table, one hit
 * kept per kind with a count of the others. Each part owns the rest of the
 * state under its own prefix: lx_ the lexer (lex.c), raw_ the UTF-8 and
 * invisible-character scanner (rawscan.c), ts_ the text streams (stream.c),
 * fd_ the folder and its stores (fold.c, operations in strops.c), ev_ the
 * evaluator (eval.c, with gadget.c, calls.c and stmt.c), word_ the word
 * table (words.c). Limits are in caps.h. */
#include "template/tpl.h"

#include "core/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void nl_advance(tpl *t, uint64_t upto);

tpl *tpl_new(void)
{
    tpl *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    if (!lx_init(t) || !fd_init(t) || !ts_init(t)) {
        tpl_free(t);
        return NULL;
    }
    word_init(t);
    return t;
}

void tpl_free(tpl *t)
{
    if (!t)
        return;
    ts_free(t);
    fd_free(t);
    lx_free(t);
    free(t);
}

bool tpl_nomem(const tpl *t)
{
    return t->nomem;
}

const tpl_hit *tpl_hit_get(const tpl *t, int kind)
{
    return &t->hits[kind];
}

int64_t tpl_first_tag(const tpl *t)
{
    return t->first_tag;
}

void tpl_begin(tpl *t, uint64_t total_len)
{
    for (int k = 0; k < TH__COUNT; k++)
        if (t->hit_mask & (1u << k))
            t->hits[k].have = false;
    t->hit_mask = 0;
    t->total = total_len;
    t->index = 0;
    t->first_tag = -1;
    t->nl_scan = t->nl_count = 0;
    t->chunk_p = NULL;
    t->chunk_index = t->chunk_n = 0;
    raw_begin(t);
    ts_reset(&t->ts.out, "text");
    ts_segment(&t->ts.out, SG_TEXT);
    ts_reset(&t->ts.lits, "string literal");
    lx_begin(t);
    fd_template_begin(t, total_len);
    ev_template_begin(t);
    tk_template_begin(t);
}

void tpl_feed(tpl *t, const uint8_t *p, uint64_t n)
{
    t->chunk_p = p;
    t->chunk_index = t->index;
    t->chunk_n = n;
    lx_feed(t, p, n);
    nl_advance(t, t->chunk_index + n); /* this chunk's newlines, before it is gone */
    t->chunk_p = NULL;
}

void tpl_end(tpl *t)
{
    if (t->nomem)
        return;
    lx_end(t);
    ts_end(t, &t->ts.out);
    ts_end(t, &t->ts.lits);
    raw_end(t);
    ev_template_end(t);
    if (t->total > TPL_OVERSIZE)
        tpl_report_loc(t, TH_OVERSIZE, 0,
                       "the template is %llu bytes, over the 256 KiB no real chat template needs",
                       (unsigned long long)t->total);
}

int tpl_probe(tpl *t, const uint8_t *p, size_t n, uint8_t *buf, size_t cap, size_t *len)
{
    fd_budget_reset(t);
    ev_probe_begin(t, buf, cap);
    tpl_begin(t, n);
    tpl_feed(t, p, n);
    tpl_end(t);
    bool known = ev_probe_end(t, len);
    return known && !t->nomem;
}

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
{
    h->index = index;
    h->loc = loc;
    int n = vsnprintf(h->msg, sizeof h->msg, fmt, ap);
    char where[64];
    if (n >= 0 && (size_t)n < sizeof h->msg)
        snprintf(h->msg + n, sizeof h->msg - (size_t)n, "%s",
                 tpl_where(t, index, where, sizeof where));
}

/* The first hit of a kind is kept, later ones are counted: true when this
 * one is to be written. */
static bool hit_first(tpl *t, int kind)
{
    tpl_hit *h = &t->hits[kind];
    if (h->have) {
        h->more++;
        return false;
    }
    h->have = true;
    t->hit_mask |= 1u << kind;
    h->more = 0;
    return true;
}

void tpl_report(tpl *t, int kind, uint64_t index, const char *fmt, ...)
{
    if (!hit_first(t, kind))
        return;
    va_list ap;
    va_start(ap, fmt);
    hit_write(t, &t->hits[kind], index, index, fmt, ap);
    va_end(ap);
}

void tpl_report_loc(tpl *t, int kind, uint64_t loc, const char *fmt, ...)
{
    if (!hit_first(t, kind))
        return;
    va_list ap;
    va_start(ap, fmt);
    hit_write(t, &t->hits[kind], UINT64_MAX, loc, fmt, ap);
    va_end(ap);
}

void tpl_report_earliest(tpl *t, int kind, uint64_t index, const char *fmt, ...)
{
    tpl_hit *h = &t->hits[kind];
    if (h->have) {
        h->more++;
        if (index >= h->index)
            return;
    } else {
        h->have = true;
        t->hit_mask |= 1u << kind;
        h->more = 0;
    }
    va_list ap;
    va_start(ap, fmt);
    hit_write(t, h, index, index, fmt, ap);
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

/* ------------------------------------------------------------- positions */
