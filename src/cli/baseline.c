/* baseline.c - see baseline.h. The file is read whole (bounded), each line
 * is checked, and the entries are sorted by fingerprint so each finding costs
 * one binary search. */
#define _POSIX_C_SOURCE 200809L
#include "baseline.h"

#include "common.h"

#include "core/limits.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Why the file is refused, into b->error ("PATH[:LINE]: what"); false. */
static bool load_error(baseline *b, uint32_t line, const char *what)
{
    if (line)
        snprintf(b->error, sizeof b->error, ":%u: %s", line, what);
    else
        snprintf(b->error, sizeof b->error, ": %s", what);
    return false;
}

/* The whole file into b->text (NUL-terminated), at most the limit. */
static bool read_all(baseline *b, size_t *len)
{
    FILE *f = fopen(b->path, "rb");
    if (!f)
        return load_error(b, 0, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *t = malloc(cap + 1);
    bool ok = t != NULL;
    while (ok) {
        if (n == cap) {
            if (cap >= CLI_MAX_BASELINE_BYTES) {
                ok = load_error(b, 0, "larger than 64 MiB");
                break;
            }
            char *g = realloc(t, cap * 2 + 1);
            if (!g) {
                ok = false;
                break;
            }
            t = g;
            cap *= 2;
        }
        size_t got = fread(t + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                ok = load_error(b, 0, "read error");
            break;
        }
    }
    fclose(f);
    if (!ok) {
        if (!t)
            load_error(b, 0, "out of memory");
        free(t);
        return false;
    }
    t[n] = '\0';
    b->text = t;
    *len = n;
    return true;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int entry_cmp(const void *a, const void *b)
{
    const baseline_entry *x = a, *y = b;
    return x->fp < y->fp ? -1 : x->fp > y->fp;
}

bool baseline_parse_text(baseline *b, char *text, size_t len, const char *name)
{
    memset(b, 0, sizeof *b);
    b->path = name;
    b->text = text;
    /* one entry per line of at least 16 bytes (a fingerprint): at most one
     * per 17 bytes of the file, so the index stays within a small factor of
     * the file's size however it is made */
    size_t cap = len / 17 + 1;
    b->e = malloc(cap * sizeof *b->e);
    if (!b->e)
        return load_error(b, 0, "out of memory");
    uint32_t line = 0;
    for (size_t at = 0; at < len;) {
        char *nl = memchr(b->text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - b->text) : len;
        const char *s = b->text + at;
        size_t n = end - at;
        line++;
        if (n && s[n - 1] == '\r')
            n--;
        if (n && s[0] != '#') {
            uint64_t fp = 0;
            size_t k = 0;
            for (; k < 16 && k < n && hexval(s[k]) >= 0; k++)
                fp = fp << 4 | (uint64_t)hexval(s[k]);
            if (k != 16 || (n > 16 && s[16] != '\t'))
                return load_error(b, line,
                                  "not a baseline line (16 hex digits, a tab, the rest); "
                                  "write one with --write-baseline");
            size_t rest = n > 17 ? 17 : n;
            if (b->n == cap) /* cannot happen: each entry took 17 bytes */
                return load_error(b, line, "too many entries");
            b->e[b->n++] = (baseline_entry){fp, line, at + rest, n - rest, false};
        }
        at = end + 1;
    }
    qsort(b->e, b->n, sizeof *b->e, entry_cmp);
    return true;
}

bool baseline_load(baseline *b, const char *path)
{
    memset(b, 0, sizeof *b);
    b->path = path;
    size_t len;
    bool ok = read_all(b, &len);
    if (ok) {
        char *text = b->text;
        ok = baseline_parse_text(b, text, len, path);
    }
    if (!ok) {
        fprintf(stderr, "gguflint: --baseline ");
        err_text(path);
        fprintf(stderr, "%s\n", b->error);
    }
    return ok;
}

static baseline_entry *find(baseline *b, uint64_t fp)
{
    size_t lo = 0, hi = b->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->e[mid].fp < fp)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < b->n && b->e[lo].fp == fp ? &b->e[lo] : NULL;
}

bool baseline_match(baseline *b, const gguflint_ctx *ctx, const char *path, bool *flags,
                    size_t *matched)
{
    size_t n = gguflint_finding_count(ctx);
    *matched = 0;
    if (n == 0)
        return true;
    uint64_t *fps = malloc(n * sizeof *fps);
    if (!fps || gguflint_finding_fingerprints(ctx, path, fps, n) != GGUFLINT_OK) {
        free(fps);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        baseline_entry *e = find(b, fps[i]);
        flags[i] = e != NULL;
        if (e) {
            e->hit = true;
            ++*matched;
        }
    }
    free(fps);
    return true;
}

uint64_t baseline_gone(const baseline *b)
{
    uint64_t gone = 0;
    for (size_t i = 0; i < b->n; i++) {
        const baseline_entry *e = &b->e[i];
        if (e->hit)
            continue;
        gone++;
        fprintf(stderr, "gguflint: ");
        err_text(b->path);
        fprintf(stderr, ":%u: baselined finding gone: ", e->line);
        char *t = b->text + e->text;
        char keep = t[e->len];
        t[e->len] = '\0';
        for (char *c = t; *c; c++)
            if (*c == '\t')
                *c = ' ';
        err_text(t);
        t[e->len] = keep;
        fprintf(stderr, "\n");
    }
    return gone;
}

void baseline_free(baseline *b)
{
    free(b->text);
    free(b->e);
    memset(b, 0, sizeof *b);
}
