/* stmt.c - statements in the template analyser's evaluator (prefix ev_):
 * the block structure (for/if/macro ... and their end tags, unbalanced or
 * unclosed blocks), {% set %} and {% for %} targets, nested-loop bounds, and
 * the name-by-name check of a tag the evaluator gave up on. */
#include "template/tpl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- blocks */

static int64_t outer_product(const tpl *t)
{
    return t->ev.n_blocks ? t->ev.blocks[t->ev.n_blocks - 1].product : 1;
}

/* The gate of the text that follows: what the conditions of every block
 * open around it test. */
void ev_gate_update(tpl *t)
{
    unsigned g = 0;
    for (uint32_t i = 0; i < t->ev.n_blocks; i++)
        g |= t->ev.blocks[i].gate;
    ts_gate(&t->ts.out, g);
}

void ev_block_push(tpl *t, uint8_t kind, int64_t bound, uint64_t index)
{
    if (t->ev.n_blocks >= TPL_BLOCKS) {
        if (t->ev.blocks_over == 0)
            fd_limit(t, index, "blocks nest more than 128 levels");
        t->ev.blocks_over++;
        return;
    }
    if (kind != W_SET && kind != W_FILTER && !(kind == W_FOR && t->ev.stmt == ST_FOR_ITER))
        ev_cap_block(t); /* what it adds to an open capture is not one constant */
    int64_t outer = outer_product(t);
    block *b = &t->ev.blocks[t->ev.n_blocks++];
    b->kind = kind;
    b->cap = false;
    b->data = b->recursive = false;
    b->gate = 0;
    b->items_vid = 0;
    b->bound = bound;
    b->product = kind == W_FOR ? sat_mul(outer, bound) : outer;
    b->index = index;
    b->lc_known = false;
    if (index < t->nl_scan) { /* the newline scan is past it: the ring knows */
        b->lc_known = tpl_line_col(t, index, &b->line, &b->col);
        t->ev.lc_next = t->ev.n_blocks;
    } /* else the newline scan sets it when it passes the tag (tpl_lc_settle) */
}

static unsigned opener_of(unsigned end)
{
    switch (end) {
    case W_ENDFOR: return W_FOR;
    case W_ENDIF: return W_IF;
    case W_ENDMACRO: return W_MACRO;
    case W_ENDCALL: return W_CALL;
    case W_ENDFILTER: return W_FILTER;
    case W_ENDWITH: return W_WITH;
    case W_ENDBLOCK: return W_BLOCK;
    case W_ENDSET: return W_SET;
    case W_ENDGENERATION: return W_GENERATION;
    case W_ENDAUTOESCAPE: return W_AUTOESCAPE;
    default: return W_NONE;
    }
}

void ev_block_end(tpl *t, const tok *k)
{
    unsigned open = opener_of(k->word);
    if (t->ev.blocks_over > 0) {
        t->ev.blocks_over--;
        return;
    }
    if (t->ev.n_blocks == 0) {
        tpl_report(t, TH_SYNTAX, k->index,
                   "'%s' without an open '%s' (Jinja rejects the "
                   "template)",
                   word_text(k->word), word_text(open));
        return;
    }
    block *b = &t->ev.blocks[t->ev.n_blocks - 1];
    char where[64];
    if (b->kind != open) {
        tpl_lc_settle(t, k->index);
        tpl_report(t, TH_SYNTAX, k->index,
                   "'%s' closes the '%s' opened%s "
                   "(Jinja rejects the template)",
                   word_text(k->word), word_text(b->kind),
                   b->lc_known ? tpl_where_lc(where, sizeof where, b->line, b->col) : " before");
    }
    ev_dos_block_end(t, t->ev.n_blocks - 1);
    ev_cap_close(t, t->ev.n_blocks - 1, ev_in_branch(t) || ev_in_scope(t, t->ev.n_blocks - 1));
    t->ev.n_blocks--;
    if (t->ev.lc_next > t->ev.n_blocks)
        t->ev.lc_next = t->ev.n_blocks;
    ev_gate_update(t);
}

