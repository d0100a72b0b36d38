/* eval.c - the template analyser's evaluator (prefix ev_, state t->ev): an
 * operator-precedence (shunting-yard) pass over each tag's tokens with
 * explicit, bounded value and operator stacks - no recursion - computing
 * abstract values (constants where the folder can fold them, "unknown"
 * elsewhere) with flags that follow message content and objects reached
 * through dunder attributes. Operators bind as in Jinja's parser. Its other
 * files: gadget.c (the indicators), calls.c (calls and filters), stmt.c
 * (statements and blocks). It puts each known {{ }} value into the output
 * stream.
 *
 * Cost: every token is pushed and popped at most once; the per-tag arena
 * is reset at every tag. */
#include "template/tpl.h"

#include "common/attr.h"
#include "common/utf8.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- helpers */

/* A cap was hit: a TH_LIMIT note, and the rest of the tag is checked name by
 * name only. */
void ev_go_dead(tpl *t, uint64_t index, const char *what)
{
    t->ev.dead = true;
    fd_limit(t, index, what);
}

/* ---------------------------------------------------------------- stacks */

static bool vpush(tpl *t, aval v)
{
    if (t->ev.nv >= TPL_STACK) {
        ev_go_dead(t, v.index, "an expression nests more than 128 levels");
        return false;
    }
    t->ev.V[t->ev.nv++] = v;
    return true;
}

static void opush(tpl *t, oframe f)
{
    if (t->ev.no >= TPL_STACK) {
        ev_go_dead(t, f.index, "an expression nests more than 128 levels");
        return;
    }
    t->ev.O[t->ev.no++] = f;
}

/* ---------------------------------------------------------- operators */

static uint8_t prec_of(uint8_t op)
{
    switch (op) {
    case OP_IF:
    case OP_ELSE: return 1;
    case OP_OR: return 2;
    case OP_AND: return 3;
    case OP_NOT: return 4;
    case OP_IN:
    case OP_NOTIN:
    case OP_EQ:
    case OP_NE:
    case OP_CMP: return 5;
    case OP_ADD:
    case OP_SUB: return 6;
    case OP_CONCAT: return 7;
    case OP_MUL:
    case OP_DIV:
    case OP_FDIV:
    case OP_MOD: return 8;
    case OP_POW: return 9;
    default: return 10; /* OP_NEG, OP_POS: bind tighter than ** in Jinja */
    }
}

/* Integer arithmetic as Python does it on int64; past int64 the result is
 * F_HUGE (never printed). */
static aval int_op(uint8_t op, const aval *a, const aval *b, aval r)
{
    int64_t x = a->ival, y = b->ival, v = 0;
    bool huge = ((a->flags | b->flags) & F_HUGE) != 0;
    r.kind = AV_INT;
    r.flags = (a->flags | b->flags) & F_INEXACT;
    switch (op) {
    case OP_ADD: huge |= __builtin_add_overflow(x, y, &v); break;
    case OP_SUB: huge |= __builtin_sub_overflow(x, y, &v); break;
    case OP_MUL: huge |= __builtin_mul_overflow(x, y, &v); break;
    case OP_MOD:
    case OP_FDIV:
        if (huge || y == 0 || (x == INT64_MIN && y == -1))
            return unk_at(a); /* ZeroDivisionError, or past int64 */
        if (op == OP_MOD) {
            v = x % y;
            if (v != 0 && ((v < 0) != (y < 0)))
                v += y; /* the sign of the divisor */
        } else {
            v = x / y;
            if ((x % y != 0) && ((x < 0) != (y < 0)))
                v--; /* towards minus infinity */
        }
        break;
    default: return unk_at(a);
    }
    if (huge) {
        r.flags |= F_HUGE;
        v = INT64_MAX;
    }
    r.ival = v;
    return r;
}

/* A comparison in the tag: what it makes the condition depend on (GG734).
 * Message content compared with '' or none only tests that the message is
 * there (Command-A and Aya gate their official preamble on it): no gate.
 * The turn count counts when compared with a number of 3 or more (not the
 * first / last turn that real templates test). A role compared with a
 * value other than the usual ones ('tool', a made-up role), and a tool's
 * or message's name compared with any string, select the turns the text
 * is emitted for: a gate. */
static bool is_presence(const aval *v)
{
    return (v->kind == AV_STR && v->len == 0) || v->kind == AV_NONE ||
           (v->kind == AV_UNK && v->word == W_NONE_LIT);
}

static bool key_gate(tpl *t, const aval *key, const aval *v)
{
    return (key->flags & F_GATEKEY) && !(v->flags & F_GATEKEY) && v->kind == AV_STR && v->len > 0 &&
           !fd_is_common_role(fd_bytes(t, v), v->len);
}

static void cond_of(tpl *t, const aval *a, const aval *b)
{
    if (((a->flags & F_CONTENT) && !is_presence(b)) || ((b->flags & F_CONTENT) && !is_presence(a)))
        t->ev.cond |= GATE_CONTENT;
    if ((a->flags | b->flags) & F_DATE)
        t->ev.cond |= GATE_DATE;
    const aval *n = (a->flags & F_TURNS) ? b : (b->flags & F_TURNS) ? a : NULL;
    if (n && n->kind == AV_INT && n->ival >= 3)
        t->ev.cond |= GATE_TURNS;
    if (key_gate(t, a, b) || key_gate(t, b, a))
        t->ev.cond |= GATE_KEY;
}

/* A literal compared is not output (its special tokens do not count). */
static void not_output(tpl *t, const aval *a, const aval *b)
{
    if (a->kind == AV_STR && (a->flags & F_LITERAL))
        tk_drop(t, a->index);
    if (b->kind == AV_STR && (b->flags & F_LITERAL))
        tk_drop(t, b->index);
}

/* a * b for a string or list and a number (repetition; also GG729) */
static aval mul_value(tpl *t, const aval *a, const aval *b, aval r)
{
    bool ia = a->kind == AV_INT, ib = b->kind == AV_INT;
    if (ib && a->kind == AV_LIST)
        return fd_list_repeat(t, a, b, a);
    if (ia && b->kind == AV_LIST)
        return fd_list_repeat(t, b, a, a);
    if (ib)
        return fd_repeat(t, a, b, a);
    if (ia)
        return fd_repeat(t, b, a, a);
    return r;
}

static aval binop(tpl *t, uint8_t op, const aval *a, const aval *b, const oframe *f);

/* a OP b with one operand the items of a loop over a constant (unroll.c):
 * binop per item, called with a constant operand only (depth one) */
typedef struct ubin {
    uint8_t op;
    bool items_left;
    const aval *other;
    const oframe *f;
} ubin;

static aval unroll_bin(tpl *t, const aval *item, const void *ctx)
{
    const ubin *u = ctx;
    return u->items_left ? binop(t, u->op, item, u->other, u->f)
                         : binop(t, u->op, u->other, item, u->f);
}

static bool unroll_op(uint8_t op)
{
    return op == OP_CONCAT || op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_MOD ||
           op == OP_FDIV;
}

