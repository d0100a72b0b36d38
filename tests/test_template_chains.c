/* test_template_chains.c - what the template analyser rebuilds before it
 * checks: names accumulated in namespace() objects and lists (append,
 * extend, insert, list + list, list * n, aliases, loops over constants),
 * str.format replacement fields that walk attributes ('{0.gi_frame}',
 * '{0.__init__.__globals__[os]}', nested spec fields), and how findings say
 * it: the access chain that reached the gadget or sink
 * (lipsum.__globals__['os']) and the position as template line and column.
 * Each trigger asserts the exact rule at the value's offset and the words
 * of the message; each shape has a benign twin that stays silent. */
#define _POSIX_C_SOURCE 200809L

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

#define KEY "tokenizer.chat_template"

static uint8_t *tpl_file(const char *tpl, size_t *len, size_t *value)
{
    gb *b = gb_new(3);
    assert_non_null(b);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_strn(b, KEY, tpl, strlen(tpl));
    *value = gb_last(b)->value;
    uint8_t *p = ex_finish(b, len);
    return p;
}

/* Rule `id` at the template's value, its message holding every needle. */
static void expect_msg(const char *tpl, const char *id, const char *const *needles,
                       const char *where)
{
    size_t len, value;
    uint8_t *buf = tpl_file(tpl, &len, &value);
    gguflint_ctx *ctx = ex_lint(buf, len);
    const gguflint_finding *f = NULL;
    for (size_t i = 0; i < gguflint_finding_count(ctx) && !f; i++) {
        const gguflint_finding *g = gguflint_finding_get(ctx, i);
        if (strcmp(ex_id(g), id) == 0 && g->offset == value)
            f = g;
    }
    bool ok = f != NULL;
    for (size_t i = 0; ok && needles[i]; i++)
        if (!strstr(f->message, needles[i])) {
            print_message("%s: the message lacks '%s'\n", where, needles[i]);
            ok = false;
        }
    if (!ok) {
        print_message("%s: expected %s at %zu for: %s\n", where, id, value, tpl);
        ex_print_findings(NULL, ctx);
    }
    gguflint_free(ctx);
    free(buf);
    if (!ok)
        fail_msg("%s: %s", where, id);
}
#define EXPECT(tpl, id, ...)                                                                       \
    do {                                                                                           \
        static const char *const n_[] = {__VA_ARGS__, NULL};                                       \
        expect_msg(tpl, id, n_, __func__);                                                         \
    } while (0)

/* No template finding at all. */
static void expect_silent(const char *tpl, const char *where)
{
    size_t len, value;
    uint8_t *buf = tpl_file(tpl, &len, &value);
    gguflint_ctx *ctx = ex_lint(buf, len);
    bool bad = false;
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const char *id = ex_id(gguflint_finding_get(ctx, i));
        bad |= strncmp(id, "GG72", 4) == 0 || strncmp(id, "GG73", 4) == 0;
    }
    if (bad) {
        print_message("%s: template findings on: %s\n", where, tpl);
        ex_print_findings(NULL, ctx);
    }
    gguflint_free(ctx);
    free(buf);
    if (bad)
        fail_msg("%s: not silent", where);
}
#define SILENT(tpl) expect_silent(tpl, __func__)

/* ------------------------------------------------------- accumulation */

