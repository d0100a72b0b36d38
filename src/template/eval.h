/* eval.h - the evaluator of the template analyser (eval.c, prefix ev_,
 * state t->ev): expressions over bounded stacks, the statements and the
 * block structure. */
#ifndef GGUFLINT_TEMPLATE_EVAL_H
#define GGUFLINT_TEMPLATE_EVAL_H

#include "template/caps.h"
#include "template/fold.h"
#include "template/lex.h"
#include "template/template.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { O_BIN, O_UNARY, M_GROUP, M_CALL, M_SUB, M_LIST, M_DICT, M_FILTER, M_TEST };
enum {
    OP_OR = 1,
    OP_AND,
    OP_NOT,
    OP_IN,
    OP_NOTIN,
    OP_EQ,
    OP_NE,
    OP_CMP,
    OP_CONCAT,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_FDIV,
    OP_MOD,
    OP_POW,
    OP_NEG,
    OP_POS,
    OP_IF,
    OP_ELSE
};

typedef struct oframe {
    uint8_t kind, op, prec;
    uint8_t colons;  /* M_SUB: slice separators seen */
    uint8_t commas;  /* commas seen inside the bracket */
    uint8_t kws;     /* keyword arguments seen inside the bracket */
    uint8_t attr_kw; /* 1 + index (from vh) of the value of an attribute= argument, 0 none */
    uint8_t acc;     /* width (eval.c compact): 1 V[vh] holds the items so far, 2 lumped */
    uint32_t desc0;  /* M_CALL: t->ev.descents when it opened (dos.c) */
    uint16_t word;   /* M_FILTER: the filter */
    uint32_t vh;     /* value height when pushed */
    uint64_t index;
} oframe;

typedef struct block {
    uint8_t kind;       /* W_FOR, W_IF, ... the opening statement */
    uint8_t gate;       /* GATE_* its conditions test */
    int64_t bound;      /* for: this loop's constant bound (1 if unknown) */
    int64_t product;    /* for: product of the enclosing constant bounds */
    uint16_t items_vid; /* for over a constant: 1 + its loop variable, 0 none */
    bool cap;           /* set / filter: it opened a capture frame (capture.c) */
    bool data;          /* for: over a value that is not a constant (message data) */
    bool recursive;     /* for: a recursive loop (dos.c) */
    uint64_t index;
    bool lc_known; /* line and col of its opening tag are known (formatted for a report);
                      * set by the newline scan when it passes the tag (sink.c) */
    uint64_t line, col;
} block;

typedef struct tpl_eval {
    /* per tag */
    aval V[TPL_STACK];   /* values */
    oframe O[TPL_STACK]; /* operators and open brackets */
    /* the scalars ev_begin zeroes at once: from nv to ws_close, in this
     * order (ST_EXPR, PE_NONE, W_NONE and false are 0) */
    uint32_t nv, no;
    uint8_t stmt, pend_ev;
    uint16_t stmt_word;  /* the statement of this {% %} tag (W_IF, W_ELIF ...) */
    uint16_t set_filter; /* {% set x | f %}: f (0xFFFF: more than one) */
    uint8_t cond;        /* GATE_* the tag's comparisons tested */
    bool dead, last_str, last_dot, tuple, raw_next, set_multi, set_attr, set_eq, set_pipe;
    bool doubling;     /* dos.c: the {% set %} value doubles its target */
    uint32_t descents; /* attribute accesses and subscripts in the tag so far */
    int64_t work;      /* dos.c: bytes or items the tag builds or iterates */
    uint32_t set_len, attr_len, for_targets, n_kw, kw_at;
    uint32_t ch_used; /* chain bytes of this tag (chain.c) */
    /* syntax (GG731): expression tokens of the tag's current part, whether
     * the last one needs an operand after it (and the one before), and
     * whether the tag closed with -}} / -%} */
    uint32_t sect;
    bool dangling, dangling_prev, ws_close;
    /* set by ev_begin */
    bool expect, first;
    uint8_t tagkind;
    uint64_t tag_index;
    uint16_t pend_word;
    uint64_t pend_index;
    uint8_t set_name[TPL_NAME_CAP];
    uint32_t set_hash;
    uint8_t attr_name[TPL_NAME_CAP]; /* {% set ns.NAME = ... %} */
    uint32_t attr_hash;
    uint8_t for_name[TPL_NAME_CAP]; /* {% for NAME in ... %}: the first target */
    uint32_t for_len, for_hash;
    uint8_t for_name2[TPL_NAME_CAP]; /* the second target ({% for k, v in ... %}) */
    uint32_t for_len2, for_hash2;
    uint64_t dangling_index, dangling_index_prev; /* of the operator left without an operand */
    /* kw_at (above): value height after the last name operand in a call (0 none) */
    uint8_t kw_name[TPL_NAME_CAP]; /* its text */
    uint32_t kw_len, kw_hash;
    /* keyword arguments of the open calls: name and value position */
    struct {
        uint32_t frame, pos, off, len, hash; /* its call's O index, its value's V index */
    } kw[TPL_KW_MAX];                        /* n_kw of them (above) */
    /* per template */
    int64_t dos_prod, dos_b, dos_outer; /* dos.c: the largest nested-loop product */
    uint64_t dos_index;
    uint64_t text_from; /* dos.c: where the text after the last tag starts */
    bool dos_text;      /* dos.c: text output in loops was reported (once a template) */
    uint8_t macro_name[TPL_NAME_CAP]; /* dos.c: the macro being defined */
    uint32_t macro_len, macro_block, macro_calls;
    uint64_t macro_index;
    block blocks[TPL_BLOCKS];
    uint32_t n_blocks, blocks_over;
    uint32_t lc_next; /* blocks[lc_next..n_blocks) wait for their line and column (sink.c) */
    /* tpl_probe: the value of the last {{ }} */
    uint8_t *probe_buf;
    size_t probe_cap, probe_len;
    bool probe_known;
} tpl_eval;