/* The innermost loop's variables over a constant no longer take exactly
 * its items in turn (a loop filter skips some; in the loop's {% else %} they
 * are undefined): what they emit stays for the checks, F_INEXACT, and
 * tpl_probe claims no value for them. */
void ev_loop_inexact(tpl *t)
{
    if (!t->ev.n_blocks || t->ev.blocks_over)
        return;
    block *b = &t->ev.blocks[t->ev.n_blocks - 1];
    if (b->kind != W_FOR || !b->items_vid)
        return;
    if (b->items_vid <= t->fd.n_vars)
        t->fd.vars[b->items_vid - 1].v.flags |= F_INEXACT;
    b->items_vid = 0;
    ev_cap_block(t);              /* a capture of its body is no longer one constant */
    if (t->ev.for_targets == 2) { /* {% for k, v in d|items %}: v too */
        var *x = fd_var_find(t, t->ev.for_name2, t->ev.for_len2, t->ev.for_hash2);
        if (x)
            x->v.flags |= F_INEXACT;
    }
}

void ev_block_middle(tpl *t, const tok *k)
{
    if (t->ev.blocks_over > 0)
        return;
    unsigned top = t->ev.n_blocks ? t->ev.blocks[t->ev.n_blocks - 1].kind : W_NONE;
    if (k->word == W_ELSE && top == W_FOR)
        ev_loop_inexact(t);
    bool ok = k->word == W_ELIF ? top == W_IF : (top == W_IF || top == W_FOR);
    if (!ok)
        tpl_report(t, TH_SYNTAX, k->index,
                   "'%s' outside an 'if'%s block (Jinja rejects the "
                   "template)",
                   word_text(k->word), k->word == W_ELSE ? " or 'for'" : "");
    /* the branches of a chain on the role or a tool's name are exclusive:
     * a rare role tested by one branch does not gate the next (the other
     * gates stay: an elif runs only when the content test before failed) */
    if (ok && top == W_IF && (t->ev.blocks[t->ev.n_blocks - 1].gate & GATE_KEY)) {
        t->ev.blocks[t->ev.n_blocks - 1].gate &= (uint8_t)~GATE_KEY;
        ev_gate_update(t);
    }
}

/* ------------------------------------------------------------ statements */

/* {% for c in CONSTANT %} with one target: c takes the items one per turn,
 * so {{ c }} in the body outputs them in order (GG735 sees text emitted one
 * character at a time). */
static uint16_t loop_items(tpl *t, const aval *it)
{
    aval rl;
    if (it->kind == AV_UNK && (it->flags & F_RANGE)) { /* range(k): its integers */
        rl = *it;
        rl.kind = AV_LIST;
        rl.flags &= (uint32_t)~F_RANGE;
        rl.ival = rl.count;
        it = &rl;
    }
    if (t->ev.for_targets == 2 && it->kind == AV_UNK && (it->flags & F_PAIRS))
        return ev_unroll_pairs(t, it); /* {% for k, v in d|items %} */
    if (t->ev.for_targets != 1 || (it->kind != AV_LIST && it->kind != AV_STR))
        return 0;
    var *x = fd_var_get(t, t->ev.for_name, t->ev.for_len, t->ev.for_hash, t->ev.tag_index);
    if (!x)
        return 0;
    aval v = *it;
    v.vid = 0; /* the items, not the list object */
    fd_var_assign(t, x, &v);
    if (x->v.kind != it->kind)
        return 0; /* not stored */
    x->v.rword = x->v.kind;
    x->v.kind = AV_UNK;
    x->v.flags = (uint32_t)((x->v.flags & (F_VAR | F_INEXACT)) | F_ITEMS);
    return (uint16_t)(x - t->fd.vars + 1);
}

