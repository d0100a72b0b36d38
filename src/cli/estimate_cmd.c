/* estimate_cmd.c - `gguflint estimate`: the memory llama.cpp takes for each
 * model at a context size (gguflint_estimate, gguflint_llama.h). Text: one
 * block per file ("==> PATH <==" before each when there are several); JSON:
 * one document {"path", "estimate"} per file, one per line. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include "gguflint_llama.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct est_args {
    uint64_t n_ctx, n_batch, n_ubatch;
    uint32_t type_k, type_v;
    gguflint_format fmt;
    int st;
} est_args;

/* A ggml type by name ("f16", "q8_0"), as llama.cpp's --cache-type-k. */
static bool parse_type(const char *s, uint32_t *out)
{
    for (uint32_t t = 0; t < 64; t++) {
        const char *n = gguflint_ggml_type_name(t);
        if (n && strcasecmp(n, s) == 0) {
            *out = t;
            return true;
        }
    }
    return false;
}

static void estimate_then(gguflint_ctx *ctx, void *arg)
{
    est_args *a = arg;
    a->st = gguflint_estimate(ctx, a->n_ctx, a->n_batch, a->n_ubatch, a->type_k, a->type_v, a->fmt,
                              gguflint_write_file, stdout);
}

static int estimate_one(const char *path, void *arg)
{
    est_args *a = arg;
    gguflint_ctx *ctx = cli_new_ctx();
    if (!ctx)
        return EXIT_USAGE;
    if (a->fmt == GGUFLINT_FORMAT_JSON) {
        fputs("{\"path\":", stdout);
        gguflint_json_string(gguflint_write_file, stdout, path, strlen(path));
        fputs(",\"estimate\":", stdout);
    }
    a->st = GGUFLINT_E_ARG;
    int st = guarded_run(ctx, path, 1ull << 30, estimate_then, a);
    int rc = EXIT_CLEAN;
    if (st != GGUFLINT_OK || a->st != GGUFLINT_OK) {
        if (a->fmt == GGUFLINT_FORMAT_JSON)
            fputs("null", stdout);
        if (st != GGUFLINT_OK) {
            report_status(path, ctx, st);
            rc = EXIT_USAGE;
        } else {
            path_error(path, "not a GGUF model that can be estimated");
            rc = EXIT_FINDINGS;
        }
    }
    if (a->fmt == GGUFLINT_FORMAT_JSON)
        fputs("}\n", stdout);
    gguflint_free(ctx);
    return rc;
}

static int value_opt(const char *name, const char *v, est_args *a)
{
    uint64_t n;
    if (strcmp(name, "--format") == 0) {
        if (!parse_format(v, &a->fmt) ||
            (a->fmt != GGUFLINT_FORMAT_TEXT && a->fmt != GGUFLINT_FORMAT_JSON))
            return usage_error("estimate writes text or json, not '%s'", v);
    } else if (strcmp(name, "--cache-type-k") == 0 || strcmp(name, "--cache-type-v") == 0) {
        if (!parse_type(v, name[13] == 'k' ? &a->type_k : &a->type_v))
            return usage_error("unknown ggml type '%s'", v);
    } else {
        /* --ctx, --batch, --ubatch: 1 .. 2^32 tokens (llama.cpp's uint32_t) */
        if (!parse_u64(v, &n) || n == 0 || n > (1ull << 32))
            return usage_error("%s takes a count of tokens from 1 to 2^32", name);
        if (strcmp(name, "--ctx") == 0)
            a->n_ctx = n;
        else if (strcmp(name, "--batch") == 0)
            a->n_batch = n;
        else
            a->n_ubatch = n;
    }
    return EXIT_CLEAN;
}

int cmd_estimate(int argc, char **argv)
{
    static const char *const with_value[] = {
        "--format", "--ctx", "--batch", "--ubatch", "--cache-type-k", "--cache-type-v", NULL};
    est_args a = {4096, 0, 0, 1, 1, GGUFLINT_FORMAT_TEXT, 0};
    int first = cli_options_first(&argc, argv, with_value);
    if (first < 0)
        return EXIT_USAGE;
    for (int i = 1; i < first; i++) {
        const char *eq = strchr(argv[i], '=');
        bool known = false;
        for (size_t k = 0; with_value[k]; k++) {
            size_t n = strlen(with_value[k]);
            if (strncmp(argv[i], with_value[k], n) != 0)
                continue;
            int rc;
            if (argv[i][n] == '=' && eq)
                rc = value_opt(with_value[k], eq + 1, &a);
            else if (argv[i][n] == 0 && i + 1 < first)
                rc = value_opt(with_value[k], argv[++i], &a);
            else
                continue;
            if (rc != EXIT_CLEAN)
                return rc;
            known = true;
            break;
        }
        if (!known)
            return usage_error("estimate: unknown option '%s'", argv[i]);
    }
    if (first >= argc)
        return usage_error("%s", "estimate needs a path");
    return cli_each_path(first, argc, argv, a.fmt == GGUFLINT_FORMAT_TEXT, estimate_one, &a);
}
