/* test_deep_map.c - the CLI's --deep data scan read through the mapping
 * (--deep-read mmap, the default at -j1) against its twin (--deep-read
 * pread): a file truncated by another process while the scan reads it gives
 * a finding or exit 2, never a crash (the SIGBUS guard), in both modes; and
 * both modes print the same JSON, byte for byte, for every file of corpus/
 * and of ../shared/gguf-realfiles (that part skips when it is absent), at
 * -j1 and -j2; and the default is the mapping (the read calls tell). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "expect.h"
#include "gguf_builder.h"

static const char *const modes[2] = {"mmap", "pread"};

/* ---- a file truncated while --deep reads it ---- */

/* 64 F16 tensors of 16 MiB, the data a hole: 1 GiB that takes the scan a
 * few hundred milliseconds, so a cut made as soon as the child has the file
 * open lands in the middle of the scan. */
#define N_TENSORS 64u
#define TENSOR_BYTES ((uint64_t)4096 * 2048 * 2)

static uint64_t write_big(const char *path, uint32_t n_tensors)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "test");
    gb_kv_u32(b, "general.alignment", 32);
    for (uint32_t i = 0; i < n_tensors; i++) {
        char name[32];
        uint64_t ne[2] = {4096, 2048};
        snprintf(name, sizeof name, "t%02u.weight", i);
        gb_tensor(b, name, 2, ne, GB_F16, i * TENSOR_BYTES);
    }
    size_t len = 0;
    uint8_t *meta = ex_finish(b, &len);
    uint64_t data_start = gb_align_up(len, 32);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, meta, len), (ssize_t)len);
    assert_int_equal(ftruncate(fd, (off_t)(data_start + n_tensors * TENSOR_BYTES)), 0);
    close(fd);
    free(meta);
    return data_start;
}

