/* source.c - input: a regular file mapped read-only, a caller's buffer, or a
 * stream read into memory up to a bound. Only regular files are mapped; a
 * directory, FIFO or device given as a path is a status, not a finding. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(gguflint_ctx *ctx, int st, const char *detail)
{
    snprintf(ctx->error_detail, sizeof ctx->error_detail, "%s", detail);
    ctx->status = st;
    return st;
}

static int ready(gguflint_ctx *ctx)
{
    if (!ctx)
        return GGUFLINT_E_ARG;
    if (ctx->status != GGUFLINT_OK)
        return ctx->status;
    if (ctx->input_set)
        return fail(ctx, GGUFLINT_E_STATE, "input already set");
    return GGUFLINT_OK;
}

int gguflint_open_file(gguflint_ctx *ctx, const char *path)
{
    int st = ready(ctx);
    if (st != GGUFLINT_OK)
        return st;
    if (!path)
        return fail(ctx, GGUFLINT_E_ARG, "no path");
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return fail(ctx, GGUFLINT_E_IO, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return fail(ctx, GGUFLINT_E_IO, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return fail(ctx, GGUFLINT_E_NOT_REGULAR,
                    S_ISDIR(sb.st_mode)    ? "is a directory"
                    : S_ISFIFO(sb.st_mode) ? "is a FIFO, not a regular file (use - for a stream)"
                                           : "is not a regular file");
    }
    uint64_t size = (uint64_t)sb.st_size;
    ctx->input_set = true;
    if (!ctx->name && gguflint_set_name(ctx, path) != GGUFLINT_OK) {
        close(fd);
        return ctx->status;
    }
    if (size == 0) {
        close(fd);
        ctx->data = (const uint8_t *)"";
        ctx->size = 0;
        return GGUFLINT_OK;
    }
    if (size > SIZE_MAX) {
        close(fd);
        return fail(ctx, GGUFLINT_E_IO, "file too large for this address space");
    }
    void *m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    if (m == MAP_FAILED) {
        close(fd);
        return fail(ctx, GGUFLINT_E_IO, strerror(e));
    }
    ctx->fd = fd;
    ctx->map = m;
    ctx->map_size = size;
    ctx->data = m;
    ctx->size = size;
    return GGUFLINT_OK;
}

int gguflint_set_buffer(gguflint_ctx *ctx, const void *data, size_t size)
{
    int st = ready(ctx);
    if (st != GGUFLINT_OK)
        return st;
    if (!data && size)
        return fail(ctx, GGUFLINT_E_ARG, "NULL buffer");
    ctx->input_set = true;
    ctx->data = data ? data : (const uint8_t *)"";
    ctx->size = size;
    return GGUFLINT_OK;
}

int gguflint_read_stream(gguflint_ctx *ctx, FILE *f, uint64_t max_bytes)
{
    int st = ready(ctx);
    if (st != GGUFLINT_OK)
        return st;
    if (!f)
        return fail(ctx, GGUFLINT_E_ARG, "no stream");
    size_t cap = 0, len = 0;
    uint8_t *buf = NULL;
    for (;;) {
        if (len == cap) {
            if ((uint64_t)len >= max_bytes)
                break;
            size_t nc = cap ? cap * 2 : 1u << 16;
            if ((uint64_t)nc > max_bytes)
                nc = (size_t)max_bytes;
            uint8_t *nb = realloc(buf, nc ? nc : 1);
            if (!nb) {
                free(buf);
                return fail(ctx, GGUFLINT_E_NOMEM, "out of memory reading the stream");
            }
            buf = nb;
            cap = nc;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                free(buf);
                return fail(ctx, GGUFLINT_E_IO, "read error on the stream");
            }
            break;
        }
    }
    if ((uint64_t)len >= max_bytes) {
        int c = fgetc(f);
        if (c != EOF)
            ctx->stream_truncated = true;
    }
    ctx->input_set = true;
    ctx->owned = buf;
    ctx->data = buf ? buf : (const uint8_t *)"";
    ctx->size = len;
    return GGUFLINT_OK;
}

int source_check_unchanged(gguflint_ctx *ctx)
{
    struct stat sb;
    if (ctx->fd < 0)
        return GGUFLINT_OK;
    if (fstat(ctx->fd, &sb) != 0)
        return fail(ctx, GGUFLINT_E_IO, strerror(errno));
    if ((uint64_t)sb.st_size < ctx->map_size)
        return fail(ctx, GGUFLINT_E_IO, "the file shrank while being read");
    return GGUFLINT_OK;
}

void source_close_fd(gguflint_ctx *ctx)
{
    if (ctx->fd >= 0)
        close(ctx->fd);
    ctx->fd = -1;
}

void source_release(gguflint_ctx *ctx)
{
    if (ctx->fd >= 0)
        close(ctx->fd);
    ctx->fd = -1;
    if (ctx->map)
        munmap(ctx->map, (size_t)ctx->map_size);
    free(ctx->owned);
    ctx->map = NULL;
    ctx->owned = NULL;
}
