/* filetypes.c - the llama_ftype table and the quantizer's tensor rules, see
 * filetypes.h. Sources: docs/FORMAT.md section 4 (values, statuses,
 * default types, display names; 38-41 from newer headers) and 4.1, and
 * llama.cpp src/llama-quant.cpp (2026): llama_tensor_get_type_impl gives the
 * per-role types below, taken as the union over every branch (GQA >= 4,
 * 8-expert models, 70B models, Falcon, with and without an imatrix, layer
 * position) so that any file the quantizer could write is accepted; the Feb
 * 2025 attn_qkv rules are kept as well. */
#include "format/filetypes.h"

#include "format/types.h"

#include <string.h>

bool ggt_quantized(uint32_t type)
{
    const ggml_type_info *ti = gt_info(type);
    return ti->status == GT_VALID && ti->block > 1;
}

/* Short names for the table. */
/* clang-format off: initialiser macros, aligned as a table */
#define Q8 TS(GGT_Q8_0)
#define Q3K TS(GGT_Q3_K)
#define Q4K TS(GGT_Q4_K)
#define Q5K TS(GGT_Q5_K)
#define Q6K TS(GGT_Q6_K)
#define Q2K TS(GGT_Q2_K)
#define F32 TS(GGT_F32)

/* Per-role extras: V (attn_v/qkv/kv_b), K, Q, O (attn_output), D (ffn_down),
 * G (ffn_gate/up), X (other). */
#define MIX(v, k, q, o, d, g)                                                                      \
    {                                                                                              \
        [FTR_ATTN_V] = (v), [FTR_ATTN_K] = (k), [FTR_ATTN_Q] = (q), [FTR_ATTN_OUTPUT] = (o),       \
        [FTR_FFN_DOWN] = (d), [FTR_FFN_GATE_UP] = (g), [FTR_OTHER] = 0                             \
    }
/* Float file types: the converter keeps some 2-D tensors in F32. */
#define FLOATMIX                                                                                   \
    {                                                                                              \
        F32, F32, F32, F32, F32, F32, F32                                                          \
    }
#define NOMIX                                                                                      \
    {                                                                                              \
        0, 0, 0, 0, 0, 0, 0                                                                        \
    }
/* Legacy and other block types: only the 8-expert attn_v/attn_k bump to Q8_0. */
#define EXPMIX MIX(Q8, Q8, 0, 0, 0, 0)
/* IQ1/IQ2 family (IQ2_XXS, IQ2_XS, IQ1_S, IQ1_M). */
#define IQ2MIX(o_extra) MIX(Q4K | Q2K, Q4K, 0, Q5K | (o_extra), Q2K, 0)
/* IQ2_S / IQ2_M. */
#define IQ2SMIX MIX(Q4K | TS(GGT_IQ3_S), Q4K, 0, Q5K | TS(GGT_IQ3_S), TS(GGT_IQ3_S), 0)

#define NONE UINT32_MAX
#define CUR(v, n, d, t, mix)                                                                       \
    {                                                                                              \
        v, FT_CURRENT, n, d, t, false, mix                                                         \
    }
#define REM(v, n, d)                                                                               \
    {                                                                                              \
        v, FT_REMOVED, n, d, NONE, false, NOMIX                                                    \
    }
/* clang-format on */

