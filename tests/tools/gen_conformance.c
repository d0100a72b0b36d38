/* gen_conformance.c - writes the GGUF conformance suite, in the spirit of
 * JSONTestSuite: small files any GGUF reader can be tested with.
 *
 *   OUTDIR/y_NAME.gguf   every reader must accept: the spec (docs/gguf.md)
 *                        and ggml/llama.cpp both accept it
 *   OUTDIR/n_NAME.gguf   every reader must reject: both reject it
 *   OUTDIR/i_NAME.gguf   implementation-defined: the spec allows it and ggml
 *                        rejects it or the other way round (or readers accept
 *                        it but disagree on what it means)
 *   OUTDIR/MANIFEST.tsv  file, category, description, and the expected
 *                        verdict ("accept" / "reject") under three profiles:
 *                        spec, ggml, strict
 *   OUTDIR/README.md     what the columns mean
 *
 * The expected verdicts come from the facts (GGUF-REFERENCE.md: docs/gguf.md,
 * ggml's gguf.cpp reader of Aug 2026, llama.cpp's loader, gguf-py), never from
 * running gguflint:
 *   spec    what docs/gguf.md permits: a violated "must" (or "invalid") rejects,
 *           a "should" or a recommendation does not;
 *   ggml    what ggml's reader (gguf_init_from_file) accepts, plus what
 *           llama.cpp's loader checks on the keys and tensors it reads
 *           (general.architecture present, typed reads, tokenizer, split keys,
 *           each tensor's data inside the file, and hyper-parameters and the
 *           tensor set for the architectures it implements); whether
 *           llama.cpp implements the architecture at all is out of scope (the
 *           suite's files use the made-up architecture "conformance");
 *   strict  the canonical output of a good writer (gguf-py, the ggml writer,
 *           llama-quantize, gguf-split): rejects whatever spec or ggml
 *           rejects, and also what such a writer never produces.
 * The generator enforces: y_ => spec and ggml accept; n_ => both reject;
 * strict accepts only what spec and ggml both accept.
 *
 * Each file is a row of a table (name, verdicts, description, how the file
 * starts, the writes that follow: see "cases as data"); the few files that
 * are easier to say in code (cuts of one reference file, other magics, the
 * per-type and per-alignment series) are loops over their own tables.
 *
 * Usage: gen_conformance OUTDIR (run as
 *   build-dev/tests/gen_conformance corpus/conformance
 * from the source root). The output is deterministic; the conformance_fresh
 * test regenerates it and fails when the committed files are stale. */
#include "gguf_builder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { ACC = 0, REJ = 1 };

static const char *outdir;
static int failures;

/* ------------------------------------------------------------ the manifest */

#define MAX_ENTRIES 400
typedef struct entry {
    char file[96];
    char cat;
    int v[3]; /* spec, ggml, strict */
    char desc[640];
} entry;
static entry entries[MAX_ENTRIES];
static size_t n_entries;

static void fail(const char *what, const char *name)
{
    fprintf(stderr, "gen_conformance: %s: %s\n", name, what);
    failures++;
}

static bool register_entry(const char *name, int spec, int ggml, int strict, const char *desc)
{
    char cat = name[0];
    if ((cat != 'y' && cat != 'n' && cat != 'i') || name[1] != '_') {
        fail("name must start with y_, n_ or i_", name);
        return false;
    }
    if (cat == 'y' && (spec != ACC || ggml != ACC)) {
        fail("a y_ file must be accepted by spec and ggml", name);
        return false;
    }
    if (cat == 'n' && (spec != REJ || ggml != REJ)) {
        fail("an n_ file must be rejected by spec and ggml", name);
        return false;
    }
    if (strict == ACC && (spec != ACC || ggml != ACC)) {
        fail("strict may accept only what spec and ggml accept", name);
        return false;
    }
    if (strlen(name) + 6 > sizeof entries[0].file || strlen(desc) >= sizeof entries[0].desc) {
        fail("name or description too long", name);
        return false;
    }
    if (strpbrk(desc, "\t\r\n")) {
        fail("description holds a tab or newline", name);
        return false;
    }
    if (n_entries == MAX_ENTRIES) {
        fail("too many files (raise MAX_ENTRIES)", name);
        return false;
    }
    for (size_t i = 0; i < n_entries; i++) {
        if (strncmp(entries[i].file, name, strlen(name)) == 0 &&
            strcmp(entries[i].file + strlen(name), ".gguf") == 0) {
            fail("duplicate name", name);
            return false;
        }
    }
    entry *e = &entries[n_entries++];
    snprintf(e->file, sizeof e->file, "%s.gguf", name);
    e->cat = cat;
    e->v[0] = spec;
    e->v[1] = ggml;
    e->v[2] = strict;
    snprintf(e->desc, sizeof e->desc, "%s", desc);
    return true;
}

static void write_file(const char *file, const void *buf, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, file);
    FILE *f = fopen(path, "wb");
    if (!f || (len && fwrite(buf, 1, len, f) != len) || fclose(f) != 0) {
        fprintf(stderr, "gen_conformance: cannot write %s: %s\n", path, strerror(errno));
        failures++;
    }
}

/* Write NAME.gguf from a buffer the caller keeps. */
static void emit_raw(const char *name, int spec, int ggml, int strict, const char *desc,
                     const uint8_t *buf, size_t len)
{
    if (!buf) {
        fail("building the file failed", name);
        return;
    }
    if (!register_entry(name, spec, ggml, strict, desc))
        return;
    write_file(entries[n_entries - 1].file, buf, len);
}

/* Finish and free a builder, then write NAME.gguf. */
static void emit(const char *name, int spec, int ggml, int strict, const char *desc, gb *b)
{
    size_t len = 0;
    uint8_t *buf = gb_finish(b, &len);
    gb_free(b);
    emit_raw(name, spec, ggml, strict, desc, buf, len);
    free(buf);
}

/* ------------------------------------------------------------ building blocks */

typedef struct tdef {
    const char *name;
    uint32_t n_dims;
    uint64_t ne[4];
    uint32_t type;
} tdef;

/* Tensor data: bytes 0x10..0x16, so every float, f16/bf16 value and block
 * scale (f16, E8M0, UE4M3) is finite and no tensor is all zero. */
static void fill(gb *b, uint64_t n, uint32_t salt)
{
    for (uint64_t i = 0; i < n; i++)
        gb_u8(b, (uint8_t)(0x10u + (i + salt) % 7u));
}

/* Pad to `align` (from file start) with zeros, or with 0xA5 bytes. */
static size_t pad(gb *b, uint64_t align, bool junk)
{
    uint64_t at = gb_offset(b), n = gb_align_up(at, align) - at;
    if (junk)
        gb_fill(b, 0xA5, (size_t)n);
    else
        gb_zeros(b, (size_t)n);
    return (size_t)n;
}

enum {
    TF_NO_FINAL_PAD = 1u,  /* no padding after the last tensor's data */
    TF_JUNK_INFO_PAD = 2u, /* non-zero padding between the infos and the data */
    TF_JUNK_GAP_PAD = 4u   /* non-zero padding between tensors */
};

/* Tensor infos with ggml's contiguous padded offsets, the padding to the data
 * section (only when there are tensors), each tensor's data padded to `align`. */
static void put_tensors(gb *b, const tdef *t, size_t n, uint64_t align, unsigned flags)
{
    uint64_t off = 0;
    for (size_t i = 0; i < n; i++) {
        gb_tensor(b, t[i].name, t[i].n_dims, t[i].ne, t[i].type, off);
        off += gb_align_up(gb_nbytes(t[i].type, t[i].n_dims, t[i].ne), align);
    }
    if (n == 0)
        return;
    if (pad(b, align, flags & TF_JUNK_INFO_PAD) == 0 && (flags & TF_JUNK_INFO_PAD))
        fail("no padding before the data to fill", "put_tensors");
    for (size_t i = 0; i < n; i++) {
        fill(b, gb_nbytes(t[i].type, t[i].n_dims, t[i].ne), (uint32_t)i);
        bool last = i + 1 == n;
        if (last && (flags & TF_NO_FINAL_PAD))
            break;
        bool junk = !last && (flags & TF_JUNK_GAP_PAD);
        if (pad(b, align, junk) == 0 && junk)
            fail("no padding between tensors to fill", "put_tensors");
    }
}

static bool quantized(uint32_t type)
{
    switch (type) {
    case GB_F32:
    case GB_F16:
    case GB_BF16:
    case 24:
    case 25:
    case 26:
    case 27:
    case 28: return false;
    default: return true;
    }
}

/* A builder with the header and general.architecture = "conformance" (an
 * architecture no reader implements: semantic checks stay out of the way). */
static gb *start_ex(uint32_t version, bool be)
{
    gb *b = gb_new(version);
    gb_set_big_endian(b, be);
    gb_kv_str(b, "general.architecture", "conformance");
    return b;
}

static gb *start(void)
{
    return start_ex(3, false);
}

/* The baseline tensors: odd sizes, so every tensor needs padding. */
static const tdef BASE[] = {
    {"a.weight", 2, {3, 5, 1, 1}, GB_F32}, /* 60 bytes */
    {"b.weight", 1, {7, 1, 1, 1}, GB_F32}, /* 28 bytes */
    {"c.weight", 3, {2, 3, 2, 1}, GB_F32}, /* 48 bytes */
};
enum { N_BASE = sizeof BASE / sizeof BASE[0] };

/* A complete clean file: architecture, name, alignment (when align_kv is not
 * 0), file_type ALL_F32 and the baseline tensors. */
static gb *baseline_ex(uint32_t version, bool be, uint32_t align_kv, unsigned flags)
{
    gb *b = start_ex(version, be);
    gb_kv_str(b, "general.name", "conformance baseline");
    if (align_kv)
        gb_kv_u32(b, "general.alignment", align_kv);
    gb_kv_u32(b, "general.file_type", 0);
    put_tensors(b, BASE, N_BASE, align_kv ? align_kv : 32, flags);
    return b;
}

/* One f32 tensor [8, 2] (64 bytes, no padding needed) after the caller's KVs. */
static const tdef ONE = {"a.weight", 2, {8, 2, 1, 1}, GB_F32};

static void one_tensor(gb *b)
{
    put_tensors(b, &ONE, 1, 32, 0);
}

static uint8_t *finish(gb *b, size_t *len)
{
    uint8_t *buf = gb_finish(b, len);
    gb_free(b);
    return buf;
}

/* ------------------------------------------------------------ cases as data */

/* Most files are a start (a header and general.architecture, or a bare
 * header, or the baseline) followed by a few writes: KVs, raw fields, tensor
 * infos, padding and data. A case names its file, its verdicts and its
 * description and lists those writes as ops; emit_cases() builds and emits
 * the cases of a table in order (the manifest keeps that order). */
static void spm_vocab(gb *b, unsigned flags);
static void bpe_vocab(gb *b, bool merges);
static void llama_keys(gb *b, bool u64, bool moe);
static void llama_tensors(gb *b, const char *experts);

enum op_kind {
    OP_END = 0,
    OP_KV,       /* a scalar KV: key s, type vt, value u (integer, bool byte), g (f32), f (f64) */
    OP_KV_STR,   /* a string KV: key s, value p (n bytes when n > 0, else a C string) */
    OP_KV_ARR,   /* an array KV: key s, element type vt, count u, n bytes from p */
    OP_KV_STRS,  /* a string-array KV: key s, n C strings at p */
    OP_KV_BEGIN, /* a KV's key (n bytes when n > 0) and value type vt; the value follows */
    OP_ARR_HEAD, /* an array header: element type vt, count u */
    OP_RAW,      /* a raw value of type vt (u8, i16, u32, u64): u */
    OP_STR,      /* a gguf string of n bytes from p */
    OP_STR_DECL, /* a gguf string declaring u bytes with n bytes from p */
    OP_LEN,      /* a length field u */
    OP_BYTES,    /* n bytes from p, verbatim */
    OP_COUNTS,   /* declared header counts: u tensors, n KVs */
    OP_ONE,      /* one_tensor() */
    OP_TENSORS,  /* put_tensors(): n tdefs at p, alignment 32 */
    OP_TENSOR,   /* a tensor info: name s (n bytes when n > 0), nd dims at p, type vt, offset u */
    OP_PAD,      /* zeros up to the next multiple of u (0: 32) */
    OP_PATCH,    /* overwrite the u32 at offset n with u */
    OP_FILL,     /* fill(): n data bytes, salt u */
    OP_ZEROS,    /* n zero bytes */
    OP_SPM,      /* spm_vocab(flags vt) */
    OP_BPE,      /* bpe_vocab(merges: vt) */
    OP_LLAMA,    /* llama_keys(u64: vt & 1, moe: vt & 2) */
    OP_LLAMA_T,  /* llama_tensors(experts: s) */
};

typedef struct op {
    enum op_kind kind;
    uint32_t vt;
    uint32_t nd;
    const char *s;
    const void *p;
    size_t n;
    uint64_t u;
    double f;
    float g;
} op;

/* The ops, one macro each (laid out by hand: one line per op). */
// clang-format off
#define KV(vt_, key, v) {.kind = OP_KV, .vt = vt_, .s = key, .u = (uint64_t)(v)}
#define KVF32(key, v) {.kind = OP_KV, .vt = GB_VT_F32, .s = key, .g = v}
#define KVF64(key, v) {.kind = OP_KV, .vt = GB_VT_F64, .s = key, .f = v}
#define KVS(key, v) {.kind = OP_KV_STR, .s = key, .p = v}
#define KVSN(key, v, len) {.kind = OP_KV_STR, .s = key, .p = v, .n = len}
#define KVA(key, et, count, elems, nbytes) \
    {.kind = OP_KV_ARR, .vt = et, .s = key, .u = count, .p = elems, .n = nbytes}