static void test_namespace_lists(void **state)
{
    /* the shape: {% set _ = ns.k.append('__') %} ... ns.k|join */
    EXPECT("{% set ns = namespace(k=[]) %}{% set _ = ns.k.append('__') %}"
           "{% set _ = ns.k.append('class') %}{% set _ = ns.k.append('__') %}"
           "{{ x[ns.k|join] }}",
           "GG720", "'__class__'");
    EXPECT("{% set ns = namespace(k=[]) %}{% set _ = ns.k.append('__') %}"
           "{% set _ = ns.k.append('class') %}{% set _ = ns.k.append('__') %}"
           "{{ x[ns.k|join] }}",
           "GG722", "assembles a dunder name");
    EXPECT("{% set k = [] %}{% do k.append('__glo') %}{% do k.append('bals__') %}"
           "{{ lipsum[k|join] }}",
           "GG720", "'__globals__'");
    EXPECT("{% set k = ['__cla'] %}{% set _ = k.extend(['ss__']) %}{{ x|attr(k|join) }}", "GG720",
           "'__class__'");
    EXPECT("{% set k = ['__'] %}{% do k.extend('class') %}{% do k.append('__') %}"
           "{{ x[k|join] }}",
           "GG720", "'__class__'");
    EXPECT("{% set ns = namespace(k=['ss__']) %}{% do ns.k.insert(0, '__cla') %}"
           "{{ x[ns.k|join] }}",
           "GG720", "'__class__'");
    EXPECT("{% set ns = namespace(k=['ss__']) %}{% do ns.k.insert(-9, '__cla') %}"
           "{% do ns.k.insert(99, '') %}{{ x[ns.k|join] }}",
           "GG720", "'__class__'");
    EXPECT("{% set k = ['x', '__', 'class__'] %}{{ x[k[1:]|join] }}", "GG722",
           "pieces holding '__'");
    /* list arithmetic */
    EXPECT("{{ x[(['_'] * 2 + ['class'] + ['_'] * 2)|join] }}", "GG720", "'__class__'");
    EXPECT("{{ x[(['__cla'] + ['ss__'])|join] }}", "GG720", "'__class__'");
    /* namespace attributes, set by keyword or by {% set ns.k %} */
    EXPECT("{% set ns = namespace(a='__cla', b='ss__') %}{{ x[ns.a ~ ns.b] }}", "GG720",
           "'__class__'");
    EXPECT("{% set ns = namespace() %}{% set ns.k = '__glob' %}{{ lipsum[ns.k ~ 'als__'] }}",
           "GG720", "'__globals__'");
    /* an alias is the same list */
    EXPECT("{% set a = [] %}{% set b = a %}{% do b.append('__cla') %}{% do b.append('ss__') %}"
           "{{ x[a|join] }}",
           "GG720", "'__class__'");
    /* a loop over a constant appends every item */
    EXPECT("{% set ns = namespace(k=[]) %}{% for c in ['__','class','__'] %}"
           "{% set _ = ns.k.append(c) %}{% endfor %}{{ x[ns.k|join] }}",
           "GG720", "'__class__'");
    EXPECT("{% set k = [] %}{% for c in '__init__' %}{% do k.append(c) %}{% endfor %}"
           "{{ self[k|join] }}",
           "GG720", "'__init__'");
    /* a branch inside the loop: unknown, but built from dunder pieces */
    EXPECT("{% set k = [] %}{% for c in ['__', 'class', '__'] %}{% if c %}{% do k.append(c) %}"
           "{% endif %}{% endfor %}{{ x[k|join] }}",
           "GG722", "pieces holding '__'");
    EXPECT("{% set ns = namespace(k='') %}{% for c in ['__','class','__'] %}"
           "{% set ns.k = ns.k ~ c %}{% endfor %}{{ x[ns.k] }}",
           "GG722", "assembles a dunder name from pieces"); /* folded: '__class__' (unroll.c) */
}

/* The everyday uses of namespace() and lists in real templates stay silent. */
static void test_namespace_lists_benign(void **state)
{
    SILENT("{% set ns = namespace(found=false, last=-1) %}{% for m in messages %}"
           "{% if m.role == 'user' %}{% set ns.found = true %}{% set ns.last = loop.index0 %}"
           "{% endif %}{% endfor %}{{ ns.last }}");
    SILENT("{% set names = [] %}{% for t in tools %}{% do names.append(t.function.name) %}"
           "{% endfor %}{{ names|join(', ') }}");
    SILENT("{% set ns = namespace(parts=[]) %}{% for m in messages %}"
           "{% set ns.parts = ns.parts + [m.content] %}{% endfor %}{{ ns.parts|join('\\n') }}");
    SILENT("{% set roles = ['system'] + ['user', 'assistant'] * 2 %}{{ roles|join(',') }}");
    SILENT("{% set ns = namespace(k=['a']) %}{% do ns.k.insert(0, 'b') %}{{ ns.k|join }}");
}

/* ------------------------------------------------------ format fields */

static void test_format_fields(void **state)
{
    EXPECT("{{ '{0.gi_frame.f_globals}'.format(x) }}", "GG720", "str.format field", "x.gi_frame");
    EXPECT("{{ '{.gi_code.co_consts}'.format(messages|map('string')) }}", "GG720", "gi_code");
    EXPECT("{{ '{0.__init__.__globals__[os].environ}'.format(lipsum) }}", "GG720",
           "'0.__init__.__globals__[os].environ'");
    EXPECT("{{ '{0.__init__.__globals__[os].environ}'.format(lipsum) }}", "GG721",
           "lipsum.__init__.__globals__['os']");
    EXPECT("{{ '{x.environ}'.format(x=y) }}", "GG721", "'environ'");
    EXPECT("{{ '{0:{1.f_back}}'.format(x, y) }}", "GG720", "f_back");
    EXPECT("{% set f = '{0.f_locals}' %}{{ f.format(x) }}", "GG720", "x.f_locals");
    EXPECT("{{ '{0[__class__]}'.format(x) }}", "GG720", "__class__");
    /* a format string built at render time cannot be checked */
    EXPECT("{{ ('{0.' ~ k ~ '}').format(x) }}", "GG722", "str.format on a string built");
    /* plain fields, and printf-style |format, traverse nothing */
    SILENT("{{ '{}: {}'.format(message.role, message.content) }}");
    SILENT("{{ '{0} {1:>4}'.format('a', 3) }}");
    SILENT("{{ '%s said %s'|format(m.role, m.content) }}");
}

