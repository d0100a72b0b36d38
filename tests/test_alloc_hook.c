/* test_alloc_hook.c - gguflint_set_allocator: a counting allocator installed
 * before any other call sees every allocation of the library (the C
 * library's malloc, calloc, realloc, free, strdup and strndup are wrapped
 * with the linker's --wrap, so a library call that bypasses the hook is
 * counted) and gets every block back; a failing one makes calls return
 * GGUFLINT_E_NOMEM (constructors NULL), never crash, and leaks nothing. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gguf_builder.h"
#include "gguflint.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

/* Calls of the C library's allocator from any wrapped object (the library,
 * this file, the GGUF builder) while `watching`: the library's are bugs. */
static atomic_long bypass;
static atomic_int watching;

static void seen(void)
{
    if (atomic_load(&watching))
        atomic_fetch_add(&bypass, 1);
}

void *__wrap_malloc(size_t n)
{
    seen();
    return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
    seen();
    return __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
    seen();
    return __real_realloc(p, n);
}

void __wrap_free(void *p)
{
    if (p)
        seen();
    __real_free(p);
}

char *__wrap_strdup(const char *s)
{
    seen();
    return __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
    seen();
    return __real_strndup(s, n);
}

/* The counting allocator: a header before each block holds its size, so
 * the bytes live are known; `user` is the counter set. */
typedef struct counts {
    atomic_long allocs, reallocs, frees, live, live_bytes, bad_args;
    atomic_long fail_at; /* fail the allocation with this number (-1: never) */
    atomic_long failed;
} counts;

#define HDR 16

static int fail_now(counts *c)
{
    long n = atomic_fetch_add(&c->allocs, 1) + atomic_load(&c->reallocs);
    if (atomic_load(&c->fail_at) == n) {
        atomic_fetch_add(&c->failed, 1);
        return 1;
    }
    return 0;
}

static void *c_malloc(void *user, size_t size)
{
    counts *c = user;
    if (size == 0)
        atomic_fetch_add(&c->bad_args, 1);
    if (fail_now(c))
        return NULL;
    unsigned char *p = __real_malloc(HDR + size);
    if (!p)
        return NULL;
    memcpy(p, &size, sizeof size);
    atomic_fetch_add(&c->live, 1);
    atomic_fetch_add(&c->live_bytes, (long)size);
    return p + HDR;
}

static void *c_realloc(void *user, void *ptr, size_t size)
{
    counts *c = user;
    if (!ptr || size == 0)
        atomic_fetch_add(&c->bad_args, 1);
    long n = atomic_load(&c->allocs) + atomic_fetch_add(&c->reallocs, 1);
    if (atomic_load(&c->fail_at) == n) {
        atomic_fetch_add(&c->failed, 1);
        return NULL;
    }
    unsigned char *h = (unsigned char *)ptr - HDR;
    size_t old;
    memcpy(&old, h, sizeof old);
    unsigned char *p = __real_realloc(h, HDR + size);
    if (!p)
        return NULL;
    memcpy(p, &size, sizeof size);
    atomic_fetch_add(&c->live_bytes, (long)size - (long)old);
    return p + HDR;
}

static void c_free(void *user, void *ptr)
{
    counts *c = user;
    if (!ptr) {
        atomic_fetch_add(&c->bad_args, 1);
        return;
    }
    unsigned char *h = (unsigned char *)ptr - HDR;
    size_t old;
    memcpy(&old, h, sizeof old);
    atomic_fetch_add(&c->frees, 1);
    atomic_fetch_sub(&c->live, 1);
    atomic_fetch_sub(&c->live_bytes, (long)old);
    __real_free(h);
}

static void sink(void *user, const char *data, size_t len)
{
    (void)data;
    *(size_t *)user += len;
}

typedef struct mem_reader {
    const uint8_t *buf;
    size_t len;
} mem_reader;

static int mem_read_at(void *user, uint64_t off, void *buf, size_t len, char *err, size_t cap)
{
    (void)err;
    (void)cap;
    const mem_reader *m = user;
    memcpy(buf, m->buf + off, len);
    return GGUFLINT_OK;
}

/* One broad use of the library over buf: options, every input kind, a
 * run with --deep on two threads, a split-set check, the fingerprints,
 * every report format with its settings, the dump, the rule documents.
 * Returns the first failing status (GGUFLINT_E_NOMEM under a failing
 * allocator), having freed everything. */
