/* capture.c - block assignments in the template analyser's evaluator
 * (prefix ev_cap_, state t->fd.cp): the text a {% set x %}...{% endset %}
 * captures (template text, the values of its {{ }} tags, with the
 * {% filter f %} blocks inside it applied) becomes x's value, so a name
 * written inside one is folded like any other constant and reaches the
 * subscript and |attr checks as a literal. A piece that is not known (a
 * {{ }} of an unknown value, a loop or a condition inside) makes the value
 * unknown but keeps what its pieces carry: a dunder fragment (F_FRAG),
 * message content, a tainted object, and an upper bound of its size.
 *
 * A loop over a constant inside a capture (CAP_LOOP) keeps its body as
 * pieces - text and constants, and values of the loop variable (or of an
 * expression of it: one item per turn) - and unrolls them turn by turn
 * when it ends; anything else in the body (a branch, a loop filter or
 * else, a namespace attribute or list changed, a shadowed variable, data)
 * leaves the capture unknown, as Jinja's result could differ per turn.
 *
 * The frames are a stack over one buffer (a filter's text is replaced by
 * its result in place, an inner {% set %}'s is dropped when assigned), at
 * most TPL_CONST_CAP bytes; past it the value is unknown (a TH_LIMIT
 * note). Every byte is appended once and copied once more at the end. */
#include "template/tpl.h"
#include "common/alloc.h"
#include "common/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static capframe *cap_top(tpl *t)
{
    return t->fd.cp.n ? &t->fd.cp.f[t->fd.cp.n - 1] : NULL;
}

static bool is_ws(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* n more bytes at the buffer's end, false past TPL_CONST_CAP (the frame
 * becomes unknown) */
static bool cap_reserve(tpl *t, capframe *f, size_t n)
{
    tpl_capture *c = &t->fd.cp;
    if (n > TPL_CONST_CAP - c->len) {
        if (!f->unknown)
            fd_limit(t, f->index, "a {% set %} block captures more than 64 KiB");
        f->unknown = true;
        return false;
    }
    if (c->len + n <= c->cap)
        return true;
    uint32_t nc = c->cap ? c->cap : 256;
    while (nc < c->len + n)
        nc *= 2;
    if (nc > TPL_CONST_CAP)
        nc = TPL_CONST_CAP;
    uint8_t *p = gl_realloc(c->buf, nc);
    if (!p) {
        t->nomem = true;
        f->unknown = true;
        return false;
    }
    c->buf = p;
    c->cap = nc;
    return true;
}

static void cap_bytes(tpl *t, capframe *f, const uint8_t *s, size_t n)
{
    f->size = f->size < 0 ? -1 : (int64_t)((uint64_t)f->size + n);
    if (n && cap_reserve(t, f, n)) {
        memcpy(t->fd.cp.buf + t->fd.cp.len, s, n);
        t->fd.cp.len += (uint32_t)n;
    }
}

/* CAP_LOOP: the bytes appended since `from` are a piece of kind k of the
 * loop body (text extends the text piece right before it). */
static void loop_piece(tpl *t, capframe *f, uint8_t k, uint32_t from)
{
    uint32_t n = t->fd.cp.len - from;
    if (f->kind != CAP_LOOP || f->unknown || !n)
        return;
    cappiece *l = f->np ? &f->pc[f->np - 1] : NULL;
    if (k == CP_TEXT && l && l->kind == CP_TEXT && l->off + l->len == from) {
        l->len += n;
        return;
    }
    if (f->np == CAP_PIECES) {
        f->unknown = true;
        return;
    }
    f->pc[f->np++] = (cappiece){k, from, n};
}

void ev_cap_free(tpl *t)
{
    gl_free(t->fd.cp.buf);
    memset(&t->fd.cp, 0, sizeof t->fd.cp);
}

void ev_cap_template_begin(tpl *t)
{
    t->fd.cp.n = 0;
    t->fd.cp.len = 0;
    t->fd.cp.lstrip = false;
}