/* True once process `pid` has `path` mapped (mmap) or open (pread). */
static bool has_file(pid_t pid, const char *path, bool mapped)
{
    char p[256], buf[4096];
    if (mapped) {
        snprintf(p, sizeof p, "/proc/%d/maps", (int)pid);
        FILE *f = fopen(p, "r");
        bool hit = false;
        while (f && !hit && fgets(buf, sizeof buf, f))
            hit = strstr(buf, path) != NULL;
        if (f)
            fclose(f);
        return hit;
    }
    snprintf(p, sizeof p, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(p);
    bool hit = false;
    for (struct dirent *e; d && !hit && (e = readdir(d));) {
        char link[512];
        snprintf(link, sizeof link, "%s/%s", p, e->d_name);
        ssize_t n = readlink(link, buf, sizeof buf - 1);
        if (n > 0) {
            buf[n] = '\0';
            hit = strcmp(buf, path) == 0;
        }
    }
    if (d)
        closedir(d);
    return hit;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static void slurp(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(out, 1, cap - 1, f) : 0;
    out[n] = '\0';
    if (f)
        fclose(f);
}

static void truncated_while_read(const char *mode)
{
    char dir[] = "/tmp/gguflint-deepmap.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], out_path[256];
    snprintf(path, sizeof path, "%s/big.gguf", dir);
    snprintf(out_path, sizeof out_path, "%s/out.txt", dir);
    bool mapped = strcmp(mode, "mmap") == 0;
    /* cut after the open at a few delays: in the first tensor, in the
     * middle; each run is a finding or exit 2 */
    static const unsigned delays_ms[] = {0, 5, 30};
    unsigned mid_scan = 0;
    for (size_t k = 0; k < sizeof delays_ms / sizeof delays_ms[0]; k++) {
        uint64_t data_start = write_big(path, N_TENSORS);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
                _exit(126);
            execl(GGUFLINT_CLI, GGUFLINT_CLI, "--deep", "-j1", "--deep-read", mode, path,
                  (char *)NULL);
            _exit(127);
        }
        for (int tries = 0; tries < 20000 && !has_file(pid, path, mapped); tries++) {
            if (waitpid(pid, NULL, WNOHANG) != 0)
                break;
            struct timespec ts = {0, 100000L};
            nanosleep(&ts, NULL);
        }
        sleep_ms(delays_ms[k]);
        assert_int_equal(truncate(path, (off_t)(data_start + TENSOR_BYTES / 2)), 0);
        int st = 0;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        char out[8192];
        slurp(out_path, out, sizeof out);
        if (!WIFEXITED(st))
            fail_msg("--deep-read %s, cut after %u ms: killed by signal %d:\n%s", mode,
                     delays_ms[k], WIFSIGNALED(st) ? WTERMSIG(st) : -1, out);
        int rc = WEXITSTATUS(st);
        print_message("--deep-read %s, cut after %u ms: exit %d\n", mode, delays_ms[k], rc);
        if (rc != 1 && rc != 2)
            fail_msg("--deep-read %s: exit %d (wanted a finding, 1, or 2):\n%s", mode, rc, out);
        /* the cut is seen by the scan (an I/O error, exit 2) or by the
         * size check after it; never a clean pass */
        if (rc == 2)
            mid_scan++;
    }
    print_message("--deep-read %s: %u of 3 cuts stopped the scan with exit 2\n", mode, mid_scan);
    ex_remove_tree(dir);
}

static void truncated_mmap(void **state)
{
    (void)state;
    truncated_while_read(modes[0]);
}

static void truncated_pread(void **state)
{
    (void)state;
    truncated_while_read(modes[1]);
}

/* ---- the CLI's default read is the mapping ---- */

/* Bytes this process and the children it has reaped got from read system
 * calls (rchar of /proc/self/io: a reaped child's counts are added to its
 * parent's); false when the kernel does not account them. */
static bool read_bytes(uint64_t *rchar)
{
    FILE *f = fopen("/proc/self/io", "r");
    char line[128];
    bool got = false;
    while (f && !got && fgets(line, sizeof line, f)) {
        unsigned long long v;
        if (sscanf(line, "rchar: %llu", &v) == 1) {
            *rchar = v;
            got = true;
        }
    }
    if (f)
        fclose(f);
    return got;
}

/* The bytes `gguflint --deep -j1 [--deep-read MODE] path` read with read
 * system calls (mode NULL: the default); its exit status must be 0. */
static uint64_t cli_read_bytes(const char *path, const char *mode)
{
    uint64_t before = 0, after = 0;
    assert_true(read_bytes(&before));
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
            _exit(126);
        if (mode)
            execl(GGUFLINT_CLI, GGUFLINT_CLI, "--deep", "-j1", "--deep-read", mode, path,
                  (char *)NULL);
        else
            execl(GGUFLINT_CLI, GGUFLINT_CLI, "--deep", "-j1", path, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_in_range(WEXITSTATUS(st), 0, 1);
    assert_true(read_bytes(&after));
    return after - before;
}

/* Without --deep-read, --deep -j1 reads a mapped file's data through the
 * mapping: its read calls deliver the metadata, not the 64 MiB of data
 * (with --deep-read pread they deliver all of it). The option once got
 * lost on the way and the default was the copy; the findings are the same
 * either way, so only the reads tell. */
static void default_is_mapped(void **state)
{
    (void)state;
    uint64_t probe;
    if (!read_bytes(&probe)) {
        print_message("no rchar in /proc/self/io: skipped\n");
        skip();
    }
    char dir[] = "/tmp/gguflint-deepdef.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/mid.gguf", dir);
    const uint64_t data = 4 * TENSOR_BYTES;
    write_big(path, 4);
    uint64_t def = cli_read_bytes(path, NULL), map = cli_read_bytes(path, "mmap"),
             cp = cli_read_bytes(path, "pread");
    print_message("read calls delivered: default %llu, mmap %llu, pread %llu bytes (data %llu)\n",
                  (unsigned long long)def, (unsigned long long)map, (unsigned long long)cp,
                  (unsigned long long)data);
    assert_true(cp >= data);
    assert_true(map < data / 4);
    assert_true(def < data / 4);
    ex_remove_tree(dir);
}

/* ---- mmap and pread print the same JSON ---- */

#define OUT_CAP ((size_t)4 << 20)

typedef struct cmp_state {
    char *a, *b, *c;
    char dir[64];
    unsigned files, differ;
} cmp_state;

/* Compare the two modes on one file, and -j2 (the data in pieces on two
 * threads) with them. */
static void compare_file(cmp_state *s, const char *path)
{
    char args[3][1200];
    int rc[3];
    char *out[3] = {s->a, s->b, s->c};
    for (int m = 0; m < 3; m++) {
        snprintf(args[m], sizeof args[m], "--deep %s%s --format json '%s'",
                 m < 2 ? "-j1 --deep-read " : "-j2", m < 2 ? modes[m] : "", path);
        rc[m] = ex_cli_run(GGUFLINT_CLI, s->dir, ".", args[m], out[m], OUT_CAP);
    }
    s->files++;
    if (rc[0] < 0 || rc[0] > 2)
        fail_msg("%s: exit %d with --deep-read mmap:\n%.2000s", path, rc[0], s->a);
    for (int m = 1; m < 3; m++)
        if (rc[0] != rc[m] || strcmp(s->a, out[m]) != 0) {
            s->differ++;
            print_message("%s: mmap (exit %d) and %s (exit %d) differ:\n--- mmap\n%.1500s\n"
                          "--- %s\n%.1500s\n",
                          path, rc[0], m < 2 ? "pread" : "-j2", rc[m], s->a,
                          m < 2 ? "pread" : "-j2", out[m]);
        }
}

/* Every .gguf file under root (an explicit stack of directories: no
 * recursion), in readdir order. */
static void compare_tree(cmp_state *s, const char *root)
{
    enum { MAX_DIRS = 512 };
    char(*stack)[1024] = malloc(MAX_DIRS * sizeof *stack);
    assert_non_null(stack);
    size_t top = 0;
    snprintf(stack[top++], sizeof stack[0], "%s", root);
    while (top > 0) {
        char here[1024];
        snprintf(here, sizeof here, "%s", stack[--top]);
        DIR *d = opendir(here);
        assert_non_null(d);
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] == '.')
                continue;
            char p[1024];
            int w = snprintf(p, sizeof p, "%s/%s", here, e->d_name);
            assert_true(w > 0 && (size_t)w < sizeof p);
            struct stat st;
            if (lstat(p, &st) != 0)
                continue;
            if (S_ISDIR(st.st_mode)) {
                assert_true(top < MAX_DIRS);
                snprintf(stack[top++], sizeof stack[0], "%s", p);
            } else if (S_ISREG(st.st_mode) && w > 5 && !strcmp(p + w - 5, ".gguf")) {
                compare_file(s, p);
            }
        }
        closedir(d);
    }
    free(stack);
}

