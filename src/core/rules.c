/* rules.c - the rule registry, expanded from the rule blocks of
 * rules/rules.def (table, profiles and documentation), plus rule selection and severities in
 * gguflint_options and the generated documentation (RULES.md, explain). */
#include "core/internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define FAM_CONTAINER "container"
#define FAM_KV "kv"
#define FAM_TENSOR "tensor"
#define FAM_DATA "data"
#define FAM_MODEL "model"
#define FAM_TOKENIZER "tokenizer"
#define FAM_SPLIT "split"
#define FAM_SECURITY "security"

#define SEV_ERROR GGUFLINT_ERROR
#define SEV_WARNING GGUFLINT_WARNING
#define SEV_NOTE GGUFLINT_NOTE

/* Profiles: ggml (index 0) is every rule's default severity; the others
 * override some, from the PROFILES() argument of each rule block. */
enum { PROF_ggml, PROF_spec, PROF_strict, PROF_security, PROF__COUNT };
static const char *const profile_names[PROF__COUNT] = {"ggml", "spec", "strict", "security"};

/* The rule table, expanded from the rule blocks of rules/rules.def. */
#define DOC(what_, why_, example_, fix_)                                                           \
    .what = what_, .why = why_, .example = example_, .fix = fix_
#define RISK(cwe_, score_) , .cwe = cwe_, .security_severity = score_
static const gguflint_rule_info rules[R__COUNT] = {
#define RULE(name, id_, slug_, fam, sev, profiles, summary_, doc)                                  \
    [R_##name] = {.id = id_,                                                                       \
                  .slug = slug_,                                                                   \
                  .family = FAM_##fam,                                                             \
                  .default_severity = SEV_##sev,                                                   \
                  .summary = summary_,                                                             \
                  doc},
#include "../../rules/rules.def"
#undef RULE
};
#undef DOC
#undef RISK

/* A profile's severity of each rule: 0 keeps the rule's default, else the
 * severity + 1 (so that OFF can be told from "not graded"). */
#define SEV_OFF GGUFLINT_OFF
/* clang-format off: initialiser macros */
#define PROFILES(...)                                                                              \
    {                                                                                              \
        0, __VA_ARGS__                                                                             \
    }
/* clang-format on */
#define SPEC(sev) [PROF_spec] = 1 + SEV_##sev
#define STRICT(sev) [PROF_strict] = 1 + SEV_##sev
#define SECURITY(sev) [PROF_security] = 1 + SEV_##sev
static const uint8_t profile_sev[R__COUNT][PROF__COUNT] = {
#define RULE(name, id_, slug_, fam, sev, profiles, ...) [R_##name] = profiles,
#include "../../rules/rules.def"
#undef RULE
};
#undef PROFILES
#undef SPEC
#undef STRICT
#undef SECURITY

const char *gguflint_profile_name(size_t i)
{
    return i < PROF__COUNT ? profile_names[i] : NULL;
}

gguflint_severity gguflint_rule_profile_severity(size_t rule, size_t profile)
{
    if (rule >= R__COUNT || profile >= PROF__COUNT)
        return GGUFLINT_OFF;
    uint8_t s = profile_sev[rule][profile];
    return s ? (gguflint_severity)(s - 1) : rules[rule].default_severity;
}

size_t gguflint_rule_count(void)
{
    return R__COUNT;
}

const gguflint_rule_info *gguflint_rule(size_t index)
{
    return index < R__COUNT ? &rules[index] : NULL;
}

int gguflint_rule_find(const char *s)
{
    if (!s)
        return -1;
    for (size_t i = 0; i < R__COUNT; i++)
        if (strcasecmp(rules[i].id, s) == 0 || strcmp(rules[i].slug, s) == 0)
            return (int)i;
    return -1;
}

const char *gguflint_severity_name(gguflint_severity s)
{
    switch (s) {
    case GGUFLINT_NOTE: return "note";
    case GGUFLINT_WARNING: return "warning";
    case GGUFLINT_ERROR: return "error";
    default: return "off";
    }
}

