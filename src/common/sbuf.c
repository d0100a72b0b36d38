/* sbuf.c - growable buffers (see sbuf.h). */
#include "common/sbuf.h"
#include "common/alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return true;
    size_t nc = *cap ? *cap * 2 : 16;
    if (nc > SIZE_MAX / elem)
        return false;
    void *p = gl_realloc(*arr, nc * elem);
    if (!p)
        return false;
    *arr = p;
    *cap = nc;
    return true;
}

void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (n + 1 > b->cap - b->len || b->cap == 0) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc - b->len < n + 1) {
            if (nc > SIZE_MAX / 2) {
                b->failed = true;
                return;
            }
            nc *= 2;
        }
        char *p = gl_realloc(b->data, nc);
        if (!p) {
            b->failed = true;
            return;
        }
        b->data = p;
        b->cap = nc;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sb_term(sbuf *b)
{
    sb_put(b, "", 0);
    if (!b->failed)
        b->len++;
}

void sb_puts(sbuf *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

void sb_vprintf(sbuf *b, const char *fmt, va_list ap)
{
    char tmp[512];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        sb_put(b, tmp, (size_t)n);
        return;
    }
    char *big = gl_malloc((size_t)n + 1);
    if (!big) {
        b->failed = true;
        return;
    }
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    sb_put(b, big, (size_t)n);
    gl_free(big);
}

void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

void sb_free(sbuf *b)
{
    gl_free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void sb_write(void *user, const char *data, size_t len)
{
    sb_put(user, data, len);
}
