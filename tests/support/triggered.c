/* triggered.c - records which rules the tests actually trigger. Linked into
 * every cmocka test with -Wl,--wrap=gguflint_run,--wrap=gguflint_check_set
 * (and gguflint_check_family),
 * so every context a test runs (through any helper, on any thread) adds the
 * rules of its findings to a set; at exit the set is written, one id per
 * line, to the file named by $GGUFLINT_TRIGGERED (ctest sets it per test).
 * tests/check_rule_coverage.py then fails when a rule of the table was never
 * triggered by any test: coverage counted from what runs, not from a list. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <pthread.h>

#include "gguflint.h"

#define MAX_RULES 4096 /* a test-side bound; init() fails loudly past it */

int __real_gguflint_run(gguflint_ctx *ctx);
int __real_gguflint_check_set(gguflint_ctx *const *ctxs, size_t n);
int __wrap_gguflint_run(gguflint_ctx *ctx);
int __wrap_gguflint_check_set(gguflint_ctx *const *ctxs, size_t n);
int __real_gguflint_check_family(gguflint_ctx *const *ctxs, size_t n);
int __wrap_gguflint_check_family(gguflint_ctx *const *ctxs, size_t n);

static uint8_t seen[MAX_RULES];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void write_seen(void)
{
    const char *path = getenv("GGUFLINT_TRIGGERED");
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    for (size_t i = 0; i < gguflint_rule_count() && i < MAX_RULES; i++)
        if (__atomic_load_n(&seen[i], __ATOMIC_RELAXED))
            fprintf(f, "%s\n", gguflint_rule(i)->id);
    fclose(f);
}

static void init(void)
{
    if (gguflint_rule_count() > MAX_RULES) {
        fprintf(stderr, "triggered.c: more than %d rules; raise MAX_RULES\n", MAX_RULES);
        abort();
    }
    atexit(write_seen);
}

/* Registered before main, so a test that never lints still writes its
 * (empty) record and the coverage check knows it ran. */
__attribute__((constructor)) static void start(void)
{
    pthread_once(&once, init);
}

static void record(const gguflint_ctx *ctx)
{
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        size_t r = (size_t)gguflint_finding_get(ctx, i)->rule;
        if (r < MAX_RULES)
            __atomic_store_n(&seen[r], 1, __ATOMIC_RELAXED);
    }
}

int __wrap_gguflint_run(gguflint_ctx *ctx)
{
    int st = __real_gguflint_run(ctx);
    if (st == GGUFLINT_OK)
        record(ctx);
    return st;
}

int __wrap_gguflint_check_set(gguflint_ctx *const *ctxs, size_t n)
{
    int st = __real_gguflint_check_set(ctxs, n);
    for (size_t i = 0; ctxs && i < n; i++)
        if (ctxs[i])
            record(ctxs[i]);
    return st;
}

int __wrap_gguflint_check_family(gguflint_ctx *const *ctxs, size_t n)
{
    int st = __real_gguflint_check_family(ctxs, n);
    for (size_t i = 0; ctxs && i < n; i++)
        if (ctxs[i])
            record(ctxs[i]);
    return st;
}
