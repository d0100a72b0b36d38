/* files.c - see files.h. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include "files.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

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

static const char *base_of(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The first four bytes of a regular file are a GGUF magic ("GGUF", or the
 * 2023 pre-release "FUGG" that gguflint reports). */
static bool has_magic(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return false;
    char m[4];
    ssize_t got = read(fd, m, 4);
    close(fd);
    return got == 4 && (memcmp(m, "GGUF", 4) == 0 || memcmp(m, "FUGG", 4) == 0);
}

/* A pattern with '/' matches the path relative to the root, one without
 * matches the base name; '*' never crosses '/'. */
static bool matches_any(const char *const *pats, size_t n, const char *rel)
{
    for (size_t i = 0; i < n; i++) {
        const char *subject = strchr(pats[i], '/') ? rel : base_of(rel);
        if (fnmatch(pats[i], subject, FNM_PATHNAME) == 0)
            return true;
    }
    return false;
}

/* ---- directories walked once: a set of (device, inode) ---- */

typedef struct dir_id {
    dev_t dev;
    ino_t ino;
    bool used;
} dir_id;

typedef struct dir_set {
    dir_id *slots;
    size_t cap, used;
} dir_set;

/* A salt drawn once per process: inode numbers come from the file system,
 * and a crafted one (an image, FUSE) could choose them to collide under a
 * fixed function. */
static uint64_t dir_salt(void)
{
    static uint64_t salt;
    if (!salt) {
        uint64_t v = 0;
        if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v)
            v = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&v;
        salt = v | 1;
    }
    return salt;
}

static size_t dir_hash(dev_t dev, ino_t ino)
{
    uint64_t k = dir_salt();
    uint64_t x = ((uint64_t)ino ^ k) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)dev + (k >> 17));
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull ^ (k << 1);
    x ^= x >> 29;
    x *= 0x94D049BB133111EBull;
    return (size_t)(x ^ (x >> 32));
}

/* Insert; 1 when new, 0 when already there, -1 on NOMEM. */
static int dir_set_add(dir_set *s, dev_t dev, ino_t ino)
{
    if ((s->used + 1) * 2 > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 64;
        dir_id *ns = calloc(nc, sizeof *ns);
        if (!ns)
            return -1;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slots[i].used)
                continue;
            size_t h = dir_hash(s->slots[i].dev, s->slots[i].ino) & (nc - 1);
            while (ns[h].used)
                h = (h + 1) & (nc - 1);
            ns[h] = s->slots[i];
        }
        free(s->slots);
        s->slots = ns;
        s->cap = nc;
    }
    size_t h = dir_hash(dev, ino) & (s->cap - 1);
    for (; s->slots[h].used; h = (h + 1) & (s->cap - 1))
        if (s->slots[h].dev == dev && s->slots[h].ino == ino)
            return 0;
    s->slots[h] = (dir_id){dev, ino, true};
    s->used++;
    return 1;
}

/* ---- the walk ---- */

static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    bool slash = a > 0 && dir[a - 1] == '/';
    size_t sep = slash || a == 0 ? 0 : 1;
    char *p = malloc(a + sep + b + 1);
    if (p) {
        memcpy(p, dir, a);
        p[a] = '/';
        memcpy(p + a + sep, name, b + 1);
    }
    return p;
}

/* Walk a directory tree iteratively: a stack of (path, path relative to
 * the root) of directories to visit. */
