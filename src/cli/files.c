/* files.c - see files.h. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include "files.h"

#include "common.h"
#include "common/order.h"

#include <dirent.h>
#include <errno.h>
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
    char *d = strdup(path);
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

/* ---- the walk: openat/fstatat below directory descriptors ---- */

/* A directory being walked: its descriptor (-1 once given back), identity,
 * names, and the subdirectories still to visit (sorted). */
typedef struct frame {
    int fd;
    dev_t dev;
    ino_t ino;
    char *path, *rel, *name; /* shown path, path relative to the root, name in the parent */
    file_list subdirs;
    size_t next;
} frame;

typedef struct walker {
    frame *st;
    size_t n, cap;
    dir_set seen;
    const file_filter *f;
    file_list *fl;
    walk_errors *errs;
    size_t *found;
    bool ok; /* false on NOMEM */
} walker;

/* Descriptors the walk holds at most: those of the deepest directories of
 * the stack; one further up is opened again from its parent when needed. */
enum { WALK_OPEN_FDS = 32 };

static void walk_error(walker *w, const char *path, const char *what, int err)
{
    char msg[256];
    snprintf(msg, sizeof msg, "%s: %s", what, strerror(err));
    if (w->ok && !(push(&w->errs->paths, path) && push(&w->errs->reasons, msg)))
        w->ok = false;
}

/* walk_error for the entry `name` of the directory `dir`. */
static void child_error(walker *w, const char *dir, const char *name, const char *what, int err)
{
    char *child = join(dir, name);
    if (child)
        walk_error(w, child, what, err);
    else
        w->ok = false;
    free(child);
}

static int open_dir_at(int at, const char *name)
{
    return openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
}

/* The first four bytes of a regular file are a GGUF magic ("GGUF", or the
 * 2023 pre-release "FUGG" that gguflint reports). -1: it cannot be opened. */
static int has_magic_at(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    char m[4];
    ssize_t got = read(fd, m, 4);
    int e = errno;
    close(fd);
    if (got < 0) {
        errno = e;
        return -1;
    }
    return got == 4 && (memcmp(m, "GGUF", 4) == 0 || memcmp(m, "FUGG", 4) == 0);
}

/* Read the entries of the directory open as fr->fd: GGUF files go to the
 * list (sorted), subdirectories to fr->subdirs (sorted); every entry that
 * cannot be stat'ed or opened is an error. */
static void read_dir(walker *w, frame *fr)
{
    int dfd = dup(fr->fd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        walk_error(w, fr->path, "cannot read the directory", errno);
        if (dfd >= 0)
            close(dfd);
        return;
    }
    file_list files = {0};
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e) {
            if (errno)
                walk_error(w, fr->path, "cannot read the directory", errno);
            break;
        }
        if (!w->ok)
            break;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *crel = join(fr->rel, e->d_name);
        if (!crel) {
            w->ok = false;
            break;
        }
        struct stat sb;
        if (fstatat(fr->fd, e->d_name, &sb, 0) != 0) {
            int err = errno;
            struct stat lb;
            bool dangling = err == ENOENT &&
                            fstatat(fr->fd, e->d_name, &lb, AT_SYMLINK_NOFOLLOW) == 0 &&
                            S_ISLNK(lb.st_mode);
            if (!dangling) { /* a dangling link names nothing to lint */
                child_error(w, fr->path, e->d_name, "cannot stat", err);
            }
        } else if (S_ISDIR(sb.st_mode)) {
            if (!matches_any(w->f->exclude, w->f->n_exclude, crel) &&
                !push(&fr->subdirs, e->d_name))
                w->ok = false;
        } else if (S_ISREG(sb.st_mode) && !matches_any(w->f->exclude, w->f->n_exclude, crel)) {
            int take = w->f->n_include           ? matches_any(w->f->include, w->f->n_include, crel)
                       : has_gguf_ext(e->d_name) ? 1
                                                 : has_magic_at(fr->fd, e->d_name);
            if (take < 0) {
                child_error(w, fr->path, e->d_name, "cannot open (to read its magic)", errno);
            } else if (take && !push(&files, e->d_name)) {
                w->ok = false;
            }
        }
        /* FIFOs, devices and sockets are never opened */
        free(crel);
    }
    closedir(d);
    if (files.n > 1)
        qsort(files.paths, files.n, sizeof *files.paths, cmp_str);
    for (size_t i = 0; i < files.n && w->ok; i++) {
        char *p = join(fr->path, files.paths[i]);
        w->ok = p && push(w->fl, p);
        free(p);
        if (w->ok)
            ++*w->found;
    }
    files_free(&files);
    if (fr->subdirs.n > 1)
        qsort(fr->subdirs.paths, fr->subdirs.n, sizeof *fr->subdirs.paths, cmp_str);
}

