/* fingerprint.c - the stable identity of a finding across runs (SARIF
 * partialFingerprints, JSON "fingerprint", baselines) and the lexical path
 * normal form it is computed on (also what config ignores are matched
 * against).
 *
 * A fingerprint hashes the rule id, the normalised path of the file, the
 * logical path of the finding and its subject: the KV (by key), the tensor
 * info (by name) or the region of the file (header, data section, end) that
 * holds the finding's offset, with the offset taken relative to the start of
 * that subject. So a string that grows earlier in the file moves every
 * later offset but changes no other finding's fingerprint, and a template
 * finding keeps its position inside its template. Findings that agree on
 * all of that (a rule reporting several problems at one field) are told
 * apart by their order among themselves. Uses the public API only. */
#include "gguflint.h"
#include "common/alloc.h"

#include "common/order.h"
#include <stdlib.h>
#include <string.h>

/* ---- paths ---- */

/* Append s[0..n) to the component list in w (separated by '/'), folding
 * "." and "..". `abs`: the path is absolute (".." at the root is dropped). */
static void push_part(char *w, size_t *len, bool abs, const char *s, size_t n)
{
    if (n == 0 || (n == 1 && s[0] == '.'))
        return;
    if (n == 2 && s[0] == '.' && s[1] == '.') {
        /* the last component, unless there is none or it is ".." itself */
        size_t start = *len;
        while (start > 0 && w[start - 1] != '/')
            start--;
        bool have = *len > (abs ? 1u : 0u);
        bool dotdot = *len - start == 2 && w[start] == '.' && w[start + 1] == '.';
        if (have && !dotdot) {
            *len = start > (abs ? 1u : 0u) ? start - 1 : start;
            return;
        }
        if (abs)
            return;
    }
    if (*len > (abs ? 1u : 0u))
        w[(*len)++] = '/';
    memcpy(w + *len, s, n);
    *len += n;
}

/* The lexical normal form of p into w (at least strlen(p) + 2 bytes). */
static size_t normalize_into(const char *p, char *w)
{
    size_t len = 0;
    bool abs = p[0] == '/';
    if (abs)
        w[len++] = '/';
    for (const char *s = p; *s;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        push_part(w, &len, abs, s, n);
        s += n + (e != NULL);
    }
    if (len == 0)
        w[len++] = '.';
    w[len] = '\0';
    return len;
}

size_t gguflint_path_normalize(const char *path, const char *base, char *buf, size_t cap)
{
    if (!path)
        path = "";
    size_t n = strlen(path);
    char *w = gl_malloc(n + 2);
    char *b = base && base[0] == '/' ? gl_malloc(strlen(base) + 2) : NULL;
    const char *res = path;
    size_t len = n;
    if (w && gguflint_url_kind(path) == 0) {
        len = normalize_into(path, w);
        res = w;
        if (b && w[0] == '/') {
            size_t bl = normalize_into(base, b);
            if (bl == 1) /* base "/" */
                bl = 0;
            if (strncmp(w, b, bl) == 0 && w[bl] == '/') {
                res = w + bl + 1;
                len -= bl + 1;
            } else if (strncmp(w, b, bl) == 0 && w[bl] == '\0') {
                res = ".";
                len = 1;
            }
        }
    }
    if (cap) {
        size_t k = len < cap ? len : cap - 1;
        memmove(buf, res, k);
        buf[k] = '\0';
    }
    gl_free(w);
    gl_free(b);
    return len;
}

/* ---- fingerprints ---- */

#define FNV_PRIME 1099511628211ull

static uint64_t fnv_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= FNV_PRIME;
    }
    h ^= 0xFF; /* a separator no UTF-8 text contains */
    return h * FNV_PRIME;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
    return fnv_bytes(h, s, strlen(s));
}

static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return fnv_bytes(h, b, sizeof b);
}