#define KVSTRS(key, strs, count) {.kind = OP_KV_STRS, .s = key, .p = strs, .n = count}
#define KVBEGIN(key, vt_) {.kind = OP_KV_BEGIN, .vt = vt_, .s = key}
#define KVBEGINN(key, len, vt_) {.kind = OP_KV_BEGIN, .vt = vt_, .s = key, .n = len}
#define ARRHEAD(et, count) {.kind = OP_ARR_HEAD, .vt = et, .u = count}
#define RAW(vt_, v) {.kind = OP_RAW, .vt = vt_, .u = (uint64_t)(v)}
#define STR(v, len) {.kind = OP_STR, .p = v, .n = len}
#define STRDECL(decl, v, len) {.kind = OP_STR_DECL, .u = decl, .p = v, .n = len}
#define LEN(v) {.kind = OP_LEN, .u = v}
#define BYTES(v, len) {.kind = OP_BYTES, .p = v, .n = len}
#define COUNTS(tensors, kvs) {.kind = OP_COUNTS, .u = tensors, .n = kvs}
#define ONE_T {.kind = OP_ONE}
#define TENSORS(t, count) {.kind = OP_TENSORS, .p = t, .n = count}
#define TENSOR(name, nd_, ne, type, off) TENSORN(name, 0, nd_, ne, type, off)
#define TENSORN(name, len, nd_, ne, type, off) \
    {.kind = OP_TENSOR, .s = name, .n = len, .nd = nd_, .p = ne, .vt = type, .u = off}
#define PAD {.kind = OP_PAD}
#define PAD_TO(align) {.kind = OP_PAD, .u = align}
#define PATCH32(at, v) {.kind = OP_PATCH, .n = at, .u = v}
#define FILL(len, salt) {.kind = OP_FILL, .n = len, .u = salt}
#define ZEROS(len) {.kind = OP_ZEROS, .n = len}
#define SPM(flags) {.kind = OP_SPM, .vt = flags}
#define BPE(merges) {.kind = OP_BPE, .vt = merges}
#define LLAMA_KEYS(u64, moe) {.kind = OP_LLAMA, .vt = (u64 ? 1u : 0u) | (moe ? 2u : 0u)}
#define LLAMA_TENSORS(experts) {.kind = OP_LLAMA_T, .s = experts}
/* The ops of a case, ended by OP_END. */
#define OPS(...) ((const op[]){__VA_ARGS__, {.kind = OP_END}})
// clang-format on

/* How a case's file starts. */
enum from { FROM_START = 0, FROM_BARE, FROM_BASELINE };

typedef struct fcase {
    const char *name;
    int spec, ggml, strict;
    const char *desc;
    enum from from;   /* start_ex(), gb_new() or baseline_ex() of version and be */
    const op *ops;    /* then these */
    uint32_t version; /* 0: 3 */
    bool be;          /* big-endian (not with FROM_BARE) */
    unsigned tf;      /* FROM_BASELINE: TF_* flags */
} fcase;

static void put_kv(gb *b, const op *o)
{
    switch (o->vt) {
    case GB_VT_U8: gb_kv_u8(b, o->s, (uint8_t)o->u); break;
    case GB_VT_I8: gb_kv_i8(b, o->s, (int8_t)o->u); break;
    case GB_VT_U16: gb_kv_u16(b, o->s, (uint16_t)o->u); break;
    case GB_VT_I16: gb_kv_i16(b, o->s, (int16_t)o->u); break;
    case GB_VT_U32: gb_kv_u32(b, o->s, (uint32_t)o->u); break;
    case GB_VT_I32: gb_kv_i32(b, o->s, (int32_t)o->u); break;
    case GB_VT_F32: gb_kv_f32(b, o->s, o->g); break;
    case GB_VT_BOOL: gb_kv_bool(b, o->s, (uint8_t)o->u); break;
    case GB_VT_U64: gb_kv_u64(b, o->s, o->u); break;
    case GB_VT_I64: gb_kv_i64(b, o->s, (int64_t)o->u); break;
    case GB_VT_F64: gb_kv_f64(b, o->s, o->f); break;
    default: fail("no scalar writer for this value type", o->s); break;
    }
}

static void put_raw(gb *b, const op *o)
{
    switch (o->vt) {
    case GB_VT_U8: gb_u8(b, (uint8_t)o->u); break;
    case GB_VT_I16: gb_i16(b, (int16_t)o->u); break;
    case GB_VT_U32: gb_u32(b, (uint32_t)o->u); break;
    case GB_VT_U64: gb_u64(b, o->u); break;
    default: fail("no raw writer for this value type", "put_raw"); break;
    }
}

static void put_op(gb *b, const op *o)
{
    switch (o->kind) {
    case OP_END: break;
    case OP_KV: put_kv(b, o); break;
    case OP_KV_STR:
        if (o->n)
            gb_kv_strn(b, o->s, o->p, o->n);
        else
            gb_kv_str(b, o->s, o->p);
        break;
    case OP_KV_ARR: gb_kv_arr(b, o->s, o->vt, o->u, o->p, o->n); break;
    case OP_KV_STRS: gb_kv_arr_str(b, o->s, o->p, o->n); break;
    case OP_KV_BEGIN: gb_kv_beginn(b, o->s, o->n ? o->n : strlen(o->s), o->vt); break;
    case OP_ARR_HEAD: gb_arr_header(b, o->vt, o->u); break;
    case OP_RAW: put_raw(b, o); break;
    case OP_STR: gb_str(b, o->p, o->n); break;
    case OP_STR_DECL: gb_str_decl(b, o->u, o->p, o->n); break;
    case OP_LEN: gb_len_field(b, o->u); break;
    case OP_BYTES: gb_bytes(b, o->p, o->n); break;
    case OP_COUNTS: gb_override_counts(b, o->u, o->n); break;
    case OP_ONE: one_tensor(b); break;
    case OP_TENSORS: put_tensors(b, o->p, o->n, 32, 0); break;
    case OP_TENSOR:
        gb_tensorn(b, o->s, o->n ? o->n : strlen(o->s), o->nd, o->p, o->vt, o->u);
        break;
    case OP_PAD: pad(b, o->u ? o->u : 32, false); break;
    case OP_PATCH: gb_patch_u32(b, o->n, (uint32_t)o->u); break;
    case OP_FILL: fill(b, o->n, (uint32_t)o->u); break;
    case OP_ZEROS: gb_zeros(b, o->n); break;
    case OP_SPM: spm_vocab(b, o->vt); break;
    case OP_BPE: bpe_vocab(b, o->vt != 0); break;
    case OP_LLAMA: llama_keys(b, o->vt & 1u, (o->vt & 2u) != 0); break;
    case OP_LLAMA_T: llama_tensors(b, o->s); break;
    }
}

static void emit_cases_n(const fcase *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t v = c[i].version ? c[i].version : 3;
        gb *b = c[i].from == FROM_BARE       ? gb_new(v)
                : c[i].from == FROM_BASELINE ? baseline_ex(v, c[i].be, 0, c[i].tf)
                                             : start_ex(v, c[i].be);
        for (const op *o = c[i].ops; o && o->kind != OP_END; o++)
            put_op(b, o);
        emit(c[i].name, c[i].spec, c[i].ggml, c[i].strict, c[i].desc, b);
    }
}
#define emit_cases(table) emit_cases_n(table, sizeof table / sizeof table[0])

/* ------------------------------------------------------------ header and container */

static const fcase CONTAINER[] = {
    {"y_baseline_v3", ACC, ACC, ACC,
     "v3 file with general.architecture, general.name, general.file_type 0 and three f32 "
     "tensors of odd sizes laid out contiguously with zero padding (default alignment 32)",
     .from = FROM_BASELINE},
    {"y_v2_baseline", ACC, ACC, REJ,
     "the baseline as version 2 (little-endian v2 and v3 are identical); strict: current "
     "writers (gguf-py, the ggml writer) emit version 3",
     .from = FROM_BASELINE, .version = 2},
    {"i_v1_baseline", ACC, REJ, REJ,
     "the baseline in the v1 layout (u32 counts, string lengths and dims); the spec's version "
     "history documents v1; ggml: 'GGUFv1 is no longer supported' (gguf-py too; "
     "@huggingface/gguf, gguf-parser-go, candle, ollama read it)",
     .from = FROM_BASELINE, .version = 1},
    {"i_v1_zero_tensors", ACC, REJ, REJ,
     "v1 file (16-byte header, u32 lengths) with one KV and no tensors; ggml rejects every v1 "
     "file",
     .from = FROM_BARE, .version = 1, .ops = OPS(KVS("general.architecture", "conformance"))},
    {"i_big_endian_v3", ACC, REJ, REJ,
     "the baseline written big-endian (magic bytes still GGUF, version bytes 00 00 00 03, "
     "values and data big-endian) as gguf-py --bigendian does; spec: v3 'adds big-endian "
     "support'; ggml refuses opposite-endian files; gguf-py swaps",
     .from = FROM_BASELINE, .be = true},
    {"i_big_endian_v3_zero_tensors", ACC, REJ, REJ,
     "big-endian v3 file with general.architecture only", .be = true},
    {"i_big_endian_v2", ACC, REJ, REJ,
     "the baseline big-endian with version 2: big-endian files came with v3 (spec version "
     "history), ggml refuses opposite-endian files (gguf-py would read it);"
     " gguflint's spec profile grades byte order (GG007 note) and version (GG006) apart",
     .from = FROM_BASELINE, .version = 2, .be = true},
};

/* The baseline (or the big-endian baseline) with another magic. */
static const struct {
    const char *name;
    char magic[5];
    bool be;
    const char *desc;
} MAGICS[] = {
    {"n_magic_wrong_byte", "GGUG", false, "the baseline with magic GGUG"},
    {"n_magic_lowercase", "gguf", false, "the baseline with magic gguf (lower case)"},
    {"n_magic_fugg_little_endian", "FUGG", false,
     "the baseline with the byte-reversed magic FUGG and little-endian contents "
     "(as the 2023 pre-release v1 writer did); the spec's magic is the bytes GGUF"},
    {"n_magic_ggjt", "ggjt", false, "the baseline with the pre-GGUF magic ggjt"},
    {"n_magic_fugg_big_endian", "FUGG", true,
     "the big-endian baseline with magic FUGG, the big-endian marker gguf-parser-go, "
     "ollama and candle look for; spec and ggml want the bytes GGUF"},
};

static const fcase HEADER_FIELDS[] = {
    /* version */
    {"n_version_0", REJ, REJ, REJ, "the baseline with version 0", .from = FROM_BASELINE,
     .ops = OPS(PATCH32(4, 0))},
    {"n_version_4", REJ, REJ, REJ, "the baseline with version 4 (newer than any reader)",
     .from = FROM_BASELINE, .ops = OPS(PATCH32(4, 4))},
    {"n_version_huge", REJ, REJ, REJ,
     "the baseline with version 0x7FFF0001 (low 16 bits non-zero: not a byte-swapped 1)",
     .from = FROM_BASELINE, .ops = OPS(PATCH32(4, 0x7FFF0001u))},

    /* counts */
    {"n_no_kvs_no_tensors", REJ, REJ, REJ,
     "a 24-byte header with 0 tensors and 0 KVs: general.architecture is required (spec; "
     "llama.cpp's loader fails without it)",
     .from = FROM_BARE},
    {"n_kv_count_plus_one", REJ, REJ, REJ,
     "metadata_kv_count is one more than the KVs written: the tensor info is read as a KV",
     .ops = OPS(ONE_T, COUNTS(1, 2))},
    {"n_tensor_count_plus_one", REJ, REJ, REJ,
     "tensor_count is one more than the tensor infos written: the data is read as an info",
     .ops = OPS(ONE_T, COUNTS(2, 1))},
    {"n_kv_count_huge", REJ, REJ, REJ, "metadata_kv_count 2^40 in a small file",
     .ops = OPS(ONE_T, COUNTS(1, (uint64_t)1 << 40))},
    {"n_kv_count_top_bit", REJ, REJ, REJ,
     "metadata_kv_count with the top bit set (negative as ggml's int64)",
     .ops = OPS(ONE_T, COUNTS(1, 0x8000000000000001u))},
    {"n_tensor_count_huge", REJ, REJ, REJ, "tensor_count 2^40 in a small file",
     .ops = OPS(ONE_T, COUNTS((uint64_t)1 << 40, 1))},
    {"n_tensor_count_top_bit", REJ, REJ, REJ, "tensor_count 2^64-1 (-1 as ggml's int64)",
     .ops = OPS(ONE_T, COUNTS(UINT64_MAX, 1))},
};

static void cases_container(void)
{
    emit_cases(CONTAINER);
    emit_raw("n_empty_file", REJ, REJ, REJ, "0 bytes", (const uint8_t *)"", 0);
    for (size_t i = 0; i < sizeof MAGICS / sizeof MAGICS[0]; i++) {
        size_t len = 0;
        uint8_t *m = finish(baseline_ex(3, MAGICS[i].be, 0, 0), &len);
        if (m)
            memcpy(m, MAGICS[i].magic, 4);
        emit_raw(MAGICS[i].name, REJ, REJ, REJ, MAGICS[i].desc, m, len);
        free(m);
    }
    emit_cases(HEADER_FIELDS);
}

/* ------------------------------------------------------------ truncations */

