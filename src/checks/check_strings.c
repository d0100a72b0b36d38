/* check_strings.c - see checks.h. String hygiene over keys, tensor names and
 * string values (array elements included): terminal escape sequences (GG700),
 * other control characters (GG701), bidi controls (GG702), invisible
 * characters (GG703), tensor names with bytes hidden after a NUL (GG704),
 * path-like names (GG705); and resource claims that make consumers allocate
 * absurdly (GG706-GG709; block_count is GG545, check_arch.c).
 *
 * Cost: one pass over each string, skipping printable ASCII runs; vocabulary
 * arrays (hundreds of thousands of tokens) are only searched for ESC with
 * memchr. Real vocabularies legitimately hold control characters, C1
 * characters, bidi controls and zero-width characters as tokens (byte tokens,
 * single-character tokens), so a token is reported only when it holds an
 * escape *sequence* (ESC followed by a printable byte). */
#include "checks/checks.h"

#include "model/model.h"

#include <string.h>

typedef enum { M_KEY, M_NAME, M_VALUE, M_VOCAB } scan_mode;

typedef struct hit {
    uint64_t at, count;
    uint32_t cp;  /* code point, or the raw byte of invalid UTF-8 */
    unsigned len; /* bytes of the character */
    bool raw;     /* a byte that is not valid UTF-8 */
} hit;

typedef struct scan {
    hit esc, ctl, bidi, zw;
} scan;

static void note_hit(hit *h, uint64_t at, uint32_t cp, unsigned len, bool raw)
{
    if (h->count++ == 0) {
        h->at = at;
        h->cp = cp;
        h->len = len;
        h->raw = raw;
    }
}

/* C1 controls that start escape sequences (CSI, OSC, DCS, SOS, PM, APC). */
static bool c1_escape(uint32_t cp)
{
    return cp == 0x9B || cp == 0x9D || cp == 0x90 || cp == 0x98 || cp == 0x9E || cp == 0x9F;
}

static bool is_ascii_print(uint8_t c)
{
    return (uint8_t)(c - 0x20u) < 0x5Fu;
}

static void scan_vocab(const uint8_t *s, uint64_t n, scan *r)
{
    const uint8_t *p = s, *end = s + n;
    while (p < end) {
        const uint8_t *e = memchr(p, 0x1B, (size_t)(end - p));
        if (!e)
            return;
        if (e + 1 < end && is_ascii_print(e[1]))
            note_hit(&r->esc, (uint64_t)(e - s), 0x1B, 1, false);
        p = e + 1;
    }
}

