/* template_impl.h - the analyser's state, shared by template_lex.c (bytes to
 * tokens, string literals), template_text.c (the word table, hit recording,
 * the raw byte scanner), template_stream.c (the text streams), template_fold.c (constants, folding,
 * the {% set %} store) and template_eval.c (the evaluator, the indicators and
 * the statements). Not used outside those files.
 *
 * Every structure is bounded: identifiers keep TPL_NAME_CAP bytes, a string
 * literal or folded constant TPL_CONST_CAP, the per-tag arena TPL_ARENA_CAP,
 * the {% set %} store TPL_VARS_MAX variables in TPL_VSTORE_CAP bytes, the
 * expression stacks TPL_STACK entries, and all copying done by folding is
 * charged to one budget per analyser, proportional to the bytes fed. Hitting a cap
 * costs precision (a TH_LIMIT note), never time or memory. */
#ifndef GGUFLINT_TEMPLATE_IMPL_H
#define GGUFLINT_TEMPLATE_IMPL_H

#include "template/template_scan.h"

#include <stddef.h>
#include <string.h>

#define TPL_NAME_CAP 128u
#define TPL_CONST_CAP (64u * 1024u)
#define TPL_ARENA_CAP (256u * 1024u)
#define TPL_VARS_MAX 256u
#define TPL_VAR_SLOTS 512u /* hash slots, a power of two > 2 * TPL_VARS_MAX */
#define TPL_VSTORE_CAP (1024u * 1024u)
#define TPL_STACK 128u
#define TPL_BLOCKS 128u
#define TPL_WORD_SLOTS 512u
#define TPL_OVERSIZE (256u * 1024u)
#define TPL_BLOB_MIN 64u
#define TPL_DOS_BIG 1000000          /* one range / repetition */
#define TPL_DOS_NEST 10000000        /* product of nested loop bounds */
#define TPL_POW_BITS (1u << 24)      /* bits of a ** result */
/* Folding copies, per analyser (one analyser per file): TPL_BUDGET_BASE,
 * plus TPL_BUDGET_PER_BYTE for every template byte fed, up to TPL_BUDGET_MAX
 * in all, so the work of a file is linear in its size however many
 * templates it holds (8000 tiny ones cost what one big one does). */
#define TPL_BUDGET_BASE (1u << 20)
#define TPL_BUDGET_PER_BYTE 4u
#define TPL_BUDGET_MAX (256ull << 20)

/* ---- words: names with a meaning to the analyser (template_text.c) ---- */
enum {
    W_NONE,
    /* expression keywords */
    W_AND, W_OR, W_NOT, W_IN, W_IS, W_IF, W_ELSE, W_TRUE, W_FALSE, W_NONE_LIT,
    W_TRUE_U, W_FALSE_U, W_NONE_U, W_RECURSIVE,
    /* statements */
    W_SET, W_ENDSET, W_FOR, W_ENDFOR, W_ELIF, W_ENDIF, W_MACRO, W_ENDMACRO, W_CALL,
    W_ENDCALL, W_FILTER, W_ENDFILTER, W_WITH, W_ENDWITH, W_BLOCK, W_ENDBLOCK, W_RAW,
    W_ENDRAW, W_GENERATION, W_ENDGENERATION, W_AUTOESCAPE, W_ENDAUTOESCAPE, W_TRANS,
    W_ENDTRANS,
    /* Jinja globals that reach __globals__ */
    W_LIPSUM, W_CYCLER, W_JOINER, W_NAMESPACE, W_SELF, W_RANGE, W_DICT, W_LOOP, W_CALLER,
    W_VARARGS, W_KWARGS, W_REQUEST, W_CONFIG, W_URL_FOR, W_GET_FLASHED, W_G,
    /* Python modules */
    W_OS, W_SYS, W_SUBPROCESS, W_IMPORTLIB, W_BUILTINS, W_POSIX, W_NT, W_PTY, W_SOCKET,
    W_SHUTIL, W_URLLIB, W_REQUESTS,
    /* Python builtins */
    W_EVAL, W_EXEC, W_COMPILE, W_OPEN, W_INPUT, W_BREAKPOINT, W_GLOBALS, W_LOCALS, W_VARS,
    W_SETATTR, W_DELATTR, W_GETATTR, W_CHR, W_IMPORT_DUNDER,
    /* attributes that run commands or expose the process */
    W_POPEN, W_SYSTEM, W_CHECK_OUTPUT, W_CHECK_CALL, W_GETOUTPUT, W_GETSTATUSOUTPUT,
    W_POPEN_CLS, W_SPAWNL, W_SPAWNV, W_EXECV, W_EXECVE, W_ENVIRON, W_IMPORT_MODULE,
    W_LOAD_MODULE, W_MODULES, W_READ, W_RUN, W_WRITE,
    /* class hunting */
    W_CATCH_WARNINGS, W_WRAP_CLOSE, W_FILELOADER, W_BUILTINIMPORTER, W_MODULE_ATTR, W_MRO,
    /* methods and filters that fold */
    W_FORMAT, W_FORMAT_MAP, W_REPLACE, W_JOIN, W_LOWER, W_UPPER, W_STRIP, W_LSTRIP,
    W_RSTRIP, W_TITLE, W_CAPITALIZE, W_SWAPCASE, W_STARTSWITH, W_ENDSWITH, W_FIND,
    W_RFIND, W_COUNT, W_INDEX, W_ATTR, W_TRIM, W_STRING, W_REVERSE, W_FIRST, W_LAST,
    W_LIST, W_CENTER, W_INDENT,
    /* message fields */
    W_CONTENT, W_TEXT,
    W__COUNT
};

