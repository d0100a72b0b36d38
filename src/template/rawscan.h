/* rawscan.h - the raw byte scanner of the template analyser (rawscan.c,
 * prefix raw_, state t->raw): invalid UTF-8 and invisible characters. */
#ifndef GGUFLINT_TEMPLATE_RAWSCAN_H
#define GGUFLINT_TEMPLATE_RAWSCAN_H

#include "template/template.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tpl_raw {
    uint32_t cp, min; /* the sequence being decoded */
    uint8_t need, len;
    uint8_t bytes[4];
    uint64_t index;
} tpl_raw;

void raw_begin(tpl *t);
void raw_byte(tpl *t, uint8_t c);                 /* at template index t->index */
void raw_run(tpl *t, const uint8_t *p, size_t n); /* raw_byte over n bytes */
void raw_end(tpl *t);
/* An invisible code point (zero-width, bidi control, tag character), named. */
bool raw_invisible(uint32_t cp, const char **name);

#endif
