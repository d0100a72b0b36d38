/* test_diff.c - `gguflint diff`: the bounded line diff (exact edits, the
 * budget on hostile texts), the comparison (src/cli/diff.c, on contexts run
 * from built buffers: a changed key with its values, a long value by
 * digest, a reshaped and a retyped tensor, the alignment, a template line,
 * identical files) and the command (exit 0 same, 1 different, 2 unreadable
 * or usage; text and JSON). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "diff.h"
#include "expect.h"
#include "gguf_builder.h"
#include "linediff.h"

static char dir[] = "/tmp/gguflint-diff-XXXXXX";
static char out[1 << 20];

EX_TMPDIR_FIXTURES(dir)

/* ---- the line diff ---- */

static line_diff ld(const char *a, const char *b)
{
    line_diff d;
    assert_true(line_diff_run((const uint8_t *)a, strlen(a), (const uint8_t *)b, strlen(b), &d));
    return d;
}

static void assert_op(const line_diff *d, size_t i, char op, size_t line, const char *text)
{
    assert_true(i < d->n);
    assert_int_equal(d->ops[i].op, op);
    assert_int_equal(d->ops[i].line, line);
    assert_int_equal(d->ops[i].len, strlen(text));
    assert_memory_equal(d->ops[i].text, text, strlen(text));
}

static void lines_exact(void **state)
{
    (void)state;
    line_diff d = ld("a\nb\nc\nd\n", "a\nB\nc\nd\ne");
    assert_int_equal(d.n, 3);
    assert_op(&d, 0, '-', 2, "b");
    assert_op(&d, 1, '+', 2, "B");
    assert_op(&d, 2, '+', 5, "e");
    assert_false(d.truncated);
    line_diff_free(&d);
    d = ld("same\ntext", "same\ntext");
    assert_int_equal(d.n, 0);
    line_diff_free(&d);
    d = ld("", "x\n");
    assert_int_equal(d.n, 1);
    assert_op(&d, 0, '+', 1, "x");
    line_diff_free(&d);
    d = ld("x\ny\n", "");
    assert_int_equal(d.removed, 2);
    assert_int_equal(d.added, 0);
    line_diff_free(&d);
    /* an insertion between equal lines is found as one line, not a block */
    d = ld("k\nk\nk\nk\n", "k\nk\nz\nk\nk\n");
    assert_int_equal(d.n, 1);
    assert_op(&d, 0, '+', 3, "z");
    line_diff_free(&d);
}

/* n distinct lines against the same lines reversed: about 2n edits, past
 * LINEDIFF_MAX_D, so the budget stops the search and the middle is shown
 * whole, quickly. */
static char *numbered(size_t n, bool reversed, size_t *len)
{
    char *s = malloc(n * 12 + 1);
    assert_non_null(s);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += (size_t)sprintf(s + k, "l%zu\n", reversed ? n - 1 - i : i);
    *len = k;
    return s;
}

static void lines_budget(void **state)
{
    (void)state;
    size_t na, nb, n = 200000;
    char *a = numbered(n, false, &na), *b = numbered(n, true, &nb);
    clock_t t0 = clock();
    line_diff d;
    assert_true(line_diff_run((uint8_t *)a, na, (uint8_t *)b, nb, &d));
    double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
    assert_true(d.truncated);
    /* the middle whole: everything but the one common middle line ("l99999"
     * is not common: reversed, the centre pair differs) */
    assert_int_equal(d.removed + d.added, d.n);
    assert_true(d.removed <= n && d.added <= n && d.removed >= n - 1);
    assert_true(s < 5.0);
    line_diff_free(&d);
    /* a long run of equal lines with one change is exact however long */
    memcpy(b, a, na);
    b[na / 2] = b[na / 2] == '1' ? '2' : '1';
    assert_true(line_diff_run((uint8_t *)a, na, (uint8_t *)b, na, &d));
    assert_false(d.truncated);
    assert_int_equal(d.removed, 1);
    assert_int_equal(d.added, 1);
    line_diff_free(&d);
    free(a);
    free(b);
}

/* ---- the comparison ---- */