static void cases_truncated(void)
{
    static const char *const words[] = {"alpha", "beta"};
    static const uint32_t list[] = {1, 2, 3};
    gb *b = start();
    gb_kv_u32(b, "conformance.count", 7);
    gb_marks mu = *gb_last(b);
    gb_kv_str(b, "conformance.text", "hello, conformance");
    gb_marks ms = *gb_last(b);
    gb_kv_arr(b, "conformance.list", GB_VT_U32, 3, list, sizeof list);
    gb_marks ma = *gb_last(b);
    gb_kv_arr_str(b, "conformance.words", words, 2);
    gb_marks mw = *gb_last(b);
    gb_tensor(b, ONE.name, ONE.n_dims, ONE.ne, ONE.type, 0);
    gb_marks mt = *gb_last(b);
    size_t infos_end = gb_offset(b);
    pad(b, 32, false);
    size_t data_start = gb_offset(b);
    fill(b, gb_nbytes(ONE.type, ONE.n_dims, ONE.ne), 0);
    size_t len = 0;
    uint8_t *ref = finish(b, &len);
    if (!ref) {
        fail("building the reference failed", "cases_truncated");
        return;
    }
    if (data_start == infos_end)
        fail("the reference needs padding before its data", "cases_truncated");

    /* the second element of the string array: 8-byte length + "alpha", then
     * its own 8-byte length */
    size_t word2 = mw.arr_elems + 8 + 5 + 8;
    static const char pre[] = "a complete 5-KV, 1-tensor v3 file cut ";
    const struct {
        const char *name;
        size_t cut;
        const char *where;
    } cuts[] = {
        {"n_truncated_in_magic", 2, "after 2 bytes (inside the magic)"},
        {"n_truncated_after_magic", 4, "after the magic"},
        {"n_truncated_in_version", 6, "inside the version"},
        {"n_truncated_in_tensor_count", 12, "inside tensor_count"},
        {"n_truncated_in_kv_count", 20, "inside metadata_kv_count"},
        {"n_truncated_after_header", 24, "right after the 24-byte header"},
        {"n_truncated_in_key_length", mu.start + 4, "inside a key's length"},
        {"n_truncated_in_key", mu.key + 3, "inside a key's bytes"},
        {"n_truncated_in_value_type", mu.vtype + 2, "inside a value type"},
        {"n_truncated_in_u32_value", mu.value + 2, "inside a u32 value"},
        {"n_truncated_in_string_length", ms.value + 4, "inside a string value's length"},
        {"n_truncated_in_string", ms.value + 8 + 3, "inside a string value's bytes"},
        {"n_truncated_in_array_type", ma.value + 2, "inside an array's element type"},
        {"n_truncated_in_array_count", ma.arr_count + 4, "inside an array's count"},
        {"n_truncated_in_array_elements", ma.arr_elems + 6, "inside a u32 array's elements"},
        {"n_truncated_in_string_array_element", word2 + 2,
         "inside the second element of a string array"},
        {"n_truncated_in_tensor_name_length", mt.start + 4, "inside a tensor name's length"},
        {"n_truncated_in_tensor_name", mt.key + 3, "inside a tensor name"},
        {"n_truncated_in_n_dims", mt.n_dims + 2, "inside n_dims"},
        {"n_truncated_in_dims", mt.dim[1] + 4, "inside the second dimension"},
        {"n_truncated_in_tensor_type", mt.ttype + 2, "inside the tensor type"},
        {"n_truncated_in_tensor_offset", mt.offset + 4, "inside the tensor offset"},
        {"n_truncated_in_padding_before_data", infos_end + 1,
         "inside the padding before the data section (data start past EOF)"},
        {"n_truncated_at_data_start", data_start,
         "at the start of the data section (no tensor data at all)"},
        {"n_truncated_in_tensor_data", data_start + 10, "inside the tensor's data"},
    };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        char desc[256];
        snprintf(desc, sizeof desc, "%s%s", pre, cuts[i].where);
        if (cuts[i].cut >= len)
            fail("cut past the end", cuts[i].name);
        else
            emit_raw(cuts[i].name, REJ, REJ, REJ, desc, ref, cuts[i].cut);
    }
    free(ref);
}

/* ------------------------------------------------------------ metadata values */

static const fcase VALUES_SCALARS[] = {
    /* scalars */
    {"y_value_u8", ACC, ACC, ACC, "a u8 KV (type 0) = 200",
     .ops = OPS(KV(GB_VT_U8, "conformance.value", 200))},
    {"y_value_i8", ACC, ACC, ACC, "an i8 KV (type 1) = -100",
     .ops = OPS(KV(GB_VT_I8, "conformance.value", -100))},
    {"y_value_u16", ACC, ACC, ACC, "a u16 KV (type 2) = 60000",
     .ops = OPS(KV(GB_VT_U16, "conformance.value", 60000))},
    {"y_value_i16", ACC, ACC, ACC, "an i16 KV (type 3) = -30000",
     .ops = OPS(KV(GB_VT_I16, "conformance.value", -30000))},
    {"y_value_u32", ACC, ACC, ACC, "a u32 KV (type 4) = 4000000000",
     .ops = OPS(KV(GB_VT_U32, "conformance.value", 4000000000u))},
    {"y_value_i32", ACC, ACC, ACC, "an i32 KV (type 5) = -2000000000",
     .ops = OPS(KV(GB_VT_I32, "conformance.value", -2000000000))},
    {"y_value_f32", ACC, ACC, ACC, "an f32 KV (type 6) = 1.5",
     .ops = OPS(KVF32("conformance.value", 1.5f))},
    {"y_value_bool", ACC, ACC, ACC, "two bool KVs (type 7): 1 and 0",
     .ops = OPS(KV(GB_VT_BOOL, "conformance.yes", 1), KV(GB_VT_BOOL, "conformance.no", 0))},
    {"y_value_string", ACC, ACC, ACC, "a string KV (type 8) = \"hello\"",
     .ops = OPS(KVS("conformance.value", "hello"))},
    {"y_value_u64", ACC, ACC, ACC, "a u64 KV (type 10) = 2^64-1",
     .ops = OPS(KV(GB_VT_U64, "conformance.value", UINT64_MAX))},
    {"y_value_i64", ACC, ACC, ACC, "an i64 KV (type 11) = -2^63",
     .ops = OPS(KV(GB_VT_I64, "conformance.value", INT64_MIN))},
    {"y_value_f64", ACC, ACC, ACC, "an f64 KV (type 12) = -2.5e300",
     .ops = OPS(KVF64("conformance.value", -2.5e300))},
    {"y_value_float_special", ACC, ACC, ACC,
     "f32 NaN, +Inf and -0 and an f64 denormal: any IEEE-754 value is a valid float KV",
     .ops = OPS(
         KVF32("conformance.nan", __builtin_nanf("")), KVF32("conformance.inf", __builtin_inff()),
         KVF32("conformance.negative_zero", -0.0f), KVF64("conformance.denormal", 4.9e-324))},

    /* strings */
    {"y_value_string_empty", ACC, ACC, ACC, "an empty string value (length 0)",
     .ops = OPS(KVS("conformance.value", ""))},
    {"y_value_string_utf8", ACC, ACC, ACC, "a string value with 2-, 3- and 4-byte UTF-8 sequences",
     .ops = OPS(KVS("conformance.value",
                    "h\xc3\xa9llo \xe2\x9c\x93 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x99\x82"))},
    {"y_value_string_embedded_nul", ACC, ACC, ACC,
     "a string value holding a NUL byte (U+0000 is valid UTF-8; strings are "
     "length-prefixed, not NUL-terminated)",
     .ops = OPS(KVSN("conformance.value", "a\0b", 3))},
    {"y_value_string_newline_tab", ACC, ACC, ACC, "a string value with a newline and a tab",
     .ops = OPS(KVS("conformance.value", "multi\nline\ttext"))},
    {"i_value_string_invalid_utf8", REJ, ACC, REJ,
     "a string value with the bytes FF FE: spec strings are UTF-8; ggml does no UTF-8 check "
     "(gguf-py raises when it decodes the value)",
     .ops = OPS(KVSN("conformance.value", "ab\xff\xfe", 4))},
    {"i_value_string_overlong_utf8", REJ, ACC, REJ,
     "a string value with the overlong encoding C0 80 (not UTF-8): spec rejects, ggml does "
     "not check",
     .ops = OPS(KVSN("conformance.value", "a\xc0\x80z", 4))},

    /* bools */
    {"i_value_bool_2", REJ, ACC, REJ,
     "a bool KV with byte 2: spec 'anything else is invalid'; ggml and gguf-py read any "
     "non-zero as true",
     .ops = OPS(KV(GB_VT_BOOL, "conformance.flag", 2))},
    {"i_array_bool_255", REJ, ACC, REJ,
     "a bool array whose third element is the byte FF: spec invalid, ggml reads true",
     .ops = OPS(KVA("conformance.flags", GB_VT_BOOL, 3, ((const uint8_t[]){1, 0, 0xff}), 3))},
};

static const char *const STRS[] = {"alpha", "", "\xce\xb2\xce\xb7\xcf\x84\xce\xb1"};

static const fcase VALUES_NESTED[] = {
    {"y_array_string", ACC, ACC, ACC,
     "an array of 3 strings (element type 8), one of them empty, one non-ASCII",
     .ops = OPS(KVSTRS("conformance.array", STRS, 3))},
    {"y_array_string_empty", ACC, ACC, ACC, "an empty array of strings",
     .ops = OPS(KVSTRS("conformance.array", NULL, 0))},

    /* nested arrays */
    {"i_nested_array_u32", ACC, REJ, REJ,
     "an array of 2 arrays of u32 ([[1,2],[3]]): spec 'arrays can be nested'; ggml rejects "
     "an array of arrays; gguf-py reads it",
     .ops =
         OPS(KVBEGIN("conformance.matrix", GB_VT_ARR), ARRHEAD(GB_VT_ARR, 2), ARRHEAD(GB_VT_U32, 2),
             RAW(GB_VT_U32, 1), RAW(GB_VT_U32, 2), ARRHEAD(GB_VT_U32, 1), RAW(GB_VT_U32, 3))},
    {"i_nested_array_empty", ACC, REJ, REJ,
     "an empty array whose element type is array: ggml rejects the element type",
     .ops = OPS(KVBEGIN("conformance.matrix", GB_VT_ARR), ARRHEAD(GB_VT_ARR, 0))},
    {"i_nested_array_of_empty_arrays", ACC, REJ, REJ, "an array of two empty u8 arrays",
     .ops = OPS(KVBEGIN("conformance.matrix", GB_VT_ARR), ARRHEAD(GB_VT_ARR, 2),
                ARRHEAD(GB_VT_U8, 0), ARRHEAD(GB_VT_U8, 0))},
    {"i_nested_array_mixed_types", ACC, REJ, REJ,
     "an array of arrays whose inner arrays have different element types (u8, string): "
     "spec 'any value type is valid, including arrays'",
     .ops =
         OPS(KVBEGIN("conformance.mixed", GB_VT_ARR), ARRHEAD(GB_VT_ARR, 2), ARRHEAD(GB_VT_U8, 2),
             RAW(GB_VT_U8, 7), RAW(GB_VT_U8, 8), ARRHEAD(GB_VT_STR, 1), STR("x", 1))},
    {"i_nested_array_depth_3", ACC, REJ, REJ, "arrays nested three deep ([[[-1],[2,3]]])",
     .ops = OPS(KVBEGIN("conformance.cube", GB_VT_ARR), ARRHEAD(GB_VT_ARR, 1),
                ARRHEAD(GB_VT_ARR, 2), ARRHEAD(GB_VT_I16, 1), RAW(GB_VT_I16, -1),
                ARRHEAD(GB_VT_I16, 2), RAW(GB_VT_I16, 2), RAW(GB_VT_I16, 3))},

    /* unknown types */
    {"n_value_type_13", REJ, REJ, REJ,
     "a KV with value type 13 (one past FLOAT64), as in llama.cpp's historical "
     "test_writer.gguf",
     .ops = OPS(KVBEGIN("conformance.value", 13), RAW(GB_VT_U32, 0))},
    {"n_value_type_negative", REJ, REJ, REJ, "a KV with value type 0xFFFFFFFF (-1 as ggml's int32)",
     .ops = OPS(KVBEGIN("conformance.value", 0xFFFFFFFFu), RAW(GB_VT_U32, 0))},
    {"n_array_type_13", REJ, REJ, REJ, "an array with element type 13",
     .ops = OPS(KVBEGIN("conformance.value", GB_VT_ARR), ARRHEAD(13, 2), RAW(GB_VT_U64, 0))},
    {"n_array_type_negative", REJ, REJ, REJ,
     "an array with element type 0x80000000 (negative as ggml's int32)",
     .ops =
         OPS(KVBEGIN("conformance.value", GB_VT_ARR), ARRHEAD(0x80000000u, 2), RAW(GB_VT_U64, 0))},

    /* impossible lengths */
    {"n_array_count_huge", REJ, REJ, REJ,
     "a u8 array declaring 2^40 elements with 3 bytes left in the file",
     .ops = OPS(KVBEGIN("conformance.value", GB_VT_ARR), ARRHEAD(GB_VT_U8, (uint64_t)1 << 40),
                BYTES("abc", 3))},
    {"n_array_count_top_bit", REJ, REJ, REJ,
     "a u32 array whose count has the top bit set (2^63 elements)",
     .ops = OPS(KVBEGIN("conformance.value", GB_VT_ARR), ARRHEAD(GB_VT_U32, 0x8000000000000000u),
                RAW(GB_VT_U32, 1))},
    {"n_string_array_count_huge", REJ, REJ, REJ,
     "a string array declaring 2^40 elements with one present",
     .ops = OPS(KVBEGIN("conformance.value", GB_VT_ARR), ARRHEAD(GB_VT_STR, (uint64_t)1 << 40),
                STR("x", 1))},
    {"n_string_length_huge", REJ, REJ, REJ, "a string value declaring 2^40 bytes with 3 present",
     .ops = OPS(KVBEGIN("conformance.value", GB_VT_STR), STRDECL((uint64_t)1 << 40, "abc", 3))},
    {"n_string_length_top_bit", REJ, REJ, REJ, "a string value whose length has the top bit set",
     .ops = OPS(KVBEGIN("conformance.value", GB_VT_STR), STRDECL(0x8000000000000003u, "abc", 3))},
    {"n_string_length_past_eof_by_one", REJ, REJ, REJ,
     "the last string value declares one byte more than the file holds",
     .ops = OPS(KVBEGIN("conformance.value", GB_VT_STR), STRDECL(4, "abc", 3))},
};

