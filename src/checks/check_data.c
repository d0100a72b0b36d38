/* check_data.c - the --deep scan of the tensor data: NaN and Inf in F32, F16,
 * BF16 and F64 tensors; NaN and Inf block scales of the quantized types (the
 * fp16 d/dmin of Q4_0 ... Q8_1, the K-quants, the IQ and TQ types, the f32 d
 * of Q8_K, the E8M0 scale of MXFP4); tensors that are entirely zero.
 *
 * Each tensor's bytes stream through one reused buffer per thread (pread from
 * the file, ranges of a reader input such as a remote file, or straight from
 * memory: source_read); tensors are split over
 * options.deep_jobs threads, each writing only its own tensors' result slots,
 * and the findings are emitted afterwards in tensor order, so the output is
 * the same whatever the thread count. One finding per tensor and problem,
 * with a count, never one per element. Each byte is read once however many
 * tensor infos point at it (plan_scan): aliases share one result. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"

#include "checks/checks.h"
#include "common/fpscan.h"
#include "input/source.h"
#include "format/types.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum scan_kind { SCAN_NONE, SCAN_F32, SCAN_F16, SCAN_BF16, SCAN_F64, SCAN_BLOCKS };

/* Where the scales of one block are: up to two fp16 fields, or one f32, or
 * one E8M0 byte. Offsets within the block. */
typedef struct scale_layout {
    uint8_t kind; /* 0 none, 1 fp16 fields, 2 f32, 3 e8m0 */
    uint8_t n;    /* fp16 fields */
    uint16_t off[2];
} scale_layout;

/* One home for the block layouts (ggml-common.h block structs). Types whose
 * scale encoding is not modelled (IQ1_M packs it in its scales; NVFP4, Q1_0,
 * Q2_0 are too new to be verified here) are only checked for all-zero data. */
static scale_layout layout_of(uint32_t type)
{
    switch (type) {
    case 2:
    case 6:
    case 8:
    case 16:
    case 17:
    case 18:
    case 19:
    case 20:
    case 21:
    case 22:
    case 23: return (scale_layout){1, 1, {0, 0}}; /* d first */
    case 3:
    case 7:
    case 9:
    case 12:
    case 13: return (scale_layout){1, 2, {0, 2}};   /* d, m (or dmin, s) first */
    case 10: return (scale_layout){1, 2, {80, 82}}; /* q2_K: d, dmin last */
    case 11: return (scale_layout){1, 1, {108, 0}}; /* q3_K */
    case 14: return (scale_layout){1, 1, {208, 0}}; /* q6_K */
    case 15: return (scale_layout){2, 1, {0, 0}};   /* q8_K: f32 d */
    case 34: return (scale_layout){1, 1, {52, 0}};  /* tq1_0 */
    case 35: return (scale_layout){1, 1, {64, 0}};  /* tq2_0 */
    case 39: return (scale_layout){3, 1, {0, 0}};   /* mxfp4: e8m0 */
    default: return (scale_layout){0, 0, {0, 0}};
    }
}

static enum scan_kind kind_of(uint32_t type)
{
    switch (type) {
    case 0: return SCAN_F32;
    case 1: return SCAN_F16;
    case 30: return SCAN_BF16;
    case 28: return SCAN_F64;
    default: return gt_info(type)->status == GT_VALID ? SCAN_BLOCKS : SCAN_NONE;
    }
}

typedef struct result {
    uint64_t nan, inf;  /* values (or block scales) */
    uint64_t first_bad; /* element or block index of the first */
    bool nonzero;       /* any non-zero byte */
    bool scanned, read_error;
    /* the plan (plan_scan): bytes [from, nbytes) of the tensor are scanned;
     * same_as (index + 1) names an identical alias whose result is copied */
    uint64_t from;
    size_t same_as;
    uint64_t read; /* bytes scanned */
} result;

typedef struct scan_state {
    gguflint_ctx *ctx;
    result *res;
    size_t next; /* next tensor to take (under mu) */
    pthread_mutex_t mu;
    size_t chunk;    /* bytes per read */
    int read_status; /* the first failed read's status and reason (under mu) */
    char read_err[256];
} scan_state;

/* The kernel's description of a type's block scales (common/fpscan.h). */
static fp_blocks blocks_of(scale_layout sl, uint32_t bsize)
{
    fp_blocks b = {FIELD_F16, sl.n, {sl.off[0], sl.off[1]}, bsize};
    if (sl.kind == 2)
        b.kind = FIELD_F32;
    else if (sl.kind == 3)
        b.kind = FIELD_E8M0;
    return b;
}

/* Add one piece's counts (indexes within the piece) to a tensor's result;
 * `base` is the piece's first element or block index. */
static void merge(result *r, const fp_count *c, uint64_t base)
{
    if (c->nan + c->inf == 0)
        return;
    if (r->nan + r->inf == 0)
        r->first_bad = base + c->first;
    r->nan += c->nan;
    r->inf += c->inf;
}