static aval binop(tpl *t, uint8_t op, const aval *a, const aval *b, const oframe *f)
{
    aval r = unk_at(a);
    bool ia = a->kind == AV_INT, ib = b->kind == AV_INT;
    if (t->ev.stmt == ST_SET_VALUE) { /* (the only place they look) */
        ev_dos_binop(t, op, a, b);
        if (ev_unroll_accum(t, op, a, b, &r))
            return r;
    }
    if (unroll_op(op) && t->ev.tagkind == TAG_VAR && t->ev.stmt == ST_EXPR &&
        (ev_is_items(a) ? ev_is_const(b) : ev_is_items(b) && ev_is_const(a))) {
        ubin u = {op, ev_is_items(a), ev_is_items(a) ? b : a, f};
        return ev_unroll(t, ev_is_items(a) ? a : b, unroll_bin, &u, a);
    }
    switch (op) {
    case OP_CONCAT: return fd_concat(t, a, b);
    case OP_ADD:
        if (a->kind == AV_STR && b->kind == AV_STR)
            return fd_concat(t, a, b);
        if (ia && ib)
            return int_op(op, a, b, r);
        if (a->kind == AV_LIST && b->kind == AV_LIST)
            return fd_list_concat(t, a, b);
        r.flags = (uint32_t)(((a->flags | b->flags) & (F_TAINT | F_CONTENT)) | fd_frag_of(t, a) |
                             fd_frag_of(t, b));
        return r;
    case OP_SUB:
    case OP_FDIV: return ia && ib ? int_op(op, a, b, r) : r;
    case OP_MUL:
        if (ia && ib)
            return int_op(op, a, b, r);
        r = mul_value(t, a, b, r);
        ev_dos_work(t, r.kind == AV_STR ? (int64_t)r.len : r.kind == AV_LIST ? r.ival : r.count);
        return r;
    case OP_POW: return fd_power(t, a, b);
    case OP_MOD:
        if (a->kind == AV_STR) {
            /* a tuple gives the arguments, one string or number is one */
            cval ca[MAX_CARGS];
            uint32_t n = 0;
            if (b->kind == AV_LIST ? fd_gather_args(t, b, 1, true, ca, &n)
                                   : fd_gather_args(t, b, 1, false, ca, &n))
                return fd_fold_percent(t, a, ca, n);
            r.flags |= (uint32_t)(F_STRTYPE | fd_fmt_wild(t, a, b, 1, true));
            return r;
        }
        return ia && ib ? int_op(op, a, b, r) : r;
    case OP_DIV: return r;
    case OP_IN:
    case OP_NOTIN:
        not_output(t, a, b);
        cond_of(t, a, b);
        if (a->kind == AV_STR && (b->flags & F_CONTENT) && fd_wordlike(fd_bytes(t, a), a->len))
            ev_trigger(t, a, op == OP_IN ? "with 'in' against" : "with 'not in' against");
        return r;
    case OP_EQ:
    case OP_NE:
    case OP_CMP:
        not_output(t, a, b);
        cond_of(t, a, b);
        if (op == OP_CMP)
            return r;
        if (a->kind == AV_STR && (b->flags & F_CONTENT) && fd_wordlike(fd_bytes(t, a), a->len))
            ev_trigger(t, a, "for equality with");
        else if (b->kind == AV_STR && (a->flags & F_CONTENT) && fd_wordlike(fd_bytes(t, b), b->len))
            ev_trigger(t, b, "for equality with");
        return r;
    default: return r;
    }
}

static __attribute__((noinline)) void reduce_op(tpl *t)
{
    oframe f = t->ev.O[--t->ev.no];
    if (f.kind == O_UNARY) {
        if (t->ev.nv > f.vh) {
            aval *v = &t->ev.V[t->ev.nv - 1];
            if (f.op == OP_NEG && v->kind == AV_INT) {
                if (v->ival == INT64_MIN)
                    v->flags |= F_HUGE;
                else
                    v->ival = -v->ival;
                v->flags &= (uint32_t)~F_LITERAL;
            } else if (f.op == OP_POS && v->kind == AV_INT) {
                v->flags &= (uint32_t)~F_LITERAL;
            } else {
                *v = unk_at(v); /* not, or -'a' (a TypeError) */
            }
        }
        return;
    }
    if (f.vh == 0 || t->ev.nv <= f.vh)
        return; /* no right operand: dropped */
    aval a = t->ev.V[f.vh - 1], b = t->ev.V[t->ev.nv - 1];
    t->ev.nv = f.vh - 1;
    t->ev.V[t->ev.nv++] = binop(t, f.op, &a, &b, &f);
}

static int reduce_to_marker(tpl *t)
{
    while (t->ev.no > 0 && t->ev.O[t->ev.no - 1].kind <= O_UNARY)
        reduce_op(t);
    return t->ev.no > 0 ? (int)t->ev.no - 1 : -1;
}

static void push_unary(tpl *t, uint8_t op, const tok *k)
{
    oframe f = {.kind = O_UNARY, .op = op, .prec = prec_of(op), .vh = t->ev.nv, .index = k->index};
    opush(t, f);
    t->ev.expect = true;
}

static void push_bin(tpl *t, uint8_t op, const tok *k)
{
    if (t->ev.expect) {
        if (op == OP_SUB)
            push_unary(t, OP_NEG, k);
        else if (op == OP_ADD)
            push_unary(t, OP_POS, k);
        return;
    }
    uint8_t p = prec_of(op);
    while (t->ev.no > 0) {
        const oframe *top = &t->ev.O[t->ev.no - 1];
        if (top->kind > O_UNARY)
            break;
        if (top->prec >= p) /* all left-associative in Jinja, ** too */
            reduce_op(t);
        else
            break;
    }
    oframe f = {.kind = O_BIN, .op = op, .prec = p, .vh = t->ev.nv, .index = k->index};
    opush(t, f);
    t->ev.expect = true;
}

/* An operand where an operator was expected ({{ a b }}, {% include 'x' %}):
 * close what is open down to the nearest bracket and keep going. */
static void juxtapose(tpl *t)
{
    reduce_to_marker(t);
}

static inline __attribute__((always_inline)) void operand(tpl *t, aval v)
{
    if (!t->ev.expect) {
        if (t->ev.tagkind == TAG_VAR && t->ev.stmt == ST_EXPR)
            tpl_report(t, TH_SYNTAX, v.index,
                       "two operands in a row in a {{ }} tag, no operator between them "
                       "(Jinja rejects the template: \"expected token 'end of print "
                       "statement'\")");
        juxtapose(t);
    }
    vpush(t, v);
    t->ev.expect = false;
}

static void open_marker(tpl *t, uint8_t kind, const tok *k, uint16_t word)
{
    oframe f = {.kind = kind, .word = word, .vh = t->ev.nv, .index = k->index};
    opush(t, f);
    t->ev.expect = true;
}

static void apply_pending_filter(tpl *t)
{
    if (t->ev.nv == 0)
        return;
    aval at = t->ev.V[t->ev.nv - 1];
    at.index = t->ev.pend_index;
    aval x = t->ev.V[t->ev.nv - 1];
    aval r;
    if (!ev_is_items(&x) || !ev_unroll_filter(t, t->ev.pend_word, &x, NULL, 0, 0, &at, &r))
        r = ev_apply_filter(t, t->ev.pend_word, &x, NULL, 0, 0, &at);
    if (r.kind == AV_UNK)
        r.flags |= ev_filter_content(t, t->ev.pend_word, &x, NULL, 0, 0);
    if (r.kind != AV_STR && r.kind != AV_INT && r.kind != AV_LIST)
        ch_filter(t, &r, &x, t->ev.pend_word, 0);
    t->ev.V[t->ev.nv - 1] = r;
}

