/* fold.h - the constant layer of the template analyser (fold.c, prefix
 * fd_, state t->fd): abstract values, the per-tag arena, the builders of
 * folded constants, the folding operations, the {% set %} store and the
 * folding budget. */
#ifndef GGUFLINT_TEMPLATE_FOLD_H
#define GGUFLINT_TEMPLATE_FOLD_H

#include "template/caps.h"
#include "template/lex.h"
#include "template/template.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- abstract values ---- */
enum { AV_UNK, AV_STR, AV_INT, AV_LIST, AV_NAME, AV_ATTR, AV_NONE, AV_NS };
#define F_BUILT 0x01u    /* produced by a folding operation, not a plain literal */
#define F_CONTENT 0x02u  /* message content (or derived from it by filters) */
#define F_TAINT 0x04u    /* reached through a dunder / object-model access */
#define F_RSTR 0x08u     /* AV_ATTR: the receiver is a constant string */
#define F_VAR 0x10u      /* bytes live in the variable store, not the tag arena */
#define F_LITERAL 0x20u  /* a plain string literal (for adjacent-literal joining) */
#define F_HUGE 0x40u     /* AV_INT saturated */
#define F_INEXACT 0x80u  /* a constant that may differ from Jinja's (kept for the checks) */
#define F_STRTYPE 0x100u /* unknown, but certainly a string (built by ~, |string ...) */
#define F_FRAG 0x200u    /* unknown, built from a piece holding a dunder fragment ('__') */
#define F_SCANNED 0x400u /* the bytes of one string literal (its text was scanned already) */
#define F_TUPLE 0x800u   /* AV_LIST: a tuple (for % formatting) */
#define F_TURNS 0x1000u  /* the turn count: messages|length, loop.index ... */
#define F_DATE 0x2000u   /* the date: strftime_now(...) */
#define F_ITEMS                                                                                    \
    0x4000u /* AV_UNK: a loop variable over the constant at off/len
                          * (its kind in rword): one item per iteration */
#define F_DICT                                                                                     \
    0x8000u                /* AV_LIST: the keys of a dict (dict(k=...), {'k': ...}): what
                          * iterating, |first, |list and |join see; rkind 1:
                          * its |items (pairs), whose bytes are still the keys */
#define F_GATEKEY 0x10000u /* a message's role or a tool's name: a gate when compared (GG734) */
#define F_PAIRS 0x20000u   /* AV_UNK: a constant dict's |items (remembered dict ival, count m) */
#define F_RANGE                                                                                    \
    0x40000u /* AV_UNK: range() of constants, its integers at off/len as a list
                          * (this tag's arena: a loop over it unrolls; never stored) */

typedef struct aval {
    uint8_t kind;
    uint8_t rkind; /* AV_ATTR: the receiver's kind when it was a constant list (mutators) */
    uint32_t flags;
    uint16_t word;     /* AV_NAME: the name's word; AV_ATTR: the attribute's */
    uint16_t rword;    /* AV_ATTR: the receiver's word when it was a name */
    uint32_t off, len; /* AV_STR / AV_LIST bytes, AV_ATTR receiver bytes, AV_NAME text */
    uint32_t ch_off;   /* the access chain that reached the value (chain.c), in the arena */
    uint16_t ch_len;   /* its length, 0 when there is none */
    uint16_t vid;      /* 1 + the variable the value was read from (unchanged), 0 none */
    int64_t ival;      /* AV_INT value, AV_LIST item count, AV_NS namespace id */
    int64_t count;     /* items when iterated (-1 unknown) */
    uint64_t index;
} aval;

/* An AV_LIST's items lie end to end: a 4-byte length word (LIST_INT set
 * for an integer kept as its decimal text), then the item's bytes. */
#define LIST_INT 0x80000000u

typedef struct var {
    uint8_t name[TPL_NAME_CAP];
    uint32_t name_len, hash;
    uint32_t ns;   /* 0: a variable; else the namespace() object whose attribute it is */
    uint32_t slot; /* its entry in vslots */
    uint32_t obj;  /* AV_LIST: the list object (aliases share it, for mutators) */
    aval v;        /* bytes (if any) at v.off in the store, F_VAR set */
    uint32_t cap_off, cap_len; /* the store region owned by this variable */
    uint8_t chain_len;         /* the access chain of its value (chain.c) */
    uint8_t chain[TPL_CHAIN_CAP];
} var;

