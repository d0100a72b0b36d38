/* tokens.h - the special tokens a template emits (tokens.c, prefix tk_,
 * state t->tk), for the conformance checks. */
#ifndef GGUFLINT_TEMPLATE_TOKENS_H
#define GGUFLINT_TEMPLATE_TOKENS_H

#include "template/caps.h"
#include "template/template.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TK_HINT_BITS 6u
_Static_assert(TPL_TOK_MAX < 255, "an entry's index + 1 fits a hint");

typedef struct tpl_token {
    uint8_t len, kind; /* TKN_* */
    uint32_t key;      /* what add compares first (tokens.c; kept for pend) */
    uint64_t index;    /* template byte of its first occurrence */
    uint64_t line, col;
    uint8_t s[TPL_TOK_LEN];
} tpl_token;

/* the literal memo (tokens.c): the tokens of literals seen before */
#define TK_MEMO_BITS 6u  /* 2^6 sets */
#define TK_MEMO_WAYS 4u  /* of 4 entries */
#define TK_MEMO_LEN 255u /* longest literal remembered (its length fits a byte) */
#define TK_MEMO_TOKS 4u  /* most tokens of a literal remembered */

typedef struct tk_memo_entry {
    uint64_t h;  /* the keyed hash of b[0..n) */
    uint8_t n;   /* 0: empty */
    uint8_t how; /* 0: scanned as a literal, 1: as output text */
    uint8_t nt;  /* its tokens: at off[i], len[i] bytes, of kind[i] */
    uint8_t off[TK_MEMO_TOKS], len[TK_MEMO_TOKS], kind[TK_MEMO_TOKS];
    uint32_t key[TK_MEMO_TOKS]; /* their add keys */
    uint8_t b[TK_MEMO_LEN];
} tk_memo_entry;

typedef struct tpl_tokens {
    /* the output stream's token being read */
    uint8_t buf[TPL_TOK_LEN];
    uint32_t len, seg;
    bool on;
    uint64_t index;
    /* the tokens of the tag's literals, until the tag says they are output */
    tpl_token pend[TPL_TOK_PEND];
    uint32_t n_pend;
    /* every token emitted, once */
    tpl_token set[TPL_TOK_MAX];
    uint32_t key[TPL_TOK_MAX];        /* what add compares first (tokens.c) */
    uint8_t hint[1u << TK_HINT_BITS]; /* by key: index + 1 of an entry (tokens.c) */
    uint32_t n;
    tk_memo_entry memo[1u << TK_MEMO_BITS][TK_MEMO_WAYS]; /* literals' tokens */
    uint8_t memo_next[1u << TK_MEMO_BITS];                /* the way replaced next */
    bool bos_var, eos_var;
    uint64_t bos_index, eos_index;
} tpl_tokens;

void tk_template_begin(tpl *t);
void tk_memo_clear(tpl *t); /* the literals' token memo emptied (a new file) */
/* Output text (the OUT stream): n bytes of segment seg at `index`. */
void tk_run(tpl *t, const uint8_t *p, size_t n, uint32_t seg, uint64_t index, bool same_index);
/* Output text of segment seg that is only ' ', '\t', '\n' and '\r' (tk_run's
 * effect on such text in one step: it ends a token). */
void tk_space(tpl *t, uint32_t seg);
void tk_literal(tpl *t, const uint8_t *s, size_t n, uint64_t index); /* a literal in a tag */
void tk_drop(tpl *t, uint64_t index);  /* the literal at index is compared, not emitted */
void tk_tag_end(tpl *t, bool emitted); /* the tag's literals are output (or not) */
void tk_name(tpl *t, const uint8_t *s, size_t n, uint64_t index); /* a name in a {{ }} */

#endif
