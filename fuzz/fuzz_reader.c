/* fuzz_reader.c - the range-reader input (src/input/reader.c) against the
 * same bytes in memory: a file read through read_at, starting from a first
 * read of 64 to a few hundred bytes so the metadata is pulled in many
 * geometric steps, must give exactly the findings (rule, severity, offset,
 * length, path, message), the header and the status of the same file given
 * as a buffer, with and without --deep. This is the promise of URL inputs
 * ("every check runs exactly as on a local file") checked on any bytes. The
 * reader also checks that no read strays past the file or repeats a range of
 * the metadata more than the growth needs. */
#include "fuzz_common.h"

typedef struct file {
    const uint8_t *data;
    uint64_t size;
    uint64_t reads, bytes;
} file;

static int read_at(void *user, uint64_t off, void *buf, size_t len, char *err, size_t errn)
{
    file *f = user;
    (void)err;
    (void)errn;
    FUZZ_ASSERT(off <= f->size && len <= f->size - off);
    FUZZ_ASSERT(len > 0);
    memcpy(buf, f->data + off, len);
    __atomic_add_fetch(&f->reads, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&f->bytes, (uint64_t)len, __ATOMIC_RELAXED);
    return GGUFLINT_OK;
}

static void same(const gguflint_ctx *a, const gguflint_ctx *b)
{
    const gguflint_header *ha = gguflint_get_header(a), *hb = gguflint_get_header(b);
    FUZZ_ASSERT(ha->file_size == hb->file_size && ha->is_gguf == hb->is_gguf &&
                ha->version == hb->version && ha->kv_parsed == hb->kv_parsed &&
                ha->tensors_parsed == hb->tensors_parsed &&
                ha->metadata_complete == hb->metadata_complete &&
                ha->metadata_end == hb->metadata_end && ha->data_start == hb->data_start);
    FUZZ_ASSERT(gguflint_finding_count(a) == gguflint_finding_count(b));
    FUZZ_ASSERT(gguflint_findings_dropped(a) == gguflint_findings_dropped(b));
    for (size_t i = 0; i < gguflint_finding_count(a); i++) {
        const gguflint_finding *x = gguflint_finding_get(a, i), *y = gguflint_finding_get(b, i);
        FUZZ_ASSERT(x->rule == y->rule && x->severity == y->severity && x->offset == y->offset &&
                    x->length == y->length);
        FUZZ_ASSERT(strcmp(x->path, y->path) == 0 && strcmp(x->message, y->message) == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the last byte picks the first read and --deep */
    uint8_t sel = size ? data[size - 1] : 0;
    const bool deep = (sel & 0x80) != 0;
    gguflint_options *opt = gguflint_options_new();
    if (!opt)
        return 0;
    gguflint_options_set_deep(opt, deep);
    gguflint_ctx *a = gguflint_new(opt), *b = gguflint_new(opt);
    gguflint_options_free(opt);
    if (!a || !b) {
        gguflint_free(a);
        gguflint_free(b);
        return 0;
    }
    fuzz_check_status(gguflint_set_buffer(a, data, size));
    int sa = gguflint_run(a);
    file f = {data, size, 0, 0};
    gguflint_reader r = GGUFLINT_READER_INIT;
    r.size = size;
    r.read_at = read_at;
    r.user = &f;
    r.first_read = 64 + (uint64_t)(sel & 0x7f) * 5;
    int sb = gguflint_open_reader(b, &r);
    fuzz_check_status(sb);
    if (sb == GGUFLINT_OK)
        sb = gguflint_run(b);
    fuzz_check_status(sa);
    FUZZ_ASSERT(sa == sb);
    if (sa == GGUFLINT_OK)
        same(a, b);
    /* the metadata costs at most about twice the bytes of the file's prefix it
     * needs (a geometric series), and few reads */
    if (!deep)
        FUZZ_ASSERT(f.reads <= 64);
    gguflint_free(a);
    gguflint_free(b);
    return 0;
}
