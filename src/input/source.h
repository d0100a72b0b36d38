/* source.h - the input stage's internal entry points (the public ones,
 * gguflint_open_file / _set_buffer / _read_stream / _open_reader / _set_name,
 * are in gguflint.h): setting an input, reading any range of it, releasing
 * it. A URL input (src/net/) sits on top of a reader input and hands the
 * context a destructor for its state (ctx->url_free), so nothing here calls
 * up into the network layer. */
#ifndef GGUFLINT_INPUT_SOURCE_H
#define GGUFLINT_INPUT_SOURCE_H

#include "core/internal.h"

/* Open a regular file as the input (gguflint_open_file, src/api/): a small
 * file is read into memory, a larger one mapped. When the mapping fails, or
 * the file is larger than half the address-space limit (RLIMIT_AS), nothing
 * is set and *pread_fd is the open descriptor (the name is set): the caller
 * reads the metadata through it (a reader input whose bytes come by pread)
 * and hands it to the context as ctx->fd. Else *pread_fd is -1. */
int source_open_file(gguflint_ctx *ctx, const char *path, int *pread_fd);
/* GGUFLINT_OK when an input may be set now; else the (sticky) status. */
int source_ready(gguflint_ctx *ctx);
/* Bytes [off, off + len) of the input, wherever they are: a pointer into the
 * input when they are in memory, else read into `scratch` (len bytes) from
 * the mapped file or the reader. NULL when they cannot be read (past the
 * end, an I/O failure: ctx->status becomes GGUFLINT_E_IO with the reason).
 * Thread-safe for reader inputs whose read_at is (the --deep workers). */
const uint8_t *source_read(gguflint_ctx *ctx, uint64_t off, size_t len, uint8_t *scratch);
/* The same without touching the context: on failure *status and err get the
 * reason (for threads that report after joining). */
const uint8_t *source_read_r(const gguflint_ctx *ctx, uint64_t off, size_t len, uint8_t *scratch,
                             int *status, char *err, size_t err_size);
/* The first non-zero byte of [from, to) (read through source_read in pieces
 * when it is not in memory): true with its offset and value. False when all
 * are zero, or on an I/O failure (ctx->status set). */
bool source_first_nonzero(gguflint_ctx *ctx, uint64_t from, uint64_t to, uint64_t *at,
                          uint8_t *byte);
/* Bytes [from, to) of a mapped file will not be needed again soon: give
 * back the pages wholly inside the range (MADV_DONTNEED). They stay in the
 * page cache and are mapped again, with the same bytes, if read again; so
 * the resident set of a run follows what it is reading, not the size of the
 * metadata. A no-op for other inputs (a caller's buffer is not ours). */
void source_drop(gguflint_ctx *ctx, uint64_t from, uint64_t to);
/* The same for a reader moving forward that is done with every byte before
 * `to`: the page holding `from` goes back too, so that back-to-back ranges
 * leave no page resident at their boundaries. */
void source_drop_behind(gguflint_ctx *ctx, uint64_t from, uint64_t to);
/* The --deep scan through the mapping (gguflint_options_set_deep_map): true
 * when the input is a mapped file whose data a scan on `jobs` threads may
 * read in place (the option is on and jobs <= 1: the caller guards SIGBUS
 * on the calling thread only); it then advises the data range for a
 * sequential read. */
bool source_map_scan_begin(gguflint_ctx *ctx, unsigned jobs);
/* Bytes [off, off + len) of the mapped file, in place. The file's size is
 * checked first, so that a file cut before them is a failure here (NULL:
 * *status GGUFLINT_E_IO and err the reason); one cut while they are read
 * raises SIGBUS on the reading thread (the caller guards it). Give them back
 * with source_map_scan_behind once scanned. */
const uint8_t *source_map_range(const gguflint_ctx *ctx, uint64_t off, size_t len, int *status,
                                char *err, size_t err_size);
/* The scan through the mapping has read [from, to), the range after the one
 * before: the 2 MiB blocks it has passed go back (MADV_DONTNEED), so the
 * resident set stays a few MiB however big the data. */
void source_map_scan_behind(gguflint_ctx *ctx, uint64_t from, uint64_t to);
/* Release the input mapping or buffer. */
void source_release(gguflint_ctx *ctx);
/* GGUFLINT_E_IO (and the sticky status) when a mapped file has shrunk since it
 * was opened: reading its mapping past the new end would raise SIGBUS. The
 * check narrows the window; a caller that must survive a file truncated in
 * the middle of a run (the CLI does) also guards SIGBUS. */
int source_check_unchanged(gguflint_ctx *ctx);
/* Close the mapped file's descriptor once a run no longer needs it, so many
 * contexts alive at once (-j, split sets) do not exhaust descriptors. */
void source_close_fd(gguflint_ctx *ctx);
/* Give the pages of a mapped file back once a run has read what it needs:
 * views stay valid (a later access reads the file again), but a finished
 * context no longer holds the metadata's pages resident - many of them wait
 * for their turn to be reported with -j. */
void source_drop_pages(gguflint_ctx *ctx);

#endif