/* word classes */
#define WC_GADGET 0x01u     /* Jinja global exposing __globals__ */
#define WC_MODULE 0x02u     /* a Python module name */
#define WC_CALLSINK 0x04u   /* a builtin that runs code or opens files when called */
#define WC_ATTRSINK 0x08u   /* an attribute that runs commands, on any object */
#define WC_KEYSINK 0x10u    /* a subscript / attr name that reaches a sink on any object */
#define WC_TAINTSINK 0x20u  /* a sink once an object-model chain is reached */
#define WC_CLASSHUNT 0x40u  /* a class or attribute named in class-hunting payloads */

uint16_t word_class(unsigned id);
const char *word_text(unsigned id);

/* ---- tokens ---- */
enum { TK_NAME, TK_STR, TK_INT, TK_FLOAT, TK_OP, TK_OTHER };
/* two-character operators (single ones are their own character) */
enum { OPC_POW = 1, OPC_FDIV, OPC_EQ, OPC_NE, OPC_LE, OPC_GE };

/* string literal flags */
#define LF_ESC_IDENT 0x01u /* a \x / \u / \U / octal / \N escape spelled [A-Za-z0-9_.] */
#define LF_TRUNC 0x02u     /* longer than TPL_CONST_CAP: only a prefix kept */
#define LF_SCANNED 0x04u   /* the kept prefix went to the LIT stream */
#define LF_INEXACT 0x08u   /* an escape Python treats otherwise (or rejects) */

typedef struct tok {
    uint8_t kind;
    uint8_t op;         /* TK_OP: the character or an OPC_ code */
    uint8_t lflags;     /* TK_STR */
    uint16_t word;      /* TK_NAME */
    uint32_t hash;      /* TK_NAME */
    const uint8_t *s;   /* TK_NAME text, TK_STR resolved bytes */
    uint32_t n;
    uint64_t full;      /* TK_STR: resolved length before truncation */
    int64_t ival;       /* TK_INT (saturated) */
    bool huge;          /* TK_INT past int64 */
    char esc[16];       /* TK_STR with LF_ESC_IDENT: the first such escape */
    tpl_pos pos;
    uint64_t index;     /* template byte index of the token's first byte */
} tok;

/* ---- abstract values of the evaluator ---- */
enum { AV_UNK, AV_STR, AV_INT, AV_LIST, AV_NAME, AV_ATTR, AV_NONE };
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

typedef struct aval {
    uint8_t kind;
    uint16_t flags;
    uint16_t word;      /* AV_NAME: the name's word; AV_ATTR: the attribute's */
    uint32_t off, len;  /* AV_STR / AV_LIST bytes, AV_ATTR receiver bytes, AV_NAME text */
    int64_t ival;       /* AV_INT value, AV_LIST item count */
    int64_t count;      /* items when iterated (-1 unknown) */
    uint16_t rword;     /* AV_ATTR: the receiver's word when it was a name */
    tpl_pos pos;
    uint64_t index;
} aval;

enum { O_BIN, O_UNARY, M_GROUP, M_CALL, M_SUB, M_LIST, M_DICT, M_FILTER, M_TEST };
enum {
    OP_OR = 1, OP_AND, OP_NOT, OP_IN, OP_NOTIN, OP_EQ, OP_NE, OP_CMP, OP_CONCAT, OP_ADD,
    OP_SUB, OP_MUL, OP_DIV, OP_FDIV, OP_MOD, OP_POW, OP_NEG, OP_POS, OP_IF, OP_ELSE
};

