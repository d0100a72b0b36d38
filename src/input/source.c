/* source.c - input: a regular file mapped read-only, a caller's buffer, or a
 * stream read into memory up to a bound (a caller's range reader is in
 * reader.c). Only regular files are mapped; a directory, FIFO or device given
 * as a path is a status, not a finding. source_read is the one way checks
 * reach bytes that may not be in memory. */
#define _POSIX_C_SOURCE 200809L
#include "input/source.h"
#include "common/alloc.h"
#include "common/pread_full.h"

#include "common/fpscan.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
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

int source_ready(gguflint_ctx *ctx)
{
    return ready(ctx);
}

int gguflint_set_name(gguflint_ctx *ctx, const char *name)
{
    if (!ctx || !name)
        return GGUFLINT_E_ARG;
    if (ctx->status != GGUFLINT_OK)
        return ctx->status;
    size_t n = strlen(name) + 1;
    char *copy = gl_malloc(n);
    if (copy)
        memcpy(copy, name, n);
    if (!copy) {
        ctx->status = GGUFLINT_E_NOMEM;
        return ctx->status;
    }
    gl_free(ctx->name);
    ctx->name = copy;
    return GGUFLINT_OK;
}

const char *gguflint_error_detail(const gguflint_ctx *ctx)
{
    return ctx ? ctx->error_detail : "";
}

/* open() of a path longer than PATH_MAX (a -r walk reaches such files):
 * the directories are opened one by one, each relative to the last. */
static int open_long(const char *path, int flags)
{
    int dir = path[0] == '/' ? open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : AT_FDCWD;
    const char *p = path;
    char name[NAME_MAX + 1];
    for (;;) {
        while (*p == '/')
            p++;
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        int fd = -1;
        if (n > NAME_MAX) {
            errno = ENAMETOOLONG;
        } else if (dir >= 0 || dir == AT_FDCWD) {
            memcpy(name, p, n);
            name[n] = '\0';
            bool last = !e || e[strspn(e, "/")] == '\0';
            fd = openat(dir, n ? name : ".",
                        last ? flags : O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
            if (last) {
                int err = errno;
                if (dir >= 0)
                    close(dir);
                errno = err;
                return fd;
            }
        }
        int err = errno;
        if (dir >= 0)
            close(dir);
        if (fd < 0) {
            errno = err;
            return -1;
        }
        dir = fd;
        p = e;
    }
}

/* The address space a mapping may take: half of RLIMIT_AS (the rest is the
 * program's), unlimited when there is no limit. */
static uint64_t map_budget(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return UINT64_MAX;
    return (uint64_t)rl.rlim_cur / 2;
}

int source_open_file(gguflint_ctx *ctx, const char *path, int *pread_fd)
{
    *pread_fd = -1;
    int st = ready(ctx);
    if (st != GGUFLINT_OK)
        return st;
    if (!path)
        return fail(ctx, GGUFLINT_E_ARG, "no path");
    int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
    int fd = open(path, flags);
    if (fd < 0 && errno == ENAMETOOLONG)
        fd = open_long(path, flags);
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
    if (!ctx->name && gguflint_set_name(ctx, path) != GGUFLINT_OK) {
        close(fd);
        return ctx->status;
    }
    if (size > SMALL_FILE_READ_BYTES && (size > SIZE_MAX || size > map_budget())) {
        *pread_fd = fd; /* larger than the address space may hold */
        return GGUFLINT_OK;
    }
    ctx->input_set = true;
    if (size == 0) {
        close(fd);
        ctx->data = (const uint8_t *)"";
        ctx->size = 0;
        ctx->avail = 0;
        return GGUFLINT_OK;
    }
    if (size <= SMALL_FILE_READ_BYTES) {
        /* A small file is read into memory: cheaper than mapping it (no page
         * faults, no munmap, which on a multi-threaded -j run interrupts the
         * other threads to flush their TLBs), and a copy cannot fault if the
         * file shrinks afterwards. A short read is a file that changed. */
        uint8_t *buf = gl_malloc((size_t)size);
        if (!buf) {
            close(fd);
            return fail(ctx, GGUFLINT_E_NOMEM, "out of memory reading the file");
        }
        size_t got = pread_full(fd, buf, (size_t)size, 0);
        close(fd);
        if (got != size) {
            gl_free(buf);
            return fail(ctx, GGUFLINT_E_IO, "the file changed while being read");
        }
        ctx->owned = buf;
        ctx->data = buf;
        ctx->size = size;
        ctx->avail = size;
        return GGUFLINT_OK;
    }
    void *m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
        /* no address space for it (ulimit -v, a 32-bit process): the
         * metadata is read with pread instead */
        ctx->input_set = false;
        *pread_fd = fd;
        return GGUFLINT_OK;
    }
    /* no PMD mappings: a file just written sits in the page cache in 2 MiB
     * folios, and mapped whole they put several MB of metadata in the RSS
     * that source_drop cannot give back page by page (peak RSS on
     * gen_bench's a.gguf right after writing it: median 18.6 -> 16.1 MB) */
    madvise(m, (size_t)size, MADV_NOHUGEPAGE);
    ctx->fd = fd;
    ctx->map = m;
    ctx->map_size = size;
    ctx->data = m;
    ctx->size = size;
    ctx->avail = size;
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
    ctx->avail = size;
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
            uint8_t *nb = gl_realloc(buf, nc ? nc : 1);
            if (!nb) {
                gl_free(buf);
                return fail(ctx, GGUFLINT_E_NOMEM, "out of memory reading the stream");
            }
            buf = nb;
            cap = nc;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                gl_free(buf);
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
    ctx->avail = len;
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
    if (ctx->fd >= 0 && ctx->map) /* an unmapped file is read through it */
        close(ctx->fd);
    ctx->fd = -1;
}

