/* tpl_fold.c - the differential oracle's view of the template folder: reads
 * one Jinja expression per line on stdin, analyses "{{ EXPR }}" with the
 * template analyser (never rendering it) - or the line itself when it
 * starts with "{%" (statements, then one {{ }}) - and prints one line per
 * input:
 * "K <hex>" with the value the folder computed, as Jinja would print it, or
 * "U" when the folder does not know it. ci/template-oracle.py renders the
 * same expressions with Jinja2's sandbox and compares.
 *
 * The value is that of the last {{ }} outside any block, or, for a {{ }} in
 * the one loop over a constant open around it, the items it takes joined:
 * what the template renders when that tag is its only output (the oracle
 * generates only such templates). */
#define _POSIX_C_SOURCE 200809L

#include "template/template.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    tpl *t = tpl_new();
    if (!t)
        return 2;
    size_t cap = 1u << 20;
    uint8_t *val = malloc(cap);
    char *line = NULL;
    size_t lcap = 0;
    ssize_t n;
    if (!val)
        return 2;
    while ((n = getline(&line, &lcap, stdin)) >= 0) {
        if (n > 0 && line[n - 1] == '\n')
            n--;
        /* a line that starts with "{%" is a whole template (statements,
         * then one {{ }}): taken as it is */
        bool whole = n >= 2 && line[0] == '{' && line[1] == '%';
        size_t tl = whole ? (size_t)n : (size_t)n + 6;
        char *tplt = malloc(tl + 1);
        if (!tplt)
            return 2;
        if (whole) {
            memcpy(tplt, line, (size_t)n);
        } else {
            memcpy(tplt, "{{ ", 3);
            memcpy(tplt + 3, line, (size_t)n);
            memcpy(tplt + 3 + n, " }}", 3);
        }
        size_t len;
        if (tpl_probe(t, (const uint8_t *)tplt, tl, val, cap, &len)) {
            fputs("K ", stdout);
            for (size_t i = 0; i < len; i++)
                printf("%02x", val[i]);
            putchar('\n');
        } else {
            puts("U");
        }
        free(tplt);
    }
    free(line);
    free(val);
    tpl_free(t);
    return 0;
}
