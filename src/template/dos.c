/* dos.c - render cost composed across operations (prefix ev_dos_, state
 * in t->ev): the template analyser bounds what one operation builds
 * (fold.c, strops.c: range, repetition, widths); this file multiplies
 * those bounds by the loops around them, follows a variable that doubles
 * itself in a loop, keeps the largest nested-loop product, and models
 * recursion whose depth does not come from message data: a macro that
 * calls itself more than once per call, a recursive loop that recurses
 * into a constant. All of it is GG729 (TH_DOS). What only message data
 * bounds (a loop over messages, a macro recursing into a tool's schema)
 * counts as one iteration and is never reported.
 *
 * The budget a template's render may cost (documented with GG729): a
 * value of more than TPL_DOS_BIG bytes or items, or more than TPL_DOS_NEST
 * loop iterations times the bytes or items built in each. */
#include "template/tpl.h"

#include <stdio.h>
#include <string.h>

/* The product of the constant bounds of the loops open around the tag. */
static int64_t loops_product(const tpl *t)
{
    return t->ev.n_blocks ? t->ev.blocks[t->ev.n_blocks - 1].product : 1;
}

void ev_dos_work(tpl *t, int64_t n)
{
    if (n > t->ev.work)
        t->ev.work = n;
}

/* A tag ends: what it built (or iterated) in each of the iterations of
 * the loops around it. */
void ev_dos_tag_end(tpl *t)
{
    int64_t p = loops_product(t), w = t->ev.work;
    if (t->ev.stmt == ST_FOR_ITER || w <= 0 || p <= 1)
        return; /* a loop's own bound is in the nested-loop product */
    int64_t total = sat_mul(w, p);
    if (total > TPL_DOS_NEST && w <= TPL_DOS_BIG)
        tpl_report(t, TH_DOS, t->ev.tag_index,
                   "a tag that builds or iterates %lld bytes or items runs in loops of %lld "
                   "constant iterations: %lld%s steps at render time",
                   (long long)w, (long long)p, (long long)total, total == INT64_MAX ? "+" : "");
}

/* A loop's bound b inside loops of `outer`: the largest product is kept
 * and reported once at the template's end, with the true product. */
void ev_dos_loop(tpl *t, int64_t b, int64_t outer, uint64_t index)
{
    int64_t prod = sat_mul(outer, b);
    if (prod > TPL_DOS_NEST && outer > 1 && b <= TPL_DOS_NEST && prod > t->ev.dos_prod) {
        t->ev.dos_prod = prod;
        t->ev.dos_b = b;
        t->ev.dos_outer = outer;
        t->ev.dos_index = index;
    }
}

void ev_dos_template_end(tpl *t)
{
    if (t->ev.dos_prod > 0)
        tpl_report(t, TH_DOS, t->ev.dos_index,
                   "nested loops with constant bounds run "
                   "%lld%s iterations (this loop %lld times, inside loops of %lld)",
                   (long long)t->ev.dos_prod, t->ev.dos_prod == INT64_MAX ? "+" : "",
                   (long long)t->ev.dos_b, (long long)t->ev.dos_outer);
    t->ev.dos_prod = 0;
    t->ev.macro_len = 0;
    t->ev.text_from = 0;
    t->ev.dos_text = false;
}

/* {{ v }}: the bytes (or items) output, per iteration of the loops
 * around the tag (ev_dos_tag_end multiplies): a folded string, or a
 * value of a known size that is too big to hold (its count). */
void ev_dos_emit(tpl *t, const aval *v)
{
    if (v->kind == AV_STR || v->kind == AV_LIST)
        ev_dos_work(t, v->len);
    else if (v->kind == AV_UNK && v->count > 0)
        ev_dos_work(t, v->count);
}

/* The template text between the last tag and the one starting at
 * tag_index is output in every iteration of the loops open around it. */
void ev_dos_text(tpl *t, uint64_t tag_index)
{
    uint64_t from = t->ev.text_from;
    if (tag_index <= from || t->ev.dos_text)
        return;
    int64_t p = loops_product(t);
    if (p <= 1 || p > TPL_DOS_NEST)
        return; /* past TPL_DOS_NEST the loops themselves are reported */
    uint64_t n = tag_index - from;
    int64_t total = sat_mul(n > INT64_MAX ? INT64_MAX : (int64_t)n, p);
    if (total <= TPL_DOS_NEST)
        return;
    t->ev.dos_text = true;
    tpl_report(t, TH_DOS, from,
               "%llu bytes of template text are output in loops of %lld constant iterations: "
               "%lld%s bytes at render time",
               (unsigned long long)n, (long long)p, (long long)total,
               total == INT64_MAX ? "+" : "");
}

void ev_dos_text_end(tpl *t, uint64_t end)
{
    t->ev.text_from = end;
}

/* A variable read unchanged (vid) that is the target of this {% set %}. */
bool ev_is_set_target(const tpl *t, const aval *v)
{
    if (t->ev.stmt != ST_SET_VALUE || !v->vid || v->vid > t->fd.n_vars)
        return false;
    const var *x = &t->fd.vars[v->vid - 1];
    if (t->ev.set_attr)
        return x->ns != 0 && x->name_len == t->ev.attr_len &&
               memcmp(x->name, t->ev.attr_name, x->name_len) == 0;
    return x->ns == 0 && x->name_len == t->ev.set_len &&
           memcmp(x->name, t->ev.set_name, x->name_len) == 0;
}

