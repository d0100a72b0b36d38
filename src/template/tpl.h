/* tpl.h - the template analyser's state (struct tpl) for its own files:
 * what every part shares (the template being fed, the hit table), then one
 * member per part, each owned by its file under its prefix. Not used
 * outside src/template/ (the interface is template.h). */
#ifndef GGUFLINT_TEMPLATE_TPL_H
#define GGUFLINT_TEMPLATE_TPL_H

#include "template/caps.h"
#include "template/chain.h"
#include "template/eval.h"
#include "template/fold.h"
#include "template/lex.h"
#include "template/rawscan.h"
#include "template/stream.h"
#include "template/tokens.h"
#include "template/template.h"
#include "template/words.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct tpl {
    /* shared: core.c (the driver) and sink.c (the hits) */
    bool nomem;
    tpl_hit hits[TH__COUNT];
    uint32_t hit_mask;     /* kinds with have == true */
    bool ref;              /* the reference mode (tpl_force_reference) for this template */
    uint64_t total, index; /* template length, index of the next byte */
    int64_t first_tag;
    /* line positions (sink.c): the chunk being fed, the bytes scanned for
     * newlines so far, their count and the indices of the last ones */
    const uint8_t *chunk_p;
    uint64_t chunk_index, chunk_n;
    uint64_t nl_scan, nl_count;
    uint64_t nl_ring[TPL_NL_RING];
    /* the file (core.c's tpl_acquire and tpl_whole): templates begun since
     * the analyser was handed out, whether the per-file reset is still
     * owed, and, while the state is what the file's first template left
     * (again), that template's bytes */
    uint32_t file_templates;
    bool reset_owed, again;
    uint8_t *again_b;
    uint32_t again_n, again_cap;
    /* the parts */
    tpl_words wd;
    tpl_raw raw;
    tpl_streams ts;
    tpl_lexer lx;
    tpl_fold fd;
    tpl_eval ev;
    tpl_tokens tk;
};

/* Whether a fast path may run: every fast path of src/template/ is under
 * TPL_FAST(t), and the plain byte loop beside it is the reference it must
 * agree with (false in the reference mode, tpl_force_reference; always
 * false when built with -DGGUFLINT_TPL_REFERENCE, as SQLite's
 * optimisation-only conditions are in its test builds). */
#ifdef GGUFLINT_TPL_REFERENCE
#define TPL_FAST(t) ((void)(t), 0)
#else
#define TPL_FAST(t) __builtin_expect(!(t)->ref, 1)
#endif

