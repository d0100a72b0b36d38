/* hash_cmd.c - `gguflint hash`: a JSON manifest of SHA-256 digests (OpenSSL's
 * libcrypto, digest.c) of a file or of the shards of a split set - the whole
 * file, the data section and each tensor's data bytes (which survive edits of
 * the metadata) - and `--verify-manifest FILE`, which checks files against
 * such a manifest (read with libjansson, manifest.c).
 *
 *   gguflint hash [-o OUT] PATH...
 *   gguflint hash --verify-manifest MANIFEST [--data-only] PATH...
 *
 * Verification checks everything the manifest records: per tensor its digest,
 * type, shape, offset and size (tensors matched by their exact name bytes
 * across all the files given); per file its whole-file digest, size, data
 * start and data-section digest (files matched by base name, or the only one
 * with the only one). --data-only leaves out what metadata edits change (the
 * whole-file digest, size and data start). Names are matched by sorting both
 * sides (O(n log n) whatever the names are) and every printed name is
 * escaped.
 *
 * A PATH may be a URL (read in 16 MiB ranges, each checked) or an hf://
 * repository (each of its .gguf files). */
#define _POSIX_C_SOURCE 200809L
#include "common.h"
#include "common/order.h"
#include "digest.h"
#include "manifest.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing ---- */

/* The manifest is assembled in a memory stream (open_memstream) and written
 * whole, so a failure leaves no partial file. */
static void t_write(void *user, const char *s, size_t n)
{
    fwrite(s, 1, n, user);
}

/* JSON strings go through the library's one JSON string writer. */
static void t_json(FILE *out, const void *s, size_t n)
{
    gguflint_json_string(t_write, out, s, n);
}

/* True when s[0..n) is UTF-8 (jansson's check, the reader's check). */
static bool is_utf8(const uint8_t *s, size_t n)
{
    json_t *j = json_stringn((const char *)s, n);
    json_decref(j);
    return j != NULL;
}

/* ,"KEY_hex":"..." for bytes that are not UTF-8 (their JSON string escapes
 * each such byte as a code point, which names other bytes). */
static void t_hex_field(FILE *out, const char *key, const uint8_t *s, size_t n)
{
    if (is_utf8(s, n))
        return;
    static const char hex[] = "0123456789abcdef";
    fputs(key, out);
    for (size_t k = 0; k < n; k++) {
        char h[2] = {hex[s[k] >> 4], hex[s[k] & 15]};
        fwrite(h, 1, 2, out);
    }
    fputs("\"", out);
}

static void write_file(FILE *out, const dfile *f, bool first)
{
    fputs(first ? "{\"path\":" : ",{\"path\":", out);
    t_json(out, f->path, strlen(f->path));
    t_hex_field(out, ",\"path_hex\":\"", (const uint8_t *)f->path, strlen(f->path));
    fprintf(out,
            ",\"size\":%" PRIu64 ",\"data_start\":%" PRIu64 ",\"file_sha256\":\"%s\""
            ",\"data_sha256\":\"%s\",\"tensors\":[",
            f->size, f->data_start, f->file_sha256, f->data_sha256);
    for (size_t i = 0; i < f->n_tensors; i++) {
        const dtensor *t = &f->tensors[i];
        fputs(i ? ",{\"name\":" : "{\"name\":", out);
        t_json(out, t->name, t->name_len);
        t_hex_field(out, ",\"name_hex\":\"", t->name, t->name_len);
        const char *tn = gguflint_ggml_type_name(t->type);
        fputs(",\"type\":", out);
        t_json(out, tn ? tn : "?", strlen(tn ? tn : "?"));
        fputs(",\"shape\":[", out);
        for (uint32_t d = 0; d < t->n_dims; d++)
            fprintf(out, d ? ",%" PRIu64 : "%" PRIu64, t->ne[d]);
        fprintf(out, "],\"offset\":%" PRIu64 ",\"nbytes\":%" PRIu64 ",\"sha256\":\"%s\"}",
                t->offset, t->nbytes, t->sha256);
    }
    fputs("]}", out);
}

