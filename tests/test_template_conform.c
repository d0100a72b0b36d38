/* test_template_conform.c - the template conformance checks, each with a
 * triggering file and a clean one, the exact rule id and offset asserted:
 * special tokens emitted but missing from the vocabulary (GG740), a chat
 * vocabulary without a template (GG741), BOS from the template and from
 * add_bos_token (GG742), templates that never close a turn (GG743), and
 * the syntax errors a template can be rejected for statically (GG731:
 * brackets, empty or unfinished expressions, two operands in a row, a for
 * without a variable) next to valid look-alikes that must stay silent; the
 * same template across the files of one model (GG744) through
 * gguflint_check_family and through the command line, and the model-name
 * stems that group those files. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "expect.h"
#include "gguf_builder.h"
#include "gguflint.h"

#define KEY "tokenizer.chat_template"

static const char *const chatml_vocab[] = {"<unk>",      "<s>", "</s>", "<|im_start|>",
                                           "<|im_end|>", "a",   "b",    "user"};
enum { ID_BOS = 1, ID_EOS = 2, ID_IM_END = 4 };

/* A file with a vocabulary, the special ids, add_bos_token (0/1, or -1 for
 * none) and a template (NULL for none). *tpl_off gets the template value's
 * offset, *tok_off the offset of the tokens array's element `elem`. */
static uint8_t *vocab_file(const char *const *vocab, size_t n, int add_bos, const char *tpl,
                           size_t *len, size_t *tpl_off)
{
    gb *b = gb_new(3);
    assert_non_null(b);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "tokenizer.ggml.model", "llama");
    gb_kv_arr_str(b, "tokenizer.ggml.tokens", vocab, n);
    gb_kv_u32(b, "tokenizer.ggml.bos_token_id", ID_BOS);
    gb_kv_u32(b, "tokenizer.ggml.eos_token_id", ID_EOS);
    if (add_bos >= 0)
        gb_kv_bool(b, "tokenizer.ggml.add_bos_token", (uint8_t)add_bos);
    if (tpl) {
        gb_kv_str(b, KEY, tpl);
        if (tpl_off)
            *tpl_off = gb_last(b)->value;
    }
    uint8_t *p = ex_finish(b, len);
    return p;
}

/* A finding of `id` at `off` whose message holds `needle` (any, if NULL). */
static const gguflint_finding *find_at(const gguflint_ctx *ctx, const char *id, uint64_t off,
                                       const char *needle)
{
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        if (strcmp(ex_id(f), id) == 0 && f->offset == off &&
            (!needle || strstr(f->message, needle)))
            return f;
    }
    return NULL;
}

/* `id` at offset `off` (its message holding `needle` if non-NULL), or, with
 * off == UINT64_MAX, no finding of `id` at all. */
static void check(const char *tpl, int add_bos, const char *id, uint64_t off, const char *needle,
                  const char *where)
{
    size_t len, tpl_off = 0;
    uint8_t *p = vocab_file(chatml_vocab, sizeof chatml_vocab / sizeof chatml_vocab[0], add_bos,
                            tpl, &len, &tpl_off);
    gguflint_ctx *ctx = ex_lint(p, len);
    bool ok;
    if (off == UINT64_MAX) {
        ok = ex_count(ctx, id) == 0;
    } else {
        ok = find_at(ctx, id, off ? off : tpl_off, needle) != NULL;
    }
    if (!ok) {
        print_message("%s: %s %s for: %s\n", where, off == UINT64_MAX ? "unexpected" : "missing",
                      id, tpl ? tpl : "(no template)");
        ex_print_findings(NULL, ctx);
    }
    gguflint_free(ctx);
    free(p);
    if (!ok)
        fail_msg("%s: %s", where, id);
}
#define AT_TEMPLATE 0
#define NONE UINT64_MAX
#define CHECK(tpl, bos, id, off, needle) check(tpl, bos, id, off, needle, __func__)