static void cases_values(void)
{
    emit_cases(VALUES_SCALARS);

    /* arrays, one per element type, and empty arrays */
    const struct {
        const char *name;
        uint32_t type;
        uint64_t count;
        size_t nbytes;
        const void *elems;
    } arrays[] = {
        {"u8", GB_VT_U8, 4, 4, (const uint8_t[]){0, 1, 127, 255}},
        {"i8", GB_VT_I8, 4, 4, (const int8_t[]){-128, -1, 0, 127}},
        {"u16", GB_VT_U16, 3, 6, (const uint16_t[]){0, 0x1234, 65535}},
        {"i16", GB_VT_I16, 3, 6, (const int16_t[]){-32768, 0, 32767}},
        {"u32", GB_VT_U32, 3, 12, (const uint32_t[]){0, 0x12345678u, 4294967295u}},
        {"i32", GB_VT_I32, 3, 12, (const int32_t[]){-2147483647 - 1, 0, 2147483647}},
        {"f32", GB_VT_F32, 3, 12, (const float[]){-1.5f, 0.0f, 3.25e38f}},
        {"bool", GB_VT_BOOL, 3, 3, (const uint8_t[]){1, 0, 1}},
        {"u64", GB_VT_U64, 2, 16, (const uint64_t[]){0, UINT64_MAX}},
        {"i64", GB_VT_I64, 2, 16, (const int64_t[]){INT64_MIN, INT64_MAX}},
        {"f64", GB_VT_F64, 2, 16, (const double[]){-1e308, 2.5e-308}},
    };
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
        char name[64], desc[160];
        gb *b = start();
        gb_kv_arr(b, "conformance.array", arrays[i].type, arrays[i].count, arrays[i].elems,
                  arrays[i].nbytes);
        snprintf(name, sizeof name, "y_array_%s", arrays[i].name);
        snprintf(desc, sizeof desc, "an array of %u %s values (element type %u)",
                 (unsigned)arrays[i].count, arrays[i].name, (unsigned)arrays[i].type);
        emit(name, ACC, ACC, ACC, desc, b);
        b = start();
        gb_kv_arr(b, "conformance.array", arrays[i].type, 0, NULL, 0);
        snprintf(name, sizeof name, "y_array_%s_empty", arrays[i].name);
        snprintf(desc, sizeof desc,
                 "an empty array of %s (count 0; ggml reads it, gguf-py's writer refuses to "
                 "write one)",
                 arrays[i].name);
        emit(name, ACC, ACC, ACC, desc, b);
    }
    emit_cases(VALUES_NESTED);
}

/* ------------------------------------------------------------ keys */

static const fcase KEYS[] = {
    {"n_key_empty", REJ, REJ, REJ,
     "a KV with an empty key: spec keys are dotted lower_snake_case segments; ggml rejects "
     "empty keys (since 2026-07)",
     .ops = OPS(KV(GB_VT_U32, "", 1))},
    {"i_key_duplicate", REJ, REJ, REJ,
     "gguflint rejects duplicate keys under every profile: the KV table is a map and two "
     "values for one key are ambiguous (GG106); "
     "general.name appears twice with different values: the spec does not say keys are "
     "unique; ggml and newer gguf-py reject, gguf-py of Feb 2025 only warns, "
     "@huggingface/gguf and candle keep the last value",
     .ops = OPS(KVS("general.name", "first"), KVS("general.name", "second"))},
    {"i_key_not_snake_case", REJ, ACC, REJ,
     "the key conformance.CamelCase: spec keys must be lower_snake_case ('any keys that do "
     "not follow these rules are invalid'); ggml only rejects empty keys",
     .ops = OPS(KV(GB_VT_U32, "conformance.CamelCase", 1))},
    {"i_key_non_ascii", REJ, ACC, REJ,
     "a key with valid UTF-8 outside ASCII (conformance.groesse with o-umlaut and sharp s): "
     "spec keys must be ASCII; ggml does not check",
     .ops = OPS(KV(GB_VT_U32,
                   "conformance.gr\xc3\xb6\xc3\x9f"
                   "e",
                   1))},
    {"i_key_invalid_utf8", REJ, REJ, REJ,
     "gguflint rejects keys with invalid UTF-8 under every profile (GG103): readers decode "
     "them differently; "
     "a key ending in the bytes FF FE: spec keys must be ASCII; ggml does no UTF-8 check "
     "(gguf-py fails to decode it)",
     .ops = OPS(KVBEGINN("conformance.\xff\xfe", 14, GB_VT_U32), RAW(GB_VT_U32, 1))},
    {"i_key_control_byte", REJ, REJ, REJ,
     "gguflint rejects control bytes in keys under every profile (GG104): terminal injection "
     "and strcmp truncation; "
     "a key holding an ESC sequence (conformance.ESC[1mkey): not lower_snake_case, so "
     "spec-invalid; ggml accepts any non-empty key",
     .ops = OPS(KVBEGINN("conformance.\x1b[1mkey", 19, GB_VT_U32), RAW(GB_VT_U32, 1))},
    {"i_key_embedded_nul", REJ, REJ, REJ,
     "gguflint rejects a NUL in a key under every profile (GG104): ggml looks keys up as C "
     "strings; "
     "a key with a NUL byte inside (conformance.a NUL b): spec-invalid; ggml accepts it and "
     "its C-string lookups see conformance.a",
     .ops = OPS(KVBEGINN("conformance.a\0b", 15, GB_VT_U32), RAW(GB_VT_U32, 1))},
};

/* "conformance.kkk...": 65535 and 65536 bytes are the spec's limit (filled
 * by cases_keys) */
static char big_key[65536];

static const fcase KEYS_LONG[] = {
    {"y_key_65535_bytes", ACC, ACC, ACC,
     "a 65535-byte key (conformance.kkk...), the spec's maximum",
     .ops = OPS(KVBEGINN(big_key, sizeof big_key - 1, GB_VT_U8), RAW(GB_VT_U8, 1))},
    {"i_key_65536_bytes", REJ, ACC, REJ,
     "a 65536-byte key: spec keys are at most 65535 bytes; ggml allows up to 1 GiB",
     .ops = OPS(KVBEGINN(big_key, sizeof big_key, GB_VT_U8), RAW(GB_VT_U8, 1))},
    {"n_key_length_huge", REJ, REJ, REJ, "a key length of 2^40 bytes with 13 present",
     .ops = OPS(COUNTS(0, 2), LEN((uint64_t)1 << 40), BYTES("conformance.x", 13))},
};

static void cases_keys(void)
{
    emit_cases(KEYS);
    memcpy(big_key, "conformance.", 12);
    memset(big_key + 12, 'k', sizeof big_key - 12);
    emit_cases(KEYS_LONG);
}

/* ------------------------------------------------------------ alignment */

/* Two f32 tensors of 60 and 28 bytes laid out for `align`. */
static gb *aligned_file(uint32_t align_kv, uint64_t align)
{
    gb *b = start();
    gb_kv_str(b, "general.name", "conformance alignment");
    if (align_kv)
        gb_kv_u32(b, "general.alignment", align_kv);
    put_tensors(b, BASE, 2, align, 0);
    return b;
}

/* The alignments aligned_file writes, by kind: legal everywhere, a power of
 * two below 8 (ggml only), a multiple of 8 that is not a power of two (spec
 * only). The verdicts and the description follow from the kind. */
enum { ALIGN_GOOD, ALIGN_POW2_SMALL, ALIGN_MULT8 };
static const struct {
    uint32_t align;
    int kind;
} ALIGNMENTS[] = {
    {8, ALIGN_GOOD},    {16, ALIGN_GOOD},      {32, ALIGN_GOOD},      {64, ALIGN_GOOD},
    {4096, ALIGN_GOOD}, {1, ALIGN_POW2_SMALL}, {2, ALIGN_POW2_SMALL}, {4, ALIGN_POW2_SMALL},
    {24, ALIGN_MULT8},  {48, ALIGN_MULT8},
};

static const fcase ALIGNMENT_2MIB[] = {
    {"y_alignment_2mib_zero_tensors", ACC, ACC, ACC,
     "general.alignment 2^21 (a power of two and a multiple of 8) in a file without tensors, "
     "so no padding is needed",
     .ops = OPS(KV(GB_VT_U32, "general.alignment", 1u << 21))},
};

static void cases_alignment(void)
{
    emit("y_alignment_default", ACC, ACC, ACC,
         "no general.alignment: tensors laid out for the default 32", aligned_file(0, 32));
    for (size_t i = 0; i < sizeof ALIGNMENTS / sizeof ALIGNMENTS[0]; i++) {
        unsigned a = ALIGNMENTS[i].align;
        int kind = ALIGNMENTS[i].kind;
        char name[64], desc[200];
        snprintf(name, sizeof name, "%s_alignment_%u", kind == ALIGN_GOOD ? "y" : "i", a);
        if (kind == ALIGN_GOOD)
            snprintf(desc, sizeof desc,
                     "general.alignment u32 %u (a power of two and a multiple of 8), two tensors "
                     "padded to it",
                     a);
        else if (kind == ALIGN_POW2_SMALL)
            snprintf(desc, sizeof desc,
                     "general.alignment %u: a power of two (ggml accepts) but not a multiple of 8 "
                     "(spec: 'it must be a multiple of 8')",
                     a);
        else
            snprintf(desc, sizeof desc,
                     "general.alignment %u: a multiple of 8 (spec accepts; its align_offset works "
                     "for any value) but not a power of two (ggml rejects)",
                     a);
        emit(name, kind == ALIGN_POW2_SMALL ? REJ : ACC, kind == ALIGN_MULT8 ? REJ : ACC,
             kind == ALIGN_GOOD ? ACC : REJ, desc, aligned_file(a, a));
    }
    emit_cases(ALIGNMENT_2MIB);
}

/* The wrong-typed and zero alignments (aligned_file cannot write them). */
#define BAD_ALIGNMENT(kv) OPS(KVS("general.name", "conformance alignment"), kv, TENSORS(BASE, 2))
static const fcase ALIGNMENT_BAD[] = {
    {"n_alignment_0", REJ, REJ, REJ,
     "general.alignment u32 0: ggml rejects; the spec's align_offset "
     "divides by it (tensors laid out for 32)",
     .ops = BAD_ALIGNMENT(KV(GB_VT_U32, "general.alignment", 0))},
    {"n_alignment_u64", REJ, REJ, REJ,
     "general.alignment as u64 32: spec and ggml want exactly u32",
     .ops = BAD_ALIGNMENT(KV(GB_VT_U64, "general.alignment", 32))},
    {"n_alignment_i32", REJ, REJ, REJ,
     "general.alignment as i32 32: spec and ggml want exactly u32",
     .ops = BAD_ALIGNMENT(KV(GB_VT_I32, "general.alignment", 32))},
    {"n_alignment_string", REJ, REJ, REJ, "general.alignment as the string \"32\"",
     .ops = BAD_ALIGNMENT(KVS("general.alignment", "32"))},
    {"n_alignment_array", REJ, REJ, REJ, "general.alignment as an array of one u32 32",
     .ops = BAD_ALIGNMENT(KVA("general.alignment", GB_VT_U32, 1, ((const uint32_t[]){32}), 4))},
};
#undef BAD_ALIGNMENT

static void cases_alignment_bad(void)
{
    emit_cases(ALIGNMENT_BAD);
}

/* ------------------------------------------------------------ zero tensors, padding, layout */

static const uint64_t NE8[] = {8}, NE16[] = {16};