/* One pass over a string; records the first hit of each kind and counts. */
static void scan_string(const uint8_t *s, uint64_t n, scan_mode mode, scan *r)
{
    memset(r, 0, sizeof *r);
    if (mode == M_VOCAB) {
        scan_vocab(s, n, r);
        return;
    }
    bool flag_seq = false;             /* inside an emoji tag sequence (U+1F3F4 + tags) */
    const bool text = mode == M_VALUE; /* tabs and line feeds are fine in values */
    uint64_t i = 0;
    while (i < n) {
        uint64_t run = ascii_print_span(s + i, n - i, text);
        i += run;
        if (run)
            flag_seq = false;
        if (i >= n)
            break;
        uint8_t c = s[i];
        if (c < 0x80) { /* C0 or DEL; in keys they are GG104's */
            flag_seq = false;
            bool crlf = c == '\r' && i + 1 < n && s[i + 1] == '\n';
            if (mode != M_KEY && c == 0x1B)
                note_hit(&r->esc, i, c, 1, false);
            else if (mode != M_KEY && (mode == M_NAME ? c != 0 /* NUL: GG204 / GG704 */
                                                      : !(c == '\t' || c == '\n' || crlf)))
                note_hit(&r->ctl, i, c, 1, false);
            i++;
            continue;
        }
        uint32_t cp = 0;
        unsigned len = utf8_decode(s + i, n - i, &cp);
        if (len == 0) { /* invalid UTF-8 (GG121); a stray 0x9B is CSI to 8-bit terminals */
            flag_seq = false;
            if (c <= 0x9F && c1_escape(c))
                note_hit(&r->esc, i, c, 1, true);
            i++;
            continue;
        }
        bool in_flag = flag_seq;
        flag_seq = false;
        if (cp <= 0x9F) {
            note_hit(c1_escape(cp) ? &r->esc : &r->ctl, i, cp, len, false);
        } else if ((cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)) {
            note_hit(&r->bidi, i, cp, len, false);
        } else if (cp == 0xFEFF || cp == 0x2060) {
            note_hit(&r->zw, i, cp, len, false);
        } else if (cp >= 0x200B && cp <= 0x200D) {
            /* ZWSP/ZWNJ/ZWJ join non-ASCII text (emoji sequences, Persian, Indic,
             * Thai); next to ASCII or at an edge they only hide things */
            bool ascii_prev = i == 0 || s[i - 1] < 0x80;
            bool ascii_next = i + len >= n || s[i + len] < 0x80;
            if (mode != M_VALUE || ascii_prev || ascii_next)
                note_hit(&r->zw, i, cp, len, false);
        } else if (cp >= 0xE0000 && cp <= 0xE007F) {
            /* tag characters: invisible ASCII ("ASCII smuggling"), legitimate only
             * in subdivision flags (U+1F3F4 followed by tags, ended by U+E007F) */
            if (mode == M_VALUE && in_flag)
                flag_seq = cp != 0xE007F;
            else
                note_hit(&r->zw, i, cp, len, false);
        } else if (cp == 0x1F3F4) {
            flag_seq = true;
        }
        i += len;
    }
}

/* ---- reporting ---- */

/* A finding's logical path, built only when a finding is made (most strings
 * have none, and formatting a path per tensor would dominate the check). */
typedef struct lazy_path {
    char buf[192];
    bool built;
    const gguflint_ctx *ctx;
    const gguflint_kv *kv;    /* kv["key"] */
    const gguflint_tensor *t; /* or tensor[i].name */
} lazy_path;

static const char *path_of(lazy_path *p)
{
    if (!p->built) {
        if (p->kv)
            kv_path(p->buf, sizeof p->buf, p->kv);
        else
            snprintf(p->buf, sizeof p->buf, "tensor[%zu].name", tensor_index_of(p->ctx, p->t));
        p->built = true;
    }
    return p->buf;
}

typedef struct where {
    const char *what; /* "key", "tensor name", "value", "element 12" */
    lazy_path *path;
    uint64_t off, len;
} where;

/* Whether a finding of `rule` would be kept; when the rule is on but full,
 * the finding is counted as dropped and false is returned. */
static bool room(gguflint_ctx *ctx, int rule, const where *w)
{
    if (ctx->opt.severity[rule] == GGUFLINT_OFF)
        return false;
    if (ctx->per_rule[rule] < ctx->opt.limits.max_findings_per_rule)
        return true;
    emit(ctx, rule, w->off, w->len, path_of(w->path), "%s", ""); /* counted as dropped */
    return false;
}

static const char *cp_name(uint32_t cp)
{
    switch (cp) {
    case 0x1B: return "ESC";
    case 0x9B: return "CSI";
    case 0x9D: return "OSC";
    case 0x90: return "DCS";
    case 0x98: return "SOS";
    case 0x9E: return "PM";
    case 0x9F: return "APC";
    case 0x202A: return "LEFT-TO-RIGHT EMBEDDING";
    case 0x202B: return "RIGHT-TO-LEFT EMBEDDING";
    case 0x202C: return "POP DIRECTIONAL FORMATTING";
    case 0x202D: return "LEFT-TO-RIGHT OVERRIDE";
    case 0x202E: return "RIGHT-TO-LEFT OVERRIDE";
    case 0x2066: return "LEFT-TO-RIGHT ISOLATE";
    case 0x2067: return "RIGHT-TO-LEFT ISOLATE";
    case 0x2068: return "FIRST STRONG ISOLATE";
    case 0x2069: return "POP DIRECTIONAL ISOLATE";
    case 0x200B: return "ZERO WIDTH SPACE";
    case 0x200C: return "ZERO WIDTH NON-JOINER";
    case 0x200D: return "ZERO WIDTH JOINER";
    case 0x2060: return "WORD JOINER";
    case 0xFEFF: return "ZERO WIDTH NO-BREAK SPACE (BOM)";
    case 0x0D: return "a CR not followed by LF";
    case 0x00: return "NUL";
    case 0x08: return "BACKSPACE";
    case 0x7F: return "DEL";
    default: return cp >= 0xE0000 ? "TAG character" : NULL;
    }
}