static void test_GG740_token_not_in_vocab(void **state)
{
    CHECK("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
          "<|assistant|>",
          -1, "GG740", AT_TEMPLATE, "<|assistant|>");
    CHECK("{% for m in messages %}{{ '<|start_header_id|>' + m.role + '<|end_header_id|>' }}"
          "{{ m.content }}<|im_end|>{% endfor %}",
          -1, "GG740", AT_TEMPLATE, "<|start_header_id|>");
    CHECK("\n\n  <|system|>{{ x }}<|im_end|>", -1, "GG740", AT_TEMPLATE,
          "template line 3, column 3");
    /* every token in the vocabulary; literals given to calls or compared are not output */
    CHECK("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content.split('<|think|>')[-1] }}"
          "{% if '<|tier|>' in m.content %}x{% endif %}{{ m.content|replace('<|x|>', '') }}"
          "<|im_end|>\n{% endfor %}",
          -1, "GG740", NONE, NULL);
    /* a token split by a value is not one token */
    CHECK("<|{{ m.role }}|>{{ m.content }}<|im_end|>", -1, "GG740", NONE, NULL);
}

static void test_GG741_template_missing(void **state)
{
    size_t len;
    uint8_t *p = vocab_file(chatml_vocab, sizeof chatml_vocab / sizeof chatml_vocab[0], -1, NULL,
                            &len, NULL);
    gguflint_ctx *ctx = ex_lint(p, len);
    const gguflint_finding *f = ex_find(ctx, "GG741");
    assert_non_null(f);
    assert_non_null(strstr(f->message, "<|im_start|> (id 3)"));
    /* at the token's element in tokenizer.ggml.tokens */
    assert_int_equal(memcmp(p + f->offset + 8, "<|im_start|>", 12), 0);
    gguflint_free(ctx);
    free(p);
    /* with a template, or without chat tokens: silent */
    CHECK("{% for m in messages %}<|im_start|>{{ m.content }}<|im_end|>{% endfor %}", -1, "GG741",
          NONE, NULL);
    static const char *const plain[] = {"<unk>", "<s>", "</s>", "a", "b"};
    p = vocab_file(plain, 5, -1, NULL, &len, NULL);
    ctx = ex_lint(p, len);
    assert_int_equal(ex_count(ctx, "GG741"), 0);
    gguflint_free(ctx);
    free(p);
}

static void test_GG742_double_bos(void **state)
{
    const char *tpl = "{{- bos_token }}{% for m in messages %}<|im_start|>{{ m.content }}<|im_end|>"
                      "{% endfor %}";
    CHECK(tpl, 1, "GG742", AT_TEMPLATE, "{{ bos_token }}");
    CHECK(tpl, 0, "GG742", NONE, NULL);
    CHECK(tpl, -1, "GG742", NONE, NULL);
    /* the BOS token's text, written out */
    CHECK("<s>{% for m in messages %}<|im_start|>{{ m.content }}<|im_end|>{% endfor %}", 1, "GG742",
          AT_TEMPLATE, "<s>");
    CHECK("{% for m in messages %}<|im_start|>{{ m.content }}<|im_end|>{% endfor %}", 1, "GG742",
          NONE, NULL);
}

static void test_GG743_no_eos(void **state)
{
    CHECK("{% for m in messages %}<|im_start|>{{ m.role }}: {{ m.content }}\n{% endfor %}", -1,
          "GG743", AT_TEMPLATE, "</s>");
    CHECK("{% for m in messages %}{{ m.content + eos_token }}{% endfor %}", -1, "GG743", NONE,
          NULL);
    CHECK("{% for m in messages %}<|im_start|>{{ m.content }}<|im_end|>{% endfor %}", -1, "GG743",
          NONE, NULL);
    CHECK("{% for m in messages %}{{ m.content }}</s>{% endfor %}", -1, "GG743", NONE, NULL);
}

static const char *const static_syntax_bad[] = {
    "{{ a) }}",
    "{{ [1, 2) }}",
    "{{ (a }}",
    "{{ }}",
    "{{ -}}",
    "{{ a + }}",
    "{{ a | }}",
    "{{ a b }}",
    "{% if %}{% endif %}",
    "{% set x = %}",
    "{% for x in %}{% endfor %}",
    "{% for in xs %}{% endfor %}",
    "{% if x %}{% elif %}{% endif %}",
    "{% if x - %}{% endif %}",
};