static capframe *cap_push(tpl *t, uint8_t kind, uint64_t index)
{
    if (t->fd.cp.n >= TPL_CAPTURES || t->ev.blocks_over || !t->ev.n_blocks) {
        capframe *o = cap_top(t);
        if (o)
            o->unknown = true;
        return NULL;
    }
    capframe *f = &t->fd.cp.f[t->fd.cp.n++];
    t->ev.blocks[t->ev.n_blocks - 1].cap = true;
    memset(f, 0, offsetof(capframe, name));
    f->kind = kind;
    f->start = f->text = t->fd.cp.len;
    f->block = t->ev.n_blocks - 1;
    f->index = index;
    return f;
}

void ev_cap_open_set(tpl *t, const uint8_t *name, uint32_t n, uint32_t hash, uint16_t filter,
                     uint64_t index)
{
    capframe *f = cap_push(t, CAP_SET, index);
    if (!f)
        return;
    f->word = filter == 0xFFFF ? 0 : filter;
    f->unknown = filter == 0xFFFF;
    memcpy(f->name, name, n);
    f->name_len = n;
    f->hash = hash;
}

void ev_cap_open_filter(tpl *t, const aval *filter, uint64_t index)
{
    if (!t->fd.cp.n)
        return; /* a {% filter %} outside a capture: its text is output as it is */
    capframe *f = cap_push(t, CAP_FILTER, index);
    if (!f)
        return;
    if (filter && filter->kind == AV_NAME && filter->word)
        f->word = filter->word;
    else
        f->unknown = true; /* a filter with arguments, not a name, or one not in the table */
}

void ev_cap_text_slow(tpl *t, const uint8_t *s, size_t n)
{
    capframe *f = cap_top(t);
    if (!f)
        return;
    if (t->fd.cp.lstrip) {
        while (n && is_ws(*s)) {
            s++;
            n--;
        }
        if (!n)
            return;
        t->fd.cp.lstrip = false;
    }
    if (f->text == UINT32_MAX)
        f->text = t->fd.cp.len;
    uint32_t from = t->fd.cp.len;
    cap_bytes(t, f, s, n);
    loop_piece(t, f, CP_TEXT, from);
}

/* {%- : the text right before the tag loses its trailing space */
void ev_cap_trim(tpl *t)
{
    capframe *f = cap_top(t);
    if (!f || f->text == UINT32_MAX)
        return;
    uint32_t from = f->text < f->start ? f->start : f->text;
    while (t->fd.cp.len > from && is_ws(t->fd.cp.buf[t->fd.cp.len - 1])) {
        t->fd.cp.len--;
        if (f->size > 0)
            f->size--;
    }
    cappiece *l = f->kind == CAP_LOOP && f->np ? &f->pc[f->np - 1] : NULL;
    if (l && l->kind == CP_TEXT && l->off + l->len > t->fd.cp.len) { /* its text trimmed */
        l->len = t->fd.cp.len > l->off ? t->fd.cp.len - l->off : 0;
        if (!l->len)
            f->np--;
    }
}

/* A tag ended (ws: with -%} or -}}): text after it is a new run. */
void ev_cap_tag_end(tpl *t, bool ws)
{
    capframe *f = cap_top(t);
    if (!f)
        return;
    f->text = UINT32_MAX;
    t->fd.cp.lstrip = ws;
}

