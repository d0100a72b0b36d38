/* unroll.c - constant-bounded loops unrolled, one operation at a time
 * (prefix ev_unroll, state t->fd.ur): a loop variable over a constant
 * ({% for c in 'vtaber' %}, {% for n in [105, 103] %}) is an F_ITEMS value,
 * the items it takes in turn. An operation on it whose other operands are
 * constants ('%c' % n, tbl[abc.index(c)], c|upper, chr(n), c ~ 'x') is
 * applied to every item, and its result is again an F_ITEMS value: the
 * items the expression takes in turn. A {{ }} of one emits them in order
 * into the output stream (eval.c emit_items), so text decoded a character
 * at a time (ROT13 tables, code points) reaches the phrase checks as the
 * text it renders.
 *
 * A namespace attribute that a loop over a constant extends by its items
 * ({% set ns.t = ns.t ~ c %}, or c ~ ns.t, which reverses them) holds its
 * first value joined with every item after the loop (ev_unroll_accum), so
 * text assembled that way reaches the output stream too.
 *
 * A dict literal of constants is remembered (lists.c: keys and values, per
 * template); its |items or .items() is an F_PAIRS value, and
 * {% for k, v in ... %} over one gives k the keys and v the values as
 * F_ITEMS values, so text decoded through a substitution table reaches the
 * output stream like the rest.
 *
 * At most TPL_UNROLL_MAX items; each item's operation is charged to the
 * folding budget like any other fold. The callback is called with a
 * constant operand only, so it never comes back here (depth one). */
#include "template/tpl.h"
#include "common/alloc.h"

#include "common/utf8.h"

#include <stdlib.h>
#include <string.h>

/* The next item (at *pos) of an F_ITEMS value as a constant. */
static bool item_next(const tpl *t, const aval *v, uint32_t *pos, aval *out)
{
    if (*pos >= v->len)
        return false;
    const uint8_t *p = fd_bytes(t, v);
    aval it = unk_at(v);
    it.kind = AV_STR;
    it.flags = (uint32_t)(v->flags & (F_VAR | F_INEXACT));
    if (v->rword == AV_STR) { /* a code point */
        uint32_t cp, k = (p[*pos] < 0x80) ? 1 : utf8_decode(p + *pos, v->len - *pos, &cp);
        if (!k)
            return false;
        it.off = v->off + *pos;
        it.len = k;
        it.count = k;
        *pos += k;
        *out = it;
        return true;
    }
    if (*pos + 4 > v->len)
        return false;
    uint32_t w;
    memcpy(&w, p + *pos, 4);
    uint32_t n = w & ~LIST_INT;
    if (n > v->len - *pos - 4)
        return false;
    if (w & LIST_INT) { /* an integer kept as its decimal text */
        const uint8_t *d = p + *pos + 4;
        bool neg = n && d[0] == '-';
        uint64_t x = 0;
        for (uint32_t i = neg; i < n; i++)
            x = x * 10 + (uint64_t)(d[i] - '0');
        it.kind = AV_INT;
        it.ival = neg ? (int64_t)(0 - x) : (int64_t)x;
        it.flags &= (uint32_t)~F_VAR;
    } else {
        it.off = v->off + *pos + 4;
        it.len = n;
        it.count = n;
    }
    *pos += 4 + n;
    *out = it;
    return true;
}

/* The result array, allocated at the first use. */
static bool ur_ready(tpl *t)
{
    if (!t->fd.ur) {
        t->fd.ur = gl_malloc(TPL_UNROLL_MAX * sizeof *t->fd.ur);
        if (!t->fd.ur) {
            t->nomem = true;
            return false;
        }
    }
    return true;
}

/* fn(item) for every item of `items`: an F_ITEMS value over their results,
 * or an unknown one (keeping the dunder pieces) when one does not fold. */
