/* layout.c - checks of the data-section layout implied by the tensor infos:
 * data start, alignment of offsets, ggml's contiguity rule, overlaps, data
 * past the end of the file, padding and trailing bytes. Reads file bytes only
 * in the padding before the data section and after the last tensor, unless
 * options.deep asks for the padding between tensors too (which would touch
 * every tensor's last page of a multi-GB file). */
#include "common/alloc.h"
#include "parse/parse.h"

#include "common/ckd.h"
#include "common/order.h"
#include "input/source.h"
#include "format/wire.h"

#include <stdlib.h>
#include <string.h>

/* Padding bytes may lie outside the input in memory (reader inputs hold the
 * metadata only): they are read through source_read. */
static bool first_nonzero(gguflint_ctx *ctx, uint64_t from, uint64_t to, uint64_t *at,
                          uint8_t *byte)
{
    return from < to && source_first_nonzero(ctx, from, to, at, byte);
}

typedef order_span span;

/* tensor[i]<field>, formatted only when a finding is made. */
static const char *tensor_path(char *buf, size_t cap, size_t i, const char *field)
{
    snprintf(buf, cap, "tensor[%zu]%s", i, field);
    return buf;
}

/* GG215 when [from, to) holds a non-zero byte: "padding WHERE has ...". The
 * finding covers the rest of the run when whole_run, else the byte. */
static void check_padding(gguflint_ctx *ctx, uint64_t from, uint64_t to, bool whole_run,
                          const char *where)
{
    uint64_t at;
    uint8_t byte;
    if (first_nonzero(ctx, from, to, &at, &byte))
        emit(ctx, R_NONZERO_PADDING, at, whole_run ? to - at : 1, "data.padding",
             "padding %s has a non-zero byte 0x%02x at 0x%llx", where, byte,
             (unsigned long long)at);
}

/* Phase 1. ggml's data size: the padded sizes summed in file order (checked
 * before each add since CVE-2025-53630). Overflow is a property of the
 * metadata alone, so it is reported in every mode. */
static void check_data_size(gguflint_ctx *ctx)
{
    char path[96];
    uint64_t sum = 0;
    for (size_t i = 0; i < ctx->n_tensors; i++) {
        const gguflint_tensor *t = &ctx->tensors[i];
        uint64_t padded;
        if (!t->size_ok)
            continue;
        if (ckd_align64(&padded, t->nbytes, ctx->hdr.alignment) || ckd_add64(&sum, sum, padded)) {
            emit(ctx, R_DATA_SIZE_OVERFLOW, t->info_offset, 0,
                 tensor_path(path, sizeof path, i, ""),
                 "the padded sizes of tensors 0..%zu sum past 2^64 bytes: ggml's data size "
                 "overflows and it rejects the file (CVE-2025-53630)",
                 i);
            return;
        }
    }
}

/* The size the complete file would have (data start plus the furthest padded
 * tensor end), false when the tensors claim more than 2^64 bytes. Sets the
 * data start a prefix implies. */
static bool complete_size(gguflint_ctx *ctx, uint64_t *need)
{
    gguflint_header *h = &ctx->hdr;
    const uint64_t align = h->alignment;
    *need = h->metadata_end;
    if (ctx->n_tensors == 0 || ckd_align64(&h->data_start, h->metadata_end, align)) {
        h->data_start = h->metadata_end;
        return true;
    }
    bool ok = true;
    uint64_t total = 0, padded;
    for (size_t i = 0; i < ctx->n_tensors; i++) {
        const gguflint_tensor *t = &ctx->tensors[i];
        uint64_t end;
        if (!t->size_ok)
            continue;
        if (ckd_add64(&end, t->offset, t->nbytes) || ckd_align64(&padded, end, align))
            ok = false;
        else if (padded > total)
            total = padded;
    }
    return !ckd_add64(need, h->data_start, total) && ok;
}

/* Phase 2 (--header-only). A prefix of the file: offsets, alignment and
 * contiguity are checked by the later phases; bounds against the file's end
 * are not, which this note says. */
static void note_header_only(gguflint_ctx *ctx)
{
    const uint64_t size = ctx->size, metadata_end = ctx->hdr.metadata_end;
    uint64_t need;
    if (complete_size(ctx, &need))
        emit(ctx, R_DATA_NOT_CHECKED, metadata_end, 0, "data",
             "--header-only: data bounds not checked (%llu bytes read; the complete file "
             "should be %llu bytes)",
             (unsigned long long)size, (unsigned long long)need);
    else
        emit(ctx, R_DATA_NOT_CHECKED, metadata_end, 0, "data",
             "--header-only: data bounds not checked (%llu bytes read; the tensors claim "
             "more than 2^64 bytes, so no complete file can exist)",
             (unsigned long long)size);
}