static const ftype_info ftypes[] = {
    CUR(0, "ALL_F32", "all F32", GGT_F32, NOMIX),
    CUR(1, "MOSTLY_F16", "F16", GGT_F16, FLOATMIX),
    CUR(2, "MOSTLY_Q4_0", "Q4_0", GGT_Q4_0, MIX(Q8, Q8, 0, 0, TS(GGT_Q4_1), 0)),
    CUR(3, "MOSTLY_Q4_1", "Q4_1", GGT_Q4_1, EXPMIX),
    REM(4, "MOSTLY_Q4_1_SOME_F16", "Q4_1, some F16"),
    REM(5, "MOSTLY_Q4_2", "Q4_2"),
    REM(6, "MOSTLY_Q4_3", "Q4_3"),
    CUR(7, "MOSTLY_Q8_0", "Q8_0", GGT_Q8_0, EXPMIX),
    CUR(8, "MOSTLY_Q5_0", "Q5_0", GGT_Q5_0, MIX(Q8, Q8, 0, 0, TS(GGT_Q5_1), 0)),
    CUR(9, "MOSTLY_Q5_1", "Q5_1", GGT_Q5_1, EXPMIX),
    CUR(10, "MOSTLY_Q2_K", "Q2_K - Medium", GGT_Q2_K,
        MIX(Q3K | Q4K | Q5K | Q8, Q8, 0, Q3K | Q5K, Q3K, 0)),
    CUR(11, "MOSTLY_Q3_K_S", "Q3_K - Small", GGT_Q3_K, MIX(Q5K | Q8, Q8, 0, Q5K, 0, 0)),
    CUR(12, "MOSTLY_Q3_K_M", "Q3_K - Medium", GGT_Q3_K,
        MIX(Q4K | Q5K | Q8, Q8, 0, Q4K | Q5K, Q4K | Q5K, 0)),
    CUR(13, "MOSTLY_Q3_K_L", "Q3_K - Large", GGT_Q3_K,
        MIX(Q4K | Q5K | Q8, Q8, 0, Q4K | Q5K, Q4K | Q5K, 0)),
    CUR(14, "MOSTLY_Q4_K_S", "Q4_K - Small", GGT_Q4_K, MIX(Q5K | Q8, Q8, 0, Q5K, Q5K, 0)),
    CUR(15, "MOSTLY_Q4_K_M", "Q4_K - Medium", GGT_Q4_K,
        MIX(Q5K | Q6K | Q8, Q8, 0, Q5K, Q5K | Q6K, 0)),
    CUR(16, "MOSTLY_Q5_K_S", "Q5_K - Small", GGT_Q5_K, EXPMIX),
    CUR(17, "MOSTLY_Q5_K_M", "Q5_K - Medium", GGT_Q5_K, MIX(Q6K | Q8, Q8, 0, 0, Q6K, 0)),
    CUR(18, "MOSTLY_Q6_K", "Q6_K", GGT_Q6_K, EXPMIX),
    CUR(19, "MOSTLY_IQ2_XXS", "IQ2_XXS - 2.0625 bpw", GGT_IQ2_XXS, IQ2MIX(0)),
    CUR(20, "MOSTLY_IQ2_XS", "IQ2_XS - 2.3125 bpw", GGT_IQ2_XS, IQ2MIX(0)),
    CUR(21, "MOSTLY_Q2_K_S", "Q2_K - Small", GGT_Q2_K, MIX(Q4K | Q5K | Q8, Q8, 0, 0, Q4K, 0)),
    CUR(22, "MOSTLY_IQ3_XS", "IQ3_XS - 3.3 bpw", GGT_IQ3_S,
        MIX(Q4K | Q5K | Q8, Q8 | TS(GGT_IQ3_XXS), TS(GGT_IQ3_XXS), Q5K, 0, TS(GGT_IQ3_XXS))),
    CUR(23, "MOSTLY_IQ3_XXS", "IQ3_XXS - 3.0625 bpw", GGT_IQ3_XXS,
        MIX(Q4K | Q5K | Q8 | TS(GGT_IQ3_S), Q8 | TS(GGT_IQ2_S), TS(GGT_IQ2_S), Q5K | TS(GGT_IQ3_S),
            Q3K | Q4K, 0)),
    CUR(24, "MOSTLY_IQ1_S", "IQ1_S - 1.5625 bpw", GGT_IQ1_S, IQ2MIX(TS(GGT_IQ2_XXS))),
    CUR(25, "MOSTLY_IQ4_NL", "IQ4_NL - 4.5 bpw", GGT_IQ4_NL, MIX(Q5K | Q8, Q8, 0, Q5K, Q5K, 0)),
    CUR(26, "MOSTLY_IQ3_S", "IQ3_S - 3.4375 bpw", GGT_IQ3_S, MIX(Q4K | Q5K | Q8, Q8, 0, Q5K, 0, 0)),
    CUR(27, "MOSTLY_IQ3_M", "IQ3_S mix - 3.66 bpw", GGT_IQ3_S,
        MIX(Q4K | Q5K | Q8, Q8, 0, Q4K | Q5K, Q4K, 0)),
    CUR(28, "MOSTLY_IQ2_S", "IQ2_S - 2.5 bpw", GGT_IQ2_XS, IQ2SMIX),
    CUR(29, "MOSTLY_IQ2_M", "IQ2_M - 2.7 bpw", GGT_IQ2_S, IQ2SMIX),
    CUR(30, "MOSTLY_IQ4_XS", "IQ4_XS - 4.25 bpw", GGT_IQ4_XS, MIX(Q5K | Q8, Q8, 0, Q5K, Q5K, 0)),
    CUR(31, "MOSTLY_IQ1_M", "IQ1_M - 1.75 bpw", GGT_IQ1_M, IQ2MIX(TS(GGT_IQ2_XXS))),
    CUR(32, "MOSTLY_BF16", "BF16", GGT_BF16, FLOATMIX),
    REM(33, "MOSTLY_Q4_0_4_4", "Q4_0_4_4"),
    REM(34, "MOSTLY_Q4_0_4_8", "Q4_0_4_8"),
    REM(35, "MOSTLY_Q4_0_8_8", "Q4_0_8_8"),
    CUR(36, "MOSTLY_TQ1_0", "TQ1_0 - 1.69 bpw ternary", GGT_TQ1_0, NOMIX),
    CUR(37, "MOSTLY_TQ2_0", "TQ2_0 - 2.06 bpw ternary", GGT_TQ2_0, NOMIX),
    {38, FT_CURRENT, "MOSTLY_MXFP4_MOE", "MXFP4 MoE", GGT_MXFP4, true, NOMIX},
    CUR(39, "MOSTLY_NVFP4", "NVFP4", GGT_NVFP4, EXPMIX),
    CUR(40, "MOSTLY_Q1_0", "Q1_0", GGT_Q1_0, EXPMIX),
    CUR(41, "MOSTLY_Q2_0", "Q2_0", GGT_Q2_0, EXPMIX),
};
#define FT_COUNT (sizeof ftypes / sizeof ftypes[0])