static int exercise(const uint8_t *buf, size_t len)
{
    int first = GGUFLINT_OK;
#define NOTE(st)                                                                                   \
    do {                                                                                           \
        int st_ = (st);                                                                            \
        assert_true(st_ == GGUFLINT_OK || st_ == GGUFLINT_E_NOMEM);                                \
        if (first == GGUFLINT_OK)                                                                  \
            first = st_;                                                                           \
    } while (0)
    gguflint_options *opt = gguflint_options_new();
    if (!opt)
        return GGUFLINT_E_NOMEM;
    NOTE(gguflint_options_profile(opt, "security"));
    NOTE(gguflint_options_set_deep(opt, true));
    NOTE(gguflint_options_set_deep_jobs(opt, 2));
    gguflint_options *copy = gguflint_options_copy(opt);
    if (!copy)
        NOTE(GGUFLINT_E_NOMEM);
    gguflint_options_free(copy);

    gguflint_ctx *ctx[3] = {gguflint_new(opt), gguflint_new(opt), gguflint_new(NULL)};
    for (int i = 0; i < 3; i++)
        if (!ctx[i])
            NOTE(GGUFLINT_E_NOMEM);
    FILE *stream = fmemopen((void *)(uintptr_t)buf, len, "rb");
    mem_reader m = {buf, len};
    gguflint_reader r = GGUFLINT_READER_INIT;
    r.size = len;
    r.read_at = mem_read_at;
    r.user = &m;
    r.first_read = 64; /* several geometric reads */
    if (ctx[0]) {
        NOTE(gguflint_set_name(ctx[0], "model-00001-of-00002.gguf"));
        NOTE(gguflint_set_buffer(ctx[0], buf, len));
        NOTE(gguflint_run(ctx[0]));
    }
    if (ctx[1]) {
        NOTE(gguflint_set_name(ctx[1], "model-00002-of-00002.gguf"));
        NOTE(gguflint_open_reader(ctx[1], &r));
        NOTE(gguflint_run(ctx[1]));
    }
    if (ctx[2] && stream) {
        NOTE(gguflint_read_stream(ctx[2], stream, 1u << 20));
        NOTE(gguflint_run(ctx[2]));
    }
    if (stream)
        fclose(stream);
    if (ctx[0] && ctx[1] && first == GGUFLINT_OK) {
        NOTE(gguflint_check_set(ctx, 2));
        NOTE(gguflint_check_family(ctx, 2));
    }
    size_t out = 0;
    for (int f = GGUFLINT_FORMAT_TEXT; f <= GGUFLINT_FORMAT_CYCLONEDX; f++) {
        gguflint_report *rep = gguflint_report_new((gguflint_format)f, sink, &out);
        if (!rep) {
            NOTE(GGUFLINT_E_NOMEM);
            continue;
        }
        NOTE(gguflint_report_set(rep, GGUFLINT_REPORT_STATISTICS, 1));
        NOTE(gguflint_report_set_config(rep, "/repo/.gguflint.ini"));
        NOTE(gguflint_report_set_base(rep, "/repo"));
        NOTE(gguflint_report_set_help_uri(rep, "https://example.org/RULES.md"));
        for (int i = 0; i < 3; i++)
            if (ctx[i])
                gguflint_report_file(rep, "/repo/models/x.gguf", ctx[i], gguflint_run(ctx[i]));
        NOTE(gguflint_report_end(rep, true));
        gguflint_report_free(rep);
    }
    for (int i = 0; i < 3; i++) {
        if (ctx[i] && gguflint_run(ctx[i]) == GGUFLINT_OK) {
            gguflint_dump_ex(ctx[i], GGUFLINT_FORMAT_JSON, sink, &out, 0);
            gguflint_dump(ctx[i], GGUFLINT_FORMAT_TEXT, sink, &out);
        }
        gguflint_free(ctx[i]);
    }
    gguflint_rules_json(sink, &out);
    gguflint_options_free(opt);
    return first;
#undef NOTE
}

/* A model with a chat template and a split set's keys, so the template
 * analyser, the vocabulary and split checks allocate too. */
static uint8_t *model(size_t *len)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.name", "m");
    gb_kv_u16(b, "split.no", 0);
    gb_kv_u16(b, "split.count", 2);
    gb_kv_str(b, "tokenizer.chat_template",
              "{% for m in messages %}{{ '<|' + m['role'] + '|>' + m['content'] }}"
              "{% if loop.last %}{{ eos_token }}{% endif %}{% endfor %}");
    const char *toks[] = {"a", "b", "\xff", "a"};
    gb_kv_arr_str(b, "tokenizer.ggml.tokens", toks, 4);
    for (int i = 0; i < 40; i++) {
        char key[24];
        snprintf(key, sizeof key, "k.%d", i % 30); /* duplicates */
        gb_kv_u32(b, key, (uint32_t)i);
    }
    uint64_t ne[2] = {64, 4};
    gb_tensor(b, "token_embd.weight", 2, ne, 0, 0);
    gb_tensor(b, "output.weight", 2, ne, 1, 1024);
    gb_tensor(b, "output.weight", 2, ne, 1, 1024);
    uint8_t *buf = gb_finish(b, len);
    gb_free(b);
    return buf;
}