/* Whether x or one of args is a loop's items (then unroll.c may apply the
 * operation per item; inline: almost never). */
static inline bool any_items(const aval *x, const aval *args, uint32_t n)
{
    if (x && ev_is_items(x))
        return true;
    for (uint32_t i = 0; i < n; i++)
        if (ev_is_items(&args[i]))
            return true;
    return false;
}

/* The list of n items; when folded (n >= 1), items[0] is already the list
 * of the items before them (compact folded them) and the rest is appended. */
static aval list_of(tpl *t, const aval *items, uint32_t n, bool folded, const aval *at)
{
    if (!folded)
        return fd_make_list(t, items, n, at);
    aval rest = fd_make_list(t, items + 1, n - 1, at);
    int64_t c = items[0].count >= 0 ? items[0].count + (int64_t)(n - 1) : -1;
    const aval *a = &items[0];
    if (a->kind == AV_LIST && rest.kind == AV_LIST &&
        !((a->flags | rest.flags) & (F_VAR | F_DICT)) && !((a->flags ^ rest.flags) & F_TUPLE) &&
        (uint64_t)a->off + a->len <= rest.off && (uint64_t)rest.off + rest.len == t->fd.ar_len) {
        /* In place: what lies between the list so far and the new items'
         * list is the bytes of those items, consumed now; the new items
         * move down behind the list. Copying the whole list at every
         * compaction made a flat list of 2000 short literals fill the
         * 256 KiB arena (GG733 on a benign literal). */
        memmove(t->fd.ar + a->off + a->len, t->fd.ar + rest.off, rest.len);
        aval r = unk_at(a);
        r.kind = AV_LIST;
        r.flags = ((a->flags | rest.flags) & (F_INEXACT | F_TAINT)) | (a->flags & F_TUPLE);
        r.off = a->off;
        r.len = a->len + rest.len;
        r.ival = a->ival + rest.ival;
        r.count = c;
        t->fd.ar_len = r.off + r.len;
        return r;
    }
    aval r = fd_list_concat(t, a, &rest);
    r.count = c;
    return r;
}

/* The items of an open bracket folded into one value so its width does
 * not count as depth (TPL_WIDTH_LIST / TPL_WIDTH_ARGS; caps.h). A list or
 * tuple keeps folding exactly (V[vh] becomes the list of the items so far,
 * joined with the rest when it closes); a dict, call, filter or subscript
 * lumps its arguments into one unknown value with their flags. */
static void compact(tpl *t, oframe *f)
{
    uint32_t base = f->vh, n = t->ev.nv - base;
    aval *items = &t->ev.V[base];
    aval at;
    memset(&at, 0, sizeof at);
    at.index = f->index;
    if (f->kind == M_LIST || f->kind == M_GROUP) {
        if (n < TPL_WIDTH_LIST)
            return;
        aval r = list_of(t, items, n, f->acc == 1, &at);
        f->acc = 1;
        t->ev.V[base] = r;
        t->ev.nv = base + 1;
        return;
    }
    if (n < (f->kind == M_DICT ? TPL_WIDTH_LIST : TPL_WIDTH_ARGS))
        return;
    aval r = unk_at(&at);
    for (uint32_t i = 0; i < n; i++)
        r.flags |= (uint32_t)((items[i].flags & (F_TAINT | F_CONTENT | F_FRAG)) |
                              fd_frag_of(t, &items[i]));
    f->acc = 2;
    t->ev.V[base] = r;
    t->ev.nv = base + 1;
    uint32_t m = (uint32_t)(f - t->ev.O);
    while (t->ev.n_kw > 0 && t->ev.kw[t->ev.n_kw - 1].frame >= m)
        t->ev.n_kw--; /* this bracket's keyword arguments are lumped too */
}

/* The keys of a dict literal {k: v, ...} (items k, v, k, v ... at the
 * value stack) as an F_DICT list when they are distinct constants. */
static aval dict_keys(tpl *t, aval *items, uint32_t n, const oframe *f, const aval *at)
{
    aval r = unk_at(at);
    for (uint32_t i = 0; i < n; i++)
        r.flags |= items[i].flags & F_TAINT;
    if (f->acc || (n & 1) || f->colons != 0)
        return r;
    uint32_t m = n / 2;
    fd_dict_remember(t, items, m, at); /* for its |items */
    for (uint32_t i = 0; i < m; i++) {
        aval *k = &items[2 * i];
        if (k->kind != AV_STR && (k->kind != AV_INT || (k->flags & F_HUGE)))
            return r;
        for (uint32_t j = 0; j < i; j++) { /* a repeated key is kept once (first place) */
            const aval *o = &items[j];
            if (o->kind == k->kind &&
                (k->kind == AV_INT
                     ? o->ival == k->ival
                     : o->len == k->len && memcmp(fd_bytes(t, o), fd_bytes(t, k), k->len) == 0))
                return r; /* (not modelled: unknown) */
        }
        items[i] = *k;
    }
    aval l = fd_make_list(t, items, m, at);
    if (l.kind == AV_LIST)
        l.flags |= F_DICT;
    return l;
}

/* dict(k=v, ...) with keyword arguments only: the names, in order. */
static aval dict_call(tpl *t, const aval *c, uint32_t base, uint32_t n, const oframe *f)
{
    aval r = unk_at(c);
    aval keys[TPL_KW_MAX];
    uint32_t m = 0;
    if (f->acc || f->kws != n || n == 0 || n > TPL_KW_MAX)
        return r;
    for (uint32_t i = 0; i < t->ev.n_kw; i++) {
        uint32_t p = t->ev.kw[i].pos;
        if (t->ev.kw[i].frame != t->ev.no || p < base || p >= base + n)
            continue;
        aval k = unk_at(c);
        k.kind = AV_STR;
        k.off = t->ev.kw[i].off;
        k.len = t->ev.kw[i].len;
        for (uint32_t j = 0; j < m; j++)
            if (keys[j].len == k.len &&
                memcmp(t->fd.ar + keys[j].off, t->fd.ar + k.off, k.len) == 0)
                return r; /* repeated: Jinja rejects it */
        keys[m++] = k;
    }
    if (m != n)
        return r;
    aval l = fd_make_list(t, keys, m, c);
    if (l.kind == AV_LIST)
        l.flags |= F_DICT;
    for (uint32_t i = 0; i < n; i++) /* values of message content (GG736) */
        l.flags |= t->ev.V[base + i].flags & F_CONTENT;
    return l;
}

