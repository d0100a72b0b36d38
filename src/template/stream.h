/* stream.h - the text streams of the template analyser (stream.c, prefix
 * ts_, state t->ts): the phrase automaton's tables, and the two streams,
 * OUT (the text as Jinja emits it) and LIT (each string literal). */
#ifndef GGUFLINT_TEMPLATE_STREAM_H
#define GGUFLINT_TEMPLATE_STREAM_H

#include "template/caps.h"
#include "template/grammar.h"
#include "template/template.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Aho-Corasick automaton over a folded alphabet for phrases and URL schemes. */
#define AC_SYMS 52u
#define AC_MAX_STATES 4096u
#define TS_RING 64u /* folded symbols remembered (a phrase is shorter) */

/* symx: the symbol (< 64) and what else the automaton pass needs of a byte */
#define SX_SYM 0x3Fu
#define SX_MDEND 0x40u /* ')' or a line feed: ends a markdown link target */
#define SX_SLOW 0x80u  /* non-ASCII: the slow path (UTF-8 folding) */
_Static_assert(AC_SYMS <= SX_SYM + 1, "a symbol fits symx");

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

/* One text stream: the phrase automaton's state, the
 * last TS_RING symbols, and the runs (blob, IPv4 / e-mail word, URL). */
/* letters of the current word */
#define WL_ASCII 0x01u
#define WL_CONFUSABLE 0x02u /* Cyrillic / Greek letters that look Latin */
#define WL_WIDE 0x04u       /* fullwidth Latin */
#define WL_STYLED 0x08u     /* mathematical, circled */
#define WL_OTHER 0x10u      /* letters of another script */
/* output contexts (exfiltration) */
#define CTX_MDLINK 0x01u   /* after "](" until ")" or a newline */
#define CTX_COMMENT 0x02u  /* between "<!--" and "-->" */
#define CTX_TOOLARGS 0x04u /* after "arguments" / <tool_call> until a newline or </tool_call> */
#define CTX_LINE (CTX_MDLINK | CTX_TOOLARGS) /* the contexts a newline ends */
/* gates: what the enclosing conditions test (GG734) */
#define GATE_CONTENT 0x01u
#define GATE_TURNS 0x02u
#define GATE_DATE 0x04u
#define GATE_KEY 0x08u /* a message's role other than the usual ones, or a tool's name */

/* what a scanner holds of the literal memo (stream.c) */
enum { MEMO_NONE, MEMO_PENDING, MEMO_HELD, MEMO_ENDED };
#define TS_MEMO_BITS 7u  /* 2^7 sets */
#define TS_MEMO_WAYS 4u  /* of 4 entries */
#define TS_MEMO_LEN 255u /* longest literal remembered (its length fits a byte) */

