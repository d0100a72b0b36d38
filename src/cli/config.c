/* config.c - reads .gguflint.ini with libinih. Sections:
 *   [gguflint]        profile, select, extend-select, ignore, fail-on, format,
 *                     deep, quiet (defaults for the command-line options)
 *   [severity]        RULE = error|warning|note|off
 *   [limits]          max-string-len, max-array-count, max-kv-count,
 *                     max-tensor-count, max-depth, max-findings-per-rule
 *   [ignore:PATTERN]  rules = LIST and reason = TEXT (required): findings of
 *                     those rules in files matching PATTERN are suppressed
 * Unknown sections and keys are errors, so a typo never silently disables a
 * check. The command line overrides the file. */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <ini.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *config_find(void)
{
    char dir[PATH_MAX];
    if (!getcwd(dir, sizeof dir))
        return NULL;
    for (;;) {
        char path[PATH_MAX + 16];
        snprintf(path, sizeof path, "%s/.gguflint.ini", strcmp(dir, "/") == 0 ? "" : dir);
        if (access(path, R_OK) == 0)
            return strdup(path);
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir) {
            if (strcmp(dir, "/") == 0)
                return NULL;
            strcpy(dir, "/");
            continue;
        }
        *slash = '\0';
    }
}

static const char *const main_keys[] = {"profile", "select", "extend-select", "ignore", "fail-on",
                                        "format",  "deep",   "quiet",         NULL};
static const char *const limit_keys[] = {"max-string-len",
                                         "max-array-count",
                                         "max-kv-count",
                                         "max-tensor-count",
                                         "max-depth",
                                         "max-findings-per-rule",
                                         NULL};

static bool in_list(const char *const *list, const char *s)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return true;
    return false;
}

static bool add_kv(config *cfg, config_kv *arr, size_t *n, const char *k, const char *v, int line)
{
    if (*n == CONFIG_MAX_ITEMS) {
        snprintf(cfg->error, sizeof cfg->error, "line %d: too many entries", line);
        return false;
    }
    arr[*n].key = strdup(k);
    arr[*n].value = strdup(v);
    arr[*n].line = line;
    if (!arr[*n].key || !arr[*n].value) {
        snprintf(cfg->error, sizeof cfg->error, "out of memory");
        return false;
    }
    (*n)++;
    return true;
}

static config_ignore *ignore_for(config *cfg, const char *pattern, int line)
{
    for (size_t i = 0; i < cfg->n_ignores; i++)
        if (strcmp(cfg->ignores[i].pattern, pattern) == 0)
            return &cfg->ignores[i];
    if (cfg->n_ignores == CONFIG_MAX_ITEMS)
        return NULL;
    config_ignore *ig = &cfg->ignores[cfg->n_ignores++];
    memset(ig, 0, sizeof *ig);
    ig->pattern = strdup(pattern);
    ig->line = line;
    return ig->pattern ? ig : NULL;
}

static int on_entry(void *user, const char *section, const char *name, const char *value, int line)
{
    config *cfg = user;
    if (strcmp(section, "gguflint") == 0) {
        if (!in_list(main_keys, name)) {
            snprintf(cfg->error, sizeof cfg->error, "line %d: unknown key '%s' in [gguflint]", line,
                     name);
            return 0;
        }
        return add_kv(cfg, cfg->main, &cfg->n_main, name, value, line);
    }
    if (strcmp(section, "severity") == 0)
        return add_kv(cfg, cfg->severity, &cfg->n_severity, name, value, line);
    if (strcmp(section, "limits") == 0) {
        if (!in_list(limit_keys, name)) {
            snprintf(cfg->error, sizeof cfg->error, "line %d: unknown limit '%s'", line, name);
            return 0;
        }
        return add_kv(cfg, cfg->limits, &cfg->n_limits, name, value, line);
    }
    if (strncmp(section, "ignore:", 7) == 0 && section[7]) {
        config_ignore *ig = ignore_for(cfg, section + 7, line);
        if (!ig) {
            snprintf(cfg->error, sizeof cfg->error, "line %d: too many [ignore:] sections", line);
            return 0;
        }
        char **slot = strcmp(name, "rules") == 0    ? &ig->rules
                      : strcmp(name, "reason") == 0 ? &ig->reason
                                                    : NULL;
        if (!slot) {
            snprintf(cfg->error, sizeof cfg->error,
                     "line %d: [ignore:%s] takes 'rules' and 'reason', not '%s'", line, section + 7,
                     name);
            return 0;
        }
        free(*slot);
        *slot = strdup(value);
        return *slot != NULL;
    }
    snprintf(cfg->error, sizeof cfg->error, "line %d: unknown section [%s]", line, section);
    return 0;
}

