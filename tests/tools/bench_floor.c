/* bench_floor.c - the wall-time floor of ci/bench.sh (issue 28): the least
 * work any validating lint of a GGUF file must do, done as fast as this
 * project knows how, so that "lint wall time / floor" says how far a lint is
 * from it:
 *
 *   bench_floor [--all] FILE
 *
 * Maps FILE, touches every page of its metadata (everything before the data
 * section; with --all, of the whole file) with one load per page, and
 * validates every string in it - keys, string values, string array elements,
 * tensor names - with the project's UTF-8 validator (src/common/utf8.h): a
 * run of short strings (length below 0x80, so their length fields are ASCII)
 * in one vector pass, as the parser does, a longer string on its own. It
 * checks nothing else: no rule, no index, no message. Prints one line of
 * counts and the time from the open to the last page touched (in-process,
 * without the process's start and exit); exits 0 when every string is valid, 1 when one is not, 2 when the
 * file cannot be read or is not a GGUF container it can walk (nested arrays
 * are not walked: a benchmark input has none).
 *
 * A benchmark tool on benchmark inputs, written to the house rules all the
 * same: every length and count is bounds-checked before use, nothing is
 * allocated from a declared count, no recursion. */
#define _POSIX_C_SOURCE 200809L

#include "common/utf8.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define GGUF_TYPE_STRING 8u
#define GGUF_TYPE_ARRAY 9u
#define SHORT_STRING 0x80u

typedef struct walk {
    const uint8_t *base, *end; /* the mapping: [base, end) is the file */
    const uint8_t *p;          /* the cursor */
    uint64_t strings, string_bytes;
    bool valid;
} walk;

static bool need(const walk *w, uint64_t n)
{
    return (uint64_t)(w->end - w->p) >= n;
}

static bool take_u32(walk *w, uint32_t *v)
{
    if (!need(w, 4))
        return false;
    *v = (uint32_t)w->p[0] | (uint32_t)w->p[1] << 8 | (uint32_t)w->p[2] << 16 |
         (uint32_t)w->p[3] << 24;
    w->p += 4;
    return true;
}

static bool take_u64(walk *w, uint64_t *v)
{
    uint32_t lo, hi;
    if (!take_u32(w, &lo) || !take_u32(w, &hi))
        return false;
    *v = (uint64_t)hi << 32 | lo;
    return true;
}

/* One string at the cursor, validated on its own. */
static bool take_string(walk *w)
{
    uint64_t n;
    if (!take_u64(w, &n) || !need(w, n))
        return false;
    w->valid &= utf8_valid_region(w->p, n, w->end);
    w->strings++;
    w->string_bytes += n;
    w->p += n;
    return true;
}

/* The strings of an array from `first` (a length field) to `stop` (the end
 * of the last), all short: one pass. */
static void check_run(walk *w, const uint8_t *first, const uint8_t *stop)
{
    if (first != stop)
        w->valid &= utf8_valid_region(first + 8, (uint64_t)(stop - first - 8), w->end);
}

static bool take_string_array(walk *w, uint64_t count)
{
    const uint8_t *run = w->p;
    for (uint64_t i = 0; i < count; i++) {
        const uint8_t *at = w->p;
        uint64_t n;
        if (!take_u64(w, &n) || !need(w, n))
            return false;
        w->strings++;
        w->string_bytes += n;
        if (n >= SHORT_STRING) {
            check_run(w, run, at);
            w->valid &= utf8_valid_region(w->p, n, w->end);
            run = w->p + n;
        }
        w->p += n;
    }
    check_run(w, run, w->p);
    return true;
}

/* The size of one value of a fixed-size type, 0 for string, array or unknown. */
static uint64_t scalar_size(uint32_t type)
{
    static const uint8_t size[13] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    return type < 13 ? size[type] : 0;
}

