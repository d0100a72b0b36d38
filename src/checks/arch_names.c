/* arch_names.c - see arch_names.h. */
#include "checks/arch_names.h"
#include "checks/checks.h"
#include "model/arch_tables.h"
#include "model/model.h"

#include <stdio.h>
#include <string.h>

static uint8_t fold(uint8_t c)
{
    return c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : c;
}

static bool is_digit(uint8_t c)
{
    return c >= '0' && c <= '9';
}

/* How name[0..len) relates to the known name k[0..klen) (case ignored):
 * NEAR_CASE when equal, NEAR_DIGIT / NEAR_EDIT when one edit apart, else
 * NEAR_NONE. One pass over the shorter string. */
static int relate(const uint8_t *name, size_t len, const uint8_t *k, size_t klen)
{
    size_t shorter = len < klen ? len : klen, i = 0;
    while (i < shorter && fold(name[i]) == k[i])
        i++;
    if (len == klen) {
        if (i == len)
            return NEAR_CASE;
        /* one substitution at i */
        for (size_t j = i + 1; j < len; j++)
            if (fold(name[j]) != k[j])
                return NEAR_NONE;
        return is_digit(name[i]) && is_digit(k[i]) ? NEAR_DIGIT : NEAR_EDIT;
    }
    /* one byte inserted (name longer) or deleted (name shorter) at i */
    const uint8_t *lng = len > klen ? name : k;
    const uint8_t *sht = len > klen ? k : name;
    size_t n = len > klen ? klen : len;
    for (size_t j = i; j < n; j++)
        if (fold(lng[j + 1]) != fold(sht[j]))
            return NEAR_NONE;
    return is_digit(lng[i]) ? NEAR_DIGIT : NEAR_EDIT;
}

void arch_near_names(const uint8_t *name, size_t len, arch_near *out)
{
    memset(out, 0, sizeof *out);
    if (len == 0 || len > ARCH_NEAR_LEN_MAX)
        return;
    for (size_t i = 0; i < arch_info_count; i++) {
        const arch_info *a = &arch_infos[i];
        size_t klen = a->name_len;
        if (klen + 1 < len || len + 1 < klen)
            continue;
        int kind = relate(name, len, (const uint8_t *)arch_str(a->name), klen);
        if (kind == NEAR_NONE || kind < out->kind)
            continue;
        if (kind > out->kind) {
            out->kind = kind;
            out->count = 0;
        }
        if (out->count < ARCH_NEAR_KEEP)
            out->names[out->count] = a;
        out->count++;
    }
}

void arch_near_list(const arch_near *near, char *buf, size_t cap)
{
    size_t kept = near->count < ARCH_NEAR_KEEP ? near->count : ARCH_NEAR_KEEP, used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < kept; i++) {
        const char *sep = i == 0 ? "" : i + 1 == kept && near->count == kept ? " or " : ", ";
        int n = snprintf(buf + used, cap - used, "%s'%s'", sep, arch_str(near->names[i]->name));
        if (n < 0 || (size_t)n >= cap - used)
            return;
        used += (size_t)n;
    }
    if (near->count > kept)
        snprintf(buf + used, cap - used, " (and %zu more)", near->count - kept);
}

/* An architecture name the tables do not know: a case variant or a
 * one-letter slip of a known name is GG516, anything else the GG540 note
 * (with the nearest name when only a digit differs). */
void arch_check_unknown(gguflint_ctx *ctx, const gguflint_kv *akv, size_t vis, const char *path)
{
    char shown[160], names[160];
    esc_fixed(shown, sizeof shown, akv->str.ptr, vis, 100);
    arch_near near;
    arch_near_names(akv->str.ptr, vis, &near);
    arch_near_list(&near, names, sizeof names);
    if (near.kind == NEAR_CASE || near.kind == NEAR_EDIT) {
        emit(ctx, R_ARCH_MISSPELLED, akv->value_offset, akv->value_size, path,
             "architecture '%s' is not one llama.cpp knows but %s: did you mean %s? llama.cpp "
             "compares the name exactly and refuses the model (\"unknown model architecture\")",
             shown,
             near.kind == NEAR_CASE ? "differs from a known one only in case"
                                    : "is one letter away from a known one",
             names);
        return;
    }
    if (near.kind == NEAR_DIGIT)
        emit(ctx, R_ARCH_UNKNOWN, akv->value_offset, akv->value_size, path,
             "architecture '%s' is unknown to llama.cpp of %s (gguflint's tables); its keys and "
             "tensors are not checked (llama.cpp refuses architectures it does not know); it "
             "differs by one digit from %s, so it may be a newer architecture of that family",
             shown, arch_str(arch_stamp_date), names);
    else
        emit(ctx, R_ARCH_UNKNOWN, akv->value_offset, akv->value_size, path,
             "architecture '%s' is unknown to llama.cpp of %s (gguflint's tables); its keys and "
             "tensors are not checked (llama.cpp refuses architectures it does not know)",
             shown, arch_str(arch_stamp_date));
}