const ftype_info *ft_info(uint32_t value)
{
    /* the table is indexed by value */
    return value < FT_COUNT && ftypes[value].value == value ? &ftypes[value] : NULL;
}

/* llama_model_loader's guess from the most frequent tensor type. */
static const struct {
    uint32_t type, ftype;
} guesses[] = {
    {GGT_F32, 0},      {GGT_F16, 1},     {GGT_BF16, 32},   {GGT_Q4_0, 2},     {GGT_Q4_1, 3},
    {GGT_Q5_0, 8},     {GGT_Q5_1, 9},    {GGT_Q8_0, 7},    {GGT_Q2_K, 10},    {GGT_Q3_K, 12},
    {GGT_Q4_K, 15},    {GGT_Q5_K, 17},   {GGT_Q6_K, 18},   {GGT_TQ1_0, 36},   {GGT_TQ2_0, 37},
    {GGT_IQ2_XXS, 19}, {GGT_IQ2_XS, 20}, {GGT_IQ2_S, 28},  {GGT_IQ3_XXS, 23}, {GGT_IQ1_S, 24},
    {GGT_IQ1_M, 31},   {GGT_IQ4_NL, 25}, {GGT_IQ4_XS, 30}, {GGT_IQ3_S, 26},   {GGT_MXFP4, 38},
};

const ftype_info *ft_guess(uint32_t type)
{
    for (size_t i = 0; i < sizeof guesses / sizeof guesses[0]; i++)
        if (guesses[i].type == type)
            return ft_info(guesses[i].ftype);
    return NULL;
}

unsigned ft_eff_dims(const uint64_t ne[4])
{
    unsigned n = 1;
    for (unsigned j = 1; j < 4; j++)
        if (ne[j] > 1)
            n = j + 1;
    return n;
}

/* A literal with its length, so that lookups do not strlen per tensor. */
typedef struct lit {
    const char *s;
    size_t n;
} lit;
/* clang-format off: an initialiser macro */
#define L(x)                                                                                       \
    {                                                                                              \
        x, sizeof(x) - 1                                                                           \
    }