aval ev_unroll(tpl *t, const aval *items, ev_unroll_fn fn, const void *ctx, const aval *at)
{
    aval r = unk_at(at);
    r.flags = (uint32_t)(fd_frag_of(t, items) | (items->flags & F_TAINT));
    if (!ur_ready(t))
        return r;
    uint32_t pos = 0, n = 0;
    aval it;
    while (item_next(t, items, &pos, &it)) {
        if (n == TPL_UNROLL_MAX)
            return r; /* longer loops stay unknown */
        aval v = fn(t, &it, ctx);
        if (v.kind != AV_STR && (v.kind != AV_INT || (v.flags & F_HUGE)))
            return r;
        t->fd.ur[n++] = v;
    }
    aval l = fd_make_list(t, t->fd.ur, n, at);
    if (l.kind != AV_LIST)
        return r;
    aval u = l;
    u.kind = AV_UNK;
    u.rword = AV_LIST;
    u.flags = (uint32_t)((l.flags & (F_INEXACT | F_TAINT)) | (items->flags & F_INEXACT) | F_ITEMS);
    u.count = n;
    u.vid = 0;
    u.word = items->vid ? items->vid : items->word; /* the loop variable it comes from */
    return u;
}

/* ---------------------------------------------- the operations unrolled */

/* A call-like operation (filter, method, global, subscript) whose operand
 * at `at_arg` (-1: the receiver or filtered value) is the F_ITEMS value and
 * every other one a constant. */
typedef struct ucall {
    int kind; /* U_FILTER, U_METHOD, U_GLOBAL, U_INDEX */
    unsigned w;
    const aval *x;
    const aval *args;
    uint32_t na;
    int at_arg;
} ucall;
enum { U_FILTER, U_METHOD, U_GLOBAL, U_INDEX };

#define UNROLL_ARGS 8u

static aval unroll_call(tpl *t, const aval *item, const void *ctx)
{
    const ucall *u = ctx;
    aval a[UNROLL_ARGS];
    for (uint32_t i = 0; i < u->na; i++)
        a[i] = (int)i == u->at_arg ? *item : u->args[i];
    const aval *x = u->at_arg < 0 ? item : u->x;
    switch (u->kind) {
    case U_FILTER: return ev_apply_filter(t, u->w, x, a, u->na, 0, x);
    case U_METHOD: return ev_method_call(t, x, a, u->na, 0);
    case U_GLOBAL: return ev_global_call(t, x, a, u->na);
    default: /* x[k]: an integer index of a constant string or list */
        if (a[0].kind != AV_INT || (x->kind == AV_LIST && (x->flags & F_DICT)))
            return unk_at(x);
        return fd_fold_index(t, x, a[0].ival);
    }
}

/* Which operand is the F_ITEMS one (-1 the receiver, -2 none or more than
 * one, or an operand that is not a constant). */
static int items_operand(const aval *x, bool x_const_ok, const aval *args, uint32_t na)
{
    int at = ev_is_items(x) ? -1 : -2;
    if (at == -2 && !x_const_ok)
        return -2;
    if (na > UNROLL_ARGS)
        return -2;
    for (uint32_t i = 0; i < na; i++) {
        if (ev_is_items(&args[i])) {
            if (at != -2)
                return -2;
            at = (int)i;
        } else if (!ev_is_const(&args[i])) {
            return -2;
        }
    }
    return at;
}

/* Unrolled only in a {{ }} (its items are emitted in turn); a value
 * stored by {% set %} stays one unknown value. */
static bool emitting(const tpl *t)
{
    return t->ev.tagkind == TAG_VAR && t->ev.stmt == ST_EXPR;
}

/* Filters whose result for a constant is a constant string or item. */
static bool unroll_filter_ok(unsigned w)
{
    return ev_makes_string(w) || w == W_REVERSE || w == W_FIRST || w == W_LAST;
}

bool ev_unroll_filter(tpl *t, unsigned w, const aval *x, const aval *args, uint32_t na,
                      uint32_t kws, const aval *at, aval *r)
{
    if (!emitting(t))
        return false;
    if (kws || !unroll_filter_ok(w))
        return false;
    int k = items_operand(x, ev_is_const(x), args, na);
    if (k == -2)
        return false;
    ucall u = {U_FILTER, w, x, args, na, k};
    *r = ev_unroll(t, k < 0 ? x : &args[k], unroll_call, &u, at);
    return true;
}