/* libinih without INI_HANDLER_LINENO: count lines ourselves via a reader
 * that hands libinih one line at a time, from a file or from memory. */
typedef struct reader {
    FILE *f;          /* or NULL: read from text */
    const char *text; /* the rest of a memory document */
    size_t left;
    int line;
} reader;

static char *read_line(char *str, int num, void *stream)
{
    reader *r = stream;
    char *s;
    if (r->f) {
        s = fgets(str, num, r->f);
    } else {
        if (r->left == 0 || num < 2)
            return NULL;
        size_t n = 0, max = (size_t)num - 1;
        while (n < max && n < r->left) {
            char c = r->text[n++];
            if (c == '\n')
                break;
        }
        memcpy(str, r->text, n);
        str[n] = '\0';
        r->text += n;
        r->left -= n;
        s = str;
    }
    if (s)
        r->line++;
    return s;
}

typedef struct ctx_line {
    config *cfg;
    reader *rd;
} ctx_line;

static int handler(void *user, const char *section, const char *name, const char *value)
{
    ctx_line *c = user;
    return on_entry(c->cfg, section, name, value, c->rd->line);
}

/* Parse through a reader and check what must hold after the last line. */
static bool parse(config *cfg, reader *rd)
{
    ctx_line c = {cfg, rd};
    int rc = ini_parse_stream(read_line, rd, handler, &c);
    if (rc != 0) {
        if (!cfg->error[0])
            snprintf(cfg->error, sizeof cfg->error, "line %d: syntax error", rc > 0 ? rc : 0);
        return false;
    }
    for (size_t i = 0; i < cfg->n_ignores; i++) {
        config_ignore *ig = &cfg->ignores[i];
        if (!ig->rules || !*ig->rules) {
            snprintf(cfg->error, sizeof cfg->error, "line %d: [ignore:%s] needs 'rules'", ig->line,
                     ig->pattern);
            return false;
        }
        if (!ig->reason || !*ig->reason) {
            snprintf(cfg->error, sizeof cfg->error,
                     "line %d: [ignore:%s] needs a 'reason' (every ignore must say why)", ig->line,
                     ig->pattern);
            return false;
        }
    }
    return true;
}

bool config_load(config *cfg, const char *path)
{
    memset(cfg, 0, sizeof *cfg);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(cfg->error, sizeof cfg->error, "cannot open");
        return false;
    }
    cfg->path = strdup(path);
    reader rd = {f, NULL, 0, 0};
    bool ok = parse(cfg, &rd);
    fclose(f);
    return ok;
}

bool config_parse_text(config *cfg, const char *text, size_t len, const char *name)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->path = strdup(name);
    reader rd = {NULL, text, len, 0};
    return parse(cfg, &rd);
}

const char *config_get(const config *cfg, const char *key)
{
    const char *v = NULL;
    for (size_t i = 0; i < cfg->n_main; i++)
        if (strcmp(cfg->main[i].key, key) == 0)
            v = cfg->main[i].value;
    return v;
}

static void free_kvs(config_kv *arr, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(arr[i].key);
        free(arr[i].value);
    }
}

void config_free(config *cfg)
{
    free_kvs(cfg->main, cfg->n_main);
    free_kvs(cfg->severity, cfg->n_severity);
    free_kvs(cfg->limits, cfg->n_limits);
    for (size_t i = 0; i < cfg->n_ignores; i++) {
        free(cfg->ignores[i].pattern);
        free(cfg->ignores[i].rules);
        free(cfg->ignores[i].reason);
    }
    free(cfg->path);
    memset(cfg, 0, sizeof *cfg);
}