/* clang-format on */

static bool has(const uint8_t *s, size_t n, lit needle)
{
    if (needle.n > n)
        return false;
    const uint8_t *p = s, *last = s + (n - needle.n);
    while (p <= last && (p = memchr(p, needle.s[0], (size_t)(last - p) + 1)) != NULL) {
        if (memcmp(p, needle.s, needle.n) == 0)
            return true;
        p++;
    }
    return false;
}

static bool eq(const uint8_t *s, size_t n, lit l)
{
    return n == l.n && memcmp(s, l.s, l.n) == 0;
}

/* Substrings of names llama-quantize never quantizes (tensor_allows_quantization).
 * Those sharing a prefix are grouped under it (keep_groups): a name without
 * the prefix holds none of them, so most names cost one test per group. */
static const lit keep_substr[] = {
    L("_norm.weight"),
    L("ffn_gate_inp.weight"),
    L("ffn_gate_tid2eid.weight"),
    L("altup"),
    L("laurel"),
    L("per_layer_model_proj"),
    L("ssm_conv1d"),
    L("shortconv.conv.weight"),
    L("attn_rel_b.weight"),
    L(".position_embd"),
    L(".rel_pos"),
    L(".patch_embd"),
    L(".patch_merger"),
    L("a.rvq.codebook"),
    L("mm.a.code_embd"),
};
static const lit keep_indexer[] = {
    L("indexer.k_proj.weight"),
    L("indexer.q_proj.weight"),
};
static const lit keep_time_mix[] = {
    L("time_mix_first.weight"),    L("time_mix_w0.weight"),       L("time_mix_w1.weight"),
    L("time_mix_w2.weight"),       L("time_mix_v0.weight"),       L("time_mix_v1.weight"),
    L("time_mix_v2.weight"),       L("time_mix_a0.weight"),       L("time_mix_a1.weight"),
    L("time_mix_a2.weight"),       L("time_mix_g1.weight"),       L("time_mix_g2.weight"),
    L("time_mix_decay_w1.weight"), L("time_mix_decay_w2.weight"), L("time_mix_lerp_fused.weight"),
};
static const lit keep_sam[] = {
    L("sam.pos_embd"),
    L("sam.neck."),
    L("sam.net_"),
};
typedef struct lit_group {
    lit prefix;
    const lit *v;
    size_t n;
} lit_group;
static const lit_group keep_groups[] = {
    {L("indexer."), keep_indexer, sizeof keep_indexer / sizeof keep_indexer[0]},
    {L("time_mix_"), keep_time_mix, sizeof keep_time_mix / sizeof keep_time_mix[0]},
    {L("sam."), keep_sam, sizeof keep_sam / sizeof keep_sam[0]},
};

/* Name tests against literals (inside functions with `name` and `len`). */
#define HAS(x) has(name, len, (lit)L(x))
#define IS(x) eq(name, len, (lit)L(x))

/* The byte pairs of a name as a 256-bit set (hashed): a needle whose first
 * or last pair is missing from it cannot occur in it, so most of the
 * substring searches below are one bit test each (this runs per tensor). */
typedef struct pairset {
    uint64_t w[4];
} pairset;

static unsigned pair_bit(uint8_t a, uint8_t b)
{
    return ((unsigned)a * 31u + b) & 255u;
}

static bool pair_in(const pairset *ps, uint8_t a, uint8_t b)
{
    unsigned k = pair_bit(a, b);
    return (ps->w[k >> 6] >> (k & 63)) & 1;
}

static bool may_have(const pairset *ps, lit l)
{
    const uint8_t *s = (const uint8_t *)l.s;
    /* the first, a middle and the last pair: the last is often "ht" of
     * ".weight", which every candidate name has */
    return l.n < 2 || (pair_in(ps, s[0], s[1]) && pair_in(ps, s[l.n / 2 - 1], s[l.n / 2]) &&
                       pair_in(ps, s[l.n - 2], s[l.n - 1]));
}

