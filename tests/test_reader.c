/* test_reader.c - the range-reader input (gguflint_open_reader): how much it
 * reads and in how many calls (one read when the metadata fits the first,
 * geometric growth while it goes on, only the missing padding when that is
 * all that is missing), the fetch cap, a failing reader, the ownership rule
 * (close is called exactly once, also when the input is refused), reads of
 * data through gguflint_read, and findings equal to those of the same bytes
 * given as a buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"

#include "gguf_builder.h"
#include "gguflint.h"

typedef struct file {
    const uint8_t *data;
    uint64_t size;
    unsigned reads, closes;
    uint64_t bytes, last_len;
    int fail_at; /* the read that fails (1-based), 0: none */
} file;

static int read_at(void *user, uint64_t off, void *buf, size_t len, char *err, size_t errn)
{
    file *f = user;
    assert_true(off <= f->size && len <= f->size - off);
    f->reads++;
    if (f->fail_at && (int)f->reads == f->fail_at) {
        snprintf(err, errn, "scripted read failure");
        return GGUFLINT_E_IO;
    }
    memcpy(buf, f->data + off, len);
    f->bytes += len;
    f->last_len = len;
    return GGUFLINT_OK;
}

static void on_close(void *user)
{
    ((file *)user)->closes++;
}

/* A file whose metadata is about `strings` * 24 bytes (a string array),
 * with one f32 [8] tensor after it. */
static uint8_t *model(size_t strings, size_t *len, uint64_t *data_start)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "none");
    gb_kv_begin(b, "x.strings", GB_VT_ARR);
    gb_arr_header(b, GB_VT_STR, strings);
    for (size_t i = 0; i < strings; i++) {
        char s[32];
        int n = snprintf(s, sizeof s, "string number %07zu", i);
        gb_str(b, s, (size_t)n);
    }
    uint64_t ne[1] = {8};
    gb_tensor(b, "t", 1, ne, GB_F32, 0);
    gb_pad_to(b, 32);
    *data_start = gb_offset(b);
    float v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    gb_bytes(b, v, sizeof v);
    uint8_t *buf = ex_finish(b, len);
    return buf;
}

static gguflint_reader reader_of(file *f, uint64_t first, uint64_t max)
{
    gguflint_reader r = GGUFLINT_READER_INIT;
    r.size = f->size;
    r.read_at = read_at;
    r.close = on_close;
    r.user = f;
    r.first_read = first;
    r.max_prefix = max;
    return r;
}

/* A context over f through a range reader (first and max as reader_of);
 * its open must return want (the context copies the reader). */
static gguflint_ctx *open_over(file *f, uint64_t first, uint64_t max, int want)
{
    gguflint_reader r = reader_of(f, first, max);
    gguflint_ctx *ctx = gguflint_new(NULL);
    assert_int_equal(gguflint_open_reader(ctx, &r), want);
    return ctx;
}

static void same_findings(const uint8_t *data, size_t len, gguflint_ctx *remote)
{
    gguflint_ctx *local = gguflint_new(NULL);
    assert_int_equal(gguflint_set_buffer(local, data, len), GGUFLINT_OK);
    assert_int_equal(gguflint_run(local), GGUFLINT_OK);
    assert_int_equal(gguflint_finding_count(local), gguflint_finding_count(remote));
    for (size_t i = 0; i < gguflint_finding_count(local); i++) {
        const gguflint_finding *a = gguflint_finding_get(local, i);
        const gguflint_finding *b = gguflint_finding_get(remote, i);
        assert_int_equal(a->rule, b->rule);
        assert_int_equal(a->offset, b->offset);
        assert_string_equal(a->message, b->message);
    }
    gguflint_free(local);
}

/* Run ctx: the findings of the same bytes linted in memory; ctx is freed. */
static void run_as_local(gguflint_ctx *ctx, const uint8_t *data, size_t len)
{
    assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
    same_findings(data, len, ctx);
    gguflint_free(ctx);
}

static void test_one_read_when_it_fits(void **state)
{
    size_t len;
    uint64_t ds;
    uint8_t *data = model(10, &len, &ds);
    file f = {data, len, 0, 0, 0, 0, 0};
    gguflint_ctx *ctx = open_over(&f, 0, 0, GGUFLINT_OK); /* defaults: 2 MiB first */
    assert_int_equal(f.reads, 1);
    assert_int_equal(f.bytes, len);
    assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
    assert_int_equal(f.reads, 1); /* no check needed more */
    same_findings(data, len, ctx);
    /* data through gguflint_read: from memory, then past the end */
    uint8_t got[32];
    assert_int_equal(gguflint_read(ctx, ds, got, 32), GGUFLINT_OK);
    assert_memory_equal(got, data + ds, 32);
    assert_int_equal(gguflint_read(ctx, len - 4, got, 8), GGUFLINT_E_IO);
    assert_int_equal(gguflint_read(ctx, 0, got, 8), GGUFLINT_OK); /* not sticky */
    gguflint_free(ctx);
    assert_int_equal(f.closes, 1);
    free(data);
}

