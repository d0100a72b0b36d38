/* test_template_stream.c - the literal memo of the template text scanners
 * (src/template/stream.c), driven through the scanners' own interface: a
 * short literal that reported nothing is held unscanned the next time, a
 * held literal is scanned after all when its stream goes on (and then
 * reports, and leaves the stream, as a scan would have), and a literal
 * that reported is never held. The lexer never continues a held literal
 * today (a literal is scanned in one piece up to 64 KiB), so these paths
 * are reached here only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "template/tpl.h"

/* A template analyser with a fresh LIT stream. */
static tpl *fresh(void)
{
    tpl *t = tpl_new();
    assert_non_null(t);
    tpl_begin(t, 1000);
    return t;
}

static void lit(tpl *t, const char *s, uint64_t index)
{
    ts_run(t, &t->ts.lits, (const uint8_t *)s, strlen(s), index, false);
}

/* Scan s as a whole literal (reset, run, end) at index. */
static void whole(tpl *t, const char *s, uint64_t index)
{
    ts_reset(&t->ts.lits, "string literal");
    lit(t, s, index);
    ts_end(t, &t->ts.lits);
}

static void test_clean_literal_is_held(void **state)
{
    (void)state;
    tpl *t = fresh();
    whole(t, "content", 10);
    ts_reset(&t->ts.lits, "string literal");
    lit(t, "content", 20);
    assert_int_equal(t->ts.lits.memo, MEMO_HELD);
    ts_end(t, &t->ts.lits);
    lit(t, "role", 30); /* not fresh: scanned */
    assert_int_not_equal(t->ts.lits.memo, MEMO_HELD);
    tpl_free(t);
}

/* s reports `kind` as a whole literal, and is scanned again the next time. */
static void never_held(tpl *t, const char *s, int kind, uint64_t index)
{
    whole(t, s, index);
    assert_true(tpl_hit_get(t, kind)->have);
    const uint64_t more = tpl_hit_get(t, kind)->more;
    ts_reset(&t->ts.lits, "string literal");
    lit(t, s, index + 100);
    assert_int_not_equal(t->ts.lits.memo, MEMO_HELD);
    ts_end(t, &t->ts.lits);
    assert_int_equal(tpl_hit_get(t, kind)->more, more + 1);
}

static void test_reporting_literal_is_never_held(void **state)
{
    (void)state;
    tpl *t = fresh();
    never_held(t, "then rm -rf it", TH_SHELL, 10);
    never_held(t, "ask bob@evil.example", TH_URL, 300); /* reported only at its end */
    tpl_free(t);
}

static void test_held_literal_goes_on(void **state)
{
    (void)state;
    tpl *t = fresh();
    whole(t, "Ignore", 10); /* clean alone */
    assert_false(tpl_hit_get(t, TH_INSTRUCTION)->have);
    ts_reset(&t->ts.lits, "string literal");
    lit(t, "Ignore", 20);
    assert_int_equal(t->ts.lits.memo, MEMO_HELD);
    lit(t, " previous rules", 26); /* the phrase spans the held piece */
    ts_end(t, &t->ts.lits);
    const tpl_hit *h = tpl_hit_get(t, TH_INSTRUCTION);
    assert_true(h->have);
    assert_int_equal(h->index, 20);
    tpl_free(t);
}

/* The fields a scan leaves that the next bytes depend on. */
static void same_state(const tscan *a, const tscan *b)
{
    assert_int_equal(a->ring_n, b->ring_n);
    assert_int_equal(a->ac_state, b->ac_state);
    assert_int_equal(a->ac_space, b->ac_space);
    assert_int_equal(a->wl, b->wl);
    assert_int_equal(a->wl_n, b->wl_n);
    assert_int_equal(a->blob_len, b->blob_len);
    assert_int_equal(a->word_len, b->word_len);
    assert_int_equal(a->url_cap, b->url_cap);
    assert_int_equal(a->seg, b->seg);
    assert_int_equal(a->seg_start, b->seg_start);
    assert_memory_equal(a->word, b->word, a->word_len < sizeof a->word ? a->word_len : 0);
}

static void test_held_literal_resolves_to_the_scanned_state(void **state)
{
    (void)state;
    static const char *const lits[] = {"abc def", "x.y.z", "aGVsbG8", "a ", "user"};
    for (size_t k = 0; k < sizeof lits / sizeof lits[0]; k++) {
        for (int ended = 0; ended < 2; ended++) {
            tpl *a = fresh(), *b = fresh();
            whole(a, lits[k], 5); /* a remembers it */
            ts_reset(&a->ts.lits, "string literal");
            ts_reset(&b->ts.lits, "string literal");
            lit(a, lits[k], 50);
            assert_int_equal(a->ts.lits.memo, MEMO_HELD);
            lit(b, lits[k], 50);
            if (ended) {
                ts_end(a, &a->ts.lits);
                ts_end(b, &b->ts.lits);
            }
            ts_segment(&a->ts.lits, 0); /* anything but ts_end or ts_reset */
            ts_segment(&b->ts.lits, 0);
            assert_int_equal(a->ts.lits.memo, MEMO_NONE);
            same_state(&a->ts.lits, &b->ts.lits);
            tpl_free(a);
            tpl_free(b);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_literal_is_held),
        cmocka_unit_test(test_reporting_literal_is_never_held),
        cmocka_unit_test(test_held_literal_goes_on),
        cmocka_unit_test(test_held_literal_resolves_to_the_scanned_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