typedef struct oframe {
    uint8_t kind, op, prec;
    uint8_t colons;     /* M_SUB: slice separators seen */
    uint8_t commas;     /* commas seen inside the bracket */
    uint8_t kws;        /* keyword arguments seen inside the bracket */
    uint16_t word;      /* M_FILTER: the filter */
    uint32_t vh;        /* value height when pushed */
    tpl_pos pos;
    uint64_t index;
} oframe;

typedef struct block {
    uint8_t kind;       /* W_FOR, W_IF, ... the opening statement */
    int64_t bound;      /* for: this loop's constant bound (1 if unknown) */
    int64_t product;    /* for: product of the enclosing constant bounds */
    tpl_pos pos;
    uint64_t index;
} block;

typedef struct var {
    uint8_t name[TPL_NAME_CAP];
    uint32_t name_len, hash;
    uint32_t slot;      /* its entry in vslots */
    aval v;             /* bytes (if any) at v.off in the store, F_VAR set */
    uint32_t cap_off, cap_len; /* the store region owned by this variable */
} var;

/* Aho-Corasick automaton over a folded alphabet for phrases and URL schemes. */
#define AC_SYMS 52u
#define AC_MAX_STATES 2048u
#define TS_RING 64u /* folded symbols remembered (a phrase is shorter) */

/* segment flags (what the bytes of a stretch of the OUT stream are) */
#define SG_TEXT 0x01u    /* template text or a raw block */
#define SG_VALUE 0x02u   /* the value of a {{ }} */
#define SG_SCANNED 0x04u /* ... that is one string literal, scanned by LIT already */
#define SG_BUILT 0x08u   /* ... built by folding */
#define SG_ITEMS 0x10u   /* ... the items a loop emits one per iteration */
/* how a match was made (ts_where) */
#define HOW_ACROSS 0x01u  /* spans tags, comments or values */
#define HOW_BUILT 0x02u   /* lies in a folded constant */
#define HOW_ITEMS 0x04u   /* emitted piece by piece by a loop */
#define HOW_FOLDED 0x08u  /* needed look-alike folding */
#define HOW_SKIPPED 0x10u /* needed skipping invisible characters */
#define HOW_DUP 0x20u     /* already reported by the other stream */

/* One text stream (template_stream.c): the phrase automaton's state, the
 * last TS_RING symbols, and the runs (blob, IPv4 / e-mail word, URL). */
typedef struct tscan {
    const char *what;  /* "text" or "string literal" */
    uint32_t seg;      /* current segment number */
    uint16_t seg_fl;   /* SG_* of the current segment */
    uint16_t ac_state;
    bool ac_space;     /* the last symbol fed was a space */
    uint8_t u_need;    /* UTF-8: continuation bytes still expected */
    uint32_t u_cp;
    uint64_t u_index;
    uint32_t ring_n;              /* symbols fed */
    uint32_t seg_start;           /* ring_n when the current segment began */
    uint32_t fold_n, skip_n;      /* ring_n after the last folded symbol / at the last
                                     skipped invisible character (0: none) */
    uint64_t ring_index[TS_RING]; /* template index of each symbol */
    uint32_t blob_len, blob_seg;
    uint8_t blob_cls;
    uint8_t blob_head[48];
    uint64_t blob_index;
    uint32_t word_len, word_seg;
    uint8_t word_kind;
    uint8_t word[72];
    uint64_t word_index;
    bool url_cap;
    unsigned url_how;
    uint32_t url_len;
    char url[112];
    uint64_t url_index;
} tscan;

/* ---- the analyser ---- */
struct tpl {
    bool nomem;
    tpl_hit hits[TH__COUNT];
    uint32_t hit_mask;          /* kinds with have == true */
    uint64_t total, index;      /* template length, bytes fed so far */
    tpl_pos cur;                /* position of the chunk being fed */
    tpl_pos first_pos;          /* position of the first chunk */
    int64_t first_tag;

    /* word table: open addressing over word ids */
    uint16_t wslots[TPL_WORD_SLOTS];

    /* raw byte scanner: UTF-8 and invisible characters */
    uint32_t u8_cp, u8_min;
    uint8_t u8_need, u8_len;
    uint8_t u8_bytes[4];
    tpl_pos u8_pos;
    uint64_t u8_index;

