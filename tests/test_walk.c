/* test_walk.c - a -r walk never skips silently (issue 25), run through the
 * built binary:
 *  - a directory that cannot be opened (mode 000; the binary runs as
 *    "nobody" when the test runs as root, who may open anything) is an input
 *    of its own: an I/O error on standard error, in JSON and as a SARIF
 *    notification, and the run exits 2; --allow-unreadable makes it a
 *    warning and the exit follows the findings;
 *  - a tree deeper than PATH_MAX (paths of about 12 KB) and 3000 levels deep
 *    is walked under `ulimit -n 64`: every file is found and linted,
 *    including the ones whose directory the walk left and came back to. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "expect.h"

#include "tiny_llama.h"

static char dir[] = "/tmp/gguflint-walk-XXXXXX";
static char out[1 << 20];

/* The CLI (as nobody when root). */
static const char *cli(void)
{
    static char s[1024];
    snprintf(s, sizeof s, "%s%s",
             geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "",
             GGUFLINT_CLI);
    return s;
}

/* Run the CLI in `dir`, `pre` a shell prefix. */
static void expect_run(const char *pre, const char *args, int code, const char *needle)
{
    ex_cli_expect_as(&(ex_how){pre, 120}, cli(), dir, ".", args, code, needle, out, sizeof out);
}

static void write_clean_at(int dfd, const char *name)
{
    size_t len;
    uint8_t *buf = gb_tiny_llama(&len);
    assert_non_null(buf);
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    close(fd);
    free(buf);
}

static bool have_setpriv(void)
{
    return geteuid() != 0 || system("setpriv --help > /dev/null 2>&1") == 0;
}

static void test_unreadable_dir(void **state)
{
    if (!have_setpriv())
        skip();
    char p[600];
    snprintf(p, sizeof p, "%s/u", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/u/ok", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/u/locked", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    int d = open(p, O_RDONLY | O_DIRECTORY);
    write_clean_at(d, "hidden.gguf");
    close(d);
    snprintf(p, sizeof p, "%s/u/ok", dir);
    d = open(p, O_RDONLY | O_DIRECTORY);
    write_clean_at(d, "model.gguf");
    close(d);
    snprintf(p, sizeof p, "%s/u/locked", dir);
    assert_int_equal(chmod(p, 0), 0);

    /* before issue 25: "1 file checked: 0 errors", exit 0 */
    expect_run("", "--isolated -r u", 2,
               "gguflint: u/locked: I/O error: cannot open the directory: Permission denied");
    assert_non_null(strstr(out, "1 file checked, 1 unreadable: 0 errors, 0 warnings, 0 notes"));
    expect_run("", "--isolated -r --format json u", 2,
               "{\"path\":\"u/locked\",\"error\":\"I/O error\",\"detail\":\"cannot open the "
               "directory: Permission denied\"}");
    assert_non_null(strstr(out, "\"unreadable\":1"));
    expect_run("", "--isolated -r --format sarif u", 2, "\"toolExecutionNotifications\":[");
    assert_non_null(strstr(out, "u/locked"));
    /* tolerated: a warning, and the exit says what the findings say */
    expect_run("", "--isolated -r --allow-unreadable u", 0,
               "gguflint: warning: u/locked: cannot open the directory: Permission denied (not "
               "checked: --allow-unreadable)");
    assert_non_null(strstr(out, "1 file checked"));
    assert_int_equal(chmod(p, 0755), 0);
}

/* A chain of `levels` directories named `name` below dfd; returns the
 * deepest one's descriptor. */
static int chain(int dfd, const char *name, int levels)
{
    int cur = dfd;
    for (int i = 0; i < levels; i++) {
        if (mkdirat(cur, name, 0755) != 0 && errno != EEXIST)
            fail_msg("mkdirat level %d: %s", i, strerror(errno));
        int next = openat(cur, name, O_RDONLY | O_DIRECTORY);
        assert_true(next >= 0);
        if (cur != dfd)
            close(cur);
        cur = next;
    }
    return cur;
}

static void test_deep_tree(void **state)
{
    if (!have_setpriv())
        skip();
    char p[600];
    snprintf(p, sizeof p, "%s/deep", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    int root = open(p, O_RDONLY | O_DIRECTORY);
    assert_true(root >= 0);
    char longname[201];
    memset(longname, 'n', 200);
    longname[200] = '\0';
    /* deep/a/<60 x 200-byte names>/bottom.gguf: a path of about 12 KB */
    int a = chain(root, "a", 1);
    int lng = chain(a, longname, 60);
    write_clean_at(lng, "bottom.gguf");
    close(lng);
    /* deep/a/b/c/.../ 3000 levels of "d", a file at the bottom, and a
     * sibling "e" at level 5 visited after the chain (its parent's
     * descriptor was given back on the way down) */
    int b = chain(a, "b", 1);
    int five = chain(b, "d", 5);
    int bottom = chain(five, "d", 2995);
    write_clean_at(bottom, "deepest.gguf");
    close(bottom);
    int e = chain(five, "e", 1);
    write_clean_at(e, "sibling.gguf");
    close(e);
    close(five);
    close(b);
    close(a);
    close(root);
    expect_run("ulimit -n 64 &&", "--isolated -r -q deep", 0, NULL);
    expect_run("ulimit -n 64 &&", "--isolated -r --format json deep", 0, "bottom.gguf");
    assert_non_null(strstr(out, "deepest.gguf"));
    assert_non_null(strstr(out, "/d/d/d/d/d/e/sibling.gguf"));
    assert_non_null(strstr(out, "\"files\":3,"));
    assert_null(strstr(out, "\"error\":\""));
}

static int setup(void **state)
{
    if (!mkdtemp(dir))
        return -1;
    return chmod(dir, 0755);
}

EX_TMPDIR_TEARDOWN(dir)

EX_MAIN(setup, teardown,
        {
            cmocka_unit_test(test_unreadable_dir),
            cmocka_unit_test(test_deep_tree),
        })
