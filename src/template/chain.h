/* chain.h - access chains of the template analyser (chain.c, prefix ch_):
 * the path by which a value was reached, for messages. */
#ifndef GGUFLINT_TEMPLATE_CHAIN_H
#define GGUFLINT_TEMPLATE_CHAIN_H

#include "template/fold.h"

#include <stddef.h>
#include <stdint.h>

/* ch_tag_begin is inline in tpl.h */
/* dst's chain: base's, then pre, s[0..n) (at most 40 bytes) and post. */
void ch_step(tpl *t, aval *dst, const aval *base, const char *pre, const uint8_t *s, size_t n,
             const char *post);
void ch_dot(tpl *t, aval *dst, const aval *base, const uint8_t *s, size_t n); /* base.s */
void ch_name(tpl *t, aval *v, uint32_t off, uint32_t len);            /* a name in the arena */
void ch_subscript(tpl *t, aval *dst, const aval *x, const aval *key); /* x['key'] */
void ch_attr(tpl *t, aval *dst, const aval *x, const aval *name);     /* x.name */
void ch_call(tpl *t, aval *dst, const aval *c, const aval *args, uint32_t na); /* c('a', ...) */
void ch_filter(tpl *t, aval *dst, const aval *x, unsigned w, uint32_t na);     /* x|w(...) */
/* Escaped chain for a message, NULL when the value has none. */
const char *ch_text(const tpl *t, const aval *v, char *buf, size_t cap);
void ch_store(tpl *t, var *x, const aval *v); /* a variable keeps its value's chain */
void ch_load(tpl *t, aval *v, const var *x, const uint8_t *name, uint32_t n);

#endif