/* The value of a {{ }} inside the capture (NULL: not one known value). */
void ev_cap_value(tpl *t, const aval *v)
{
    capframe *f = cap_top(t);
    if (!f)
        return;
    t->fd.cp.lstrip = false;
    uint32_t from = t->fd.cp.len;
    if (v && f->kind == CAP_LOOP && ev_is_items(v) && (v->vid ? v->vid : v->word) == f->word &&
        ev_items_count(t, v) == f->turns) { /* one item per turn */
        f->flags |= (uint32_t)((v->flags & (F_INEXACT | F_CONTENT | F_TAINT)) | fd_frag_of(t, v));
        cap_bytes(t, f, fd_bytes(t, v), v->len);
        loop_piece(t, f, v->rword == AV_STR ? CP_ITEMS_STR : CP_ITEMS_LIST, from);
        return;
    }
    if (v && v->kind == AV_STR) {
        f->flags |= v->flags & (F_INEXACT | F_CONTENT);
        cap_bytes(t, f, fd_bytes(t, v), v->len);
        loop_piece(t, f, CP_TEXT, from);
        return;
    }
    if (v && v->kind == AV_INT && !(v->flags & F_HUGE)) {
        char d[24];
        int k = snprintf(d, sizeof d, "%lld", (long long)v->ival);
        cap_bytes(t, f, (const uint8_t *)d, k > 0 ? (size_t)k : 0);
        loop_piece(t, f, CP_TEXT, from);
        return;
    }
    f->unknown = true;
    if (v) {
        f->flags |= (uint32_t)((v->flags & (F_FRAG | F_CONTENT | F_TAINT)) | fd_frag_of(t, v));
        if (v->kind == AV_UNK && v->count >= 0 && f->size >= 0)
            f->size = (int64_t)((uint64_t)f->size + (uint64_t)v->count);
        else
            f->size = -1;
    } else {
        f->size = -1;
    }
}

/* A block other than set / filter opens inside the capture: what it adds
 * runs zero or many times, so the value is no longer one constant. */
void ev_cap_block(tpl *t)
{
    capframe *f = cap_top(t);
    if (f)
        f->unknown = true;
}

/* {% for %} over a constant of `turns` items (vid: 1 + its variable, 0
 * when it is not one) opens inside a capture: its body is captured as
 * pieces and unrolled when the loop ends. */
void ev_cap_open_loop(tpl *t, uint16_t vid, uint32_t turns, uint64_t index)
{
    capframe *o = cap_top(t);
    if (!o)
        return;
    if (o->unknown || !vid || turns > TPL_UNROLL_MAX) {
        o->unknown = true; /* what it adds is not one constant */
        return;
    }
    for (uint32_t i = 0; i < t->fd.cp.n; i++)
        if (t->fd.cp.f[i].kind == CAP_LOOP && t->fd.cp.f[i].word == vid)
            t->fd.cp.f[i].unknown = true; /* the same variable: the outer loop's is shadowed */
    capframe *f = cap_push(t, CAP_LOOP, index);
    if (!f)
        return;
    f->word = vid;
    f->turns = turns;
}

/* The loop of frame f (popped) ends: its body, turn by turn, into the
 * frame around it; or, when a piece was not known, what its pieces carry. */
static void loop_close(tpl *t, capframe *f)
{
    capframe *o = cap_top(t);
    uint32_t n = t->fd.cp.len - f->start;
    uint8_t *body = n ? gl_malloc(n) : NULL;
    if (n && !body) {
        t->nomem = true;
        f->unknown = true;
    } else if (n) {
        memcpy(body, t->fd.cp.buf + f->start, n);
    }
    t->fd.cp.len = f->start;
    if (!o) {
        gl_free(body);
        return;
    }
    o->flags |= f->flags & (F_FRAG | F_CONTENT | F_TAINT | F_INEXACT);
    if (f->unknown) {
        o->unknown = true;
        for (uint32_t p = 0; body && p < f->np; p++)
            if (f->pc[p].kind == CP_TEXT &&
                fd_has_frag(body + f->pc[p].off - f->start, f->pc[p].len))
                o->flags |= F_FRAG;
        o->size = o->size < 0 || f->size < 0 ? -1 : o->size + f->size;
        gl_free(body);
        return;
    }
    uint32_t pos[CAP_PIECES] = {0}, from = t->fd.cp.len;
    for (uint32_t i = 0; i < f->turns && !o->unknown; i++) {
        for (uint32_t p = 0; p < f->np && !o->unknown; p++) {
            const cappiece *c = &f->pc[p];
            const uint8_t *s = body + (c->off - f->start);
            uint32_t at = pos[p], k = 0, skip = 0;
            if (c->kind == CP_TEXT) {
                k = c->len;
            } else if (c->kind == CP_ITEMS_STR && at < c->len) {
                uint32_t cp;
                k = s[at] < 0x80 ? 1 : utf8_decode(s + at, c->len - at, &cp);
            } else if (c->kind == CP_ITEMS_LIST && c->len - at >= 4 && at < c->len) {
                uint32_t w;
                memcpy(&w, s + at, 4);
                w &= ~LIST_INT;
                skip = 4;
                k = w <= c->len - at - 4 ? w : 0;
                if (w > c->len - at - 4)
                    o->unknown = true;
            } else {
                o->unknown = true; /* fewer items than turns */
            }
            if (c->kind == CP_ITEMS_STR && !k)
                o->unknown = true;
            if (o->unknown)
                break;
            cap_bytes(t, o, s + (c->kind == CP_TEXT ? 0 : at + skip), k);
            if (c->kind != CP_TEXT)
                pos[p] = at + skip + k;
        }
    }
    loop_piece(t, o, CP_TEXT, from); /* a loop inside a loop: the same each outer turn */
    gl_free(body);
}

