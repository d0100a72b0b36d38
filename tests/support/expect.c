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
#include <sys/wait.h>

#include <cmocka.h>

#include "expect.h"
#include "tiny_llama.h"

gguflint_options *ex_options(const char *select)
{
    gguflint_options *o = gguflint_options_new();
    assert_non_null(o);
    if (select) {
        gguflint_options_clear(o);
        assert_int_equal(gguflint_options_select(o, select, true, NULL, 0), GGUFLINT_OK);
    }
    return o;
}

gguflint_ctx *ex_lint_opt(const void *buf, size_t len, const gguflint_options *opt,
                          const char *name)
{
    static const uint8_t empty[1];
    gguflint_ctx *ctx = gguflint_new(opt);
    assert_non_null(ctx);
    int st = name ? gguflint_set_name(ctx, name) : GGUFLINT_OK;
    if (st == GGUFLINT_OK)
        st = gguflint_set_buffer(ctx, buf ? buf : (const void *)empty, len);
    if (st == GGUFLINT_OK)
        st = gguflint_run(ctx);
    if (st != GGUFLINT_OK) {
        gguflint_free(ctx);
        fail_msg("lint: %s", gguflint_strerror(st));
    }
    return ctx;
}

gguflint_ctx *ex_lint(const uint8_t *buf, size_t len)
{
    assert_non_null(buf);
    return ex_lint_opt(buf, len, NULL, NULL);
}

gguflint_ctx *ex_lint_path(const char *path, const gguflint_options *opt)
{
    gguflint_ctx *ctx = gguflint_new(opt);
    assert_non_null(ctx);
    int st = gguflint_open_file(ctx, path);
    if (st == GGUFLINT_OK)
        st = gguflint_run(ctx);
    if (st != GGUFLINT_OK) {
        print_message("  %s: status %s (%s)\n", path, gguflint_strerror(st),
                      gguflint_error_detail(ctx));
        gguflint_free(ctx);
        return NULL;
    }
    return ctx;
}

const char *ex_id(const gguflint_finding *f)
{
    const gguflint_rule_info *r = f ? gguflint_rule((size_t)f->rule) : NULL;
    return r ? r->id : "";
}

void ex_print_findings(const char *label, const gguflint_ctx *ctx)
{
    size_t n = gguflint_finding_count(ctx);
    print_message("  %s%s%zu finding(s):\n", label ? label : "", label ? ": " : "", n);
    for (size_t i = 0; i < n; i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        const gguflint_rule_info *r = gguflint_rule((size_t)f->rule);
        print_message("    %s %-26s %-7s off=%llu len=%llu %s: %s\n", r ? r->id : "?",
                      r ? r->slug : "?", gguflint_severity_name(f->severity),
                      (unsigned long long)f->offset, (unsigned long long)f->length,
                      f->path ? f->path : "", f->message ? f->message : "");
    }
    uint64_t d = gguflint_findings_dropped(ctx);
    if (d)
        print_message("    (%llu more dropped by the per-rule limit)\n", (unsigned long long)d);
}

size_t ex_count_id(const gguflint_ctx *ctx, const char *id, uint64_t offset, size_t *at)
{
    size_t n = 0, k = 0;
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        if (strcmp(ex_id(f), id) == 0) {
            n++;
            k += f->offset == offset;
        }
    }
    if (at)
        *at = k;
    return n;
}

size_t ex_count(const gguflint_ctx *ctx, const char *id)
{
    return ex_count_id(ctx, id, 0, NULL);
}

const gguflint_finding *ex_find(const gguflint_ctx *ctx, const char *id)
{
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        if (strcmp(ex_id(f), id) == 0)
            return f;
    }
    return NULL;
}

size_t ex_count_family(const gguflint_ctx *ctx, const char *family)
{
    size_t n = 0;
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_rule_info *r = gguflint_rule((size_t)gguflint_finding_get(ctx, i)->rule);
        n += r && strcmp(r->family, family) == 0;
    }
    return n;
}

