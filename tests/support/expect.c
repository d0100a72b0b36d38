/* expect.c - see expect.h. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"

void ex_print_findings(const gguflint_ctx *ctx)
{
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        const gguflint_rule_info *r = gguflint_rule((size_t)f->rule);
        print_message("    %s %s off=%llu %s: %s\n", r ? r->id : "?",
                      gguflint_severity_name(f->severity), (unsigned long long)f->offset,
                      f->path, f->message);
    }
}

gguflint_ctx *ex_lint(const uint8_t *buf, size_t len)
{
    assert_non_null(buf);
    gguflint_ctx *ctx = gguflint_new(NULL);
    assert_non_null(ctx);
    assert_int_equal(gguflint_set_buffer(ctx, buf, len), GGUFLINT_OK);
    assert_int_equal(gguflint_run(ctx), GGUFLINT_OK);
    return ctx;
}

size_t ex_count_id(const gguflint_ctx *ctx, const char *id, uint64_t offset, size_t *at)
{
    size_t n = 0, k = 0;
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        if (strcmp(gguflint_rule((size_t)f->rule)->id, id) == 0) {
            n++;
            k += f->offset == offset;
        }
    }
    if (at)
        *at = k;
    return n;
}

/* Exactly one finding of `id`, at `offset`. Frees buf. */
void ex_expect_at(uint8_t *buf, size_t len, const char *id, uint64_t offset, const char *where)
{
    gguflint_ctx *ctx = ex_lint(buf, len);
    size_t at, n = ex_count_id(ctx, id, offset, &at);
    if (n != 1 || at != 1) {
        print_message("%s: expected one %s at %llu, got %zu (%zu there)\n", where, id,
                      (unsigned long long)offset, n, at);
        ex_print_findings(ctx);
        gguflint_free(ctx);
        free(buf);
        fail_msg("%s: %s", where, id);
    }
    gguflint_free(ctx);
    free(buf);
}

void ex_dir_clean(const char *dir, const char *suffix, const char *id_prefix,
                  gguflint_severity min)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    size_t k = strlen(suffix), pl = strlen(id_prefix);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < k || strcmp(e->d_name + n - k, suffix) != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        gguflint_ctx *ctx = gguflint_new(NULL);
        assert_non_null(ctx);
        if (gguflint_open_file(ctx, path) != GGUFLINT_OK || gguflint_run(ctx) != GGUFLINT_OK) {
            gguflint_free(ctx);
            closedir(d);
            fail_msg("real file %s cannot be linted", path);
        }
        for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
            const gguflint_finding *f = gguflint_finding_get(ctx, i);
            const char *id = gguflint_rule((size_t)f->rule)->id;
            if (strncmp(id, id_prefix, pl) == 0 && f->severity >= min) {
                print_message("%s: %s %s\n", path, id, f->message);
                gguflint_free(ctx);
                closedir(d);
                fail_msg("real file %s: %s", e->d_name, id);
            }
        }
        gguflint_free(ctx);
    }
    closedir(d);
}
