"""gguflint_build.py - the cffi builder of the gguflint._native extension.

The extension is compiled against the project's own public header
(src/gguflint.h) and linked with the library CMake builds from the project's
own sources (libgguflint.a), so there is no second copy of either that could
drift. The declarations cffi needs (its "cdef") are produced from the header by
the C preprocessor at build time; cffi's API mode then compiles a module that
includes the real header, so any mismatch is a compile error, not a crash.

A few lines of C glue (GLUE below) keep work off the GIL: building the
options, opening and running a lint under a SIGBUS guard, and rendering the
library's own JSON writers into a buffer all happen in one C call each.

Inputs (environment): GGUFLINT_SOURCE_DIR, the project root (default: the
parent of this file's folder); GGUFLINT_LIBRARY_DIR, a CMake build folder
holding libgguflint.a and gguflint.pc (set by setup.py after it has run CMake,
or by the caller to reuse an existing build).
"""

import os
import re
import subprocess
import tempfile

from cffi import FFI

HERE = os.path.dirname(os.path.abspath(__file__))


def source_dir() -> str:
    root = os.environ.get("GGUFLINT_SOURCE_DIR") or os.path.dirname(HERE)
    if not os.path.isfile(os.path.join(root, "src", "gguflint.h")):
        raise RuntimeError(
            f"gguflint sources not found under {root!r}: build the package from a "
            "checkout of the project (pip install ./python) or set GGUFLINT_SOURCE_DIR")
    return root


def header_cdef(header: str) -> str:
    """The declarations of the public header, preprocessed for cffi.

    System headers are replaced by empty ones (cffi knows the standard types),
    attributes are dropped, and integer-valued GGUFLINT_ macros are kept as
    "#define NAME ..." so cffi reads their values from the real header."""
    with tempfile.TemporaryDirectory() as fake:
        for name in ("stdbool.h", "stddef.h", "stdint.h", "stdio.h", "stdarg.h"):
            open(os.path.join(fake, name), "w").close()
        cc = os.environ.get("CC", "cc")
        out = subprocess.run(
            [cc, "-E", "-P", "-nostdinc", "-I", fake, "-D__attribute__(x)=",
             "-D__declspec(x)=", "-DGGUFLINT_CFFI=1", "-DGGUFLINT_UNSTABLE_API", header],
            check=True, capture_output=True, text=True).stdout
    with open(header, encoding="utf-8") as f:
        text = f.read()
    macros = re.findall(r"^#\s*define\s+(GGUFLINT_[A-Z0-9_]+)\s+\(?-?[0-9][0-9xXa-fA-FuUlL]*\)?\s*$",
                        text, re.M)
    defines = "".join(f"#define {m} ...\n" for m in macros)
    # cffi does not understand 'static inline' bodies in a cdef; the public
    # header has none, but drop any defensively.
    return defines + out


GLUE_CDEF = """
const char *gguflintpy_version(void);
bool gguflintpy_url_supported(void);
int gguflintpy_open_url_run(gguflint_ctx *ctx, const char *url, const int *cancel,
                            uint64_t deadline_ms);
bool gguflintpy_fetch_stats(const gguflint_ctx *ctx, uint64_t *bytes, uint64_t *requests);
int gguflintpy_list(const char *ref, char **out, size_t *len, char *err, size_t err_size);
gguflint_ctx *gguflintpy_new(const char *profile, const char *select, const char *ignore,
                             bool deep, bool header_only, int *status,
                             char *bad, size_t bad_size);
int gguflintpy_open_run(gguflint_ctx *ctx, const char *path, const void *data, size_t size);
int gguflintpy_report_json(const gguflint_ctx *ctx, const char *display, int status,
                           const char *sha256, char **out, size_t *len);
int gguflintpy_dump_json(const gguflint_ctx *ctx, char **out, size_t *len);
int gguflintpy_rules_markdown(char **out, size_t *len);
void gguflintpy_free(void *p);
"""

