/* test_cli.c - the gguflint command line (GGUFLINT_CLI) run as a separate
 * process on files written to a private temporary directory: exit codes
 * (0 clean, 1 findings at or above the fail level, 2 usage or unreadable
 * path), text and JSON output, standard input, the rule-selection options,
 * the rules/explain/dump subcommands, and that no byte from a file (ESC, bidi
 * and zero-width controls, invalid UTF-8) ever reaches the output raw. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "expect.h"

#include "gguf_builder.h"
#include "tiny_llama.h"
#include "gguflint.h"

#ifndef GGUFLINT_CLI
#error "GGUFLINT_CLI must name the built gguflint binary"
#endif

/* ------------------------------------------------------- heap registry */

/* Heap blocks owned by test buffers. A failed assertion longjmps out of a
 * test and leaves its buffers unreachable; the per-test teardown frees what
 * is still registered, so LeakSanitizer only ever reports real leaks. */
#define MAX_BLOCKS 64
static void *blocks[MAX_BLOCKS];

/* Replace the registered `old` by `now` (old NULL: register; now NULL: forget). */
static void block_swap(const void *old, void *now)
{
    for (size_t i = 0; i < MAX_BLOCKS; i++)
        if (blocks[i] == old) {
            blocks[i] = now;
            return;
        }
}

static int free_blocks(void **state)
{
    for (size_t i = 0; i < MAX_BLOCKS; i++) {
        free(blocks[i]);
        blocks[i] = NULL;
    }
    return 0;
}

/* ------------------------------------------------------------ temp files */

static char tmpdir[512];
static bool have_timeout;

static void tpath(char *buf, size_t cap, const char *name)
{
    int n = snprintf(buf, cap, "%s/%s", tmpdir, name);
    assert_true(n > 0 && (size_t)n < cap);
}

static void write_bytes(const char *name, const void *data, size_t len)
{
    char p[1024];
    tpath(p, sizeof p, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    if (len)
        assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* Write a builder's file and free it. */
static void write_gb(const char *name, gb *b)
{
    size_t len = 0;
    uint8_t *buf = ex_finish(b, &len);
    block_swap(NULL, buf);
    write_bytes(name, buf, len);
    block_swap(buf, NULL);
    free(buf);
}

/* Weird bytes used in names: ESC + CSI, RIGHT-TO-LEFT OVERRIDE (U+202E),
 * ZERO WIDTH SPACE (U+200B), then invalid UTF-8 (a stray 0xff, an overlong
 * 0xc0 0xaf, a truncated 0xe2 0x80 sequence). */
static const char weird_key[] = "llama.a\x1b[31mb\xe2\x80\xae"
                                "c\xe2\x80\x8b"
                                "d\xff"
                                "e\xc0\xaf"
                                "f\xe2\x80"
                                "g";
static const char weird_name[] = "t\x1b]0;x\x07\xe2\x80\xaen\xe2\x80\x8bm\xff";

static int group_setup(void **state)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base || strlen(base) > 400 || strchr(base, '\''))
        base = "/tmp";
    snprintf(tmpdir, sizeof tmpdir, "%s/gguflint-cli-XXXXXX", base);
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return -1;
    }
    have_timeout = access("/usr/bin/timeout", X_OK) == 0;

    /* valid.gguf: a tiny complete llama model, clean under every check */
    size_t len = 0;
    uint8_t *buf = gb_tiny_llama(&len);
    if (!buf)
        return -1;
    write_bytes("valid.gguf", buf, len);
    free(buf);

    /* dup.gguf: one error (GG106), nothing else */
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.name", "first");
    gb_kv_str(b, "general.name", "second");
    write_gb("dup.gguf", b);

    /* bool.gguf: one warning (GG114), nothing else */
    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_bool(b, "llama.use_parallel_residual", 7);
    write_gb("bool.gguf", b);

    /* note.gguf: one note (GG105), nothing else */
    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "Llama.Context_Length", 64);
    write_gb("note.gguf", b);

    /* weird.gguf: a key and a tensor name full of terminal hazards */
    b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_beginn(b, weird_key, sizeof weird_key - 1, GB_VT_STR);
    gb_str(b, weird_name, sizeof weird_name - 1); /* the value too */
    uint64_t ne[1] = {8};
    gb_tensorn(b, weird_name, sizeof weird_name - 1, 1, ne, GB_F32, 0);
    gb_pad_to(b, 32);
    gb_zeros(b, 32);
    write_gb("weird.gguf", b);

    write_bytes("empty.gguf", "", 0);

    char p[1024];
    tpath(p, sizeof p, "subdir");
    if (mkdir(p, 0700) != 0)
        return -1;
    tpath(p, sizeof p, "fifo.gguf");
    if (mkfifo(p, 0600) != 0)
        return -1;
    return 0;
}