/* The last index in [0, n) whose start (at(i)) is <= off, or n when none. */
static size_t last_at_or_before(const gguflint_ctx *ctx, size_t n, uint64_t off,
                                uint64_t (*at)(const gguflint_ctx *, size_t))
{
    size_t lo = 0, hi = n; /* the answer is lo - 1 once lo == hi */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (at(ctx, mid) <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : n;
}

static uint64_t kv_at(const gguflint_ctx *ctx, size_t i)
{
    return gguflint_kv_get(ctx, i)->offset;
}

static uint64_t tensor_at(const gguflint_ctx *ctx, size_t i)
{
    return gguflint_tensor_get(ctx, i)->info_offset;
}

/* Hash the subject holding `off` and the offset relative to it. KVs and
 * tensor infos are in file order, so each lookup is a binary search. */
static uint64_t subject_hash(const gguflint_ctx *ctx, uint64_t h, uint64_t off)
{
    const gguflint_header *hd = gguflint_get_header(ctx);
    size_t nk = gguflint_kv_count(ctx), nt = gguflint_tensor_count(ctx);
    if (hd->metadata_complete && off >= hd->metadata_end) {
        if (off >= hd->data_start) /* data: relative to the data section */
            return fnv_u64(fnv_bytes(h, "d", 1), off - hd->data_start);
        return fnv_u64(fnv_bytes(h, "p", 1), off - hd->metadata_end); /* its padding */
    }
    if (nt && off >= tensor_at(ctx, 0)) {
        const gguflint_tensor *ti =
            gguflint_tensor_get(ctx, last_at_or_before(ctx, nt, off, tensor_at));
        h = fnv_bytes(h, "t", 1);
        h = fnv_bytes(h, ti->name.ptr, (size_t)ti->name.len);
        return fnv_u64(h, off - ti->info_offset);
    }
    if (nk && off >= kv_at(ctx, 0)) {
        const gguflint_kv *kv = gguflint_kv_get(ctx, last_at_or_before(ctx, nk, off, kv_at));
        h = fnv_bytes(h, "k", 1);
        h = fnv_bytes(h, kv->key.ptr, (size_t)kv->key.len);
        return fnv_u64(h, off - kv->offset);
    }
    return fnv_u64(fnv_bytes(h, "h", 1), off); /* the fixed header (or an input cut in it) */
}

typedef struct fp_pair {
    uint64_t h;
    size_t i;
} fp_pair;

static int pair_cmp(const void *a, const void *b)
{
    const fp_pair *x = a, *y = b;
    return 2 * ORDER(x->h, y->h) + ORDER(x->i, y->i);
}

int gguflint_finding_fingerprints(const gguflint_ctx *ctx, const char *path, uint64_t *out,
                                  size_t n)
{
    if (!ctx || !out || n != gguflint_finding_count(ctx))
        return GGUFLINT_E_ARG;
    if (n == 0)
        return GGUFLINT_OK;
    size_t plen = gguflint_path_normalize(path, NULL, NULL, 0);
    char *norm = gl_malloc(plen + 1);
    fp_pair *pairs = gl_malloc(n * sizeof *pairs);
    if (!norm || !pairs) {
        gl_free(norm);
        gl_free(pairs);
        return GGUFLINT_E_NOMEM;
    }
    gguflint_path_normalize(path, NULL, norm, plen + 1);
    uint64_t h0 = fnv_str(1469598103934665603ull, norm);
    for (size_t i = 0; i < n; i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        uint64_t h = fnv_str(h0, gguflint_rule((size_t)f->rule)->id);
        h = fnv_str(h, f->path);
        pairs[i] = (fp_pair){subject_hash(ctx, h, f->offset), i};
    }
    /* equal hashes: the k-th of them (in finding order) gets ordinal k */
    qsort(pairs, n, sizeof *pairs, pair_cmp);
    uint64_t ord = 0;
    for (size_t j = 0; j < n; j++) {
        ord = j && pairs[j].h == pairs[j - 1].h ? ord + 1 : 0;
        out[pairs[j].i] = fnv_u64(pairs[j].h, ord);
    }
    gl_free(norm);
    gl_free(pairs);
    return GGUFLINT_OK;
}
