/* fuzz_fetch.c - the HTTP layer of URL inputs under hostile servers: the
 * input is a script of responses (status line, headers, body slices and the
 * transport's outcome, see src/net/transport_script.c) replayed through the
 * scripted transport. The first byte picks the first range, the fetch cap and
 * the mode: open a file and read ranges of it, or list a Hugging Face
 * repository. Asserts: a credential header never reaches another origin; a
 * file that opens has a consistent size and prefix; reads return exactly what
 * was asked or fail with a reason; listed paths are valid, sorted and unique.
 * No sleeping: backoff and Retry-After are zero. Seeds: corpus/fetch/. */
#include "fuzz_common.h"

#include "net/hf.h"
#include "net/http.h"
#include "net/script.h"

static const char secret[] = "Authorization: Bearer fuzz-token";
static const char *const secrets[] = {secret};
static const char origin[] = "http://127.0.0.1:1/";

static void options(net_options *o, uint8_t sel)
{
    net_options_default(o);
    o->first_range = 1 + (uint64_t)(sel & 7) * 97; /* 1 .. 680 bytes */
    o->max_fetch = 64 + (uint64_t)((sel >> 3) & 7) * 512;
    o->backoff_ms = 0;
    o->max_retry_after_s = 0;
    o->origin_headers = secrets;
    o->n_origin_headers = 1;
}

static void read_some(net_file *f, const uint8_t *head_copy, uint64_t head_len)
{
    uint64_t size = net_size(f);
    FUZZ_ASSERT(net_cached(f) <= size);
    /* the start (cached), a span across the end of the cache, and the tail */
    uint64_t offs[3] = {0, head_len > 8 ? head_len - 8 : 0, size > 300 ? size - 300 : 0};
    for (int i = 0; i < 3; i++) {
        uint64_t off = offs[i];
        if (off > size)
            continue;
        uint64_t n = size - off < 300 ? size - off : 300;
        uint8_t *buf = malloc(n ? (size_t)n : 1);
        FUZZ_ASSERT(buf);
        char err[256] = "";
        net_status st = net_read_at(f, off, buf, (size_t)n, err, sizeof err);
        FUZZ_ASSERT(st == NET_OK || st == NET_E_IO || st == NET_E_NOMEM);
        if (st == NET_E_IO)
            FUZZ_ASSERT(err[0] != '\0');
        if (st == NET_OK && off < head_len) {
            uint64_t k = head_len - off < n ? head_len - off : n;
            FUZZ_ASSERT(memcmp(buf, head_copy + off, (size_t)k) == 0);
        }
        free(buf);
    }
    /* a read past the end never succeeds */
    uint8_t one;
    char err[256];
    FUZZ_ASSERT(net_read_at(f, size, &one, 1, err, sizeof err) != NET_OK);
}

static int net_read(void *user, uint64_t off, void *buf, size_t len, char *err, size_t errn)
{
    net_status st = net_read_at(user, off, buf, len, err, errn);
    return st == NET_OK ? GGUFLINT_OK : st == NET_E_NOMEM ? GGUFLINT_E_NOMEM : GGUFLINT_E_IO;
}

/* Lint the remote file as gguflint_open_url does: a reader over its ranges. */
static void lint_remote(net_file *f, uint8_t sel)
{
    gguflint_ctx *ctx = gguflint_new(NULL);
    if (!ctx)
        return;
    gguflint_reader r = GGUFLINT_READER_INIT;
    r.size = net_size(f);
    r.read_at = net_read;
    r.user = f;
    r.first_read = 64 + (uint64_t)(sel & 7) * 100;
    r.max_prefix = 1u << 16;
    int st = gguflint_open_reader(ctx, &r);
    FUZZ_ASSERT(st == GGUFLINT_OK || st == GGUFLINT_E_IO || st == GGUFLINT_E_NOMEM);
    if (st == GGUFLINT_OK) {
        /* padding past the metadata is read through the reader: may fail */
        st = gguflint_run(ctx);
        FUZZ_ASSERT(st == GGUFLINT_OK || st == GGUFLINT_E_IO || st == GGUFLINT_E_NOMEM);
    } else {
        FUZZ_ASSERT(gguflint_error_detail(ctx)[0] != '\0');
    }
    gguflint_free(ctx);
}

static void fuzz_open(const uint8_t *script, size_t len, uint8_t sel)
{
    net_script s;
    net_script_init(&s, script, len);
    s.secret = secret;
    s.secret_origin = origin;
    net_options o;
    options(&o, sel);
    net_file *f = NULL;
    char err[256] = "";
    net_status st = net_open("http://127.0.0.1:1/model.gguf", &o, &s.t, &f, err, sizeof err);
    FUZZ_ASSERT(st == NET_OK || st == NET_E_IO || st == NET_E_NOMEM);
    if (st == NET_OK) {
        FUZZ_ASSERT(f);
        uint64_t head_len = net_cached(f);
        uint8_t *copy = malloc(head_len ? (size_t)head_len : 1);
        FUZZ_ASSERT(copy);
        char e2[256];
        size_t before = s.performed;
        FUZZ_ASSERT(net_read_at(f, 0, copy, (size_t)head_len, e2, sizeof e2) == NET_OK);
        FUZZ_ASSERT(s.performed == before); /* cached bytes cost no request */
        read_some(f, copy, head_len);
        lint_remote(f, sel);
        uint64_t bytes, reqs;
        net_stats(f, &bytes, &reqs);
        FUZZ_ASSERT(reqs == s.performed);
        free(copy);
        net_close(f);
    } else {
        FUZZ_ASSERT(!f && err[0] != '\0');
    }
    FUZZ_ASSERT(!s.leaked);
}

static void fuzz_list(const uint8_t *script, size_t len, uint8_t sel)
{
    net_script s;
    net_script_init(&s, script, len);
    s.secret = secret;
    s.secret_origin = origin;
    net_options o;
    options(&o, sel);
    o.max_fetch = 1u << 16;
    hf_ref r;
    char err[256];
    FUZZ_ASSERT(
        hf_parse((sel & 0x40) ? "hf://org/repo@v1/sub" : "hf://org/repo", &r, err, sizeof err));
    hf_list l;
    uint64_t bytes = 0, reqs = 0;
    net_status st =
        hf_list_repo("http://127.0.0.1:1", &r, &o, &s.t, &l, &bytes, &reqs, err, sizeof err);
    FUZZ_ASSERT(st == NET_OK || st == NET_E_IO || st == NET_E_NOMEM);
    if (st == NET_OK) {
        for (size_t i = 0; i < l.n; i++) {
            FUZZ_ASSERT(hf_valid_path(l.v[i].path, strlen(l.v[i].path)));
            if (i)
                FUZZ_ASSERT(strcmp(l.v[i - 1].path, l.v[i].path) < 0);
            char *u = hf_file_url("http://127.0.0.1:1", &r, l.v[i].path);
            FUZZ_ASSERT(u);
            for (const char *p = u; *p; p++)
                FUZZ_ASSERT(*p > 0x20 && *p < 0x7F);
            free(u);
        }
        hf_list_free(&l);
    }
    FUZZ_ASSERT(reqs == s.performed);
    FUZZ_ASSERT(!s.leaked);
    hf_ref_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t sel = data[0];
    if (sel & 0x80)
        fuzz_list(data + 1, size - 1, sel);
    else
        fuzz_open(data + 1, size - 1, sel);
    return 0;
}