/* a OP b in a {% set x = ... %}: x ~ x, x + x, x * k (k >= 2) double x */
void ev_dos_binop(tpl *t, uint8_t op, const aval *a, const aval *b)
{
    if (t->ev.stmt != ST_SET_VALUE)
        return;
    if ((op == OP_CONCAT || op == OP_ADD) && ev_is_set_target(t, a) && ev_is_set_target(t, b))
        t->ev.doubling = true;
    if (op == OP_MUL && ((ev_is_set_target(t, a) && b->kind == AV_INT && b->ival >= 2) ||
                         (ev_is_set_target(t, b) && a->kind == AV_INT && a->ival >= 2)))
        t->ev.doubling = true;
}

/* {% set ns.x = ... %} ends: a namespace attribute that doubles itself in
 * each iteration of loops with constant bounds grows as 2 ** iterations
 * (a plain variable set in a loop is the loop body's: it does not grow). */
void ev_dos_set(tpl *t)
{
    if (!t->ev.doubling || !t->ev.set_attr)
        return; /* a plain {% set %} in a loop lasts one iteration (Jinja's scoping) */
    int64_t p = loops_product(t);
    if (p >= 20)
        tpl_report(t, TH_DOS, t->ev.tag_index,
                   "{%% set %%} doubles a variable in each of %lld%s loop iterations: it grows "
                   "to 2**%lld times its size at render time",
                   (long long)p, p == INT64_MAX ? "+" : "", (long long)p);
}

/* {% macro NAME(...) %}: its body is watched for calls of NAME. */
void ev_dos_macro_def(tpl *t, const aval *name)
{
    if (name->kind != AV_NAME || name->len == 0 || name->len > TPL_NAME_CAP || !t->ev.n_blocks)
        return;
    memcpy(t->ev.macro_name, fd_bytes(t, name), name->len);
    t->ev.macro_len = name->len;
    t->ev.macro_block = t->ev.n_blocks - 1;
    t->ev.macro_calls = 0;
    t->ev.macro_index = name->index;
}

/* Inside the macro, below it, a loop over data (not a constant) */
static bool data_loop_inside(const tpl *t, uint32_t from)
{
    for (uint32_t i = from + 1; i < t->ev.n_blocks; i++)
        if (t->ev.blocks[i].kind == W_FOR && t->ev.blocks[i].data)
            return true;
    return false;
}

/* A call of the name c (descended: an argument reads an attribute or an
 * item, as recursion over a tool schema does). */
void ev_dos_call(tpl *t, const aval *c, bool descended)
{
    if (!t->ev.macro_len || c->kind != AV_NAME || c->len != t->ev.macro_len ||
        t->ev.macro_block >= t->ev.n_blocks || t->ev.blocks[t->ev.macro_block].kind != W_MACRO ||
        memcmp(fd_bytes(t, c), t->ev.macro_name, c->len) != 0)
        return;
    if (descended || data_loop_inside(t, t->ev.macro_block))
        return; /* the depth or the fan-out is the data's */
    /* a call in a loop of constant bounds inside the macro is that many
     * calls per call */
    int64_t at_macro = t->ev.blocks[t->ev.macro_block].product;
    int64_t w = loops_product(t) / (at_macro > 0 ? at_macro : 1);
    int64_t sum = (int64_t)t->ev.macro_calls + (w > 0 ? w : 1);
    t->ev.macro_calls = sum > 1000000 ? 1000000u : (uint32_t)sum;
}

/* The block blocks[i] ends: a macro that calls itself twice or more per
 * call, with arguments not taken from data, runs 2 ** depth calls, and
 * Python lets the depth reach hundreds before its recursion limit. */
void ev_dos_block_end(tpl *t, uint32_t i)
{
    if (!t->ev.macro_len || i != t->ev.macro_block)
        return;
    if (t->ev.macro_calls >= 2) {
        char e[96];
        tpl_report(t, TH_DOS, t->ev.macro_index,
                   "macro '%s' calls itself %u times per call with arguments that do not "
                   "descend into data: that many to the power of the depth at render time",
                   tpl_quote(e, sizeof e, t->ev.macro_name, t->ev.macro_len, 40),
                   (unsigned)t->ev.macro_calls);
    }
    t->ev.macro_len = 0;
}

/* loop(x) inside a recursive loop: recursing into a constant of two or
 * more items (not an item of the loop's own data) repeats until the
 * recursion limit, each level iterating every item again. */
void ev_dos_loop_call(tpl *t, const aval *arg, uint64_t index)
{
    bool inside = false;
    for (uint32_t i = t->ev.n_blocks; i-- > 0;)
        if (t->ev.blocks[i].kind == W_FOR) {
            inside = t->ev.blocks[i].recursive;
            break;
        }
    if (!inside)
        return;
    int64_t items = arg->kind == AV_LIST  ? arg->ival
                    : arg->kind == AV_STR ? (int64_t)arg->len
                    : arg->kind == AV_UNK && !(arg->flags & (F_CONTENT | F_ITEMS)) && !arg->vid
                        ? arg->count /* range(k): a constant of known size */
                        : 0;
    if (items >= 2)
        tpl_report(t, TH_DOS, index,
                   "a recursive loop calls loop() on a constant of %lld items: it recurses "
                   "until Python's recursion limit, iterating every item at each level",
                   (long long)items);
}