GLUE = r"""
#include "gguflint.h"
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>


static void gguflintpy_free(void *p) { free(p); }

/* A growable buffer for the library's write callback; `failed` after an
 * allocation failure, so a report is never silently cut. */
typedef struct gguflintpy_buf { char *p; size_t len, cap; int failed; } gguflintpy_buf;

static void gguflintpy_append(void *user, const char *data, size_t len)
{
    gguflintpy_buf *b = user;
    if (b->failed || len == 0)
        return;
    if (len > SIZE_MAX - b->len - 1) { b->failed = 1; return; }
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len + 1)
            cap = cap > SIZE_MAX / 2 ? b->len + len + 1 : cap * 2;
        char *p = realloc(b->p, cap);
        if (!p) { b->failed = 1; return; }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, len);
    b->len += len;
    b->p[b->len] = '\0';
}

static int gguflintpy_take(gguflintpy_buf *b, char **out, size_t *len)
{
    if (b->failed) { free(b->p); *out = NULL; *len = 0; return GGUFLINT_E_NOMEM; }
    *out = b->p;
    *len = b->len;
    return GGUFLINT_OK;
}

/* Files are mapped; a file truncated by another process during a run raises
 * SIGBUS in the reading thread. While this thread runs the library its jump
 * buffer is armed and the run fails with GGUFLINT_E_IO; any other SIGBUS
 * goes to the handler that was there before ours. */
static _Thread_local sigjmp_buf gguflintpy_jump;
static _Thread_local volatile sig_atomic_t gguflintpy_armed;
static struct sigaction gguflintpy_previous;
static pthread_once_t gguflintpy_once = PTHREAD_ONCE_INIT;

static void gguflintpy_on_sigbus(int sig, siginfo_t *info, void *uc)
{
    if (gguflintpy_armed)
        siglongjmp(gguflintpy_jump, 1);
    /* Not ours: put the previous disposition back; the faulting access runs
     * again and reaches it (the default one ends the process as usual). */
    (void)info; (void)uc;
    sigaction(sig, &gguflintpy_previous, NULL);
}

static void gguflintpy_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = gguflintpy_on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &gguflintpy_previous);
}

/* Open a path (data == NULL) or borrow a buffer (which may be a mapped file
 * object), then run every check; -1 when the mapping shrank under the run. */
static int gguflintpy_open_run(gguflint_ctx *ctx, const char *path, const void *data, size_t size)
{
    pthread_once(&gguflintpy_once, gguflintpy_install);
    if (sigsetjmp(gguflintpy_jump, 1) != 0) {
        gguflintpy_armed = 0;
        return -1;
    }
    gguflintpy_armed = 1;
    int st = data ? gguflint_set_buffer(ctx, data, size) : gguflint_open_file(ctx, path);
    if (st == GGUFLINT_OK)
        st = gguflint_run(ctx);
    gguflintpy_armed = 0;
    return st;
}

/* The CLI's JSON report for this one file (the whole document). */
static int gguflintpy_report_json(const gguflint_ctx *ctx, const char *display, int status,
                                  const char *sha256, char **out, size_t *len)
{
    gguflintpy_buf b = {0};
    gguflint_report *r = gguflint_report_new(GGUFLINT_FORMAT_JSON, gguflintpy_append, &b);
    if (!r) { free(b.p); return GGUFLINT_E_NOMEM; }
    gguflint_report_set_config(r, NULL); /* as the CLI says: no config file read */
    char *cwd = getcwd(NULL, 0); /* paths below it fingerprinted as the CLI does */
    gguflint_report_set_base(r, cwd);
    free(cwd);
    gguflint_report_file_ex(r, display, ctx, status, NULL, sha256);
    gguflint_report_end(r, true);
    gguflint_report_free(r);
    return gguflintpy_take(&b, out, len);
}

static int gguflintpy_dump_json(const gguflint_ctx *ctx, char **out, size_t *len)
{
    gguflintpy_buf b = {0};
    gguflint_dump(ctx, GGUFLINT_FORMAT_JSON, gguflintpy_append, &b);
    return gguflintpy_take(&b, out, len);
}

static int gguflintpy_rules_markdown(char **out, size_t *len)
{
    gguflintpy_buf b = {0};
    gguflint_rules_markdown(gguflintpy_append, &b);
    return gguflintpy_take(&b, out, len);
}
"""

GLUE_VERSION = "static const char *gguflintpy_version(void) { return gguflint_version(); }\n"

GLUE_OPTIONS = r"""
/* Options the way the CLI applies them: profile, then select (exclusive),
 * then ignore. On an unknown name, *status is GGUFLINT_E_ARG and the name is
 * copied into bad. */
static gguflint_ctx *gguflintpy_new(const char *profile, const char *select, const char *ignore,
                                    bool deep, bool header_only, int *status,
                                    char *bad, size_t bad_size)
{
    *status = GGUFLINT_OK;
    if (bad_size)
        bad[0] = '\0';
    gguflint_options *opt = gguflint_options_new();
    if (!opt) {
        *status = GGUFLINT_E_NOMEM;
        return NULL;
    }
    gguflint_ctx *ctx = NULL;
    if (gguflint_options_profile(opt, profile) != GGUFLINT_OK) {
        *status = GGUFLINT_E_ARG;
        if (bad_size) { strncpy(bad, profile, bad_size - 1); bad[bad_size - 1] = '\0'; }
        goto done;
    }
    if (select) {
        gguflint_options_clear(opt);
        if (gguflint_options_select(opt, select, true, bad, bad_size) != GGUFLINT_OK) {
            *status = GGUFLINT_E_ARG;
            goto done;
        }
    }
    if (ignore && gguflint_options_select(opt, ignore, false, bad, bad_size) != GGUFLINT_OK) {
        *status = GGUFLINT_E_ARG;
        goto done;
    }
    /* one thread per lint: callers parallelise across files */
    if (gguflint_options_set_deep(opt, deep) != GGUFLINT_OK ||
        gguflint_options_set_deep_jobs(opt, 1) != GGUFLINT_OK ||
        gguflint_options_set_header_only(opt, header_only) != GGUFLINT_OK) {
        *status = GGUFLINT_E_INTERNAL;
        goto done;
    }
    ctx = gguflint_new(opt);
    if (!ctx)
        *status = GGUFLINT_E_NOMEM;
done:
    gguflint_options_free(opt);
    return ctx;
}

"""