size_t ex_count_severity(const gguflint_ctx *ctx, gguflint_severity sev)
{
    size_t n = 0;
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++)
        n += gguflint_finding_get(ctx, i)->severity == sev;
    return n;
}

void ex_assert_finding_at(const uint8_t *buf, size_t len, const gguflint_options *opt,
                          const char *id, uint64_t offset, const char *where)
{
    gguflint_ctx *ctx = ex_lint_opt(buf, len, opt, NULL);
    size_t at, n = ex_count_id(ctx, id, offset, &at);
    if (at == 0) {
        print_message("%s: expected %s at offset %llu (file of %zu bytes); %s reported %zu "
                      "time(s) elsewhere\n",
                      where, id, (unsigned long long)offset, len, id, n);
        ex_print_findings(NULL, ctx);
        gguflint_free(ctx);
        fail_msg("%s: missing %s at offset %llu", where, id, (unsigned long long)offset);
    }
    gguflint_free(ctx);
}

void ex_assert_no_rule_at(const uint8_t *buf, size_t len, const gguflint_options *opt,
                          const char *id, const char *where)
{
    gguflint_ctx *ctx = ex_lint_opt(buf, len, opt, NULL);
    if (ex_count(ctx, id) != 0) {
        print_message("%s: %s must not be reported\n", where, id);
        ex_print_findings(NULL, ctx);
        gguflint_free(ctx);
        fail_msg("%s: unexpected %s", where, id);
    }
    gguflint_free(ctx);
}

void ex_assert_only_rules_at(const uint8_t *buf, size_t len, const gguflint_options *opt,
                             const char *const *ids, const char *where)
{
    gguflint_ctx *ctx = ex_lint_opt(buf, len, opt, NULL);
    bool bad = false;
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const char *got = ex_id(gguflint_finding_get(ctx, i));
        bool listed = false;
        for (size_t j = 0; ids[j]; j++)
            listed |= strcmp(ids[j], got) == 0;
        if (!listed) {
            print_message("%s: unexpected %s\n", where, got);
            bad = true;
        }
    }
    for (size_t j = 0; ids[j]; j++) {
        if (ex_count(ctx, ids[j]) == 0) {
            print_message("%s: expected %s\n", where, ids[j]);
            bad = true;
        }
    }
    if (bad) {
        ex_print_findings(NULL, ctx);
        gguflint_free(ctx);
        fail_msg("%s: findings differ from the expected set", where);
    }
    gguflint_free(ctx);
}

void ex_assert_clean_at(const uint8_t *buf, size_t len, const gguflint_options *opt,
                        const char *where)
{
    gguflint_ctx *ctx = ex_lint_opt(buf, len, opt, NULL);
    if (gguflint_finding_count(ctx) != 0) {
        print_message("%s: expected no findings\n", where);
        ex_print_findings(NULL, ctx);
        gguflint_free(ctx);
        fail_msg("%s: file is not clean", where);
    }
    gguflint_free(ctx);
}

void ex_expect_msg_at(uint8_t *buf, size_t len, const char *name, const char *id, uint64_t offset,
                      const char *text, const char *where)
{
    assert_non_null(buf);
    gguflint_ctx *ctx = ex_lint_opt(buf, len, NULL, name);
    size_t at, n = ex_count_id(ctx, id, offset, &at);
    const gguflint_finding *f = ex_find(ctx, id);
    if (n != 1 || at != 1 || (text && !strstr(f->message, text))) {
        print_message("%s: expected one %s at %llu%s%s, got %zu (%zu there)\n", where, id,
                      (unsigned long long)offset, text ? " saying " : "", text ? text : "", n, at);
        ex_print_findings(NULL, ctx);
        gguflint_free(ctx);
        free(buf);
        fail_msg("%s: %s", where, id);
    }
    gguflint_free(ctx);
    free(buf);
}

