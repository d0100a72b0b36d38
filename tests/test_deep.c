/* test_deep.c - the --deep data scan (check_data.c): NaN/Inf values in float
 * tensors, NaN/Inf block scales in quantized tensors, all-zero tensors,
 * padding between tensors; the same findings from a caller's buffer and from
 * a file (pread), and whatever the number of threads; each data byte read
 * once however many tensor infos alias it. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "expect.h"

#include "core/internal.h" /* ctx->data_read */
#include "gguf_builder.h"
#include "gguflint.h"

typedef struct tdesc {
    const char *name;
    uint32_t type;
    uint64_t ne0, ne1;
    void (*fill)(uint8_t *data, size_t n); /* NULL: leave zero */
} tdesc;

static void fill_ones(uint8_t *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        d[i] = (uint8_t)(0x11 + i % 7);
}

static void fill_f16_inf_nan(uint8_t *d, size_t n)
{
    fill_ones(d, n);
    d[10] = 0x00, d[11] = 0x7C; /* element 5: +Inf */
    d[20] = 0x01, d[21] = 0x7E; /* element 10: NaN */
}

static void fill_f32_nan(uint8_t *d, size_t n)
{
    memset(d, 0, n);
    float one = 1.0f;
    for (size_t i = 0; i + 4 <= n; i += 4)
        memcpy(d + i, &one, 4);
    uint32_t nan = 0x7FC00001u;
    memcpy(d + 4 * 7, &nan, 4); /* element 7 */
}

static void fill_q8_0_bad_scale(uint8_t *d, size_t n)
{
    fill_ones(d, n);
    for (size_t b = 0; b + 34 <= n; b += 34)
        d[b] = 0x00, d[b + 1] = 0x3C;       /* d = 1.0 */
    d[34 * 2] = 0x00, d[34 * 2 + 1] = 0x7C; /* block 2: +Inf scale */
}

static void fill_mxfp4_nan(uint8_t *d, size_t n)
{
    fill_ones(d, n);
    d[17 * 3] = 0xFF; /* block 3: E8M0 NaN */
}

static void fill_f32_ok(uint8_t *d, size_t n)
{
    float v = 0.5f;
    for (size_t i = 0; i + 4 <= n; i += 4)
        memcpy(d + i, &v, 4);
}

/* A v3 file with the tensors laid out contiguously, padded to 32. */
static uint8_t *build(const tdesc *ts, size_t nt, size_t *len, uint64_t *data_off)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "test");
    uint64_t off = 0, offs[16];
    for (size_t i = 0; i < nt; i++) {
        uint64_t ne[2] = {ts[i].ne0, ts[i].ne1};
        offs[i] = off;
        gb_tensor(b, ts[i].name, 2, ne, ts[i].type, off);
        off = gb_align_up(off + gb_nbytes(ts[i].type, 2, ne), 32);
    }
    gb_pad_to(b, 32);
    *data_off = gb_offset(b);
    for (size_t i = 0; i < nt; i++) {
        uint64_t ne[2] = {ts[i].ne0, ts[i].ne1};
        size_t n = (size_t)gb_nbytes(ts[i].type, 2, ne);
        uint8_t *tmp = calloc(1, n);
        if (ts[i].fill)
            ts[i].fill(tmp, n);
        gb_bytes(b, tmp, n);
        free(tmp);
        gb_pad_to(b, 32);
        (void)offs;
    }
    uint8_t *buf = gb_finish(b, len);
    gb_free(b);
    return buf;
}

static const tdesc model[] = {
    {"a.f16", 1, 32, 2, fill_f16_inf_nan},     /* GG310 */
    {"b.f32", 0, 16, 1, fill_f32_nan},         /* GG310 */
    {"c.q8_0", 8, 32, 4, fill_q8_0_bad_scale}, /* GG311 */
    {"d.mxfp4", 39, 32, 5, fill_mxfp4_nan},    /* GG311 */
    {"e.zero", 0, 8, 2, NULL},                 /* GG312 */
    {"f.ok", 0, 8, 2, fill_f32_ok},            /* clean */
};

