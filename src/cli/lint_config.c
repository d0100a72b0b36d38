/* lint_config.c - the configuration file of a lint run (phase 1 of
 * lint_cmd.c): which file is read (--config, --isolated, discovery), its
 * values checked with their line and applied under the command line, and
 * whether a discovered file is applied at all: one that loosens the
 * security checks may have come with the inputs (GG800). */
#define _POSIX_C_SOURCE 200809L
#include "lint.h"

#include <stdlib.h>
#include <string.h>

static int config_error(const config *cfg, const char *what)
{
    fprintf(stderr, "gguflint: ");
    err_text(cfg->path ? cfg->path : "config");
    fprintf(stderr, ": ");
    err_text(what);
    fprintf(stderr, "\n");
    return EXIT_USAGE;
}

/* A bad value of the config file: false, with "line N: ..." in err. */
static bool bad_value(char *err, size_t cap, int line, const char *key, const char *value,
                      const char *expected)
{
    snprintf(err, cap, "line %d: bad value '%.64s' for '%s'%s%s", line, value, key,
             expected ? ": " : "", expected ? expected : "");
    return false;
}

/* Check one [gguflint] value that names rules or a profile against the
 * library (scratch options), so a typo is reported with its line. */
static bool check_main_value(settings *s, const config_kv *kv, char *err, size_t cap)
{
    char bad[128];
    if (strcmp(kv->key, "profile") == 0)
        return gguflint_options_profile(s->probe, kv->value) == GGUFLINT_OK ||
               bad_value(err, cap, kv->line, kv->key, kv->value,
                         "unknown profile (ggml, spec, strict, security)");
    if (gguflint_options_select(s->probe, kv->value, true, bad, sizeof bad) != GGUFLINT_OK) {
        snprintf(err, cap, "line %d: unknown rule, prefix or family '%.64s' in '%s'", kv->line, bad,
                 kv->key);
        return false;
    }
    return true;
}

/* The config file's values become the defaults the command line overrides.
 * Every value is checked here, so an error names the file and the line. */
static bool apply_config_to(settings *s, config *cfg, char *err, size_t cap)
{
    for (size_t i = 0; i < cfg->n_main; i++) {
        const char *k = cfg->main[i].key;
        char *v = cfg->main[i].value;
        int line = cfg->main[i].line;
        bool b;
        if (strcmp(k, "format") == 0) {
            if (!parse_format(v, &s->fmt))
                return bad_value(err, cap, line, k, v, "text, json, sarif or github");
        } else if (strcmp(k, "fail-on") == 0) {
            int sev = gguflint_severity_parse(v);
            if (sev <= 0)
                return bad_value(err, cap, line, k, v, "error, warning or note");
            s->fail_on = (gguflint_severity)sev;
        } else if (strcmp(k, "deep") == 0 || strcmp(k, "quiet") == 0) {
            if (!lint_parse_bool(v, &b))
                return bad_value(err, cap, line, k, v, "true or false");
            if (k[0] == 'd')
                gguflint_options_set_deep(s->opt, b);
            else
                s->quiet = b;
        } else {
            if (!check_main_value(s, &cfg->main[i], err, cap))
                return false;
            if (strcmp(k, "profile") == 0) {
                s->profile = v;
                continue;
            }
            int kind = strcmp(k, "select") == 0          ? OPT_SELECT
                       : strcmp(k, "extend-select") == 0 ? OPT_EXTEND
                                                         : OPT_IGNORE;
            if (lint_add_rule_opt(s, kind, v, true) != EXIT_CLEAN)
                return bad_value(err, cap, line, k, v, "too many rule options");
        }
    }
    for (size_t i = 0; i < cfg->n_severity; i++) {
        const config_kv *kv = &cfg->severity[i];
        int sev = gguflint_severity_parse(kv->value);
        if (gguflint_rule_find(kv->key) < 0) {
            snprintf(err, cap, "line %d: unknown rule '%.64s' in [severity]", kv->line, kv->key);
            return false;
        }
        if (sev < 0) {
            snprintf(err, cap, "line %d: bad severity '%.64s' for %s (error, warning, note or off)",
                     kv->line, kv->value, kv->key);
            return false;
        }
        snprintf(s->sev_buf[i], sizeof s->sev_buf[i], "%s=%s", kv->key, kv->value);
        if (lint_add_rule_opt(s, OPT_SEVERITY, s->sev_buf[i], true) != EXIT_CLEAN)
            return bad_value(err, cap, kv->line, kv->key, kv->value, "too many rule options");
    }
    for (size_t i = 0; i < cfg->n_limits; i++)
        if (!lint_set_limit(s, lint_opt_by_name(cfg->limits[i].key), cfg->limits[i].value))
            return bad_value(err, cap, cfg->limits[i].line, cfg->limits[i].key,
                             cfg->limits[i].value, "a number in range");
    for (size_t i = 0; i < cfg->n_ignores; i++) {
        char bad[128];
        if (gguflint_options_select(s->probe, cfg->ignores[i].rules, false, bad, sizeof bad) !=
            GGUFLINT_OK) {
            snprintf(err, cap, "line %d: unknown rule '%s'", cfg->ignores[i].line, bad);
            return false;
        }
    }
    return true;
}

static int apply_config(settings *s, config *cfg)
{
    char err[320];
    return apply_config_to(s, cfg, err, sizeof err) ? EXIT_CLEAN : config_error(cfg, err);
}

/* ---- whether a discovered config loosens the security checks ---- */

/* The rules a discovered config may not loosen: those whose violation the
 * rule block ties to a weakness (a CWE) or scores (security-severity). */