/* Phase 3, a file with no tensors, so no data section. ggml's writer still
 * pads to the alignment with zeros; gguf-py's vocab-only files end right
 * after the last KV. */
static void check_no_tensors(gguflint_ctx *ctx)
{
    gguflint_header *h = &ctx->hdr;
    const uint64_t size = ctx->size, align = h->alignment;
    h->data_start = h->metadata_end;
    if (size <= h->metadata_end)
        return;
    /* padding to an alignment over ALIGNMENT_MAX (GG122) is not accepted, so
     * never scanned: at most 1 MiB is read here */
    uint64_t padded, at;
    uint8_t byte;
    bool pad_ok = align <= ALIGNMENT_MAX && !ckd_align64(&padded, h->metadata_end, align) &&
                  size == padded && !first_nonzero(ctx, h->metadata_end, size, &at, &byte);
    if (ctx->status != GGUFLINT_OK)
        return;
    if (!pad_ok)
        emit(ctx, R_TRAILING_BYTES, h->metadata_end, size - h->metadata_end, "data",
             "%llu bytes follow the metadata of a file with no tensors",
             (unsigned long long)(size - h->metadata_end));
}

/* Phase 4. The data section starts at the metadata's end padded to the
 * alignment; the padding bytes that were read must be zero. Returns whether
 * the start lies within the file. */
static bool check_data_start(gguflint_ctx *ctx)
{
    gguflint_header *h = &ctx->hdr;
    const uint64_t size = ctx->size;
    bool start_ok =
        !ckd_align64(&h->data_start, h->metadata_end, h->alignment) && h->data_start <= size;
    if (!start_ok && !ctx->opt.header_only) {
        emit(ctx, R_DATA_START_PAST_EOF, h->metadata_end, 0, "data",
             "the data section would start at 0x%llx (metadata end 0x%llx padded to %llu) but "
             "the file is %llu bytes",
             (unsigned long long)h->data_start, (unsigned long long)h->metadata_end,
             (unsigned long long)h->alignment, (unsigned long long)size);
        return false;
    }
    /* under --header-only the start may lie past the prefix read */
    uint64_t pad_end = h->data_start < size ? h->data_start : size;
    if (h->data_start >= h->metadata_end)
        check_padding(ctx, h->metadata_end, pad_end, true, "before the data section");
    return start_ok;
}

typedef struct offsets_pass {
    span *spans; /* the sized non-empty tensors' [offset, end); NULL: out of memory */
    size_t n_spans;
    bool all_sized; /* every tensor's size is known and its data ends in the file */
} offsets_pass;

/* Phase 5. Each tensor's offset: alignment, ggml's running-sum rule, bounds.
 * Returns the tensors' data spans for the overlap phase. */
static offsets_pass check_offsets(gguflint_ctx *ctx, bool start_ok)
{
    const gguflint_header *h = &ctx->hdr;
    const uint64_t size = ctx->size, align = h->alignment;
    offsets_pass r = {gl_calloc(ctx->n_tensors, sizeof *r.spans), 0, true};
    if (!r.spans) {
        ctx->status = GGUFLINT_E_NOMEM;
        return r;
    }
    char path[96];
    uint64_t expected = 0;
    bool contiguity_known = true;
    for (size_t i = 0; i < ctx->n_tensors; i++) {
        const gguflint_tensor *t = &ctx->tensors[i];
        uint64_t field = wire_ti_offset_off(wire_width(h->version), t);
#define OFFSET_PATH tensor_path(path, sizeof path, i, ".offset")
        if (t->offset % align != 0)
            emit(ctx, R_OFFSET_MISALIGNED, field, 8, OFFSET_PATH,
                 "offset 0x%llx is not a multiple of the alignment %llu",
                 (unsigned long long)t->offset, (unsigned long long)align);
        if (!t->size_ok) {
            contiguity_known = false;
            r.all_sized = false;
            continue;
        }
        uint64_t end, abs_end, padded;
        bool wrap = ckd_add64(&end, t->offset, t->nbytes);
        if (wrap || ckd_add64(&abs_end, h->data_start, end) || abs_end > size) {
            if (start_ok && !ctx->opt.header_only)
                emit(ctx, R_DATA_PAST_EOF, field, 8, OFFSET_PATH,
                     "data [0x%llx, +%llu) runs past the end of the file (0x%llx)",
                     (unsigned long long)(h->data_start + t->offset), (unsigned long long)t->nbytes,
                     (unsigned long long)size);
            r.all_sized = false;
        }
        if (contiguity_known && t->offset != expected)
            emit(ctx, R_OFFSET_NOT_CONTIGUOUS, field, 8, OFFSET_PATH,
                 "offset 0x%llx, ggml expects 0x%llx (the running sum of padded sizes: tensors "
                 "in file order, no gaps, no overlap)",
                 (unsigned long long)t->offset, (unsigned long long)expected);
#undef OFFSET_PATH
        if (wrap || ckd_align64(&padded, end, align)) {
            contiguity_known = false;
            continue;
        }
        expected = padded; /* resynchronise after a mismatch to avoid a cascade */
        if (t->nbytes > 0)
            r.spans[r.n_spans++] = (span){t->offset, end, i};
    }
    return r;
}