static const fcase LAYOUT[] = {
    {"y_zero_tensors_unpadded", ACC, ACC, ACC,
     "no tensors and no padding after the KVs (as gguf-py's vocab-only files; ggml's reader "
     "pads the data start only when there are tensors)",
     .ops = OPS(KVS("general.name", "conformance vocab-like"))},
    {"y_zero_tensors_padded", ACC, ACC, ACC,
     "no tensors, zero padding to 32 after the KVs (as the ggml writer does)",
     .ops = OPS(KVS("general.name", "conformance vocab-like"), PAD)},
    {"y_zero_tensors_padded_alignment_64", ACC, ACC, ACC,
     "no tensors, general.alignment 64, zero padding to 64 after the KVs",
     .ops = OPS(KV(GB_VT_U32, "general.alignment", 64), PAD_TO(64))},
    {"i_missing_final_padding", ACC, ACC, REJ,
     "the file ends right after the last tensor's data, without its padding: spec only asks "
     "for alignment of offsets; llama.cpp (no_alloc) checks each tensor's bytes; ggml's "
     "gguf_init_from_file loading the data reads the padded total and fails; writers pad",
     .from = FROM_BASELINE, .tf = TF_NO_FINAL_PAD},
    {"y_trailing_bytes", ACC, ACC, REJ,
     "8 bytes after the padded data section: no reader looks past the last tensor; strict: "
     "writers never leave them",
     .from = FROM_BASELINE, .ops = OPS(BYTES("trailing", 8))},
    {"y_nonzero_padding_before_data", ACC, ACC, REJ,
     "the padding between the tensor infos and the data holds A5 bytes: the spec pads 'with "
     "0x00' but no reader checks; strict: writers write zeros",
     .from = FROM_BASELINE, .tf = TF_JUNK_INFO_PAD},
    {"y_nonzero_padding_between_tensors", ACC, ACC, ACC,
     "gguflint reads the padding between tensors only with --deep (GG301), so the plain strict "
     "profile accepts this file; "
     "the padding between tensors holds A5 bytes (spec: the space between tensors 'should' "
     "be padded; no reader checks; writers write zeros)",
     .from = FROM_BASELINE, .tf = TF_JUNK_GAP_PAD},

    /* offsets: a.weight has 64 bytes, b.weight 32 */
    {"n_offset_misaligned", REJ, REJ, REJ,
     "the second tensor's offset is 72, not a multiple of the alignment 32 (spec 'must be a "
     "multiple of ALIGNMENT')",
     .ops = OPS(TENSOR("a.weight", 1, NE16, GB_F32, 0), TENSOR("b.weight", 1, NE8, GB_F32, 72), PAD,
                FILL(64, 0), ZEROS(8), FILL(32, 1), PAD)},
    {"i_offset_gap", ACC, REJ, REJ,
     "an aligned 32-byte gap between the two tensors' data (offsets 0 and 96): spec asks "
     "only for aligned offsets; ggml wants each offset to be the running sum of padded sizes",
     .ops = OPS(TENSOR("a.weight", 1, NE16, GB_F32, 0), TENSOR("b.weight", 1, NE8, GB_F32, 96), PAD,
                FILL(64, 0), ZEROS(32), FILL(32, 1))},
    {"y_offsets_contiguous_two", ACC, ACC, ACC,
     "two tensors (32 and 64 bytes) at offsets 0 and 32, the reference layout",
     .ops = OPS(TENSOR("b.weight", 1, NE8, GB_F32, 0), TENSOR("a.weight", 1, NE16, GB_F32, 32), PAD,
                FILL(32, 1), FILL(64, 0))},
    {"i_offsets_out_of_order", ACC, REJ, REJ,
     "the first tensor info points after the second one's data (offsets 32 and 0): aligned "
     "and non-overlapping (spec accepts), not in file order (ggml rejects)",
     .ops = OPS(TENSOR("a.weight", 1, NE16, GB_F32, 32), TENSOR("b.weight", 1, NE8, GB_F32, 0), PAD,
                FILL(32, 1), FILL(64, 0))},
    {"i_offset_first_not_zero", ACC, REJ, REJ,
     "a single tensor at offset 32 after 32 unused bytes: spec accepts, ggml wants offset 0",
     .ops = OPS(TENSOR("b.weight", 1, NE8, GB_F32, 32), PAD, ZEROS(32), FILL(32, 1))},
    {"i_tensors_share_data", REJ, REJ, REJ,
     "gguflint rejects aliased tensor data under every profile (GG217); "
     "two tensors of the same shape both at offset 0 (aliased data): the spec does not "
     "forbid it and gguf-py accepts it; ggml rejects the second offset",
     .ops = OPS(TENSOR("a.weight", 1, NE8, GB_F32, 0), TENSOR("b.weight", 1, NE8, GB_F32, 0), PAD,
                FILL(32, 1))},
    {"n_offset_past_eof", REJ, REJ, REJ,
     "the second tensor's offset is 1 MiB, far past the end of the file",
     .ops =
         OPS(TENSOR("a.weight", 1, NE16, GB_F32, 0),
             TENSOR("b.weight", 1, NE8, GB_F32, (uint64_t)1 << 20), PAD, FILL(64, 0), FILL(32, 1))},
    {"n_offset_overflow", REJ, REJ, REJ,
     "a tensor offset of 2^64-32: data start + offset + size overflows 64 bits",
     .ops = OPS(TENSOR("b.weight", 1, NE8, GB_F32, UINT64_MAX - 31), PAD, FILL(32, 1))},
};

static void cases_layout(void)
{
    emit_cases(LAYOUT);
}

/* ------------------------------------------------------------ tensor types */

typedef struct tinfo {
    uint32_t id;
    const char *name;
    int ftype; /* general.file_type whose default type this is; -1 none */
} tinfo;

static void cases_types(void)
{
    static const tinfo types[] = {
        {0, "f32", 0},       {1, "f16", 1},      {2, "q4_0", 2},      {3, "q4_1", 3},
        {6, "q5_0", 8},      {7, "q5_1", 9},     {8, "q8_0", 7},      {9, "q8_1", -1},
        {10, "q2_k", 10},    {11, "q3_k", 12},   {12, "q4_k", 15},    {13, "q5_k", 17},
        {14, "q6_k", 18},    {15, "q8_k", -1},   {16, "iq2_xxs", 19}, {17, "iq2_xs", 20},
        {18, "iq3_xxs", 23}, {19, "iq1_s", 24},  {20, "iq4_nl", 25},  {21, "iq3_s", 26},
        {22, "iq2_s", 29},   {23, "iq4_xs", 30}, {24, "i8", -1},      {25, "i16", -1},
        {26, "i32", -1},     {27, "i64", -1},    {28, "f64", -1},     {29, "iq1_m", 31},
        {30, "bf16", 32},    {34, "tq1_0", 36},  {35, "tq2_0", 37},   {39, "mxfp4", -1},
        {40, "nvfp4", -1},   {41, "q1_0", -1},   {42, "q2_0", -1},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        uint32_t block = 0, size = 0;
        if (!gb_type_traits(types[i].id, &block, &size)) {
            fail("unknown type in the table", types[i].name);
            continue;
        }
        tdef t = {"a.weight", 2, {block == 1 ? 8 : block, 2, 1, 1}, types[i].id};
        gb *b = start();
        if (types[i].ftype >= 0)
            gb_kv_u32(b, "general.file_type", (uint32_t)types[i].ftype);
        if (quantized(types[i].id))
            gb_kv_u32(b, "general.quantization_version", 2);
        put_tensors(b, &t, 1, 32, 0);
        char name[64], desc[400];
        if (types[i].id >= 40) {
            snprintf(name, sizeof name, "i_type_%s", types[i].name);
            snprintf(desc, sizeof desc,
                     "one 2-row tensor of ggml type %u (%s, block %u, %u bytes per block): ggml "
                     "added it after the spec's enum (which ends at MXFP4 = 39, COUNT 40); "
                     "readers older than the type reject it",
                     (unsigned)types[i].id, types[i].name, (unsigned)block, (unsigned)size);
            /* gguflint uses ggml's current type table under every profile */
            emit(name, ACC, ACC, ACC, desc, b);
        } else {
            snprintf(name, sizeof name, "y_type_%s", types[i].name);
            snprintf(desc, sizeof desc,
                     "one 2-row tensor of ggml type %u (%s, block %u, %u bytes per block)%s%s",
                     (unsigned)types[i].id, types[i].name, (unsigned)block, (unsigned)size,
                     types[i].ftype >= 0 ? ", general.file_type matching it" : "",
                     quantized(types[i].id) ? ", general.quantization_version 2" : "");
            emit(name, ACC, ACC, ACC, desc, b);
        }
    }

    static const struct {
        uint32_t id;
        const char *name;
    } removed[] = {
        {4, "q4_2"},      {5, "q4_3"},        {31, "q4_0_4_4"},   {32, "q4_0_4_8"},
        {33, "q4_0_8_8"}, {36, "iq4_nl_4_4"}, {37, "iq4_nl_4_8"}, {38, "iq4_nl_8_8"},
    };
    for (size_t i = 0; i < sizeof removed / sizeof removed[0]; i++) {
        uint64_t ne[2] = {32, 2};
        gb *b = start();
        gb_kv_u32(b, "general.quantization_version", 2);
        gb_tensor(b, "a.weight", 2, ne, removed[i].id, 0);
        pad(b, 32, false);
        fill(b, 64, 0);
        char name[64], desc[200];
        snprintf(name, sizeof name, "n_type_removed_%u_%s", (unsigned)removed[i].id,
                 removed[i].name);
        snprintf(desc, sizeof desc,
                 "a [32,2] tensor of the removed ggml type %u (%s) with 64 bytes of data: "
                 "commented out in the spec's enum, block size 0 in ggml",
                 (unsigned)removed[i].id, removed[i].name);
        emit(name, REJ, REJ, REJ, desc, b);
    }
    static const struct {
        const char *name;
        uint32_t id;
        const char *desc;
    } unknown[] = {
        {"n_type_unknown_43", 43, "a tensor of type 43 (GGML_TYPE_COUNT in Aug 2026)"},
        {"n_type_unknown_1000", 1000, "a tensor of type 1000"},
        {"n_type_negative", 0xFFFFFFFFu, "a tensor of type 0xFFFFFFFF (-1 as ggml's int32)"},
    };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        uint64_t ne[2] = {8, 2};
        gb *b = start();
        gb_tensor(b, "a.weight", 2, ne, unknown[i].id, 0);
        pad(b, 32, false);
        fill(b, 64, 0);
        emit(unknown[i].name, REJ, REJ, REJ, unknown[i].desc, b);
    }
    {
        tdef t = {"a.weight", 2, {16, 2, 1, 1}, GB_Q4_0};
        gb *b = start();
        gb_kv_u32(b, "general.quantization_version", 2);
        gb_tensor(b, t.name, 2, t.ne, t.type, 0);
        pad(b, 32, false);
        fill(b, 36, 0);
        pad(b, 32, false);
        emit("n_row_not_block_multiple", REJ, REJ, REJ,
             "a q4_0 tensor with ne0 = 16, not a multiple of its block size 32 (its byte size is "
             "undefined)",
             b);
    }
}

/* ------------------------------------------------------------ shapes and names */

static const tdef SCALAR_T = {"a.weight", 0, {1, 1, 1, 1}, GB_F32};
static const tdef DIMS_1_TO_4[] = {
    {"a.weight", 1, {4, 1, 1, 1}, GB_F32},
    {"b.weight", 2, {2, 3, 1, 1}, GB_F32},
    {"c.weight", 3, {2, 1, 3, 1}, GB_F32},
    {"d.weight", 4, {2, 2, 1, 2}, GB_F32},
};
static const tdef DIM_ZERO = {"a.weight", 2, {0, 4, 1, 1}, GB_F32};
static const tdef DIM_ZERO_BETWEEN[] = {
    {"a.weight", 1, {8, 1, 1, 1}, GB_F32},
    {"b.weight", 3, {32, 2, 0, 1}, GB_Q8_0},
    {"c.weight", 1, {8, 1, 1, 1}, GB_F32},
};
static const uint64_t NE_5D[] = {2, 1, 1, 1, 1};
static const uint64_t NE_NEGATIVE[] = {UINT64_MAX, 2};
static const uint64_t NE_TOP_BIT_ZERO[] = {(uint64_t)1 << 63, 0};
static const uint64_t NE_COUNT_OVERFLOW[] = {(uint64_t)1 << 32, (uint64_t)1 << 32,
                                             (uint64_t)1 << 32};
static const uint64_t NE_2_62[] = {(uint64_t)1 << 62};
static const uint64_t NE8_2[] = {8, 2};
/* 65 bytes: its first 63, 64 and 65 bytes name tensors */
static const char LONG_NAME[] = "blk.0.nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn";
_Static_assert(sizeof LONG_NAME == 66, "65 bytes and the NUL");

/* one [8, 2] f32 tensor named by `name` (n bytes) and its 64 bytes of data */
#define NAMED(name, n) TENSORN(name, n, 2, NE8_2, GB_F32, 0), PAD, FILL(64, 0)

