/* hash_cmd.c - `gguflint hash`: a JSON manifest of SHA-256 digests (OpenSSL's
 * libcrypto) of each tensor's data bytes - so it survives metadata edits -
 * and of the whole data section, for one file or the shards of a split set;
 * and `--verify-manifest FILE`, which checks files against such a manifest
 * (tensors matched by name across all the files given).
 *
 *   gguflint hash [-o OUT] PATH...
 *   gguflint hash --verify-manifest MANIFEST PATH...
 *
 * A PATH may be a URL (the data is read in 16 MiB ranges, each checked) or
 * an hf:// repository (each of its .gguf files).
 *
 * The manifest is read with a small iterative JSON scanner that only keeps
 * the raw (still escaped) text of the "name" and "sha256" strings of the
 * objects in "tensors" arrays; names are compared in that escaped form, which
 * is exactly how they were written, so no decoding ambiguity arises. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"
#include "core/limits.h"

#include <fcntl.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUF_SIZE (1u << 20)
#define URL_PIECE (16u << 20)

typedef struct text {
    char *p;
    size_t len, cap;
    bool failed;
} text;

static void t_put(void *user, const char *s, size_t n)
{
    text *t = user;
    if (t->failed)
        return;
    if (n + 1 > t->cap - t->len) {
        size_t nc = t->cap ? t->cap : 256;
        while (nc - t->len < n + 1)
            nc *= 2;
        char *np = realloc(t->p, nc);
        if (!np) {
            t->failed = true;
            return;
        }
        t->p = np;
        t->cap = nc;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

static void t_puts(text *t, const char *s)
{
    t_put(t, s, strlen(s));
}

/* The JSON string (quotes included) of bytes, as the library writes it. */
static void t_json(text *t, const uint8_t *s, size_t n);

/* Escape via the library's JSON writer: a one-element dump would be heavy, so
 * reuse gguflint_escape's rules through a local JSON escaper that matches the
 * library's json_quote: printable ASCII and valid non-control UTF-8 kept,
 * '"' and '\' escaped, everything else as \u00XX of the byte. */
static void t_json(text *t, const uint8_t *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    t_puts(t, "\"");
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            t_put(t, e, 2);
        } else if (c >= 0x20 && c < 0x7F) {
            t_put(t, (const char *)&c, 1);
        } else {
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            t_put(t, e, 6);
        }
    }
    t_puts(t, "\"");
}

static void hex_digest(const unsigned char *md, char out[65])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[64] = '\0';
}

/* Where a file's bytes come from: a descriptor (pread: a file truncated
 * meanwhile is a short read, never a SIGBUS), or the library's reader for a
 * URL (ranges of the remote file, each checked for its exact length and for
 * the file not having changed). */
typedef struct source {
    int fd;            /* >= 0 for a local file */
    gguflint_ctx *ctx; /* else: read through gguflint_read */
    size_t piece;      /* bytes per read (a URL: one request each) */
} source;

/* SHA-256 of [off, off+n) of the source. */
static bool sha256_range(const source *src, uint64_t off, uint64_t n, uint8_t *buf, char out[65])
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    if (!md || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(md);
        return false;
    }
    bool ok = true;
    while (n > 0 && ok) {
        size_t want = n < src->piece ? (size_t)n : src->piece;
        ssize_t got;
        if (src->fd >= 0)
            got = pread(src->fd, buf, want, (off_t)off);
        else
            got = gguflint_read(src->ctx, off, buf, want) == GGUFLINT_OK ? (ssize_t)want : -1;
        if (got <= 0) {
            ok = false;
            break;
        }
        ok = EVP_DigestUpdate(md, buf, (size_t)got) == 1;
        off += (uint64_t)got;
        n -= (uint64_t)got;
    }
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int dl = 0;
    if (ok)
        ok = EVP_DigestFinal_ex(md, d, &dl) == 1 && dl == 32;
    EVP_MD_CTX_free(md);
    if (ok)
        hex_digest(d, out);
    return ok;
}