static int group_teardown(void **state)
{
    if (!tmpdir[0] || strchr(tmpdir, '\''))
        return 0;
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* ------------------------------------------------------------ running it */

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void buf_put(buf *b, const void *data, size_t len)
{
    if (len + 1 > b->cap - b->len) {
        size_t nc = b->cap ? b->cap : 4096;
        while (len + 1 > nc - b->len)
            nc *= 2;
        block_swap(b->p, NULL);
        char *np = realloc(b->p, nc);
        assert_non_null(np);
        block_swap(NULL, np);
        b->p = np;
        b->cap = nc;
    }
    if (len)
        memcpy(b->p + b->len, data, len);
    b->len += len;
    b->p[b->len] = '\0';
}

static void buf_release(buf *b)
{
    block_swap(b->p, NULL);
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

static void buf_puts(buf *b, const char *s)
{
    buf_put(b, s, strlen(s));
}

/* Append s single-quoted for /bin/sh. */
static void buf_quote(buf *b, const char *s)
{
    buf_puts(b, "'");
    for (; *s; s++) {
        if (*s == '\'')
            buf_puts(b, "'\\''");
        else
            buf_put(b, s, 1);
    }
    buf_puts(b, "'");
}

typedef struct result {
    int code; /* exit status, or -1 when killed by a signal */
    buf out, err;
} result;

static void result_free(result *r)
{
    buf_release(&r->out);
    buf_release(&r->err);
    r->code = 0;
}

enum { STDIN_NONE, STDIN_REDIRECT, STDIN_PIPE };

/* Run GGUFLINT_CLI with argv (NULL-terminated). Names that start with '@'
 * are files in the temp dir ("@valid.gguf"). Standard input comes from the
 * temp file `in` (redirect or through a pipe) or /dev/null. */
static void run_cli(result *r, int in_mode, const char *in, const char *const *argv)
{
    memset(r, 0, sizeof *r);
    buf cmd = {0};
    char p[1024];
    if (in_mode == STDIN_PIPE) {
        tpath(p, sizeof p, in);
        buf_puts(&cmd, "cat ");
        buf_quote(&cmd, p);
        buf_puts(&cmd, " | ");
    }
    if (have_timeout)
        buf_puts(&cmd, "/usr/bin/timeout 60 ");
    buf_quote(&cmd, GGUFLINT_CLI);
    for (size_t i = 0; argv[i]; i++) {
        buf_puts(&cmd, " ");
        if (argv[i][0] == '@') {
            tpath(p, sizeof p, argv[i] + 1);
            buf_quote(&cmd, p);
        } else {
            buf_quote(&cmd, argv[i]);
        }
    }
    if (in_mode == STDIN_REDIRECT) {
        tpath(p, sizeof p, in);
        buf_puts(&cmd, " <");
        buf_quote(&cmd, p);
    } else if (in_mode == STDIN_NONE) {
        buf_puts(&cmd, " </dev/null");
    }
    char errp[1024];
    tpath(errp, sizeof errp, "stderr.txt");
    buf_puts(&cmd, " 2>");
    buf_quote(&cmd, errp);

    fflush(NULL);
    FILE *f = popen(cmd.p, "r");
    assert_non_null(f);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        buf_put(&r->out, chunk, n);
    int ws = pclose(f);
    r->code = ws != -1 && WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    buf_put(&r->out, "", 0);

    FILE *e = fopen(errp, "rb");
    if (e) {
        while ((n = fread(chunk, 1, sizeof chunk, e)) > 0)
            buf_put(&r->err, chunk, n);
        fclose(e);
    }
    buf_put(&r->err, "", 0);
    if (r->code == 124 && have_timeout)
        print_message("timed out: %s\n", cmd.p);
    buf_release(&cmd);
}

#define ARGV(...) ((const char *const[]){__VA_ARGS__, NULL})
#define RUN(r, ...) run_cli((r), STDIN_NONE, NULL, ARGV(__VA_ARGS__))

static void dump_result(const char *what, const result *r)
{
    print_message("%s: exit %d\n--- stdout ---\n%s--- stderr ---\n%s--------------\n", what,
                  r->code, r->out.p ? r->out.p : "", r->err.p ? r->err.p : "");
}

/* Run, check the exit code, hand back the result (caller frees). */
static void expect_exit(result *r, int code, const char *what)
{
    if (r->code != code) {
        print_message("expected exit %d\n", code);
        dump_result(what, r);
    }
    assert_int_equal(r->code, code);
}

static void expect_contains(const result *r, const buf *b, const char *needle, const char *what)
{
    if (!strstr(b->p, needle)) {
        print_message("expected to find \"%s\"\n", needle);
        dump_result(what, r);
    }
    assert_non_null(strstr(b->p, needle));
}

static void expect_lacks(const result *r, const buf *b, const char *needle, const char *what)
{
    if (strstr(b->p, needle)) {
        print_message("did not expect \"%s\"\n", needle);
        dump_result(what, r);
    }
    assert_null(strstr(b->p, needle));
}

/* Exit code only. */
static int code_of(const char *const *argv)
{
    result r;
    run_cli(&r, STDIN_NONE, NULL, argv);
    int c = r.code;
    if (c != 0 && c != 1 && c != 2)
        dump_result("unexpected exit", &r);
    result_free(&r);
    return c;
}

static bool has_bytes(const buf *b, const char *needle, size_t n)
{
    if (n == 0 || b->len < n)
        return false;
    for (size_t i = 0; i + n <= b->len; i++)
        if (memcmp(b->p + i, needle, n) == 0)
            return true;
    return false;
}

/* The output must be valid UTF-8 with no control characters other than
 * newline and no bidi or zero-width controls. */
static void check_terminal_safe(const result *r, const buf *b, const char *what)
{
    const unsigned char *s = (const unsigned char *)b->p;
    size_t i = 0;
    while (i < b->len) {
        unsigned char c = s[i];
        uint32_t cp;
        size_t l;
        if (c < 0x80) {
            cp = c;
            l = 1;
        } else if (c >= 0xC2 && c <= 0xDF && i + 1 < b->len && (s[i + 1] & 0xC0) == 0x80) {
            cp = ((uint32_t)(c & 0x1F) << 6) | (s[i + 1] & 0x3Fu);
            l = 2;
        } else if (c >= 0xE0 && c <= 0xEF && i + 2 < b->len && (s[i + 1] & 0xC0) == 0x80 &&
                   (s[i + 2] & 0xC0) == 0x80) {
            cp = ((uint32_t)(c & 0x0F) << 12) | ((uint32_t)(s[i + 1] & 0x3F) << 6) |
                 (s[i + 2] & 0x3Fu);
            l = 3;
            if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))
                cp = 0xFFFFFFFFu;
        } else if (c >= 0xF0 && c <= 0xF4 && i + 3 < b->len && (s[i + 1] & 0xC0) == 0x80 &&
                   (s[i + 2] & 0xC0) == 0x80 && (s[i + 3] & 0xC0) == 0x80) {
            cp = ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(s[i + 1] & 0x3F) << 12) |
                 ((uint32_t)(s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3Fu);
            l = 4;
            if (cp < 0x10000 || cp > 0x10FFFF)
                cp = 0xFFFFFFFFu;
        } else {
            cp = 0xFFFFFFFFu;
            l = 1;
        }
        bool bad = cp == 0xFFFFFFFFu || (cp < 0x20 && cp != '\n') || (cp >= 0x7F && cp <= 0x9F) ||
                   (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) ||
                   (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFEFF || cp == 0x2028 || cp == 0x2029;
        if (bad) {
            print_message("%s: unsafe byte 0x%02x (cp U+%04X) at offset %zu\n", what, c,
                          (unsigned)cp, i);
            dump_result(what, r);
            fail();
        }
        i += l;
    }
    /* the specific raw sequences put into weird.gguf */
    assert_false(has_bytes(b, "\x1b", 1));
    assert_false(has_bytes(b, "\xe2\x80\xae", 3));
    assert_false(has_bytes(b, "\xe2\x80\x8b", 3));
    assert_false(has_bytes(b, "\xff", 1));
    assert_false(has_bytes(b, "\xc0", 1));
    assert_false(has_bytes(b, "\x07", 1));
}

/* -------------------------------------------------------------- exit codes */

static void test_exit_clean(void **state)
{
    result r;
    RUN(&r, "@valid.gguf");
    expect_exit(&r, 0, "valid");
    expect_contains(&r, &r.out, "1 file checked: 0 errors, 0 warnings, 0 notes", "valid");
    assert_int_equal(r.err.len, 0);
    result_free(&r);

    RUN(&r, "--quiet", "@valid.gguf");
    expect_exit(&r, 0, "valid --quiet");
    assert_int_equal(r.out.len, 0);
    result_free(&r);

    RUN(&r, "@valid.gguf", "@valid.gguf");
    expect_exit(&r, 0, "valid twice");
    expect_contains(&r, &r.out, "2 files checked: 0 errors", "valid twice");
    result_free(&r);
}

static void test_exit_findings(void **state)
{
    char p[1024];
    tpath(p, sizeof p, "dup.gguf");
    char prefix[1100];
    snprintf(prefix, sizeof prefix, "%s:0x", p);

    result r;
    RUN(&r, "@dup.gguf");
    expect_exit(&r, 1, "dup");
    expect_contains(&r, &r.out, "error GG106 duplicate-key", "dup");
    expect_contains(&r, &r.out, prefix, "dup");
    expect_contains(&r, &r.out, "kv[\"general.name\"]", "dup");
    expect_contains(&r, &r.out, "1 file checked: 1 error, 0 warnings, 0 notes", "dup");
    result_free(&r);

    /* one dirty file among clean ones still fails */
    assert_int_equal(code_of(ARGV("@valid.gguf", "@dup.gguf", "@valid.gguf")), 1);
    /* the committed hostile example */
    assert_int_equal(code_of(ARGV(GGUFLINT_SOURCE_DIR "/corpus/examples/hostile.gguf")), 1);
    assert_int_equal(code_of(ARGV(GGUFLINT_SOURCE_DIR "/corpus/examples/valid.gguf")), 0);
}

static void test_exit_empty_file(void **state)
{
    result r;
    RUN(&r, "@empty.gguf");
    expect_exit(&r, 1, "empty");
    expect_contains(&r, &r.out, "GG001 empty-file", "empty");
    result_free(&r);

    RUN(&r, "--format", "json", "@empty.gguf");
    expect_exit(&r, 1, "empty json");
    expect_contains(&r, &r.out, "\"rule\":\"GG001\"", "empty json");
    expect_contains(&r, &r.out, "\"size\":0", "empty json");
    result_free(&r);

    /* empty standard input is the same finding */
    run_cli(&r, STDIN_REDIRECT, "empty.gguf", ARGV("-"));
    expect_exit(&r, 1, "empty stdin");
    expect_contains(&r, &r.out, "GG001", "empty stdin");
    result_free(&r);
}

static void test_exit_unreadable(void **state)
{
    result r;
    RUN(&r, "@does-not-exist.gguf");
    expect_exit(&r, 2, "missing");
    expect_contains(&r, &r.err, "No such file or directory", "missing");
    result_free(&r);

    RUN(&r, "@subdir");
    expect_exit(&r, 2, "directory");
    expect_contains(&r, &r.err, "directory", "directory");
    result_free(&r);

    /* a FIFO must be refused, not opened and waited on */
    RUN(&r, "@fifo.gguf");
    expect_exit(&r, 2, "fifo");
    expect_contains(&r, &r.err, "FIFO", "fifo");
    result_free(&r);

    /* an unreadable path wins over clean and dirty files */
    assert_int_equal(code_of(ARGV("@valid.gguf", "@does-not-exist.gguf")), 2);
    assert_int_equal(code_of(ARGV("@dup.gguf", "@subdir")), 2);
    assert_int_equal(code_of(ARGV("--exit-zero", "@does-not-exist.gguf")), 2);

    /* the other files are still reported, and JSON records the failure */
    RUN(&r, "--format", "json", "@valid.gguf", "@does-not-exist.gguf", "@subdir");
    expect_exit(&r, 2, "json unreadable");
    expect_contains(&r, &r.out, "\"error\":", "json unreadable");
    expect_contains(&r, &r.out, "\"detail\":\"No such file or directory\"", "json unreadable");
    expect_contains(&r, &r.out, "\"files\":3,", "json unreadable");
    result_free(&r);

    RUN(&r, "dump", "@does-not-exist.gguf");
    expect_exit(&r, 2, "dump missing");
    result_free(&r);
    RUN(&r, "dump", "@fifo.gguf");
    expect_exit(&r, 2, "dump fifo");
    result_free(&r);
    RUN(&r, "dump", "@subdir");
    expect_exit(&r, 2, "dump dir");
    result_free(&r);
}

static void test_exit_usage(void **state)
{
    result r;
    RUN(&r, "--no-such-option", "@valid.gguf");
    expect_exit(&r, 2, "unknown option");
    expect_contains(&r, &r.err, "--no-such-option", "unknown option");
    assert_int_equal(r.out.len, 0);
    result_free(&r);

    assert_int_equal(code_of(ARGV("-Z", "@valid.gguf")), 2);
    assert_int_equal(code_of(ARGV("--format", "xml", "@valid.gguf")), 2);
    assert_int_equal(code_of(ARGV("--format")), 2);
    assert_int_equal(code_of(ARGV("--select", "NOPE", "@valid.gguf")), 2);
    assert_int_equal(code_of(ARGV("--ignore", "GG999", "@valid.gguf")), 2);
    assert_int_equal(code_of(ARGV("--severity", "GG114", "@valid.gguf")), 2);
    assert_int_equal(code_of(ARGV("--severity", "GG114=loud", "@valid.gguf")), 2);
    assert_int_equal(code_of(ARGV("--severity", "NOPE=error", "@valid.gguf")), 2);
    assert_int_equal(code_of(ARGV("--fail-on", "fatal", "@valid.gguf")), 2);
    assert_int_equal(code_of(ARGV("--max-depth", "0", "@valid.gguf")), 2);
    assert_int_equal(code_of(ARGV("--max-string-len", "-1", "@valid.gguf")), 2);
    assert_int_equal(code_of(ARGV("--max-kv-count", "12abc", "@valid.gguf")), 2);
    assert_int_equal(code_of(ARGV("dump")), 2);
    assert_int_equal(code_of(ARGV("dump", "--format", "xml", "@valid.gguf")), 2);
    assert_int_equal(code_of(ARGV("dump", "@valid.gguf", "@valid.gguf")), 0); /* several paths */
    assert_int_equal(code_of(ARGV("dump", "@valid.gguf", "--full-arrays")), 0);
    assert_int_equal(code_of(ARGV("dump", "@valid.gguf", "@missing.gguf")), 2);
    assert_int_equal(code_of(ARGV("rules", "--bogus")), 2);
    assert_int_equal(code_of(ARGV("explain")), 2);
    assert_int_equal(code_of(ARGV("explain", "GG106", "GG107")), 2);

    /* no input files at all */
    RUN(&r, "--quiet");
    expect_exit(&r, 2, "no files");
    result_free(&r);

    RUN(&r, "--version");
    expect_exit(&r, 0, "--version");
    expect_contains(&r, &r.out, "gguflint " GGUFLINT_VERSION, "--version");
    result_free(&r);
    RUN(&r, "--help");
    expect_exit(&r, 0, "--help");
    expect_contains(&r, &r.out, "usage: gguflint", "--help");
    expect_contains(&r, &r.out, "--fail-on", "--help");
    result_free(&r);
}

/* --------------------------------------------------------------- JSON out */

static void test_json_format(void **state)
{
    result r;
    RUN(&r, "--format", "json", "@valid.gguf");
    expect_exit(&r, 0, "json valid");
    expect_contains(&r, &r.out, "{\"schema_version\":1,", "json valid");
    expect_contains(&r, &r.out,
                    "\"tool\":{\"name\":\"gguflint\",\"version\":\"" GGUFLINT_VERSION "\"}",
                    "json valid");
    expect_contains(&r, &r.out, "\"gguf\":true,\"version\":3,", "json valid");
    expect_contains(&r, &r.out, "\"kv_count\":23,", "json valid");
    expect_contains(&r, &r.out, "\"tensor_count\":12,", "json valid");
    expect_contains(&r, &r.out, "\"alignment\":32", "json valid");
    expect_contains(&r, &r.out, "\"findings\":[]", "json valid");
    expect_contains(&r, &r.out, "\"summary\":{\"files\":1,\"error\":0,\"warning\":0,\"note\":0",
                    "json valid");
    /* one JSON document, one trailing newline, nothing else */
    assert_true(r.out.len > 2 && r.out.p[r.out.len - 1] == '\n');
    assert_ptr_equal(strchr(r.out.p, '\n'), r.out.p + r.out.len - 1);
    result_free(&r);

    /* --quiet does not change JSON */
    RUN(&r, "--format", "json", "--quiet", "@dup.gguf");
    expect_exit(&r, 1, "json dup");
    expect_contains(&r, &r.out,
                    "\"rule\":\"GG106\",\"slug\":\"duplicate-key\",\"family\":\"kv\","
                    "\"severity\":\"error\",\"offset\":",
                    "json dup");
    expect_contains(&r, &r.out, "\"path\":\"kv[\\\"general.name\\\"]\"", "json dup");
    expect_contains(&r, &r.out, "\"message\":\"", "json dup");
    expect_contains(&r, &r.out, "\"summary\":{\"files\":1,\"error\":1,", "json dup");
    result_free(&r);

    /* --format=json spelling */
    RUN(&r, "--format=json", "@valid.gguf");
    expect_exit(&r, 0, "--format=json");
    expect_contains(&r, &r.out, "{\"schema_version\":1,", "--format=json");
    result_free(&r);
}

/* ------------------------------------------------------------------ stdin */

static void test_stdin(void **state)
{
    result r;
    run_cli(&r, STDIN_REDIRECT, "valid.gguf", ARGV("-"));
    expect_exit(&r, 0, "stdin valid (redirect)");
    expect_contains(&r, &r.out, "1 file checked: 0 errors", "stdin valid");
    result_free(&r);

    run_cli(&r, STDIN_PIPE, "valid.gguf", ARGV("-"));
    expect_exit(&r, 0, "stdin valid (pipe)");
    result_free(&r);

    run_cli(&r, STDIN_PIPE, "dup.gguf", ARGV("-"));
    expect_exit(&r, 1, "stdin dup (pipe)");
    expect_contains(&r, &r.out, "-:0x", "stdin dup");
    expect_contains(&r, &r.out, "GG106", "stdin dup");
    result_free(&r);

    run_cli(&r, STDIN_PIPE, "dup.gguf", ARGV("--format", "json", "-"));
    expect_exit(&r, 1, "stdin dup json");
    expect_contains(&r, &r.out, "{\"path\":\"-\",", "stdin dup json");
    result_free(&r);

    /* stdin mixed with a path */
    run_cli(&r, STDIN_PIPE, "valid.gguf", ARGV("@dup.gguf", "-"));
    expect_exit(&r, 1, "stdin + path");
    expect_contains(&r, &r.out, "2 files checked", "stdin + path");
    result_free(&r);

    /* a stream longer than --stdin-max is read up to the bound and is a finding */
    run_cli(&r, STDIN_PIPE, "valid.gguf", ARGV("--stdin-max", "40", "-"));
    expect_exit(&r, 1, "stdin-max");
    result_free(&r);

    run_cli(&r, STDIN_PIPE, "valid.gguf", ARGV("dump", "-"));
    expect_exit(&r, 0, "dump stdin");
    expect_contains(&r, &r.out, "GGUF v3", "dump stdin");
    expect_contains(&r, &r.out, "token_embd.weight", "dump stdin");
    result_free(&r);
}

/* ------------------------------------------------------ rule selection */

static void test_selection(void **state)
{
    /* dup.gguf: one error GG106 */
    assert_int_equal(code_of(ARGV("@dup.gguf")), 1);
    assert_int_equal(code_of(ARGV("--exit-zero", "@dup.gguf")), 0);
    assert_int_equal(code_of(ARGV("--ignore", "GG106", "@dup.gguf")), 0);
    assert_int_equal(code_of(ARGV("--ignore", "duplicate-key", "@dup.gguf")), 0);
    assert_int_equal(code_of(ARGV("--ignore", "kv", "@dup.gguf")), 0);
    assert_int_equal(code_of(ARGV("--ignore", "GG1", "@dup.gguf")), 0);
    assert_int_equal(code_of(ARGV("--ignore", "GG2,GG3", "@dup.gguf")), 1);
    assert_int_equal(code_of(ARGV("--select", "GG114", "@dup.gguf")), 0);
    assert_int_equal(code_of(ARGV("--select", "tensor", "@dup.gguf")), 0);
    assert_int_equal(code_of(ARGV("--select", "duplicate-key", "@dup.gguf")), 1);
    assert_int_equal(code_of(ARGV("--select", "kv", "@dup.gguf")), 1);
    assert_int_equal(code_of(ARGV("--select", "ALL", "@dup.gguf")), 1);
    assert_int_equal(code_of(ARGV("--select", "GG114", "--extend-select", "GG106", "@dup.gguf")),
                     1);
    assert_int_equal(code_of(ARGV("--severity", "GG106=warning", "@dup.gguf")), 0);
    assert_int_equal(
        code_of(ARGV("--severity", "GG106=warning", "--fail-on", "warning", "@dup.gguf")), 1);
    assert_int_equal(code_of(ARGV("--severity", "GG106=off", "--fail-on", "note", "@dup.gguf")), 0);

    /* bool.gguf: one warning GG114 */
    assert_int_equal(code_of(ARGV("@bool.gguf")), 0);
    assert_int_equal(code_of(ARGV("--fail-on", "warning", "@bool.gguf")), 1);
    assert_int_equal(code_of(ARGV("--fail-on", "note", "@bool.gguf")), 1);
    assert_int_equal(code_of(ARGV("--fail-on", "error", "@bool.gguf")), 0);
    assert_int_equal(code_of(ARGV("--severity", "GG114=error", "@bool.gguf")), 1);
    assert_int_equal(code_of(ARGV("--severity", "bool-not-0-1=error", "@bool.gguf")), 1);
    assert_int_equal(code_of(ARGV("--severity", "GG114=error", "--exit-zero", "@bool.gguf")), 0);
    assert_int_equal(
        code_of(ARGV("--severity", "GG114=note", "--fail-on", "warning", "@bool.gguf")), 0);
    assert_int_equal(code_of(ARGV("--fail-on", "warning", "--ignore", "GG114", "@bool.gguf")), 0);
    assert_int_equal(code_of(ARGV("--fail-on", "warning", "--select", "GG114", "@bool.gguf")), 1);
    assert_int_equal(code_of(ARGV("--fail-on", "warning", "--select", "GG106", "@bool.gguf")), 0);
    assert_int_equal(code_of(ARGV("--fail-on", "warning", "--exit-zero", "@bool.gguf")), 0);

    /* note.gguf: one note GG105 */
    assert_int_equal(code_of(ARGV("@note.gguf")), 0);
    assert_int_equal(code_of(ARGV("--fail-on", "warning", "@note.gguf")), 0);
    assert_int_equal(code_of(ARGV("--fail-on", "note", "@note.gguf")), 1);
    assert_int_equal(code_of(ARGV("--severity", "GG105=error", "@note.gguf")), 1);

    /* the selected severity is what gets printed */
    result r;
    RUN(&r, "--severity", "GG114=error", "@bool.gguf");
    expect_exit(&r, 1, "severity override output");
    expect_contains(&r, &r.out, "error GG114 bool-not-0-1", "severity override output");
    expect_contains(&r, &r.out, "1 error, 0 warnings", "severity override output");
    result_free(&r);
    RUN(&r, "--ignore", "GG114", "@bool.gguf");
    expect_exit(&r, 0, "ignore output");
    expect_lacks(&r, &r.out, "GG114", "ignore output");
    result_free(&r);
    RUN(&r, "--format", "json", "--severity", "GG114=error", "@bool.gguf");
    expect_contains(&r, &r.out,
                    "\"rule\":\"GG114\",\"slug\":\"bool-not-0-1\",\"family\":\"kv\","
                    "\"severity\":\"error\"",
                    "severity json");
    result_free(&r);
}

/* ------------------------------------------------------------- limits */

static void test_limits(void **state)
{
    /* three more copies of one key: GG106 three times */
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    for (int i = 0; i < 4; i++)
        gb_kv_u32(b, "llama.block_count", (uint32_t)i);
    write_gb("dup4.gguf", b);

    result r;
    RUN(&r, "@dup4.gguf");
    expect_exit(&r, 1, "dup4");
    expect_contains(&r, &r.out, "3 errors", "dup4");
    result_free(&r);

    RUN(&r, "--max-findings-per-rule", "1", "@dup4.gguf");
    expect_exit(&r, 1, "dup4 limited");
    expect_contains(&r, &r.out, "1 file checked: 1 error,", "dup4 limited");
    expect_contains(&r, &r.out, "2 more findings not shown", "dup4 limited");
    expect_contains(&r, &r.out,
                    "1 file checked: 1 error, 0 warnings, 0 notes, 2 more not shown "
                    "(over the per-rule limit)\n",
                    "dup4 limited summary");
    result_free(&r);

    RUN(&r, "--format", "json", "--max-findings-per-rule", "1", "@dup4.gguf");
    expect_exit(&r, 1, "dup4 limited json");
    expect_contains(&r, &r.out, "\"dropped\":2,", "dup4 limited json");
    expect_contains(&r, &r.out, "\"dropped\":2}}", "dup4 limited json");
    result_free(&r);

    /* a declared KV count over the limit is a warning */
    RUN(&r, "--max-kv-count", "3", "@valid.gguf");
    expect_exit(&r, 0, "max-kv-count");
    expect_contains(&r, &r.out, "warning GG011 kv-count-over-limit", "max-kv-count");
    result_free(&r);
    assert_int_equal(code_of(ARGV("--max-kv-count", "3", "--fail-on", "warning", "@valid.gguf")),
                     1);
    assert_int_equal(
        code_of(ARGV("--max-tensor-count", "1", "--fail-on", "warning", "@valid.gguf")), 1);
    assert_int_equal(code_of(ARGV("--max-string-len", "3", "@valid.gguf")), 1);
    assert_int_equal(code_of(ARGV("--max-array-count", "2", "@valid.gguf")), 1);
    assert_int_equal(code_of(ARGV("--deep", "@valid.gguf")), 0);
    assert_int_equal(code_of(ARGV("--max-depth", "1", "@valid.gguf")), 0);
}

/* ---------------------------------------------------------- rules/explain */

static void test_rules_and_explain(void **state)
{
    result r;
    RUN(&r, "rules");
    expect_exit(&r, 0, "rules");
    size_t lines = 0;
    for (size_t i = 0; i < r.out.len; i++)
        lines += r.out.p[i] == '\n';
    assert_int_equal(lines, gguflint_rule_count());
    for (size_t i = 0; i < gguflint_rule_count(); i++) {
        const gguflint_rule_info *ri = gguflint_rule(i);
        expect_contains(&r, &r.out, ri->id, "rules");
        expect_contains(&r, &r.out, ri->slug, "rules");
    }
    result_free(&r);

    RUN(&r, "rules", "--markdown");
    expect_exit(&r, 0, "rules --markdown");
    expect_contains(&r, &r.out, "GG106", "rules --markdown");
    expect_contains(&r, &r.out, "duplicate-key", "rules --markdown");
    result_free(&r);

    result a, b, c;
    RUN(&a, "explain", "GG106");
    expect_exit(&a, 0, "explain GG106");
    expect_contains(&a, &a.out, "GG106", "explain GG106");
    expect_contains(&a, &a.out, "duplicate-key", "explain GG106");
    assert_true(a.out.len > 100);
    RUN(&b, "explain", "duplicate-key");
    expect_exit(&b, 0, "explain duplicate-key");
    assert_int_equal(a.out.len, b.out.len);
    assert_memory_equal(a.out.p, b.out.p, a.out.len);
    RUN(&c, "explain", "gg106");
    expect_exit(&c, 0, "explain gg106");
    assert_string_equal(a.out.p, c.out.p);
    result_free(&a);
    result_free(&b);
    result_free(&c);

    /* every rule explains by id and by slug */
    for (size_t i = 0; i < gguflint_rule_count(); i++) {
        const gguflint_rule_info *ri = gguflint_rule(i);
        RUN(&a, "explain", ri->id);
        expect_exit(&a, 0, ri->id);
        expect_contains(&a, &a.out, ri->slug, ri->id);
        RUN(&b, "explain", ri->slug);
        expect_exit(&b, 0, ri->slug);
        assert_string_equal(a.out.p, b.out.p);
        result_free(&a);
        result_free(&b);
    }

    RUN(&r, "explain", "NOPE");
    expect_exit(&r, 2, "explain NOPE");
    expect_contains(&r, &r.err, "NOPE", "explain NOPE");
    assert_int_equal(r.out.len, 0);
    result_free(&r);

    /* an unknown rule name given with hostile bytes is echoed escaped */
    RUN(&r, "explain", "N\x1b[2JOPE");
    expect_exit(&r, 2, "explain ESC");
    check_terminal_safe(&r, &r.err, "explain ESC stderr");
    result_free(&r);
}

/* ------------------------------------------------------------- escaping */

static void test_escaping_lint_text(void **state)
{
    result r;
    RUN(&r, "@weird.gguf");
    expect_exit(&r, 1, "weird text");
    check_terminal_safe(&r, &r.out, "weird lint text");
    check_terminal_safe(&r, &r.err, "weird lint stderr");
    expect_contains(&r, &r.out, "GG104 key-control-bytes", "weird text");
    expect_contains(&r, &r.out, "GG203 tensor-name-invalid-utf8", "weird text");
    /* visible escapes */
    expect_contains(&r, &r.out, "\\x1b", "weird text");
    result_free(&r);
}

static void test_escaping_lint_json(void **state)
{
    result r;
    RUN(&r, "--format", "json", "@weird.gguf");
    expect_exit(&r, 1, "weird json");
    check_terminal_safe(&r, &r.out, "weird lint json");
    expect_contains(&r, &r.out, "\"rule\":\"GG104\"", "weird json");
    expect_contains(&r, &r.out, "\"rule\":\"GG203\"", "weird json");
    result_free(&r);
}

static void test_escaping_dump_text(void **state)
{
    result r;
    RUN(&r, "dump", "@weird.gguf");
    expect_exit(&r, 0, "weird dump text");
    check_terminal_safe(&r, &r.out, "weird dump text");
    expect_contains(&r, &r.out, "llama.a\\x1b[31mb\\u{202e}c\\u{200b}d\\xffe\\xc0\\xaff\\xe2\\x80g",
                    "weird dump text");
    expect_contains(&r, &r.out, "\"t\\x1b]0;x\\x07\\u{202e}n\\u{200b}m\\xff\"", "weird dump text");
    result_free(&r);

    RUN(&r, "dump", "--format", "text", "@weird.gguf");
    expect_exit(&r, 0, "weird dump --format text");
    check_terminal_safe(&r, &r.out, "weird dump --format text");
    result_free(&r);
}

static void test_escaping_dump_json(void **state)
{
    result r;
    RUN(&r, "dump", "--format", "json", "@weird.gguf");
    expect_exit(&r, 0, "weird dump json");
    check_terminal_safe(&r, &r.out, "weird dump json");
    expect_contains(&r, &r.out, "\\u001b", "weird dump json");
    expect_contains(&r, &r.out, "\\u202e", "weird dump json");
    expect_contains(&r, &r.out, "\\u200b", "weird dump json");
    expect_contains(&r, &r.out, "\\u0007", "weird dump json");
    expect_contains(&r, &r.out, "\"kv_count\":2,", "weird dump json");
    result_free(&r);

    RUN(&r, "dump", "--format=json", "@weird.gguf");
    expect_exit(&r, 0, "weird dump --format=json");
    check_terminal_safe(&r, &r.out, "weird dump --format=json");
    result_free(&r);
}

/* The longest dump header: both counts 2^64-1 in a 24-byte file. Every field
 * must be printed whole (the JSON must stay well-formed). */
static void test_dump_json_huge_counts(void **state)
{
    static const uint8_t hdr[24] = {'G',  'G',  'U',  'F',  3,    0,    0,    0,
                                    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    write_bytes("huge_counts.gguf", hdr, sizeof hdr);
    result r;
    /* the metadata cannot be read: the dump is partial, exit 1 */
    RUN(&r, "dump", "--format", "json", "@huge_counts.gguf");
    expect_exit(&r, 1, "dump json huge counts");
    expect_contains(&r, &r.out,
                    "\"tensor_count\":18446744073709551615,\"kv_count\":18446744073709551615,"
                    "\"alignment\":32,\"metadata_complete\":false,\"kvs\":[],\"tensors\":[]}\n",
                    "dump json huge counts");
    result_free(&r);

    RUN(&r, "--format", "json", "@huge_counts.gguf");
    expect_exit(&r, 1, "lint json huge counts");
    expect_contains(&r, &r.out,
                    "\"tensor_count\":18446744073709551615,\"kv_count\":18446744073709551615,"
                    "\"alignment\":32,\"findings\":[",
                    "lint json huge counts");
    result_free(&r);

    RUN(&r, "dump", "@huge_counts.gguf");
    expect_exit(&r, 1, "dump text huge counts");
    expect_contains(
        &r, &r.out,
        "tensor_count 18446744073709551615, kv_count 18446744073709551615, alignment 32",
        "dump text huge counts");
    result_free(&r);
}

/* A file *name* with terminal escapes is shown escaped too. */
static void test_escaping_path(void **state)
{
    static const char evil[] = "evil\x1b[31m\xe2\x80\xae\xff.gguf";
    char p[1024];
    tpath(p, sizeof p, evil);
    size_t len = 0;
    uint8_t *data = ex_small_model(&len);
    block_swap(NULL, data);
    write_bytes(evil, data, len);
    block_swap(data, NULL);
    free(data);
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.name", "x");
    gb_kv_str(b, "general.name", "y");
    static const char evil_dup[] = "evil\x1b[31m\xe2\x80\xae\xff-dup.gguf";
    write_gb(evil_dup, b);

    char at[1100];
    snprintf(at, sizeof at, "@%s", evil_dup);
    result r;
    RUN(&r, at);
    expect_exit(&r, 1, "evil path");
    check_terminal_safe(&r, &r.out, "evil path text");
    expect_contains(&r, &r.out, "evil\\x1b[31m\\u{202e}\\xff-dup.gguf:0x", "evil path text");
    result_free(&r);

    RUN(&r, "--format", "json", at);
    expect_exit(&r, 1, "evil path json");
    check_terminal_safe(&r, &r.out, "evil path json");
    result_free(&r);

    /* the missing-file message on stderr */
    static const char evil_missing[] = "@missing\x1b[2J\xe2\x80\xae\xff.gguf";
    RUN(&r, evil_missing);
    expect_exit(&r, 2, "evil missing");
    check_terminal_safe(&r, &r.err, "evil missing stderr");
    expect_contains(&r, &r.err, "missing\\x1b[2J", "evil missing");
    result_free(&r);
}

/* ------------------------------------------------------------ outputs */

/* The bytes of a file in the temp dir, NUL-terminated, into b. */
static void read_tmp(const char *name, buf *b)
{
    char p[1024];
    tpath(p, sizeof p, name);
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        buf_put(b, chunk, n);
    fclose(f);
    buf_put(b, "", 0);
}

/* One lint pass, several reports: text on standard output, SARIF and JSON
 * in files; at most one report may go to standard output. */
static void test_several_outputs(void **state)
{
    result r;
    RUN(&r, "--format", "text", "--format", "sarif", "--output-file", "@out.sarif", "--format",
        "json", "--output-file", "@out.json", "@dup.gguf");
    expect_exit(&r, 1, "text + sarif + json");
    expect_contains(&r, &r.out, "error GG106 duplicate-key", "text + sarif + json");
    expect_contains(&r, &r.out, "1 file checked: 1 error", "text + sarif + json");
    expect_lacks(&r, &r.out, "\"$schema\"", "text + sarif + json");
    buf sarif = {0}, json = {0};
    read_tmp("out.sarif", &sarif);
    read_tmp("out.json", &json);
    expect_contains(&r, &sarif, "\"ruleId\":\"GG106\"", "sarif file");
    expect_contains(&r, &json, "\"rule\":\"GG106\"", "json file");
    buf_release(&sarif);
    buf_release(&json);
    result_free(&r);

    /* --output-file before any --format: the default text report */
    RUN(&r, "--output-file", "@out.txt", "@dup.gguf");
    expect_exit(&r, 1, "text to a file");
    expect_lacks(&r, &r.out, "GG106", "text to a file");
    buf text = {0};
    read_tmp("out.txt", &text);
    expect_contains(&r, &text, "error GG106 duplicate-key", "text file");
    buf_release(&text);
    result_free(&r);

    /* formats without a file: the last one wins standard output (as before) */
    /* two reports on standard output would interleave: an error, none dropped */
    RUN(&r, "--format", "json", "--format", "github", "@dup.gguf");
    expect_exit(&r, 2, "two stdout formats");
    expect_contains(&r, &r.err, "several --format options write to standard output",
                    "two stdout formats");
    expect_lacks(&r, &r.out, "schema_version", "two stdout formats");
    result_free(&r);
    RUN(&r, "--format", "sarif", "--format", "json", "--format", "text", "@dup.gguf");
    expect_exit(&r, 2, "three stdout formats");
    result_free(&r);

    RUN(&r, "--format", "sarif", "--output-file", "@a", "--output-file", "@b", "@dup.gguf");
    expect_exit(&r, 2, "two files for one format");
    result_free(&r);
    RUN(&r, "--format", "text", "--output-file", "@no-such-dir/x.txt", "@dup.gguf");
    expect_exit(&r, 2, "unwritable output file");
    expect_contains(&r, &r.err, "cannot write", "unwritable output file");
    result_free(&r);
}

static void test_color(void **state)
{
    result r;
    /* standard output is a pipe here: auto means no colour */
    RUN(&r, "@dup.gguf");
    expect_lacks(&r, &r.out, "\x1b[", "auto on a pipe");
    result_free(&r);
    RUN(&r, "--color=always", "@dup.gguf", "@bool.gguf", "@note.gguf");
    expect_contains(&r, &r.out, ": \x1b[1;31merror\x1b[0m GG106 duplicate-key", "always");
    expect_contains(&r, &r.out, ": \x1b[1;33mwarning\x1b[0m GG114", "always");
    expect_contains(&r, &r.out, ": \x1b[1;36mnote\x1b[0m GG105", "always");
    result_free(&r);
    /* NO_COLOR turns auto off; an explicit --color=always still wins */
    setenv("NO_COLOR", "1", 1);
    RUN(&r, "--color=always", "@dup.gguf");
    expect_contains(&r, &r.out, "\x1b[1;31merror", "always over NO_COLOR");
    result_free(&r);
    RUN(&r, "--color", "auto", "@dup.gguf");
    expect_lacks(&r, &r.out, "\x1b[", "auto with NO_COLOR");
    result_free(&r);
    unsetenv("NO_COLOR");
    RUN(&r, "--color=never", "@dup.gguf");
    expect_lacks(&r, &r.out, "\x1b[", "never");
    result_free(&r);
    /* colour never reaches other formats, nor bytes from the file */
    RUN(&r, "--color=always", "--format", "json", "@dup.gguf");
    expect_lacks(&r, &r.out, "\x1b[", "always, json");
    result_free(&r);
    RUN(&r, "--color=sometimes", "@dup.gguf");
    expect_exit(&r, 2, "bad --color");
    result_free(&r);
}

static void test_statistics(void **state)
{
    result r;
    RUN(&r, "--statistics", "@dup4.gguf", "@dup.gguf");
    expect_exit(&r, 1, "statistics");
    expect_contains(&r, &r.out, "\n       4  GG106 duplicate-key\n2 files checked: 4 errors",
                    "statistics");
    result_free(&r);
    RUN(&r, "--statistics", "--format", "json", "@dup4.gguf", "@dup.gguf");
    expect_contains(&r, &r.out, "\"statistics\":{\"GG106\":4}}}", "statistics json");
    result_free(&r);
    RUN(&r, "--format", "json", "@dup.gguf");
    expect_lacks(&r, &r.out, "\"statistics\"", "no statistics by default");
    result_free(&r);
}

/* dump exits 1 when what it shows is not the whole metadata of a GGUF file. */
static void test_dump_exit(void **state)
{
    static const char text[] = "not a model\n";
    write_bytes("text.gguf", text, sizeof text - 1);
    assert_int_equal(code_of(ARGV("dump", "@valid.gguf")), 0);
    assert_int_equal(code_of(ARGV("dump", "@dup.gguf")), 0); /* complete, findings or not */
    assert_int_equal(code_of(ARGV("dump", "@text.gguf")), 1);
    assert_int_equal(code_of(ARGV("dump", "--format", "json", "@text.gguf")), 1);
    assert_int_equal(code_of(ARGV("dump", "@does-not-exist.gguf")), 2);
}

/* A LoRA adapter for valid.gguf's blk.0.attn_q.weight [32, 32]. */
static void write_lora(const char *name, const char *arch)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", arch);
    gb_kv_str(b, "general.type", "adapter");
    gb_kv_str(b, "adapter.type", "lora");
    gb_kv_f32(b, "adapter.lora.alpha", 16.0f);
    gb_tensor(b, "blk.0.attn_q.weight.lora_a", 2, (const uint64_t[]){32, 8}, GB_F32, 0);
    gb_tensor(b, "blk.0.attn_q.weight.lora_b", 2, (const uint64_t[]){8, 32}, GB_F32, 1024);
    gb_pad_to(b, 32);
    gb_zeros(b, 2048);
    write_gb(name, b);
}

static void test_base(void **state)
{
    write_lora("lora-ok.gguf", "llama");
    write_lora("lora-qwen.gguf", "qwen2");
    result r;
    RUN(&r, "--base", "@valid.gguf", "@lora-ok.gguf");
    expect_exit(&r, 0, "adapter on its base");
    expect_contains(&r, &r.out, "1 file checked: 0 errors, 0 warnings, 0 notes", "base");
    result_free(&r);

    RUN(&r, "--base", "@valid.gguf", "@lora-qwen.gguf");
    expect_exit(&r, 1, "qwen2 adapter on a llama base");
    expect_contains(&r, &r.out, "error GG530 lora-arch-mismatch", "arch mismatch");
    result_free(&r);
    /* without the base nothing says the base is llama */
    assert_int_equal(code_of(ARGV("@lora-qwen.gguf")), 0);
    /* the base itself is not reported; other inputs are linted as usual */
    RUN(&r, "-j", "2", "--base", "@valid.gguf", "@lora-qwen.gguf", "@valid.gguf", "@lora-ok.gguf");
    expect_exit(&r, 1, "-j 2 with a base");
    expect_contains(&r, &r.out, "3 files checked: 1 error", "-j 2 with a base");
    result_free(&r);

    /* a base that cannot be read or is not a model: exit 2, with the reason */
    RUN(&r, "--base", "@no-such-base.gguf", "@lora-ok.gguf");
    expect_exit(&r, 2, "missing base");
    expect_contains(&r, &r.err, "--base", "missing base");
    result_free(&r);
    RUN(&r, "--base", "@lora-ok.gguf", "@valid.gguf");
    expect_exit(&r, 2, "adapter as the base");
    expect_contains(&r, &r.err, "not usable as a base model: it is a LoRA adapter", "swapped");
    result_free(&r);
}

static void test_rules_json(void **state)
{
    result r;
    RUN(&r, "rules", "--format", "json");
    expect_exit(&r, 0, "rules json");
    expect_contains(&r, &r.out, "{\"schema_version\":1,", "rules json");
    expect_contains(&r, &r.out, "\"profiles\":[\"ggml\",\"spec\",\"strict\",\"security\"]",
                    "rules json");
    expect_contains(&r, &r.out,
                    "{\"id\":\"GG105\",\"slug\":\"key-not-snake-case\",\"family\":\"kv\","
                    "\"default_severity\":\"note\",\"severity\":{\"ggml\":\"note\",\"spec\":"
                    "\"error\",\"strict\":\"error\",\"security\":",
                    "rules json");
    result_free(&r);
    RUN(&r, "rules", "--format=markdown");
    expect_contains(&r, &r.out, "# gguflint rules", "rules markdown");
    result_free(&r);
    RUN(&r, "rules", "--format", "yaml");
    expect_exit(&r, 2, "rules yaml");
    result_free(&r);
}

EX_MAIN(group_setup, group_teardown,
        {
            cmocka_unit_test_teardown(test_exit_clean, free_blocks),
            cmocka_unit_test_teardown(test_exit_findings, free_blocks),
            cmocka_unit_test_teardown(test_exit_empty_file, free_blocks),
            cmocka_unit_test_teardown(test_exit_unreadable, free_blocks),
            cmocka_unit_test_teardown(test_exit_usage, free_blocks),
            cmocka_unit_test_teardown(test_json_format, free_blocks),
            cmocka_unit_test_teardown(test_stdin, free_blocks),
            cmocka_unit_test_teardown(test_selection, free_blocks),
            cmocka_unit_test_teardown(test_limits, free_blocks),
            cmocka_unit_test_teardown(test_rules_and_explain, free_blocks),
            cmocka_unit_test_teardown(test_escaping_lint_text, free_blocks),
            cmocka_unit_test_teardown(test_escaping_lint_json, free_blocks),
            cmocka_unit_test_teardown(test_escaping_dump_text, free_blocks),
            cmocka_unit_test_teardown(test_escaping_dump_json, free_blocks),
            cmocka_unit_test_teardown(test_dump_json_huge_counts, free_blocks),
            cmocka_unit_test_teardown(test_escaping_path, free_blocks),
            cmocka_unit_test_teardown(test_several_outputs, free_blocks),
            cmocka_unit_test_teardown(test_color, free_blocks),
            cmocka_unit_test_teardown(test_statistics, free_blocks),
            cmocka_unit_test_teardown(test_dump_exit, free_blocks),
            cmocka_unit_test_teardown(test_rules_json, free_blocks),
            cmocka_unit_test_teardown(test_base, free_blocks),
        })