static const fcase SHAPES[] = {
    {"y_n_dims_0", ACC, ACC, ACC, "a scalar f32 tensor with n_dims 0 (4 bytes; every ne is 1)",
     .ops = OPS(TENSORS(&SCALAR_T, 1))},
    {"y_n_dims_1_to_4", ACC, ACC, ACC,
     "four f32 tensors with n_dims 1, 2, 3 and 4 (unit dims inside the shape)",
     .ops = OPS(TENSORS(DIMS_1_TO_4, 4))},
    {"n_n_dims_5", REJ, REJ, REJ,
     "a tensor with n_dims 5 ([2,1,1,1,1]): at most 4 (spec 'currently at most 4', "
     "GGML_MAX_DIMS)",
     .ops = OPS(TENSOR("a.weight", 5, NE_5D, GB_F32, 0), PAD, FILL(8, 0), PAD)},
    {"n_n_dims_huge", REJ, REJ, REJ, "a tensor with n_dims 0xFFFFFFFF (the file ends after 5 dims)",
     .ops = OPS(COUNTS(1, 1), STR("a.weight", 8), RAW(GB_VT_U32, 0xFFFFFFFFu), RAW(GB_VT_U64, 2),
                RAW(GB_VT_U64, 1), RAW(GB_VT_U64, 1), RAW(GB_VT_U64, 1), RAW(GB_VT_U64, 1))},
    {"y_dim_zero", ACC, ACC, REJ,
     "an f32 tensor [0,4] with no data: spec and ggml (since 2026-08; it crashed older "
     "ggml with SIGFPE, gguf-parser-go panicked) accept; strict: writers avoid it",
     .ops = OPS(TENSORS(&DIM_ZERO, 1))},
    {"y_dim_zero_between_tensors", ACC, ACC, REJ,
     "a q8_0 tensor [32,2,0] (0 bytes) between two f32 tensors: it and the third tensor "
     "share offset 32, an empty range that overlaps nothing",
     .ops = OPS(KV(GB_VT_U32, "general.quantization_version", 2), TENSORS(DIM_ZERO_BETWEEN, 3))},
    {"n_dim_negative", REJ, REJ, REJ,
     "a tensor dim of 2^64-1 (-1 as ggml's int64): its data cannot fit in any file",
     .ops = OPS(TENSOR("a.weight", 2, NE_NEGATIVE, GB_F32, 0), PAD, FILL(32, 0))},
    {"i_dim_top_bit_zero_elements", REJ, REJ, REJ,
     "gguflint reads dims as int64, as every implementation does (GG208); "
     "an f32 tensor [2^63, 0]: spec dims are uint64 and the tensor has 0 elements and 0 "
     "bytes; ggml reads dims as int64 and rejects the negative one",
     .ops = OPS(TENSOR("a.weight", 2, NE_TOP_BIT_ZERO, GB_F32, 0), PAD)},
    {"i_element_count_overflow", REJ, ACC, REJ,
     "an i8 tensor [2^32, 2^32, 2^32]: the element count overflows 64 bits and wraps "
     "to 0; ggml (2026-08) runs its overflow check only for a positive count, so it "
     "accepts the file (with a data size that wraps to 0); gguflint GG515: a warning "
     "under ggml, an error under spec, strict and security",
     .ops = OPS(TENSOR("a.weight", 3, NE_COUNT_OVERFLOW, GB_I8, 0), PAD, FILL(32, 0))},
    {"n_byte_size_overflow", REJ, REJ, REJ,
     "an f64 tensor of 2^62 elements: the byte size (2^65) overflows 64 bits",
     .ops = OPS(TENSOR("a.weight", 1, NE_2_62, 28 /* f64 */, 0), PAD, FILL(32, 0))},

    /* tensor names */
    {"y_tensor_name_63_bytes", ACC, ACC, ACC,
     "a 63-byte tensor name, the longest ggml accepts (char name[64] with its NUL)",
     .ops = OPS(NAMED(LONG_NAME, 63))},
    {"i_tensor_name_64_bytes", ACC, REJ, REJ,
     "a 64-byte tensor name: spec 'at most 64 bytes'; ggml wants fewer than 64 "
     "(GGML_MAX_NAME)",
     .ops = OPS(NAMED(LONG_NAME, 64))},
    {"n_tensor_name_65_bytes", REJ, REJ, REJ,
     "a 65-byte tensor name: over the spec's 64 and ggml's 63", .ops = OPS(NAMED(LONG_NAME, 65))},
    {"n_tensor_name_length_huge", REJ, REJ, REJ,
     "a tensor name declaring 2^40 bytes with 8 present",
     .ops = OPS(COUNTS(1, 1), STRDECL((uint64_t)1 << 40, "a.weight", 8))},
    {"y_tensor_name_empty", ACC, ACC, REJ,
     "a tensor with an empty name: a valid gguf string of at most 64 bytes, and ggml "
     "accepts it; strict: writers never write one",
     .ops = OPS(NAMED("", 0))},
    {"y_tensor_name_non_ascii", ACC, ACC, ACC,
     "a tensor name with valid non-ASCII UTF-8 (ete.weight with accents)",
     .ops = OPS(NAMED("\xc3\xa9t\xc3\xa9.weight", 12))},
    {"i_tensor_name_invalid_utf8", REJ, ACC, REJ,
     "a tensor name with the byte FF: spec names are UTF-8 gguf strings; ggml does not "
     "check (gguf-py fails to decode it)",
     .ops = OPS(NAMED("a\xff.weight", 9))},
    {"i_tensor_name_embedded_nul", REJ, REJ, REJ,
     "gguflint rejects a NUL in a tensor name under every profile: C and length-based "
     "readers see different names (GG204, GG704); "
     "the tensor name 'a.weight' NUL 'hidden' (15 bytes): a valid UTF-8 string the spec "
     "allows and ggml accepts, but ggml's C string sees 'a.weight' while length-based "
     "readers see all 15 bytes",
     .ops = OPS(NAMED("a.weight\0hidden", 15))},
    {"i_tensor_names_equal_before_nul", REJ, REJ, REJ,
     "gguflint compares names as C readers see them under every profile (GG205); "
     "two tensors named 'a.weight' NUL 'x' and 'a.weight' NUL 'y': distinct strings to "
     "the spec, duplicates to ggml (names are cut at the NUL)",
     .ops = OPS(TENSORN("a.weight\0x", 10, 2, NE8_2, GB_F32, 0),
                TENSORN("a.weight\0y", 10, 2, NE8_2, GB_F32, 64), PAD, FILL(64, 0), FILL(64, 1))},
    {"i_tensor_name_duplicate", REJ, REJ, REJ,
     "gguflint rejects duplicate tensor names under every profile (GG205); "
     "two tensors named a.weight with their own data: the spec does not say names are "
     "unique; ggml and gguf-py reject, @huggingface/gguf and candle keep the last",
     .ops = OPS(TENSOR("a.weight", 2, NE8_2, GB_F32, 0), TENSOR("a.weight", 2, NE8_2, GB_F32, 64),
                PAD, FILL(64, 0), FILL(64, 1))},
};
#undef NAMED

static void cases_shapes(void)
{
    emit_cases(SHAPES);
}

/* ------------------------------------------------------------ general.* semantics */

static const char *const GENERAL_TAGS[] = {"conformance", "test"};
static const char *const GENERAL_LANGS[] = {"en"};
/* one [32, 2] (or [256, 2], [64]) tensor of a type */
static const tdef Q8_0_W = {"a.weight", 2, {32, 2, 1, 1}, GB_Q8_0};
static const tdef F32_W = {"a.weight", 2, {32, 2, 1, 1}, GB_F32};
static const tdef Q4_1_W = {"a.weight", 2, {32, 2, 1, 1}, GB_Q4_1};
static const tdef IQ4_XS_W = {"a.weight", 2, {256, 2, 1, 1}, 23};
static const tdef Q8_0_1D = {"a.weight", 1, {64, 1, 1, 1}, GB_Q8_0};

static const fcase GENERAL[] = {
    {"n_architecture_missing", REJ, REJ, REJ,
     "a complete file without general.architecture: required by the spec; llama.cpp's "
     "loader fails without it (ggml's gguf reader alone does not check)",
     .from = FROM_BARE, .ops = OPS(KVS("general.name", "no architecture"), ONE_T)},
    {"n_architecture_not_string", REJ, REJ, REJ,
     "general.architecture as u32 1: spec type string; llama.cpp's typed read fails",
     .from = FROM_BARE, .ops = OPS(KV(GB_VT_U32, "general.architecture", 1), ONE_T)},
    {"i_architecture_uppercase", REJ, ACC, REJ,
     "general.architecture 'Conformance': spec 'all lowercase ASCII, only [a-z0-9]+'; ggml "
     "does not check the charset",
     .from = FROM_BARE, .ops = OPS(KVS("general.architecture", "Conformance"), ONE_T)},
    {"i_architecture_dash", ACC, ACC, ACC,
     "general.architecture 'conformance-x': the spec allows only [a-z0-9]+, while llama.cpp "
     "itself uses names with '-' and '_' (command-r, gpt-oss, nemotron_h); gguflint accepts "
     "[a-z0-9_-] under every profile (27 real names use them)",
     .from = FROM_BARE, .ops = OPS(KVS("general.architecture", "conformance-x"), ONE_T)},
    {"i_architecture_empty", REJ, ACC, REJ,
     "general.architecture is the empty string: spec [a-z0-9]+ needs one character; ggml "
     "only reads it",
     .from = FROM_BARE, .ops = OPS(KVS("general.architecture", ""), ONE_T)},

    /* general metadata with the types writers use */
    {"y_general_metadata", ACC, ACC, ACC,
     "the baseline with the general.* metadata keys of the spec and gguf-py, each with the "
     "type writers use (strings, u32 counts, string arrays)",
     .ops =
         OPS(KVS("general.type", "model"), KVS("general.name", "Conformance Test Model"),
             KVS("general.author", "gguflint"), KVS("general.version", "v1.0"),
             KVS("general.organization", "gguflint"), KVS("general.basename", "conformance"),
             KVS("general.finetune", "test"),
             KVS("general.description", "A file of the GGUF conformance suite."),
             KVS("general.size_label", "100"), KVS("general.license", "MIT"),
             KVS("general.url", "https://example.com/conformance"),
             KV(GB_VT_U32, "general.base_model.count", 1),
             KVS("general.base_model.0.name", "Conformance Base"),
             KVSTRS("general.tags", GENERAL_TAGS, 2), KVSTRS("general.languages", GENERAL_LANGS, 1),
             KV(GB_VT_U32, "general.file_type", 0), KV(GB_VT_U32, "general.alignment", 32),
             TENSORS(BASE, N_BASE))},
    {"n_general_name_not_string", REJ, REJ, REJ,
     "general.name as u32: spec type string; llama.cpp reads it as a string and fails",
     .ops = OPS(KV(GB_VT_U32, "general.name", 7), ONE_T)},
    {"i_general_author_not_string", REJ, ACC, REJ,
     "general.author as u32: the spec says string; llama.cpp never reads it",
     .ops = OPS(KV(GB_VT_U32, "general.author", 7), ONE_T)},
    {"i_general_tags_not_array", REJ, ACC, REJ,
     "general.tags as a plain string: the spec says string[]; llama.cpp never reads it",
     .ops = OPS(KVS("general.tags", "conformance"), ONE_T)},

    /* quantization version */
    {"i_quantized_without_quantization_version", REJ, ACC, REJ,
     "a q8_0 tensor and no general.quantization_version: spec 'if any tensors are quantized, "
     "this must be present'; no loader reads it",
     .ops = OPS(KV(GB_VT_U32, "general.file_type", 7), TENSORS(&Q8_0_W, 1))},
    {"y_quantization_version_3", ACC, ACC, REJ,
     "general.quantization_version 3 with a q8_0 tensor: any u32 is spec-valid (its example "
     "uses 4); strict: writers write GGML_QNT_VERSION 2",
     .ops = OPS(KV(GB_VT_U32, "general.file_type", 7),
                KV(GB_VT_U32, "general.quantization_version", 3), TENSORS(&Q8_0_W, 1))},
    {"i_quantization_version_not_u32", REJ, ACC, REJ,
     "general.quantization_version as the string \"2\": spec says uint32; no loader reads it",
     .ops = OPS(KV(GB_VT_U32, "general.file_type", 7), KVS("general.quantization_version", "2"),
                TENSORS(&Q8_0_W, 1))},

    /* file type */
    {"y_file_type_4_removed", ACC, ACC, REJ,
     "general.file_type 4 (MOSTLY_Q4_1_SOME_F16, still listed by the spec, removed from "
     "llama.cpp) with a q4_1 tensor: informational to every reader; strict: no current "
     "writer emits it",
     .ops = OPS(KV(GB_VT_U32, "general.file_type", 4),
                KV(GB_VT_U32, "general.quantization_version", 2), TENSORS(&Q4_1_W, 1))},
    {"y_file_type_30_beyond_spec_list", ACC, ACC, ACC,
     "general.file_type 30 (MOSTLY_IQ4_XS; the spec's list stops at 18) with an iq4_xs "
     "tensor: the key is an optional uint32 'can be inferred from the tensor types'",
     .ops = OPS(KV(GB_VT_U32, "general.file_type", 30),
                KV(GB_VT_U32, "general.quantization_version", 2), TENSORS(&IQ4_XS_W, 1))},
    {"y_file_type_guessed_flag", ACC, ACC, REJ,
     "general.file_type 1024 (ALL_F32 | LLAMA_FTYPE_GUESSED, llama.cpp's in-memory flag) with "
     "an f32 tensor: strict: never stored by a writer",
     .ops = OPS(KV(GB_VT_U32, "general.file_type", 1024), TENSORS(&F32_W, 1))},
    {"y_file_type_unknown", ACC, ACC, REJ,
     "general.file_type 999, no llama_ftype: readers only display it; strict: writers use "
     "llama_ftype values",
     .ops = OPS(KV(GB_VT_U32, "general.file_type", 999), TENSORS(&F32_W, 1))},
    {"y_file_type_mismatch", ACC, ACC, REJ,
     "general.file_type 7 (MOSTLY_Q8_0) but the only 2-D weight, a [32,2] f32 tensor, is not "
     "q8_0: readers accept; strict: llama-quantize would have made it q8_0",
     .ops = OPS(KV(GB_VT_U32, "general.file_type", 7),
                KV(GB_VT_U32, "general.quantization_version", 2), TENSORS(&F32_W, 1))},
    {"n_file_type_not_u32", REJ, REJ, REJ,
     "general.file_type as the string \"Q8_0\": spec uint32; llama.cpp's getter aborts on a "
     "non-u32 value (Feb 2025)",
     .ops = OPS(KVS("general.file_type", "Q8_0"), ONE_T)},
    {"y_quantized_1d_tensor", ACC, ACC, REJ,
     "a 1-D q8_0 tensor: legal to every reader; strict: converters and llama-quantize keep "
     "1-D tensors in f32",
     .ops = OPS(KV(GB_VT_U32, "general.quantization_version", 2), TENSORS(&Q8_0_1D, 1))},
};