static void close_marker(tpl *t, const tok *k)
{
    if (reduce_to_marker(t) < 0)
        return; /* a stray closer */
    oframe f = t->ev.O[--t->ev.no];
    if (f.kind == M_SUB && f.colons > 0 && t->ev.expect) {
        aval none = val_tok(k, AV_NONE);
        if (!vpush(t, none))
            return;
    }
    if (f.vh == 0 && (f.kind == M_CALL || f.kind == M_SUB || f.kind == M_FILTER))
        f.kind = M_GROUP;
    uint32_t base = f.vh, n = t->ev.nv - base;
    aval *items = &t->ev.V[base];
    aval r;
    aval at;
    memset(&at, 0, sizeof at);
    at.index = f.index;
    /* a list, tuple or dict that holds message content, when it is not
     * folded, is content (what |tojson of it writes, GG736) */
    uint32_t content = 0;
    if (f.kind == M_LIST || f.kind == M_GROUP || f.kind == M_DICT)
        for (uint32_t i = 0; i < n; i++)
            content |= items[i].flags & F_CONTENT;
    switch (f.kind) {
    case M_GROUP:
        if (n == 1 && f.commas == 0 && !f.acc) {
            t->ev.expect = false;
            return;
        }
        GGUFLINT_FALLTHROUGH; /* a group of several items is a tuple */
    case M_LIST:
        r = list_of(t, items, n, f.acc == 1 && n >= 1, &at);
        if (f.kind == M_GROUP && r.kind == AV_LIST)
            r.flags |= F_TUPLE;
        break;
    case M_CALL: {
        aval c = t->ev.V[base - 1];
        if (c.kind == AV_NAME && t->ev.stmt_word == W_MACRO && t->ev.no == 0)
            ev_dos_macro_def(t, &c); /* {% macro NAME(...) %} */
        else if (c.kind == AV_NAME && c.word == W_LOOP && n >= 1)
            ev_dos_loop_call(t, &items[0], c.index);
        else if (c.kind == AV_NAME && t->ev.macro_len)
            ev_dos_call(t, &c, t->ev.descents != f.desc0);
        if (c.kind == AV_ATTR && any_items(NULL, items, n) &&
            ev_unroll_method(t, &c, items, n, f.kws, &r))
            ; /* a loop over a constant: every item */
        else if (c.kind == AV_ATTR)
            r = ev_method_call(t, &c, items, n, f.kws);
        else if (c.kind == AV_NAME && c.word == W_NAMESPACE)
            r = ev_namespace(t, &c, items, n, base);
        else if (c.kind == AV_NAME && c.word == W_DICT && f.kws == n && n > 0)
            r = dict_call(t, &c, base, n, &f);
        else if (c.kind == AV_NAME && any_items(NULL, items, n) &&
                 ev_unroll_global(t, &c, items, n, &r))
            ; /* chr() of every item */
        else if (c.kind == AV_NAME)
            r = ev_global_call(t, &c, items, n);
        else {
            r = unk_at(&c);
            r.flags = c.flags & F_TAINT;
        }
        if (r.kind != AV_STR && r.kind != AV_INT && r.kind != AV_LIST)
            ch_call(t, &r, &c, items, n);
        base--;
        break;
    }
    case M_SUB: {
        aval x = t->ev.V[base - 1];
        r = unk_at(&x);
        r.flags = x.flags & F_TAINT;
        if (f.colons == 0 && n >= 1) {
            const aval *key = &items[n - 1];
            r.flags |= ev_key_check(t, key, &x, K_SUB);
            if (key->kind == AV_STR) {
                const uint8_t *s = fd_bytes(t, key);
                if ((key->len == 7 && memcmp(s, "content", 7) == 0) ||
                    (key->len == 4 && memcmp(s, "text", 4) == 0 && (x.flags & F_CONTENT)))
                    r.flags |= F_CONTENT;
                if (fd_is_gatekey(s, key->len))
                    r.flags |= F_GATEKEY;
            } else if ((ev_is_items(key) || ev_is_items(&x)) && ev_unroll_index(t, &x, key, &r)) {
                r.flags |= x.flags & F_TAINT; /* an item of each, in turn */
            } else if (key->kind == AV_INT && !(key->flags & F_HUGE) &&
                       (x.kind == AV_STR || (x.kind == AV_LIST && !(x.flags & F_DICT)))) {
                uint32_t keep = r.flags;
                r = fd_fold_index(t, &x, key->ival);
                r.flags |= keep;
            }
        } else if (f.colons > 0 && x.kind == AV_STR) {
            r = fd_fold_slice(t, &x, items, n);
        }
        if (r.kind == AV_UNK && x.kind == AV_LIST)
            r.flags |= fd_frag_of(t, &x); /* an item or a slice of dunder pieces */
        if (f.colons == 0 && n >= 1 && r.kind != AV_STR && r.kind != AV_INT)
            ch_subscript(t, &r, &x, &items[n - 1]);
        base--;
        break;
    }
    case M_FILTER: {
        aval x = t->ev.V[base - 1];
        uint16_t taint = ev_attr_args(t, f.word, &x, items, n, f.attr_kw);
        if (!any_items(&x, items, n) || !ev_unroll_filter(t, f.word, &x, items, n, f.kws, &at, &r))
            r = ev_apply_filter(t, f.word, &x, items, n, f.kws, &at);
        r.flags |= taint;
        if (r.kind == AV_UNK)
            r.flags |= ev_filter_content(t, f.word, &x, items, n, f.attr_kw);
        if (r.kind != AV_STR && r.kind != AV_INT && r.kind != AV_LIST) {
            if (f.word == W_ATTR && n >= 1)
                ch_attr(t, &r, &x, &items[0]);
            else
                ch_filter(t, &r, &x, f.word, n);
        }
        base--;
        break;
    }
    case M_TEST: /* the tested value (already unknown) stays; drop the arguments */
        t->ev.nv = base;
        t->ev.expect = false;
        return;
    case M_DICT: r = dict_keys(t, items, n, &f, &at); break;
    default: r = unk_at(&at); break;
    }
    if (r.kind == AV_UNK || (f.kind == M_DICT && r.kind == AV_LIST))
        r.flags |= content; /* a dict of folded keys keeps its values' content */
    while (t->ev.n_kw > 0 && t->ev.kw[t->ev.n_kw - 1].frame >= t->ev.no)
        t->ev.n_kw--; /* this bracket's keyword arguments */
    t->ev.nv = base;
    vpush(t, r);
    t->ev.expect = false;
}

/* ---------------------------------------------------------- tokens */

static bool is_op_keyword(unsigned w)
{
    return w == W_AND || w == W_OR || w == W_NOT || w == W_IN || w == W_IS || w == W_IF ||
           w == W_ELSE;
}

/* Inside the arguments of a call, filter, subscript or test, or a dict. */
static bool in_args(const tpl *t)
{
    for (uint32_t i = 0; i < t->ev.no; i++) {
        uint8_t k = t->ev.O[i].kind;
        if (k == M_CALL || k == M_SUB || k == M_FILTER || k == M_TEST || k == M_DICT)
            return true;
    }
    return false;
}

