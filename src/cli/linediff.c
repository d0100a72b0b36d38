/* linediff.c - see linediff.h. */
#include "linediff.h"

#include <stdlib.h>
#include <string.h>

typedef struct line {
    const uint8_t *p;
    size_t len;
} line;

/* The lines of s[0..n) into *out (malloc'd; NULL with 0 lines). False when
 * out of memory or there are more than LINEDIFF_MAX_LINES. */
static bool split_lines(const uint8_t *s, size_t n, line **out, size_t *count, bool *too_many)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += s[i] == '\n';
    if (n && s[n - 1] != '\n')
        c++;
    *out = NULL;
    *count = c;
    if (c > LINEDIFF_MAX_LINES) {
        *too_many = true;
        return true;
    }
    if (!c)
        return true;
    line *l = malloc(c * sizeof *l);
    if (!l)
        return false;
    size_t k = 0, start = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\n') {
            l[k++] = (line){s + start, i - start};
            start = i + 1;
        }
    if (start < n)
        l[k++] = (line){s + start, n - start};
    *out = l;
    return true;
}

typedef struct ref {
    const line *l;
    size_t slot; /* index into the id array of both texts */
} ref;

static int ref_cmp(const void *x, const void *y)
{
    const line *a = ((const ref *)x)->l, *b = ((const ref *)y)->l;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->p, b->p, n) : 0;
    if (c)
        return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

/* One number per line of both texts, equal for equal lines: ids[0..na) for
 * a, ids[na..na+nb) for b. */
static bool number_lines(const line *a, size_t na, const line *b, size_t nb, int32_t *ids)
{
    size_t n = na + nb;
    ref *r = malloc((n ? n : 1) * sizeof *r);
    if (!r)
        return false;
    for (size_t i = 0; i < na; i++)
        r[i] = (ref){&a[i], i};
    for (size_t i = 0; i < nb; i++)
        r[na + i] = (ref){&b[i], na + i};
    qsort(r, n, sizeof *r, ref_cmp);
    int32_t id = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && ref_cmp(&r[i - 1], &r[i]) != 0)
            id++;
        ids[r[i].slot] = id;
    }
    free(r);
    return true;
}

static bool push(line_diff *d, size_t *cap, char op, size_t no, const line *l)
{
    if (d->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        line_op *p = realloc(d->ops, nc * sizeof *p);
        if (!p)
            return false;
        d->ops = p;
        *cap = nc;
    }
    d->ops[d->n++] = (line_op){op, no, l->p, l->len};
    if (op == '-')
        d->removed++;
    else
        d->added++;
    return true;
}

/* The middle removed and added whole (the budget ran out). */
static bool whole(line_diff *d, size_t *cap, const line *a, size_t n, const line *b, size_t m,
                  size_t first)
{
    for (size_t i = 0; i < n; i++)
        if (!push(d, cap, '-', first + i + 1, &a[i]))
            return false;
    for (size_t j = 0; j < m; j++)
        if (!push(d, cap, '+', first + j + 1, &b[j]))
            return false;
    return true;
}

/* Myers' forward search over ia[0..n), ib[0..m); the V array of every step
 * d is kept in trace (V[-d..d] at trace[d*d]) for the walk back. Returns the
 * number of edits, or -1 when it exceeds max_d or the step budget. */
static long myers(const int32_t *ia, size_t n, const int32_t *ib, size_t m, int32_t *v,
                  int32_t *trace, long max_d)
{
    long off = max_d + 1;
    uint64_t work = 0;
    v[off + 1] = 0;
    for (long d = 0; d <= max_d; d++) {
        for (long k = -d; k <= d; k += 2) {
            long x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1]
                                                                              : v[off + k - 1] + 1;
            long y = x - k;
            while ((size_t)x < n && y >= 0 && (size_t)y < m && ia[x] == ib[y]) {
                x++;
                y++;
                work++;
            }
            v[off + k] = (int32_t)x;
            if ((size_t)x >= n && y >= 0 && (size_t)y >= m) {
                memcpy(trace + d * d, v + off - d, (size_t)(2 * d + 1) * sizeof *v);
                return d;
            }
        }
        memcpy(trace + d * d, v + off - d, (size_t)(2 * d + 1) * sizeof *v);
        work += (uint64_t)d + 1;
        if (work > LINEDIFF_BUDGET)
            return -1;
    }
    return -1;
}

