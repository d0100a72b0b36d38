/* diff_cmd.c - `gguflint diff [--format text|json] [--data] A B`: what
 * changed between two GGUF files (diff.c compares, diff_text.c and
 * diff_json.c write). A shard of a split set (NAME-00001-of-00003.gguf)
 * stands for its whole set: every shard is read and the sets are compared
 * as one model each (the KVs of the first shard, the tensors of all).
 * --data also reads every tensor's data and compares their SHA-256 (the
 * digests of `gguflint hash`, digest.c). Exit 0 when nothing differs, 1
 * when something does, 2 for usage and I/O errors. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"
#include "diff.h"
#include "digest.h"
#include "files.h"

#include "core/limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One operand: its shards, their contexts and (with --data) digests. */
typedef struct operand {
    char **paths;
    gguflint_ctx **ctx;
    char **sha; /* per shard: 65 bytes per tensor (diff.h) */
    size_t n;
} operand;

static void operand_free(operand *o)
{
    for (size_t k = 0; k < o->n; k++) {
        free(o->paths[k]);
        if (o->ctx)
            gguflint_free(o->ctx[k]);
        if (o->sha)
            free(o->sha[k]);
    }
    free(o->paths);
    free(o->ctx);
    free(o->sha);
    memset(o, 0, sizeof *o);
}

/* The shard names of the operand: the whole set for a shard's name, else
 * the path itself. */
static int name_shards(const char *path, operand *o)
{
    size_t cap = strlen(path) + 1;
    char *key = malloc(cap);
    unsigned no = 0, count = 0;
    if (!key)
        return EXIT_USAGE;
    bool set = split_name(path, key, cap, &no, &count) && count > 1 && no >= 1 && no <= count;
    o->n = set ? count : 1;
    o->paths = calloc(o->n, sizeof *o->paths);
    o->ctx = calloc(o->n, sizeof *o->ctx);
    int rc = o->paths && o->ctx ? EXIT_CLEAN : EXIT_USAGE;
    for (size_t k = 0; rc == EXIT_CLEAN && k < o->n; k++) {
        if (!set) {
            o->paths[k] = strdup(path);
        } else {
            size_t n = strlen(key) + 24;
            o->paths[k] = malloc(n);
            if (o->paths[k])
                snprintf(o->paths[k], n, "%s-%05zu-of-%05u.gguf", key, k + 1, count);
        }
        rc = o->paths[k] ? EXIT_CLEAN : EXIT_USAGE;
    }
    free(key);
    if (rc != EXIT_CLEAN) {
        fprintf(stderr, "gguflint: out of memory\n");
        if (!o->paths || !o->ctx)
            o->n = 0;
    }
    return rc;
}

/* Read and run every shard. */
static int open_shards(operand *o)
{
    for (size_t k = 0; k < o->n; k++) {
        o->ctx[k] = cli_new_ctx();
        if (!o->ctx[k])
            return EXIT_USAGE;
        int st = guarded_run(o->ctx[k], o->paths[k], LIMIT_DEFAULT_STDIN_BYTES, NULL, NULL);
        if (st != GGUFLINT_OK) {
            report_status(o->paths[k], o->ctx[k], st);
            return EXIT_USAGE;
        }
        if (!gguflint_get_header(o->ctx[k])->is_gguf) {
            fprintf(stderr, "gguflint: ");
            err_text(o->paths[k]);
            fprintf(stderr, ": not a GGUF file\n");
            return EXIT_USAGE;
        }
    }
    return EXIT_CLEAN;
}