typedef struct seen {
    char ids[32][8];
    uint64_t offs[32];
    char msgs[32][256];
    size_t n;
} seen;

/* The same findings, in the same order, with the same messages. */
static void same_seen(const seen *t, const seen *s)
{
    assert_int_equal(t->n, s->n);
    for (size_t i = 0; i < s->n; i++) {
        assert_string_equal(t->ids[i], s->ids[i]);
        assert_int_equal(t->offs[i], s->offs[i]);
        assert_string_equal(t->msgs[i], s->msgs[i]);
    }
}

/* buf written to a new file named after the mkstemp template `path`. */
static void write_temp(char *path, const uint8_t *buf, size_t len)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    close(fd);
}

static void collect(gguflint_ctx *ctx, seen *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < gguflint_finding_count(ctx) && s->n < 32; i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        snprintf(s->ids[s->n], sizeof s->ids[0], "%s", gguflint_rule((size_t)f->rule)->id);
        s->offs[s->n] = f->offset;
        snprintf(s->msgs[s->n], sizeof s->msgs[0], "%s", f->message);
        s->n++;
    }
}

static void lint(const uint8_t *buf, size_t len, const char *file, uint32_t jobs, seen *s)
{
    gguflint_options *opt = gguflint_options_new();
    assert_non_null(opt);
    /* the data checks on files that are not complete models */
    gguflint_options_clear(opt);
    gguflint_options_select(opt, "container,kv,tensor,data", true, NULL, 0);
    gguflint_options_set_deep(opt, true);
    gguflint_options_set_deep_jobs(opt, jobs);
    gguflint_ctx *ctx = gguflint_new(opt);
    assert_non_null(ctx);
    if (file)
        assert_int_equal(gguflint_open_file(ctx, file), GGUFLINT_OK);
    else
        assert_int_equal(gguflint_set_buffer(ctx, buf, len), GGUFLINT_OK);
    assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
    collect(ctx, s);
    gguflint_free(ctx);
    gguflint_options_free(opt);
}

static bool has(const seen *s, const char *id, uint64_t off, const char *needle)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->ids[i], id) == 0 && s->offs[i] == off &&
            (!needle || strstr(s->msgs[i], needle)))
            return true;
    for (size_t i = 0; i < s->n; i++)
        fprintf(stderr, "  have %s at 0x%llx: %s\n", s->ids[i], (unsigned long long)s->offs[i],
                s->msgs[i]);
    return false;
}

static void test_deep_findings(void **state)
{
    size_t len;
    uint64_t d;
    uint8_t *buf = build(model, 6, &len, &d);
    assert_non_null(buf);
    seen s;
    lint(buf, len, NULL, 1, &s);
    /* offsets: data start + tensor offset (64-byte f16, 64-byte f32 padded ...) */
    assert_true(has(&s, "GG310", d + 0, "1 NaN and 1 Inf values; the first at element 5"));
    assert_true(has(&s, "GG310", d + 128, "1 NaN and 0 Inf values; the first at element 7"));
    assert_true(has(&s, "GG311", d + 192, "0 NaN and 1 Inf block scales; the first at block 2"));
    assert_true(
        has(&s, "GG311", d + 192 + 160, "1 NaN and 0 Inf block scales; the first at block 3"));
    assert_true(has(&s, "GG312", d + 192 + 160 + 96, "entirely zero"));
    assert_int_equal(s.n, 5); /* the clean tensor adds nothing */

    /* same through a file (pread) and with threads */
    char path[] = "deep-XXXXXX";
    write_temp(path, buf, len);
    for (uint32_t jobs = 1; jobs <= 4; jobs++) {
        seen t;
        lint(NULL, 0, path, jobs, &t);
        same_seen(&t, &s);
    }
    unlink(path);
    free(buf);
}

