/* config.h - the .gguflint.ini configuration file of the CLI (parsed with
 * libinih): defaults for the command-line options, per-rule severities,
 * limits, and per-path ignores that must carry a reason. */
#ifndef GGUFLINT_CLI_CONFIG_H
#define GGUFLINT_CLI_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONFIG_MAX_ITEMS 64

typedef struct config_kv {
    char *key, *value;
    int line;
} config_kv;

typedef struct config_ignore {
    char *pattern; /* fnmatch pattern, matched against the path as given and its basename */
    char *rules;   /* comma-separated ids, prefixes, slugs or families */
    char *reason;
    int line;
    uint64_t used; /* findings it suppressed */
} config_ignore;

typedef struct config {
    char *path;                       /* the file read, or NULL when none */
    config_kv main[CONFIG_MAX_ITEMS]; /* [gguflint] */
    size_t n_main;
    config_kv severity[CONFIG_MAX_ITEMS]; /* [severity] RULE = LEVEL */
    size_t n_severity;
    config_kv limits[CONFIG_MAX_ITEMS]; /* [limits] max-string-len = N ... */
    size_t n_limits;
    config_ignore ignores[CONFIG_MAX_ITEMS]; /* [ignore:PATTERN] rules=, reason= */
    size_t n_ignores;
    char error[512];
} config;

/* Find .gguflint.ini in the working directory or the nearest parent; a
 * malloc'd path, or NULL. */
char *config_find(void);
/* Read and validate a config file. Returns false with cfg->error set. */
bool config_load(config *cfg, const char *path);
/* The same from a document in memory (len bytes; `name` is recorded as its
 * path). Used by the config fuzz harness. */
bool config_parse_text(config *cfg, const char *text, size_t len, const char *name);
/* The value of a [gguflint] key, or NULL. */
const char *config_get(const config *cfg, const char *key);
void config_free(config *cfg);

#endif