static void name_tok(tpl *t, const tok *k)
{
    switch (k->word) {
    case W_AND: push_bin(t, OP_AND, k); return;
    case W_OR: push_bin(t, OP_OR, k); return;
    case W_NOT:
        if (t->ev.expect)
            push_unary(t, OP_NOT, k);
        else
            t->ev.pend_ev = PE_NOT;
        return;
    case W_IN: push_bin(t, OP_IN, k); return;
    case W_IS:
        if (!t->ev.expect && t->ev.nv > 0) {
            t->ev.V[t->ev.nv - 1] = unk_at(&t->ev.V[t->ev.nv - 1]);
            t->ev.pend_ev = PE_IS;
        }
        return;
    case W_IF: push_bin(t, OP_IF, k); return;
    case W_ELSE: push_bin(t, OP_ELSE, k); return;
    case W_TRUE:
    case W_FALSE:
    case W_NONE_LIT:
    case W_TRUE_U:
    case W_FALSE_U:
    case W_NONE_U: {
        aval v = val_tok(k, AV_UNK);
        if (k->word == W_NONE_LIT || k->word == W_NONE_U)
            v.word = W_NONE_LIT; /* a presence test's other side (cond_of) */
        operand(t, v);
        return;
    }
    default: break;
    }
    char e[96];
    if (fd_is_dunder(k->s, k->n))
        tpl_report(t, TH_GADGET, k->index, "name '%s' is a Python dunder (SSTI gadget)",
                   tpl_quote(e, sizeof e, k->s, k->n, 40));
    if (!(k->lflags & LF_ASCII))
        fd_homoglyph_check(t, k->s, k->n, k->index, "name");
    /* where an operand is expected and the stack has room (nearly always),
     * the value is made in its slot; else it is made aside and operand()
     * does the rest */
    aval aside;
    const bool in_place = t->ev.expect && t->ev.nv < TPL_STACK;
    aval *v = in_place ? &t->ev.V[t->ev.nv] : &aside;
    var *x = fd_var_find(t, k->s, k->n, k->hash);
    if (x) {
        *v = x->v;
        v->index = k->index;
        v->vid = (uint16_t)(x - t->fd.vars + 1);
        ch_load(t, v, x, k->s, k->n);
    } else {
        *v = val_tok(k, AV_NAME);
        v->word = k->word;
        if (k->n && fd_ar_put(t, k->s, k->n, &v->off))
            v->len = k->n;
        ch_name(t, v, v->off, v->len);
        if (t->ev.tagkind == TAG_VAR && t->ev.stmt == ST_EXPR && !in_args(t))
            tk_name(t, k->s, k->n, k->index); /* {{ bos_token }} */
    }
    if (in_place) {
        t->ev.nv++;
        t->ev.expect = false;
    } else {
        operand(t, aside);
    }
    /* inside a call, remember the name: it is a keyword argument's if '='
     * follows (namespace(k=[]) keeps it) */
    t->ev.kw_at = 0;
    if (!t->ev.dead && t->ev.no > 0 && t->ev.O[t->ev.no - 1].kind == M_CALL &&
        k->n <= TPL_NAME_CAP) {
        memcpy(t->ev.kw_name, k->s, k->n);
        t->ev.kw_len = k->n;
        t->ev.kw_hash = k->hash;
        t->ev.kw_at = t->ev.nv;
    }
}

static void str_tok(tpl *t, const tok *k, bool after_str)
{
    if (!(k->lflags & LF_TRUNC) && (t->ev.tagkind == TAG_VAR || t->ev.stmt == ST_SET_VALUE) &&
        !in_args(t))
        tk_literal(t, k->s, k->n, k->index); /* special tokens it may output */
    aval v = val_tok(k, AV_STR);
    if (k->lflags & LF_TRUNC) {
        v.kind = AV_UNK;
        v.count = (int64_t)k->full;
    } else if (!fd_ar_put(t, k->s, k->n, &v.off)) {
        if (!t->nomem)
            fd_limit(t, k->index, "the per-tag arena (256 KiB) is full");
        v.kind = AV_UNK;
        v.count = k->n;
    } else {
        v.len = k->n;
        v.count = k->n;
        v.flags = F_LITERAL | F_SCANNED;
        if ((k->lflags & LF_INEXACT) || (!(k->lflags & LF_ASCII) && !utf8_valid(k->s, k->n)))
            v.flags |= F_INEXACT;
    }
    if (!t->ev.expect && after_str && t->ev.nv > 0 && t->ev.V[t->ev.nv - 1].kind == AV_STR &&
        (t->ev.V[t->ev.nv - 1].flags & F_LITERAL) && v.kind == AV_STR) {
        /* 'a' 'b': Jinja joins adjacent literals */
        aval a = t->ev.V[t->ev.nv - 1];
        aval r = fd_concat(t, &a, &v);
        r.flags |= F_LITERAL;
        t->ev.V[t->ev.nv - 1] = r;
        return;
    }
    operand(t, v);
}

static void op_tok(tpl *t, const tok *k)
{
    switch (k->op) {
    case '.':
        if (!t->ev.expect && t->ev.nv > 0) {
            t->ev.pend_ev = PE_DOT;
            t->ev.descents++;
        }
        return;
    case '|':
        if (!t->ev.expect && t->ev.nv > 0) {
            /* Jinja filters the whole unary expression: -2|string is '-2' */
            while (t->ev.no > 0 && t->ev.O[t->ev.no - 1].kind == O_UNARY &&
                   t->ev.O[t->ev.no - 1].op != OP_NOT)
                reduce_op(t);
            t->ev.pend_ev = PE_PIPE;
        }
        return;
    case '(':
        if (!t->ev.expect && t->ev.nv > 0) {
            open_marker(t, M_CALL, k, 0);
            if (t->ev.no > 0)
                t->ev.O[t->ev.no - 1].desc0 = t->ev.descents;
        } else
            open_marker(t, M_GROUP, k, 0);
        return;
    case '[':
        if (!t->ev.expect && t->ev.nv > 0) {
            open_marker(t, M_SUB, k, 0);
            t->ev.descents++;
        } else {
            open_marker(t, M_LIST, k, 0);
        }
        return;
    case '{':
        if (!t->ev.expect)
            juxtapose(t);
        open_marker(t, M_DICT, k, 0);
        return;
    case ')':
    case ']':
    case '}': close_marker(t, k); return;
    case ',': {
        int m = reduce_to_marker(t);
        if (m >= 0) {
            if (t->ev.O[m].commas < 255)
                t->ev.O[m].commas++;
            if (t->ev.nv - t->ev.O[m].vh >= TPL_WIDTH_LIST)
                compact(t, &t->ev.O[m]); /* width is not depth */
        } else {
            t->ev.tuple = true;
        }
        t->ev.expect = true;
        return;
    }
    case ':': {
        int m = reduce_to_marker(t);
        if (m >= 0 && t->ev.O[m].kind == M_SUB) {
            if (t->ev.expect && !vpush(t, val_tok(k, AV_NONE)))
                return;
            if (t->ev.O[m].colons < 255)
                t->ev.O[m].colons++;
        }
        t->ev.expect = true;
        return;
    }
    case '=': {
        bool kwname = t->ev.kw_at != 0 && t->ev.kw_at == t->ev.nv;
        int m = reduce_to_marker(t);
        uint32_t base = m >= 0 ? t->ev.O[m].vh : 0;
        if (m >= 0 && t->ev.O[m].kws < 255)
            t->ev.O[m].kws++;
        if (m >= 0 && t->ev.nv > base && t->ev.V[t->ev.nv - 1].kind == AV_NAME &&
            t->ev.V[t->ev.nv - 1].word == W_ATTRIBUTE && t->ev.nv - base < 255)
            t->ev.O[m].attr_kw = (uint8_t)(t->ev.nv - base); /* its value comes next */
        if (t->ev.nv > base)
            t->ev.nv--; /* a keyword argument's name */
        uint32_t off;
        if (m >= 0 && kwname && t->ev.O[m].kind == M_CALL && t->ev.n_kw < TPL_KW_MAX &&
            fd_ar_put(t, t->ev.kw_name, t->ev.kw_len, &off)) {
            uint32_t i = t->ev.n_kw++; /* its value comes at this height */
            t->ev.kw[i].frame = (uint32_t)m;
            t->ev.kw[i].pos = t->ev.nv;
            t->ev.kw[i].off = off;
            t->ev.kw[i].len = t->ev.kw_len;
            t->ev.kw[i].hash = t->ev.kw_hash;
        }
        t->ev.kw_at = 0;
        t->ev.expect = true;
        return;
    }
    case '~': push_bin(t, OP_CONCAT, k); return;
    case '+': push_bin(t, OP_ADD, k); return;
    case '-': push_bin(t, OP_SUB, k); return;
    case '*': push_bin(t, OP_MUL, k); return;
    case '/': push_bin(t, OP_DIV, k); return;
    case OPC_FDIV: push_bin(t, OP_FDIV, k); return;
    case '%': push_bin(t, OP_MOD, k); return;
    case OPC_POW: push_bin(t, OP_POW, k); return;
    case OPC_EQ: push_bin(t, OP_EQ, k); return;
    case OPC_NE: push_bin(t, OP_NE, k); return;
    case '<':
    case '>':
    case OPC_LE:
    case OPC_GE: push_bin(t, OP_CMP, k); return;
    default: return;
    }
}