    /* text scanners: the automaton and byte classes, the two streams */
    uint16_t (*ac_next)[AC_SYMS]; /* goto/fail-folded transitions */
    uint16_t *ac_out;             /* pattern index + 1 ending at a state, 0 none */
    uint16_t *ac_link;            /* dictionary suffix link */
    uint16_t ac_states;
    uint8_t sym[256];             /* byte -> folded symbol */
    uint8_t symf[256];            /* byte -> run classes */
    uint8_t bcls[256];            /* byte -> blob class */
    tpl_pos hist_pos[8];          /* the last chunks fed, to map an index to its chunk */
    uint64_t hist_index[8];
    uint32_t hist_n;
    tscan out;                    /* the text as Jinja emits it */
    tscan lits;                   /* the current string literal */

    /* lexer */
    uint8_t mode, tagkind, sub;
    bool pend, tag_fresh, raw_next;
    uint8_t pend_c;
    uint32_t depth;
    uint8_t name[TPL_NAME_CAP];
    uint32_t name_len, name_hash;
    int64_t num;
    bool num_huge;
    uint8_t num_base, num_digits;
    uint8_t quote, esc, esc_digits, esc_need;
    uint32_t esc_val;
    char esc_text[16];
    uint8_t esc_len;
    uint8_t *lit;
    bool lit_cr;          /* the last literal byte was a CR (CR LF is one LF) */
    uint32_t lit_len, lit_cap;
    uint64_t lit_full;
    uint8_t lit_flags;
    char lit_esc[16];
    uint8_t rawbuf[48];
    uint32_t raw_len;
    bool raw_collect;
    tpl_pos tok_pos;
    uint64_t tok_index;
    tpl_pos tag_pos;
    uint64_t tag_index;

    /* evaluator: per tag */
    uint8_t *ar;
    uint32_t ar_len, ar_cap;
    aval V[TPL_STACK];
    oframe O[TPL_STACK];
    uint32_t nv, no;
    uint8_t stmt, pend_ev;
    uint16_t pend_word;
    tpl_pos pend_pos;
    uint64_t pend_index;
    bool expect, dead, last_str, last_dot, first, tuple;
    uint8_t set_name[TPL_NAME_CAP];
    uint32_t set_len, set_hash;
    bool set_multi, set_attr, set_eq;
    bool limit_arena;

    /* evaluator: per analyser (the file) */
    uint64_t budget;       /* folding bytes left */
    uint64_t budget_given; /* granted so far, at most TPL_BUDGET_MAX */
    /* evaluator: per template */
    var *vars;
    uint32_t n_vars;
    uint16_t vslots[TPL_VAR_SLOTS];
    uint8_t *vs;
    uint32_t vs_len, vs_cap;
    block blocks[TPL_BLOCKS];
    uint32_t n_blocks, blocks_over;

    /* tpl_probe: the value of the last {{ }} */
    uint8_t *probe_buf;
    size_t probe_cap, probe_len;
    bool probe_known;
};

