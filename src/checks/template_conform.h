/* template_conform.h - the chat templates against the vocabulary
 * (template_conform.c, prefix tc_): check_template.c collects what each
 * template emits, then runs the checks once per file. */
#ifndef GGUFLINT_CHECKS_TEMPLATE_CONFORM_H
#define GGUFLINT_CHECKS_TEMPLATE_CONFORM_H

#include "checks/checks.h"
#include "template/caps.h"
#include "template/template.h"

typedef struct tc_token {
    uint8_t len, kind;
    bool in_vocab;
    uint64_t line, col;
    const gguflint_kv *kv; /* the template that emits it first */
    uint8_t s[TPL_TOK_LEN];
} tc_token;

typedef struct tc_state {
    unsigned templates;
    const gguflint_kv *first_kv, *bos_var_kv;
    bool eos_var;
    tc_token tok[TPL_TOK_MAX]; /* every template's special tokens, once */
    size_t n;
} tc_state;

void tc_init(tc_state *st);
void tc_collect(tc_state *st, const tpl *t, const gguflint_kv *kv);
void tc_finish(gguflint_ctx *ctx, tc_state *st); /* GG740-GG743 */

#endif
