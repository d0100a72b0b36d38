/* check_data.c - the --deep scan of the tensor data: NaN and Inf in F32, F16,
 * BF16 and F64 tensors; NaN and Inf block scales of the quantized types (the
 * fp16 d/dmin of Q4_0 ... Q8_1, the K-quants, the IQ and TQ types, the f32 d
 * of Q8_K, the E8M0 scale of MXFP4); tensors that are entirely zero.
 *
 * The data is cut into pieces of at most DEEP_PIECE_BYTES (whole elements or
 * blocks), which options.deep_jobs threads take in turn, so even one big
 * tensor keeps every thread busy. Each thread reads its piece through one
 * reused, page-aligned buffer: pread from the file (the kernel copies from
 * the page cache into a buffer that stays in cache for the scan, and the
 * file is not mapped page by page into the process), ranges of a reader
 * input such as a remote file, or straight from memory for a buffer input.
 * At one thread, when the caller guards SIGBUS (gguflint_options_set_deep_map,
 * the CLI), a mapped file's data is read in place instead, faulted in by the
 * scan and given back behind it (source_map_range): no copy at all.
 * Each piece has its own result slot; the slots are added up per tensor in
 * piece order afterwards, and the findings emitted in tensor order, so the
 * output is the same whatever the thread count. One finding per tensor and
 * problem, with a count, never one per element. Each byte is read once
 * however many tensor infos point at it (plan_scan): aliases share one
 * result. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"
#include "common/alloc.h"

#include "checks/checks.h"
#include "common/order.h"
#include "common/fpscan.h"
#include "input/source.h"
#include "format/types.h"

#include <fcntl.h>
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

/* By offset, size, type, index; a later key is compared only on a tie (the
 * plan sorts one key per tensor: a weighted sum of all four cost 4.6x). */
static int plan_cmp(const void *a, const void *b)
{
    const plan_key *x = a, *y = b;
    int c = ORDER(x->offset, y->offset);
    if (!c)
        c = ORDER(x->nbytes, y->nbytes);
    if (!c)
        c = ORDER(x->type, y->type);
    return c ? c : ORDER(x->index, y->index);
}

/* Read every byte of the data section at most once, whatever the tensor
 * infos claim: in offset order, a tensor identical to the one before it
 * (offset, size and type: an alias) copies that one's result; otherwise it
 * scans only the bytes no earlier tensor scanned (from a whole element or
 * block on). So N infos over one region cost one scan of it, not N.
 * Overlapping tensors are errors of their own (GG217). */
static bool plan_scan(gguflint_ctx *ctx, result *res)
{
    plan_key *order = gl_malloc(ctx->n_tensors * sizeof *order);
    if (!order)
        return false;
    size_t n = 0;
    for (size_t i = 0; i < ctx->n_tensors; i++) {
        const gguflint_tensor *t = &ctx->tensors[i];
        if (scannable(ctx, i))
            order[n++] = (plan_key){t->offset, t->nbytes, t->type, i};
    }
    order_sort(order, n, sizeof *order, plan_cmp);
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
    gl_free(order);
    return true;
}

/* ---- pieces and threads ---- */

/* A piece: bytes [off, off + len) of tensor `tensor`'s data, and what its
 * scan found (indexes in the piece's result are from the piece's start). */
typedef struct piece {
    size_t tensor;
    uint64_t off, len;
    fp_count c;
    bool nonzero, read_error;
} piece;

typedef struct scan_state {
    gguflint_ctx *ctx;
    piece *pieces;
    size_t n_pieces;
    size_t next;  /* next piece to take (atomic) */
    int failed;   /* a read failed: stop taking pieces (atomic) */
    size_t chunk; /* bytes per read */
    bool via_map; /* read in place from the mapping (source_map_scan_begin) */
    pthread_mutex_t mu;
    int read_status; /* the first failed read's status and reason (under mu) */
    char read_err[256];
} scan_state;

/* Cut the planned part of every scannable tensor, [from, nbytes), into
 * pieces of at most DEEP_PIECE_BYTES that are whole elements or blocks.
 * With pieces == NULL only counts them. */
static size_t cut_pieces(const gguflint_ctx *ctx, const result *res, piece *pieces)
{
    size_t n = 0;
    for (size_t i = 0; i < ctx->n_tensors; i++) {
        if (!scannable(ctx, i) || res[i].same_as)
            continue;
        const gguflint_tensor *t = &ctx->tensors[i];
        uint64_t u = unit_of(t->type), step = DEEP_PIECE_BYTES - DEEP_PIECE_BYTES % u;
        for (uint64_t off = res[i].from; off < t->nbytes; off += step) {
            if (pieces)
                pieces[n] =
                    (piece){i,         off,   t->nbytes - off < step ? t->nbytes - off : step,
                            {0, 0, 0}, false, false};
            n++;
        }
    }
    return n;
}