/* capture.c: the text of an open {% set x %}...{% endset %} (and of the
 * {% filter %} blocks inside it), built as Jinja renders it. */
enum { CAP_SET = 1, CAP_FILTER, CAP_LOOP };
/* CAP_LOOP: a piece of a loop body, its bytes in the buffer: template text
 * and constants (the same every turn), or the items of the loop's variable
 * (or of an expression of it), one per turn (a string's code points, or a
 * list's items behind their length words) */
enum { CP_TEXT, CP_ITEMS_STR, CP_ITEMS_LIST };
#define CAP_PIECES 16u
typedef struct cappiece {
    uint8_t kind;
    uint32_t off, len;
} cappiece;
typedef struct capframe {
    uint8_t kind;
    bool unknown;   /* a piece is not known: the result is unknown */
    uint16_t word;  /* CAP_FILTER: the filter */
    uint32_t flags; /* F_FRAG | F_CONTENT | F_TAINT | F_INEXACT of the pieces */
    uint32_t start; /* its bytes: buf[start..len) */
    uint32_t text;  /* where its last run of template text starts ({%- trims it) */
    uint32_t block; /* t->ev.blocks[block] is its {% set %} or {% filter %} */
    int64_t size;   /* bytes it holds at most (when unknown; -1 unbounded) */
    uint64_t index;
    uint32_t name_len, hash; /* CAP_SET: the variable */
    uint32_t turns;          /* CAP_LOOP: the loop's items (word: 1 + its variable) */
    uint32_t np;             /* CAP_LOOP: its body's pieces */
    cappiece pc[CAP_PIECES];
    uint8_t name[TPL_NAME_CAP];
} capframe;

typedef struct tpl_capture {
    uint8_t *buf;
    uint32_t len, cap;
    uint32_t n;  /* open frames */
    bool lstrip; /* the last tag ended with -%}: the next text's leading space goes */
    capframe f[TPL_CAPTURES];
} tpl_capture;

typedef struct tpl_fold {
    uint8_t *ar; /* per tag: the arena of literals, names and folded constants */
    uint32_t ar_len, ar_cap;
    uint64_t budget;       /* per analyser (the file): folding bytes left */
    uint64_t budget_given; /* granted so far, at most TPL_BUDGET_MAX */
    var *vars;             /* per template: the {% set %} variables */
    uint32_t n_vars;
    uint16_t vslots[TPL_VAR_SLOTS];
    uint8_t *vs; /* their bytes */
    uint32_t vs_len, vs_cap;
    uint32_t n_ns, obj_seq; /* namespace() objects and list objects made so far */
    tpl_capture cp;         /* capture.c */
    aval *ur;               /* unroll.c: TPL_UNROLL_MAX results (allocated once) */
    /* unroll.c, per template: dicts of constants, each its keys and values
     * as one list k0 v0 k1 v1 ... in dv_buf, for their |items */
    uint8_t dv_buf[TPL_DICT_BYTES];
    uint32_t dv_used, dv_n;
    uint32_t dv_off[TPL_DICTS], dv_len[TPL_DICTS], dv_m[TPL_DICTS];
} tpl_fold;

bool fd_init(tpl *t);
void fd_free(tpl *t);
void fd_budget_reset(tpl *t);                   /* a fresh budget (tpl_probe) */
void fd_template_begin(tpl *t, uint64_t total); /* grant its share, clear the store */
/* fd_tag_begin (empty the arena) and fd_bytes are inline in tpl.h */

/* Small helpers shared with the evaluator. */

/* The bytes of a constant (in the tag arena or the variable store). */