/* The frame's bytes as a value in the tag arena (its checks run there). */
static aval cap_value(tpl *t, capframe *f)
{
    aval at;
    memset(&at, 0, sizeof at);
    at.index = f->index;
    uint32_t n = t->fd.cp.len - f->start;
    bld b;
    fd_b_begin(t, &b, &at);
    if (fd_b_room(t, &b, n)) {
        if (n)
            memcpy(t->fd.ar + t->fd.ar_len, t->fd.cp.buf + f->start, n);
        t->fd.ar_len += n;
    } else {
        f->unknown = true;
    }
    aval v = fd_b_done(t, &b);
    if (v.kind != AV_STR)
        f->unknown = true;
    else
        v.flags |= f->flags & (F_INEXACT | F_CONTENT);
    if (f->unknown) {
        uint16_t frag = v.kind == AV_STR ? fd_frag_of(t, &v) : 0;
        aval u = unk_at(&at);
        u.flags = (uint32_t)(F_STRTYPE | frag | (f->flags & (F_FRAG | F_CONTENT | F_TAINT)));
        u.count = f->size;
        return u;
    }
    return v;
}

/* The block blocks[i] ends (inside a loop, a condition or another scope
 * when branch: the value is kept for the checks, F_INEXACT):
 * the frame it opened, if any, is done. */
void ev_cap_close(tpl *t, uint32_t i, bool branch)
{
    capframe *f = cap_top(t);
    if (!t->ev.blocks[i].cap || !f || f->block != i)
        return;
    t->fd.cp.n--;
    t->fd.cp.lstrip = false;
    if (f->kind == CAP_LOOP) {
        loop_close(t, f);
        return;
    }
    aval v = cap_value(t, f);
    t->fd.cp.len = f->start;
    if (f->kind == CAP_SET && f->word && v.kind == AV_STR) { /* {% set x | f %} */
        aval r = ev_apply_filter(t, f->word, &v, NULL, 0, 0, &v);
        if (r.kind == AV_UNK)
            r.flags |= (uint32_t)(F_STRTYPE | fd_frag_of(t, &v));
        v = r;
    }
    if (f->kind == CAP_SET) {
        var *x = fd_var_get(t, f->name, f->name_len, f->hash, f->index);
        if (!x)
            return;
        if (branch) /* inside a loop or a condition */
            v.flags |= F_INEXACT;
        fd_var_assign(t, x, &v);
        return;
    }
    /* a filter: its result goes into the frame around it */
    capframe *o = cap_top(t);
    if (!o)
        return;
    aval r = v;
    if (v.kind == AV_STR && f->word) {
        r = ev_apply_filter(t, f->word, &v, NULL, 0, 0, &v);
        if (r.kind == AV_UNK)
            r.flags |= (uint32_t)(F_STRTYPE | fd_frag_of(t, &v));
    }
    if (r.kind != AV_STR && r.kind != AV_UNK) { /* |length, |list ...: Jinja's TypeError */
        aval u = unk_at(&v);
        u.flags = (uint32_t)(fd_frag_of(t, &v) | (v.flags & (F_CONTENT | F_TAINT)));
        r = u;
    }
    ev_cap_value(t, &r);
}