static bool walk(file_list *fl, const char *root, const file_filter *f, size_t *found)
{
    file_list stack = {0}, rels = {0};
    dir_set seen = {0};
    bool ok = push(&stack, root) && push(&rels, "");
    while (stack.n > 0 && ok) {
        char *dir = stack.paths[--stack.n], *rel = rels.paths[--rels.n];
        struct stat db;
        int fresh = stat(dir, &db) == 0 ? dir_set_add(&seen, db.st_dev, db.st_ino) : 0;
        DIR *d = fresh > 0 ? opendir(dir) : NULL;
        if (fresh < 0)
            ok = false;
        if (!d) { /* unreadable, or walked already (a link loop): skipped */
            free(dir);
            free(rel);
            continue;
        }
        file_list files = {0}, dirs = {0};
        struct dirent *e;
        while (ok && (e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char *child = join(dir, e->d_name), *crel = join(rel, e->d_name);
            struct stat sb;
            if (!child || !crel) {
                ok = false;
            } else if (stat(child, &sb) != 0) {
                /* a dangling link: nothing to lint */
            } else if (S_ISDIR(sb.st_mode)) {
                if (!matches_any(f->exclude, f->n_exclude, crel))
                    ok = push(&dirs, e->d_name);
            } else if (S_ISREG(sb.st_mode) && !matches_any(f->exclude, f->n_exclude, crel)) {
                bool take = f->n_include ? matches_any(f->include, f->n_include, crel)
                                         : has_gguf_ext(e->d_name) || has_magic(child);
                if (take)
                    ok = push(&files, e->d_name);
            }
            /* FIFOs, devices and sockets are never opened */
            free(child);
            free(crel);
        }
        closedir(d);
        if (files.n > 1)
            qsort(files.paths, files.n, sizeof *files.paths, cmp_str);
        for (size_t i = 0; i < files.n && ok; i++) {
            char *p = join(dir, files.paths[i]);
            ok = p && push(fl, p);
            free(p);
            if (ok)
                ++*found;
        }
        /* push subdirectories in reverse so they pop in sorted order */
        if (dirs.n > 1)
            qsort(dirs.paths, dirs.n, sizeof *dirs.paths, cmp_str);
        for (size_t i = dirs.n; i-- > 0 && ok;) {
            char *p = join(dir, dirs.paths[i]), *r = join(rel, dirs.paths[i]);
            ok = p && r && push(&stack, p) && push(&rels, r);
            free(p);
            free(r);
        }
        files_free(&files);
        files_free(&dirs);
        free(dir);
        free(rel);
    }
    files_free(&stack);
    files_free(&rels);
    free(seen.slots);
    return ok;
}

bool files_add(file_list *fl, const char *path, bool recursive, const file_filter *filter,
               size_t *found)
{
    static const file_filter none = {NULL, 0, NULL, 0};
    struct stat sb;
    if (recursive && strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return walk(fl, path, filter ? filter : &none, found);
    ++*found;
    return push(fl, path);
}

/* ---- one path per real file ---- */

typedef struct ident {
    dev_t dev;
    ino_t ino;
    bool ext; /* the name ends in .gguf: the preferred name */
    size_t order;
} ident;

static int ident_cmp(const void *a, const void *b)
{
    const ident *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    if (x->ext != y->ext)
        return x->ext ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

bool files_dedupe(file_list *fl)
{
    ident *ids = malloc((fl->n ? fl->n : 1) * sizeof *ids);
    bool *drop = calloc(fl->n ? fl->n : 1, sizeof *drop);
    if (!ids || !drop) {
        free(ids);
        free(drop);
        return false;
    }
    size_t m = 0;
    for (size_t i = 0; i < fl->n; i++) {
        struct stat sb;
        /* paths that cannot be read or are not regular files stay: the lint
         * reports them */
        if (strcmp(fl->paths[i], "-") != 0 && stat(fl->paths[i], &sb) == 0 && S_ISREG(sb.st_mode))
            ids[m++] = (ident){sb.st_dev, sb.st_ino, has_gguf_ext(fl->paths[i]), i};
    }
    qsort(ids, m, sizeof *ids, ident_cmp);
    for (size_t k = 1; k < m; k++)
        if (ids[k].dev == ids[k - 1].dev && ids[k].ino == ids[k - 1].ino)
            drop[ids[k].order] = true;
    size_t kept = 0;
    for (size_t i = 0; i < fl->n; i++) {
        if (drop[i])
            free(fl->paths[i]);
        else
            fl->paths[kept++] = fl->paths[i];
    }
    fl->n = kept;
    free(ids);
    free(drop);
    return true;
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