/* [A-Za-z0-9_] */
static inline bool identc(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* a * b for a, b >= 0, saturating at INT64_MAX; -1 when either is negative */
static inline int64_t sat_mul(int64_t a, int64_t b)
{
    int64_t r;
    if (a < 0 || b < 0)
        return -1;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* An unknown value at the position of `at`. */
static inline aval unk_at(const aval *at)
{
    aval v;
    memset(&v, 0, sizeof v);
    v.kind = AV_UNK;
    v.count = -1;
    v.index = at->index;
    return v;
}

/* A value of `kind` at the position of token k. */
static inline aval val_tok(const tok *k, uint8_t kind)
{
    aval v;
    memset(&v, 0, sizeof v);
    v.kind = kind;
    v.count = -1;
    v.index = k->index;
    return v;
}

/* A constant under construction at the end of the arena. */
typedef struct bld {
    uint32_t start;
    uint32_t checked; /* leading bytes already checked (the left operand of a concat) */
    bool fail;
    uint32_t fl;    /* flags the result gets (F_INEXACT of its sources) */
    const aval *at; /* position for the result and for limit notes */
} bld;

/* A constant argument: bytes (in the arena or the store) or an integer. */
typedef struct cval {
    uint8_t kind; /* AV_STR, AV_INT */
    bool var_space;
    bool inexact;
    uint32_t off, len;
    int64_t ival;
} cval;

#define MAX_CARGS 32u

enum { CASE_LOWER, CASE_UPPER, CASE_CAP, CASE_TITLE, CASE_JTITLE, CASE_SWAP };

/* Reporting: a TH_LIMIT note. */
void fd_limit(tpl *t, uint64_t index, const char *what);
/* Names: a dunder (__x__), a mangled private (_Cls__x), a plain identifier;
 * a literal that reads like a trigger word (not markup, not a /switch). */
bool fd_is_dunder_slow(const uint8_t *s, size_t n);
/* s[0..n) is a Python dunder name (__x__); inline, as almost every name
 * and literal fails its first test */
static inline bool fd_is_dunder(const uint8_t *s, size_t n)
{
    return n >= 5 && s[0] == '_' && s[1] == '_' && fd_is_dunder_slow(s, n);
}
bool fd_is_mangled_slow(const uint8_t *s, size_t n);
/* _Class__attr: a name-mangled private attribute; inline like fd_is_dunder */
static inline bool fd_is_mangled(const uint8_t *s, size_t n)
{
    return n >= 5 && s[0] == '_' && fd_is_mangled_slow(s, n);
}
bool fd_is_ident(const uint8_t *s, size_t n);
/* a field compared to select turns or tools ("role", "name": gates.def) */
bool fd_is_gatekey(const uint8_t *s, size_t n);
/* a role every chat format has ("user", "assistant" ...: gates.def) */
bool fd_is_common_role(const uint8_t *s, size_t n);
bool fd_wordlike(const uint8_t *s, size_t n);
bool fd_has_frag(const uint8_t *s, size_t n);
/* A value for a message: a name, a quoted constant or "(...)". */
const char *fd_desc(const tpl *t, const aval *v, char *buf, size_t cap);

/* The tag arena and constant builders: bytes appended at the arena's end,
 * bounded by TPL_CONST_CAP, the arena cap and the folding budget; a failed
 * build yields an unknown value (and a TH_LIMIT note). fd_b_done runs the
 * constant checks on the new bytes. */
/* (fd_ar_reserve and fd_ar_put are inline in tpl.h; this is their slow
 * path, in arena.c: grow the arena for n more bytes, false past its cap) */
bool fd_ar_grow(tpl *t, uint32_t n);
void fd_b_begin(tpl *t, bld *b, const aval *at);
void fd_b_raw(tpl *t, bld *b, const void *s, size_t n);
void fd_b_int(tpl *t, bld *b, int64_t x);
aval fd_b_done(tpl *t, bld *b);
/* Room for n more bytes (the constant cap, the budget, the arena). */
bool fd_b_room(tpl *t, bld *b, uint64_t n);
/* Copy n bytes of a value's storage (the arena may move meanwhile). */
void fd_b_from(tpl *t, bld *b, bool var_space, uint32_t off, uint32_t n);
/* A constant's bytes or an integer's decimal text. */
void fd_b_val(tpl *t, bld *b, const aval *v);
/* Charge work that walks a constant without copying it. */
bool fd_spend(tpl *t, uint32_t n, const aval *at);
/* The checks of a string literal token (escapes, dunders, class names). */
void fd_literal_check(tpl *t, const tok *k);
/* A literal or name that folds (look-alike letters) to a dunder or sink. */
void fd_homoglyph_check(tpl *t, const uint8_t *s, size_t n, uint64_t index, const char *what);

/* Folding. Each returns a constant when it can, else an unknown value. */
bool fd_to_cval(const aval *v, cval *c);
bool fd_gather_args(const tpl *t, const aval *args, uint32_t na, bool expand, cval *out,
                    uint32_t *n);
aval fd_concat(tpl *t, const aval *a, const aval *b);
aval fd_repeat(tpl *t, const aval *s, const aval *n, const aval *at); /* also GG729 */
aval fd_power(tpl *t, const aval *a, const aval *b);                  /* also GG729 */
aval fd_fold_percent(tpl *t, const aval *fmt, const cval *a, uint32_t na);
aval fd_fold_format(tpl *t, const aval *fmt, const cval *a, uint32_t na);
/* F_FRAG when fmt % args / fmt.format(args) that did not fold can spell a
 * dunder: a %c or {:c} conversion, or a piece holding one */
uint16_t fd_fmt_wild(tpl *t, const aval *fmt, const aval *args, uint32_t na, bool pct);
aval fd_fold_replace(tpl *t, const aval *s, const cval *old, const cval *new_, int64_t count);
aval fd_fold_case(tpl *t, const aval *s, int how);
/* s.find / rfind / index / rindex / count(o): how 0 .. 4 */
aval fd_fold_find(tpl *t, const aval *s, const cval *o, int how);
aval fd_fold_strip(tpl *t, const aval *s, const cval *chars, int side); /* <0 left, >0 right */
aval fd_fold_center(tpl *t, const aval *s, int64_t width);
aval fd_fold_reverse(tpl *t, const aval *s);
aval fd_fold_join(tpl *t, const aval *x, const cval *sep, const aval *at, bool strict);
aval fd_fold_slice(tpl *t, const aval *s, const aval *parts, uint32_t np);
aval fd_fold_index(tpl *t, const aval *x, int64_t i);
aval fd_make_list(tpl *t, const aval *items, uint32_t n, const aval *at);

/* lists.c: list + list, list * n, and the mutators append / extend /
 * insert (m is W_APPEND ...) applied to the list l; unknown when they do
 * not fold. fd_frag_of is F_FRAG when the value holds a piece of a dunder
 * name ('__', '_', '__x'): a string, an item of a list, an item a loop
 * variable takes, or an unknown value built from one. */
aval fd_list_concat(tpl *t, const aval *a, const aval *b);
/* s|list: its code points as a list of one-character strings */
aval fd_str_list(tpl *t, const aval *s);
/* range() of n (<= TPL_UNROLL_MAX) integers from start by step: r (AV_UNK)
 * gets them as a list at off/len and F_RANGE, for a loop over it */
void fd_int_range(tpl *t, int64_t start, int64_t step, int64_t n, aval *r);
aval fd_list_repeat(tpl *t, const aval *l, const aval *n, const aval *at);
aval fd_list_mutate(tpl *t, const aval *l, unsigned m, const aval *args, uint32_t na,
                    const aval *at);
uint16_t fd_frag_of_value(tpl *t, const aval *v); /* fold.c (the bytes' test) */
/* (inline: most values are names or unknowns, which hold no piece) */
static inline uint16_t fd_frag_of(tpl *t, const aval *v)
{
    if (v->flags & F_FRAG)
        return F_FRAG;
    if (v->kind != AV_STR && v->kind != AV_LIST && !(v->kind == AV_UNK && (v->flags & F_ITEMS)))
        return 0;
    return fd_frag_of_value(t, v);
}

/* The {% set %} store: lookup, lookup-or-create (NULL past TPL_VARS_MAX),
 * assignment (copies constant bytes into the store), forgetting a value. */
var *fd_var_find_ns(tpl *t, uint32_t ns, const uint8_t *s, uint32_t n, uint32_t h);
static inline var *fd_var_find(tpl *t, const uint8_t *s, uint32_t n, uint32_t h)
{
    return fd_var_find_ns(t, 0, s, n, h);
}
var *fd_var_get_ns(tpl *t, uint32_t ns, const uint8_t *s, uint32_t n, uint32_t h, uint64_t index);
var *fd_var_get(tpl *t, const uint8_t *s, uint32_t n, uint32_t h, uint64_t index);
/* lists.c: a dict literal whose m keys and values kv[0..2m) (k0 v0 k1 v1
 * ...) are all constants, remembered for the template; x|items or
 * x.items() (x the AV_ATTR) of a remembered dict: an F_PAIRS value, else
 * unknown. */
void fd_dict_remember(tpl *t, const aval *kv, uint32_t m, const aval *at);
aval fd_dict_items(tpl *t, const aval *x, const aval *at);
void fd_var_assign(tpl *t, var *x, const aval *v);
void fd_var_unknown(tpl *t, const uint8_t *s, uint32_t n, uint32_t h, uint64_t index);

#endif