bool ev_unroll_method(tpl *t, const aval *c, const aval *args, uint32_t na, uint32_t kws, aval *r)
{
    if (!emitting(t))
        return false;
    /* a method of a constant string with one argument that is the items */
    if (kws || c->kind != AV_ATTR || !(c->flags & F_RSTR))
        return false;
    int k = items_operand(c, true, args, na);
    if (k < 0)
        return false;
    ucall u = {U_METHOD, 0, c, args, na, k};
    *r = ev_unroll(t, &args[k], unroll_call, &u, c);
    return true;
}

bool ev_unroll_global(tpl *t, const aval *c, const aval *args, uint32_t na, aval *r)
{
    if (!emitting(t))
        return false;
    if (c->kind != AV_NAME || c->word != W_CHR)
        return false;
    int k = items_operand(c, true, args, na);
    if (k < 0)
        return false;
    ucall u = {U_GLOBAL, 0, c, args, na, k};
    *r = ev_unroll(t, &args[k], unroll_call, &u, c);
    return true;
}

bool ev_unroll_index(tpl *t, const aval *x, const aval *key, aval *r)
{
    if (!emitting(t))
        return false;
    int k = items_operand(x, ev_is_const(x), key, 1);
    if (k == -2 || (k == 0 && !ev_is_const(x)))
        return false;
    ucall u = {U_INDEX, 0, x, key, 1, k};
    *r = ev_unroll(t, k < 0 ? x : key, unroll_call, &u, x);
    return true;
}

/* ------------------------------------------ accumulation in a namespace */

bool ev_unroll_accum(tpl *t, uint8_t op, const aval *a, const aval *b, aval *r)
{
    if (t->ev.stmt != ST_SET_VALUE || !t->ev.set_attr || (op != OP_CONCAT && op != OP_ADD))
        return false;
    bool prepend = ev_is_items(a);
    const aval *init = prepend ? b : a, *items = prepend ? a : b;
    if (!ev_is_items(items) || init->kind != AV_STR || !ev_is_set_target(t, init))
        return false;
    *r = unk_at(a);
    if (!ur_ready(t))
        return true;
    uint32_t pos = 0, n = 0;
    aval it;
    while (item_next(t, items, &pos, &it)) {
        if (n == TPL_UNROLL_MAX)
            return true; /* longer loops stay unknown */
        if (op == OP_ADD && it.kind != AV_STR)
            return true; /* '' + 1 is Jinja's TypeError, not text */
        t->fd.ur[n++] = it;
    }
    bld bd;
    fd_b_begin(t, &bd, a);
    if (!prepend)
        fd_b_val(t, &bd, init);
    for (uint32_t i = 0; i < n; i++)
        fd_b_val(t, &bd, &t->fd.ur[prepend ? n - 1 - i : i]);
    if (prepend)
        fd_b_val(t, &bd, init);
    aval v = fd_b_done(t, &bd);
    if (v.kind == AV_STR) /* a branch or a break in the loop may skip items */
        v.flags |= F_INEXACT;
    *r = v;
    return true;
}

uint32_t ev_items_count(const tpl *t, const aval *v)
{
    uint32_t pos = 0, n = 0;
    aval it;
    while (item_next(t, v, &pos, &it))
        if (++n > TPL_UNROLL_MAX)
            return UINT32_MAX;
    return n;
}

/* loop.index (index0, revindex, revindex0, length) in a {{ }} of a loop over
 * a constant: the integers it takes in turn, as the loop variable's items. */