/* template_text.c */
void words_init(tpl *t);
unsigned word_lookup(const tpl *t, const uint8_t *s, size_t n, uint32_t hash);
uint32_t name_hash(const uint8_t *s, size_t n);
void raw_byte(tpl *t, uint8_t c);                  /* every byte of the template */
void raw_run(tpl *t, const uint8_t *p, size_t n);  /* raw_byte over n bytes */
void raw_end(tpl *t);
bool cp_invisible(uint32_t cp, const char **name);
void hit(tpl *t, int kind, tpl_pos pos, uint64_t index, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Escape up to max_in bytes for a message into buf (cap bytes). */
const char *q(char *buf, size_t cap, const uint8_t *s, size_t n, size_t max_in);

/* template_stream.c: the text streams */
bool ac_init(tpl *t);
tpl_pos pos_at(const tpl *t, uint64_t index);      /* the chunk holding a recent byte */
void ts_reset(tscan *s, const char *what);         /* a new stream */
void ts_segment(tscan *s, uint16_t fl);            /* what the next bytes are (SG_*) */
/* n bytes; byte i is at template index `index` + i, or at `index` for all
 * of them when same_index (a value built by folding). */
void ts_run(tpl *t, tscan *s, const uint8_t *p, size_t n, uint64_t index, bool same_index);
void ts_end(tpl *t, tscan *s);                     /* flush the runs, reset the automaton */
const char *ts_where(const tscan *s, unsigned how, char *buf, size_t cap);

/* ---- template_fold.c: constants, folding, the {% set %} store ----
 * Small helpers shared with the evaluator. */

/* The bytes of a constant (in the tag arena or the variable store). */
static inline const uint8_t *vb(const tpl *t, const aval *v)
{
    return ((v->flags & F_VAR) ? t->vs : t->ar) + v->off;
}

/* [A-Za-z0-9_] */
static inline bool identc(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
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
    v.pos = at->pos;
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
    v.pos = k->pos;
    v.index = k->index;
    return v;
}


/* A constant under construction at the end of the arena. */
typedef struct bld {
    uint32_t start;
    uint32_t checked; /* leading bytes already checked (the left operand of a concat) */
    bool fail;
    uint16_t fl;      /* flags the result gets (F_INEXACT of its sources) */
    const aval *at;   /* position for the result and for limit notes */
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

/* Reporting: a TH_LIMIT note; tv_go_dead also stops evaluating the tag. */
void tv_limit(tpl *t, tpl_pos pos, uint64_t index, const char *what);
void tv_go_dead(tpl *t, tpl_pos pos, uint64_t index, const char *what);
/* Names: a dunder (__x__), a mangled private (_Cls__x), a plain identifier;
 * a literal that reads like a trigger word (not markup, not a /switch). */
bool tv_is_dunder(const uint8_t *s, size_t n);
bool tv_is_mangled(const uint8_t *s, size_t n);
bool tv_is_ident(const uint8_t *s, size_t n);
bool tv_wordlike(const uint8_t *s, size_t n);
bool tv_has_frag(const uint8_t *s, size_t n);
/* A value for a message: a name, a quoted constant or "(...)". */
const char *tv_desc(const tpl *t, const aval *v, char *buf, size_t cap);

/* The tag arena and constant builders: bytes appended at the arena's end,
 * bounded by TPL_CONST_CAP, the arena cap and the folding budget; a failed
 * build yields an unknown value (and a TH_LIMIT note). tv_b_done runs the
 * constant checks on the new bytes. */
bool tv_ar_reserve(tpl *t, uint32_t n);
void tv_b_begin(tpl *t, bld *b, const aval *at);
void tv_b_raw(tpl *t, bld *b, const void *s, size_t n);
void tv_b_int(tpl *t, bld *b, int64_t x);
aval tv_b_done(tpl *t, bld *b);
/* The checks of a string literal token (escapes, dunders, class names). */
void tv_literal_check(tpl *t, const tok *k);

/* Folding. Each returns a constant when it can, else an unknown value. */
bool tv_to_cval(const aval *v, cval *c);
bool tv_gather_args(const tpl *t, const aval *args, uint32_t na, bool expand, cval *out,
                    uint32_t *n);
aval tv_concat(tpl *t, const aval *a, const aval *b);
aval tv_repeat(tpl *t, const aval *s, const aval *n, const aval *at); /* also GG729 */
aval tv_power(tpl *t, const aval *a, const aval *b);                  /* also GG729 */
aval tv_fold_percent(tpl *t, const aval *fmt, const cval *a, uint32_t na);
aval tv_fold_format(tpl *t, const aval *fmt, const cval *a, uint32_t na);
aval tv_fold_replace(tpl *t, const aval *s, const cval *old, const cval *new_, int64_t count);
aval tv_fold_case(tpl *t, const aval *s, int how);
aval tv_fold_strip(tpl *t, const aval *s, const cval *chars, int side); /* <0 left, >0 right */
aval tv_fold_center(tpl *t, const aval *s, int64_t width);
aval tv_fold_reverse(tpl *t, const aval *s);
aval tv_fold_join(tpl *t, const aval *x, const cval *sep, const aval *at, bool strict);
aval tv_fold_slice(tpl *t, const aval *s, const aval *parts, uint32_t np);
aval tv_fold_index(tpl *t, const aval *x, int64_t i);
aval tv_make_list(tpl *t, const aval *items, uint32_t n, const aval *at);

/* The {% set %} store: lookup, lookup-or-create (NULL past TPL_VARS_MAX),
 * assignment (copies constant bytes into the store), forgetting a value. */
var *tv_var_find(tpl *t, const uint8_t *s, uint32_t n, uint32_t h);
var *tv_var_get(tpl *t, const uint8_t *s, uint32_t n, uint32_t h, tpl_pos pos,
                uint64_t index);
void tv_var_assign(tpl *t, var *x, const aval *v);
void tv_var_unknown(tpl *t, const uint8_t *s, uint32_t n, uint32_t h, tpl_pos pos,
                    uint64_t index);

/* template_eval.c */
void ev_template_begin(tpl *t);
void ev_begin(tpl *t, uint8_t tagkind);
void ev_tok(tpl *t, const tok *k);
void ev_end(tpl *t);
void ev_template_end(tpl *t);
bool ev_wants_raw(const tpl *t);

enum { TAG_VAR = 1, TAG_BLOCK = 2 };

#endif
