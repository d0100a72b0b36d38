/* file_input.c - gguflint_open_file: a local file mapped or read into memory
 * (source_open_file, input/), or, when the address space cannot hold its
 * mapping (ulimit -v below the file's size, a 32-bit process and a file past
 * 4 GiB), read like a remote file: the metadata through the range-reader
 * input (reader.c) with pread, every other byte with pread when a check asks
 * for it (source_read). So a 100 GB model is checked in a few megabytes of
 * address space; --deep and hash read it in pieces. It sits in api/ because
 * the reader input probes with the parser. */
#define _POSIX_C_SOURCE 200809L
#include "input/source.h"
#include "common/pread_full.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int pread_at(void *user, uint64_t offset, void *buf, size_t len, char *err, size_t err_size)
{
    size_t got = pread_full((int)(intptr_t)user, buf, len, offset);
    if (got == len)
        return GGUFLINT_OK;
    snprintf(err, err_size, "reading 0x%llx failed: the file changed while being read",
             (unsigned long long)(offset + got));
    return GGUFLINT_E_IO;
}

static void close_fd(void *user)
{
    close((int)(intptr_t)user);
}

int gguflint_open_file(gguflint_ctx *ctx, const char *path)
{
    int fd;
    int st = source_open_file(ctx, path, &fd);
    if (st != GGUFLINT_OK || fd < 0)
        return st;
    off_t end = lseek(fd, 0, SEEK_END);
    gguflint_reader r = GGUFLINT_READER_INIT;
    r.read_at = pread_at;
    r.close = close_fd;
    r.user = (void *)(intptr_t)fd;
    r.size = end > 0 ? (uint64_t)end : 0;
    r.max_prefix = r.size; /* local: no fetch cap, only memory bounds the metadata */
    st = gguflint_open_reader(ctx, &r);
    if (st != GGUFLINT_OK)
        return st;
    /* from here source_read reads by pread and source_release closes the
     * descriptor (the reader's close is dropped: it would close it twice) */
    ctx->reader.close = NULL;
    ctx->fd = fd;
    ctx->map_size = r.size; /* the shrinking-file guard compares against it */
    return GGUFLINT_OK;
}
