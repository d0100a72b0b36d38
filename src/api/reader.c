/* reader.c - the range-reader input: a caller's read_at(offset, len) over a
 * file of known size (a remote file read by HTTP ranges, src/net/). It sits
 * in api/, above parse/, because it probes with the parser how much of the
 * file the metadata needs. Only the
 * metadata is brought into memory: a first read, then reads that at least
 * double the prefix (or reach the least length the parser asked for) while a
 * parse of the prefix runs out of bytes before the metadata ends, up to the
 * padding before the data section when that padding is small. Each probe is
 * a parse with every rule off; the work stays linear in the final prefix (a
 * geometric series). The run then sees `size` as the file's size and `avail`
 * as the bytes in memory, so layout checks (data bounds, trailing bytes,
 * split totals) give what a local file gives, and any other byte is read
 * through the reader (source_read). */
#include "core/limits.h"
#include "common/alloc.h"
#include "input/source.h"
#include "parse/parse.h"

#include "common/ckd.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_FIRST ((uint64_t)2 << 20)
#define DEFAULT_MAX_PREFIX ((uint64_t)256 << 20)
#define MIN_FIRST 64u
/* padding before the data section read with the metadata when at most this */
#define PREFETCH_PAD_MAX ((uint64_t)1 << 20)
/* The first published layout (0.3): a struct_size below it is refused. */
#define READER_SIZE_V1 (offsetof(gguflint_reader, max_prefix) + sizeof(uint64_t))

/* The prefix length the metadata of ctx's file needs, knowing [0, have):
 * 0 when the metadata (and the small padding after it) is complete in it, or
 * stopped for a reason more bytes would not change; otherwise the least
 * length that lets the parse go on. *exact: that length is all that is
 * missing (only the padding before the data section), so nothing more is
 * worth reading ahead. */
static int need_of(const gguflint_ctx *ctx, const uint8_t *buf, uint64_t have, uint64_t *need,
                   bool *exact)
{
    *need = 0;
    *exact = false;
    gguflint_ctx *p = gguflint_new(&ctx->opt);
    if (!p)
        return GGUFLINT_E_NOMEM;
    memset(p->opt.severity, GGUFLINT_OFF, sizeof p->opt.severity); /* no finding is kept */
    p->data = buf ? buf : (const uint8_t *)"";
    p->size = ctx->size;
    p->avail = have;
    p->input_set = true;
    parse_run(p);
    int st = p->status;
    if (st == GGUFLINT_OK) {
        uint64_t start;
        if (p->input_cut)
            *need = p->bytes_needed > have ? p->bytes_needed : have + 1;
        else if (p->hdr.metadata_complete &&
                 !ckd_align64(&start, p->hdr.metadata_end, p->hdr.alignment) && start > have &&
                 start - p->hdr.metadata_end <= PREFETCH_PAD_MAX) {
            *need = start < ctx->size ? start : ctx->size;
            *exact = true;
        }
    }
    p->data = NULL;
    gguflint_free(p);
    return st;
}

static int refuse(gguflint_ctx *ctx, int st, const char *detail)
{
    snprintf(ctx->error_detail, sizeof ctx->error_detail, "%s", detail);
    ctx->status = st;
    return st;
}

/* The caller's reader as this library's layout: the fields both know, the
 * rest zero (their defaults). False for a NULL reader or a struct_size
 * below the first layout (an old binary that predates the field, or a
 * caller that did not use GGUFLINT_READER_INIT). */
static bool reader_of(const gguflint_reader *caller, gguflint_reader *r)
{
    memset(r, 0, sizeof *r);
    if (!caller || caller->struct_size < READER_SIZE_V1)
        return false;
    memcpy(r, caller, caller->struct_size < sizeof *r ? caller->struct_size : sizeof *r);
    r->struct_size = sizeof *r;
    return true;
}

int gguflint_open_reader(gguflint_ctx *ctx, const gguflint_reader *caller)
{
    gguflint_reader known, *r = &known;
    bool usable = reader_of(caller, r);
    int st = !ctx || !usable || !r->read_at ? GGUFLINT_E_ARG : source_ready(ctx);
    if (st != GGUFLINT_OK) {
        /* the context owns user whatever this returns; a struct too small
         * to read is not touched (its close may not be where we look) */
        if (usable && r->close)
            r->close(r->user);
        if (ctx && ctx->status == GGUFLINT_OK)
            refuse(ctx, st,
                   usable ? "no reader"
                          : "the reader's struct_size is too small (use GGUFLINT_READER_INIT)");
        return st;
    }
    ctx->reader = *r; /* from here gguflint_free closes it */
    ctx->input_set = true;
    ctx->size = r->size;
    uint64_t max = r->max_prefix ? r->max_prefix : DEFAULT_MAX_PREFIX;
    uint64_t first = r->first_read ? r->first_read : DEFAULT_FIRST;
    if (max < MIN_FIRST)
        max = MIN_FIRST;
    if (first < MIN_FIRST)
        first = MIN_FIRST;
    if (first > max)
        first = max;
    uint64_t have = 0, target = r->size < first ? r->size : first;
    uint8_t *buf = NULL;
    for (;;) {
        if (target > have) {
            if (target > SIZE_MAX) {
                gl_free(buf);
                return refuse(ctx, GGUFLINT_E_IO, "metadata too large for this address space");
            }
            uint8_t *nb = gl_realloc(buf, (size_t)target);
            if (!nb) {
                gl_free(buf);
                return refuse(ctx, GGUFLINT_E_NOMEM, "out of memory reading the metadata");
            }
            buf = nb;
            char err[200] = "";
            st = r->read_at(r->user, have, buf + have, (size_t)(target - have), err, sizeof err);
            if (st != GGUFLINT_OK) {
                gl_free(buf);
                return refuse(ctx, st == GGUFLINT_E_NOMEM ? st : GGUFLINT_E_IO,
                              err[0] ? err : "the reader failed");
            }
            have = target;
        }
        uint64_t need;
        bool exact;
        st = need_of(ctx, buf, have, &need, &exact);
        if (st != GGUFLINT_OK) {
            gl_free(buf);
            return refuse(ctx, st, "out of memory reading the metadata");
        }
        if (need == 0 || have == r->size)
            break;
        /* the metadata goes on: at least double (a geometric series keeps the
         * probes linear); only padding is missing: just that */
        uint64_t next = exact ? need : have > UINT64_MAX / 2 ? UINT64_MAX : have * 2;
        if (next < need)
            next = need;
        if (next > r->size)
            next = r->size;
        if (next > max) {
            if (have >= max || need > max) {
                gl_free(buf);
                char why[200];
                snprintf(why, sizeof why,
                         "the metadata goes on past the %llu-byte fetch cap (at least %llu "
                         "bytes are needed; raise --max-fetch)",
                         (unsigned long long)max, (unsigned long long)need);
                return refuse(ctx, GGUFLINT_E_IO, why);
            }
            next = max;
        }
        target = next;
    }
    ctx->owned = buf;
    ctx->data = buf ? buf : (const uint8_t *)"";
    ctx->avail = have;
    return GGUFLINT_OK;
}