static void cases_general(void)
{
    emit_cases(GENERAL);
}

/* ------------------------------------------------------------ tokenizer */

static const char *const SPM_TOKENS[] = {"<unk>", "<s>", "</s>", "\342\226\201a", "b"};
static const float SPM_SCORES[] = {0.0f, 0.0f, 0.0f, -1.0f, -2.0f};
static const int32_t SPM_TYPES[] = {2, 3, 3, 1, 1};
enum { N_SPM = 5 };

/* A SentencePiece (llama) vocabulary of 5 tokens; the parts can be left out
 * or changed through the flags. */
enum { SPM_NO_SCORES = 1u, SPM_SHORT_SCORES = 2u, SPM_NO_IDS = 4u };
static void spm_vocab(gb *b, unsigned flags)
{
    gb_kv_str(b, "tokenizer.ggml.model", "llama");
    gb_kv_str(b, "tokenizer.ggml.pre", "default");
    gb_kv_arr_str(b, "tokenizer.ggml.tokens", SPM_TOKENS, N_SPM);
    if (!(flags & SPM_NO_SCORES))
        gb_kv_arr(b, "tokenizer.ggml.scores", GB_VT_F32, (flags & SPM_SHORT_SCORES) ? 4 : N_SPM,
                  SPM_SCORES, ((flags & SPM_SHORT_SCORES) ? 4 : N_SPM) * sizeof(float));
    gb_kv_arr(b, "tokenizer.ggml.token_type", GB_VT_I32, N_SPM, SPM_TYPES, sizeof SPM_TYPES);
    if (!(flags & SPM_NO_IDS)) {
        gb_kv_u32(b, "tokenizer.ggml.bos_token_id", 1);
        gb_kv_u32(b, "tokenizer.ggml.eos_token_id", 2);
        gb_kv_u32(b, "tokenizer.ggml.unknown_token_id", 0);
        gb_kv_bool(b, "tokenizer.ggml.add_bos_token", 1);
        gb_kv_bool(b, "tokenizer.ggml.add_eos_token", 0);
    }
}

static const char *const BPE_TOKENS[] = {"!", "a", "b", "ab", "<|endoftext|>"};
static const int32_t BPE_TYPES[] = {1, 1, 1, 1, 3};
static const char *const BPE_MERGES[] = {"a b"};
enum { N_BPE = 5 };

static void bpe_vocab(gb *b, bool merges)
{
    gb_kv_str(b, "tokenizer.ggml.model", "gpt2");
    gb_kv_str(b, "tokenizer.ggml.pre", "default");
    gb_kv_arr_str(b, "tokenizer.ggml.tokens", BPE_TOKENS, N_BPE);
    gb_kv_arr(b, "tokenizer.ggml.token_type", GB_VT_I32, N_BPE, BPE_TYPES, sizeof BPE_TYPES);
    if (merges)
        gb_kv_arr_str(b, "tokenizer.ggml.merges", BPE_MERGES, 1);
    gb_kv_u32(b, "tokenizer.ggml.bos_token_id", 4);
    gb_kv_u32(b, "tokenizer.ggml.eos_token_id", 4);
}

static const char *const DUP_TOKENS[] = {"<unk>", "<s>", "</s>", "b", "b"};
static const char *const EMPTY_TOKEN[] = {"<unk>", "<s>", "</s>", "", "b"};

static const fcase TOKENIZER[] = {
    {"y_tokenizer_llama", ACC, ACC, ACC,
     "a 5-token SentencePiece vocabulary (tokenizer.ggml.model llama, tokens, scores, "
     "token_type, bos/eos/unknown ids in range, add_bos/add_eos)",
     .ops = OPS(SPM(0))},
    {"y_tokenizer_gpt2", ACC, ACC, ACC,
     "a 5-token BPE vocabulary (model gpt2, pre default, tokens, token_type, one merge, "
     "bos/eos ids in range)",
     .ops = OPS(BPE(1))},
    {"y_tokenizer_seperator_misspelled", ACC, ACC, ACC,
     "tokenizer.ggml.seperator_token_id (sic): the spelling llama.cpp reads and gguf-py "
     "writes; an extra key to the spec",
     .ops = OPS(SPM(0), KV(GB_VT_U32, "tokenizer.ggml.seperator_token_id", 2))},
    {"y_tokenizer_separator_spec_spelling", ACC, ACC, ACC,
     "gguflint does not flag spec-only key spellings that llama.cpp ignores (not modelled); "
     "tokenizer.ggml.separator_token_id, the spec's spelling: valid everywhere, but "
     "llama.cpp only reads the misspelled seperator_token_id, so the id is lost; strict: "
     "gguf-py writes the misspelling",
     .ops = OPS(SPM(0), KV(GB_VT_U32, "tokenizer.ggml.separator_token_id", 2))},
    {"y_tokenizer_chat_template", ACC, ACC, ACC,
     "the llama vocabulary with a plain Jinja tokenizer.chat_template",
     .ops = OPS(SPM(0),
                KVS("tokenizer.chat_template",
                    "{% for message in messages %}{{ message['role'] }}: {{ message['content'] }}\n"
                    "{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}"))},
    {"i_tokenizer_model_replit", ACC, REJ, REJ,
     "tokenizer.ggml.model replit, listed by the spec: llama.cpp throws 'unknown tokenizer'",
     .ops = OPS(KVS("tokenizer.ggml.model", "replit"),
                KVSTRS("tokenizer.ggml.tokens", SPM_TOKENS, N_SPM),
                KVA("tokenizer.ggml.scores", GB_VT_F32, N_SPM, SPM_SCORES, sizeof SPM_SCORES))},
    {"n_tokenizer_scores_length_mismatch", REJ, REJ, REJ,
     "4 scores for 5 tokens: spec 'must have the same length'; llama.cpp reads the missing "
     "score out of bounds",
     .ops = OPS(SPM(SPM_SHORT_SCORES))},
    {"n_tokenizer_tokens_not_strings", REJ, REJ, REJ,
     "tokenizer.ggml.tokens as an array of u32: spec array[string]; llama.cpp's string "
     "getter aborts",
     .ops = OPS(KVS("tokenizer.ggml.model", "llama"),
                KVA("tokenizer.ggml.tokens", GB_VT_U32, 3, ((const uint32_t[]){1, 2, 3}), 12))},
    {"i_tokenizer_duplicate_token", ACC, REJ, REJ,
     "the token 'b' twice (ids 3 and 4): the spec says nothing; llama.cpp aborts "
     "(token_to_id and id_to_token sizes differ)",
     .ops =
         OPS(KVS("tokenizer.ggml.model", "llama"), KVSTRS("tokenizer.ggml.tokens", DUP_TOKENS, 5),
             KVA("tokenizer.ggml.scores", GB_VT_F32, N_SPM, SPM_SCORES, sizeof SPM_SCORES),
             KVA("tokenizer.ggml.token_type", GB_VT_I32, N_SPM, SPM_TYPES, sizeof SPM_TYPES))},
    {"y_tokenizer_empty_token", ACC, ACC, REJ,
     "token 3 is the empty string: readers accept; strict: converters never emit one",
     .ops =
         OPS(KVS("tokenizer.ggml.model", "llama"), KVSTRS("tokenizer.ggml.tokens", EMPTY_TOKEN, 5),
             KVA("tokenizer.ggml.scores", GB_VT_F32, N_SPM, SPM_SCORES, sizeof SPM_SCORES),
             KVA("tokenizer.ggml.token_type", GB_VT_I32, N_SPM, SPM_TYPES, sizeof SPM_TYPES))},
    {"y_tokenizer_special_id_out_of_range", ACC, ACC, REJ,
     "bos_token_id 99 with 5 tokens: the spec says nothing; llama.cpp warns 'bad special "
     "token' and keeps its default id; strict: a writer's ids index the vocabulary",
     .ops = OPS(SPM(SPM_NO_IDS), KV(GB_VT_U32, "tokenizer.ggml.bos_token_id", 99))},
    {"i_tokenizer_gpt2_without_merges", ACC, REJ, REJ,
     "a gpt2 (BPE) vocabulary without tokenizer.ggml.merges: spec 'if not present, the tokens "
     "are assumed to be atomic'; llama.cpp throws 'cannot find tokenizer merges'",
     .ops = OPS(BPE(0))},
    {"i_tokenizer_model_without_tokens", ACC, REJ, REJ,
     "tokenizer.ggml.model without tokenizer.ggml.tokens: the spec makes no tokenizer key "
     "required; llama.cpp throws 'cannot find tokenizer vocab'",
     .ops = OPS(KVS("tokenizer.ggml.model", "llama"))},
};

static void cases_tokenizer(void)
{
    emit_cases(TOKENIZER);
}

/* ------------------------------------------------------------ models llama.cpp implements */

/* A tiny llama: E 8, 2 heads of 4, F 16, 1 block, 5 tokens (the SPM vocabulary). */
enum { L_E = 8, L_F = 16, L_V = N_SPM, L_X = 2 };