static void test_geometric_growth(void **state)
{
    size_t len;
    uint64_t ds;
    uint8_t *data = model(40000, &len, &ds); /* about 1.3 MB of metadata */
    file f = {data, len, 0, 0, 0, 0, 0};
    gguflint_ctx *ctx = open_over(&f, 4096, 0, GGUFLINT_OK);
    /* 4 KiB doubling past 1.3 MB: 10 or 11 reads, never more than twice
     * the bytes needed */
    assert_in_range(f.reads, 9, 12);
    assert_true(f.bytes <= 2 * ds + 4096);
    run_as_local(ctx, data, len);
    free(data);
}

static void test_only_the_padding(void **state)
{
    size_t len;
    uint64_t ds;
    uint8_t *data = model(300, &len, &ds);
    /* find where the metadata ends (the padding starts) */
    gguflint_ctx *probe = gguflint_new(NULL);
    assert_int_equal(gguflint_set_buffer(probe, data, len), GGUFLINT_OK);
    assert_int_equal(gguflint_run(probe), GGUFLINT_OK);
    uint64_t meta_end = gguflint_get_header(probe)->metadata_end;
    gguflint_free(probe);
    if (meta_end == ds)
        skip(); /* no padding in this layout */
    file f = {data, len, 0, 0, 0, 0, 0};
    gguflint_ctx *ctx = open_over(&f, meta_end, 0, GGUFLINT_OK);
    assert_int_equal(f.reads, 2);
    assert_int_equal(f.last_len, ds - meta_end); /* just the padding */
    run_as_local(ctx, data, len);
    free(data);
}

static void test_cap_and_failures(void **state)
{
    size_t len;
    uint64_t ds;
    uint8_t *data = model(40000, &len, &ds);
    file f = {data, len, 0, 0, 0, 0, 0};
    gguflint_ctx *ctx = open_over(&f, 4096, 100000, GGUFLINT_E_IO);
    assert_non_null(strstr(gguflint_error_detail(ctx), "fetch cap"));
    assert_true(f.bytes <= 100000);
    assert_int_equal(gguflint_run(ctx), GGUFLINT_E_IO); /* sticky */
    gguflint_free(ctx);
    assert_int_equal(f.closes, 1);

    /* the reader fails on its third read */
    f = (file){data, len, 0, 0, 0, 0, 3};
    ctx = open_over(&f, 4096, 0, GGUFLINT_E_IO);
    assert_string_equal(gguflint_error_detail(ctx), "scripted read failure");
    gguflint_free(ctx);
    assert_int_equal(f.closes, 1);

    /* refused: the input was set already; the reader is closed at once */
    f = (file){data, len, 0, 0, 0, 0, 0};
    gguflint_reader r = reader_of(&f, 0, 0);
    ctx = gguflint_new(NULL);
    assert_int_equal(gguflint_set_buffer(ctx, data, len), GGUFLINT_OK);
    assert_int_not_equal(gguflint_open_reader(ctx, &r), GGUFLINT_OK);
    assert_int_equal(f.closes, 1);
    assert_int_equal(f.reads, 0);
    gguflint_free(ctx);
    assert_int_equal(f.closes, 1);
    free(data);
}

static void test_truncated_file_same_as_local(void **state)
{
    size_t len;
    uint64_t ds;
    uint8_t *data = model(2000, &len, &ds);
    /* every prefix length around the cut points gives the local findings */
    size_t cuts[] = {0,          1,
                     3,          4,
                     7,          8,
                     23,         24,
                     25,         100,
                     4095,       4096,
                     4097,       (size_t)ds - 1,
                     (size_t)ds, (size_t)ds + 5,
                     len - 1};
    for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
        size_t n = cuts[k];
        file f = {data, n, 0, 0, 0, 0, 0};
        gguflint_ctx *ctx = open_over(&f, 64, 0, GGUFLINT_OK);
        run_as_local(ctx, data, n);
    }
    free(data);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_one_read_when_it_fits),
            cmocka_unit_test(test_geometric_growth),
            cmocka_unit_test(test_only_the_padding),
            cmocka_unit_test(test_cap_and_failures),
            cmocka_unit_test(test_truncated_file_same_as_local),
        })
