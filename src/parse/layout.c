/* layout.c - checks of the data-section layout implied by the tensor infos:
 * data start, alignment of offsets, ggml's contiguity rule, overlaps, data
 * past the end of the file, padding and trailing bytes. Reads file bytes only
 * in the padding before the data section and after the last tensor, unless
 * options.deep asks for the padding between tensors too (which would touch
 * every tensor's last page of a multi-GB file). */
#include "parse/parse.h"
#include "common/alloc.h"

#include "common/ckd.h"
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

typedef struct span {
    uint64_t start, end;
    size_t index;
} span;

static int span_cmp(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* tensor[i]<field>, formatted only when a finding is made. */
static const char *tensor_path(char *buf, size_t cap, size_t i, const char *field)
{
    snprintf(buf, cap, "tensor[%zu]%s", i, field);
    return buf;
}

void layout_check(gguflint_ctx *ctx)
{
    gguflint_header *h = &ctx->hdr;
    if (!h->metadata_complete)
        return;
    const uint64_t size = ctx->size, align = h->alignment;
    char path[96];
    uint64_t at;
    uint8_t byte;

    /* ggml's data size: the padded sizes summed in file order (checked
     * before each add since CVE-2025-53630). Overflow is a property of the
     * metadata alone, so it is reported in every mode. */
    uint64_t sum = 0;
    for (size_t i = 0; i < ctx->n_tensors; i++) {
        const gguflint_tensor *t = &ctx->tensors[i];
        uint64_t padded;
        if (!t->size_ok)
            continue;
        if (ckd_align64(&padded, t->nbytes, align) || ckd_add64(&sum, sum, padded)) {
            tensor_path(path, sizeof path, i, "");
            emit(ctx, R_DATA_SIZE_OVERFLOW, t->info_offset, 0, path,
                 "the padded sizes of tensors 0..%zu sum past 2^64 bytes: ggml's data size "
                 "overflows and it rejects the file (CVE-2025-53630)",
                 i);
            break;
        }
    }

    if (ctx->opt.header_only) {
        /* A prefix of the file: offsets, alignment and contiguity are checked
         * below; bounds against the file's end are not. */
        uint64_t need = h->metadata_end;
        bool need_ok = true;
        if (ctx->n_tensors > 0 && !ckd_align64(&h->data_start, h->metadata_end, align)) {
            uint64_t total = 0, padded;
            for (size_t i = 0; i < ctx->n_tensors; i++) {
                const gguflint_tensor *t = &ctx->tensors[i];
                uint64_t end;
                if (!t->size_ok)
                    continue;
                if (ckd_add64(&end, t->offset, t->nbytes) || ckd_align64(&padded, end, align))
                    need_ok = false;
                else if (padded > total)
                    total = padded;
            }
            if (ckd_add64(&need, h->data_start, total))
                need_ok = false;
        } else {
            h->data_start = h->metadata_end;
        }
        if (need_ok)
            emit(ctx, R_DATA_NOT_CHECKED, h->metadata_end, 0, "data",
                 "--header-only: data bounds not checked (%llu bytes read; the complete file "
                 "should be %llu bytes)",
                 (unsigned long long)size, (unsigned long long)need);
        else
            emit(ctx, R_DATA_NOT_CHECKED, h->metadata_end, 0, "data",
                 "--header-only: data bounds not checked (%llu bytes read; the tensors claim "
                 "more than 2^64 bytes, so no complete file can exist)",
                 (unsigned long long)size);
    }

    if (ctx->n_tensors == 0) {
        if (ctx->opt.header_only)
            return;
        /* No data section. ggml's writer still pads to the alignment with
         * zeros; gguf-py's vocab-only files end right after the last KV. */
        h->data_start = h->metadata_end;
        if (size > h->metadata_end) {
            /* padding to an alignment over ALIGNMENT_MAX (GG122) is not
             * accepted, so never scanned: at most 1 MiB is read here */
            uint64_t padded;
            bool pad_ok = align <= ALIGNMENT_MAX && !ckd_align64(&padded, h->metadata_end, align) &&
                          size == padded && !first_nonzero(ctx, h->metadata_end, size, &at, &byte);
            if (ctx->status != GGUFLINT_OK)
                return;
            if (!pad_ok)
                emit(ctx, R_TRAILING_BYTES, h->metadata_end, size - h->metadata_end, "data",
                     "%llu bytes follow the metadata of a file with no tensors",
                     (unsigned long long)(size - h->metadata_end));
        }
        return;
    }

    bool start_ok = !ckd_align64(&h->data_start, h->metadata_end, align) && h->data_start <= size;
    if (ctx->opt.header_only) {
        /* padding bytes that were read can still be checked */
        uint64_t pad_end = h->data_start < size ? h->data_start : size;
        if (h->data_start >= h->metadata_end &&
            first_nonzero(ctx, h->metadata_end, pad_end, &at, &byte))
            emit(ctx, R_NONZERO_PADDING, at, pad_end - at, "data.padding",
                 "padding before the data section has a non-zero byte 0x%02x at 0x%llx", byte,
                 (unsigned long long)at);
    } else if (!start_ok) {
        emit(ctx, R_DATA_START_PAST_EOF, h->metadata_end, 0, "data",
             "the data section would start at 0x%llx (metadata end 0x%llx padded to %llu) but "
             "the file is %llu bytes",
             (unsigned long long)h->data_start, (unsigned long long)h->metadata_end,
             (unsigned long long)align, (unsigned long long)size);
    } else if (first_nonzero(ctx, h->metadata_end, h->data_start, &at, &byte)) {
        emit(ctx, R_NONZERO_PADDING, at, h->data_start - at, "data.padding",
             "padding before the data section has a non-zero byte 0x%02x at 0x%llx", byte,
             (unsigned long long)at);
    }
    if (ctx->status != GGUFLINT_OK)
        return;

    /* offsets: alignment, ggml's running-sum rule, bounds */
    uint64_t expected = 0;
    bool contiguity_known = true, all_sized = true;
    span *spans = gl_calloc(ctx->n_tensors, sizeof *spans);
    if (!spans) {
        ctx->status = GGUFLINT_E_NOMEM;
        return;
    }
    size_t n_spans = 0;
    for (size_t i = 0; i < ctx->n_tensors; i++) {
        const gguflint_tensor *t = &ctx->tensors[i];
        uint64_t field = wire_ti_offset_off(wire_width(ctx->hdr.version), t);
#define OFFSET_PATH tensor_path(path, sizeof path, i, ".offset")
        if (t->offset % align != 0)
            emit(ctx, R_OFFSET_MISALIGNED, field, 8, OFFSET_PATH,
                 "offset 0x%llx is not a multiple of the alignment %llu",
                 (unsigned long long)t->offset, (unsigned long long)align);
        if (!t->size_ok) {
            contiguity_known = false;
            all_sized = false;
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
            all_sized = false;
        }
        if (contiguity_known && t->offset != expected)
            emit(ctx, R_OFFSET_NOT_CONTIGUOUS, field, 8, OFFSET_PATH,
                 "offset 0x%llx, ggml expects 0x%llx (the running sum of padded sizes: tensors "
                 "in file order, no gaps, no overlap)",
                 (unsigned long long)t->offset, (unsigned long long)expected);
        if (wrap || ckd_align64(&padded, end, align)) {
            contiguity_known = false;
            continue;
        }
        expected = padded; /* resynchronise after a mismatch to avoid a cascade */
        if (t->nbytes > 0)
            spans[n_spans++] = (span){t->offset, end, i};
    }
#undef OFFSET_PATH

    /* overlaps, in offset order (files are written in it: sort only when not) */
    bool sorted = true;
    for (size_t k = 1; k < n_spans && sorted; k++)
        sorted = span_cmp(&spans[k - 1], &spans[k]) < 0;
    if (!sorted)
        qsort(spans, n_spans, sizeof *spans, span_cmp);
    uint64_t max_end = 0;
    size_t max_i = 0;
    for (size_t k = 0; k < n_spans; k++) {
        const span *s = &spans[k];
        if (k > 0 && s->start < max_end) {
            const gguflint_tensor *t = &ctx->tensors[s->index];
            tensor_path(path, sizeof path, s->index, ".offset");
            emit(ctx, R_TENSORS_OVERLAP, wire_ti_offset_off(wire_width(ctx->hdr.version), t), 8,
                 path, "data [0x%llx, 0x%llx) overlaps tensor[%zu] ending at 0x%llx",
                 (unsigned long long)s->start, (unsigned long long)s->end, max_i,
                 (unsigned long long)max_end);
        }
        if (s->end > max_end) {
            /* padding between this tensor's predecessor and it (deep only) */
            if (ctx->opt.deep && !ctx->opt.header_only && k > 0 && s->start > max_end && start_ok &&
                h->data_start + s->start <= size &&
                first_nonzero(ctx, h->data_start + max_end, h->data_start + s->start, &at, &byte))
                emit(ctx, R_NONZERO_PADDING, at, 1, "data.padding",
                     "padding between tensors has a non-zero byte 0x%02x at 0x%llx", byte,
                     (unsigned long long)at);
            if (ctx->status != GGUFLINT_OK)
                break;
            max_end = s->end;
            max_i = s->index;
        }
    }
    gl_free(spans);

    /* trailing bytes past the padded end of the last tensor */
    uint64_t end_abs, padded_abs;
    if (!ctx->opt.header_only && start_ok && all_sized &&
        !ckd_add64(&end_abs, h->data_start, max_end) && !ckd_align64(&padded_abs, end_abs, align) &&
        end_abs <= size) {
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
        uint64_t pad_end = padded_abs < size ? padded_abs : size;
        if (ctx->opt.deep && first_nonzero(ctx, end_abs, pad_end, &at, &byte))
            emit(ctx, R_NONZERO_PADDING, at, 1, "data.padding",
                 "padding after the last tensor has a non-zero byte 0x%02x at 0x%llx", byte,
                 (unsigned long long)at);
    }
}
