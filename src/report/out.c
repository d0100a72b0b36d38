/* out.c - the shared output helpers (see out.h) and the FILE* write callback. */
#include "report/out.h"

#include "common/escape.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void out_put(const out *o, const char *s)
{
    o->w(o->u, s, strlen(s));
}

void out_putn(const out *o, const char *s, size_t n)
{
    o->w(o->u, s, n);
}

void out_putf(const out *o, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->w(o->u, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

void out_jstr(const out *o, const char *s)
{
    json_quote(o->w, o->u, s, strlen(s));
}

void out_escape(const out *o, const void *s, size_t n)
{
    gguflint_escape(o->w, o->u, s, n);
}

void gguflint_write_file(void *user, const char *data, size_t len)
{
    fwrite(data, 1, len, (FILE *)user);
}