const uint8_t *source_read_r(const gguflint_ctx *ctx, uint64_t off, size_t len, uint8_t *scratch,
                             int *status, char *err, size_t err_size)
{
    if (off > ctx->size || len > ctx->size - off) {
        snprintf(err, err_size, "a read past the end of the input (%llu bytes at 0x%llx)",
                 (unsigned long long)len, (unsigned long long)off);
        *status = GGUFLINT_E_IO;
        return NULL;
    }
    if (off <= ctx->avail && len <= ctx->avail - off)
        return ctx->data + off;
    if (ctx->fd >= 0) {
        size_t got = pread_full(ctx->fd, scratch, len, off);
        if (got == len)
            return scratch;
        snprintf(err, err_size, "reading 0x%llx failed: the file changed while being read",
                 (unsigned long long)(off + got));
        *status = GGUFLINT_E_IO;
        return NULL;
    }
    if (ctx->reader.read_at) {
        err[0] = '\0';
        int st = ctx->reader.read_at(ctx->reader.user, off, scratch, len, err, err_size);
        if (st == GGUFLINT_OK)
            return scratch;
        if (!err[0])
            snprintf(err, err_size, "the reader failed");
        *status = st == GGUFLINT_E_NOMEM ? GGUFLINT_E_NOMEM : GGUFLINT_E_IO;
        return NULL;
    }
    snprintf(err, err_size, "no bytes past the input's memory");
    *status = GGUFLINT_E_INTERNAL; /* a memory input holds every byte */
    return NULL;
}

const uint8_t *source_read(gguflint_ctx *ctx, uint64_t off, size_t len, uint8_t *scratch)
{
    int st = GGUFLINT_OK;
    const uint8_t *p =
        source_read_r(ctx, off, len, scratch, &st, ctx->error_detail, sizeof ctx->error_detail);
    if (!p)
        ctx->status = st;
    return p;
}

enum { SCAN_PIECE = 1u << 20 };

bool source_first_nonzero(gguflint_ctx *ctx, uint64_t from, uint64_t to, uint64_t *at,
                          uint8_t *byte)
{
    uint8_t *scratch = NULL;
    bool found = false;
    while (from < to && !found) {
        size_t n = to - from < SCAN_PIECE ? (size_t)(to - from) : SCAN_PIECE;
        const uint8_t *p;
        if (from <= ctx->avail && n <= ctx->avail - from) {
            p = ctx->data + from;
        } else {
            if (!scratch && !(scratch = gl_malloc(SCAN_PIECE))) {
                ctx->status = GGUFLINT_E_NOMEM;
                break;
            }
            p = source_read(ctx, from, n, scratch);
            if (!p)
                break;
        }
        /* whole zero kilobytes are skipped with vectors (--deep reads every
         * padding byte between tensors) */
        size_t i = 0;
        while (n - i >= 1024 && !fp_any_nonzero(p + i, 1024))
            i += 1024;
        for (; i < n; i++) {
            if (p[i] != 0) {
                *at = from + i;
                *byte = p[i];
                found = true;
                break;
            }
        }
        from += n;
    }
    gl_free(scratch);
    return found;
}

int gguflint_read(gguflint_ctx *ctx, uint64_t offset, void *buf, size_t len)
{
    if (!ctx || (!buf && len))
        return GGUFLINT_E_ARG;
    if (!ctx->input_set)
        return GGUFLINT_E_STATE;
    if (ctx->status != GGUFLINT_OK)
        return ctx->status;
    if (len == 0)
        return GGUFLINT_OK;
    const uint8_t *p = source_read(ctx, offset, len, buf);
    if (!p) {
        /* a failed read is this call's answer, not the context's state */
        int st = ctx->status;
        ctx->status = GGUFLINT_OK;
        return st;
    }
    if (p != buf)
        memcpy(buf, p, len);
    return GGUFLINT_OK;
}