/* Syntax errors Jinja's parser raises, found without rendering; their valid
 * look-alikes stay silent. */
static void test_GG731_static_syntax(void **state)
{
    for (size_t i = 0; i < sizeof static_syntax_bad / sizeof static_syntax_bad[0]; i++)
        CHECK(static_syntax_bad[i], -1, "GG731", AT_TEMPLATE, "Jinja rejects");
    static const char *const good[] = {
        "{{- a -}}{%- if x -%}y{%- endif -%}</s>",
        "{{ a -}}{{ a +}}</s>",
        "{{ 'a' 'b' }}{{ x is divisibleby 3 }}{{ a, }}{{ a if b }}{{ x is not none and y }}</s>",
        "{{ f(a=1, b=[1, (2, 3)], c={'k': 'v'}) }}{{ a[1:2] }}{{ a.b.c() }}</s>",
        "{% for k, v in d|items if v %}{{ k }}{% endfor %}{% set x, y = 1, 2 %}</s>",
        "{{ x is sameas false }}{{ loop.cycle('a', 'b') }}{{ -1 }}{{ not x }}</s>",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        CHECK(good[i], -1, "GG731", NONE, NULL);
}

/* ---- GG744: the files of one model given together ---- */

static const char *const TPL_A =
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}";
static const char *const TPL_B =
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if '<|tier2|>' in messages[0].content %}x{% endif %}";

static void test_GG744_family(void **state)
{
    const char *tpls[4] = {TPL_A, TPL_B, TPL_A, TPL_A};
    uint8_t *p[4];
    size_t len[4], off[4];
    gguflint_ctx *ctx[4];
    for (int i = 0; i < 4; i++) {
        p[i] = vocab_file(chatml_vocab, sizeof chatml_vocab / sizeof chatml_vocab[0], -1, tpls[i],
                          &len[i], &off[i]);
        ctx[i] = ex_lint_opt(p[i], len[i], NULL, i == 0 ? "M-Q8_0.gguf" : "M-Q4_K_M.gguf");
    }
    /* three files: the odd one out is reported, at its template, naming the
     * first difference (line 2, where B's extra tag starts after the loop) */
    assert_int_equal(gguflint_check_family(ctx, 3), GGUFLINT_OK);
    assert_int_equal(ex_count(ctx[0], "GG744"), 0);
    assert_int_equal(ex_count(ctx[2], "GG744"), 0);
    const gguflint_finding *f = ex_find(ctx[1], "GG744");
    if (!f)
        ex_print_findings("ctx[1]", ctx[1]);
    assert_non_null(f);
    assert_int_equal(f->offset, off[1]);
    assert_non_null(strstr(f->message, "2 of the 3 files"));
    assert_non_null(strstr(f->message, "M-Q8_0.gguf"));
    assert_non_null(strstr(f->message, "line 3, column 13"));
    /* the same template everywhere: silent */
    gguflint_ctx *same[2] = {ctx[0], ctx[3]};
    assert_int_equal(gguflint_check_family(same, 2), GGUFLINT_OK);
    assert_int_equal(ex_count(ctx[3], "GG744"), 0);
    /* one file, none, NULL entries, a context that did not run */
    assert_int_equal(gguflint_check_family(ctx, 1), GGUFLINT_OK);
    assert_int_equal(gguflint_check_family(NULL, 0), GGUFLINT_OK);
    assert_int_equal(gguflint_check_family(NULL, 1), GGUFLINT_E_ARG);
    gguflint_ctx *fresh = gguflint_new(NULL);
    assert_non_null(fresh);
    assert_int_equal(gguflint_set_buffer(fresh, p[0], len[0]), GGUFLINT_OK);
    gguflint_ctx *mixed[3] = {ctx[0], NULL, fresh};
    assert_int_equal(gguflint_check_family(mixed, 3), GGUFLINT_E_STATE);
    gguflint_free(fresh);
    for (int i = 0; i < 4; i++) {
        gguflint_free(ctx[i]);
        free(p[i]);
    }
}