bool ft_quantizable(const uint8_t *name, size_t len, unsigned eff_dims)
{
    if (eff_dims < 2 || len < 6 || memcmp(name + len - 6, "weight", 6) != 0)
        return false;
    if (IS("position_embd.weight") || IS("token_types.weight"))
        return false;
    pairset ps = {{0, 0, 0, 0}};
    for (size_t i = 0; i + 1 < len; i++) {
        unsigned k = pair_bit(name[i], name[i + 1]);
        ps.w[k >> 6] |= 1ull << (k & 63);
    }
    for (size_t i = 0; i < sizeof keep_substr / sizeof keep_substr[0]; i++)
        if (may_have(&ps, keep_substr[i]) && has(name, len, keep_substr[i]))
            return false;
    for (size_t g = 0; g < sizeof keep_groups / sizeof keep_groups[0]; g++) {
        const lit_group *k = &keep_groups[g];
        if (!may_have(&ps, k->prefix) || !has(name, len, k->prefix))
            continue;
        for (size_t i = 0; i < k->n; i++)
            if (may_have(&ps, k->v[i]) && has(name, len, k->v[i]))
                return false;
    }
    return true;
}

ft_role ft_role_of(const uint8_t *name, size_t len, bool has_output)
{
    if (IS("output.weight"))
        return FTR_OUTPUT;
    if (IS("token_embd.weight") || IS("per_layer_token_embd.weight"))
        return has_output || !IS("token_embd.weight") ? FTR_TOKEN_EMBD : FTR_OUTPUT;
    if (HAS("attn_qkv.weight") || HAS("attn_kv_b.weight") || HAS("attn_v.weight"))
        return FTR_ATTN_V;
    if (HAS("attn_k.weight"))
        return FTR_ATTN_K;
    if (HAS("attn_q.weight"))
        return FTR_ATTN_Q;
    if (HAS("attn_output.weight"))
        return FTR_ATTN_OUTPUT;
    if (HAS("ffn_up") || HAS("ffn_gate"))
        return FTR_FFN_GATE_UP;
    if (HAS("ffn_down"))
        return FTR_FFN_DOWN;
    return FTR_OTHER;
}

/* tensor_type_fallback: the types used when ne0 is not a multiple of the
 * block size (2026 code, and IQ4_NL for Q2_K/Q3_K as in Feb 2025). */
static typeset fallback(uint32_t t)
{
    switch (t) {
    case GGT_IQ1_S:
    case GGT_IQ1_M:
    case GGT_IQ2_XXS:
    case GGT_IQ2_XS:
    case GGT_IQ2_S:
    case GGT_IQ3_XXS:
    case GGT_IQ3_S:
    case GGT_IQ4_XS: return TS(GGT_IQ4_NL);
    case GGT_Q2_K:
    case GGT_Q3_K: return TS(GGT_Q4_0) | TS(GGT_IQ4_NL);
    case GGT_Q2_0:
    case GGT_TQ1_0:
    case GGT_TQ2_0: return TS(GGT_Q4_0);
    case GGT_Q4_K: return TS(GGT_Q5_0);
    case GGT_Q5_K: return TS(GGT_Q5_1);
    case GGT_Q6_K: return TS(GGT_Q8_0);
    default: return 0;
    }
}

typeset ft_allowed(const ftype_info *ft, ft_role role, uint64_t ne0, uint64_t ne2)
{
    if (!ft || ft->status != FT_CURRENT || role >= FTR__MIXED)
        return ~(typeset)0;
    typeset set;
    if (ft->mxfp4_moe) /* quantize: MXFP4 on 3-D experts, Q8_0 elsewhere; converters of
                        * native MXFP4 checkpoints keep dense tensors in floats or MXFP4 */
        set = ne2 > 1 ? TS(GGT_MXFP4) | Q8 : TS(GGT_MXFP4) | Q8 | TS_FLOATS;
    else
        set = TS(ft->default_type) | ft->extra[role];
    if (ne0 % 256 == 0) /* a multiple of every block size: no fallback */
        return set;
    typeset out = set;
    for (uint32_t t = 0; t < 64; t++) {
        if (!(set & TS(t)))
            continue;
        const ggml_type_info *ti = gt_info(t);
        if (ti->status != GT_VALID || ti->block <= 1 || ne0 % ti->block == 0)
            continue;
        typeset fb = fallback(t);
        out |= fb;
        bool fits = false;
        for (uint32_t u = 0; u < 64; u++)
            if ((fb & TS(u)) && ne0 % gt_info(u)->block == 0)
                fits = true;
        if (!fits) /* "must use F16 due to unusual shape" (converters: F16 or F32) */
            out |= TS_FLOATS;
    }
    return out;
}