/* One tensor's digest, kept for verification. */
typedef struct digest {
    char *name_json; /* the name as a JSON string body (no quotes) */
    char sha[65];
    const char *file;
    bool matched;
} digest;

typedef struct digests {
    digest *d;
    size_t n, cap;
} digests;

static bool push_digest(digests *ds, const char *name_json, size_t len, const char *sha,
                        const char *file)
{
    if (ds->n == ds->cap) {
        size_t nc = ds->cap ? ds->cap * 2 : 256;
        digest *nd = realloc(ds->d, nc * sizeof *nd);
        if (!nd)
            return false;
        ds->d = nd;
        ds->cap = nc;
    }
    char *nm = malloc(len + 1);
    if (!nm)
        return false;
    memcpy(nm, name_json, len);
    nm[len] = '\0';
    digest *g = &ds->d[ds->n++];
    g->name_json = nm;
    snprintf(g->sha, sizeof g->sha, "%s", sha);
    g->file = file;
    g->matched = false;
    return true;
}

static void free_digests(digests *ds)
{
    for (size_t i = 0; i < ds->n; i++)
        free(ds->d[i].name_json);
    free(ds->d);
    memset(ds, 0, sizeof *ds);
}

/* Hash one file: its manifest entry goes to `out`, its tensors to `ds`.
 * Returns EXIT_CLEAN, or EXIT_FINDINGS when the file's layout is unusable,
 * or EXIT_USAGE on I/O errors. */
static int hash_file(const char *path, text *out, digests *ds, uint8_t *buf, bool first)
{
    gguflint_ctx *ctx = gguflint_new(NULL);
    if (!ctx)
        return EXIT_USAGE;
    int st = guarded_run(ctx, path, 0, NULL, NULL);
    if (st != GGUFLINT_OK) {
        report_status(path, ctx, st < 0 ? GGUFLINT_E_IO : st);
        gguflint_free(ctx);
        return EXIT_USAGE;
    }
    const gguflint_header *h = gguflint_get_header(ctx);
    if (!h->metadata_complete || h->data_start > h->file_size) {
        fprintf(stderr, "gguflint: ");
        err_text(path);
        fprintf(stderr, ": the metadata cannot be read completely; run gguflint on it\n");
        gguflint_free(ctx);
        return EXIT_FINDINGS;
    }
    source src = {-1, ctx, BUF_SIZE};
    uint8_t *url_buf = NULL;
    if (gguflint_url_kind(path) == 1) {
        /* a remote file: larger pieces, one range request each */
        src.piece = URL_PIECE;
        buf = url_buf = malloc(URL_PIECE);
        if (!buf) {
            gguflint_free(ctx);
            return EXIT_USAGE;
        }
    } else {
        src.fd = open(path, O_RDONLY | O_CLOEXEC);
        if (src.fd < 0) {
            report_status(path, ctx, GGUFLINT_E_IO);
            gguflint_free(ctx);
            return EXIT_USAGE;
        }
    }
    int rc = EXIT_CLEAN;
    char sha[65];
    t_puts(out, first ? "{\"path\":" : ",{\"path\":");
    t_json(out, (const uint8_t *)path, strlen(path));
    char num[160];
    snprintf(num, sizeof num, ",\"size\":%" PRIu64 ",\"data_start\":%" PRIu64, h->file_size,
             h->data_start);
    t_puts(out, num);
    if (!sha256_range(&src, h->data_start, h->file_size - h->data_start, buf, sha)) {
        report_status(path, ctx, GGUFLINT_E_IO);
        rc = EXIT_USAGE;
        goto done;
    }
    t_puts(out, ",\"data_sha256\":\"");
    t_puts(out, sha);
    t_puts(out, "\",\"tensors\":[");
    for (size_t i = 0; i < gguflint_tensor_count(ctx); i++) {
        const gguflint_tensor *t = gguflint_tensor_get(ctx, i);
        uint64_t start = h->data_start + t->offset, end;
        if (!t->size_ok || __builtin_add_overflow(start, t->nbytes, &end) || end > h->file_size) {
            fprintf(stderr, "gguflint: ");
            err_text(path);
            fprintf(stderr, ": tensor %zu's data is not inside the file; run gguflint on it\n", i);
            rc = EXIT_FINDINGS;
            goto done;
        }
        if (!sha256_range(&src, start, t->nbytes, buf, sha)) {
            report_status(path, ctx, GGUFLINT_E_IO);
            rc = EXIT_USAGE;
            goto done;
        }
        text nm = {0};
        t_json(&nm, t->name.ptr, (size_t)t->name.len);
        if (nm.failed || !push_digest(ds, nm.p + 1, nm.len - 2, sha, path)) {
            free(nm.p);
            rc = EXIT_USAGE;
            goto done;
        }
        t_puts(out, i ? ",{\"name\":" : "{\"name\":");
        t_puts(out, nm.p);
        free(nm.p);
        const char *tn = gguflint_ggml_type_name(t->type);
        snprintf(num, sizeof num,
                 ",\"type\":\"%s\",\"offset\":%" PRIu64 ",\"nbytes\":%" PRIu64 ",\"sha256\":\"",
                 tn ? tn : "?", t->offset, t->nbytes);
        t_puts(out, num);
        t_puts(out, sha);
        t_puts(out, "\"}");
    }
    t_puts(out, "]}");
done:
    if (src.fd >= 0)
        close(src.fd);
    free(url_buf);
    gguflint_free(ctx);
    return rc;
}

