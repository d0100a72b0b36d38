/* check_arch_asserts.c - GG533: hyper-parameter values that llama.cpp's
 * per-architecture loader code asserts on or divides by (the table
 * data/arch/hparam_asserts.def). A condition is a postfix formula over the
 * loader's symbols and the file's keys; it is translated into arch_eval's
 * form (symbols by index, keys by their value) and evaluated once per file.
 * Nothing is reported on a condition the file does not decide. */
#include <stdio.h>
#include <string.h>

#include "checks/arch_check.h"
#include "core/internal.h"

typedef struct hparam_assert {
    const char *arch, *key, *cond, *effect;
} hparam_assert;

static const hparam_assert asserts[] = {
#define HPARAM_ASSERT(arch, key, cond, effect) {arch, key, cond, effect},
#include "../../data/arch/hparam_asserts.def"
#undef HPARAM_ASSERT
};

/* The symbol named by the n bytes at p, or -1. */
static int sym_index(const char *p, size_t n)
{
    for (size_t i = 0; i < arch_sym_count && i < ARCH_MAX_SYMS; i++) {
        const char *name = arch_str(arch_syms[i].name);
        if (strlen(name) == n && memcmp(name, p, n) == 0)
            return (int)i;
    }
    return -1;
}

/* rpn rewritten into out: a symbol becomes #N, K:suffix the key's value
 * (U when the file has no readable non-negative integer there). False when
 * the row names something the tables do not know (a table error: the row
 * is skipped, and tests/test_arch_asserts.c fails on it). */
bool arch_assert_translate(const arch_file *f, const char *rpn, char *out, size_t cap)
{
    size_t o = 0;
    const char *p = rpn;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t n = strcspn(p, " ");
        char tok[96];
        int w;
        if (n > 2 && p[0] == 'K' && p[1] == ':') {
            char suffix[96];
            int64_t v;
            if (n - 2 >= sizeof suffix)
                return false;
            memcpy(suffix, p + 2, n - 2);
            suffix[n - 2] = '\0';
            const gguflint_kv *kv =
                f ? kv_by_arch_key(f->ctx, f->arch, strlen(f->arch), suffix) : NULL;
            if (kv && kv_int(kv, &v) && v >= 0)
                w = snprintf(tok, sizeof tok, "%lld", (long long)v);
            else
                w = snprintf(tok, sizeof tok, "U");
        } else if ((p[0] >= 'a' && p[0] <= 'z') || p[0] == '_') {
            int s = sym_index(p, n);
            if (s < 0)
                return false;
            w = snprintf(tok, sizeof tok, "#%d", s);
        } else {
            if (n >= sizeof tok)
                return false;
            memcpy(tok, p, n);
            tok[n] = '\0';
            w = (int)n;
        }
        if (w < 0 || o + (size_t)w + 2 > cap)
            return false;
        if (o)
            out[o++] = ' ';
        memcpy(out + o, tok, (size_t)w);
        o += (size_t)w;
        p += n;
    }
    out[o] = '\0';
    return o > 0;
}

size_t arch_assert_count(void)
{
    return sizeof asserts / sizeof asserts[0];
}

const char *arch_assert_arch(size_t i)
{
    return i < arch_assert_count() ? asserts[i].arch : NULL;
}

void arch_check_asserts(const arch_file *f, arch_env *env)
{
    gguflint_ctx *ctx = f->ctx;
    for (size_t i = 0; i < arch_assert_count() && ctx->status == GGUFLINT_OK; i++) {
        const hparam_assert *a = &asserts[i];
        if (strcmp(a->arch, "*") != 0 && strcmp(a->arch, f->arch) != 0)
            continue;
        char rpn[256];
        if (!arch_assert_translate(f, a->cond, rpn, sizeof rpn))
            continue;
        arch_val r = arch_eval(env, rpn, 0, 1);
        if (!r.known || r.v)
            continue;
        if (!arch_keep(ctx, R_HPARAM_ASSERT))
            continue;
        const gguflint_kv *kv = kv_by_arch_key(ctx, f->arch, strlen(f->arch), a->key);
        char path[192];
        int64_t v = 0;
        if (kv) {
            kv_path(path, sizeof path, kv);
            if (kv_int(kv, &v))
                emit(ctx, R_HPARAM_ASSERT, kv->value_offset, kv->value_size, path,
                     "%s.%s is %lld: %s", f->arch, a->key, (long long)v, a->effect);
            else
                emit(ctx, R_HPARAM_ASSERT, kv->value_offset, kv->value_size, path, "%s.%s: %s",
                     f->arch, a->key, a->effect);
        } else {
            emit(ctx, R_HPARAM_ASSERT, f->arch_kv->value_offset, f->arch_kv->value_size,
                 f->arch_path, "%s.%s is absent and its default fails the check: %s", f->arch,
                 a->key, a->effect);
        }
    }
}