static counts cnt;

static void install(void)
{
    memset(&cnt, 0, sizeof cnt);
    atomic_store(&cnt.fail_at, -1);
    assert_int_equal(gguflint_set_allocator(c_malloc, c_realloc, c_free, &cnt), GGUFLINT_OK);
}

static void uninstall(void)
{
    assert_int_equal(gguflint_set_allocator(NULL, NULL, NULL, NULL), GGUFLINT_OK);
}

static void test_every_allocation_seen(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = model(&len);
    assert_non_null(buf);
    /* a first use builds the tables kept for the life of the process: from
     * the C library's allocator by design (gguflint.h, "Memory") */
    assert_int_equal(exercise(buf, len), GGUFLINT_OK);
    install();
    atomic_store(&bypass, 0);
    atomic_store(&watching, 1);
    int st = exercise(buf, len);
    atomic_store(&watching, 0);
    uninstall();
    assert_int_equal(st, GGUFLINT_OK);
    printf("hook: %ld allocations, %ld reallocations, %ld frees, %ld bypassing it\n",
           (long)cnt.allocs, (long)cnt.reallocs, (long)cnt.frees, (long)bypass);
    assert_true(cnt.allocs > 50);
    assert_true(cnt.reallocs > 0);
    assert_int_equal(bypass, 0);             /* every allocation went through the hook */
    assert_int_equal(cnt.live, 0);           /* every block came back */
    assert_int_equal(cnt.live_bytes, 0);     /* ... with the size it had */
    assert_int_equal(cnt.frees, cnt.allocs); /* one free per block */
    assert_int_equal(cnt.bad_args, 0);       /* never size 0, never NULL */
    free(buf);
}

static void test_failing_allocator(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = model(&len);
    assert_non_null(buf);
    long i = 0;
    for (;; i++) {
        install();
        atomic_store(&cnt.fail_at, i);
        int st = exercise(buf, len);
        uninstall();
        assert_int_equal(cnt.live, 0); /* nothing leaked on any failure path */
        if (!cnt.failed) {
            assert_int_equal(st, GGUFLINT_OK);
            break;
        }
        assert_true(st == GGUFLINT_E_NOMEM || st == GGUFLINT_OK);
        assert_true(i < 200000);
    }
    printf("hook: each of %ld allocations failed in turn: a clean status every time\n", i);
    free(buf);
}

static void test_report_nomem(void **state)
{
    (void)state;
    /* a report setter whose copy fails says so, and so does the end */
    size_t out = 0;
    install();
    gguflint_report *rep = gguflint_report_new(GGUFLINT_FORMAT_JSON, sink, &out);
    assert_non_null(rep);
    atomic_store(&cnt.fail_at, atomic_load(&cnt.allocs) + atomic_load(&cnt.reallocs));
    assert_int_equal(gguflint_report_set_config(rep, "cfg.ini"), GGUFLINT_E_NOMEM);
    atomic_store(&cnt.fail_at, -1);
    assert_int_equal(gguflint_report_set_base(rep, "/repo"), GGUFLINT_OK);
    assert_int_equal(gguflint_report_end(rep, true), GGUFLINT_E_NOMEM);
    gguflint_report_free(rep);
    /* the same without a failure */
    rep = gguflint_report_new(GGUFLINT_FORMAT_JSON, sink, &out);
    assert_non_null(rep);
    assert_int_equal(gguflint_report_set_config(rep, "cfg.ini"), GGUFLINT_OK);
    assert_int_equal(gguflint_report_end(rep, true), GGUFLINT_OK);
    gguflint_report_free(rep);
    uninstall();
    assert_int_equal(cnt.live, 0);
    assert_int_equal(gguflint_report_end(NULL, true), GGUFLINT_E_ARG);
    assert_int_equal(gguflint_report_set_config(NULL, "x"), GGUFLINT_E_ARG);
}

static void test_arguments(void **state)
{
    (void)state;
    /* some but not all functions: refused, the allocator in use unchanged */
    assert_int_equal(gguflint_set_allocator(c_malloc, NULL, c_free, &cnt), GGUFLINT_E_ARG);
    assert_int_equal(gguflint_set_allocator(NULL, c_realloc, NULL, &cnt), GGUFLINT_E_ARG);
    memset(&cnt, 0, sizeof cnt);
    gguflint_ctx *ctx = gguflint_new(NULL);
    assert_non_null(ctx);
    gguflint_free(ctx);
    assert_int_equal(cnt.allocs, 0); /* the C library's allocator served it */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_allocation_seen),
        cmocka_unit_test(test_failing_allocator),
        cmocka_unit_test(test_report_nomem),
        cmocka_unit_test(test_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