static void test_model_stem(void **state)
{
    static const ex_str_case cases[] = {
        {"dir/Model-7B-Q4_K_M.gguf", "dir/Model-7B"},
        {"dir/Model-7B.Q8_0.gguf", "dir/Model-7B"},
        {"dir/Model-7B-Q4_K_M-00001-of-00003.gguf", "dir/Model-7B"},
        {"dir/Model-7B-00002-of-00003.gguf", "dir/Model-7B"},
        {"Q4_K_M/Model-7B-f16.gguf", "Q4_K_M/Model-7B"},
        {"dir/Model-7B.gguf", ""},
        {"dir/Model-7B-Q4_K_M.bin", ""},
    };
    char buf[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = gguflint_model_stem(cases[i].in, buf, sizeof buf);
        if (n != strlen(cases[i].want) || (n && strcmp(buf, cases[i].want) != 0))
            fail_msg("%s: stem '%s' (%zu), expected '%s'", cases[i].in, n ? buf : "", n,
                     cases[i].want);
    }
    /* the length alone, and a buffer too small: nothing written */
    assert_int_equal(gguflint_model_stem("a/M-Q8_0.gguf", NULL, 0), 3);
    buf[0] = 'x';
    assert_int_equal(gguflint_model_stem("a/M-Q8_0.gguf", buf, 3), 3);
    assert_int_equal(buf[0], 'x');
    assert_int_equal(gguflint_model_stem(NULL, buf, sizeof buf), 0);
}

/* Through the command line: the quantisations of one model in one
 * directory are compared, another model's file is not. */
static void write_file(const char *dir, const char *name, const uint8_t *p, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void test_GG744_cli(void **state)
{
    char dir[] = "/tmp/gguflint-family-XXXXXX";
    assert_non_null(mkdtemp(dir));
    static const char *const names[4] = {"Model-Q8_0.gguf", "Model-Q4_K_M.gguf",
                                         "Model-Q5_K_M.gguf", "Other-Q4_K_M.gguf"};
    const char *tpls[4] = {TPL_A, TPL_B, TPL_A, TPL_B};
    for (size_t i = 0; i < 4; i++) {
        size_t len;
        uint8_t *p = vocab_file(chatml_vocab, sizeof chatml_vocab / sizeof chatml_vocab[0], -1,
                                tpls[i], &len, NULL);
        write_file(dir, names[i], p, len);
        free(p);
    }
    char cmd[4096];
    for (int jobs = 1; jobs <= 2; jobs++) {
        snprintf(cmd, sizeof cmd,
                 "'%s' --select GG744 --fail-on warning --quiet -j %d '%s/Model-Q8_0.gguf' "
                 "'%s/Other-Q4_K_M.gguf' "
                 "'%s/Model-Q4_K_M.gguf' '%s/Model-Q5_K_M.gguf' 2>&1",
                 GGUFLINT_CLI, jobs, dir, dir, dir, dir);
        FILE *f = popen(cmd, "r");
        assert_non_null(f);
        char out[8192];
        size_t n = fread(out, 1, sizeof out - 1, f);
        out[n] = '\0';
        int ws = pclose(f);
        size_t hits = 0;
        for (const char *q = out; (q = strstr(q, "GG744")) != NULL; q++)
            hits++;
        const char *line = strstr(out, "Model-Q4_K_M.gguf");
        bool ok = ws != -1 && WEXITSTATUS(ws) == 1 && hits == 1 && line && strstr(line, "GG744") &&
                  !strstr(out, "Other-Q4_K_M.gguf:");
        if (!ok)
            print_message("-j %d: exit %d, output:\n%s\n", jobs, WEXITSTATUS(ws), out);
        assert_true(ok);
    }
    for (size_t i = 0; i < 4; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_GG740_token_not_in_vocab),
            cmocka_unit_test(test_GG741_template_missing),
            cmocka_unit_test(test_GG742_double_bos),
            cmocka_unit_test(test_GG743_no_eos),
            cmocka_unit_test(test_GG731_static_syntax),
            cmocka_unit_test(test_GG744_family),
            cmocka_unit_test(test_model_stem),
            cmocka_unit_test(test_GG744_cli),
        })