enum { ST_EXPR, ST_SET_TARGET, ST_SET_VALUE, ST_FOR_TARGET, ST_FOR_ITER, ST_IGNORE };
enum { PE_NONE, PE_DOT, PE_PIPE, PE_ATTR, PE_FILTER, PE_NOT, PE_IS, PE_IS_NAME };
/* how a name is applied: x[k], x|attr(k), getattr(x, k), x|map(attribute=k) */
enum { K_SUB, K_ATTR, K_GETATTR, K_ATTRARG };

/* eval.c: the interface of the evaluator */
void ev_template_begin(tpl *t);
void ev_begin(tpl *t, uint8_t tagkind, uint64_t index);
void ev_tok(tpl *t, const tok *k);
void ev_end(tpl *t);
void ev_template_end(tpl *t);
void ev_ws_close(tpl *t); /* the tag ends with -}} or -%}: that '-' was no operator */
void ev_probe_begin(tpl *t, uint8_t *buf, size_t cap);
bool ev_probe_end(tpl *t, size_t *len);

/* eval.c, for the evaluator's other files */
void ev_go_dead(tpl *t, uint64_t index, const char *what); /* give up on the tag */
void ev_flush(tpl *t);                                     /* reduce what the tag left open */

/* gadget.c: the indicators */
uint16_t ev_key_check(tpl *t, const aval *key, const aval *recv, int how); /* F_TAINT or 0 */
void ev_trigger(tpl *t, const aval *lit, const char *how);
bool ev_keeps_content(unsigned w);
uint32_t ev_filter_content(const tpl *t, unsigned w, const aval *x, const aval *args, uint32_t na,
                           unsigned attr_kw);
bool ev_makes_string(unsigned w);
void ev_attr_access(tpl *t, const tok *k); /* .name on the top value */
void ev_settle_attr(tpl *t);               /* an attribute not called is a plain value */

/* calls.c: calls and filters */
aval ev_method_call(tpl *t, const aval *c, const aval *args, uint32_t na, uint32_t kws);
aval ev_global_call(tpl *t, const aval *c, const aval *args, uint32_t na);
/* namespace(k=v, ...): a new namespace object whose attributes are the
 * keyword arguments (their values at heights base..base+na-1). */
aval ev_namespace(tpl *t, const aval *c, const aval *args, uint32_t na, uint32_t base);
aval ev_apply_filter(tpl *t, unsigned w, const aval *x, const aval *args, uint32_t na, uint32_t kws,
                     const aval *at);
/* The attribute name arguments of map, selectattr, rejectattr, groupby and
 * attribute= (index attr_kw - 1 of args), checked like |attr (GG720-GG722). */
uint16_t ev_attr_args(tpl *t, unsigned w, const aval *x, const aval *args, uint32_t na,
                      unsigned attr_kw);

/* fields.c: the replacement fields of a constant str.format string, walked
 * as access chains into args (GG720/GG721); F_TAINT when one reaches the
 * object model. */
uint16_t ev_format_fields(tpl *t, const aval *fmt, const aval *args, uint32_t na);

/* capture.c: {% set x %}...{% endset %} captures (state t->fd.cp) */
void ev_cap_free(tpl *t);
void ev_cap_template_begin(tpl *t);
void ev_cap_open_set(tpl *t, const uint8_t *name, uint32_t n, uint32_t hash, uint16_t filter,
                     uint64_t index);
void ev_cap_open_filter(tpl *t, const aval *filter, uint64_t index); /* inside a capture only */
void ev_cap_text_slow(tpl *t, const uint8_t *s, size_t n);
/* (ev_cap_text, its inline test, is in tpl.h) */
void ev_cap_trim(tpl *t);                 /* {%- */
void ev_cap_tag_end(tpl *t, bool ws);     /* a tag ended (ws: with -%} / -}}) */
void ev_cap_value(tpl *t, const aval *v); /* a {{ }} value (NULL: not known) */
void ev_cap_block(tpl *t);                /* another block opens inside */
/* a loop over a constant of `turns` items opens (vid: 1 + its variable, 0 none) */
void ev_cap_open_loop(tpl *t, uint16_t vid, uint32_t turns, uint64_t index);
/* (ev_cap_mutation, for calls.c and eval.c, is inline in tpl.h) */
void ev_cap_close(tpl *t, uint32_t block, bool branch); /* blocks[block] ends */

