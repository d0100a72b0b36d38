/* files.h - the list of inputs of a lint run: paths as given, and with -r
 * every GGUF file below the given directories, in a deterministic (sorted,
 * depth-first) order.
 *
 * Discovery reaches the layouts models are really stored in: a file is taken
 * when its first four bytes are the GGUF magic, whatever its name (an Ollama
 * blob store: blobs/sha256-...), or when its name ends in .gguf, whatever its
 * bytes (a Git LFS pointer saved as model.gguf is a finding). Symbolic links
 * are followed, to files (a Hugging Face cache: snapshots/REV/x.gguf ->
 * ../../blobs/SHA) and to directories, each directory walked once (its
 * device and inode remembered), so link loops end. Each real file is linted
 * once: among the paths that reach it, the first whose name ends in .gguf,
 * else the first found. --include / --exclude globs (fnmatch with
 * FNM_PATHNAME: '*' does not cross '/') match a path relative to the
 * directory given, or the base name when the pattern has no '/'. FIFOs,
 * devices and sockets are never opened.
 *
 * The walk opens each directory relative to its parent's descriptor
 * (openat, fstatat), so neither depth nor path length is bounded by
 * PATH_MAX; it holds at most a few dozen descriptors, opening one further up
 * again (checked to be the same directory) when it returns there. Nothing it
 * cannot read is skipped silently: a directory that cannot be opened or read,
 * an entry that cannot be stat'ed, a file whose magic cannot be read is an
 * entry of walk_errors (a dangling link, which names nothing, is not). */
#ifndef GGUFLINT_CLI_FILES_H
#define GGUFLINT_CLI_FILES_H

#include <stdbool.h>
#include <stddef.h>

typedef struct file_list {
    char **paths;
    size_t n, cap;
} file_list;

/* What -r takes: include patterns (none: GGUF by magic or name), exclude
 * patterns (files skipped, directories not entered). */
typedef struct file_filter {
    const char *const *include;
    size_t n_include;
    const char *const *exclude;
    size_t n_exclude;
} file_filter;

/* What a walk could not read: paths[i] and why, reasons[i]. */
typedef struct walk_errors {
    file_list paths, reasons;
} walk_errors;

/* Add `path`: with `recursive` and a directory (or a link to one), the GGUF
 * files below it; otherwise the path itself (a directory without -r is then
 * reported by the lint as not a regular file). *found counts the files
 * added; what the walk could not read is appended to *errs. Returns false on
 * NOMEM. */
bool files_add(file_list *fl, const char *path, bool recursive, const file_filter *filter,
               size_t *found, walk_errors *errs);
void walk_errors_free(walk_errors *e);
/* After the inputs are collected: each path the walk could not read becomes
 * an input of its own (appended to fl), reported as an I/O failure with its
 * reason; with `tolerate` (--allow-unreadable) it is a warning on standard
 * error instead, and *e is emptied. False on NOMEM. */
bool walk_errors_take(file_list *fl, walk_errors *e, bool tolerate);
/* Mark the inputs paths[0..n) that are walk errors: skip[i] = the reason,
 * status[i] = GGUFLINT_E_IO (inputs already skipped stay as they are). */
void walk_errors_mark(const char *const *paths, size_t n, const walk_errors *e, const char **skip,
                      int *status);
/* With -r: keep one path per real file (device and inode), in the order of
 * the list. False on NOMEM. */
bool files_dedupe(file_list *fl);
void files_free(file_list *fl);

/* The split-set key of a path: its name with "-NNNNN-of-MMMMM.gguf" removed
 * (written into key), the shard number and count. False when the name does not
 * have that form. */
bool split_name(const char *path, char *key, size_t cap, unsigned *no, unsigned *count);

#endif
