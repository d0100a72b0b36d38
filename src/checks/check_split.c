/* check_split.c - split models: the split.* keys of one shard (check_split,
 * run with the other checks) and the validation of a set of shards
 * (gguflint_check_set, called by the application after running every shard).
 *
 * A shard is a file with split.no (u16, 0-based), split.count (u16) and
 * split.tensors.count (i32, the total over the set), named
 * <prefix>-NNNNN-of-MMMMM.gguf with NNNNN = split.no + 1 (llama_split_path,
 * gguf-py SHARD_NAME_FORMAT). gguf-split and gguf-py write the model's
 * metadata into the first shard only. Set findings go to the shard holding the
 * field: a missing shard to the first shard's split.count, a duplicated tensor
 * to the later shard's tensor info. */
#include "checks/checks.h"
#include "common/alloc.h"
#include "common/order.h"

#include "model/model.h"

#include <stdlib.h>
#include <string.h>

#define SUFFIX_LEN 20 /* "-NNNNN-of-MMMMM.gguf" */

/* Parse the file name: true when its base name ends in -NNNNN-of-MMMMM.gguf
 * (exactly five digits each). *prefix_len is the length of the whole name
 * before the suffix (directory included), *no and *count the two numbers. */
static bool shard_name(const char *name, size_t *prefix_len, long *no, long *count)
{
    if (!name)
        return false;
    size_t n = strlen(name);
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if ((size_t)(name + n - base) < SUFFIX_LEN)
        return false;
    const char *s = name + n - SUFFIX_LEN;
    if (s[0] != '-' || memcmp(s + 6, "-of-", 4) != 0 || memcmp(s + 15, ".gguf", 5) != 0)
        return false;
    long a = 0, b = 0;
    for (int i = 0; i < 5; i++) {
        char x = s[1 + i], y = s[10 + i];
        if (x < '0' || x > '9' || y < '0' || y > '9')
            return false;
        a = a * 10 + (x - '0');
        b = b * 10 + (y - '0');
    }
    *prefix_len = n - SUFFIX_LEN;
    *no = a;
    *count = b;
    return true;
}

/* The three keys of a shard and their integer values (any integer type). */
typedef struct split_keys {
    const gguflint_kv *no, *count, *tensors;
    bool no_ok, count_ok, tensors_ok;
    int64_t no_v, count_v, tensors_v;
} split_keys;

static void read_keys(const gguflint_ctx *ctx, split_keys *k)
{
    memset(k, 0, sizeof *k);
    k->no = kv_by_key(ctx, "split.no");
    k->count = kv_by_key(ctx, "split.count");
    k->tensors = kv_by_key(ctx, "split.tensors.count");
    k->no_ok = k->no && kv_int(k->no, &k->no_v);
    k->count_ok = k->count && kv_int(k->count, &k->count_v);
    k->tensors_ok = k->tensors && kv_int(k->tensors, &k->tensors_v);
}

/* Tensors this shard holds: the declared count once the metadata is complete. */
static uint64_t shard_tensors(const gguflint_ctx *ctx)
{
    return ctx->hdr.metadata_complete ? ctx->hdr.tensor_count : ctx->n_tensors;
}

static uint64_t value_len(const gguflint_kv *kv)
{
    return kv->value_size;
}

static void check_key_type(gguflint_ctx *ctx, const gguflint_kv *kv, uint32_t want, const char *why)
{
    if (!kv || kv->type == want)
        return;
    char path[192];
    kv_path(path, sizeof path, kv);
    const char *got = vt_name(kv->type), *exp = vt_name(want);
    emit(ctx, R_SPLIT_KEY_TYPE, kv->value_offset - 4, 4, path,
         "%.*s is of type %s, readers require %s (%s)", (int)kv->key.len, (const char *)kv->key.ptr,
         got ? got : "?", exp ? exp : "?", why);
}

