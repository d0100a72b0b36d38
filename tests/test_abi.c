/* test_abi.c - the struct_size convention of the structs a caller fills
 * (gguflint.h, docs/ABI.md): a size below the first published layout is
 * GGUFLINT_E_ARG, a larger one (a caller built against a newer header) is
 * accepted with only the known prefix read or written, and the INIT macros
 * set it. Also the one error convention's converted calls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gguf_builder.h"
#include "gguflint.h"

/* What a caller compiled against a later header would pass: the struct of
 * today with fields appended. */
typedef struct newer_reader {
    gguflint_reader r;
    uint64_t added_later;
} newer_reader;

typedef struct newer_arch_info {
    gguflint_arch_info a;
    const char *added_later;
} newer_arch_info;

typedef struct mem {
    const uint8_t *buf;
    size_t len;
    int closes;
} mem;

static int mem_read_at(void *user, uint64_t off, void *buf, size_t len, char *err, size_t cap)
{
    (void)err;
    (void)cap;
    const mem *m = user;
    memcpy(buf, m->buf + off, len);
    return GGUFLINT_OK;
}

static void mem_close(void *user)
{
    ((mem *)user)->closes++;
}

static void test_reader_init(void **state)
{
    (void)state;
    gguflint_reader r = GGUFLINT_READER_INIT;
    assert_int_equal(r.struct_size, sizeof(gguflint_reader));
    assert_int_equal(r.size, 0);
    assert_null(r.read_at);
    assert_null(r.close);
    assert_null(r.user);
    assert_int_equal(r.first_read, 0);
    assert_int_equal(r.max_prefix, 0);
    /* struct_size is the first field: it can be read whatever the layout */
    assert_int_equal(offsetof(gguflint_reader, struct_size), 0);
    gguflint_arch_info a = GGUFLINT_ARCH_INFO_INIT;
    assert_int_equal(a.struct_size, sizeof(gguflint_arch_info));
    assert_null(a.name);
    assert_int_equal(offsetof(gguflint_arch_info, struct_size), 0);
}

static int open_with(size_t struct_size, mem *m, newer_reader *nr)
{
    memset(nr, 0, sizeof *nr);
    nr->r.struct_size = struct_size;
    nr->r.size = m->len;
    nr->r.read_at = mem_read_at;
    nr->r.close = mem_close;
    nr->r.user = m;
    nr->added_later = UINT64_MAX; /* must not be read as anything */
    gguflint_ctx *ctx = gguflint_new(NULL);
    assert_non_null(ctx);
    int st = gguflint_open_reader(ctx, &nr->r);
    if (st == GGUFLINT_OK) {
        assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
        assert_true(gguflint_get_header(ctx)->metadata_complete);
    } else {
        /* the refusal is the context's status, with its text */
        assert_int_equal(gguflint_run(ctx), st);
        assert_non_null(strstr(gguflint_error_detail(ctx), "struct_size"));
    }
    gguflint_free(ctx);
    return st;
}

static void test_reader_struct_size(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = gb_small_model(&len);
    assert_non_null(buf);
    mem m = {buf, len, 0};
    newer_reader nr;
    /* the size this header has */
    assert_int_equal(open_with(sizeof(gguflint_reader), &m, &nr), GGUFLINT_OK);
    assert_int_equal(m.closes, 1);
    /* a newer caller: larger, its extra field ignored */
    assert_int_equal(open_with(sizeof(newer_reader), &m, &nr), GGUFLINT_OK);
    assert_int_equal(m.closes, 2);
    /* zero (a caller that did not initialise it) and one field short */
    assert_int_equal(open_with(0, &m, &nr), GGUFLINT_E_ARG);
    assert_int_equal(open_with(sizeof(gguflint_reader) - sizeof(uint64_t), &m, &nr),
                     GGUFLINT_E_ARG);
    assert_int_equal(m.closes, 2); /* a struct it cannot read is not touched */
    /* a NULL reader: the same status */
    gguflint_ctx *ctx = gguflint_new(NULL);
    assert_int_equal(gguflint_open_reader(ctx, NULL), GGUFLINT_E_ARG);
    gguflint_free(ctx);
    free(buf);
}

static void test_arch_info_struct_size(void **state)
{
    (void)state;
    assert_true(gguflint_arch_count() > 0);
    gguflint_arch_info a = GGUFLINT_ARCH_INFO_INIT;
    assert_int_equal(gguflint_arch_get(0, &a), GGUFLINT_OK);
    assert_non_null(a.name);
    assert_non_null(a.coverage);
    assert_int_equal(a.struct_size, sizeof a); /* kept */

    /* a newer caller: the known prefix written, its own field untouched */
    newer_arch_info n;
    memset(&n, 0, sizeof n);
    n.a.struct_size = sizeof n;
    n.added_later = "mine";
    assert_int_equal(gguflint_arch_get(0, &n.a), GGUFLINT_OK);
    assert_string_equal(n.a.name, a.name);
    assert_string_equal(n.added_later, "mine");
    assert_int_equal(n.a.struct_size, sizeof n);

    /* too small, zero, past the end, NULL: refused, nothing written */
    gguflint_arch_info s = GGUFLINT_ARCH_INFO_INIT;
    s.struct_size = offsetof(gguflint_arch_info, source_commit);
    assert_int_equal(gguflint_arch_get(0, &s), GGUFLINT_E_ARG);
    assert_null(s.name);
    s.struct_size = 0;
    assert_int_equal(gguflint_arch_get(0, &s), GGUFLINT_E_ARG);
    assert_null(s.name);
    assert_int_equal(gguflint_arch_get(gguflint_arch_count(), &a), GGUFLINT_E_ARG);
    assert_int_equal(gguflint_arch_get(0, NULL), GGUFLINT_E_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader_init),
        cmocka_unit_test(test_reader_struct_size),
        cmocka_unit_test(test_arch_info_struct_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