/* ---- reading a manifest: an iterative scanner, no recursion ---- */

typedef struct scanner {
    const char *p, *end;
} scanner;

static void skip_ws(scanner *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
        s->p++;
}

/* Scan a JSON string at s->p (a quote); its raw body is [*b, *e). */
static bool scan_string(scanner *s, const char **b, const char **e)
{
    if (s->p >= s->end || *s->p != '"')
        return false;
    s->p++;
    *b = s->p;
    while (s->p < s->end && *s->p != '"') {
        if (*s->p == '\\') {
            s->p++;
            if (s->p >= s->end)
                return false;
        } else if ((unsigned char)*s->p < 0x20) {
            return false;
        }
        s->p++;
    }
    if (s->p >= s->end)
        return false;
    *e = s->p++;
    return true;
}

/* Walk the whole document; in every object whose parent key is "tensors"
 * (an array of objects), pair "name" with "sha256". */
static bool read_manifest(const char *doc, size_t len, digests *want, char *err, size_t errcap)
{
    enum { MAXD = 32 };
    scanner s = {doc, doc + len};
    char kind[MAXD];       /* '{' or '[' */
    bool in_tensors[MAXD]; /* this container is (inside) a "tensors" array */
    int depth = 0;
    const char *key_b = NULL, *key_e = NULL;
    const char *name_b = NULL, *name_e = NULL, *sha_b = NULL, *sha_e = NULL;
    bool expect_key = false;
    skip_ws(&s);
    if (s.p >= s.end || *s.p != '{')
        goto bad;
    do {
        skip_ws(&s);
        if (s.p >= s.end)
            break;
        char c = *s.p;
        if (depth > 0 && kind[depth - 1] == '{' && expect_key) {
            if (c == '}') {
                goto close;
            }
            if (!scan_string(&s, &key_b, &key_e))
                goto bad;
            skip_ws(&s);
            if (s.p >= s.end || *s.p != ':')
                goto bad;
            s.p++;
            expect_key = false;
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth == MAXD)
                goto bad;
            bool tens = (key_b && (size_t)(key_e - key_b) == 7 &&
                         memcmp(key_b, "tensors", 7) == 0 && c == '[') ||
                        (depth > 0 && kind[depth - 1] == '[' && in_tensors[depth - 1] && c == '{');
            kind[depth] = c;
            in_tensors[depth] = tens;
            depth++;
            s.p++;
            key_b = NULL;
            if (c == '{') {
                expect_key = true;
                name_b = sha_b = NULL;
            }
            continue;
        }
        if (c == '}' || c == ']') {
        close:
            if (depth == 0 || kind[depth - 1] != (c == '}' ? '{' : '['))
                goto bad;
            if (c == '}' && in_tensors[depth - 1]) {
                if (!name_b || !sha_b || sha_e - sha_b != 64) {
                    snprintf(err, errcap,
                             "not a gguflint manifest: a tensor entry without a name and a sha256");
                    return false;
                }
                char sha[65];
                memcpy(sha, sha_b, 64);
                sha[64] = '\0';
                if (!push_digest(want, name_b, (size_t)(name_e - name_b), sha, NULL))
                    return false;
            }
            depth--;
            s.p++;
        } else if (c == '"') {
            const char *b, *e;
            if (!scan_string(&s, &b, &e))
                goto bad;
            if (depth > 0 && in_tensors[depth - 1] && key_b) {
                size_t kl = (size_t)(key_e - key_b);
                if (kl == 4 && memcmp(key_b, "name", 4) == 0)
                    name_b = b, name_e = e;
                else if (kl == 6 && memcmp(key_b, "sha256", 6) == 0)
                    sha_b = b, sha_e = e;
            }
        } else {
            /* number, true, false, null */
            while (s.p < s.end && *s.p != ',' && *s.p != '}' && *s.p != ']' && *s.p != ' ' &&
                   *s.p != '\n' && *s.p != '\r' && *s.p != '\t')
                s.p++;
        }
        skip_ws(&s);
        if (s.p < s.end && *s.p == ',') {
            s.p++;
            if (depth > 0 && kind[depth - 1] == '{')
                expect_key = true;
        } else if (depth > 0 && kind[depth - 1] == '{') {
            expect_key = true; /* the next token must be '}' */
        }
    } while (depth > 0);
    skip_ws(&s);
    if (depth != 0 || s.p != s.end)
        goto bad;
    return true;