/* sink.c: the hits and the line and column of a byte */
void tpl_report(tpl *t, int kind, uint64_t index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same for a message that says where itself: no line and column are
 * added; loc is the byte that places the finding (its chunk). */
void tpl_report_loc(tpl *t, int kind, uint64_t loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same, but the hit quoted is the earliest in the template rather than
 * the first reported: for hits the text scanners find in separate passes
 * over a piece (URLs, IPv4 and e-mail addresses), so the passes' order
 * does not decide which one a user is shown. */
void tpl_report_earliest(tpl *t, int kind, uint64_t index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Count one more hit of `kind` when one is kept already (true), else false. */
bool tpl_hit_count(tpl *t, int kind);
/* Escape up to max_in bytes for a message into buf (cap bytes). */
const char *tpl_quote(char *buf, size_t cap, const uint8_t *s, size_t n, size_t max_in);
/* Line and column (1-based, the column in bytes) of template byte `index`;
 * false when it is not known (further back than the last TPL_NL_RING
 * newlines, or not fed yet). */
bool tpl_line_col(tpl *t, uint64_t index, uint64_t *line, uint64_t *col);
/* Scan for newlines up to `index` (at most the chunk's end): the open
 * blocks whose opening tags the scan passes get their line and column. */
void tpl_lc_settle(tpl *t, uint64_t index);
/* " (template line L, column C)" for a message, or "" when not known. */
const char *tpl_where(tpl *t, uint64_t index, char *buf, size_t cap);
/* the same for a known line and column (cap > 0) */
const char *tpl_where_lc(char *buf, size_t cap, uint64_t line, uint64_t col);

/* Room for need bytes in *buf of *cap (arena.c): the capacity doubles from
 * *cap (1024 when 0) up to max (need <= max); false with t->nomem set when
 * memory ran out. */
bool tpl_grow_bytes(tpl *t, uint8_t **buf, uint32_t *cap, uint32_t need, uint32_t max);

/* fold.c's arena, inline for the evaluator: room for n more bytes (false
 * past the arena's cap), and n bytes copied in (their offset in *off). */
static inline bool fd_ar_reserve(tpl *t, uint32_t n)
{
    return n <= t->fd.ar_cap - t->fd.ar_len || fd_ar_grow(t, n);
}

static inline bool fd_ar_put(tpl *t, const uint8_t *s, uint32_t n, uint32_t *off)
{
    if (n && !fd_ar_reserve(t, n))
        return false;
    if (n)
        memcpy(t->fd.ar + t->fd.ar_len, s, n);
    *off = t->fd.ar_len;
    t->fd.ar_len += n;
    return true;
}

/* fold.c's per-tag arena emptied (every tag) */
static inline void fd_tag_begin(tpl *t)
{
    t->fd.ar_len = 0;
}

/* the bytes of a string or list value: in the variable store or the arena */
static inline const uint8_t *fd_bytes(const tpl *t, const aval *v)
{
    return ((v->flags & F_VAR) ? t->fd.vs : t->fd.ar) + v->off;
}

/* chain.c's per-tag chain budget restarted */
static inline void ch_tag_begin(tpl *t)
{
    t->ev.ch_used = 0;
}

/* stmt.c's query, inline (every part asks it): true inside a block whose
 * body may run zero or many times (for, if, macro, call), where a value
 * set is not the value every render has. */
static inline bool ev_in_branch(const tpl *t)
{
    if (t->ev.blocks_over)
        return true;
    for (uint32_t i = 0; i < t->ev.n_blocks; i++) {
        unsigned k = t->ev.blocks[i].kind;
        if (k == W_FOR || k == W_IF || k == W_MACRO || k == W_CALL)
            return true;
    }
    return false;
}

/* True when one of blocks[0..n) is a {% set %} capture or a {% filter %}:
 * Jinja renders their bodies in a scope of their own, so a variable set
 * there is not seen after them. */
static inline bool ev_in_scope(const tpl *t, uint32_t n)
{
    for (uint32_t i = 0; i < n && i < t->ev.n_blocks; i++)
        if (t->ev.blocks[i].kind == W_SET || t->ev.blocks[i].kind == W_FILTER)
            return true;
    return false;
}

/* capture.c, inline for the lexer: template text, when a capture is open */
static inline void ev_cap_text(tpl *t, const uint8_t *s, size_t n)
{
    if (__builtin_expect(t->fd.cp.n != 0, 0))
        ev_cap_text_slow(t, s, n);
}

/* capture.c's state, inline for the evaluator (calls.c, eval.c): a namespace
 * attribute or a list changes, so what a loop body read before it differs
 * in the next turn: no open loop's capture is one constant */
static inline void ev_cap_mutation(tpl *t)
{
    for (uint32_t i = 0; i < t->fd.cp.n; i++)
        if (t->fd.cp.f[i].kind == CAP_LOOP)
            t->fd.cp.f[i].unknown = true;
}

/* eval.c, inline for the lexer: the tag just ended was {% raw %} */
static inline bool ev_wants_raw(const tpl *t)
{
    return t->ev.raw_next;
}

/* rawscan.c, inline for the lexer's byte loop: no sequence is open */
static inline bool raw_idle(const tpl *t)
{
    return t->raw.need == 0;
}

#endif