static void test_deep_off_by_default(void **state)
{
    size_t len;
    uint64_t d;
    uint8_t *buf = build(model, 6, &len, &d);
    gguflint_options *opt = gguflint_options_new();
    assert_non_null(opt);
    gguflint_options_clear(opt);
    gguflint_options_select(opt, "container,kv,tensor,data", true, NULL, 0);
    gguflint_ctx *ctx = gguflint_new(opt);
    assert_int_equal(gguflint_set_buffer(ctx, buf, len), GGUFLINT_OK);
    assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
    assert_int_equal(gguflint_finding_count(ctx), 0);
    gguflint_free(ctx);
    free(buf);
    gguflint_options_free(opt);
}

static void test_deep_clean_model(void **state)
{
    static const tdesc ok[] = {{"x", 0, 8, 2, fill_f32_ok}, {"y", 8, 32, 2, fill_q8_0_bad_scale}};
    size_t len;
    uint64_t d;
    uint8_t *buf = build(ok, 1, &len, &d);
    seen s;
    lint(buf, len, NULL, 2, &s);
    assert_int_equal(s.n, 0);
    free(buf);
}

/* n F32 tensors of `floats` elements at offsets k * step (step 0: all at
 * offset 0, aliases; step < 0: the same offsets listed last first), over a
 * region of 1.0f with a NaN at element 7. */
static uint8_t *aliased(size_t n, uint64_t floats, int64_t step, size_t *len, uint64_t *data)
{
    uint64_t up = step < 0 ? (uint64_t)-step : (uint64_t)step;
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "test");
    char name[32];
    for (size_t k = 0; k < n; k++) {
        uint64_t ne[1] = {floats};
        snprintf(name, sizeof name, "t%zu", k);
        gb_tensor(b, name, 1, ne, GB_F32, (step < 0 ? n - 1 - k : k) * up);
    }
    gb_pad_to(b, 32);
    *data = 4 * floats + (n - 1) * up;
    uint8_t *d = calloc(1, (size_t)*data);
    fill_f32_nan(d, (size_t)*data);
    gb_bytes(b, d, (size_t)*data);
    free(d);
    gb_pad_to(b, 32);
    return ex_finish(b, len);
}

static gguflint_ctx *lint_deep(const uint8_t *buf, size_t len, uint32_t jobs)
{
    gguflint_options *opt = ex_options(NULL);
    gguflint_options_set_deep(opt, true);
    gguflint_options_set_deep_jobs(opt, jobs);
    gguflint_ctx *ctx = ex_lint_opt(buf, len, opt, NULL);
    gguflint_options_free(opt);
    return ctx;
}

/* 64 infos over one 64 KiB region: read once (not 64 times), and every alias
 * reports the NaN of the region as if it had been scanned itself. */
static void test_deep_aliases_read_once(void **state)
{
    size_t len;
    uint64_t data;
    uint8_t *buf = aliased(64, 16384, 0, &len, &data);
    for (uint32_t jobs = 1; jobs <= 4; jobs += 3) {
        gguflint_ctx *ctx = lint_deep(buf, len, jobs);
        print_message("aliases, -j%u: %llu of %llu data bytes read\n", jobs,
                      (unsigned long long)ctx->data_read, (unsigned long long)data);
        assert_true(ctx->data_read <= data);
        assert_int_equal(ex_count(ctx, "GG310"), 64);
        for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
            const gguflint_finding *f = gguflint_finding_get(ctx, i);
            if (strcmp(gguflint_rule((size_t)f->rule)->id, "GG310") == 0)
                assert_non_null(strstr(f->message, "the first at element 7"));
        }
        gguflint_free(ctx);
    }
    free(buf);
}

/* A staircase: 64 tensors of 64 KiB, each 32 bytes after the one before:
 * 64 x 64 KiB claimed over 66 KiB of data, read once. Only the first tensor
 * holds the NaN at its element 7; the others do not report it again and make
 * no all-zero claim about bytes they did not scan. */