/* Phase 6. Overlaps, in offset order (files are written in it: sort only when
 * not), and under --deep the padding between tensors. Returns the furthest
 * end of tensor data, relative to the data start. */
static uint64_t check_overlaps(gguflint_ctx *ctx, span *spans, size_t n_spans, bool start_ok)
{
    const gguflint_header *h = &ctx->hdr;
    const bool deep = ctx->opt.deep && !ctx->opt.header_only && start_ok;
    char path[96];
    order_sort(spans, n_spans, sizeof *spans, order_span_cmp); /* offset order */
    uint64_t max_end = 0;
    size_t max_i = 0;
    for (size_t k = 0; k < n_spans; k++) {
        const span *s = &spans[k];
        if (k > 0 && s->start < max_end) {
            const gguflint_tensor *t = &ctx->tensors[s->index];
            emit(ctx, R_TENSORS_OVERLAP, wire_ti_offset_off(wire_width(h->version), t), 8,
                 tensor_path(path, sizeof path, s->index, ".offset"),
                 "data [0x%llx, 0x%llx) overlaps tensor[%zu] ending at 0x%llx",
                 (unsigned long long)s->start, (unsigned long long)s->end, max_i,
                 (unsigned long long)max_end);
        }
        if (s->end <= max_end)
            continue;
        /* padding between this tensor's predecessor and it */
        if (deep && k > 0 && s->start > max_end && h->data_start + s->start <= ctx->size)
            check_padding(ctx, h->data_start + max_end, h->data_start + s->start, false,
                          "between tensors");
        if (ctx->status != GGUFLINT_OK)
            break;
        max_end = s->end;
        max_i = s->index;
    }
    return max_end;
}

/* Phase 7. The file ends at the last tensor's padded end: missing final
 * padding, trailing bytes, and under --deep the padding itself. */
static void check_tail(gguflint_ctx *ctx, uint64_t max_end)
{
    const uint64_t size = ctx->size;
    uint64_t end_abs, padded_abs;
    if (ckd_add64(&end_abs, ctx->hdr.data_start, max_end) ||
        ckd_align64(&padded_abs, end_abs, ctx->hdr.alignment) || end_abs > size)
        return;
    if (size < padded_abs)
        emit(ctx, R_MISSING_FINAL_PADDING, size, padded_abs - size, "data",
             "the file ends at 0x%llx, %llu bytes before the end of the last tensor's "
             "padding (0x%llx); ggml's data loader reads the padded size and fails",
             (unsigned long long)size, (unsigned long long)(padded_abs - size),
             (unsigned long long)padded_abs);
    if (size > padded_abs)
        emit(ctx, R_TRAILING_BYTES, padded_abs, size - padded_abs, "data",
             "%llu bytes follow the end of the last tensor's data (0x%llx)",
             (unsigned long long)(size - padded_abs), (unsigned long long)padded_abs);
    if (ctx->opt.deep)
        check_padding(ctx, end_abs, padded_abs < size ? padded_abs : size, false,
                      "after the last tensor");
}

/* The phases in order; each hands what the next needs down by its return
 * value. */
void layout_check(gguflint_ctx *ctx)
{
    if (!ctx->hdr.metadata_complete)
        return;
    check_data_size(ctx);
    if (ctx->opt.header_only)
        note_header_only(ctx);
    if (ctx->n_tensors == 0) {
        if (!ctx->opt.header_only)
            check_no_tensors(ctx);
        return;
    }
    bool start_ok = check_data_start(ctx);
    if (ctx->status != GGUFLINT_OK)
        return;
    offsets_pass offsets = check_offsets(ctx, start_ok);
    if (!offsets.spans)
        return;
    uint64_t max_end = check_overlaps(ctx, offsets.spans, offsets.n_spans, start_ok);
    gl_free(offsets.spans);
    if (!ctx->opt.header_only && start_ok && offsets.all_sized)
        check_tail(ctx, max_end);
}