/* ---- verifying ---- */

/* A tensor on either side, for matching by name. */
typedef struct ref {
    const uint8_t *name;
    size_t len;
    size_t a, b; /* manifest: tensor index; files: file and tensor index */
} ref;

static int ref_cmp(const void *x, const void *y)
{
    const ref *p = x, *q = y;
    size_t n = p->len < q->len ? p->len : q->len;
    int c = n ? memcmp(p->name, q->name, n) : 0;
    return c ? c : 4 * ORDER(p->len, q->len) + 2 * ORDER(p->a, q->a) + ORDER(p->b, q->b);
}

static void show_name(const uint8_t *s, size_t n)
{
    putchar('"');
    gguflint_escape(gguflint_write_file, stdout, s, n);
    putchar('"');
}

static void show_path(const char *p)
{
    gguflint_escape(gguflint_write_file, stdout, p, strlen(p));
}

static const char *base_of(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Compare what a manifest tensor records with the file's; print one
 * "changed:" line listing every difference. True when they agree. */
static bool check_tensor(const mtensor *w, const dfile *f, const dtensor *h)
{
    char diff[1024];
    size_t used = 0;
    diff[0] = '\0';
#define ADD(...)                                                                                   \
    do {                                                                                           \
        int k_ = snprintf(diff + used, sizeof diff - used, __VA_ARGS__);                           \
        if (k_ > 0 && (size_t)k_ < sizeof diff - used)                                             \
            used += (size_t)k_;                                                                    \
    } while (0)
    if (strcmp(w->sha256, h->sha256) != 0)
        ADD("; sha256 %s, manifest %s", h->sha256, w->sha256);
    const char *tn = gguflint_ggml_type_name(h->type);
    if (w->type[0] && strcmp(w->type, tn ? tn : "?") != 0) {
        ADD("; type %s, manifest ", tn ? tn : "?");
        /* the recorded name is printed escaped (it came from a file) */
        for (const char *c = w->type; *c && used + 8 < sizeof diff; c++)
            used += (size_t)snprintf(diff + used, sizeof diff - used,
                                     (*c >= 0x20 && *c < 0x7F) ? "%c" : "\\x%02x",
                                     (unsigned)(unsigned char)*c);
    }
    if (w->has_shape) {
        bool same = w->n_dims == h->n_dims;
        for (uint32_t d = 0; same && d < w->n_dims; d++)
            same = w->shape[d] == h->ne[d];
        if (!same) {
            ADD("; shape [");
            for (uint32_t d = 0; d < h->n_dims; d++)
                ADD(d ? ",%" PRIu64 : "%" PRIu64, h->ne[d]);
            ADD("], manifest [");
            for (uint32_t d = 0; d < w->n_dims; d++)
                ADD(d ? ",%" PRIu64 : "%" PRIu64, w->shape[d]);
            ADD("]");
        }
    }
    if (w->has_offset && w->offset != h->offset)
        ADD("; offset %" PRIu64 ", manifest %" PRIu64, h->offset, w->offset);
    if (w->has_nbytes && w->nbytes != h->nbytes)
        ADD("; nbytes %" PRIu64 ", manifest %" PRIu64, h->nbytes, w->nbytes);
#undef ADD
    if (!used)
        return true;
    printf("changed: tensor ");
    show_name(h->name, h->name_len);
    printf(" in ");
    show_path(f->path);
    printf(": %s\n", diff + 2);
    return false;
}

/* File-level fields of a paired manifest file; returns the problems. */
static size_t check_file(const mfile *w, const dfile *h, bool data_only)
{
    size_t bad = 0;
    if (w->data_sha256[0] && strcmp(w->data_sha256, h->data_sha256) != 0) {
        printf("changed: file ");
        show_path(h->path);
        printf(": data_sha256 %s, manifest %s\n", h->data_sha256, w->data_sha256);
        bad++;
    }
    if (data_only)
        return bad;
    if (w->file_sha256[0] && strcmp(w->file_sha256, h->file_sha256) != 0) {
        printf("changed: file ");
        show_path(h->path);
        printf(": file_sha256 %s, manifest %s (bytes outside the tensor data changed unless "
               "the tensors did)\n",
               h->file_sha256, w->file_sha256);
        bad++;
    }
    if ((w->has_size && w->size != h->size) ||
        (w->has_data_start && w->data_start != h->data_start)) {
        printf("changed: file ");
        show_path(h->path);
        printf(": size %" PRIu64 " and data_start %" PRIu64 ", manifest %" PRIu64 " and %" PRIu64
               "\n",
               h->size, h->data_start, w->size, w->data_start);
        bad++;
    }
    return bad;
}

static size_t verify_files(const manifest *m, const dfile *fs, size_t nf, bool data_only)
{
    size_t bad = 0;
    long *pair_of = malloc((m->n_files ? m->n_files : 1) * sizeof *pair_of);
    bool *taken = calloc(nf ? nf : 1, sizeof *taken);
    if (!pair_of || !taken) {
        free(pair_of);
        free(taken);
        return 1;
    }
    for (size_t i = 0; i < m->n_files; i++) {
        pair_of[i] = -1;
        for (size_t k = 0; k < nf && pair_of[i] < 0; k++)
            if (!taken[k] && strcmp(base_of(m->files[i].path), base_of(fs[k].path)) == 0) {
                pair_of[i] = (long)k;
                taken[k] = true;
            }
    }
    if (m->n_files == 1 && nf == 1 && pair_of[0] < 0) { /* a renamed single file */
        pair_of[0] = 0;
        taken[0] = true;
    }
    for (size_t i = 0; i < m->n_files; i++) {
        if (pair_of[i] >= 0) {
            bad += check_file(&m->files[i], &fs[pair_of[i]], data_only);
            continue;
        }
        printf("missing: file ");
        show_path(m->files[i].path);
        printf(" is in the manifest but was not given\n");
        bad++;
    }
    for (size_t k = 0; k < nf; k++)
        if (!taken[k]) {
            printf("extra: file ");
            show_path(fs[k].path);
            printf(" is not in the manifest\n");
            bad++;
        }
    free(pair_of);
    free(taken);
    return bad;
}

static int verify(const char *path, const dfile *fs, size_t nf, bool data_only)
{
    manifest m;
    char err[256] = "";
    if (!manifest_load(path, &m, err, sizeof err)) {
        fprintf(stderr, "gguflint: ");
        err_text(path);
        fprintf(stderr, ": manifest: ");
        err_text(err);
        fprintf(stderr, "\n");
        return EXIT_USAGE;
    }
    size_t nh = 0;
    for (size_t i = 0; i < nf; i++)
        nh += fs[i].n_tensors;
    ref *want = malloc((m.n_tensors ? m.n_tensors : 1) * sizeof *want);
    ref *have = malloc((nh ? nh : 1) * sizeof *have);
    long *want_pair = malloc((m.n_tensors ? m.n_tensors : 1) * sizeof *want_pair);
    long *have_pair = malloc((nh ? nh : 1) * sizeof *have_pair);
    if (!want || !have || !want_pair || !have_pair) {
        fprintf(stderr, "gguflint: out of memory\n");
        free(want), free(have), free(want_pair), free(have_pair);
        manifest_free(&m);
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < m.n_tensors; i++) {
        want[i] = (ref){m.tensors[i].name, m.tensors[i].name_len, i, 0};
        want_pair[i] = -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < nf; i++)
        for (size_t t = 0; t < fs[i].n_tensors; t++) {
            have[k] = (ref){fs[i].tensors[t].name, fs[i].tensors[t].name_len, i, t};
            have_pair[k++] = -1;
        }
    /* match by name: sort both sides, walk them together; equal names pair
     * up in manifest order and file order */
    qsort(want, m.n_tensors, sizeof *want, ref_cmp);
    qsort(have, nh, sizeof *have, ref_cmp);
    size_t i = 0, j = 0;
    while (i < m.n_tensors && j < nh) {
        ref a = want[i], b = have[j];
        size_t n = a.len < b.len ? a.len : b.len;
        int c = n ? memcmp(a.name, b.name, n) : 0;
        if (!c && a.len != b.len)
            c = a.len < b.len ? -1 : 1;
        if (c < 0) {
            i++;
        } else if (c > 0) {
            j++;
        } else {
            want_pair[a.a] = (long)j;
            have_pair[j] = (long)a.a;
            i++;
            j++;
        }
    }
    size_t bad = 0, checked = 0;
    for (size_t w = 0; w < m.n_tensors; w++) {
        const mtensor *mt = &m.tensors[w];
        if (want_pair[w] < 0) {
            printf("missing: tensor ");
            show_name(mt->name, mt->name_len);
            printf(" is in the manifest but in none of the files\n");
            bad++;
            continue;
        }
        const ref *h = &have[want_pair[w]];
        checked++;
        if (!check_tensor(mt, &fs[h->a], &fs[h->a].tensors[h->b]))
            bad++;
    }
    for (size_t h = 0; h < nh; h++)
        if (have_pair[h] < 0) {
            const dtensor *t = &fs[have[h].a].tensors[have[h].b];
            printf("extra: tensor ");
            show_name(t->name, t->name_len);
            printf(" in ");
            show_path(fs[have[h].a].path);
            printf(" is not in the manifest\n");
            bad++;
        }
    bad += verify_files(&m, fs, nf, data_only);
    printf("%zu tensors verified, %zu problems\n", checked, bad);
    free(want), free(have), free(want_pair), free(have_pair);
    manifest_free(&m);
    return bad ? EXIT_FINDINGS : EXIT_CLEAN;
}

/* The files to digest: the paths given, hf:// repositories replaced by
 * their .gguf files (the lists stay alive to the end: the names point into
 * them). */
typedef struct inputs {
    const char **paths;
    size_t n, cap;
    gguflint_url_list **lists;
    size_t n_lists;
} inputs;

static bool add_input(inputs *in, const char *p)
{
    if (in->n == in->cap) {
        size_t nc = in->cap ? 2 * in->cap : 16;
        const char **np = realloc(in->paths, nc * sizeof *np);
        if (!np)
            return false;
        in->paths = np;
        in->cap = nc;
    }
    in->paths[in->n++] = p;
    return true;
}

static int collect_inputs(inputs *in, char **argv, int first, int argc,
                          const gguflint_fetch_options *fetch)
{
    in->lists = calloc((size_t)(argc - first), sizeof *in->lists);
    if (!in->lists)
        return EXIT_USAGE;
    for (int i = first; i < argc; i++) {
        if (gguflint_url_kind(argv[i]) != 2) {
            if (!add_input(in, argv[i]))
                return EXIT_USAGE;
            continue;
        }
        char err[256] = "";
        gguflint_url_list **l = &in->lists[in->n_lists++];
        int st = gguflint_url_list_new(argv[i], fetch, l, err, sizeof err);
        if (st != GGUFLINT_OK) {
            fprintf(stderr, "gguflint: ");
            err_text(argv[i]);
            fprintf(stderr, ": %s: ", gguflint_strerror(st));
            err_text(err);
            fprintf(stderr, "\n");
            return EXIT_USAGE;
        }
        for (size_t k = 0; k < gguflint_url_list_count(*l); k++)
            if (!add_input(in, gguflint_url_list_get(*l, k)))
                return EXIT_USAGE;
    }
    return EXIT_CLEAN;
}

static void free_inputs(inputs *in)
{
    for (size_t i = 0; i < in->n_lists; i++)
        gguflint_url_list_free(in->lists[i]);
    free(in->lists);
    free(in->paths);
}

static int write_manifest(const dfile *fs, size_t nf, const char *out_path)
{
    int rc = EXIT_CLEAN;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    bool built = out != NULL;
    if (out) {
        fputs(
            "{\"schema_version\":1,\"tool\":{\"name\":\"gguflint\",\"version\":\"" GGUFLINT_VERSION
            "\"},\"algorithm\":\"sha256\",\"files\":[",
            out);
        for (size_t i = 0; i < nf; i++)
            write_file(out, &fs[i], i == 0);
        fputs("]}\n", out);
        built = !ferror(out);
        if (fclose(out) != 0)
            built = false;
    }
    if (!built) {
        fprintf(stderr, "gguflint: out of memory\n");
        rc = EXIT_USAGE;
    } else if (out_path) {
        FILE *f = fopen(out_path, "wb");
        bool ok = f && fwrite(buf, 1, len, f) == len;
        if (f && fclose(f) != 0)
            ok = false;
        if (!ok) {
            fprintf(stderr, "gguflint: cannot write ");
            err_text(out_path);
            fprintf(stderr, "\n");
            rc = EXIT_USAGE;
        }
    } else {
        fwrite(buf, 1, len, stdout);
    }
    free(buf);
    return rc;
}

int cmd_hash(int argc, char **argv)
{
    const char *out_path = NULL, *manifest_path = NULL;
    bool data_only = false;
    int first_path = argc;
    static const char *const fetch_names[] = {"max-fetch", "fetch-first-range", "header",
                                              "timeout",   "connect-timeout",   "retries",
                                              "deadline",  "file-deadline"};
    gguflint_fetch_options *fetch = NULL;
    static const char *const with_value[] = {
        "-o",       "--verify-manifest", "--max-fetch",       "--fetch-first-range",
        "--header", "--timeout",         "--connect-timeout", "--retries",
        NULL};
    int opts_end = cli_options_first(&argc, argv, with_value); /* options after paths too */
    if (opts_end < 0)
        return EXIT_USAGE;
    first_path = opts_end;
    for (int i = 1; i < opts_end; i++) {
        bool fetch_opt = false;
        for (size_t k = 0; k < sizeof fetch_names / sizeof *fetch_names && !fetch_opt; k++)
            if (strncmp(argv[i], "--", 2) == 0 && strcmp(argv[i] + 2, fetch_names[k]) == 0 &&
                i + 1 < argc) {
                int frc = cli_fetch_option(&fetch, fetch_names[k], argv[++i]);
                if (frc != EXIT_CLEAN) {
                    gguflint_fetch_options_free(fetch);
                    return frc;
                }
                fetch_opt = true;
            }
        if (fetch_opt)
            continue;
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out_path = argv[++i];
        } else if (strcmp(argv[i], "--verify-manifest") == 0 && i + 1 < argc) {
            manifest_path = argv[++i];
        } else if (strncmp(argv[i], "--verify-manifest=", 18) == 0) {
            manifest_path = argv[i] + 18;
        } else if (strcmp(argv[i], "--data-only") == 0) {
            data_only = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            gguflint_fetch_options_free(fetch);
            return usage_error("hash: unknown option '%s'", argv[i]);
        } else {
            first_path = i;
            break;
        }
    }
    int rc = EXIT_CLEAN;
    if (first_path >= argc)
        rc = usage_error("%s", "hash needs at least one path");
    else if (data_only && !manifest_path)
        rc = usage_error("%s", "hash: --data-only goes with --verify-manifest");
    if (rc != EXIT_CLEAN) {
        gguflint_fetch_options_free(fetch);
        return rc;
    }
    cli_set_fetch(fetch);
    inputs in = {0};
    dfile *fs = NULL;
    size_t done = 0;
    rc = collect_inputs(&in, argv, first_path, argc, fetch);
    if (rc == EXIT_CLEAN && !(fs = calloc(in.n ? in.n : 1, sizeof *fs)))
        rc = EXIT_USAGE;
    for (; rc == EXIT_CLEAN && done < in.n; done++)
        rc = digest_file(in.paths[done], &fs[done]);
    if (rc == EXIT_CLEAN && manifest_path)
        rc = verify(manifest_path, fs, in.n, data_only);
    else if (rc == EXIT_CLEAN)
        rc = write_manifest(fs, in.n, out_path);
    for (size_t i = 0; i < done; i++)
        digest_free(&fs[i]);
    free(fs);
    free_inputs(&in);
    cli_set_fetch(NULL);
    gguflint_fetch_options_free(fetch);
    return rc;
}