void ev_finish_for(tpl *t)
{
    int64_t b = -1;
    uint16_t items = 0;
    bool data = true;
    if (t->ev.nv == 1) {
        const aval *v = &t->ev.V[0];
        b = v->kind == AV_LIST ? v->ival : v->kind == AV_STR ? (int64_t)v->len : v->count;
        data = v->kind != AV_LIST && v->kind != AV_STR && v->count < 0;
        items = loop_items(t, v);
    }
    if (b < 1)
        b = 1;
    int64_t outer = outer_product(t);
    ev_dos_loop(t, b, outer, t->ev.tag_index); /* reported at the end, the largest */
    ev_block_push(t, W_FOR, b, t->ev.tag_index);
    bool pushed =
        t->ev.n_blocks && !t->ev.blocks_over && t->ev.blocks[t->ev.n_blocks - 1].kind == W_FOR;
    if (pushed) {
        t->ev.blocks[t->ev.n_blocks - 1].items_vid = items;
        t->ev.blocks[t->ev.n_blocks - 1].data = data;
    }
    if (t->fd.cp.n) /* inside a capture: its body is unrolled into it (capture.c) */
        ev_cap_open_loop(t, pushed && items <= t->fd.n_vars ? items : 0,
                         items && items <= t->fd.n_vars
                             ? ev_items_count(t, &t->fd.vars[items - 1].v)
                             : UINT32_MAX,
                         t->ev.tag_index);
    t->ev.nv = t->ev.no = 0;
    t->ev.expect = true;
    t->ev.pend_ev = PE_NONE;
}

/* The first token of a {% %} tag. True when it was a statement keyword. */
bool ev_statement(tpl *t, const tok *k)
{
    switch (k->word) {
    case W_SET: t->ev.stmt = ST_SET_TARGET; return true;
    case W_FOR: t->ev.stmt = ST_FOR_TARGET; return true;
    case W_IF:
    case W_MACRO:
    case W_CALL:
    case W_FILTER:
    case W_WITH:
    case W_BLOCK:
    case W_GENERATION:
    case W_AUTOESCAPE:
        ev_block_push(t, (uint8_t)k->word, 1, k->index);
        t->ev.stmt_word = k->word;
        t->ev.stmt = ST_EXPR;
        return true;
    case W_ELIF:
        ev_block_middle(t, k);
        t->ev.stmt_word = k->word;
        t->ev.stmt = ST_EXPR;
        return true;
    case W_ELSE:
        ev_block_middle(t, k);
        t->ev.stmt = ST_IGNORE;
        return true;
    case W_ENDFOR:
    case W_ENDIF:
    case W_ENDMACRO:
    case W_ENDCALL:
    case W_ENDFILTER:
    case W_ENDWITH:
    case W_ENDBLOCK:
    case W_ENDSET:
    case W_ENDGENERATION:
    case W_ENDAUTOESCAPE:
        ev_block_end(t, k);
        t->ev.stmt = ST_IGNORE;
        return true;
    case W_RAW:
        ev_cap_block(t); /* its text is not captured */
        t->ev.raw_next = true;
        t->ev.stmt = ST_IGNORE;
        return true;
    case W_INCLUDE:
    case W_IMPORT:
    case W_EXTENDS:
    case W_FROM:
        tpl_report(t, TH_EXEC, k->index,
                   "{%% %s %%} loads and renders another "
                   "template by name (a file, with a file-system loader): no chat template "
                   "needs it",
                   word_text(k->word));
        t->ev.stmt = ST_EXPR; /* its name expression is still checked */
        return true;
    default: {
        /* the other tags of Jinja and its usual extensions (do, loop controls,
         * i18n); anything else fails to compile */
        static const char *const known[] = {"do",    "break",     "continue", "print",
                                            "trans", "pluralize", "endtrans"};
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            if (strlen(known[i]) == k->n && memcmp(known[i], k->s, k->n) == 0)
                return false;
        char e[80];
        tpl_report(t, TH_SYNTAX, k->index,
                   "unknown tag '%s' (Jinja rejects the template: \"Encountered unknown tag\")",
                   tpl_quote(e, sizeof e, k->s, k->n, 40));
        return false;
    }
    }
}