bool ev_unroll_loop_attr(tpl *t, const tok *k)
{
    unsigned w = k->word;
    if (!emitting(t) || !t->ev.nv || t->ev.blocks_over || !t->ev.n_blocks ||
        (w != W_INDEX && w != W_INDEX0 && w != W_REVINDEX && w != W_REVINDEX0 && w != W_LENGTH))
        return false;
    aval *r = &t->ev.V[t->ev.nv - 1];
    const block *b = &t->ev.blocks[t->ev.n_blocks - 1];
    if (r->kind != AV_NAME || r->word != W_LOOP || b->kind != W_FOR || !b->items_vid ||
        b->items_vid > t->fd.n_vars)
        return false;
    const aval *items = &t->fd.vars[b->items_vid - 1].v;
    if (!ev_is_items(items))
        return false;
    uint32_t cnt = ev_items_count(t, items);
    if (cnt > TPL_UNROLL_MAX)
        return false;
    int64_t n = cnt;
    /* index: 1, 2 ...; index0: 0, 1 ...; revindex: n ... 1; revindex0: n-1 ... 0 */
    int64_t start = w == W_INDEX      ? 1
                    : w == W_INDEX0   ? 0
                    : w == W_REVINDEX ? n
                    : w == W_LENGTH   ? n
                                      : n - 1;
    int64_t step = w == W_INDEX || w == W_INDEX0 ? 1 : w == W_LENGTH ? 0 : -1;
    aval v = unk_at(r);
    fd_int_range(t, start, step, n, &v);
    if (!(v.flags & F_RANGE))
        return false;
    v.flags = (uint32_t)(F_ITEMS | (items->flags & F_INEXACT));
    v.rword = AV_LIST;
    v.count = n;
    v.word = b->items_vid;
    v.vid = 0;
    *r = v;
    return true;
}

/* ---------------------------------- {% for k, v in d|items %} */

/* Variable (name s[0..n), hash h) as an F_ITEMS value over list l. */
static uint16_t items_var(tpl *t, const uint8_t *s, uint32_t n, uint32_t h, const aval *l)
{
    var *x = fd_var_get(t, s, n, h, t->ev.tag_index);
    if (!x || l->kind != AV_LIST)
        return 0;
    aval v = *l;
    v.vid = 0;
    fd_var_assign(t, x, &v);
    if (x->v.kind != AV_LIST)
        return 0; /* not stored */
    x->v.rword = AV_LIST;
    x->v.kind = AV_UNK;
    x->v.flags = (uint32_t)((x->v.flags & (F_VAR | F_INEXACT)) | F_ITEMS);
    return (uint16_t)(x - t->fd.vars + 1);
}

uint16_t ev_unroll_pairs(tpl *t, const aval *pairs)
{
    if (pairs->ival < 0 || pairs->ival >= (int64_t)t->fd.dv_n || !ur_ready(t))
        return 0;
    const uint32_t e = (uint32_t)pairs->ival, m = t->fd.dv_m[e];
    uint32_t off;
    if (!fd_ar_put(t, t->fd.dv_buf + t->fd.dv_off[e], t->fd.dv_len[e], &off))
        return 0;
    aval all = unk_at(pairs);
    all.rword = AV_LIST;
    all.off = off;
    all.len = t->fd.dv_len[e];
    all.flags = 0;
    uint32_t pos = 0, n = 0;
    aval it;
    while (n < 2 * m && n < TPL_UNROLL_MAX && item_next(t, &all, &pos, &it))
        t->fd.ur[n++] = it; /* keys first, then values: sorted below */
    if (n != 2 * m)
        return 0;
    aval keys[TPL_UNROLL_MAX / 2], vals[TPL_UNROLL_MAX / 2];
    if (m > TPL_UNROLL_MAX / 2)
        return 0;
    for (uint32_t i = 0; i < m; i++) {
        keys[i] = t->fd.ur[2 * i];
        vals[i] = t->fd.ur[2 * i + 1];
    }
    aval kl = fd_make_list(t, keys, m, pairs), vl = fd_make_list(t, vals, m, pairs);
    uint16_t k = items_var(t, t->ev.for_name, t->ev.for_len, t->ev.for_hash, &kl);
    items_var(t, t->ev.for_name2, t->ev.for_len2, t->ev.for_hash2, &vl);
    return k;
}