bad:
    snprintf(err, errcap, "not a gguflint manifest (JSON syntax error near byte %zu)",
             (size_t)(s.p - doc));
    return false;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    text t = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && t.len < (256u << 20))
        t_put(&t, chunk, n);
    fclose(f);
    if (t.failed) {
        free(t.p);
        return NULL;
    }
    *len = t.len;
    return t.p ? t.p : calloc(1, 1);
}

static int verify(const char *manifest, digests *have)
{
    size_t len = 0;
    char *doc = read_all(manifest, &len);
    if (!doc) {
        fprintf(stderr, "gguflint: cannot read the manifest ");
        err_text(manifest);
        fprintf(stderr, "\n");
        return EXIT_USAGE;
    }
    digests want = {0};
    char err[160] = "";
    bool ok = read_manifest(doc, len, &want, err, sizeof err);
    free(doc);
    if (!ok) {
        fprintf(stderr, "gguflint: ");
        err_text(manifest);
        fprintf(stderr, ": %s\n", err[0] ? err : "out of memory");
        free_digests(&want);
        return EXIT_USAGE;
    }
    size_t bad = 0, checked = 0;
    for (size_t i = 0; i < want.n; i++) {
        digest *w = &want.d[i];
        digest *h = NULL;
        for (size_t k = 0; k < have->n && !h; k++) /* names are few hundred to a few thousand */
            if (!have->d[k].matched && strcmp(have->d[k].name_json, w->name_json) == 0)
                h = &have->d[k];
        if (!h) {
            printf("missing: tensor \"%s\" is in the manifest but in none of the files\n",
                   w->name_json);
            bad++;
            continue;
        }
        h->matched = true;
        checked++;
        if (strcmp(h->sha, w->sha) != 0) {
            printf("changed: tensor \"%s\" in ", w->name_json);
            gguflint_escape(gguflint_write_file, stdout, h->file, strlen(h->file));
            printf(": sha256 %s, manifest %s\n", h->sha, w->sha);
            bad++;
        }
    }
    for (size_t k = 0; k < have->n; k++)
        if (!have->d[k].matched) {
            printf("extra: tensor \"%s\" in ", have->d[k].name_json);
            gguflint_escape(gguflint_write_file, stdout, have->d[k].file, strlen(have->d[k].file));
            printf(" is not in the manifest\n");
            bad++;
        }
    printf("%zu tensors verified, %zu problems\n", checked, bad);
    free_digests(&want);
    return bad ? EXIT_FINDINGS : EXIT_CLEAN;
}