static void check_name(gguflint_ctx *ctx, const split_keys *k, bool any)
{
    size_t plen;
    long n, m;
    char shown[160];
    char path[192];
    if (!ctx->name)
        return;
    bool named = shard_name(ctx->name, &plen, &n, &m);
    esc_fixed(shown, sizeof shown, (const uint8_t *)ctx->name, strlen(ctx->name), 100);
    if (!any) {
        if (named && m > 1)
            emit(ctx, R_SPLIT_NAME_MISMATCH, 0, 0, "name",
                 "the file name '%s' says shard %ld of %ld but the file has no split.* keys", shown,
                 n, m);
        return;
    }
    if (!named) {
        if (k->count_ok && k->count_v > 1) {
            kv_path(path, sizeof path, k->count);
            emit(ctx, R_SPLIT_NAME_MISMATCH, k->count->value_offset, value_len(k->count), path,
                 "shard of a %lld-file set, but the name '%s' does not end in "
                 "-NNNNN-of-MMMMM.gguf: llama.cpp cannot derive the other shards' names",
                 (long long)k->count_v, shown);
        }
        return;
    }
    if (k->no_ok && k->no_v != n - 1) {
        kv_path(path, sizeof path, k->no);
        emit(ctx, R_SPLIT_NAME_MISMATCH, k->no->value_offset, value_len(k->no), path,
             "split.no %lld is shard %lld, but the file name '%s' says shard %ld",
             (long long)k->no_v, (long long)k->no_v + 1, shown, n);
    }
    if (k->count_ok && k->count_v != m) {
        kv_path(path, sizeof path, k->count);
        emit(ctx, R_SPLIT_NAME_MISMATCH, k->count->value_offset, value_len(k->count), path,
             "split.count is %lld, but the file name '%s' says %ld shards", (long long)k->count_v,
             shown, m);
    }
}

void check_split(gguflint_ctx *ctx)
{
    split_keys k;
    read_keys(ctx, &k);
    bool any = k.no || k.count || k.tensors;
    check_name(ctx, &k, any);
    if (!any)
        return;
    check_key_type(ctx, k.no, VT_UINT16,
                   "llama.cpp reads it with the unchecked u16 getter and aborts on another type");
    check_key_type(ctx, k.count, VT_UINT16, "llama.cpp's typed getter throws on another type");
    check_key_type(ctx, k.tensors, VT_INT32, "llama.cpp's typed getter throws on another type");

    const gguflint_kv *present = k.no ? k.no : k.count ? k.count : k.tensors;
    const char *missing[3];
    size_t n_missing = 0;
    if (!k.no)
        missing[n_missing++] = "split.no";
    if (!k.count)
        missing[n_missing++] = "split.count";
    if (!k.tensors)
        missing[n_missing++] = "split.tensors.count";
    char path[192];
    kv_path(path, sizeof path, present);
    for (size_t i = 0; i < n_missing; i++)
        emit(ctx, R_SPLIT_KEY_MISSING, present->offset,
             wire_string_size(model_width(ctx), present->key.len), path,
             "the file has split.* keys but no %s (gguf-split writes all three into every "
             "shard)",
             missing[i]);

    if (k.count_ok && k.count_v < 1) {
        kv_path(path, sizeof path, k.count);
        emit(ctx, R_SPLIT_COUNT_ZERO, k.count->value_offset, value_len(k.count), path,
             "split.count is %lld; a split set has at least 1 file", (long long)k.count_v);
    }
    if (k.no_ok && (k.no_v < 0 || (k.count_ok && k.count_v >= 1 && k.no_v >= k.count_v))) {
        kv_path(path, sizeof path, k.no);
        if (k.no_v < 0)
            emit(ctx, R_SPLIT_NO_RANGE, k.no->value_offset, value_len(k.no), path,
                 "split.no is %lld; shard numbers are 0-based and not negative", (long long)k.no_v);
        else
            emit(ctx, R_SPLIT_NO_RANGE, k.no->value_offset, value_len(k.no), path,
                 "split.no is %lld but split.count is %lld (split.no is 0-based and must be "
                 "below it)",
                 (long long)k.no_v, (long long)k.count_v);
    }
    if (k.tensors_ok) {
        uint64_t here = shard_tensors(ctx);
        if (k.tensors_v < 0 || (uint64_t)k.tensors_v < here) {
            kv_path(path, sizeof path, k.tensors);
            emit(ctx, R_SPLIT_TENSORS_COUNT, k.tensors->value_offset, value_len(k.tensors), path,
                 "split.tensors.count is %lld but this shard alone holds %llu tensors "
                 "(llama.cpp: \"corrupted model\")",
                 (long long)k.tensors_v, (unsigned long long)here);
        }
    }
}

/* ================================================================ sets */