static void describe(char *buf, size_t cap, const hit *h)
{
    const char *name = cp_name(h->cp);
    if (h->raw)
        snprintf(buf, cap, "byte 0x%02x (8-bit %s, not valid UTF-8)", (unsigned)h->cp,
                 name ? name : "C1 control");
    else if (h->cp < 0x80)
        snprintf(buf, cap, "0x%02x%s%s%s", (unsigned)h->cp, name ? " (" : "", name ? name : "",
                 name ? ")" : "");
    else
        snprintf(buf, cap, "U+%04X%s%s%s", (unsigned)h->cp, name ? " (" : "", name ? name : "",
                 name ? ")" : "");
}

/* Escaped bytes around a hit: up to 16 before and 24 after. */
static void context(char *buf, size_t cap, const uint8_t *s, uint64_t n, const hit *h)
{
    uint64_t from = h->at > 16 ? h->at - 16 : 0;
    while (from > 0 && (s[from] & 0xC0) == 0x80)
        from--;
    uint64_t to = h->at + h->len + 24 < n ? h->at + h->len + 24 : n;
    esc_fixed(buf, cap, s + from, n - from, (size_t)(to - from));
}

static void report_hit(gguflint_ctx *ctx, int rule, const where *w, const uint8_t *s, uint64_t n,
                       const hit *h, const char *kind)
{
    if (h->count == 0 || !room(ctx, rule, w))
        return;
    char desc[96], ctxt[200], more[48] = "";
    describe(desc, sizeof desc, h);
    context(ctxt, sizeof ctxt, s, n, h);
    if (h->count > 1)
        snprintf(more, sizeof more, " (%llu in all)", (unsigned long long)h->count);
    emit(ctx, rule, w->off, w->len, path_of(w->path), "%s contains %s %s at byte %llu%s: '%s'",
         w->what, kind, desc, (unsigned long long)h->at, more, ctxt);
}

static void report_scan(gguflint_ctx *ctx, const where *w, const uint8_t *s, uint64_t n,
                        const scan *r)
{
    report_hit(ctx, R_TERMINAL_ESCAPE, w, s, n, &r->esc, "the escape introducer");
    report_hit(ctx, R_CONTROL_CHAR, w, s, n, &r->ctl, "the control character");
    report_hit(ctx, R_BIDI_CONTROL, w, s, n, &r->bidi, "the bidi control");
    report_hit(ctx, R_INVISIBLE_CHAR, w, s, n, &r->zw, "the invisible character");
}

static bool scan_any(const scan *r)
{
    return r->esc.count || r->ctl.count || r->bidi.count || r->zw.count;
}