/* Whether the token needs an operand after it: a binary or unary
 * operator, '.', '|', or one of and / or / not / in / is / if / else. */
static const uint8_t op_closes[256] = {[','] = 1, [':'] = 1, ['('] = 1, ['['] = 1, ['{'] = 1,
                                       ['='] = 1, [')'] = 1, [']'] = 1, ['}'] = 1};

static bool needs_operand(const tok *k)
{
    if (k->kind == TK_OP)
        return !op_closes[k->op];
    if (k->kind == TK_NAME)
        return is_op_keyword(k->word);
    return false;
}

/* The pending attribute, filter or test is settled; followed by '(' (paren),
 * its call opens (a marker of kind) and the '(' is taken: true. */
static bool pend_call(tpl *t, bool paren, uint8_t kind, const tok *k, uint16_t word)
{
    t->ev.pend_ev = PE_NONE;
    if (paren)
        open_marker(t, kind, k, word);
    return paren;
}

/* What the token before left pending (PE_*): true when that took the
 * token. */
static bool pending_tok(tpl *t, const tok *k)
{
    bool paren = k->kind == TK_OP && k->op == '(';
    switch (t->ev.pend_ev) {
    case PE_DOT:
        t->ev.pend_ev = PE_NONE;
        if (k->kind == TK_NAME) {
            if (!ev_unroll_loop_attr(t, k))
                ev_attr_access(t, k);
            t->ev.last_str = false;
            return true;
        }
        if (k->kind == TK_INT && t->ev.nv > 0) { /* foo.0 */
            aval *r = &t->ev.V[t->ev.nv - 1];
            uint32_t fl = r->flags & F_TAINT;
            *r = unk_at(r);
            r->flags = fl;
            return true;
        }
        break;
    case PE_PIPE:
        t->ev.pend_ev = PE_NONE;
        if (k->kind == TK_NAME) {
            t->ev.pend_ev = PE_FILTER;
            t->ev.pend_word = k->word;
            t->ev.pend_index = k->index;
            return true;
        }
        break;
    case PE_ATTR:
        if (pend_call(t, paren, M_CALL, k, 0))
            return true;
        ev_settle_attr(t);
        break;
    case PE_FILTER:
        if (pend_call(t, paren, M_FILTER, k, t->ev.pend_word))
            return true;
        apply_pending_filter(t);
        break;
    case PE_NOT:
        t->ev.pend_ev = PE_NONE;
        if (k->kind == TK_NAME && k->word == W_IN) {
            push_bin(t, OP_NOTIN, k);
            return true;
        }
        break;
    case PE_IS:
        if (k->kind == TK_NAME && k->word == W_NOT)
            return true;
        t->ev.pend_ev = PE_NONE;
        if (k->kind == TK_NAME) {
            t->ev.pend_ev = PE_IS_NAME;
            return true;
        }
        break;
    case PE_IS_NAME:
        if (pend_call(t, paren, M_TEST, k, 0))
            return true;
        if (k->kind == TK_STR || k->kind == TK_INT || k->kind == TK_FLOAT ||
            (k->kind == TK_NAME && !is_op_keyword(k->word)))
            return true; /* the test's single argument */
        break;
    default: break;
    }
    return false;
}

static void expr_tok(tpl *t, const tok *k)
{
    /* syntax_end reads dangling_index_prev only after a last token that
     * needs an operand (the '-' of a -}} the byte loop emitted), so it
     * moves only with such a token */
    t->ev.sect++;
    const bool dangling = needs_operand(k);
    t->ev.dangling_prev = t->ev.dangling;
    t->ev.dangling = dangling;
    if (dangling) {
        t->ev.dangling_index_prev = t->ev.dangling_index;
        t->ev.dangling_index = k->index;
    }
    if (t->ev.pend_ev != PE_NONE && pending_tok(t, k))
        return;
    bool after_str = t->ev.last_str;
    t->ev.last_str = false;
    switch (k->kind) {
    case TK_STR:
        str_tok(t, k, after_str);
        t->ev.last_str = true;
        return;
    case TK_INT: {
        aval v = val_tok(k, AV_INT);
        v.ival = k->ival;
        if (k->huge) {
            v.flags |= F_HUGE;
            v.ival = INT64_MAX;
        }
        operand(t, v);
        return;
    }
    case TK_FLOAT: operand(t, val_tok(k, AV_UNK)); return;
    case TK_NAME: name_tok(t, k); return;
    case TK_OP: op_tok(t, k); return;
    default: return;
    }
}

/* Resolve what a tag's last token left pending and reduce everything. */
void ev_flush(tpl *t)
{
    if (t->ev.dead) {
        t->ev.nv = t->ev.no = 0;
        return;
    }
    if (t->ev.pend_ev == PE_ATTR)
        ev_settle_attr(t);
    else if (t->ev.pend_ev == PE_FILTER)
        apply_pending_filter(t);
    t->ev.pend_ev = PE_NONE;
    while (t->ev.no > 0 && !t->ev.dead) {
        if (t->ev.O[t->ev.no - 1].kind <= O_UNARY) {
            reduce_op(t);
        } else {
            t->ev.nv = t->ev.O[t->ev.no - 1].vh; /* an unclosed bracket: drop its contents */
            t->ev.no--;
            while (t->ev.n_kw > 0 && t->ev.kw[t->ev.n_kw - 1].frame >= t->ev.no)
                t->ev.n_kw--;
        }
    }
    if (t->ev.dead)
        t->ev.nv = t->ev.no = 0;
}

/* ------------------------------------------------------------- interface */