typedef struct member {
    gguflint_ctx *ctx;
    size_t input;       /* position in ctxs[] (ties, "later") */
    const char *prefix; /* ctx->name, compared over prefix_len; NULL: no shard name */
    size_t prefix_len;
    split_keys k;
    long no, count;     /* 0-based shard number and set size (keys, else the name) */
    bool kept;          /* a member of its set (not extra, not a duplicate) */
    size_t recs_before; /* findings held before the set check */
} member;

static int member_cmp(const void *a, const void *b)
{
    const member *x = a, *y = b;
    if (!x->prefix != !y->prefix)
        return x->prefix ? 1 : -1;
    int c = 0;
    if (x->prefix) {
        size_t n = x->prefix_len < y->prefix_len ? x->prefix_len : y->prefix_len;
        c = memcmp(x->prefix, y->prefix, n);
        if (c)
            return c;
        c = ORDER(x->prefix_len, y->prefix_len);
    }
    return 4 * c + 2 * ORDER(x->no, y->no) + ORDER(x->input, y->input);
}

static bool same_set(const member *a, const member *b)
{
    if (!a->prefix || !b->prefix)
        return !a->prefix && !b->prefix;
    return a->prefix_len == b->prefix_len && memcmp(a->prefix, b->prefix, a->prefix_len) == 0;
}

/* A ctx that already carries set findings was checked by an earlier call:
 * nothing is added to it again, so gguflint_check_set is idempotent. */
static bool already_checked(const gguflint_ctx *ctx)
{
    for (int r = R_SPLIT_SHARD_MISSING; r <= R_SPLIT_METADATA_NOT_FIRST; r++)
        if (ctx->per_rule[r])
            return true;
    return false;
}

/* Offset, length and path of a split key's value, or of the file start when
 * the number came from the file name. */
static uint64_t key_at(const gguflint_kv *kv, uint64_t *len, char *path, size_t cap,
                       const char *fallback)
{
    if (kv) {
        kv_path(path, cap, kv);
        *len = kv->value_size;
        return kv->value_offset;
    }
    snprintf(path, cap, "%s", fallback);
    *len = 0;
    return 0;
}

/* Mark the kept members; report extra and duplicated shards on themselves and
 * missing ones on the first shard present. Returns that shard (or NULL). */
static member *set_membership(member *g, size_t n, long m)
{
    char path[192];
    uint64_t len, at;
    member *anchor = NULL; /* shard 1, else the lowest shard present */
    long last = -1;
    for (size_t i = 0; i < n; i++) {
        member *x = &g[i];
        if (x->no < 0 || x->no >= m) {
            at = key_at(x->k.no, &len, path, sizeof path, "name");
            if (x->no < 0)
                emit(x->ctx, R_SPLIT_SHARD_EXTRA, at, len, path,
                     "split.no is negative: the file is no shard of the set's %ld", m);
            else
                emit(x->ctx, R_SPLIT_SHARD_EXTRA, at, len, path,
                     "shard %ld is past the set's %ld shards", x->no + 1, m);
            continue;
        }
        if (x->no == last) {
            at = key_at(x->k.no, &len, path, sizeof path, "name");
            emit(x->ctx, R_SPLIT_SHARD_DUPLICATE, at, len, path,
                 "shard %ld of %ld is given twice (another file has split.no %ld)", x->no + 1, m,
                 x->no);
            continue;
        }
        x->kept = true;
        last = x->no;
        if (!anchor)
            anchor = x;
    }
    if (!anchor)
        return NULL;
    /* missing shards: the gaps between kept numbers */
    at = key_at(anchor->k.count, &len, path, sizeof path, "name");
    long next = 0;
    for (size_t i = 0; i <= n && anchor->ctx->status == GGUFLINT_OK; i++) {
        long upto = m;
        if (i < n) {
            if (!g[i].kept)
                continue;
            upto = g[i].no;
        }
        for (; next < upto; next++)
            emit(anchor->ctx, R_SPLIT_SHARD_MISSING, at, len, path,
                 "shard %ld of %ld (split.no %ld) is missing from the set", next + 1, m, next);
        next = upto + 1;
    }
    return anchor;
}