static void frame_free(frame *fr)
{
    if (fr->fd >= 0)
        close(fr->fd);
    free(fr->path);
    free(fr->rel);
    free(fr->name);
    files_free(&fr->subdirs);
}

static bool same_dir(int fd, dev_t dev, ino_t ino)
{
    struct stat sb;
    return fstat(fd, &sb) == 0 && sb.st_dev == dev && sb.st_ino == ino;
}

/* Make the descriptor of frame i open again: from the deepest ancestor that
 * still holds one (or the root's path), each level checked to be the
 * directory it was. False (reported) when a level moved or vanished. */
static bool reopen(walker *w, size_t i, const char *root)
{
    size_t j = i;
    while (j > 0 && w->st[j].fd < 0)
        j--;
    if (w->st[j].fd < 0) { /* the root itself */
        int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
        if (fd >= 0 && !same_dir(fd, w->st[0].dev, w->st[0].ino)) {
            close(fd);
            fd = -1;
            errno = ESTALE;
        }
        if (fd < 0) {
            walk_error(w, w->st[0].path, "cannot open the directory again", errno);
            return false;
        }
        w->st[0].fd = fd;
    }
    for (size_t k = j + 1; k <= i; k++) {
        int fd = open_dir_at(w->st[k - 1].fd, w->st[k].name);
        if (fd >= 0 && !same_dir(fd, w->st[k].dev, w->st[k].ino)) {
            close(fd);
            fd = -1;
            errno = ESTALE;
        }
        if (fd < 0) {
            walk_error(w, w->st[k].path, "cannot open the directory again", errno);
            return false;
        }
        w->st[k].fd = fd;
        /* keep only the deepest WALK_OPEN_FDS levels open */
        if (k - 1 + WALK_OPEN_FDS <= i && w->st[k - 1].fd >= 0) {
            close(w->st[k - 1].fd);
            w->st[k - 1].fd = -1;
        }
    }
    return true;
}

/* Enter a directory opened as fd (its entries read now) as the new top of
 * the stack; takes fd. A directory walked already (a link loop) is left. */
static void enter(walker *w, int fd, const char *path, const char *rel, const char *name)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        walk_error(w, path, "cannot stat", errno);
        close(fd);
        return;
    }
    int fresh = dir_set_add(&w->seen, sb.st_dev, sb.st_ino);
    if (fresh <= 0) {
        if (fresh < 0)
            w->ok = false;
        close(fd);
        return;
    }
    if (w->n == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 16;
        frame *ns = realloc(w->st, nc * sizeof *ns);
        if (!ns) {
            w->ok = false;
            close(fd);
            return;
        }
        w->st = ns;
        w->cap = nc;
    }
    frame *fr = &w->st[w->n];
    *fr = (frame){fd, sb.st_dev, sb.st_ino, strdup(path), strdup(rel), strdup(name), {0}, 0};
    w->n++;
    if (!fr->path || !fr->rel || !fr->name) {
        w->ok = false;
        return;
    }
    read_dir(w, fr);
    if (w->n > WALK_OPEN_FDS) {
        frame *old = &w->st[w->n - 1 - WALK_OPEN_FDS];
        if (old->fd >= 0)
            close(old->fd);
        old->fd = -1;
    }
}

