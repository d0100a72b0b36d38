/* rules.c - the rule registry, expanded from the rule blocks of
 * rules/rules.def (table, profiles and documentation), plus rule selection and severities in
 * gguflint_options and the generated documentation (RULES.md, explain). */
#include "core/internal.h"

#include <ctype.h>
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
#define DOC(what_, why_, example_, fix_) .what = what_, .why = why_, .example = example_, .fix = fix_
static const gguflint_rule_info rules[R__COUNT] = {
#define RULE(name, id_, slug_, fam, sev, profiles, summary_, doc)                         \
    [R_##name] = {.id = id_, .slug = slug_, .family = FAM_##fam,                           \
                  .default_severity = SEV_##sev, .summary = summary_, doc},
#include "../../rules/rules.def"
#undef RULE
};
#undef DOC

/* A profile's severity of each rule: 0 keeps the rule's default, else the
 * severity + 1 (so that OFF can be told from "not graded"). */
#define SEV_OFF GGUFLINT_OFF
#define PROFILES(...) {0, __VA_ARGS__}
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

int gguflint_options_profile(gguflint_options *opt, const char *name)
{
    if (!opt || !name)
        return GGUFLINT_E_ARG;
    int p = -1;
    for (int i = 0; i < PROF__COUNT; i++)
        if (strcmp(name, profile_names[i]) == 0)
            p = i;
    if (p < 0)
        return GGUFLINT_E_ARG;
    for (size_t i = 0; i < R__COUNT; i++)
        opt->severity[i] = (uint8_t)gguflint_rule_profile_severity(i, (size_t)p);
    opt->profile = (uint8_t)p;
    return GGUFLINT_OK;
}

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

void gguflint_limits_default(gguflint_limits *l)
{
    l->max_string_len = 1ull << 30;
    l->max_array_count = 1ull << 30;
    l->max_kv_count = 100000;
    l->max_tensor_count = 10000000;
    l->max_depth = 4;
    l->max_findings_per_rule = 100;
}

void gguflint_options_default(gguflint_options *opt)
{
    memset(opt, 0, sizeof *opt);
    gguflint_limits_default(&opt->limits);
    for (size_t i = 0; i < R__COUNT; i++)
        opt->severity[i] = (uint8_t)rules[i].default_severity;
}

void gguflint_options_clear(gguflint_options *opt)
{
    for (size_t i = 0; i < R__COUNT; i++)
        opt->severity[i] = GGUFLINT_OFF;
}

/* Does `item` name rule i: ALL, the id, an id prefix (GG1, GG10), the slug or the family? */
static bool names_rule(const char *item, size_t n, size_t i)
{
    if (n == 3 && strncasecmp(item, "ALL", 3) == 0)
        return true;
    const gguflint_rule_info *r = &rules[i];
    if (n >= 2 && n <= strlen(r->id) && strncasecmp(item, r->id, n) == 0 &&
        (n == strlen(r->id) || (n > 2 && isdigit((unsigned char)item[n - 1]))))
        return true;
    if (strlen(r->slug) == n && strncmp(item, r->slug, n) == 0)
        return true;
    if (strlen(r->family) == n && strncmp(item, r->family, n) == 0)
        return true;
    return false;
}

/* Apply fn to every rule named by each item of a comma-separated list. */
static int for_each_named(gguflint_options *opt, const char *list, int mode, int sev, char *bad,
                          size_t bad_size)
{
    if (!opt || !list)
        return GGUFLINT_E_ARG;
    const char *p = list;
    while (*p) {
        while (*p == ',' || *p == ' ')
            p++;
        if (!*p)
            break;
        const char *e = p;
        while (*e && *e != ',' && *e != ' ')
            e++;
        size_t n = (size_t)(e - p);
        bool any = false;
        for (size_t i = 0; i < R__COUNT; i++) {
            if (!names_rule(p, n, i))
                continue;
            any = true;
            if (mode == 0)
                opt->severity[i] = GGUFLINT_OFF;
            else if (mode == 1) /* an unknown profile index falls back to ggml */
                opt->severity[i] = (uint8_t)gguflint_rule_profile_severity(
                    i, opt->profile < PROF__COUNT ? opt->profile : PROF_ggml);
            else
                opt->severity[i] = (uint8_t)sev;
        }
        if (!any) {
            if (bad && bad_size) {
                size_t k = n < bad_size - 1 ? n : bad_size - 1;
                memcpy(bad, p, k);
                bad[k] = '\0';
            }
            return GGUFLINT_E_ARG;
        }
        p = e;
    }
    return GGUFLINT_OK;
}

int gguflint_options_select(gguflint_options *opt, const char *list, bool on, char *bad,
                            size_t bad_size)
{
    return for_each_named(opt, list, on ? 1 : 0, 0, bad, bad_size);
}

int gguflint_options_set_severity(gguflint_options *opt, const char *name, gguflint_severity sev)
{
    if (sev > GGUFLINT_ERROR)
        return GGUFLINT_E_ARG;
    return for_each_named(opt, name, 2, (int)sev, NULL, 0);
}

static void put(gguflint_write_fn w, void *u, const char *s)
{
    if (s)
        w(u, s, strlen(s));
}

void gguflint_rules_markdown(gguflint_write_fn w, void *u)
{
    put(w, u, "# gguflint rules\n\n"
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
        char anchor[64];
        snprintf(anchor, sizeof anchor, "%s-%s", r->id, r->slug);
        for (char *c = anchor; *c; c++)
            *c = (char)tolower((unsigned char)*c);
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
    put(w, u, "## ");
    put(w, u, r->id);
    put(w, u, " ");
    put(w, u, r->slug);
    put(w, u, "\n\n");
    put(w, u, r->summary);
    put(w, u, ".\n\n- family: ");
    put(w, u, r->family);
    put(w, u, "\n- default severity: ");
    put(w, u, gguflint_severity_name(r->default_severity));
    put(w, u, "\n- by profile:");
    for (size_t p = 0; p < PROF__COUNT; p++) {
        put(w, u, p ? ", " : " ");
        put(w, u, profile_names[p]);
        put(w, u, " ");
        put(w, u, gguflint_severity_name(gguflint_rule_profile_severity(i, p)));
    }
    put(w, u, "\n\n**What.** ");
    put(w, u, r->what);
    put(w, u, "\n\n**Why.** ");
    put(w, u, r->why);
    put(w, u, "\n\n**Example.** ");
    put(w, u, r->example);
    put(w, u, "\n\n**Fix.** ");
    put(w, u, r->fix);
    put(w, u, "\n");
}