/* Path-like: leading '/' or '\', a drive letter, or a ".." segment. */
static bool path_like(const uint8_t *s, uint64_t n)
{
    if (n == 0)
        return false;
    if (s[0] == '/' || s[0] == '\\')
        return true;
    if (n >= 3 && ((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z') && s[1] == ':' &&
        (s[2] == '/' || s[2] == '\\'))
        return true;
    for (uint64_t i = 0; i + 1 < n; i++) {
        if (s[i] != '.' || s[i + 1] != '.')
            continue;
        bool start = i == 0 || s[i - 1] == '/' || s[i - 1] == '\\';
        bool end = i + 2 == n || s[i + 2] == '/' || s[i + 2] == '\\';
        if (start && end)
            return true;
    }
    return false;
}

static void report_path_like(gguflint_ctx *ctx, const where *w, const uint8_t *s, uint64_t n,
                             const char *use)
{
    if (!path_like(s, n) || !room(ctx, R_PATH_LIKE_NAME, w))
        return;
    char shown[160];
    esc_fixed(shown, sizeof shown, s, n, 100);
    emit(ctx, R_PATH_LIKE_NAME, w->off, w->len, path_of(w->path),
         "%s '%s' looks like a file path (absolute or with a '..' segment); %s", w->what, shown,
         use);
}

/* Keys whose string values are vocabulary data: byte tokens and single
 * control, bidi and zero-width characters are normal there. */
/* One fixed-size compare first: these run for every KV, and most keys are
 * not tokenizer keys. */
static bool tokenizer_key(gguflint_view k)
{
    return k.len >= 10 && memcmp(k.ptr, "tokenizer.", 10) == 0;
}

static bool vocab_key(gguflint_view k)
{
    return tokenizer_key(k) &&
           (view_starts(k, "tokenizer.ggml.") || view_starts(k, "tokenizer.rwkv.") ||
            view_eq(k, "tokenizer.huggingface.json"));
}

/* Chat templates: bidi and invisible characters in them are GG728
 * (check_template.c); terminal escapes and controls are still ours. */
static bool template_key(gguflint_view k)
{
    return tokenizer_key(k) &&
           (view_eq(k, "tokenizer.chat_template") || view_starts(k, "tokenizer.chat_template."));
}

static void drop_template_hits(const gguflint_kv *kv, scan *r)
{
    if (template_key(kv->key))
        r->bidi.count = r->zw.count = 0;
}

/* general.* strings tools turn into file and directory names. */
static bool name_key(gguflint_view k)
{
    static const char *const keys[] = {"general.name",       "general.basename",
                                       "general.finetune",   "general.version",
                                       "general.size_label", "general.organization"};
    if (k.len < 8 || memcmp(k.ptr, "general.", 8) != 0)
        return false;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (view_eq(k, keys[i]))
            return true;
    return false;
}

/* The first ESC followed by a printable byte in [p, end), or NULL. */
static const uint8_t *find_sequence(const uint8_t *p, const uint8_t *end)
{
    while (p < end && (p = memchr(p, 0x1B, (size_t)(end - p))) != NULL) {
        if (p + 1 < end && is_ascii_print(p[1]))
            return p;
        p++;
    }
    return NULL;
}

/* A vocabulary array: one search for an ESC sequence over the whole value
 * (length fields included: a length's 0x1B low byte is followed by a zero
 * byte in practice), and only when there is one are the elements walked to
 * the ones holding it. Real vocabularies have none, so they cost one memchr. */
static void check_vocab_array(gguflint_ctx *ctx, const gguflint_kv *kv, lazy_path *path)
{
    const uint8_t *end = ctx->data + kv->value_offset + kv->value_size;
    const uint8_t *esc = find_sequence(ctx->data + kv->value_offset, end);
    arr_iter it;
    if (!esc || !arr_iter_init(ctx, kv, &it))
        return;
    unsigned w = model_width(ctx);
    gguflint_view el;
    uint64_t el_off;
    while (ctx->status == GGUFLINT_OK && arr_next(&it, &el, &el_off)) {
        const uint8_t *el_end = el.ptr + el.len;
        if (el_end <= esc)
            continue;
        if (esc < el.ptr) {
            esc = find_sequence(el.ptr, end);
            if (!esc)
                return;
            if (el_end <= esc)
                continue;
        }
        scan r;
        scan_string(el.ptr, el.len, M_VOCAB, &r);
        if (scan_any(&r)) {
            char what[48];
            snprintf(what, sizeof what, "element %llu", (unsigned long long)(it.index - 1));
            where at = {what, path, el_off, wire_string_size(w, el.len)};
            report_scan(ctx, &at, el.ptr, el.len, &r);
        }
        esc = find_sequence(el_end, end);
        if (!esc)
            return;
    }
}

static void check_kv(gguflint_ctx *ctx, const gguflint_kv *kv, bool hygiene, bool paths)
{
    lazy_path lp; /* not zeroed: only the fields below are read before it is built */
    lp.built = false, lp.ctx = ctx, lp.kv = kv, lp.t = NULL;
    lazy_path *path = &lp;
    unsigned w = model_width(ctx);
    scan r;
    if (hygiene) {
        scan_string(kv->key.ptr, kv->key.len, M_KEY, &r);
        if (scan_any(&r)) {
            where at = {"key", path, kv->offset, wire_string_size(w, kv->key.len)};
            report_scan(ctx, &at, kv->key.ptr, kv->key.len, &r);
        }
    }
    scan_mode mode = vocab_key(kv->key) ? M_VOCAB : M_VALUE;
    if (kv->type == VT_STRING) {
        where at = {"value", path, kv->value_offset, wire_string_size(w, kv->str.len)};
        if (hygiene) {
            scan_string(kv->str.ptr, kv->str.len, mode, &r);
            drop_template_hits(kv, &r);
            if (scan_any(&r))
                report_scan(ctx, &at, kv->str.ptr, kv->str.len, &r);
        }
        if (paths && name_key(kv->key))
            report_path_like(ctx, &at, kv->str.ptr, kv->str.len,
                             "tools build output file names from it");
        return;
    }
    if (!hygiene || kv->type != VT_ARRAY || kv->elem_type != VT_STRING)
        return;
    if (mode == M_VOCAB) {
        /* the parse pass searched it already: most vocabularies are not read again */
        const uint8_t f = ctx->kv_flags[kv_index_of(ctx, kv)];
        if (!(f & KVF_STR_SCANNED) || (f & KVF_ESC))
            check_vocab_array(ctx, kv, path);
        return;
    }
    arr_iter it;
    if (!arr_iter_init(ctx, kv, &it))
        return;
    gguflint_view el;
    uint64_t el_off;
    while (ctx->status == GGUFLINT_OK && arr_next(&it, &el, &el_off)) {
        scan_string(el.ptr, el.len, mode, &r);
        drop_template_hits(kv, &r);
        if (!scan_any(&r))
            continue;
        char what[48];
        snprintf(what, sizeof what, "element %llu", (unsigned long long)(it.index - 1));
        where at = {what, path, el_off, wire_string_size(w, el.len)};
        report_scan(ctx, &at, el.ptr, el.len, &r);
    }
}

static void check_tensor_name(gguflint_ctx *ctx, const gguflint_tensor *t, bool hygiene, bool paths)
{
    lazy_path lp;
    lp.built = false, lp.ctx = ctx, lp.kv = NULL, lp.t = t;
    unsigned w = model_width(ctx);
    where at = {"tensor name", &lp, t->info_offset, wire_string_size(w, t->name.len)};
    gguflint_view n = t->name;
    if (hygiene) {
        scan r;
        scan_string(n.ptr, n.len, M_NAME, &r);
        if (scan_any(&r))
            report_scan(ctx, &at, n.ptr, n.len, &r);
    }
    const uint8_t *nul = memchr(n.ptr, 0, (size_t)n.len);
    if (nul) {
        uint64_t k = (uint64_t)(nul - n.ptr);
        bool hidden = false;
        for (uint64_t i = k + 1; i < n.len && !hidden; i++)
            hidden = n.ptr[i] != 0;
        if (hidden && room(ctx, R_TENSOR_NAME_HIDDEN_SUFFIX, &at)) {
            char c_view[160], full[200];
            esc_fixed(c_view, sizeof c_view, n.ptr, k, 100);
            esc_fixed(full, sizeof full, n.ptr, n.len, 140);
            emit(ctx, R_TENSOR_NAME_HIDDEN_SUFFIX, at.off, at.len, path_of(&lp),
                 "tensor name has bytes after the NUL at index %llu: C readers (ggml, "
                 "llama.cpp) see '%s', length-based readers (gguf-py, Go, Rust) see '%s'",
                 (unsigned long long)k, c_view, full);
        }
    }
    if (paths)
        report_path_like(ctx, &at, n.ptr, n.len,
                         "tools that export tensors to files would write outside their "
                         "directory");
}

/* ---- resource claims ---- */

static bool claim_value(const gguflint_kv *kv, uint64_t *v)
{
    switch (kv->type) {
    case VT_UINT8:
    case VT_UINT16:
    case VT_UINT32:
    case VT_UINT64: *v = kv->u; return true;
    case VT_INT8:
    case VT_INT16:
    case VT_INT32:
    case VT_INT64:
        if (kv->i < 0)
            return false;
        *v = (uint64_t)kv->i;
        return true;
    default: return false;
    }
}

static void claim(gguflint_ctx *ctx, gguflint_view arch, const char *suffix, int rule,
                  uint64_t limit, bool at_or_over, const char *limit_text, const char *why)
{
    const gguflint_kv *kv =
        kv_by_keyf(ctx, "%.*s.%s", (int)arch.len, (const char *)arch.ptr, suffix);
    uint64_t v;
    if (!kv || !claim_value(kv, &v) || (at_or_over ? v < limit : v <= limit))
        return;
    char path[192], key[160];
    kv_path(path, sizeof path, kv);
    esc_fixed(key, sizeof key, kv->key.ptr, kv->key.len, 120);
    emit(ctx, rule, kv->value_offset, vt_size(kv->type), path, "%s is %llu (%s): %s", key,
         (unsigned long long)v, limit_text, why);
}

static void check_claims(gguflint_ctx *ctx)
{
    const gguflint_kv *tokens = kv_by_key(ctx, "tokenizer.ggml.tokens");
    if (tokens && tokens->type == VT_ARRAY && tokens->count > (1u << 21)) {
        char path[192];
        kv_path(path, sizeof path, tokens);
        emit(ctx, R_VOCAB_SIZE_HUGE, wire_array_count_off(tokens), model_width(ctx), path,
             "tokenizer.ggml.tokens has %llu entries (over 2^21 = 2097152; the largest real "
             "vocabularies have about 262144): consumers allocate logits and token tables of "
             "that size per sequence",
             (unsigned long long)tokens->count);
    }
    const gguflint_kv *a = kv_by_key(ctx, "general.architecture");
    gguflint_view arch;
    if (!a || !kv_str(a, &arch) || arch.len == 0 || arch.len > 128 ||
        memchr(arch.ptr, 0, (size_t)arch.len))
        return;
    claim(ctx, arch, "context_length", R_CONTEXT_LENGTH_HUGE, 1u << 24, true, ">= 2^24 = 16777216",
          "llama.cpp sizes the default KV cache and RoPE tables from the training context, "
          "so loading it with the default context allocates gigabytes or fails");
    claim(ctx, arch, "vocab_size", R_VOCAB_SIZE_HUGE, 1u << 21, false, "over 2^21 = 2097152",
          "consumers allocate logits and token tables of that size per sequence");
    claim(ctx, arch, "expert_count", R_EXPERT_COUNT_HUGE, 1024, false, "over 1024",
          "llama.cpp aborts on more than LLAMA_MAX_EXPERTS and routers size per-expert "
          "buffers from it");
    claim(ctx, arch, "embedding_length", R_EMBEDDING_LENGTH_HUGE, 1u << 20, false,
          "over 2^20 = 1048576",
          "every activation buffer is a multiple of it; real models stay below 2^15");
}

void check_strings(gguflint_ctx *ctx)
{
    const uint8_t *sev = ctx->opt.severity;
    bool hygiene = sev[R_TERMINAL_ESCAPE] || sev[R_CONTROL_CHAR] || sev[R_BIDI_CONTROL] ||
                   sev[R_INVISIBLE_CHAR];
    bool paths = sev[R_PATH_LIKE_NAME] != GGUFLINT_OFF;
    if (hygiene || paths)
        for (size_t i = 0; i < ctx->n_kvs && ctx->status == GGUFLINT_OK; i++)
            check_kv(ctx, &ctx->kvs[i], hygiene, paths);
    for (size_t i = 0; i < ctx->n_tensors && ctx->status == GGUFLINT_OK; i++)
        check_tensor_name(ctx, &ctx->tensors[i], hygiene, paths);
    if (ctx->status == GGUFLINT_OK)
        check_claims(ctx);
}