/* unroll.c: an operation applied to every item of a loop over a constant
 * (an F_ITEMS value); fn gets one constant item */
typedef aval (*ev_unroll_fn)(tpl *t, const aval *item, const void *ctx);
aval ev_unroll(tpl *t, const aval *items, ev_unroll_fn fn, const void *ctx, const aval *at);
/* x|w(args), c(args) on a constant string, chr(n), x[k] with one F_ITEMS
 * operand and constants elsewhere: true and *r the items of the results */
bool ev_unroll_filter(tpl *t, unsigned w, const aval *x, const aval *args, uint32_t na,
                      uint32_t kws, const aval *at, aval *r);
bool ev_unroll_method(tpl *t, const aval *c, const aval *args, uint32_t na, uint32_t kws, aval *r);
bool ev_unroll_global(tpl *t, const aval *c, const aval *args, uint32_t na, aval *r);
bool ev_unroll_index(tpl *t, const aval *x, const aval *key, aval *r);
/* {% set ns.x = ns.x ~ c %} or {% set ns.x = c ~ ns.x %} with c the items of
 * a loop over a constant: true and *r what ns.x holds after the loop */
bool ev_unroll_accum(tpl *t, uint8_t op, const aval *a, const aval *b, aval *r);
/* {% for k, v in PAIRS %}: k and v take the keys and the values in turn
 * (F_ITEMS); 1 + the variable k, 0 when not. */
uint16_t ev_unroll_pairs(tpl *t, const aval *pairs);
/* stmt.c: a loop filter ({% for c in K if ... %}) or the loop's {% else %}:
 * the innermost loop's variables no longer take exactly its items */
void ev_loop_inexact(tpl *t);
/* unroll.c: loop.index / index0 / revindex / revindex0 / length (the token k
 * after "loop.") in a {{ }} of a loop over a constant: true, and the value
 * on the stack is the integers it takes in turn (F_ITEMS) */
bool ev_unroll_loop_attr(tpl *t, const tok *k);
/* the items an F_ITEMS value takes (UINT32_MAX past TPL_UNROLL_MAX) */
uint32_t ev_items_count(const tpl *t, const aval *v);
/* an F_ITEMS value (the items a loop variable or an expression of it takes) */
static inline bool ev_is_items(const aval *v)
{
    return v->kind == AV_UNK && (v->flags & F_ITEMS);
}
/* a constant operand, for unrolling (only in a {{ }}: what it emits) */
static inline bool ev_is_const(const aval *v)
{
    return v->kind == AV_STR || (v->kind == AV_INT && !(v->flags & F_HUGE)) ||
           (v->kind == AV_LIST && !(v->flags & F_DICT));
}

/* dos.c: render cost composed across operations (GG729) */
void ev_dos_work(tpl *t, int64_t n); /* a value of n bytes or items is built */
void ev_dos_tag_end(tpl *t);
void ev_dos_loop(tpl *t, int64_t b, int64_t outer, uint64_t index);
void ev_dos_template_end(tpl *t);
void ev_dos_binop(tpl *t, uint8_t op, const aval *a, const aval *b);
/* v is the target of this {% set %}, read unchanged (x in {% set x = x ~ y %}) */
bool ev_is_set_target(const tpl *t, const aval *v);
void ev_dos_set(tpl *t);
void ev_dos_macro_def(tpl *t, const aval *name);
void ev_dos_call(tpl *t, const aval *c, bool descended);
void ev_dos_block_end(tpl *t, uint32_t i);
void ev_dos_loop_call(tpl *t, const aval *arg, uint64_t index);
void ev_dos_emit(tpl *t, const aval *v);      /* {{ v }}: v is output */
void ev_dos_text(tpl *t, uint64_t tag_index); /* a tag starts at tag_index */
void ev_dos_text_end(tpl *t, uint64_t end);   /* the tag ends at end */

/* stmt.c: statements and blocks */
void ev_block_push(tpl *t, uint8_t kind, int64_t bound, uint64_t index);
void ev_block_end(tpl *t, const tok *k);
void ev_block_middle(tpl *t, const tok *k);
void ev_finish_for(tpl *t);              /* after ev_flush: the for tag's iterable is reduced */
bool ev_statement(tpl *t, const tok *k); /* the first token of a {% %}: a statement? */
void ev_set_target(tpl *t, const tok *k);
void ev_for_target(tpl *t, const tok *k);
bool ev_marker_open(const tpl *t);
void ev_lexical(tpl *t, const tok *k); /* name by name, when the evaluator gave up */
void ev_gate_update(tpl *t);           /* the output stream's gate from the open blocks */

#endif