/* Read n bytes at file offset `at`: pread into buf from a mapped file (see
 * the top of the file), else source_read_r. NULL on failure (status, err). */
static const uint8_t *read_at(const scan_state *st, uint64_t at, size_t n, uint8_t *buf,
                              int *status, char *err, size_t err_size)
{
    const gguflint_ctx *ctx = st->ctx;
    if (st->via_map)
        return source_map_range(ctx, at, n, status, err, err_size);
    if (ctx->fd >= 0 && buf) {
        size_t got = 0;
        while (got < n) {
            ssize_t g = pread(ctx->fd, buf + got, n - got, (off_t)(at + got));
            if (g <= 0)
                break;
            got += (size_t)g;
        }
        if (got == n)
            return buf;
        snprintf(err, err_size, "reading 0x%llx failed: the file changed while being read",
                 (unsigned long long)(at + got));
        *status = GGUFLINT_E_IO;
        return NULL;
    }
    return source_read_r(ctx, at, n, buf, status, err, err_size);
}

/* Scan one piece through `buf` (st->chunk bytes, or NULL for an input that
 * is all in memory), in reads that are whole elements or blocks. */
static void scan_one(scan_state *st, piece *pc, uint8_t *buf)
{
    gguflint_ctx *ctx = st->ctx;
    const gguflint_tensor *t = &ctx->tensors[pc->tensor];
    const bool be = ctx->hdr.big_endian;
    enum scan_kind k = kind_of(t->type);
    const ggml_type_info *gi = gt_info(t->type);
    scale_layout sl = layout_of(t->type);
    uint64_t u = unit_of(t->type), step = st->chunk - st->chunk % u;
    result r;
    memset(&r, 0, sizeof r);
    for (uint64_t done = 0; done < pc->len;) {
        size_t n = pc->len - done < step ? (size_t)(pc->len - done) : (size_t)step;
        int rs = GGUFLINT_OK;
        char err[160];
        uint64_t at = ctx->hdr.data_start + t->offset + pc->off + done;
        const uint8_t *p = read_at(st, at, n, buf, &rs, err, sizeof err);
        if (!p) {
            pc->read_error = true;
            __atomic_store_n(&st->failed, 1, __ATOMIC_RELAXED);
            pthread_mutex_lock(&st->mu);
            if (st->read_status == GGUFLINT_OK) {
                st->read_status = rs;
                snprintf(st->read_err, sizeof st->read_err, "reading tensor %zu's data: %s",
                         pc->tensor, err);
            }
            pthread_mutex_unlock(&st->mu);
            return;
        }
        scan_piece(&r, k, sl, gi->size, p, n, done, be);
        if (st->via_map)
            source_map_scan_behind(ctx, at, at + n);
        done += n;
    }
    pc->c = (fp_count){r.nan, r.inf, r.first_bad};
    pc->nonzero = r.nonzero;
}

static void *scan_worker(void *arg)
{
    scan_state *st = arg;
    gguflint_ctx *ctx = st->ctx;
    bool in_memory = (ctx->fd < 0 && ctx->avail == ctx->size) || st->via_map;
    uint8_t *buf = NULL;
    if (!in_memory && posix_memalign((void **)&buf, 4096, st->chunk) != 0)
        return (void *)1;
    for (;;) {
        size_t i = __atomic_fetch_add(&st->next, 1, __ATOMIC_RELAXED);
        if (i >= st->n_pieces || __atomic_load_n(&st->failed, __ATOMIC_RELAXED))
            break;
        scan_one(st, &st->pieces[i], buf);
    }
    gl_free(buf);
    return NULL;
}

/* Run the scan over the pieces with `jobs` threads (this one included).
 * False when a thread could not get its buffer. */