GLUE_URL = r"""
/* URL inputs: the library fetches the metadata with HTTP ranges (fetch
 * options from the environment: $HF_ENDPOINT, $HF_TOKEN), then runs. In a
 * library built without libcurl, gguflint_url_supported() is false and the
 * package refuses URLs before calling these. */
static bool gguflintpy_url_supported(void) { return gguflint_url_supported(); }

static int gguflintpy_open_url_run(gguflint_ctx *ctx, const char *url, const int *cancel,
                                   uint64_t deadline_ms)
{
    /* cancel: a flag the caller sets to end the transfer (an attempt it gave
     * up on); deadline_ms: the request's and the file's deadline (0: the
     * library's) */
    gguflint_fetch_options *fo = gguflint_fetch_options_new();
    if (!fo)
        return GGUFLINT_E_NOMEM;
    if (cancel)
        gguflint_fetch_set_cancel(fo, cancel);
    if (deadline_ms) {
        gguflint_fetch_set(fo, GGUFLINT_FETCH_DEADLINE_MS, deadline_ms);
        gguflint_fetch_set(fo, GGUFLINT_FETCH_FILE_DEADLINE_MS, deadline_ms);
    }
    int st = gguflint_open_url(ctx, url, fo);
    gguflint_fetch_options_free(fo);
    if (st == GGUFLINT_OK)
        st = gguflint_run(ctx);
    return st;
}

static bool gguflintpy_fetch_stats(const gguflint_ctx *ctx, uint64_t *bytes, uint64_t *requests)
{
    const char *url = NULL;
    return gguflint_fetch_stats(ctx, &url, bytes, requests);
}

/* The files of an hf:// repository, NUL-separated, in a buffer to free. */
static int gguflintpy_list(const char *ref, char **out, size_t *len, char *err, size_t err_size)
{
    gguflint_url_list *l = NULL;
    int st = gguflint_url_list_new(ref, NULL, &l, err, err_size);
    if (st != GGUFLINT_OK)
        return st;
    gguflintpy_buf b = {0};
    for (size_t i = 0; i < gguflint_url_list_count(l); i++) {
        const char *u = gguflint_url_list_get(l, i);
        gguflintpy_append(&b, u, strlen(u) + 1);
    }
    gguflint_url_list_free(l);
    return gguflintpy_take(&b, out, len);
}
"""

def glue() -> str:
    """The C glue: buffers, the SIGBUS guard and the JSON writers (GLUE),
    the version, options as the CLI applies them, URL inputs."""
    return GLUE + GLUE_VERSION + GLUE_OPTIONS + GLUE_URL


def link_flags(libdir: str):
    """System libraries to link after libgguflint.a: what gguflint.pc lists as
    private (so a dependency the library gains is picked up here too)."""
    libs = []
    pc = os.path.join(libdir, "gguflint.pc")
    if os.path.isfile(pc):
        with open(pc, encoding="utf-8") as f:
            for line in f:
                if line.startswith("Libs.private:"):
                    libs += [t[2:] for t in line.split()[1:] if t.startswith("-l")]
    else:
        libs += ["m", "pthread"]
    return libs


def make_ffibuilder() -> FFI:
    root = source_dir()
    header = os.path.join(root, "src", "gguflint.h")
    libdir = os.environ.get("GGUFLINT_LIBRARY_DIR", "")
    archive = os.path.join(libdir, "libgguflint.a")
    if not os.path.isfile(archive):
        raise RuntimeError(f"{archive} not found: build the library first (setup.py does "
                           "it with CMake when GGUFLINT_LIBRARY_DIR is not set)")
    ffi = FFI()
    ffi.cdef(header_cdef(header))
    ffi.cdef(GLUE_CDEF)
    ffi.set_source(
        "gguflint._native", glue(),
        include_dirs=[os.path.join(root, "src")],
        # The static archive, so the extension is one self-contained file.
        extra_objects=[archive],
        depends=[archive, header],
        libraries=link_flags(libdir),
        # the glue uses URL inputs and base models, outside the 1.0 promise
        define_macros=[("GGUFLINT_UNSTABLE_API", None)],
        extra_compile_args=["-std=gnu11"],
    )
    return ffi




if __name__ == "__main__":
    make_ffibuilder().compile(verbose=True)
