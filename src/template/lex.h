/* lex.h - the lexer of the template analyser (lex.c, prefix lx_, state
 * t->lx): tokens for the evaluator and the lexer's own state. */
#ifndef GGUFLINT_TEMPLATE_LEX_H
#define GGUFLINT_TEMPLATE_LEX_H

#include "template/caps.h"
#include "template/template.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- tokens ---- */
enum { TK_NAME, TK_STR, TK_INT, TK_FLOAT, TK_OP, TK_OTHER };
/* two-character operators (single ones are their own character) */
enum { OPC_POW = 1, OPC_FDIV, OPC_EQ, OPC_NE, OPC_LE, OPC_GE };

/* string literal flags */
#define LF_ESC_IDENT 0x01u /* a \x / \u / \U / octal / \N escape spelled [A-Za-z0-9_.] */
#define LF_TRUNC 0x02u     /* longer than TPL_CONST_CAP: only a prefix kept */
#define LF_SCANNED 0x04u   /* the kept prefix went to the LIT stream */
#define LF_INEXACT 0x08u   /* an escape Python treats otherwise (or rejects) */
#define LF_ASCII 0x10u     /* every byte of the token's text is ASCII (names too) */

typedef struct tok {
    uint8_t kind;
    uint8_t op;       /* TK_OP: the character or an OPC_ code */
    uint8_t lflags;   /* TK_STR */
    uint16_t word;    /* TK_NAME */
    uint32_t hash;    /* TK_NAME */
    const uint8_t *s; /* TK_NAME text, TK_STR resolved bytes */
    uint32_t n;
    uint64_t full;   /* TK_STR: resolved length before truncation */
    int64_t ival;    /* TK_INT (saturated) */
    bool huge;       /* TK_INT past int64 */
    const char *esc; /* TK_STR with LF_ESC_IDENT: the first such escape (the lexer's text) */
    uint64_t index;  /* template byte index of the token's first byte */
} tok;

enum { TAG_VAR = 1, TAG_BLOCK = 2 };

typedef struct tpl_lexer {
    uint8_t mode, tagkind, sub;
    bool pend, tag_fresh;
    uint8_t pend_c;
    /* whitespace control for a capture (capture.c): the tag ends with -%}
     * or -}}; a comment's first byte, the byte before its '#' */
    bool ws_end, cm_first, cm_dash;
    uint8_t cm_last;
    uint32_t depth;             /* brackets open in the tag */
    uint8_t name[TPL_NAME_CAP]; /* the name being read */
    uint32_t name_len;
    int64_t num; /* the number being read */
    bool num_huge;
    uint8_t num_base, num_digits;
    uint8_t quote, esc, esc_digits, esc_need; /* the string literal being read */
    uint32_t esc_val;
    char esc_text[16];
    uint8_t esc_len;
    uint8_t *lit; /* its resolved bytes, up to TPL_CONST_CAP */
    bool lit_cr;  /* the last literal byte was a CR (CR LF is one LF) */
    uint32_t lit_len, lit_cap;
    uint64_t lit_full;
    uint8_t lit_flags;
    char lit_esc[16];
    uint8_t rawbuf[48]; /* {% endraw %} detection, \N{...} names */
    uint32_t raw_len;
    bool raw_collect;
    uint64_t tok_index;
    uint64_t tag_index;
    uint8_t last_op; /* the tag's last operator token, for -}} and -%} */
    uint64_t last_op_index;
    uint8_t bstack[TPL_BSTACK]; /* the kinds of the open brackets (the first ones) */
    const uint8_t *cls;         /* byte -> LC_* (the fast paths of lx_feed), shared */
    const uint8_t *act; /* byte -> LA_* (what tag_run does with a token's first byte), shared */
} tpl_lexer;

bool lx_init(tpl *t);
void lx_free(tpl *t);
void lx_begin(tpl *t);
void lx_feed(tpl *t, const uint8_t *p, uint64_t n); /* at template index t->index */
void lx_end(tpl *t);

#endif