/* Walk a directory tree depth-first without recursion: a stack of open
 * directories, children opened relative to their parent's descriptor, so
 * neither depth nor path length is bounded by PATH_MAX. */
static bool walk(file_list *fl, const char *root, const file_filter *f, size_t *found,
                 walk_errors *errs)
{
    walker w = {.f = f, .fl = fl, .errs = errs, .found = found, .ok = true};
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        walk_error(&w, root, "cannot open the directory", errno);
    else
        enter(&w, fd, root, "", root);
    while (w.n > 0 && w.ok) {
        size_t top = w.n - 1;
        frame *fr = &w.st[top];
        if (fr->next >= fr->subdirs.n) {
            frame_free(fr);
            w.n--;
            continue;
        }
        if (fr->fd < 0 && !reopen(&w, top, root)) {
            fr->next = fr->subdirs.n; /* the rest of it is out of reach: reported */
            continue;
        }
        const char *name = fr->subdirs.paths[fr->next++];
        char *p = join(fr->path, name), *r = join(fr->rel, name);
        if (!p || !r) {
            w.ok = false;
        } else {
            int cfd = open_dir_at(fr->fd, name);
            if (cfd < 0)
                walk_error(&w, p, "cannot open the directory", errno);
            else
                enter(&w, cfd, p, r, name);
        }
        free(p);
        free(r);
    }
    for (size_t i = 0; i < w.n; i++)
        frame_free(&w.st[i]);
    free(w.st);
    free(w.seen.slots);
    return w.ok;
}

bool files_add(file_list *fl, const char *path, bool recursive, const file_filter *filter,
               size_t *found, walk_errors *errs)
{
    static const file_filter none = {NULL, 0, NULL, 0};
    struct stat sb;
    if (recursive && strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return walk(fl, path, filter ? filter : &none, found, errs);
    ++*found;
    return push(fl, path);
}

void walk_errors_free(walk_errors *e)
{
    files_free(&e->paths);
    files_free(&e->reasons);
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
    /* a .gguf name first */
    return 8 * ORDER(x->dev, y->dev) + 4 * ORDER(x->ino, y->ino) + 2 * ORDER(y->ext, x->ext) +
           ORDER(x->order, y->order);
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

/* ---- what the walk could not read, as inputs of the run ---- */

typedef struct named {
    const char *path;
    size_t k;
} named;

static int named_cmp(const void *a, const void *b)
{
    return strcmp(((const named *)a)->path, ((const named *)b)->path);
}

bool walk_errors_take(file_list *fl, walk_errors *e, bool tolerate)
{
    for (size_t i = 0; i < e->paths.n; i++) {
        if (tolerate) {
            fprintf(stderr, "gguflint: warning: ");
            err_text(e->paths.paths[i]);
            fprintf(stderr, ": ");
            err_text(e->reasons.paths[i]);
            fprintf(stderr, " (not checked: --allow-unreadable)\n");
        } else if (!push(fl, e->paths.paths[i])) {
            return false;
        }
    }
    if (tolerate)
        walk_errors_free(e);
    return true;
}

void walk_errors_mark(const char *const *paths, size_t n, const walk_errors *e, const char **skip,
                      int *status)
{
    size_t m = e->paths.n;
    named *idx = malloc((m ? m : 1) * sizeof *idx);
    for (size_t k = 0; idx && k < m; k++)
        idx[k] = (named){e->paths.paths[k], k};
    if (idx)
        qsort(idx, m, sizeof *idx, named_cmp);
    for (size_t i = 0; i < n && m; i++) {
        named key = {paths[i], 0};
        const named *hit = idx ? bsearch(&key, idx, m, sizeof *idx, named_cmp) : NULL;
        size_t k = hit ? hit->k : m;
        for (size_t j = 0; !idx && j < m && k == m; j++) /* no memory: the slow way */
            if (strcmp(paths[i], e->paths.paths[j]) == 0)
                k = j;
        if (k < m && !skip[i]) {
            skip[i] = e->reasons.paths[k];
            status[i] = GGUFLINT_E_IO;
        }
    }
    free(idx);
}