void ex_expect_at(uint8_t *buf, size_t len, const char *id, uint64_t offset, const char *where)
{
    ex_expect_msg_at(buf, len, NULL, id, offset, NULL, where);
}

void ex_expect_none_of(uint8_t *buf, size_t len, const char *name, const char *const *ids,
                       const char *where)
{
    assert_non_null(buf);
    gguflint_ctx *ctx = ex_lint_opt(buf, len, NULL, name);
    for (size_t k = 0; ids[k]; k++) {
        if (ex_count(ctx, ids[k])) {
            print_message("%s: %s must not be reported\n", where, ids[k]);
            ex_print_findings(NULL, ctx);
            gguflint_free(ctx);
            free(buf);
            fail_msg("%s: unexpected %s", where, ids[k]);
        }
    }
    gguflint_free(ctx);
    free(buf);
}

void ex_dir_clean(const char *dir, const char *suffix, const char *id_prefix, gguflint_severity min)
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
        gguflint_ctx *ctx = ex_lint_path(path, NULL);
        if (!ctx) {
            closedir(d);
            fail_msg("real file %s cannot be linted", path);
        }
        for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
            const gguflint_finding *f = gguflint_finding_get(ctx, i);
            const char *id = ex_id(f);
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

/* ---- the command line ---- */

int ex_cli_run_as(const ex_how *how, const char *cli, const char *dir, const char *cwd,
                  const char *args, char *out, size_t cap)
{
    char cmd[4096], path[1024];
    const char *pre = how && how->pre ? how->pre : "";
    unsigned secs = how && how->secs ? how->secs : 60;
    snprintf(path, sizeof path, "%s/out.txt", dir);
    int w = snprintf(cmd, sizeof cmd, "cd '%s/%s' && (%s timeout %u %s %s) > '%s' 2>&1", dir, cwd,
                     pre, secs, cli, args, path);
    if (w < 0 || (size_t)w >= sizeof cmd)
        fail_msg("command line too long: %s", args);
    int st = system(cmd);
    FILE *f = fopen(path, "r");
    size_t n = f && cap ? fread(out, 1, cap - 1, f) : 0;
    if (cap)
        out[n] = '\0';
    if (f)
        fclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void ex_cli_expect_as(const ex_how *how, const char *cli, const char *dir, const char *cwd,
                      const char *args, int code, const char *needle, char *out, size_t cap)
{
    int rc = ex_cli_run_as(how, cli, dir, cwd, args, out, cap);
    if (rc != code || (needle && !strstr(out, needle)))
        fail_msg("'%s%s' in %s: exit %d (expected %d), wanted '%s' in:\n%s",
                 how && how->pre ? how->pre : "", args, cwd, rc, code, needle ? needle : "", out);
}

int ex_cli_run(const char *cli, const char *dir, const char *cwd, const char *args, char *out,
               size_t cap)
{
    return ex_cli_run_as(NULL, cli, dir, cwd, args, out, cap);
}

void ex_cli_expect(const char *cli, const char *dir, const char *cwd, const char *args, int code,
                   const char *needle, char *out, size_t cap)
{
    ex_cli_expect_as(NULL, cli, dir, cwd, args, code, needle, out, cap);
}

void ex_has(const char *out, const char *needle)
{
    if (!strstr(out, needle))
        fail_msg("wanted '%s' in:\n%s", needle, out);
}

void ex_lacks(const char *out, const char *needle)
{
    if (strstr(out, needle))
        fail_msg("did not want '%s' in:\n%s", needle, out);
}

void ex_write_file(const char *dir, const char *rel, const void *data, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "wb");
    if (!f)
        fail_msg("cannot write %s", path);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

void ex_write_text(const char *dir, const char *rel, const char *text)
{
    ex_write_file(dir, rel, text, strlen(text));
}

void ex_mkdirs(const char *dir, const char *rel)
{
    char cmd[2100];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/%s'", dir, rel);
    assert_int_equal(system(cmd), 0);
}

char *ex_findings_text(const gguflint_ctx *ctx)
{
    ex_buf b = {0};
    for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        const gguflint_rule_info *r = gguflint_rule((size_t)f->rule);
        char head[128];
        int k = snprintf(head, sizeof head, "%s %s %llu+%llu ", r ? r->id : "?",
                         gguflint_severity_name(f->severity), (unsigned long long)f->offset,
                         (unsigned long long)f->length);
        ex_buf_put(&b, head, (size_t)k);
        ex_buf_put(&b, f->message, strlen(f->message));
        ex_buf_put(&b, "\n", 1);
    }
    ex_buf_put(&b, "", 0); /* an empty string when there is none */
    return (char *)b.p;
}