/* Walk back from (n, m) through the kept steps, writing the edits in
 * reverse into rev (n + m entries at most): slot value >= 0 is a removed
 * line of a, < 0 is -(j + 1) for an added line j of b. */
static size_t walk_back(const int32_t *trace, long edits, size_t n, size_t m, long *rev)
{
    long x = (long)n, y = (long)m;
    size_t k_out = 0;
    for (long d = edits; d > 0; d--) {
        const int32_t *prev = trace + (d - 1) * (d - 1); /* V[-(d-1)..d-1] */
        long k = x - y, pk;
        long lo = -(d - 1);
        if (k == -d || (k != d && prev[k - 1 - lo] < prev[k + 1 - lo]))
            pk = k + 1;
        else
            pk = k - 1;
        long px = prev[pk - lo], py = px - pk;
        if (pk == k + 1)
            rev[k_out++] = -(py + 1); /* b[py] added */
        else
            rev[k_out++] = px; /* a[px] removed */
        x = px;
        y = py;
    }
    return k_out;
}

bool line_diff_run(const uint8_t *a, size_t na, const uint8_t *b, size_t nb, line_diff *out)
{
    memset(out, 0, sizeof *out);
    line *la = NULL, *lb = NULL;
    size_t n = 0, m = 0, cap = 0;
    bool too_many = false, ok = false;
    int32_t *ids = NULL, *v = NULL, *trace = NULL;
    long *rev = NULL;
    if (!split_lines(a, na, &la, &n, &too_many) || !split_lines(b, nb, &lb, &m, &too_many))
        goto done;
    if (too_many) {
        out->truncated = true;
        ok = true;
        goto done;
    }
    ids = malloc((n + m ? n + m : 1) * sizeof *ids);
    if (!ids || !number_lines(la, n, lb, m, ids))
        goto done;
    const int32_t *ia = ids, *ib = ids + n;
    size_t pre = 0;
    while (pre < n && pre < m && ia[pre] == ib[pre])
        pre++;
    size_t suf = 0;
    while (suf < n - pre && suf < m - pre && ia[n - 1 - suf] == ib[m - 1 - suf])
        suf++;
    size_t mn = n - pre - suf, mm = m - pre - suf;
    if (!mn && !mm) {
        ok = true;
        goto done;
    }
    long max_d = (long)(mn + mm < LINEDIFF_MAX_D ? mn + mm : LINEDIFF_MAX_D);
    v = malloc((size_t)(2 * max_d + 3) * sizeof *v);
    trace = malloc((size_t)(max_d + 1) * (size_t)(max_d + 1) * sizeof *trace);
    if (!v || !trace)
        goto done;
    long edits = myers(ia + pre, mn, ib + pre, mm, v, trace, max_d);
    if (edits < 0) {
        out->truncated = true;
        ok = whole(out, &cap, la + pre, mn, lb + pre, mm, pre);
        goto done;
    }
    rev = malloc((size_t)(edits ? edits : 1) * sizeof *rev);
    if (!rev)
        goto done;
    size_t k = walk_back(trace, edits, mn, mm, rev);
    ok = true;
    while (ok && k-- > 0) {
        if (rev[k] >= 0)
            ok = push(out, &cap, '-', pre + (size_t)rev[k] + 1, &la[pre + (size_t)rev[k]]);
        else
            ok = push(out, &cap, '+', pre + (size_t)(-rev[k] - 1) + 1,
                      &lb[pre + (size_t)(-rev[k] - 1)]);
    }
done:
    free(rev);
    free(trace);
    free(v);
    free(ids);
    free(la);
    free(lb);
    if (!ok)
        line_diff_free(out);
    return ok;
}

void line_diff_free(line_diff *d)
{
    free(d->ops);
    memset(d, 0, sizeof *d);
}
