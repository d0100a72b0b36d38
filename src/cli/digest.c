/* digest.c - see digest.h. */
#define _POSIX_C_SOURCE 200809L
#include "digest.h"

#include "sha256.h"

#include "common.h"
#include "common/order.h"
#include "common/pread_full.h"
#include "core/limits.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_BYTES (1u << 20)

static sha256 *sha_new(void)
{
    return sha256_new();
}

static bool sha_done(sha256 *md, char out[65])
{
    return sha256_hex(md, out);
}

/* The one read's tensor ranges, relative to the data section, in
 * order_span_cmp order (by offset, then end, then index). */
typedef order_span span;

/* Copy what the digests need out of a run context. */
static int take_layout(const char *path, const gguflint_ctx *ctx, dfile *out)
{
    const gguflint_header *h = gguflint_get_header(ctx);
    if (!h->metadata_complete || h->data_start > h->file_size) {
        path_error(path, "the metadata cannot be read completely; run gguflint on it");
        return EXIT_FINDINGS;
    }
    out->size = h->file_size;
    out->data_start = h->data_start;
    size_t n = gguflint_tensor_count(ctx);
    out->tensors = calloc(n ? n : 1, sizeof *out->tensors);
    if (!out->tensors)
        return EXIT_USAGE;
    for (size_t i = 0; i < n; i++) {
        const gguflint_tensor *t = gguflint_tensor_get(ctx, i);
        dtensor *d = &out->tensors[out->n_tensors++];
        uint64_t start = h->data_start + t->offset, end;
        if (!t->size_ok || t->offset > h->file_size ||
            __builtin_add_overflow(start, t->nbytes, &end) || end > h->file_size) {
            char msg[128];
            snprintf(msg, sizeof msg,
                     "tensor %zu's data is not inside the file; run gguflint on it", i);
            path_error(path, msg);
            return EXIT_FINDINGS;
        }
        d->name = malloc(t->name.len ? (size_t)t->name.len : 1);
        if (!d->name)
            return EXIT_USAGE;
        memcpy(d->name, t->name.ptr, (size_t)t->name.len);
        d->name_len = (size_t)t->name.len;
        d->type = t->type;
        d->n_dims = t->n_dims <= 4 ? t->n_dims : 4;
        memcpy(d->ne, t->ne, sizeof d->ne);
        d->offset = t->offset;
        d->nbytes = t->nbytes;
    }
    return EXIT_CLEAN;
}

/* The one sequential read: whole file, data section and each distinct tensor
 * range (plan[0..np), disjoint, in offset order). A local file is read with
 * pread (a file truncated meanwhile is a short read, never a SIGBUS); a URL
 * through the run's reader, URL_HASH_PIECE_BYTES per range request, each
 * checked for its length and for the file not having changed. */
static int read_once(const char *path, gguflint_ctx *ctx, int fd, dfile *out, const span *plan,
                     size_t np)
{
    bool url = fd < 0;
    size_t piece = url ? URL_HASH_PIECE_BYTES : READ_BYTES;
    uint8_t *buf = malloc(piece);
    sha256 *whole = sha_new(), *data = sha_new(), *cur = NULL;
    int rc = EXIT_CLEAN;
    if ((!url && fd < 0) || !buf || !whole || !data) {
        path_error(path, !url && fd < 0 ? "cannot open" : !buf ? "out of memory" : sha256_error());
        rc = EXIT_USAGE;
        goto done;
    }
    size_t k = 0;
    for (uint64_t pos = 0; pos < out->size;) {
        uint64_t left = out->size - pos;
        size_t want = left < piece ? (size_t)left : piece;
        ssize_t got;
        if (url) {
            int st = gguflint_read(ctx, pos, buf, want);
            if (st != GGUFLINT_OK) {
                report_status(path, ctx, st); /* the reader's reason */
                rc = EXIT_USAGE;
                goto done;
            }
            got = (ssize_t)want;
        } else {
            got = pread(fd, buf, want, (off_t)pos);
        }
        if (got <= 0) {
            path_error(path, "read error: the file changed while being read");
            rc = EXIT_USAGE;
            goto done;
        }
        uint64_t end = pos + (uint64_t)got;
        sha256_update(whole, buf, (size_t)got);
        if (end > out->data_start) {
            uint64_t from = pos > out->data_start ? pos : out->data_start;
            sha256_update(data, buf + (from - pos), (size_t)(end - from));
        }
        while (k < np) {
            uint64_t s = out->data_start + plan[k].start, e = out->data_start + plan[k].end;
            if (s >= end)
                break;
            uint64_t a = s > pos ? s : pos, b = e < end ? e : end;
            if (!cur && !(cur = sha_new())) {
                rc = EXIT_USAGE;
                goto done;
            }
            sha256_update(cur, buf + (a - pos), (size_t)(b - a));
            if (e > end)
                break;
            if (!sha_done(cur, out->tensors[plan[k].index].sha256)) {
                cur = NULL;
                rc = EXIT_USAGE;
                goto done;
            }
            cur = NULL;
            k++;
        }
        pos = end;
    }
    if (!sha_done(whole, out->file_sha256) || !sha_done(data, out->data_sha256))
        rc = EXIT_USAGE;
    whole = data = NULL;
done:
    sha256_free(whole);
    sha256_free(data);
    sha256_free(cur);
    free(buf);
    return rc;
}