void ev_template_begin(tpl *t)
{
    t->ev.n_blocks = 0;
    t->ev.blocks_over = 0;
    t->ev.lc_next = 0;
    t->ev.raw_next = false;
    ev_cap_template_begin(t);
}

void ev_begin(tpl *t, uint8_t tagkind, uint64_t index)
{
    /* nv .. ws_close (eval.h): counts, states and flags of the tag */
    memset(&t->ev.nv, 0,
           offsetof(tpl_eval, ws_close) + sizeof t->ev.ws_close - offsetof(tpl_eval, nv));
    _Static_assert(ST_EXPR == 0 && PE_NONE == 0 && W_NONE == 0, "zero is the start state");
    ev_dos_text(t, index); /* the text before the tag, in the loops open there */
    t->ev.tagkind = tagkind;
    t->ev.tag_index = index;
    t->ev.expect = true;
    t->ev.first = true;
    fd_tag_begin(t);
}

/* A token that is not the tag's first, in an expression of a live tag. */
static bool tok_plain(const tpl *t)
{
    return !t->ev.first && !t->ev.dead && (t->ev.stmt == ST_EXPR || t->ev.stmt == ST_SET_VALUE);
}

/* The other tokens: statements and their targets, dead tags. */
static void tok_special(tpl *t, const tok *k)
{
    if (t->ev.first) {
        t->ev.first = false;
        if (t->ev.tagkind == TAG_BLOCK && k->kind == TK_NAME && ev_statement(t, k))
            return;
    }
    switch (t->ev.stmt) {
    case ST_IGNORE: return;
    case ST_SET_TARGET: ev_set_target(t, k); return;
    case ST_FOR_TARGET: ev_for_target(t, k); return;
    case ST_FOR_ITER:
        if (k->kind == TK_NAME && (k->word == W_IF || k->word == W_RECURSIVE) && !t->ev.dead &&
            !ev_marker_open(t)) {
            ev_flush(t);
            ev_finish_for(t);
            if (k->word == W_IF) /* {% for c in K if cond %}: some items are skipped */
                ev_loop_inexact(t);
            if (k->word == W_RECURSIVE && t->ev.n_blocks && !t->ev.blocks_over &&
                t->ev.blocks[t->ev.n_blocks - 1].kind == W_FOR)
                t->ev.blocks[t->ev.n_blocks - 1].recursive = true;
            t->ev.stmt = ST_EXPR;
            return;
        }
        break;
    default: break;
    }
    if (t->ev.dead) {
        ev_lexical(t, k);
        return;
    }
    expr_tok(t, k);
    if (t->ev.dead)
        t->ev.last_dot = false;
}

void ev_tok(tpl *t, const tok *k)
{
    if (t->nomem)
        return;
    if (k->kind == TK_STR)
        fd_literal_check(t, k);
    if (!tok_plain(t)) {
        tok_special(t, k);
        return;
    }
    expr_tok(t, k);
    if (t->ev.dead)
        t->ev.last_dot = false;
}

/* {% set NAME = value %} or {% set ns.NAME = value %} (a namespace()
 * attribute): the value is stored, unknown when the target or the value
 * is several, F_INEXACT when set inside a loop or a branch. */
static void set_value(tpl *t)
{
    if (!t->ev.set_len)
        return;
    var *x;
    if (t->ev.set_attr) {
        ev_cap_mutation(t); /* a namespace lasts across a loop's turns */
        var *ns = fd_var_find(t, t->ev.set_name, t->ev.set_len, t->ev.set_hash);
        if (!ns || ns->v.kind != AV_NS || t->ev.attr_len == 0)
            return;
        x = fd_var_get_ns(t, (uint32_t)ns->v.ival, t->ev.attr_name, t->ev.attr_len, t->ev.attr_hash,
                          t->ev.tag_index);
    } else {
        x = fd_var_get(t, t->ev.set_name, t->ev.set_len, t->ev.set_hash, t->ev.tag_index);
    }
    if (!x)
        return;
    aval v;
    memset(&v, 0, sizeof v);
    v.kind = AV_UNK;
    v.count = -1;
    v.index = t->ev.tag_index;
    if (!t->ev.set_multi && !t->ev.tuple && t->ev.nv == 1)
        v = t->ev.V[0];
    else if (t->ev.nv > 0)
        v = unk_at(&t->ev.V[0]);
    if (ev_in_branch(t) || ev_in_scope(t, t->ev.n_blocks))
        v.flags |= F_INEXACT;
    fd_var_assign(t, x, &v);
}

/* A {{ }} tag ends: its value, when known, is what Jinja emits here, so it
 * goes into the output stream (unknown values are transparent). */
void ev_probe_begin(tpl *t, uint8_t *buf, size_t cap)
{
    t->ev.probe_buf = buf;
    t->ev.probe_cap = cap;
    t->ev.probe_len = 0;
    t->ev.probe_known = false;
}

bool ev_probe_end(tpl *t, size_t *len)
{
    t->ev.probe_buf = NULL;
    *len = t->ev.probe_known ? t->ev.probe_len : 0;
    return t->ev.probe_known;
}

/* {{ c }} of a loop over a constant: its items, in order. */
static void emit_items(tpl *t, const aval *v)
{
    const uint8_t *p = fd_bytes(t, v);
    ts_segment(&t->ts.out, SG_VALUE | SG_ITEMS);
    if (v->rword == AV_STR) {
        ts_run(t, &t->ts.out, p, v->len, v->index, true);
        return;
    }
    for (uint32_t pos = 0; pos + 4 <= v->len;) {
        uint32_t w;
        memcpy(&w, p + pos, 4);
        w &= 0x7FFFFFFFu; /* the length, without the integer mark */
        ts_run(t, &t->ts.out, p + pos + 4, w, v->index, true);
        pos += 4 + w;
    }
}

/* tpl_probe: the items a {{ }} emits in the one loop open around it (over
 * a constant, and the value comes from that loop's variable), joined: what
 * {% for c in K %}{{ v }}{% endfor %} renders. False otherwise. */
static bool probe_items(tpl *t, const aval *v)
{
    if (t->ev.n_blocks != 1 || t->ev.blocks_over || t->ev.blocks[0].kind != W_FOR)
        return false;
    uint16_t from = v->vid ? v->vid : v->word;
    if (!from || t->ev.blocks[0].items_vid != from)
        return false;
    const uint8_t *p = fd_bytes(t, v);
    size_t n = 0;
    if (v->rword == AV_STR) {
        if (v->len > t->ev.probe_cap)
            return false;
        memcpy(t->ev.probe_buf, p, v->len);
        n = v->len;
    } else {
        for (uint32_t pos = 0; pos + 4 <= v->len;) {
            uint32_t w;
            memcpy(&w, p + pos, 4);
            w &= 0x7FFFFFFFu; /* the length, without the integer mark */
            if (w > v->len - pos - 4 || w > t->ev.probe_cap - n)
                return false;
            memcpy(t->ev.probe_buf + n, p + pos + 4, w);
            n += w;
            pos += 4 + w;
        }
    }
    t->ev.probe_len = n;
    t->ev.probe_known = true;
    return true;
}

/* tpl_probe: remember the value of this {{ }} when it is exactly known and
 * what the template renders when it is the last tag: outside any block, or
 * the items of the one loop around it. */
