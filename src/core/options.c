/* options.c - the opaque options (gguflint_options): defaults, limits, the
 * rule selection and severities, the profile, the data-scan settings. The
 * struct's layout is private (core/internal.h), so adding a rule, a limit or
 * a setting never changes the ABI. */
#include "core/internal.h"
#include "common/alloc.h"
#include "gguflint_llama.h"

#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

gguflint_options *gguflint_options_new(void)
{
    gguflint_options *opt = gl_malloc(sizeof *opt);
    if (opt)
        gguflint_options_default(opt);
    return opt;
}

gguflint_options *gguflint_options_copy(const gguflint_options *opt)
{
    if (!opt)
        return NULL;
    gguflint_options *c = gl_malloc(sizeof *c);
    if (c)
        *c = *opt;
    return c;
}

void gguflint_options_free(gguflint_options *opt)
{
    gl_free(opt);
}

/* Each limit: where it lives in lint_limits, whether it is 32 bits wide, and
 * its default (core/limits.h). */
static const struct {
    size_t off;
    bool u32;
    uint64_t def;
} limit_fields[GGUFLINT_LIMIT__COUNT] = {
    [GGUFLINT_LIMIT_STRING_LEN] = {offsetof(lint_limits, max_string_len), false,
                                   LIMIT_DEFAULT_STRING_LEN},
    [GGUFLINT_LIMIT_ARRAY_COUNT] = {offsetof(lint_limits, max_array_count), false,
                                    LIMIT_DEFAULT_ARRAY_COUNT},
    [GGUFLINT_LIMIT_KV_COUNT] = {offsetof(lint_limits, max_kv_count), false,
                                 LIMIT_DEFAULT_KV_COUNT},
    [GGUFLINT_LIMIT_TENSOR_COUNT] = {offsetof(lint_limits, max_tensor_count), false,
                                     LIMIT_DEFAULT_TENSOR_COUNT},
    [GGUFLINT_LIMIT_DEPTH] = {offsetof(lint_limits, max_depth), true, LIMIT_DEFAULT_DEPTH},
    [GGUFLINT_LIMIT_FINDINGS_PER_RULE] = {offsetof(lint_limits, max_findings_per_rule), true,
                                          LIMIT_DEFAULT_FINDINGS_PER_RULE},
};

uint64_t gguflint_limit_default(gguflint_limit limit)
{
    return (unsigned)limit < GGUFLINT_LIMIT__COUNT ? limit_fields[limit].def : 0;
}

void gguflint_options_default(gguflint_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    for (int l = 0; l < GGUFLINT_LIMIT__COUNT; l++)
        gguflint_options_set_limit(opt, (gguflint_limit)l, limit_fields[l].def);
    for (size_t i = 0; i < R__COUNT; i++)
        opt->severity[i] = (uint8_t)gguflint_rule(i)->default_severity;
}

int gguflint_options_set_limit(gguflint_options *opt, gguflint_limit limit, uint64_t value)
{
    if (!opt || (unsigned)limit >= GGUFLINT_LIMIT__COUNT)
        return GGUFLINT_E_ARG;
    char *field = (char *)&opt->limits + limit_fields[limit].off;
    if (limit_fields[limit].u32) {
        if (value > UINT32_MAX)
            return GGUFLINT_E_ARG;
        uint32_t v = (uint32_t)value;
        memcpy(field, &v, sizeof v);
    } else {
        memcpy(field, &value, sizeof value);
    }
    return GGUFLINT_OK;
}

uint64_t gguflint_options_get_limit(const gguflint_options *opt, gguflint_limit limit)
{
    if (!opt || (unsigned)limit >= GGUFLINT_LIMIT__COUNT)
        return 0;
    const char *field = (const char *)&opt->limits + limit_fields[limit].off;
    if (limit_fields[limit].u32) {
        uint32_t v;
        memcpy(&v, field, sizeof v);
        return v;
    }
    uint64_t v;
    memcpy(&v, field, sizeof v);
    return v;
}

/* The plain settings: a setter that refuses a NULL options (GGUFLINT_E_ARG)
 * and a getter that reads 0 (false) from one. `param` is the setter's
 * parameter name in gguflint.h (the debug information, and so the ABI dump,
 * shows it). */
#define OPTION_FIELD(type, name, param)                                                            \
    int gguflint_options_set_##name(gguflint_options *opt, type param)                             \
    {                                                                                              \
        if (!opt)                                                                                  \
            return GGUFLINT_E_ARG;                                                                 \
        opt->name = param;                                                                         \
        return GGUFLINT_OK;                                                                        \
    }                                                                                              \
    type gguflint_options_get_##name(const gguflint_options *opt)                                  \
    {                                                                                              \
        return opt ? opt->name : 0;                                                                \
    }