uint8_t *ex_template_gguf(const char *text, size_t n, size_t split, size_t *len)
{
    gb *b = gb_new(3);
    assert_non_null(b);
    gb_kv_str(b, "general.architecture", "llama");
    if (!split) {
        gb_kv_strn(b, "tokenizer.chat_template", text, n);
    } else {
        gb_kv_begin(b, "tokenizer.chat_template", 9 /* array */);
        gb_arr_header(b, 8 /* string */, (n + split - 1) / split);
        for (size_t off = 0; off < n; off += split)
            gb_str(b, text + off, n - off < split ? n - off : split);
    }
    return ex_finish(b, len);
}

unsigned ex_tsv_templates(const char *path, ex_tsv_fn fn, void *user)
{
    size_t len;
    char *s = ex_read_file(path, &len);
    assert_non_null(s);
    unsigned n = 0;
    for (char *line = s; *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        char *tab = strrchr(line, '\t');
        if (line[0] != '#' && tab) {
            *strchr(line, '\t') = '\0';
            fn(line, tab + 1, strlen(tab + 1), user);
            n++;
        }
        if (!end)
            break;
        line = end + 1;
    }
    free(s);
    return n;
}

uint8_t *ex_finish(gb *b, size_t *len)
{
    uint8_t *buf = gb_finish(b, len);
    gb_free(b);
    assert_non_null(buf);
    return buf;
}

uint8_t *ex_small_model(size_t *len)
{
    uint8_t *buf = gb_small_model(len);
    assert_non_null(buf);
    return buf;
}

uint8_t *ex_small_model_ex(uint32_t version, bool big_endian, size_t *len)
{
    uint8_t *buf = gb_small_model_ex(version, big_endian, len);
    assert_non_null(buf);
    return buf;
}

void ex_write_gb(const char *dir, const char *rel, gb *b)
{
    size_t len;
    uint8_t *buf = ex_finish(b, &len);
    ex_write_file(dir, rel, buf, len);
    free(buf);
}

int ex_remove_tree(const char *dir)
{
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

void ex_buf_put(ex_buf *b, const void *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void ex_buf_sink(void *user, const char *s, size_t n)
{
    ex_buf_put(user, s, n);
}

const char *ex_buf_str(const ex_buf *b)
{
    return b->p ? (const char *)b->p : "";
}

void ex_buf_clear(ex_buf *b)
{
    b->len = 0;
    if (b->p)
        b->p[0] = '\0';
}

uint8_t *ex_dup(const void *src, size_t n)
{
    uint8_t *p = malloc(n);
    if (!p && n == 0)
        p = malloc(1);
    assert_non_null(p);
    if (n)
        memcpy(p, src, n);
    return p;
}

char *ex_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    assert_true(n >= 0);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return s;
}

int ex_tmpdir_make(char *tmpl)
{
    return mkdtemp(tmpl) ? 0 : -1;
}

int ex_tmpdir_remove(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", dir, dir);
    return system(cmd) == 0 ? 0 : -1;
}

void ex_write_tiny_llama(const char *dir, const char *name)
{
    size_t len;
    uint8_t *buf = gb_tiny_llama(&len);
    assert_non_null(buf);
    ex_write_file(dir, name, buf, len);
    free(buf);
}