typedef struct spec {
    const char *name;
    const char *tpl;
    uint32_t type;
    uint64_t ne0, ne1;
    uint32_t alignment;
    size_t tokens; /* tokens in tokenizer.ggml.tokens */
} spec;

static const spec base = {"m", "a\nb\nc\n", GB_F32, 8, 2, 32, 4};

static uint8_t *build(const spec *s, size_t *len)
{
    gb *b = gb_new(3);
    assert_non_null(b);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.name", s->name);
    gb_kv_u32(b, "general.alignment", s->alignment);
    gb_kv_str(b, "tokenizer.chat_template", s->tpl);
    const char *toks[8] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    gb_kv_arr_str(b, "tokenizer.ggml.tokens", toks, s->tokens);
    uint64_t ne[2] = {s->ne0, s->ne1};
    gb_tensor(b, "w", 2, ne, s->type, 0);
    gb_pad_to(b, s->alignment);
    gb_fill(b, 0x3c, (size_t)gb_nbytes(s->type, 2, ne));
    uint8_t *buf = gb_finish(b, len);
    gb_free(b);
    assert_non_null(buf);
    return buf;
}

typedef struct pair {
    uint8_t *ba, *bb;
    gguflint_ctx *a, *b;
    const char *pa, *pb;
    diff_side sa, sb;
    diff_result r;
} pair;

static void compare(pair *p, const spec *x, const spec *y)
{
    size_t la, lb;
    p->ba = build(x, &la);
    p->bb = build(y, &lb);
    p->a = ex_lint_opt(p->ba, la, NULL, NULL);
    p->b = ex_lint_opt(p->bb, lb, NULL, NULL);
    p->pa = "a.gguf";
    p->pb = "b.gguf";
    p->sa = (diff_side){&p->a, &p->pa, 1, NULL};
    p->sb = (diff_side){&p->b, &p->pb, 1, NULL};
    assert_true(diff_run(&p->sa, &p->sb, &p->r));
}

static void done(pair *p)
{
    diff_free(&p->r);
    gguflint_free(p->a);
    gguflint_free(p->b);
    free(p->ba);
    free(p->bb);
}

static bool view_is(gguflint_view v, const char *s)
{
    return v.len == strlen(s) && memcmp(v.ptr, s, v.len) == 0;
}

static void same_files(void **state)
{
    (void)state;
    pair p;
    compare(&p, &base, &base);
    assert_false(diff_any(&p.r));
    assert_int_equal(p.r.n_keys + p.r.n_tensors + p.r.n_header + p.r.n_templates, 0);
    done(&p);
}

static void changed_key(void **state)
{
    (void)state;
    spec s = base;
    s.name = "other";
    pair p;
    compare(&p, &base, &s);
    assert_true(diff_any(&p.r));
    assert_int_equal(p.r.n_keys, 1);
    assert_int_equal(p.r.keys_changed, 1);
    const diff_key *k = &p.r.keys[0];
    assert_int_equal(k->change, DIFF_CHANGED);
    assert_true(view_is(k->key, "general.name"));
    assert_true(view_is(k->a.kv->str, "m"));
    assert_true(view_is(k->b.kv->str, "other"));
    assert_false(k->a.summarised);
    assert_int_equal(p.r.n_tensors, 0);
    done(&p);
}

/* An array is summarised by the digest and length of its stored value. */
static void array_by_digest(void **state)
{
    (void)state;
    spec s = base;
    s.tokens = 5;
    pair p;
    compare(&p, &base, &s);
    assert_int_equal(p.r.n_keys, 1);
    const diff_key *k = &p.r.keys[0];
    assert_true(view_is(k->key, "tokenizer.ggml.tokens"));
    assert_true(k->a.summarised && k->b.summarised);
    /* element type u32, count u64, then 4 (or 5) strings of 8 + 1 bytes */
    assert_int_equal(k->a.bytes, 12 + 4 * 9);
    assert_int_equal(k->b.bytes, 12 + 5 * 9);
    assert_true(k->a.sha256[0] == '\0' || strlen(k->a.sha256) == 64);
    assert_true(k->a.sha256[0] == '\0' || strcmp(k->a.sha256, k->b.sha256) != 0);
    done(&p);
}

