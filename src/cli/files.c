/* files.c - see files.h. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include "files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static bool push(file_list *fl, const char *path)
{
    if (fl->n == fl->cap) {
        size_t nc = fl->cap ? fl->cap * 2 : 64;
        char **np = realloc(fl->paths, nc * sizeof *np);
        if (!np)
            return false;
        fl->paths = np;
        fl->cap = nc;
    }
    char *d = dup_str(path);
    if (!d)
        return false;
    fl->paths[fl->n++] = d;
    return true;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_gguf_ext(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && strcmp(name + n - 5, ".gguf") == 0;
}

/* Walk a directory tree iteratively: a stack of directories to visit. */
static bool walk(file_list *fl, const char *root)
{
    file_list stack = {0};
    if (!push(&stack, root))
        return false;
    bool ok = true;
    while (stack.n > 0 && ok) {
        char *dir = stack.paths[--stack.n];
        DIR *d = opendir(dir);
        if (!d) {
            free(dir);
            continue; /* unreadable: skipped, like find */
        }
        file_list files = {0}, dirs = {0};
        struct dirent *e;
        while ((e = readdir(d)) != NULL && ok) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            size_t n = strlen(dir) + strlen(e->d_name) + 2;
            char *child = malloc(n);
            if (!child) {
                ok = false;
                break;
            }
            snprintf(child, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
            struct stat sb;
            if (lstat(child, &sb) == 0) {
                if (S_ISDIR(sb.st_mode))
                    ok = push(&dirs, child);
                else if (S_ISREG(sb.st_mode) && has_gguf_ext(e->d_name))
                    ok = push(&files, child);
                /* symbolic links and other types are not followed */
            }
            free(child);
        }
        closedir(d);
        free(dir);
        if (files.n > 1)
            qsort(files.paths, files.n, sizeof *files.paths, cmp_str);
        for (size_t i = 0; i < files.n && ok; i++)
            ok = push(fl, files.paths[i]);
        /* push subdirectories in reverse so they pop in sorted order */
        if (dirs.n > 1)
            qsort(dirs.paths, dirs.n, sizeof *dirs.paths, cmp_str);
        for (size_t i = dirs.n; i-- > 0 && ok;)
            ok = push(&stack, dirs.paths[i]);
        files_free(&files);
        files_free(&dirs);
    }
    files_free(&stack);
    return ok;
}

bool files_add(file_list *fl, const char *path, bool recursive)
{
    struct stat sb;
    if (recursive && strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return walk(fl, path);
    return push(fl, path);
}

void files_free(file_list *fl)
{
    for (size_t i = 0; i < fl->n; i++)
        free(fl->paths[i]);
    free(fl->paths);
    fl->paths = NULL;
    fl->n = fl->cap = 0;
}

bool split_name(const char *path, char *key, size_t cap, unsigned *no, unsigned *count)
{
    size_t n = strlen(path);
    /* "-00001-of-00003.gguf" is 20 bytes */
    if (n < 20 || strcmp(path + n - 5, ".gguf") != 0)
        return false;
    const char *s = path + n - 20;
    if (s[0] != '-' || strncmp(s + 6, "-of-", 4) != 0)
        return false;
    unsigned a = 0, b = 0;
    for (int i = 1; i <= 5; i++) {
        if (s[i] < '0' || s[i] > '9' || s[i + 9] < '0' || s[i + 9] > '9')
            return false;
        a = a * 10 + (unsigned)(s[i] - '0');
        b = b * 10 + (unsigned)(s[i + 9] - '0');
    }
    size_t k = (size_t)(s - path);
    if (k + 1 > cap)
        return false;
    memcpy(key, path, k);
    key[k] = '\0';
    *no = a;
    *count = b;
    return true;
}