/* --------------------------------------------------- chains, positions */

static void test_chains(void **state)
{
    EXPECT("{{ lipsum.__globals__['os'].popen('id').read() }}", "GG721", "on 'lipsum.__globals__'");
    EXPECT("{% set g = lipsum|attr('__glo' ~ 'bals__') %}{{ g['o' ~ 's'].popen('id') }}", "GG721",
           "'lipsum.__globals__'");
    EXPECT("{{ self.__init__.__globals__.__builtins__.__import__('os').popen('id') }}", "GG721",
           "'self.__init__.__globals__.__builtins__.__import__'");
    EXPECT("{{ (range(1)|map('string')).gi_frame.f_builtins.get('eval')('6*7') }}", "GG720",
           "range(1)|map(...)");
    EXPECT("{% set ns = namespace(g=cycler.__init__.__globals__) %}{{ ns.g.os.popen('id') }}",
           "GG721", "'cycler.__init__.__globals__.os'");
}

static void test_line_column(void **state)
{
    EXPECT("{% for m in messages %}\n"
           "  {{ m.content }}\n"
           "    {{ m.__class__ }}\n"
           "{% endfor %}",
           "GG720", "template line 3, column 10");
    /* a block never closed: the position of its opening tag, far back */
    char big[8192];
    size_t n = (size_t)snprintf(big, sizeof big, "\n\n{%% if x %%}");
    while (n + 32 < sizeof big)
        n += (size_t)snprintf(big + n, sizeof big - n, "{{ m }}\n");
    EXPECT(big, "GG731", "template line 3, column 4");
    /* placed by the newline scan when it passes the tag (not when it is
     * pushed): more newlines after it than the ring keeps, a mismatched end
     * far below, blocks closed in between, a CR LF before it */
    static char far[16384];
    n = (size_t)snprintf(far, sizeof far, "\r\n x {%% if a %%}{%% for i in y %%}\n{%% endfor %%}");
    for (int i = 0; i < 1500; i++)
        n += (size_t)snprintf(far + n, sizeof far - n, "\n");
    n += (size_t)snprintf(far + n, sizeof far - n, "  {%% endfor %%}");
    EXPECT(far, "GG731", "closes the 'if' opened (template line 2, column 7)");
    /* the same line counting for an array template, across its elements */
    gb *b = gb_new(3);
    assert_non_null(b);
    const char *parts[] = {"{% for m in messages %}\n", "{{ m.content }}\n",
                           "{{ m|attr('__class__') }}{% endfor %}"};
    gb_kv_arr_str(b, KEY, parts, 3);
    size_t len;
    uint8_t *p = gb_finish(b, &len);
    gb_free(b);
    gguflint_ctx *ctx = ex_lint(p, len);
    const gguflint_finding *f = ex_find(ctx, "GG720");
    assert_non_null(f);
    assert_non_null(strstr(f->message, "template line 3, column 11"));
    gguflint_free(ctx);
    free(p);
    /* a block opened in one element, never closed, the line counted over
     * the elements that follow */
    b = gb_new(3);
    assert_non_null(b);
    const char *parts2[] = {"\n\n", "ab{% if x %}", "\n{% for i in y %}{% endfor %}\n", "\n"};
    gb_kv_arr_str(b, KEY, parts2, 4);
    p = gb_finish(b, &len);
    gb_free(b);
    ctx = ex_lint(p, len);
    f = ex_find(ctx, "GG731");
    assert_non_null(f);
    if (!strstr(f->message, "never closed") || !strstr(f->message, "template line 3, column 6"))
        fail_msg("unexpected: %s", f->message);
    gguflint_free(ctx);
    free(p);
}

/* A chain step whose text points into the per-tag arena (a folded name
 * given to |attr) while appending the step grows, and moves, the arena: the
 * literal before it puts the arena's fill at every position around its
 * first growth (1024 bytes). Under ASan the old code read freed memory
 * (fuzz_template; regression gguflint-10-template-chain-arena-move). */
static void test_chain_arena_moves(void **state)
{
    static const char head[] = "{{ '", tail[] = "' ~ lipsum|attr('__globals__') }}";
    char tpl[sizeof head + 1200 + sizeof tail];
    for (size_t k = 900; k <= 1100; k++) {
        memcpy(tpl, head, sizeof head - 1);
        memset(tpl + sizeof head - 1, 'a', k);
        memcpy(tpl + sizeof head - 1 + k, tail, sizeof tail);
        EXPECT(tpl, "GG720", "__globals__");
    }
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_namespace_lists),
            cmocka_unit_test(test_namespace_lists_benign),
            cmocka_unit_test(test_format_fields),
            cmocka_unit_test(test_chains),
            cmocka_unit_test(test_line_column),
            cmocka_unit_test(test_chain_arena_moves),
        })