bool source_map_scan_begin(gguflint_ctx *ctx, unsigned jobs)
{
    if (!ctx->opt.deep_map || jobs > 1 || !ctx->map || ctx->data != ctx->map || ctx->fd < 0 ||
        ctx->hdr.data_start >= ctx->map_size)
        return false;
    long ps = sysconf(_SC_PAGESIZE);
    uint64_t page = ps > 0 ? (uint64_t)ps : 4096;
    uint64_t a = ctx->hdr.data_start / page * page;
    /* 2 MiB mappings of the page cache's large folios where the kernel can
     * (the open mapping asked for none, for the metadata's sake): a 4 KiB
     * page table entry per page cost as much system time as pread's copy */
    madvise((uint8_t *)ctx->map + a, (size_t)(ctx->map_size - a), MADV_HUGEPAGE);
    madvise((uint8_t *)ctx->map + a, (size_t)(ctx->map_size - a), MADV_SEQUENTIAL);
    return true;
}

void source_map_scan_behind(gguflint_ctx *ctx, uint64_t from, uint64_t to)
{
    /* whole 2 MiB blocks only, so a huge mapping is never split: each block
     * goes back once the scan has passed its end */
    const uint64_t block = 2u << 20;
    uint64_t a = from / block * block, b = to / block * block;
    if (ctx->map && a < b && b <= ctx->map_size)
        madvise((uint8_t *)ctx->map + a, (size_t)(b - a), MADV_DONTNEED);
}

const uint8_t *source_map_range(const gguflint_ctx *ctx, uint64_t off, size_t len, int *status,
                                char *err, size_t err_size)
{
    if (off > ctx->map_size || len > ctx->map_size - off) {
        snprintf(err, err_size, "a read past the end of the input (%llu bytes at 0x%llx)",
                 (unsigned long long)len, (unsigned long long)off);
        *status = GGUFLINT_E_IO;
        return NULL;
    }
    /* The pages are faulted in by the scan itself, 64 KiB per fault (the
     * kernel's fault-around), not prefaulted: MADV_POPULATE_READ walks the
     * range a page at a time and cost more system time than the faults it
     * saved (2 GiB of F16 in the page cache: 159 ms of CPU per run with it,
     * 110 ms without; see ci/bench.sh's --deep rows). The file's size is
     * checked instead: a cut before the range is a status here; a cut while
     * the range is read raises SIGBUS, which the caller guards. */
    struct stat sb;
    if (len && (fstat(ctx->fd, &sb) != 0 || (uint64_t)sb.st_size < off + len)) {
        snprintf(err, err_size, "reading 0x%llx failed: the file changed while being read",
                 (unsigned long long)off);
        *status = GGUFLINT_E_IO;
        return NULL;
    }
    return ctx->data + off;
}

static void drop_pages(gguflint_ctx *ctx, uint64_t from, uint64_t to, bool whole_first)
{
    if (!ctx->map || ctx->data != ctx->map || to > ctx->map_size || from >= to)
        return;
    long ps = sysconf(_SC_PAGESIZE);
    uint64_t page = ps > 0 ? (uint64_t)ps : 4096;
    uint64_t a = whole_first ? from / page * page : (from + page - 1) / page * page;
    uint64_t b = to / page * page;
    if (a < b)
        madvise((uint8_t *)ctx->map + a, (size_t)(b - a), MADV_DONTNEED);
}

void source_drop(gguflint_ctx *ctx, uint64_t from, uint64_t to)
{
    drop_pages(ctx, from, to, false);
}

void source_drop_behind(gguflint_ctx *ctx, uint64_t from, uint64_t to)
{
    drop_pages(ctx, from, to, true);
}

void source_drop_pages(gguflint_ctx *ctx)
{
    if (ctx->map)
        madvise(ctx->map, (size_t)ctx->map_size, MADV_DONTNEED);
}

void source_release(gguflint_ctx *ctx)
{
    if (ctx->fd >= 0)
        close(ctx->fd);
    ctx->fd = -1;
    if (ctx->map)
        munmap(ctx->map, (size_t)ctx->map_size);
    gl_free(ctx->owned);
    ctx->map = NULL;
    ctx->owned = NULL;
    if (ctx->reader.close)
        ctx->reader.close(ctx->reader.user);
    ctx->reader.close = NULL;
    ctx->reader.read_at = NULL;
    if (ctx->url && ctx->url_free)
        ctx->url_free(ctx->url);
    ctx->url = NULL;
}