/* ---- file-name tags ---- */

#define B(v) ((uint64_t)1 << (v))
static const ftype_tag tags[] = {
    {"F32", B(0)},
    {"FP32", B(0)},
    {"F16", B(1)},
    {"FP16", B(1)},
    {"BF16", B(32)},
    {"Q4_0", B(2)},
    {"Q4_1", B(3)},
    {"Q8_0", B(7)},
    {"Q5_0", B(8)},
    {"Q5_1", B(9)},
    {"Q2_K", B(10) | B(21)},
    {"Q2_K_S", B(21)},
    {"Q2_K_M", B(10)},
    {"Q3_K", B(11) | B(12) | B(13)},
    {"Q3_K_S", B(11)},
    {"Q3_K_M", B(12)},
    {"Q3_K_L", B(13)},
    {"Q4_K", B(14) | B(15)},
    {"Q4_K_S", B(14)},
    {"Q4_K_M", B(15)},
    {"Q5_K", B(16) | B(17)},
    {"Q5_K_S", B(16)},
    {"Q5_K_M", B(17)},
    {"Q6_K", B(18)},
    {"IQ2_XXS", B(19)},
    {"IQ2_XS", B(20)},
    {"IQ3_XS", B(22)},
    {"IQ3_XXS", B(23)},
    {"IQ1_S", B(24)},
    {"IQ4_NL", B(25)},
    {"IQ3_S", B(26)},
    {"IQ3_M", B(27)},
    {"IQ2_S", B(28) | B(29)},
    {"IQ2_M", B(29)},
    {"IQ4_XS", B(30)},
    {"IQ1_M", B(31)},
    {"Q4_0_4_4", B(33)},
    {"Q4_0_4_8", B(34)},
    {"Q4_0_8_8", B(35)},
    {"TQ1_0", B(36)},
    {"TQ2_0", B(37)},
    {"MXFP4", B(38)},
    {"MXFP4_MOE", B(38)},
    {"NVFP4", B(39)},
    {"Q1_0", B(40)},
    {"Q2_0", B(41)},
};
#undef B
/* IQ2_S also names the ggml type that is the default of IQ2_M (29). */

static char ascii_upper(unsigned char c)
{
    return (char)(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
}

static bool alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

const ftype_tag *ft_tag_in_name(const char *name, size_t *at, size_t *len)
{
    if (!name)
        return NULL;
    size_t start = 0, n = strlen(name);
    for (size_t i = 0; i < n; i++)
        if (name[i] == '/' || name[i] == '\\')
            start = i + 1;
    const ftype_tag *best = NULL;
    for (size_t i = start; i < n; i++) {
        if (i > start && alnum((unsigned char)name[i - 1]))
            continue;
        /* the longest tag that matches here with a delimiter after it */
        const ftype_tag *here = NULL;
        size_t here_len = 0;
        char first = ascii_upper((unsigned char)name[i]);
        for (size_t k = 0; k < sizeof tags / sizeof tags[0]; k++) {
            if (tags[k].tag[0] != first)
                continue; /* most tags, before measuring them (every file of a -r
                           * scan comes here twice) */
            size_t m = strlen(tags[k].tag);
            if (m <= here_len || m > n - i)
                continue;
            size_t j = 0;
            while (j < m && ascii_upper((unsigned char)name[i + j]) == tags[k].tag[j])
                j++;
            if (j < m)
                continue;
            unsigned char after = (unsigned char)name[i + m];
            if (i + m < n && (alnum(after) || after == '_'))
                continue;
            here = &tags[k];
            here_len = m;
        }
        if (here) {
            best = here;
            *at = i;
            *len = here_len;
        }
    }
    return best;
}