/* A local file's metadata is read through the descriptor its digests are
 * read from (a reader input over pread): one open, with O_NONBLOCK, so a
 * FIFO swapped in for the file neither blocks the open nor is hashed in the
 * file's stead. */
static int fd_read_at(void *user, uint64_t off, void *buf, size_t len, char *err, size_t n)
{
    int fd = *(const int *)user;
    if (pread_full(fd, buf, len, off) == len)
        return GGUFLINT_OK;
    snprintf(err, n, "the file changed while being read");
    return GGUFLINT_E_IO;
}

/* Parse the input: a URL through the library, a local file through *fd
 * (opened here). */
static int parse_input(const char *path, gguflint_ctx *ctx, int *fd)
{
    *fd = -1;
    if (gguflint_url_kind(path) == 1 || strcmp(path, "-") == 0)
        return guarded_run(ctx, path, 0, NULL, NULL);
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat sb;
    if (*fd < 0 || fstat(*fd, &sb) != 0) {
        path_error(path, strerror(errno));
        return GGUFLINT_E_IO;
    }
    if (!S_ISREG(sb.st_mode)) {
        path_error(path, "is not a regular file");
        return GGUFLINT_E_NOT_REGULAR;
    }
    gguflint_reader r = GGUFLINT_READER_INIT;
    r.size = (uint64_t)sb.st_size;
    r.read_at = fd_read_at;
    r.user = fd;
    int st = gguflint_set_name(ctx, path);
    if (st == GGUFLINT_OK)
        st = gguflint_open_reader(ctx, &r);
    if (st == GGUFLINT_OK)
        st = gguflint_run(ctx);
    if (st != GGUFLINT_OK)
        report_status(path, ctx, st);
    return st;
}

int digest_file(const char *path, dfile *out)
{
    memset(out, 0, sizeof *out);
    size_t pl = strlen(path) + 1;
    out->path = malloc(pl);
    gguflint_ctx *ctx = gguflint_new(NULL);
    if (!out->path || !ctx) {
        gguflint_free(ctx);
        return EXIT_USAGE;
    }
    memcpy(out->path, path, pl);
    int fd;
    int st = parse_input(path, ctx, &fd);
    if (st != GGUFLINT_OK) {
        if (fd < 0 && (gguflint_url_kind(path) == 1 || strcmp(path, "-") == 0))
            report_status(path, ctx, st < 0 ? GGUFLINT_E_IO : st);
        gguflint_free(ctx);
        if (fd >= 0)
            close(fd);
        return EXIT_USAGE;
    }
    int rc = take_layout(path, ctx, out);
    if (rc != EXIT_CLEAN) {
        gguflint_free(ctx);
        if (fd >= 0)
            close(fd);
        return rc;
    }
    /* the plan: distinct ranges in offset order; an exact alias copies its
     * root's digest afterwards, any other overlap is refused */
    size_t n = out->n_tensors, np = 0;
    span *order = malloc((n ? n : 1) * sizeof *order);
    size_t *root = malloc((n ? n : 1) * sizeof *root);
    span *plan = malloc((n ? n : 1) * sizeof *plan);
    if (!order || !root || !plan) {
        rc = EXIT_USAGE;
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        /* offset + nbytes is inside the file (take_layout checked) */
        order[i] =
            (span){out->tensors[i].offset, out->tensors[i].offset + out->tensors[i].nbytes, i};
        root[i] = i;
    }
    qsort(order, n, sizeof *order, order_span_cmp);
    uint64_t covered = 0;
    size_t covered_by = 0;
    for (size_t k = 0; k < n; k++) {
        const span *s = &order[k];
        if (s->end == s->start)
            continue; /* an empty range: hashed as the empty string below */
        if (np > 0 && plan[np - 1].start == s->start && plan[np - 1].end == s->end) {
            root[s->index] = plan[np - 1].index;
            continue;
        }
        if (np > 0 && s->start < covered) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "tensors %zu and %zu overlap (their data is not theirs alone); run gguflint "
                     "on it",
                     covered_by, s->index);
            path_error(path, msg);
            rc = EXIT_FINDINGS;
            goto done;
        }
        plan[np++] = *s;
        covered = s->end;
        covered_by = s->index;
    }
    rc = read_once(path, ctx, fd, out, plan, np);
    if (rc == EXIT_CLEAN) {
        char empty[65];
        sha256 *e = sha_new();
        if (!sha_done(e, empty)) {
            rc = EXIT_USAGE;
            goto done;
        }
        for (size_t i = 0; i < n; i++) {
            if (out->tensors[i].nbytes == 0)
                memcpy(out->tensors[i].sha256, empty, 65);
            else if (root[i] != i)
                memcpy(out->tensors[i].sha256, out->tensors[root[i]].sha256, 65);
        }
    }
done:
    gguflint_free(ctx);
    if (fd >= 0)
        close(fd);
    free(order);
    free(root);
    free(plan);
    return rc;
}

void digest_free(dfile *f)
{
    for (size_t i = 0; i < f->n_tensors; i++)
        free(f->tensors[i].name);
    free(f->tensors);
    free(f->path);
    memset(f, 0, sizeof *f);
}