typedef struct tscan {
    const char *what; /* "text" or "string literal" */
    struct tpl *owner;
    uint32_t hits;    /* findings reported */
    uint32_t matches; /* patterns matched (the value memo) */
    bool fresh;       /* nothing since ts_reset: the scalars are not set yet */
    bool rest;        /* resting (stream.c) since the last piece: no memo, not fresh */
    uint8_t memo;     /* MEMO_*: s->lit is being remembered, or held unscanned */
    uint8_t lit_n;
    uint32_t memo_slot, memo_hits;
    uint64_t lit_index, lit_h;       /* where s->lit starts, its hash */
    const uint8_t *lit_src;          /* the bytes s->lit was copied from */
    struct ts_memo_entry *lit_entry; /* the memo entry of those bytes, or NULL */
    uint8_t lit[TS_MEMO_LEN];
    uint32_t seg;      /* current segment number */
    uint32_t ac_state; /* row offset in ac_go */
    uint16_t seg_fl;   /* SG_* of the current segment */
    bool ac_space;     /* the last symbol fed was a space */
    uint8_t u_need;    /* UTF-8: continuation bytes still expected */
    uint32_t u_cp;
    uint64_t u_index;
    uint32_t ring_n;              /* symbols fed */
    uint32_t seg_start;           /* ring_n when the current segment began */
    uint32_t fold_n, skip_n;      /* ring_n after the last folded symbol / at the last
                                     skipped invisible character (0: none) */
    uint32_t zw_rn;               /* 1 + ring_n at the last zero-width or tag character */
    uint64_t ring_index[TS_RING]; /* template index of each symbol */
    uint8_t wl;                   /* WL_* of the current word */
    uint32_t wl_n;                /* its letters */
    uint64_t wl_index;            /* where it started */
    uint8_t ctx;                  /* CTX_* */
    uint8_t gate;                 /* GATE_* of the blocks open around the text */
    uint32_t nl_words;            /* words of prose in a row, under a gate */
    uint32_t nl_cjk;              /* ideographs and kana among them (two make a word) */
    bool nl_done;
    gr_state gr; /* the instruction grammar (grammar.c) */
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

/* ac_go[state * AC_SYMS + symbol]: the next state, as its row offset
 * (state * AC_SYMS): one add and one load per symbol. ac_hit[offset] is 1
 * when a pattern ends at that state. A scanner's ac_state is such an offset. */
_Static_assert(AC_MAX_STATES * 1ull * AC_SYMS < UINT32_MAX, "a row offset fits ac_go");

/* symw: symx in the low byte, the run classes (symf) in the high byte */
#define SW_RUNS(w) ((uint8_t)((w) >> 8))

#define TS_TK_UNKNOWN 0xFFu /* ts_memo_entry.tk_nt: not known yet */
#define TS_TK_TOKS 4u       /* special tokens an entry notes, at most */
typedef struct ts_memo_entry {
    uint64_t h; /* the keyed hash of b[0..n) */
    uint8_t n;  /* 0: empty */
    /* the special tokens of the literal (tokens.c): tk_nt of them (at most
     * TS_TK_TOKS; TS_TK_UNKNOWN), at tk_off, tk_len bytes, of kind tk_kind */
    uint8_t tk_nt;
    uint8_t tk_off[TS_TK_TOKS], tk_len[TS_TK_TOKS], tk_kind[TS_TK_TOKS];
    uint32_t tk_key[TS_TK_TOKS]; /* their keys (tokens.c's token_key) */
    uint8_t b[TS_MEMO_LEN];
} ts_memo_entry;

/* the value memo (stream.c): what scanning a {{ }} constant did */
#define TS_VMEMO_BITS 6u /* 2^6 sets */
#define TS_VMEMO_WAYS 4u /* of 4 entries */
#define TS_VMEMO_LEN 64u /* longest value remembered */
typedef struct ts_vmemo_entry {
    uint64_t h;                                      /* the keyed hash of b[0..n) */
    uint32_t st0, st1;                               /* the automaton's state before, after */
    uint8_t n;                                       /* 0: empty */
    bool sp0, sp1;                                   /* ac_space before, after */
    uint8_t syms;                                    /* symbols fed */
    uint8_t wl_n;                                    /* letters of the word open after (0: none) */
    uint8_t blob_len, blob_cls, word_len, word_kind; /* the run tails after */
    uint8_t b[TS_VMEMO_LEN];
} ts_vmemo_entry;

typedef struct tpl_streams {
    /* the automaton, built once per process (stream.c), read-only */
    const uint32_t *ac_go;  /* goto/fail-folded transitions, as row offsets */
    const uint8_t *ac_hit;  /* by row offset: a pattern ends at the state */
    const uint16_t *ac_out; /* pattern index + 1 ending at a state, 0 none */
    uint16_t ac_states;
    uint8_t sym[256];   /* byte -> folded symbol */
    uint8_t symx[256];  /* byte -> symbol | SX_* */
    uint16_t symw[256]; /* byte -> symx | symf << 8 (the automaton pass's one lookup) */
    uint8_t symf[256];  /* byte -> run classes */
    uint8_t bcls[256];  /* byte -> blob class */
    uint8_t wkind[256]; /* byte of a word -> what it makes the word (WK_* of stream.c) */
    const struct keyhash_ml *memo_key;
    ts_memo_entry memo[1u << TS_MEMO_BITS][TS_MEMO_WAYS];     /* literals known to report nothing */
    uint8_t memo_next[1u << TS_MEMO_BITS];                    /* the way replaced next */
    ts_vmemo_entry vmemo[1u << TS_VMEMO_BITS][TS_VMEMO_WAYS]; /* values' effects */
    uint8_t vmemo_next[1u << TS_VMEMO_BITS];                  /* the way replaced next */
    /* the phrases and addresses the LIT stream found, by a hash of their
     * text (a Bloom filter): the OUT stream's folded constant holding one
     * is no text that "exists only as assembled output" */
    uint64_t lit_seen[4];
    tscan out;  /* the text as Jinja emits it */
    tscan lits; /* the current string literal */
} tpl_streams;

/* Short byte moves and compares of the scanners (stream.c, tokens.c). */
/* d[0..n) = s[0..n) for short copies (tails, literals, tokens: a few
 * hundred bytes at most): word-sized moves, not a byte loop nor a library
 * call. */
static inline void ts_copy_short(uint8_t *d, const uint8_t *s, size_t n)
{
    if (n >= 8) {
        for (size_t k = 0; k + 8 < n; k += 8)
            memcpy(d + k, s + k, 8);
        memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else {
        for (size_t k = 0; k < n; k++)
            d[k] = s[k];
    }
}

/* Whether a[0..n) and b[0..n) (short, as above) hold the same bytes: a
 * few word compares, the last overlapping the one before it. */
static inline bool ts_same_short(const uint8_t *a, const uint8_t *b, size_t n)
{
    uint64_t x, y;
    if (n >= 8) {
        for (size_t k = 0; k + 8 < n; k += 8) {
            memcpy(&x, a + k, 8);
            memcpy(&y, b + k, 8);
            if (x != y)
                return false;
        }
        memcpy(&x, a + n - 8, 8);
        memcpy(&y, b + n - 8, 8);
        return x == y;
    }
    if (n >= 4) {
        uint32_t u, v, w, z;
        memcpy(&u, a, 4);
        memcpy(&v, b, 4);
        memcpy(&w, a + n - 4, 4);
        memcpy(&z, b + n - 4, 4);
        return u == v && w == z;
    }
    for (size_t k = 0; k < n; k++)
        if (a[k] != b[k])
            return false;
    return true;
}

/* The keyed hash (t->ts.memo_key) of the literal whose first piece, of n
 * bytes at `index`, the LIT stream took last, when it is known (tokens.c
 * then need not hash those bytes again; a stale one would only pick the
 * wrong set of a memo, whose entries are compared byte for byte). */
static inline bool ts_lit_hash(const tscan *s, uint64_t index, size_t n, uint64_t *h)
{
    if (!n || s->lit_n != n || s->lit_index != index)
        return false;
    *h = s->lit_h;
    return true;
}

/* The LIT memo's entry for the literal p[0..n) at `index` that the LIT
 * stream took last (the same bytes: the same source, length and index),
 * or NULL: tokens.c keeps the literal's special tokens in it. */
static inline struct ts_memo_entry *ts_lit_entry(const tscan *s, const uint8_t *p, size_t n,
                                                 uint64_t index)
{
    if (!n || s->lit_n != n || s->lit_index != index || s->lit_src != p || !s->lit_entry ||
        s->lit_entry->n != n || s->lit_entry->h != s->lit_h)
        return NULL;
    return s->lit_entry;
}

bool ts_init(tpl *t);
void ts_free(tpl *t);
void ts_memo_clear(tpl *t);                /* the literal and value memos emptied (a new file) */
void ts_reset(tscan *s, const char *what); /* a new stream (its scalars set when first used) */
/* The held literal (memo) scanned after all: something other than ts_end
 * or ts_reset came (stream.c; for the inline functions below). */
void ts_memo_resolve(tscan *s);
/* The stream is used: the scalars ts_reset left due are set, a held
 * literal is scanned (stream.c). */
void ts_end_scan(tpl *t, tscan *s); /* ts_end past its held case */

/* What the next bytes are (SG_*). In line: once per tag. */
void ts_ready(tscan *s);
static inline void ts_segment(tscan *s, uint16_t fl)
{
    if (s->memo >= MEMO_HELD || s->fresh)
        ts_ready(s);
    s->seg++;
    s->seg_fl = fl;
    s->seg_start = s->ring_n;
}

/* n bytes; byte i is at template index `index` + i, or at `index` for all
 * of them when same_index (a value built by folding). */
void ts_run(tpl *t, tscan *s, const uint8_t *p, size_t n, uint64_t index, bool same_index);
/* Flush the runs, reset the automaton. In line: a held literal (the
 * memo) only notes that it ended. */
static inline void ts_end(tpl *t, tscan *s)
{
    if (s->memo == MEMO_HELD) {
        s->memo = MEMO_ENDED;
        return;
    }
    ts_end_scan(t, s);
}
/* ts_run(t, s, p, n, index, false) if n > 0, then ts_end(t, s): a whole
 * string literal in one call. */
void ts_literal(tpl *t, tscan *s, const uint8_t *p, size_t n, uint64_t index);
const char *ts_where(const tscan *s, unsigned how, char *buf, size_t cap);
/* An unknown {{ }} value holding message content is output at `index`:
 * inside a URL, a markdown link target or an HTML comment it is GG736. */
void ts_content(tpl *t, tscan *s, uint64_t index);
/* The text that follows is inside blocks whose conditions test GATE_* bits
 * (in line: once per block tag). */
static inline void ts_gate(tscan *s, unsigned gate)
{
    if (s->fresh || s->memo >= MEMO_HELD)
        ts_ready(s);
    if (gate != s->gate)
        s->nl_done = false;
    s->gate = (uint8_t)gate;
    s->nl_words = 0;
}
size_t ts_fold_text(const uint8_t *s, size_t n, uint8_t *out, size_t cap, bool *folded);
/* An instruction-like, concealment or shell phrase (TH_* kind) of `len`
 * symbols ending at the symbol fed last, beginning at template index
 * `index`: reported with where it lies (and GG735 when assembled, GG734
 * when gated), but for the HOW_* bits of not_how. The grammar's pairs
 * (grammar.c) come here too. */
/* Whether the text was found in a literal already (note: the LIT stream
 * notes it, the OUT stream asks). */
bool ts_lit_seen(tpl *t, const tscan *s, const uint8_t *p, size_t n);
void ts_phrase(tpl *t, tscan *s, int kind, uint64_t index, uint32_t len, const char *text,
               unsigned not_how);

#endif
