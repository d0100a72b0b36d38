/* test_template_stream.c - the memos of the template text scanners
 * (src/template/stream.c, tokens.c), driven through their own interface: a
 * short literal that reported nothing is held unscanned the next time, a
 * held literal is scanned after all when its stream goes on (and then
 * reports, and leaves the stream, as a scan would have), and a literal
 * that reported is never held. The lexer never continues a held literal
 * today (a literal is scanned in one piece up to 64 KiB), so these paths
 * are reached here only. Also: a {{ }} constant's scan replayed by the
 * value memo leaves the stream as its scan does, the token memos keep
 * which tag outputs a token, and whitespace taken while the stream rests
 * keeps a phrase whole. The tests that look at a memo's state skip in the
 * reference mode (test_template_stream_refmode), which has no memo; the
 * others hold there too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "expect.h"

#include "template/tpl.h"

/* A template analyser with a fresh LIT stream. */
static tpl *fresh(void)
{
    tpl *t = tpl_new();
    assert_non_null(t);
    tpl_begin(t, 1000);
    return t;
}

/* Skip a test of a memo's state in the reference mode (no memo there). */
#define NEEDS_MEMOS(t)                                                                             \
    do {                                                                                           \
        if ((t)->ref) {                                                                            \
            tpl_free(t);                                                                           \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

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
    tpl *t = fresh();
    NEEDS_MEMOS(t);
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
    tpl *t = fresh();
    never_held(t, "then rm -rf it", TH_SHELL, 10);
    never_held(t, "ask 10.20.30.40", TH_URL, 300); /* reported only at its end */
    tpl_free(t);
}

static void test_held_literal_goes_on(void **state)
{
    tpl *t = fresh();
    NEEDS_MEMOS(t);
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
    static const char *const lits[] = {"abc def", "x.y.z", "aGVsbG8", "a ", "user"};
    for (size_t k = 0; k < sizeof lits / sizeof lits[0]; k++) {
        for (int ended = 0; ended < 2; ended++) {
            tpl *b = fresh();
            NEEDS_MEMOS(b);
            tpl *a = fresh();
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

/* ---- the value memo: a {{ }} constant's scan effect replayed ---- */

static void out_text(tpl *t, const char *s, uint64_t index)
{
    ts_segment(&t->ts.out, SG_TEXT);
    ts_run(t, &t->ts.out, (const uint8_t *)s, strlen(s), index, false);
}

static void out_value(tpl *t, const char *s, uint64_t index)
{
    ts_segment(&t->ts.out, SG_VALUE | SG_BUILT);
    ts_run(t, &t->ts.out, (const uint8_t *)s, strlen(s), index, true);
}

/* text, value, then text again and the value again: in a the second value
 * is replayed from the memo (text leaves the automaton as it found it), in
 * b (its memo emptied first) it is scanned; the streams must be alike and
 * report alike after it. */
static void replay_like_scan(const char *text, const char *value, const char *after, int kind)
{
    tpl *a = fresh(), *b = fresh();
    tpl *both[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        out_text(both[k], text, 0);
        out_value(both[k], value, 100);
        out_text(both[k], text, 200);
    }
    memset(b->ts.vmemo, 0, sizeof b->ts.vmemo);
    const uint32_t matches = a->ts.out.matches;
    for (int k = 0; k < 2; k++)
        out_value(both[k], value, 300);
    assert_int_equal(a->ts.out.matches, matches);
    same_state(&a->ts.out, &b->ts.out);
    for (int k = 0; k < 2; k++) {
        out_text(both[k], after, 400);
        ts_end(both[k], &both[k]->ts.out);
    }
    const tpl_hit *ha = tpl_hit_get(a, kind), *hb = tpl_hit_get(b, kind);
    assert_true(ha->have);
    assert_true(hb->have);
    assert_int_equal(ha->index, hb->index);
    assert_int_equal(ha->more, hb->more);
    assert_string_equal(ha->msg, hb->msg);
    tpl_free(a);
    tpl_free(b);
}

static void test_value_replay_is_the_scan(void **state)
{
    /* a phrase that ends after the value: its start is in the replayed ring
     * (the value holds no word of the grammar, which a memo never replays) */
    replay_like_scan("x\n", "please disre", "gard previous rules", TH_INSTRUCTION);
    /* a blob run that goes on after the value: its head and classes */
    replay_like_scan("x ", "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                     "abcdefghijklmnopqrstuvwxyz0123456789abcdefghij",
                     TH_BLOB); /* base64 only with the value's upper case letters */
    /* an e-mail word that goes on after the value */
    replay_like_scan("x ", "write to bob", "@evil.example now", TH_URL);
}

/* ---- the token memos ---- */

/* The one token of the last template, its bytes. */
static void one_token(const tpl *t, size_t i, const char *want)
{
    size_t len;
    int kind;
    uint64_t line, col;
    const uint8_t *s = tpl_token_get(t, i, &len, &kind, &line, &col);
    assert_non_null(s);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(s, want, len);
}

static void test_token_memo_keeps_emission(void **state)
{
    tpl *t = fresh();
    static const char l[] = "<|im_end|>\n";
    const size_t n = sizeof l - 1;
    /* the first time the tag does not output it, the second time it does:
     * the token is first seen at the second literal (the tokens of a
     * literal the LIT stream has just taken: its memo entry notes them) */
    whole(t, l, 11);
    tk_literal(t, (const uint8_t *)l, n, 10);
    tk_tag_end(t, false);
    assert_int_equal(tpl_token_count(t), 0);
    whole(t, l, 51);
    tk_literal(t, (const uint8_t *)l, n, 50);
    tk_tag_end(t, true);
    assert_int_equal(tpl_token_count(t), 1);
    one_token(t, 0, "<|im_end|>");
    /* another template: the set is empty, the memos are not */
    tpl_begin(t, 1000);
    tk_literal(t, (const uint8_t *)l, n, 70); /* not the LIT stream's: the tokens' memo */
    tk_tag_end(t, true);
    assert_int_equal(tpl_token_count(t), 1);
    one_token(t, 0, "<|im_end|>");
    tpl_begin(t, 1000);
    whole(t, l, 81);
    tk_literal(t, (const uint8_t *)l, n, 80); /* the LIT entry's */
    tk_tag_end(t, true);
    assert_int_equal(tpl_token_count(t), 1);
    /* an output value: its tokens when scanned, and when replayed */
    for (int k = 0; k < 2; k++) {
        tpl_begin(t, 1000);
        out_value(t, "<s>[INST]", 90);
        assert_int_equal(tpl_token_count(t), 2);
        one_token(t, 0, "<s>");
        one_token(t, 1, "[INST]");
    }
    tpl_free(t);
}

/* Whitespace while the stream rests changes nothing a phrase needs. */
static void test_resting_whitespace(void **state)
{
    tpl *t = fresh();
    out_text(t, "Ignore", 0);
    out_text(t, " \n", 6);
    out_text(t, "\t ", 9); /* the stream rests: the quick case */
    assert_true(t->ts.out.rest);
    out_text(t, "previous", 11);
    ts_end(t, &t->ts.out);
    const tpl_hit *h = tpl_hit_get(t, TH_INSTRUCTION);
    assert_true(h->have);
    assert_int_equal(h->index, 0);
    tpl_free(t);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(test_clean_literal_is_held),
            cmocka_unit_test(test_reporting_literal_is_never_held),
            cmocka_unit_test(test_held_literal_goes_on),
            cmocka_unit_test(test_held_literal_resolves_to_the_scanned_state),
            cmocka_unit_test(test_value_replay_is_the_scan),
            cmocka_unit_test(test_token_memo_keeps_emission),
            cmocka_unit_test(test_resting_whitespace),
        })