static void set_consistency(member *g, size_t n, const member *first, long m)
{
    char path[192];
    uint64_t len, at;
    for (size_t i = 0; i < n; i++) {
        member *x = &g[i];
        if (!x->kept || x == first)
            continue;
        if (x->count != m) {
            at = key_at(x->k.count, &len, path, sizeof path, "name");
            emit(x->ctx, R_SPLIT_SET_MISMATCH, at, len, path,
                 "split.count is %ld but shard %ld says the set has %ld shards", x->count,
                 first->no + 1, m);
        }
        if (first->k.tensors_ok && x->k.tensors_ok && x->k.tensors_v != first->k.tensors_v) {
            at = key_at(x->k.tensors, &len, path, sizeof path, "name");
            emit(x->ctx, R_SPLIT_SET_MISMATCH, at, len, path,
                 "split.tensors.count is %lld but shard %ld says %lld", (long long)x->k.tensors_v,
                 first->no + 1, (long long)first->k.tensors_v);
        }
    }
}

/* Every tensor of the kept shards, flattened: (member, tensor) pairs, the
 * entries of a keyed name set. */
typedef struct tref {
    uint32_t member, tensor;
} tref;

typedef struct tnames {
    const member *g;
    const tref *refs;
} tnames;

static gguflint_view tref_name(const void *owner, size_t i)
{
    const tnames *tn = owner;
    const tref *r = &tn->refs[i];
    return tn->g[r->member].ctx->tensors[r->tensor].name;
}

/* A tensor name in two kept shards: reported on the later shard. */
static int set_tensors(member *g, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        if (g[i].kept)
            total += g[i].ctx->n_tensors;
    if (total < 2 || total > UINT32_MAX / 4)
        return GGUFLINT_OK;
    tref *refs = gl_malloc(total * sizeof *refs);
    tnames tn = {g, refs};
    viewset names = {0};
    if (!refs || !viewset_reserve(&names, total, tref_name, &tn)) {
        gl_free(refs);
        viewset_free(&names);
        return GGUFLINT_E_NOMEM;
    }
    uint32_t k = 0;
    int st = GGUFLINT_OK;
    for (size_t i = 0; i < n && st == GGUFLINT_OK; i++) {
        if (!g[i].kept)
            continue;
        gguflint_ctx *ctx = g[i].ctx;
        for (size_t t = 0; t < ctx->n_tensors && ctx->status == GGUFLINT_OK; t++) {
            gguflint_view v = ctx->tensors[t].name;
            refs[k] = (tref){(uint32_t)i, (uint32_t)t};
            long prev = viewset_insert(&names, tref_name, &tn, v, k);
            if (prev == -2) {
                st = GGUFLINT_E_NOMEM;
                break;
            }
            k++;
            if (prev == -1 || refs[prev].member == i)
                continue; /* new, or within one file: GG205 */
            const tref *hit = &refs[prev];
            char path[48], shown[160];
            snprintf(path, sizeof path, "tensor[%zu]", t);
            esc_fixed(shown, sizeof shown, v.ptr, v.len, 100);
            const member *o = &g[hit->member];
            emit(ctx, R_SPLIT_TENSOR_DUPLICATE, ctx->tensors[t].info_offset,
                 wire_string_size(model_width(ctx), v.len), path,
                 "tensor '%s' is also tensor[%lu] of shard %ld (llama.cpp: \"tensor is "
                 "duplicated\")",
                 shown, (unsigned long)hit->tensor, o->no + 1);
        }
    }
    g[0].ctx->probes += names.probes;
    viewset_free(&names);
    gl_free(refs);
    return st;
}

static void set_total(member *g, size_t n, const member *first, long m)
{
    if (!first->k.tensors_ok || first->no != 0)
        return;
    uint64_t sum = 0;
    long kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (!g[i].kept)
            continue;
        if (!g[i].ctx->hdr.metadata_complete)
            return;
        sum += g[i].ctx->hdr.tensor_count;
        kept++;
    }
    if (kept != m || (first->k.tensors_v >= 0 && sum == (uint64_t)first->k.tensors_v))
        return;
    char path[192];
    kv_path(path, sizeof path, first->k.tensors);
    emit(first->ctx, R_SPLIT_TENSOR_TOTAL, first->k.tensors->value_offset,
         first->k.tensors->value_size, path,
         "split.tensors.count is %lld but the %ld shards hold %llu tensors (llama.cpp: "
         "\"corrupted model\")",
         (long long)first->k.tensors_v, m, (unsigned long long)sum);
}

static bool set_metadata_key(gguflint_view k)
{
    return view_starts(k, "split.") || view_eq(k, "general.alignment");
}

