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
 * devices and sockets are never opened. */
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

/* Add `path`: with `recursive` and a directory (or a link to one), the GGUF
 * files below it; otherwise the path itself (a directory without -r is then
 * reported by the lint as not a regular file). *found counts the files
 * added. Returns false on NOMEM. */
bool files_add(file_list *fl, const char *path, bool recursive, const file_filter *filter,
               size_t *found);
/* With -r: keep one path per real file (device and inode), in the order of
 * the list. False on NOMEM. */
bool files_dedupe(file_list *fl);
void files_free(file_list *fl);

/* The split-set key of a path: its name with "-NNNNN-of-MMMMM.gguf" removed
 * (written into key), the shard number and count. False when the name does not
 * have that form. */
bool split_name(const char *path, char *key, size_t cap, unsigned *no, unsigned *count);

#endif