/* Scan n bytes of a tensor that start `done` bytes into its data. */
static void scan_piece(result *r, enum scan_kind k, scale_layout sl, uint32_t bsize,
                       const uint8_t *p, size_t n, uint64_t done, bool be)
{
    fp_count c;
    if (!r->nonzero)
        r->nonzero = fp_any_nonzero(p, n);
    if (k == SCAN_BLOCKS) {
        if (sl.kind == 0 || bsize == 0)
            return;
        fp_blocks b = blocks_of(sl, bsize);
        fp_scan_blocks(&b, p, n / bsize, be, &c);
        merge(r, &c, done / bsize);
        return;
    }
    fp_kind fk = k == SCAN_F16    ? FP_F16
                 : k == SCAN_BF16 ? FP_BF16
                 : k == SCAN_F32  ? FP_F32
                                  : FP_F64;
    fp_scan(fk, p, n, be, &c);
    merge(r, &c, done / fp_size(fk));
}

/* Scan one tensor through `buf` (st->chunk bytes, or NULL when the input is
 * all in memory), in pieces that are a multiple of the block size. */
static void scan_tensor(scan_state *st, size_t ti, result *r, uint8_t *buf)
{
    gguflint_ctx *ctx = st->ctx;
    const gguflint_tensor *t = &ctx->tensors[ti];
    const bool be = ctx->hdr.big_endian;
    enum scan_kind k = kind_of(t->type);
    const ggml_type_info *gi = gt_info(t->type);
    scale_layout sl = layout_of(t->type);
    uint64_t start = ctx->hdr.data_start + t->offset, done = r->from, left = t->nbytes - done;
    size_t step = st->chunk;
    if (k == SCAN_BLOCKS && gi->size)
        step -= step % gi->size;
    r->scanned = true;
    while (left > 0) {
        size_t n = left < step ? (size_t)left : step;
        int rs = GGUFLINT_OK;
        char err[160];
        const uint8_t *p = source_read_r(ctx, start + done, n, buf, &rs, err, sizeof err);
        if (!p) {
            r->read_error = true;
            pthread_mutex_lock(&st->mu);
            if (st->read_status == GGUFLINT_OK) {
                st->read_status = rs;
                snprintf(st->read_err, sizeof st->read_err, "reading tensor %zu's data: %s", ti,
                         err);
            }
            pthread_mutex_unlock(&st->mu);
            return;
        }
        scan_piece(r, k, sl, gi->size, p, n, done, be);
        done += n;
        left -= n;
        r->read += n;
    }
}

/* The tensor's data lies in the file and has a type the scan knows. */
static bool scannable(const gguflint_ctx *ctx, size_t i)
{
    const gguflint_tensor *t = &ctx->tensors[i];
    uint64_t end;
    return t->size_ok && kind_of(t->type) != SCAN_NONE &&
           !__builtin_add_overflow(ctx->hdr.data_start + t->offset, t->nbytes, &end) &&
           t->offset <= ctx->size && end <= ctx->size;
}

/* Bytes per element or block of a scannable tensor. */
static uint64_t unit_of(uint32_t type)
{
    enum scan_kind k = kind_of(type);
    return k == SCAN_BLOCKS ? gt_info(type)->size : k == SCAN_F64 ? 8 : k == SCAN_F32 ? 4 : 2;
}

typedef struct plan_key {
    uint64_t offset, nbytes;
    uint32_t type;
    size_t index;
} plan_key;