static void probe_value(tpl *t, const aval *v)
{
    t->ev.probe_known = false;
    if (!v || (v->flags & (F_INEXACT | F_HUGE)))
        return;
    char d[24];
    const uint8_t *b;
    size_t n;
    if (v->kind == AV_UNK && (v->flags & F_ITEMS)) {
        probe_items(t, v);
        return;
    }
    if (t->ev.n_blocks || t->ev.blocks_over)
        return; /* in a loop, a branch or a macro: printed any number of times */
    if (v->kind == AV_STR) {
        b = fd_bytes(t, v);
        n = v->len;
    } else if (v->kind == AV_INT) {
        int k = snprintf(d, sizeof d, "%lld", (long long)v->ival);
        b = (const uint8_t *)d;
        n = k > 0 ? (size_t)k : 0;
    } else {
        return;
    }
    if (n > t->ev.probe_cap)
        return;
    if (n)
        memcpy(t->ev.probe_buf, b, n);
    t->ev.probe_len = n;
    t->ev.probe_known = true;
}

static void emit_value(tpl *t)
{
    bool one = !t->ev.dead && t->ev.nv == 1 && !t->ev.tuple;
    if (t->fd.cp.n) /* a capture is open */
        ev_cap_value(t, one ? &t->ev.V[0] : NULL);
    if (t->ev.probe_buf)
        probe_value(t, one ? &t->ev.V[0] : NULL);
    if (!one)
        return;
    const aval *v = &t->ev.V[0];
    ev_dos_emit(t, v);
    if (v->kind != AV_STR && v->kind != AV_INT && (v->flags & F_CONTENT))
        ts_content(t, &t->ts.out, v->index);
    if (v->kind == AV_UNK && (v->flags & F_ITEMS)) {
        emit_items(t, v);
        return;
    }
    uint16_t fl = (uint16_t)(SG_VALUE | ((v->flags & F_SCANNED) ? SG_SCANNED : 0) |
                             ((v->flags & F_BUILT) ? SG_BUILT : 0));
    if (v->kind == AV_STR && v->len) {
        ts_segment(&t->ts.out, fl);
        ts_run(t, &t->ts.out, fd_bytes(t, v), v->len, v->index, true);
    } else if (v->kind == AV_INT && !(v->flags & F_HUGE)) {
        char d[24];
        int n = snprintf(d, sizeof d, "%lld", (long long)v->ival);
        ts_segment(&t->ts.out, fl);
        ts_run(t, &t->ts.out, (const uint8_t *)d, n > 0 ? (size_t)n : 0, v->index, true);
    }
}

void ev_ws_close(tpl *t)
{
    t->ev.ws_close = true;
}

/* The expression a tag must hold ({{ }}, if / elif, set x =, for ... in)
 * is missing or ends after an operator: Jinja's parser rejects both
 * ("Expected an expression"). */
static void syntax_end(tpl *t)
{
    if (t->ev.dead)
        return;
    const char *what = NULL;
    if (t->ev.tagkind == TAG_VAR && t->ev.stmt == ST_EXPR)
        what = "{{ }} tag";
    else if (t->ev.stmt == ST_EXPR && t->ev.stmt_word == W_IF)
        what = "{% if %} condition";
    else if (t->ev.stmt == ST_EXPR && t->ev.stmt_word == W_ELIF)
        what = "{% elif %} condition";
    else if (t->ev.stmt == ST_SET_VALUE)
        what = "{% set %} value";
    else if (t->ev.stmt == ST_FOR_ITER)
        what = "{% for %} iterable";
    else if (t->ev.stmt == ST_FOR_TARGET)
        tpl_report(t, TH_SYNTAX, t->ev.tag_index,
                   "{%% for %%} without 'in' (Jinja rejects the template)");
    if (!what)
        return;
    uint32_t n = t->ev.sect - (t->ev.ws_close && t->ev.sect ? 1 : 0);
    bool dangling = t->ev.ws_close ? t->ev.dangling_prev : t->ev.dangling;
    if (n == 0)
        tpl_report(t, TH_SYNTAX, t->ev.tag_index,
                   "the %s holds no expression (Jinja rejects the template: \"Expected an "
                   "expression\")",
                   what);
    else if (dangling)
        tpl_report(t, TH_SYNTAX, t->ev.ws_close ? t->ev.dangling_index_prev : t->ev.dangling_index,
                   "the %s ends with an operator that has no operand after it (Jinja rejects "
                   "the template: \"Expected an expression\")",
                   what);
}

void ev_end(tpl *t)
{
    if (t->nomem)
        return;
    syntax_end(t);
    switch (t->ev.stmt) {
    case ST_SET_TARGET: /* {% set x %}...{% endset %} */
        if (t->ev.set_len)
            fd_var_unknown(t, t->ev.set_name, t->ev.set_len, t->ev.set_hash, t->ev.tag_index);
        if (!t->ev.set_attr && !t->ev.set_multi) {
            ev_block_push(t, W_SET, 1, t->ev.tag_index);
            if (t->ev.set_len)
                ev_cap_open_set(t, t->ev.set_name, t->ev.set_len, t->ev.set_hash, t->ev.set_filter,
                                t->ev.tag_index);
        }
        break;
    case ST_SET_VALUE:
        ev_flush(t);
        set_value(t);
        ev_dos_set(t);
        break;
    case ST_FOR_TARGET: /* no 'in': keep the block structure */
        ev_block_push(t, W_FOR, 1, t->ev.tag_index);
        break;
    case ST_FOR_ITER:
        ev_flush(t);
        ev_finish_for(t);
        break;
    default:
        ev_flush(t);
        if (t->ev.tagkind == TAG_VAR)
            emit_value(t);
        else if (t->ev.stmt_word == W_FILTER)
            ev_cap_open_filter(t, !t->ev.dead && t->ev.nv == 1 ? &t->ev.V[0] : NULL,
                               t->ev.tag_index);
        if ((t->ev.stmt_word == W_IF || t->ev.stmt_word == W_ELIF) && t->ev.cond &&
            t->ev.n_blocks > 0 && !t->ev.blocks_over) {
            t->ev.blocks[t->ev.n_blocks - 1].gate |= t->ev.cond;
            ev_gate_update(t);
        }
        break;
    }
    if (t->ev.work > 0)
        ev_dos_tag_end(t);
    ev_dos_text_end(t, t->index + 1); /* t->index: the closer's second byte */
    tk_tag_end(t,
               (t->ev.tagkind == TAG_VAR && t->ev.stmt == ST_EXPR) || t->ev.stmt == ST_SET_VALUE);
    t->ev.nv = t->ev.no = 0;
    fd_tag_begin(t);
}

void ev_template_end(tpl *t)
{
    if (t->nomem)
        return;
    ev_dos_template_end(t);
    for (uint32_t i = t->ev.n_blocks; i-- > 0;) {
        const block *b = &t->ev.blocks[i];
        char where[64];
        tpl_report_loc(t, TH_SYNTAX, b->index,
                       "'%s' is never closed by 'end%s' (Jinja rejects the "
                       "template)%s",
                       word_text(b->kind), word_text(b->kind),
                       b->lc_known ? tpl_where_lc(where, sizeof where, b->line, b->col) : "");
    }
    t->ev.n_blocks = 0;
}