OPTION_FIELD(bool, deep, deep) /* the parameters' names are the header's */
OPTION_FIELD(uint32_t, deep_jobs, jobs)
OPTION_FIELD(bool, deep_map, on)
OPTION_FIELD(bool, header_only, header_only)
#undef OPTION_FIELD

int gguflint_options_set_config_refused(gguflint_options *opt, bool refused)
{
    if (!opt)
        return GGUFLINT_E_ARG;
    opt->config_refused = refused;
    return GGUFLINT_OK;
}

int gguflint_options_profile(gguflint_options *opt, const char *name)
{
    if (!opt || !name)
        return GGUFLINT_E_ARG;
    size_t p = 0;
    const char *pn;
    while ((pn = gguflint_profile_name(p)) != NULL && strcmp(name, pn) != 0)
        p++;
    if (!pn)
        return GGUFLINT_E_ARG;
    for (size_t i = 0; i < R__COUNT; i++)
        opt->severity[i] = (uint8_t)gguflint_rule_profile_severity(i, p);
    opt->profile = (uint8_t)p;
    return GGUFLINT_OK;
}

const char *gguflint_options_get_profile(const gguflint_options *opt)
{
    return opt ? gguflint_profile_name(opt->profile) : NULL;
}

void gguflint_options_clear(gguflint_options *opt)
{
    if (!opt)
        return;
    for (size_t i = 0; i < R__COUNT; i++)
        opt->severity[i] = GGUFLINT_OFF;
}

gguflint_severity gguflint_options_get_severity(const gguflint_options *opt, size_t rule)
{
    return opt && rule < R__COUNT ? (gguflint_severity)opt->severity[rule] : GGUFLINT_OFF;
}

/* Does `item` name rule i: ALL, the id, an id prefix (GG1, GG10), the slug or the family? */
static bool names_rule(const char *item, size_t n, size_t i)
{
    if (n == 3 && strncasecmp(item, "ALL", 3) == 0)
        return true;
    const gguflint_rule_info *r = gguflint_rule(i);
    if (n >= 2 && n <= strlen(r->id) && strncasecmp(item, r->id, n) == 0 &&
        (n == strlen(r->id) || (n > 2 && isdigit((unsigned char)item[n - 1]))))
        return true;
    if (strlen(r->slug) == n && strncmp(item, r->slug, n) == 0)
        return true;
    if (strlen(r->family) == n && strncmp(item, r->family, n) == 0)
        return true;
    return false;
}

/* Apply `mode` to every rule named by each item of a comma-separated list:
 * 0 disables, 1 restores the applied profile's severity, 2 sets `sev`. */
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
            else if (mode == 1)
                opt->severity[i] = (uint8_t)gguflint_rule_profile_severity(i, opt->profile);
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

/* --llama-build: "bNNNN" / "NNNN" (a build tag) or "YYYY-MM-DD" */
int gguflint_options_set_llama_build(gguflint_options *opt, const char *build)
{
    if (!opt)
        return GGUFLINT_E_ARG;
    if (!build || !*build) {
        opt->llama_build = 0;
        opt->llama_date[0] = 0;
        return GGUFLINT_OK;
    }
    size_t n = strlen(build);
    if (n == 10 && build[4] == '-' && build[7] == '-') {
        for (size_t i = 0; i < n; i++)
            if (i != 4 && i != 7 && (build[i] < '0' || build[i] > '9'))
                return GGUFLINT_E_ARG;
        int mon = (build[5] - '0') * 10 + (build[6] - '0');
        int day = (build[8] - '0') * 10 + (build[9] - '0');
        if (mon < 1 || mon > 12 || day < 1 || day > 31)
            return GGUFLINT_E_ARG;
        memcpy(opt->llama_date, build, 11);
        opt->llama_build = 0;
        return GGUFLINT_OK;
    }
    const char *p = build[0] == 'b' ? build + 1 : build;
    uint32_t v = 0;
    if (!*p || strlen(p) > 9)
        return GGUFLINT_E_ARG;
    for (; *p; p++) {
        if (*p < '0' || *p > '9')
            return GGUFLINT_E_ARG;
        v = v * 10 + (uint32_t)(*p - '0');
    }
    if (v == 0)
        return GGUFLINT_E_ARG;
    opt->llama_build = v;
    opt->llama_date[0] = 0;
    return GGUFLINT_OK;
}