static bool guards_security(size_t rule)
{
    const gguflint_rule_info *ri = gguflint_rule(rule);
    return ri && (ri->cwe > 0 || ri->security_severity);
}

/* What of t (a config applied to scratch settings) loosens the checks
 * against ref (the run without the config): a security rule lowered or off,
 * a limit that bounds hostile input raised, an [ignore:] exempting files
 * from a security rule. The first such setting into why; false when none. */
static bool loosened(settings *t, const gguflint_options *ref, const config *cfg, char *why,
                     size_t cap)
{
    for (size_t r = 0; r < gguflint_rule_count(); r++)
        if (guards_security(r) &&
            gguflint_options_get_severity(t->opt, r) < gguflint_options_get_severity(ref, r)) {
            snprintf(why, cap, "it lowers %s (%s) to %s", gguflint_rule(r)->id,
                     gguflint_rule(r)->slug,
                     gguflint_severity_name(gguflint_options_get_severity(t->opt, r)));
            return true;
        }
    static const char *const limit_names[] = {"max-string-len", "max-array-count", "max-kv-count",
                                              "max-tensor-count", "max-depth"};
    for (int l = 0; l < 5; l++)
        if (gguflint_options_get_limit(t->opt, (gguflint_limit)l) >
            gguflint_options_get_limit(ref, (gguflint_limit)l)) {
            snprintf(why, cap, "it raises %s", limit_names[l]);
            return true;
        }
    for (size_t i = 0; i < cfg->n_ignores; i++) {
        gguflint_options_default(t->probe);
        gguflint_options_clear(t->probe);
        if (gguflint_options_select(t->probe, cfg->ignores[i].rules, true, NULL, 0) != GGUFLINT_OK)
            continue;
        for (size_t r = 0; r < gguflint_rule_count(); r++)
            if (guards_security(r) && gguflint_options_get_severity(t->probe, r) != GGUFLINT_OFF) {
                snprintf(why, cap, "line %d: [ignore:%.64s] exempts files from %s",
                         cfg->ignores[i].line, cfg->ignores[i].pattern, gguflint_rule(r)->id);
                return true;
            }
    }
    return false;
}

/* Apply cfg to scratch settings and compare with the run without it (the
 * command line's profile, else ggml). A config that does not even apply is
 * not judged here: applying it for real reports its error. */
static bool config_loosens(config *cfg, const char *cli_profile, char *why, size_t cap)
{
    settings *t = calloc(1, sizeof *t);
    gguflint_options *ref = gguflint_options_new();
    bool loose = false;
    if (t && ref && (t->opt = gguflint_options_new()) && (t->probe = gguflint_options_new())) {
        char err[320];
        t->profile = "ggml";
        const char *profile = cli_profile ? cli_profile : "ggml";
        if (apply_config_to(t, cfg, err, sizeof err) &&
            gguflint_options_profile(ref, profile) == GGUFLINT_OK) {
            if (cli_profile)
                t->profile = cli_profile;
            loose = lint_apply_rule_opts(t) == EXIT_CLEAN && loosened(t, ref, cfg, why, cap);
        }
    }
    if (t) {
        gguflint_options_free(t->opt);
        gguflint_options_free(t->probe);
    }
    free(t);
    gguflint_options_free(ref);
    return loose;
}

/* The absolute folder of a config path (lexically, from the working
 * directory), malloc'd, or NULL. */
static char *folder_of(const settings *s, const char *path)
{
    size_t n = strlen(path) + (s->cwd ? strlen(s->cwd) : 0) + 2;
    char *abs = malloc(n);
    if (!abs)
        return NULL;
    if (path[0] == '/' || !s->cwd)
        snprintf(abs, n, "%s", path);
    else
        snprintf(abs, n, "%s/%s", s->cwd, path);
    char *dir = cli_normalized(abs, NULL);
    if (dir) {
        char *slash = strrchr(dir, '/');
        if (slash)
            *(slash == dir ? slash + 1 : slash) = '\0';
    }
    free(abs);
    return dir;
}

/* Phase 1: the configuration file. --config FILE is the caller's and is
 * applied; --isolated reads none. A .gguflint.ini discovered from the
 * working directory upwards may have come with the inputs (a downloaded
 * snapshot), so it is not read under --profile security, and it is not
 * applied when it would loosen the security checks (config_loosens): then
 * the run says why on standard error and every file gets GG800. A config
 * inside a scanned folder is never discovered (only the working directory
 * and its parents are searched). */
int lint_load_config(settings *s, config *cfg, char **found, const first_pass *fp)
{
    const char *path = fp->isolated ? NULL : fp->config;
    bool discovered = false;
    if (!fp->isolated && !fp->config && (*found = config_find()) != NULL) {
        if (fp->profile && strcmp(fp->profile, "security") == 0) {
            fprintf(stderr, "gguflint: not reading ");
            err_text(*found);
            fprintf(stderr, ": --profile security reads only a --config FILE\n");
        } else {
            path = *found;
            discovered = true;
        }
    }
    if (!path)
        return EXIT_CLEAN;
    if (!config_load(cfg, path))
        return config_error(cfg, cfg->error[0] ? cfg->error : "cannot read");
    char why[256];
    if (discovered && config_loosens(cfg, fp->profile, why, sizeof why)) {
        fprintf(stderr, "gguflint: not applying ");
        err_text(path);
        fprintf(stderr, ": ");
        err_text(why);
        fprintf(stderr, "; a config found near the inputs may have come with them: name it with "
                        "--config to apply it (GG800)\n");
        config_free(cfg);
        memset(cfg, 0, sizeof *cfg);
        s->config_refused = true;
        return EXIT_CLEAN;
    }
    s->config_dir = folder_of(s, path);
    return apply_config(s, cfg);
}