/* --data: the digest of every tensor of every shard (one read of each). */
static int digest_shards(operand *o)
{
    o->sha = calloc(o->n, sizeof *o->sha);
    if (!o->sha)
        return EXIT_USAGE;
    for (size_t k = 0; k < o->n; k++) {
        if (strcmp(o->paths[k], "-") == 0 || gguflint_url_kind(o->paths[k]) != 0)
            return usage_error("diff --data reads local files only, not '%s'", o->paths[k]);
        dfile f = {0};
        int rc = digest_file(o->paths[k], &f);
        if (rc == EXIT_CLEAN && f.n_tensors != gguflint_tensor_count(o->ctx[k])) {
            fprintf(stderr, "gguflint: ");
            err_text(o->paths[k]);
            fprintf(stderr, ": the file changed while being read\n");
            rc = EXIT_USAGE;
        }
        if (rc == EXIT_CLEAN) {
            o->sha[k] = malloc((f.n_tensors ? f.n_tensors : 1) * 65);
            for (size_t i = 0; o->sha[k] && i < f.n_tensors; i++)
                memcpy(o->sha[k] + 65 * i, f.tensors[i].sha256, 65);
            if (!o->sha[k])
                rc = EXIT_USAGE;
        }
        digest_free(&f);
        if (rc != EXIT_CLEAN)
            return EXIT_USAGE;
    }
    return EXIT_CLEAN;
}

static diff_side side_of(const operand *o)
{
    return (diff_side){o->ctx, (const char *const *)o->paths, o->n, (const char *const *)o->sha};
}

typedef struct diff_args {
    bool json, data;
    const char *a, *b;
} diff_args;

static int parse_args(int argc, char **argv, diff_args *d)
{
    static const char *const with_value[] = {"--format", NULL};
    int first = cli_options_first(&argc, argv, with_value);
    if (first < 0)
        return EXIT_USAGE;
    for (int i = 1; i < first; i++) {
        const char *f = NULL;
        if (strcmp(argv[i], "--format") == 0 && i + 1 < first)
            f = argv[++i];
        else if (strncmp(argv[i], "--format=", 9) == 0)
            f = argv[i] + 9;
        else if (strcmp(argv[i], "--data") == 0)
            d->data = true;
        else
            return usage_error("diff: unknown option '%s'", argv[i]);
        if (f && strcmp(f, "json") == 0)
            d->json = true;
        else if (f && strcmp(f, "text") != 0)
            return usage_error("diff: --format is text or json, not '%s'", f);
    }
    if (argc - first != 2)
        return usage_error("%s", "diff takes two files: gguflint diff A B");
    d->a = argv[first];
    d->b = argv[first + 1];
    if (strcmp(d->a, "-") == 0 && strcmp(d->b, "-") == 0)
        return usage_error("%s", "diff: at most one operand may be standard input");
    return EXIT_CLEAN;
}

int cmd_diff(int argc, char **argv)
{
    diff_args d = {0};
    int rc = parse_args(argc, argv, &d);
    if (rc != EXIT_CLEAN)
        return rc;
    operand a = {0}, b = {0};
    rc = name_shards(d.a, &a);
    if (rc == EXIT_CLEAN)
        rc = name_shards(d.b, &b);
    if (rc == EXIT_CLEAN)
        rc = open_shards(&a);
    if (rc == EXIT_CLEAN)
        rc = open_shards(&b);
    if (rc == EXIT_CLEAN && d.data)
        rc = digest_shards(&a);
    if (rc == EXIT_CLEAN && d.data)
        rc = digest_shards(&b);
    if (rc == EXIT_CLEAN) {
        diff_side sa = side_of(&a), sb = side_of(&b);
        diff_result r;
        if (!diff_run(&sa, &sb, &r)) {
            fprintf(stderr, "gguflint: diff: %s\n",
                    r.nomem ? "out of memory" : "a value could not be read");
            rc = EXIT_USAGE;
        } else {
            (d.json ? diff_write_json : diff_write_text)(&sa, &sb, &r, gguflint_write_file, stdout);
            rc = diff_any(&r) ? EXIT_FINDINGS : EXIT_CLEAN;
        }
        diff_free(&r);
    }
    operand_free(&a);
    operand_free(&b);
    if (fflush(stdout) != 0 && rc != EXIT_USAGE) {
        fprintf(stderr, "gguflint: diff: cannot write the output\n");
        rc = EXIT_USAGE;
    }
    return rc;
}