static bool run_pieces(scan_state *st, unsigned jobs)
{
    if (jobs > 64)
        jobs = 64;
    if ((size_t)jobs > st->n_pieces)
        jobs = st->n_pieces ? (unsigned)st->n_pieces : 1;
    /* the pieces are read in file order: let the kernel read ahead */
    if (st->ctx->fd >= 0)
        posix_fadvise(st->ctx->fd, (off_t)st->ctx->hdr.data_start, 0, POSIX_FADV_SEQUENTIAL);
    pthread_t th[64];
    unsigned started = 0;
    pthread_attr_t attr;
    bool sized = jobs > 1 && pthread_attr_init(&attr) == 0;
    if (sized && pthread_attr_setstacksize(&attr, DEEP_THREAD_STACK_BYTES) != 0) {
        pthread_attr_destroy(&attr);
        sized = false;
    }
    for (unsigned i = 1; i < jobs; i++)
        if (pthread_create(&th[started], sized ? &attr : NULL, scan_worker, st) == 0)
            started++;
    if (sized)
        pthread_attr_destroy(&attr);
    void *fail = scan_worker(st);
    for (unsigned i = 0; i < started; i++) {
        void *r;
        pthread_join(th[i], &r);
        if (r)
            fail = r;
    }
    return fail == NULL;
}

/* Add the pieces' results up per tensor, in piece order. */
static void gather(gguflint_ctx *ctx, const scan_state *st, result *res)
{
    for (size_t k = 0; k < st->n_pieces; k++) {
        const piece *pc = &st->pieces[k];
        result *r = &res[pc->tensor];
        uint64_t u = unit_of(ctx->tensors[pc->tensor].type);
        r->scanned = true;
        if (pc->read_error) {
            r->read_error = true;
            continue;
        }
        if (pc->c.nan + pc->c.inf) {
            if (r->nan + r->inf == 0) /* the earliest piece with one has the first */
                r->first_bad = pc->off / u + pc->c.first;
            r->nan += pc->c.nan;
            r->inf += pc->c.inf;
        }
        r->nonzero |= pc->nonzero;
        r->read += pc->len;
    }
    /* tensors with nothing of their own to read (covered by earlier ones) */
    for (size_t i = 0; i < ctx->n_tensors; i++)
        if (scannable(ctx, i) && !res[i].same_as && res[i].from >= ctx->tensors[i].nbytes)
            res[i].scanned = true;
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

/* Free the scan's tables (ctx->deep_mem). */
static void done_with(gguflint_ctx *ctx)
{
    for (size_t i = 0; i < 2; i++) {
        gl_free(ctx->deep_mem[i]);
        ctx->deep_mem[i] = NULL;
    }
}

void check_data(gguflint_ctx *ctx)
{
    if (!ctx->opt.deep || ctx->opt.header_only || !ctx->hdr.metadata_complete ||
        ctx->n_tensors == 0 || ctx->hdr.data_start > ctx->size)
        return;
    /* the tables live in the context while the scan runs (deep_mem): a
     * SIGBUS guard that jumps out of a read of the mapping leaves them to
     * gguflint_free */
    result *res = gl_calloc(ctx->n_tensors, sizeof *res);
    ctx->deep_mem[0] = res;
    if (!res || !plan_scan(ctx, res)) {
        done_with(ctx);
        ctx->status = GGUFLINT_E_NOMEM;
        return;
    }
    scan_state st;
    memset(&st, 0, sizeof st);
    st.ctx = ctx;
    /* remote files read in large requests; a local file read by pread (no
     * address space for its mapping) in the small chunks */
    st.chunk = ctx->reader.read_at && ctx->fd < 0 ? DEEP_READER_CHUNK_BYTES : DEEP_CHUNK_BYTES;
    /* in place from the mapping: a piece per step, no buffer to keep in cache */
    unsigned jobs = ctx->opt.deep_jobs ? ctx->opt.deep_jobs : 1;
    st.via_map = source_map_scan_begin(ctx, jobs);
    if (st.via_map)
        st.chunk = DEEP_PIECE_BYTES;
    ctx->data_mapped = st.via_map;
    pthread_mutex_init(&st.mu, NULL);
    st.n_pieces = cut_pieces(ctx, res, NULL);
    st.pieces = gl_calloc(st.n_pieces ? st.n_pieces : 1, sizeof *st.pieces);
    ctx->deep_mem[1] = st.pieces;
    if (!st.pieces) {
        pthread_mutex_destroy(&st.mu);
        done_with(ctx);
        ctx->status = GGUFLINT_E_NOMEM;
        return;
    }
    cut_pieces(ctx, res, st.pieces);
    if (!run_pieces(&st, jobs))
        ctx->status = GGUFLINT_E_NOMEM;
    gather(ctx, &st, res);
    gl_free(st.pieces);
    ctx->deep_mem[1] = NULL;
    pthread_mutex_destroy(&st.mu);
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
    done_with(ctx);
}