static void reshaped_retyped(void **state)
{
    (void)state;
    spec s = base;
    s.ne0 = 4;
    s.ne1 = 4;
    pair p;
    compare(&p, &base, &s);
    assert_int_equal(p.r.n_keys, 0);
    assert_int_equal(p.r.n_tensors, 1);
    assert_int_equal(p.r.tensors[0].change, DIFF_CHANGED);
    assert_int_equal(p.r.tensors[0].what, DIFF_T_SHAPE);
    assert_int_equal(p.r.tensors[0].a->ne[0], 8);
    assert_int_equal(p.r.tensors[0].b->ne[0], 4);
    done(&p);
    s = base;
    s.type = GB_F16;
    compare(&p, &base, &s);
    assert_int_equal(p.r.n_tensors, 1);
    assert_int_equal(p.r.tensors[0].what, DIFF_T_TYPE);
    assert_true(view_is(p.r.tensors[0].a->name, "w"));
    done(&p);
}

static void header_and_template(void **state)
{
    (void)state;
    spec s = base;
    s.alignment = 64;
    s.tpl = "a\nB\nc\n";
    pair p;
    compare(&p, &base, &s);
    /* general.alignment changed too, as a key */
    assert_int_equal(p.r.n_header, 1);
    assert_string_equal(p.r.header[0].field, "alignment");
    assert_int_equal(p.r.header[0].a, 32);
    assert_int_equal(p.r.header[0].b, 64);
    assert_int_equal(p.r.n_templates, 1);
    assert_true(view_is(p.r.templates[0].key, "tokenizer.chat_template"));
    const line_diff *l = &p.r.templates[0].lines;
    assert_int_equal(l->n, 2);
    assert_op(l, 0, '-', 2, "b");
    assert_op(l, 1, '+', 2, "B");
    done(&p);
}

/* ---- the command ---- */

static void write_model(const char *rel, const spec *s)
{
    size_t len;
    uint8_t *buf = build(s, &len);
    ex_write_file(dir, rel, buf, len);
    free(buf);
}

static void cli_exit_codes(void **state)
{
    (void)state;
    spec s = base;
    s.ne1 = 4;
    write_model("a.gguf", &base);
    write_model("a2.gguf", &base);
    write_model("b.gguf", &s);
    ex_cli_expect(GGUFLINT_CLI, dir, "", "diff a.gguf a2.gguf", 0, "the files are the same", out,
                  sizeof out);
    ex_cli_expect(GGUFLINT_CLI, dir, "", "diff --data a.gguf a2.gguf", 0, "(tensor data compared)",
                  out, sizeof out);
    ex_cli_expect(GGUFLINT_CLI, dir, "", "diff a.gguf b.gguf", 1,
                  "tensor reshaped: w: f32 [8, 2] -> f32 [8, 4]", out, sizeof out);
    ex_cli_expect(GGUFLINT_CLI, dir, "", "diff --format json a.gguf b.gguf", 1,
                  "\"tensors\":[{\"name\":\"w\",\"change\":\"changed\",\"what\":[\"shape\"]", out,
                  sizeof out);
    ex_cli_expect(GGUFLINT_CLI, dir, "", "diff a.gguf missing.gguf", 2, "missing.gguf", out,
                  sizeof out);
    ex_cli_expect(GGUFLINT_CLI, dir, "", "diff a.gguf", 2, "diff takes two files", out, sizeof out);
    ex_cli_expect(GGUFLINT_CLI, dir, "", "diff --format sarif a.gguf b.gguf", 2, "text or json",
                  out, sizeof out);
    ex_write_text(dir, "text.gguf", "not a model\n");
    ex_cli_expect(GGUFLINT_CLI, dir, "", "diff a.gguf text.gguf", 2, "not a GGUF file", out,
                  sizeof out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lines_exact),         cmocka_unit_test(lines_budget),
        cmocka_unit_test(same_files),          cmocka_unit_test(changed_key),
        cmocka_unit_test(array_by_digest),     cmocka_unit_test(reshaped_retyped),
        cmocka_unit_test(header_and_template), cmocka_unit_test(cli_exit_codes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