static void llama_keys(gb *b, bool u64, bool moe)
{
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.name", "conformance tiny llama");
    gb_kv_u32(b, "general.file_type", 0);
    /* the counts gguf-py writes as u32 (the spec says u64) */
    static const struct {
        const char *key;
        uint32_t v;
    } counts[] = {
        {"llama.context_length", 16},      {"llama.embedding_length", L_E},
        {"llama.block_count", 1},          {"llama.feed_forward_length", L_F},
        {"llama.attention.head_count", 2}, {"llama.rope.dimension_count", 4},
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        if (u64)
            gb_kv_u64(b, counts[i].key, counts[i].v);
        else
            gb_kv_u32(b, counts[i].key, counts[i].v);
    }
    gb_kv_u32(b, "llama.attention.head_count_kv", 2);
    gb_kv_f32(b, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
    gb_kv_f32(b, "llama.rope.freq_base", 10000.0f);
    if (moe) {
        gb_kv_u32(b, "llama.expert_count", L_X);
        gb_kv_u32(b, "llama.expert_used_count", 1);
    }
}

/* expert tensor suffix: "exps" (llama.cpp) or "exp" (the spec's list); NULL: dense */
static void llama_tensors(gb *b, const char *experts)
{
    char gate[40], down[40], up[40];
    tdef t[16] = {
        {"token_embd.weight", 2, {L_E, L_V, 1, 1}, GB_F32},
        {"output_norm.weight", 1, {L_E, 1, 1, 1}, GB_F32},
        {"output.weight", 2, {L_E, L_V, 1, 1}, GB_F32},
        {"blk.0.attn_norm.weight", 1, {L_E, 1, 1, 1}, GB_F32},
        {"blk.0.attn_q.weight", 2, {L_E, L_E, 1, 1}, GB_F32},
        {"blk.0.attn_k.weight", 2, {L_E, L_E, 1, 1}, GB_F32},
        {"blk.0.attn_v.weight", 2, {L_E, L_E, 1, 1}, GB_F32},
        {"blk.0.attn_output.weight", 2, {L_E, L_E, 1, 1}, GB_F32},
        {"blk.0.ffn_norm.weight", 1, {L_E, 1, 1, 1}, GB_F32},
    };
    size_t n = 9;
    if (experts) {
        snprintf(gate, sizeof gate, "blk.0.ffn_gate_%s.weight", experts);
        snprintf(down, sizeof down, "blk.0.ffn_down_%s.weight", experts);
        snprintf(up, sizeof up, "blk.0.ffn_up_%s.weight", experts);
        t[n++] = (tdef){"blk.0.ffn_gate_inp.weight", 2, {L_E, L_X, 1, 1}, GB_F32};
        t[n++] = (tdef){gate, 3, {L_E, L_F, L_X, 1}, GB_F32};
        t[n++] = (tdef){down, 3, {L_F, L_E, L_X, 1}, GB_F32};
        t[n++] = (tdef){up, 3, {L_E, L_F, L_X, 1}, GB_F32};
    } else {
        t[n++] = (tdef){"blk.0.ffn_gate.weight", 2, {L_E, L_F, 1, 1}, GB_F32};
        t[n++] = (tdef){"blk.0.ffn_down.weight", 2, {L_F, L_E, 1, 1}, GB_F32};
        t[n++] = (tdef){"blk.0.ffn_up.weight", 2, {L_E, L_F, 1, 1}, GB_F32};
    }
    put_tensors(b, t, n, 32, 0);
}

/* gpt2 with the spec's position-embedding name: E 8, context 16, F 32 */
enum { G_E = 8, G_C = 16, G_F = 32, G_V = N_BPE };
static const tdef GPT2_TENSORS[] = {
    {"token_embd.weight", 2, {G_E, G_V, 1, 1}, GB_F32},
    {"pos_embd.weight", 2, {G_E, G_C, 1, 1}, GB_F32},
    {"output_norm.weight", 1, {G_E, 1, 1, 1}, GB_F32},
    {"output_norm.bias", 1, {G_E, 1, 1, 1}, GB_F32},
    {"output.weight", 2, {G_E, G_V, 1, 1}, GB_F32},
    {"blk.0.attn_norm.weight", 1, {G_E, 1, 1, 1}, GB_F32},
    {"blk.0.attn_norm.bias", 1, {G_E, 1, 1, 1}, GB_F32},
    {"blk.0.attn_qkv.weight", 2, {G_E, 3 * G_E, 1, 1}, GB_F32},
    {"blk.0.attn_qkv.bias", 1, {3 * G_E, 1, 1, 1}, GB_F32},
    {"blk.0.attn_output.weight", 2, {G_E, G_E, 1, 1}, GB_F32},
    {"blk.0.attn_output.bias", 1, {G_E, 1, 1, 1}, GB_F32},
    {"blk.0.ffn_norm.weight", 1, {G_E, 1, 1, 1}, GB_F32},
    {"blk.0.ffn_norm.bias", 1, {G_E, 1, 1, 1}, GB_F32},
    {"blk.0.ffn_up.weight", 2, {G_E, G_F, 1, 1}, GB_F32},
    {"blk.0.ffn_up.bias", 1, {G_F, 1, 1, 1}, GB_F32},
    {"blk.0.ffn_down.weight", 2, {G_F, G_E, 1, 1}, GB_F32},
    {"blk.0.ffn_down.bias", 1, {G_E, 1, 1, 1}, GB_F32},
};

/* mpt vocabulary-only files: the spec's MPT section and its generic [llm]
 * list disagree on the ALiBi / clamp key names */
#define MPT_KEYS(alibi, clamp)                                                                     \
    KVS("general.architecture", "mpt"), KVS("general.name", "conformance mpt vocabulary"),         \
        KV(GB_VT_U32, "mpt.context_length", 2048), KV(GB_VT_U32, "mpt.embedding_length", 8),       \
        KV(GB_VT_U32, "mpt.block_count", 1), KV(GB_VT_U32, "mpt.attention.head_count", 2),         \
        KVF32("mpt.attention.layer_norm_epsilon", 1e-5f), KVF32(alibi, 8.0f), KVF32(clamp, 6.0f),  \
        BPE(1)

static const fcase MODELS[] = {
    {"y_llama_tiny", ACC, ACC, ACC,
     "a complete llama model llama.cpp can load: E 8, 2 heads (head size 4 = "
     "rope.dimension_count), F 16, 1 block, u32 hyper-parameters as gguf-py writes them, the "
     "5-token llama vocabulary, every required tensor with its shape, all f32",
     .from = FROM_BARE, .ops = OPS(LLAMA_KEYS(false, false), SPM(0), LLAMA_TENSORS(NULL))},
    {"i_llama_counts_u64", ACC, REJ, REJ,
     "the tiny llama with context_length, embedding_length, block_count, "
     "feed_forward_length, head_count and rope.dimension_count as uint64, the spec's type; "
     "llama.cpp wants u32 ('key has wrong type')",
     .from = FROM_BARE, .ops = OPS(LLAMA_KEYS(true, false), SPM(0), LLAMA_TENSORS(NULL))},
    {"y_llama_rope_scale_spec_key", ACC, ACC, ACC,
     "gguflint does not flag spec-only key spellings that llama.cpp ignores (not modelled); "
     "the tiny llama with llama.rope.scale 4 (an optional key of the spec's LLaMA section): "
     "llama.cpp reads rope.scale_linear / rope.scaling.factor and ignores it, so the model "
     "loads unscaled; strict: writers write rope.scaling.type and rope.scaling.factor",
     .from = FROM_BARE,
     .ops = OPS(LLAMA_KEYS(false, false), KVF32("llama.rope.scale", 4.0f), SPM(0),
                LLAMA_TENSORS(NULL))},
    {"y_llama_moe", ACC, ACC, ACC,
     "the tiny llama as a 2-expert MoE (expert_used_count 1): ffn_gate_inp [8,2] and the "
     "merged 3-D ffn_gate_exps/ffn_down_exps/ffn_up_exps llama.cpp loads",
     .from = FROM_BARE, .ops = OPS(LLAMA_KEYS(false, true), SPM(0), LLAMA_TENSORS("exps"))},
    {"i_llama_moe_spec_expert_names", ACC, REJ, REJ,
     "the MoE llama with the spec's expert tensor names ffn_gate_exp/ffn_down_exp/ffn_up_exp "
     "(spec tensor names are a recommendation); llama.cpp wants ffn_*_exps: 'tensor not "
     "found'",
     .from = FROM_BARE, .ops = OPS(LLAMA_KEYS(false, true), SPM(0), LLAMA_TENSORS("exp"))},
    {"y_llama_vocab_only", ACC, ACC, ACC,
     "llama hyper-parameters and vocabulary, no tensors and no padding, like llama.cpp's "
     "models/ggml-vocab-*.gguf",
     .from = FROM_BARE, .ops = OPS(LLAMA_KEYS(false, false), SPM(0))},
    {"i_gpt2_spec_pos_embd_name", ACC, REJ, REJ,
     "a tiny gpt2 whose position embedding is named pos_embd.weight as in the spec's "
     "tensor-name list; llama.cpp loads position_embd.weight: 'missing tensor' "
     "(GG551) and pos_embd.weight is not a gpt2 tensor (GG552); both are warnings "
     "under spec, where tensor names are only recommended",
     .from = FROM_BARE,
     .ops = OPS(KVS("general.architecture", "gpt2"), KVS("general.name", "conformance tiny gpt2"),
                KV(GB_VT_U32, "general.file_type", 0), KV(GB_VT_U32, "gpt2.context_length", G_C),
                KV(GB_VT_U32, "gpt2.embedding_length", G_E), KV(GB_VT_U32, "gpt2.block_count", 1),
                KV(GB_VT_U32, "gpt2.feed_forward_length", G_F),
                KV(GB_VT_U32, "gpt2.attention.head_count", 2),
                KVF32("gpt2.attention.layer_norm_epsilon", 1e-5f), BPE(1),
                TENSORS(GPT2_TENSORS, sizeof GPT2_TENSORS / sizeof GPT2_TENSORS[0]))},
    {"y_mpt_vocab_spec_key_names", ACC, ACC, ACC,
     "an mpt vocabulary-only file with the keys the spec's MPT section requires, "
     "attention.alibi_bias_max and clip_kqv: llama.cpp reads max_alibi_bias / clamp_kqv as "
     "optional and ignores these (the model would load without its ALiBi bias); strict: "
     "writers write max_alibi_bias; gguflint does not model MPT's keys",
     .from = FROM_BARE,
     .ops = OPS(MPT_KEYS("mpt.attention.alibi_bias_max", "mpt.attention.clip_kqv"))},
    {"i_mpt_vocab_code_key_names", ACC, ACC, ACC,
     "an mpt vocabulary-only file with attention.max_alibi_bias and clamp_kqv, the names of "
     "llama.cpp, gguf-py and the real ggml-vocab-mpt.gguf (and of the spec's generic [llm] "
     "list), but the spec's MPT section says alibi_bias_max and clip_kqv 'must be present'; "
     "gguflint does not model MPT's keys and follows the real file",
     .from = FROM_BARE,
     .ops = OPS(MPT_KEYS("mpt.attention.max_alibi_bias", "mpt.attention.clamp_kqv"))},
};

static void cases_models(void)
{
    emit_cases(MODELS);
}

/* ------------------------------------------------------------ split shards */

static const tdef SHARD2_T = {"b.weight", 2, {8, 2, 1, 1}, GB_F32};

static const fcase SPLIT[] = {
    {"y_split-00001-of-00002", ACC, ACC, ACC,
     "first shard of a 2-file split set as gguf-split writes it: all metadata, split.no u16 "
     "0, split.count u16 2, split.tensors.count i32 2, one tensor",
     .ops = OPS(KVS("general.name", "conformance split"), KV(GB_VT_U32, "general.file_type", 0),
                KV(GB_VT_U16, "split.no", 0), KV(GB_VT_U16, "split.count", 2),
                KV(GB_VT_I32, "split.tensors.count", 2), ONE_T)},
    {"y_split-00002-of-00002", ACC, ACC, ACC,
     "second shard as gguf-split writes it: only the three split.* keys (no "
     "general.architecture: the model's metadata lives in the first shard; the spec predates "
     "split files) and one tensor with offsets from 0",
     .from = FROM_BARE,
     .ops = OPS(KV(GB_VT_U16, "split.no", 1), KV(GB_VT_U16, "split.count", 2),
                KV(GB_VT_I32, "split.tensors.count", 2), TENSORS(&SHARD2_T, 1))},
    {"i_split_no_out_of_range-00003-of-00002", ACC, REJ, REJ,
     "split.no 2 with split.count 2: the split.* keys are llama.cpp's (the spec leaves them "
     "free); llama.cpp rejects a shard number past the count",
     .ops = OPS(KV(GB_VT_U16, "split.no", 2), KV(GB_VT_U16, "split.count", 2),
                KV(GB_VT_I32, "split.tensors.count", 2), ONE_T)},
    {"i_split_keys_u32-00001-of-00002", ACC, REJ, REJ,
     "split.no and split.count as u32 instead of u16: free to the spec; llama.cpp's typed "
     "read fails (its unchecked getter aborts on later shards)",
     .ops = OPS(KV(GB_VT_U32, "split.no", 0), KV(GB_VT_U32, "split.count", 2),
                KV(GB_VT_I32, "split.tensors.count", 2), ONE_T)},
};

static void cases_split(void)
{
    emit_cases(SPLIT);
}

/* ------------------------------------------------------------ output */

static const char *verdict(int v)
{
    return v == ACC ? "accept" : "reject";
}

/* OUTDIR/file for writing text, or NULL (counted as a failure). */
static FILE *out_open(const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, file);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gen_conformance: cannot write %s: %s\n", path, strerror(errno));
        failures++;
    }
    return f;
}

static void out_close(FILE *f, const char *file)
{
    if (fclose(f) != 0) {
        fprintf(stderr, "gen_conformance: cannot write %s/%s\n", outdir, file);
        failures++;
    }
}

static void write_manifest(void)
{
    FILE *f = out_open("MANIFEST.tsv");
    if (!f)
        return;
    fprintf(f, "file\tcategory\tdescription\tspec\tggml\tstrict\n");
    for (size_t i = 0; i < n_entries; i++) {
        const entry *e = &entries[i];
        fprintf(f, "%s\t%c\t%s\t%s\t%s\t%s\n", e->file, e->cat, e->desc, verdict(e->v[0]),
                verdict(e->v[1]), verdict(e->v[2]));
    }
    out_close(f, "MANIFEST.tsv");
}

static void write_readme(void)
{
    size_t count[3] = {0, 0, 0};
    for (size_t i = 0; i < n_entries; i++)
        count[entries[i].cat == 'y' ? 0 : entries[i].cat == 'n' ? 1 : 2]++;
    FILE *f = out_open("README.md");
    if (!f)
        return;
    fprintf(
        f,
        "# GGUF conformance suite\n"
        "\n"
        "Small GGUF files any reader can be tested with, in the spirit of JSONTestSuite.\n"
        "Written by `tests/tools/gen_conformance.c`; do not edit by hand. Regenerate from\n"
        "the source root (delete this folder first when a file was renamed or removed):\n"
        "\n"
        "    cmake --build build-dev --target gen_conformance && "
        "build-dev/tests/gen_conformance corpus/conformance\n"
        "\n"
        "| prefix | files | meaning |\n"
        "| --- | --- | --- |\n"
        "| `y_` | %zu | every reader must accept it: docs/gguf.md and ggml/llama.cpp both do |\n"
        "| `n_` | %zu | every reader must reject it: both do |\n"
        "| `i_` | %zu | implementation-defined: the spec allows it and ggml rejects it, or the "
        "other way round (or readers accept it but read it differently) |\n"
        "\n"
        "`MANIFEST.tsv` has one line per file (after a header line): file, category, a\n"
        "description with the reason for each verdict, and the expected verdict\n"
        "(`accept` / `reject`) under three profiles:\n"
        "\n"
        "* **spec**: what docs/gguf.md permits. A violated \"must\" (or \"invalid\") rejects;\n"
        "  a \"should\" or a recommendation does not. Keys the spec does not define (split.*,\n"
        "  most tokenizer details) are free.\n"
        "* **ggml**: what ggml's reader (`gguf_init_from_file`, Aug 2026) accepts, plus the\n"
        "  checks llama.cpp's loader makes on what it reads: general.architecture present,\n"
        "  typed reads of the keys it uses, the tokenizer, split keys, each tensor's data\n"
        "  inside the file, and the hyper-parameters and tensor set of the architectures\n"
        "  it implements. Whether llama.cpp implements the architecture is out of scope:\n"
        "  most files use the made-up architecture `conformance`.\n"
        "* **strict**: the canonical output of a good writer (gguf-py, the ggml writer,\n"
        "  llama-quantize, gguf-split). It rejects whatever spec or ggml rejects, and what\n"
        "  such a writer never produces (v2, trailing bytes, non-zero padding, an empty\n"
        "  tensor, ...).\n"
        "\n"
        "The verdicts were decided from the facts (the spec text, ggml's and llama.cpp's\n"
        "code, gguf-py), not by running any linter. A reader is tested with\n"
        "`ci/conformance.sh --reader 'COMMAND {}'` (exit status 0 = accepted); without\n"
        "`--reader` the script holds gguflint to the manifest under every profile (a file\n"
        "is accepted when gguflint reports no error).\n",
        count[0], count[1], count[2]);
    out_close(f, "README.md");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_conformance OUTDIR\n");
        return 2;
    }
    outdir = argv[1];
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "gen_conformance: cannot create %s: %s\n", outdir, strerror(errno));
        return 1;
    }
    cases_container();
    cases_truncated();
    cases_values();
    cases_keys();
    cases_alignment();
    cases_alignment_bad();
    cases_layout();
    cases_types();
    cases_shapes();
    cases_general();
    cases_tokenizer();
    cases_models();
    cases_split();
    write_manifest();
    write_readme();
    if (failures) {
        fprintf(stderr, "gen_conformance: %d failures\n", failures);
        return 1;
    }
    return 0;
}