static int plan_cmp(const void *a, const void *b)
{
    const plan_key *x = a, *y = b;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    if (x->nbytes != y->nbytes)
        return x->nbytes < y->nbytes ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Read every byte of the data section at most once, whatever the tensor
 * infos claim: in offset order, a tensor identical to the one before it
 * (offset, size and type: an alias) copies that one's result; otherwise it
 * scans only the bytes no earlier tensor scanned (from a whole element or
 * block on). So N infos over one region cost one scan of it, not N.
 * Overlapping tensors are errors of their own (GG217). */
static bool plan_scan(gguflint_ctx *ctx, result *res)
{
    plan_key *order = malloc(ctx->n_tensors * sizeof *order);
    if (!order)
        return false;
    size_t n = 0;
    for (size_t i = 0; i < ctx->n_tensors; i++) {
        const gguflint_tensor *t = &ctx->tensors[i];
        if (scannable(ctx, i))
            order[n++] = (plan_key){t->offset, t->nbytes, t->type, i};
    }
    qsort(order, n, sizeof *order, plan_cmp);
    uint64_t covered = 0;
    size_t root = 0;
    for (size_t k = 0; k < n; k++) {
        const plan_key *t = &order[k];
        if (k > 0 && order[k - 1].offset == t->offset && order[k - 1].nbytes == t->nbytes &&
            order[k - 1].type == t->type) {
            res[t->index].same_as = root + 1;
            continue;
        }
        root = t->index;
        uint64_t end = t->offset + t->nbytes; /* no overflow: scannable */
        if (t->offset < covered) {
            uint64_t u = unit_of(t->type), from = covered - t->offset;
            from = end <= covered ? t->nbytes : from + (u - from % u) % u;
            res[t->index].from = from < t->nbytes ? from : t->nbytes;
        }
        if (end > covered)
            covered = end;
    }
    free(order);
    return true;
}

static void *scan_worker(void *arg)
{
    scan_state *st = arg;
    gguflint_ctx *ctx = st->ctx;
    bool in_memory = ctx->fd < 0 && ctx->avail == ctx->size;
    uint8_t *buf = in_memory ? NULL : malloc(st->chunk);
    if (!in_memory && !buf)
        return (void *)1;
    for (;;) {
        pthread_mutex_lock(&st->mu);
        size_t i = st->next++;
        bool failed = st->read_status != GGUFLINT_OK;
        pthread_mutex_unlock(&st->mu);
        if (i >= ctx->n_tensors || failed)
            break;
        if (scannable(ctx, i) && !st->res[i].same_as)
            scan_tensor(st, i, &st->res[i], buf);
    }
    free(buf);
    return NULL;
}

static void report(gguflint_ctx *ctx, size_t i, const result *r)
{
    const gguflint_tensor *t = &ctx->tensors[i];
    char path[64], name[160];
    snprintf(path, sizeof path, "tensor[%zu]", i);
    esc_fixed(name, sizeof name, t->name.ptr, t->name.len, 100);
    const char *tn = gt_info(t->type)->name;
    uint64_t at = ctx->hdr.data_start + t->offset;
    if (r->nan + r->inf) {
        bool blocks = kind_of(t->type) == SCAN_BLOCKS;
        emit(ctx, blocks ? R_BLOCK_SCALE_NAN_INF : R_DATA_NAN_INF, at, t->nbytes, path,
             "tensor '%s' (%s): %llu NaN and %llu Inf %s; the first at %s %llu", name, tn,
             (unsigned long long)r->nan, (unsigned long long)r->inf,
             blocks ? "block scales" : "values", blocks ? "block" : "element",
             (unsigned long long)r->first_bad);
    }
    /* a tensor that shares bytes with an earlier one scanned only its own
     * part: whether the whole is zero is not known */
    if (!r->nonzero && t->nbytes > 0 && r->from == 0)
        emit(ctx, R_TENSOR_ALL_ZERO, at, t->nbytes, path,
             "tensor '%s' (%s, %llu bytes) is entirely zero", name, tn,
             (unsigned long long)t->nbytes);
}

void check_data(gguflint_ctx *ctx)
{
    if (!ctx->opt.deep || ctx->opt.header_only || !ctx->hdr.metadata_complete ||
        ctx->n_tensors == 0 || ctx->hdr.data_start > ctx->size)
        return;
    result *res = calloc(ctx->n_tensors, sizeof *res);
    if (!res) {
        ctx->status = GGUFLINT_E_NOMEM;
        return;
    }
    if (!plan_scan(ctx, res)) {
        free(res);
        ctx->status = GGUFLINT_E_NOMEM;
        return;
    }
    scan_state st = {ctx,
                     res,
                     0,
                     PTHREAD_MUTEX_INITIALIZER,
                     ctx->reader.read_at ? DEEP_READER_CHUNK_BYTES : DEEP_CHUNK_BYTES,
                     GGUFLINT_OK,
                     ""};
    unsigned n = ctx->opt.deep_jobs ? ctx->opt.deep_jobs : 1;
    if (n > 64)
        n = 64;
    if ((size_t)n > ctx->n_tensors)
        n = (unsigned)ctx->n_tensors;
    pthread_t th[64];
    unsigned started = 0;
    for (unsigned i = 1; i < n; i++)
        if (pthread_create(&th[started], NULL, scan_worker, &st) == 0)
            started++;
    void *fail = scan_worker(&st);
    for (unsigned i = 0; i < started; i++) {
        void *r;
        pthread_join(th[i], &r);
        if (r)
            fail = r;
    }
    if (fail)
        ctx->status = GGUFLINT_E_NOMEM;
    /* A read that fails inside the file's size is an I/O problem (the file
     * changed while it was read), not a property of the file: a status. */
    for (size_t i = 0; i < ctx->n_tensors && ctx->status == GGUFLINT_OK; i++)
        if (res[i].read_error) {
            if (ctx->fd >= 0)
                snprintf(ctx->error_detail, sizeof ctx->error_detail,
                         "reading tensor %zu's data failed: the file changed while being read", i);
            else
                snprintf(ctx->error_detail, sizeof ctx->error_detail, "%s", st.read_err);
            ctx->status = st.read_status == GGUFLINT_E_NOMEM ? GGUFLINT_E_NOMEM : GGUFLINT_E_IO;
        }
    for (size_t i = 0; i < ctx->n_tensors; i++)
        ctx->data_read += res[i].read;
    for (size_t i = 0; i < ctx->n_tensors && ctx->status == GGUFLINT_OK; i++) {
        result r = res[i];
        if (r.same_as) { /* an alias: the result of the identical tensor */
            r = res[r.same_as - 1];
            r.from = 0;
        }
        if (r.scanned)
            report(ctx, i, &r);
    }
    free(res);
}