static bool take_value(walk *w, uint32_t type)
{
    if (type == GGUF_TYPE_STRING)
        return take_string(w);
    if (type == GGUF_TYPE_ARRAY) {
        uint32_t et;
        uint64_t count;
        if (!take_u32(w, &et) || !take_u64(w, &count))
            return false;
        if (et == GGUF_TYPE_STRING)
            return take_string_array(w, count);
        uint64_t sz = scalar_size(et);
        if (sz == 0 || count > (uint64_t)(w->end - w->p) / sz)
            return false; /* nested or unknown, or past the end */
        w->p += count * sz;
        return true;
    }
    uint64_t sz = scalar_size(type);
    if (sz == 0 || !need(w, sz))
        return false;
    w->p += sz;
    return true;
}

/* Walk the metadata; *data_start gets the end of the tensor infos rounded up
 * to the alignment (32 unless general.alignment says otherwise). */
static bool walk_metadata(walk *w, uint64_t *data_start)
{
    uint32_t magic, version, align = 32;
    uint64_t n_tensors, n_kv;
    if (!take_u32(w, &magic) || magic != 0x46554747u || !take_u32(w, &version) ||
        !take_u64(w, &n_tensors) || !take_u64(w, &n_kv))
        return false;
    for (uint64_t i = 0; i < n_kv; i++) {
        const uint8_t *key = w->p + 8;
        uint64_t klen;
        uint32_t type;
        if (!need(w, 8))
            return false;
        memcpy(&klen, w->p, 8); /* little-endian hosts only, like the benchmark */
        if (!take_string(w) || !take_u32(w, &type))
            return false;
        if (klen == 17 && !memcmp(key, "general.alignment", 17) && type == 4 && need(w, 4)) {
            const uint8_t *v = w->p;
            align =
                (uint32_t)v[0] | (uint32_t)v[1] << 8 | (uint32_t)v[2] << 16 | (uint32_t)v[3] << 24;
            if (align == 0 || (align & (align - 1)))
                return false;
        }
        if (!take_value(w, type))
            return false;
    }
    for (uint64_t i = 0; i < n_tensors; i++) {
        uint32_t n_dims, type;
        uint64_t off;
        if (!take_string(w) || !take_u32(w, &n_dims) || n_dims > 8 || !need(w, 8ull * n_dims))
            return false;
        w->p += 8ull * n_dims;
        if (!take_u32(w, &type) || !take_u64(w, &off))
            return false;
    }
    uint64_t at = (uint64_t)(w->p - w->base);
    *data_start = (at + align - 1) / align * align;
    return true;
}

int main(int argc, char **argv)
{
    bool all = argc == 3 && !strcmp(argv[1], "--all");
    if (argc != 2 && !all) {
        fprintf(stderr, "usage: bench_floor [--all] FILE\n");
        return 2;
    }
    const char *path = argv[argc - 1];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
        fprintf(stderr, "bench_floor: cannot read %s\n", path);
        return 2;
    }
    size_t size = (size_t)st.st_size;
    uint8_t *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        fprintf(stderr, "bench_floor: cannot map %s\n", path);
        return 2;
    }
    walk w = {.base = map, .end = map + size, .p = map, .valid = true};
    uint64_t data_start = 0;
    /* the walk faults in the pages it reads; the loop after it touches
     * every page up to the data section (with --all, to the end) */
    if (!walk_metadata(&w, &data_start)) {
        fprintf(stderr, "bench_floor: %s is not a GGUF file this tool can walk\n", path);
        return 2;
    }
    uint64_t touch = all || data_start > size ? size : data_start;
    long page = sysconf(_SC_PAGESIZE);
    uint64_t step = page > 0 ? (uint64_t)page : 4096u;
    volatile uint8_t sink = 0;
    uint8_t acc = 0;
    for (uint64_t off = 0; off < touch; off += step)
        acc ^= map[off];
    sink = acc;
    (void)sink;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    printf("floor: %llu strings, %llu string bytes, %llu metadata bytes, %llu bytes touched: %s; "
           "in-process %.3f ms\n",
           (unsigned long long)w.strings, (unsigned long long)w.string_bytes,
           (unsigned long long)data_start, (unsigned long long)touch,
           w.valid ? "all valid UTF-8" : "INVALID UTF-8", ms);
    munmap(map, size);
    return w.valid ? 0 : 1;
}