int gguflint_severity_parse(const char *s)
{
    if (!s)
        return -1;
    if (strcmp(s, "error") == 0)
        return GGUFLINT_ERROR;
    if (strcmp(s, "warning") == 0 || strcmp(s, "warn") == 0)
        return GGUFLINT_WARNING;
    if (strcmp(s, "note") == 0 || strcmp(s, "info") == 0)
        return GGUFLINT_NOTE;
    if (strcmp(s, "off") == 0 || strcmp(s, "none") == 0)
        return GGUFLINT_OFF;
    return -1;
}

static void put(gguflint_write_fn w, void *u, const char *s)
{
    if (s)
        w(u, s, strlen(s));
}

size_t gguflint_rule_anchor(size_t index, char *buf, size_t cap)
{
    const gguflint_rule_info *r = gguflint_rule(index);
    if (!r) {
        if (cap)
            buf[0] = '\0';
        return 0;
    }
    int n = snprintf(buf, cap, "%s-%s", r->id, r->slug);
    for (size_t k = 0; cap && k < cap - 1 && buf[k]; k++)
        buf[k] = (char)tolower((unsigned char)buf[k]);
    return n > 0 ? (size_t)n : 0;
}

void gguflint_rules_markdown(gguflint_write_fn w, void *u)
{
    put(w, u,
        "# gguflint rules\n\n"
        "Generated by `gguflint rules --markdown` from the rule blocks of "
        "`rules/*.def`; a test fails when this file is stale.\n\n"
        "Severity per profile: `ggml` is the default (what llama.cpp's reader "
        "accepts); `spec` follows docs/gguf.md; `strict` checks the canonical output "
        "of a good writer; `security` is for untrusted downloads.\n\n"
        "| id | slug | family | ggml | spec | strict | security | summary |\n"
        "|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < R__COUNT; i++) {
        const gguflint_rule_info *r = gguflint_rule(i);
        put(w, u, "| [");
        put(w, u, r->id);
        put(w, u, "](#");
        char anchor[96];
        gguflint_rule_anchor(i, anchor, sizeof anchor);
        put(w, u, anchor);
        put(w, u, ") | ");
        put(w, u, r->slug);
        put(w, u, " | ");
        put(w, u, r->family);
        for (size_t p = 0; p < PROF__COUNT; p++) {
            put(w, u, " | ");
            put(w, u, gguflint_severity_name(gguflint_rule_profile_severity(i, p)));
        }
        put(w, u, " | ");
        put(w, u, r->summary);
        put(w, u, " |\n");
    }
    for (size_t i = 0; i < R__COUNT; i++) {
        put(w, u, "\n");
        gguflint_rule_explain(i, w, u);
    }
}

void gguflint_rule_explain(size_t i, gguflint_write_fn w, void *u)
{
    const gguflint_rule_info *r = gguflint_rule(i);
    if (!r)
        return;
    /* the page: a heading, the summary, the family and severities, then the
     * four documentation paragraphs, each text after its label */
    const char *const head[][2] = {
        {"## ", r->id},
        {" ", r->slug},
        {"\n\n", r->summary},
        {".\n\n- family: ", r->family},
        {"\n- default severity: ", gguflint_severity_name(r->default_severity)},
    };
    for (size_t k = 0; k < sizeof head / sizeof head[0]; k++) {
        put(w, u, head[k][0]);
        put(w, u, head[k][1]);
    }
    put(w, u, "\n- by profile:");
    for (size_t p = 0; p < PROF__COUNT; p++) {
        put(w, u, p ? ", " : " ");
        put(w, u, profile_names[p]);
        put(w, u, " ");
        put(w, u, gguflint_severity_name(gguflint_rule_profile_severity(i, p)));
    }
    if (r->cwe > 0) {
        char cwe[96];
        snprintf(cwe, sizeof cwe,
                 "\n- weakness: [CWE-%d](https://cwe.mitre.org/data/definitions/%d.html)", r->cwe,
                 r->cwe);
        put(w, u, cwe);
    }
    if (r->security_severity) {
        put(w, u, "\n- security-severity: ");
        put(w, u, r->security_severity);
    }
    const char *const doc[][2] = {
        {"\n\n**What.** ", r->what},
        {"\n\n**Why.** ", r->why},
        {"\n\n**Example.** ", r->example},
        {"\n\n**Fix.** ", r->fix},
    };
    for (size_t k = 0; k < sizeof doc / sizeof doc[0]; k++) {
        put(w, u, doc[k][0]);
        put(w, u, doc[k][1]);
    }
    put(w, u, "\n");
}