void ev_set_target(tpl *t, const tok *k)
{
    if (k->kind == TK_NAME) {
        if (t->ev.set_attr && t->ev.last_dot) {
            t->ev.last_dot = false;
            if (t->ev.attr_len == 0 && k->n <= TPL_NAME_CAP) { /* {% set ns.NAME = %} */
                memcpy(t->ev.attr_name, k->s, k->n);
                t->ev.attr_len = k->n;
                t->ev.attr_hash = k->hash;
            } else {
                t->ev.set_multi = true; /* ns.a.b: not modelled */
            }
            return;
        }
        if (t->ev.set_pipe) { /* {% set x | f %}: the capture's filter */
            t->ev.set_filter = t->ev.set_filter ? 0xFFFF : k->word ? k->word : 0xFFFF;
            t->ev.set_pipe = false;
            return;
        }
        if (t->ev.set_len == 0 && !t->ev.set_multi) {
            memcpy(t->ev.set_name, k->s, k->n);
            t->ev.set_len = k->n;
            t->ev.set_hash = k->hash;
            return;
        }
        if (t->ev.set_multi)
            fd_var_unknown(t, k->s, k->n, k->hash, k->index);
        return;
    }
    if (k->kind != TK_OP)
        return;
    switch (k->op) {
    case '.':
        t->ev.set_attr = true;
        t->ev.last_dot = true;
        return;
    case '|': t->ev.set_pipe = true; return;
    case ',':
    case '(': t->ev.set_multi = true; return;
    case '=':
        t->ev.set_eq = true;
        t->ev.sect = 0;
        t->ev.stmt = ST_SET_VALUE;
        t->ev.expect = true;
        return;
    default: return;
    }
}

void ev_for_target(tpl *t, const tok *k)
{
    if (k->kind != TK_NAME)
        return;
    if (k->word == W_IN) {
        if (t->ev.for_targets == 0)
            tpl_report(t, TH_SYNTAX, k->index,
                       "{%% for %%} without a loop variable before 'in' (Jinja rejects the "
                       "template)");
        t->ev.stmt = ST_FOR_ITER;
        t->ev.sect = 0;
        t->ev.expect = true;
        return;
    }
    fd_var_unknown(t, k->s, k->n, k->hash, k->index);
    if (t->ev.for_targets++ == 0) {
        memcpy(t->ev.for_name, k->s, k->n);
        t->ev.for_len = k->n;
        t->ev.for_hash = k->hash;
    } else if (t->ev.for_targets == 2) {
        memcpy(t->ev.for_name2, k->s, k->n);
        t->ev.for_len2 = k->n;
        t->ev.for_hash2 = k->hash;
    }
}

bool ev_marker_open(const tpl *t)
{
    for (uint32_t i = 0; i < t->ev.no; i++)
        if (t->ev.O[i].kind > O_UNARY)
            return true;
    return false;
}

/* Name by name, when the evaluator gave up on this tag. */
void ev_lexical(tpl *t, const tok *k)
{
    if (k->kind == TK_NAME) {
        char e[96];
        if (t->ev.last_dot && (fd_is_dunder(k->s, k->n) || fd_is_mangled(k->s, k->n)))
            tpl_report(t, TH_GADGET, k->index,
                       "attribute '.%s': access to a Python "
                       "attribute (SSTI gadget)",
                       tpl_quote(e, sizeof e, k->s, k->n, 40));
        else if (t->ev.last_dot && (word_class(k->word) & WC_ATTRSINK))
            tpl_report(t, TH_EXEC, k->index,
                       "attribute '.%s' is a command or code-execution "
                       "sink",
                       tpl_quote(e, sizeof e, k->s, k->n, 40));
        else if (!t->ev.last_dot && fd_is_dunder(k->s, k->n))
            tpl_report(t, TH_GADGET, k->index, "name '%s' is a Python dunder (SSTI gadget)",
                       tpl_quote(e, sizeof e, k->s, k->n, 40));
    }
    t->ev.last_dot = k->kind == TK_OP && k->op == '.';
}