int cmd_hash(int argc, char **argv)
{
    const char *out_path = NULL, *manifest = NULL;
    int first_path = argc;
    static const char *const fetch_names[] = {"max-fetch", "fetch-first-range", "header",
                                              "timeout",   "connect-timeout",   "retries"};
    gguflint_fetch_options *fetch = NULL;
    for (int i = 1; i < argc; i++) {
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
            manifest = argv[++i];
        } else if (strncmp(argv[i], "--verify-manifest=", 18) == 0) {
            manifest = argv[i] + 18;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            gguflint_fetch_options_free(fetch);
            return usage_error("hash: unknown option '%s'", argv[i]);
        } else {
            first_path = i;
            break;
        }
    }
    if (first_path >= argc) {
        gguflint_fetch_options_free(fetch);
        return usage_error("%s", "hash needs at least one path");
    }
    uint8_t *buf = malloc(BUF_SIZE);
    if (!buf) {
        gguflint_fetch_options_free(fetch);
        return EXIT_USAGE;
    }
    cli_set_fetch(fetch);
    text out = {0};
    digests have = {0};
    t_puts(&out,
           "{\"schema_version\":1,\"tool\":{\"name\":\"gguflint\",\"version\":\"" GGUFLINT_VERSION
           "\"},\"algorithm\":\"sha256\",\"files\":[");
    int rc = EXIT_CLEAN;
    /* hf:// repositories are listed first; the lists stay alive to the end
     * (the digests point at their names) */
    gguflint_url_list **lists = calloc((size_t)argc, sizeof *lists);
    size_t n_files = 0;
    if (!lists)
        rc = EXIT_USAGE;
    for (int i = first_path; i < argc && rc == EXIT_CLEAN; i++) {
        if (gguflint_url_kind(argv[i]) != 2) {
            rc = hash_file(argv[i], &out, &have, buf, n_files++ == 0);
            continue;
        }
        char err[256] = "";
        int st = gguflint_url_list_new(argv[i], fetch, &lists[i], err, sizeof err);
        if (st != GGUFLINT_OK) {
            fprintf(stderr, "gguflint: ");
            err_text(argv[i]);
            fprintf(stderr, ": %s: ", gguflint_strerror(st));
            err_text(err);
            fprintf(stderr, "\n");
            rc = EXIT_USAGE;
            break;
        }
        for (size_t k = 0; k < gguflint_url_list_count(lists[i]) && rc == EXIT_CLEAN; k++)
            rc = hash_file(gguflint_url_list_get(lists[i], k), &out, &have, buf, n_files++ == 0);
    }
    t_puts(&out, "]}\n");
    free(buf);
    if (rc == EXIT_CLEAN && out.failed)
        rc = EXIT_USAGE;
    if (rc == EXIT_CLEAN) {
        if (manifest) {
            rc = verify(manifest, &have);
        } else if (out_path) {
            FILE *f = fopen(out_path, "wb");
            if (!f || fwrite(out.p, 1, out.len, f) != out.len || fclose(f) != 0) {
                fprintf(stderr, "gguflint: cannot write ");
                err_text(out_path);
                fprintf(stderr, "\n");
                rc = EXIT_USAGE;
            }
        } else {
            fwrite(out.p, 1, out.len, stdout);
        }
    }
    free(out.p);
    free_digests(&have);
    for (int i = 0; lists && i < argc; i++)
        gguflint_url_list_free(lists[i]);
    free(lists);
    cli_set_fetch(NULL);
    gguflint_fetch_options_free(fetch);
    return rc;
}
