/* files.h - the list of inputs of a lint run: paths as given, and with -r
 * every *.gguf file below the given directories, in a deterministic
 * (sorted) order, never following symbolic links (so no loop is possible). */
#ifndef GGUFLINT_CLI_FILES_H
#define GGUFLINT_CLI_FILES_H

#include <stdbool.h>
#include <stddef.h>

typedef struct file_list {
    char **paths;
    size_t n, cap;
} file_list;

/* Add `path`: with `recursive` and a directory, its *.gguf files (sorted, depth
 * first); otherwise the path itself (a directory without -r is then reported
 * by the lint as not a regular file). Returns false on NOMEM. */
bool files_add(file_list *fl, const char *path, bool recursive);
void files_free(file_list *fl);

/* The split-set key of a path: its name with "-NNNNN-of-MMMMM.gguf" removed
 * (written into key), the shard number and count. False when the name does not
 * have that form. */
bool split_name(const char *path, char *key, size_t cap, unsigned *no, unsigned *count);

#endif