static void same_json(const char *root)
{
    cmp_state s = {.a = malloc(OUT_CAP), .b = malloc(OUT_CAP), .c = malloc(OUT_CAP)};
    assert_non_null(s.a);
    assert_non_null(s.b);
    assert_non_null(s.c);
    snprintf(s.dir, sizeof s.dir, "/tmp/gguflint-deepjson.XXXXXX");
    assert_non_null(mkdtemp(s.dir));
    compare_tree(&s, root);
    print_message("%s: %u files, %u differ between --deep-read mmap, pread and -j2\n", root,
                  s.files, s.differ);
    ex_remove_tree(s.dir);
    free(s.a);
    free(s.b);
    free(s.c);
    assert_true(s.files > 0);
    assert_int_equal(s.differ, 0);
}

static void same_json_corpus(void **state)
{
    (void)state;
    same_json(GGUFLINT_SOURCE_DIR "/corpus");
}

static void same_json_realfiles(void **state)
{
    (void)state;
    struct stat st;
    if (stat(GGUFLINT_REALFILES_DIR, &st) != 0 || !S_ISDIR(st.st_mode)) {
        print_message("real files not found at %s: skipped\n", GGUFLINT_REALFILES_DIR);
        skip();
    }
    same_json(GGUFLINT_REALFILES_DIR);
}

EX_MAIN(NULL, NULL,
        {
            cmocka_unit_test(truncated_mmap),
            cmocka_unit_test(truncated_pread),
            cmocka_unit_test(default_is_mapped),
            cmocka_unit_test(same_json_corpus),
            cmocka_unit_test(same_json_realfiles),
        })
