/* test_bigfile.c - large and changing files. A sparse 200 GiB file with valid
 * metadata at the front lints clean while touching only its first pages
 * (peak RSS grows by far less than the file); a file that shrinks between
 * open and run is refused with an I/O status instead of faulting. Skips when
 * the file system cannot hold a sparse file that large. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "expect.h"

#include "gguf_builder.h"
#include "gguflint.h"

static long max_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Metadata of one F32 tensor [2^20, 51200] = 200 GiB, padded to 32. */
static uint8_t *big_metadata(size_t *len, uint64_t *data_bytes)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "general.alignment", 32);
    uint64_t ne[2] = {1ull << 20, 51200};
    gb_tensor(b, "token_embd.weight", 2, ne, GB_F32, 0);
    gb_pad_to(b, 32);
    *data_bytes = gb_nbytes(GB_F32, 2, ne);
    uint8_t *buf = gb_finish(b, len);
    gb_free(b);
    return buf;
}

static const char *write_sparse(const char *name, uint64_t total, const uint8_t *head,
                                size_t head_len)
{
    int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return NULL;
    bool ok = write(fd, head, head_len) == (ssize_t)head_len && ftruncate(fd, (off_t)total) == 0;
    close(fd);
    if (!ok) {
        unlink(name);
        return NULL;
    }
    return name;
}

static void test_sparse_200g(void **state)
{
    size_t len;
    uint64_t data_bytes;
    uint8_t *head = big_metadata(&len, &data_bytes);
    assert_non_null(head);
    assert_int_equal(data_bytes, 200ull << 30);
    const char *path = write_sparse("bigfile-200g.gguf", len + data_bytes, head, len);
    free(head);
    if (!path) {
        skip();
        return;
    }
    long before = max_rss_kb();
    /* the format checks: one tensor is not a complete llama model */
    gguflint_options *opt = gguflint_options_new();
    assert_non_null(opt);
    gguflint_options_clear(opt);
    gguflint_options_select(opt, "container,kv,tensor,data", true, NULL, 0);
    gguflint_ctx *ctx = gguflint_new(opt);
    assert_non_null(ctx);
    assert_int_equal(gguflint_open_file(ctx, path), GGUFLINT_OK);
    assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++)
        fprintf(stderr, "unexpected: %s\n", gguflint_finding_get(ctx, i)->message);
    assert_int_equal(gguflint_finding_count(ctx), 0);
    assert_int_equal(gguflint_get_header(ctx)->file_size, len + data_bytes);
    gguflint_free(ctx);
    long grown = max_rss_kb() - before;
    printf("200 GiB sparse file: peak RSS grew by %ld KiB\n", grown);
    assert_true(grown < 16 * 1024);
    unlink(path);
    gguflint_options_free(opt);
}

/* A mapped file (larger than SMALL_FILE_READ_BYTES) cut by another process
 * between open and run: an I/O status, never a SIGBUS. A small file is read
 * at open, so the run lints what was read, whatever happens to the file. */
static void test_shrinks_before_run(void **state)
{
    size_t len;
    uint8_t *buf = ex_small_model(&len);
    const char *path = write_sparse("shrinking.gguf", len + (1u << 20), buf, len);
    assert_non_null(path);
    gguflint_ctx *ctx = gguflint_new(NULL);
    assert_int_equal(gguflint_open_file(ctx, path), GGUFLINT_OK);
    assert_int_equal(truncate(path, 10), 0); /* another process cuts it */
    assert_int_equal(gguflint_run(ctx), GGUFLINT_E_IO);
    assert_non_null(strstr(gguflint_error_detail(ctx), "shrank"));
    assert_int_equal(gguflint_run(ctx), GGUFLINT_E_IO); /* sticky */
    gguflint_free(ctx);
    unlink(path);

    path = write_sparse("shrinking-small.gguf", len, buf, len);
    assert_non_null(path);
    ctx = gguflint_new(NULL);
    assert_int_equal(gguflint_open_file(ctx, path), GGUFLINT_OK);
    assert_int_equal(truncate(path, 10), 0);
    assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
    assert_int_equal(gguflint_get_header(ctx)->file_size, len);
    gguflint_free(ctx);
    unlink(path);
    free(buf);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_sparse_200g),
            cmocka_unit_test(test_shrinks_before_run),
        })