static void set_metadata(member *g, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!g[i].kept || g[i].no == 0)
            continue;
        gguflint_ctx *ctx = g[i].ctx;
        for (size_t j = 0; j < ctx->n_kvs && ctx->status == GGUFLINT_OK; j++) {
            const gguflint_kv *kv = &ctx->kvs[j];
            if (set_metadata_key(kv->key))
                continue;
            char path[192];
            kv_path(path, sizeof path, kv);
            emit(ctx, R_SPLIT_METADATA_NOT_FIRST, kv->offset,
                 wire_string_size(model_width(ctx), kv->key.len), path,
                 "model metadata in shard %ld: llama.cpp and gguf-split read metadata from the "
                 "first shard only, so this key is ignored",
                 g[i].no + 1);
        }
    }
}

/* Validate one set (members with the same name prefix, sorted by number).
 * The set's size is the split.count of its lowest-numbered shard. */
static int check_group(member *g, size_t n)
{
    long m = 0;
    for (size_t i = 0; i < n; i++) {
        if (g[i].no >= 0) {
            m = g[i].count;
            break;
        }
    }
    if (m < 1 || m > 65535)
        return GGUFLINT_OK; /* per-shard rules report the count */
    for (size_t i = 0; i < n; i++)
        if (already_checked(g[i].ctx))
            return GGUFLINT_OK;
    const member *first = set_membership(g, n, m);
    if (!first)
        return GGUFLINT_OK;
    set_consistency(g, n, first, m);
    int st = set_tensors(g, n);
    if (st != GGUFLINT_OK)
        return st;
    set_total(g, n, first, m);
    set_metadata(g, n);
    return GGUFLINT_OK;
}

/* Fill a member from a run ctx; false when the ctx is not a shard. */
static bool make_member(gguflint_ctx *ctx, size_t input, member *x)
{
    memset(x, 0, sizeof *x);
    x->ctx = ctx;
    x->input = input;
    x->recs_before = ctx->n_recs;
    read_keys(ctx, &x->k);
    size_t plen;
    long nn, mm;
    bool named = shard_name(ctx->name, &plen, &nn, &mm);
    if (named) {
        x->prefix = ctx->name;
        x->prefix_len = plen;
    }
    if (x->k.no_ok)
        x->no = x->k.no_v < 0 ? -1 : x->k.no_v > 65535 ? 65536 : (long)x->k.no_v;
    else if (named && !x->k.no) {
        x->no = nn - 1;
    } else
        return false;
    if (x->k.count_ok)
        x->count = x->k.count_v < 0 ? -1 : x->k.count_v > 65535 ? 65536 : (long)x->k.count_v;
    else if (named && !x->k.count) {
        x->count = mm;
    } else
        return false;
    if (!x->k.no && !x->k.count && !x->k.tensors && mm <= 1)
        return false; /* a plain -00001-of-00001 file */
    return true;
}

int gguflint_check_set(gguflint_ctx *const *ctxs, size_t n)
{
    int ready = checks_set_ready(ctxs, n);
    if (ready != GGUFLINT_OK)
        return ready;
    if (n == 0)
        return GGUFLINT_OK;
    if (n > SIZE_MAX / sizeof(member))
        return GGUFLINT_E_NOMEM;
    member *ms = gl_malloc(n * sizeof *ms);
    if (!ms)
        return GGUFLINT_E_NOMEM;
    size_t nm = 0;
    for (size_t i = 0; i < n; i++) {
        gguflint_ctx *c = ctxs[i];
        /* unreadable or failed shards count as absent */
        if (!c || c->status != GGUFLINT_OK || !c->hdr.is_gguf)
            continue;
        if (make_member(c, i, &ms[nm]))
            nm++;
    }
    qsort(ms, nm, sizeof *ms, member_cmp);
    int st = GGUFLINT_OK;
    for (size_t i = 0; i < nm && st == GGUFLINT_OK;) {
        size_t j = i + 1;
        while (j < nm && same_set(&ms[i], &ms[j]))
            j++;
        st = check_group(ms + i, j - i);
        i = j;
    }
    /* republish the findings of every ctx that gained some (only those: a
     * republished ctx's earlier gguflint_finding_get pointers are stale) */
    for (size_t i = 0; i < nm; i++) {
        gguflint_ctx *c = ms[i].ctx;
        int s = c->status;
        if (s == GGUFLINT_OK && c->n_recs != ms[i].recs_before)
            s = findings_finalize(c);
        if (s != GGUFLINT_OK && st == GGUFLINT_OK)
            st = s; /* out of memory while reporting: the ctx keeps the status */
    }
    gl_free(ms);
    return st;
}