static void test_deep_staircase_read_once(void **state)
{
    /* in offset order, and listed last first (the plan must sort it) */
    for (int64_t step = 32; step >= -32; step -= 64) {
        size_t len;
        uint64_t data;
        uint8_t *buf = aliased(64, 16384, step, &len, &data);
        gguflint_ctx *ctx = lint_deep(buf, len, 2);
        print_message("staircase: %llu of %llu data bytes read\n",
                      (unsigned long long)ctx->data_read, (unsigned long long)data);
        assert_true(ctx->data_read <= data);
        assert_int_equal(ex_count(ctx, "GG310"), 1);
        assert_int_equal(ex_count(ctx, "GG312"), 0);
        assert_true(ex_count(ctx, "GG217") > 0); /* the overlap itself is the error */
        gguflint_free(ctx);
        free(buf);
    }
}

/* Big tensors are cut into pieces that threads take in turn (check_data.c,
 * DEEP_PIECE_BYTES = 4 MiB): counts add up over pieces, the first bad
 * element is the global first whichever thread found it, a tensor whose only
 * non-zero bytes are in its last piece is not all zero, and every thread
 * count and both inputs agree. */
static void fill_big_f16(uint8_t *d, size_t n)
{
    fill_ones(d, n);
    /* NaN in the second piece (element 2 500 000 = byte 5 000 000), Inf in
     * the third and the last */
    d[5000000] = 0x01, d[5000001] = 0x7E;
    d[9000002] = 0x00, d[9000003] = 0xFC;
    d[n - 2] = 0x00, d[n - 1] = 0x7C;
}

static void fill_zero_but_end(uint8_t *d, size_t n)
{
    d[n - 3] = 0x01;
}

static void fill_q4_0_last_block(uint8_t *d, size_t n)
{
    fill_ones(d, n);
    for (size_t b = 0; b + 18 <= n; b += 18)
        d[b] = 0x00, d[b + 1] = 0x3C;
    d[n - 18] = 0x00, d[n - 17] = 0x7E; /* the last block: NaN scale */
}

static void test_deep_pieces(void **state)
{
    static const tdesc big[] = {
        {"big.f16", 1, 4096, 1280, fill_big_f16},       /* 10 MiB: three pieces */
        {"tail.f32", 0, 1024, 2300, fill_zero_but_end}, /* 9.2 MB */
        {"q.q4_0", 2, 4096, 700, fill_q4_0_last_block}, /* 1.6 MB */
        {"zero.f32", 0, 1024, 1100, NULL},              /* 4.4 MB, all zero */
    };
    size_t len;
    uint64_t d;
    uint8_t *buf = build(big, 4, &len, &d);
    assert_non_null(buf);
    seen s;
    lint(buf, len, NULL, 1, &s);
    assert_true(has(&s, "GG310", d, "1 NaN and 2 Inf values; the first at element 2500000"));
    assert_false(has(&s, "GG312", d + 10485760, NULL));
    assert_true(has(&s, "GG311", d + 10485760 + 9420800,
                    "1 NaN and 0 Inf block scales; the first at block 89599"));
    assert_true(has(&s, "GG312", d + 10485760 + 9420800 + 1612800, "entirely zero"));
    char path[] = "deep-pieces-XXXXXX";
    write_temp(path, buf, len);
    for (uint32_t jobs = 1; jobs <= 5; jobs++)
        for (int from_file = 0; from_file < 2; from_file++) {
            seen t;
            lint(from_file ? NULL : buf, len, from_file ? path : NULL, jobs, &t);
            same_seen(&t, &s);
        }
    unlink(path);
    free(buf);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_deep_findings),
            cmocka_unit_test(test_deep_pieces),
            cmocka_unit_test(test_deep_off_by_default),
            cmocka_unit_test(test_deep_clean_model),
            cmocka_unit_test(test_deep_aliases_read_once),
            cmocka_unit_test(test_deep_staircase_read_once),
        })
