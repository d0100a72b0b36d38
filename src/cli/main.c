/* main.c - the gguflint command line, built on the public API only: the
 * command dispatch and the small commands (rules, explain, dump). The lint
 * command is in lint_cmd.c.
 *
 *   gguflint [options] PATH...     lint files ('-' reads standard input)
 *   gguflint dump [--format F] PATH
 *   gguflint rules [--format text|json|markdown]
 *   gguflint archs [--format text|json]
 *   gguflint explain ID
 *
 * Exit status: 0 when nothing is at or above the fail level, 1 when something
 * is (dump: when the file is not GGUF or its metadata cannot be read to the
 * end), 2 for usage, I/O or internal errors. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include "core/limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// clang-format off
/* One line of help per line of source; the defaults come from core/limits.h. */
const char usage_text[] =
    "usage: gguflint [options] PATH...      lint GGUF files ('-' = standard input)\n"
    "       gguflint [options] URL...       http://, https://, hf://ORG/REPO[@REV][/PATH]\n"
    "       gguflint dump [--format text|json] PATH\n"
    "       gguflint rules [--format text|json|markdown]\n"
    "       gguflint archs [--format text|json]   architectures and their coverage\n"
    "       gguflint explain ID|SLUG\n"
    "       gguflint hash [-o MANIFEST] PATH|URL...  SHA-256 of each tensor's data\n"
    "       gguflint hash --verify-manifest MANIFEST [--data-only] PATH...\n"
    "\n"
    "options:\n"
    "  --format FORMAT           text (default), json, sarif or github; may be given\n"
    "                            several times to write several reports in one pass\n"
    "  --output-file FILE        write the report of the --format before it to FILE\n"
    "                            (default: standard output, where the last --format\n"
    "                            given without a file wins)\n"
    "  --color WHEN              colour text output: auto (on a terminal, unless\n"
    "                            NO_COLOR is set; the default), always or never\n"
    "  --statistics              count the findings of each rule (text and json)\n"
    "  --profile NAME            ggml (default: what llama.cpp accepts), spec (what\n"
    "                            docs/gguf.md allows), strict (canonical writer\n"
    "                            output), security (untrusted downloads)\n"
    "  --select LIST             check only these rules (ids, id prefixes like GG1,\n"
    "                            slugs, families container/kv/tensor/data, ALL)\n"
    "  --extend-select LIST      enable these rules in addition\n"
    "  --ignore LIST             do not check these rules\n"
    "  --severity RULE=LEVEL     override a rule's severity (error|warning|note|off)\n"
    "  --fail-on LEVEL           exit 1 when a finding is at or above LEVEL\n"
    "                            (error|warning|note; default error)\n"
    "  --exit-zero               exit 0 even when there are findings\n"
    "  --quiet                   no summary line\n"
    "  --config FILE             read options from FILE (default: .gguflint.ini in the\n"
    "                            working directory or the nearest parent, except\n"
    "                            under --profile security or inside a directory\n"
    "                            scanned with -r)\n"
    "  --isolated                ignore every configuration file\n"
    "  -r, --recursive           lint directories: every file below them with the\n"
    "                            GGUF magic or a .gguf name, symlinks followed, each\n"
    "                            file once; shards of a split set found together\n"
    "                            are also checked as a set, and the quantisations\n"
    "                            of one model for equal chat templates (GG744);\n"
    "                            finding nothing exits 2\n"
    "  --include GLOB            with -r: lint only files matching GLOB (a path\n"
    "                            relative to the directory given, or the base name\n"
    "                            when GLOB has no '/'; '*' does not cross '/')\n"
    "  --exclude GLOB            with -r: skip files and directories matching GLOB\n"
    "  --allow-unreadable        with -r: what cannot be read is a warning, not an error\n"
    "  -j, --jobs N              lint N files at once (default 1); output order is\n"
    "                            always the order of the inputs\n"
    "  --deep                    also read the tensor data (NaN/Inf, block scales,\n"
    "                            all-zero tensors, padding between tensors)\n"
    "  --header-only             the file may be a prefix (a partial download): check\n"
    "                            everything up to the data section, not its bounds\n";

/* The rest of the help (split: a C string literal may hold 4095 bytes). */
const char usage_limits[] =
    "  --base MODEL              check the LoRA adapters among the inputs against\n"
    "                            this base model (a path or URL, read once, metadata\n"
    "                            only) as llama.cpp loads them: architecture, target\n"
    "                            tensors, shapes; other inputs are linted as usual;\n"
    "                            a MODEL that cannot be read or is not a model exits 2\n"
    "  --max-string-len N        longest string accepted (default " GGUFLINT_STRINGIFY(LIMIT_DEFAULT_STRING_LEN) ")\n"
    "  --max-array-count N       most elements in one array (default " GGUFLINT_STRINGIFY(LIMIT_DEFAULT_ARRAY_COUNT) ")\n"
    "  --max-kv-count N          most KVs declared (default " GGUFLINT_STRINGIFY(LIMIT_DEFAULT_KV_COUNT) ")\n"
    "  --max-tensor-count N      most tensors declared (default " GGUFLINT_STRINGIFY(LIMIT_DEFAULT_TENSOR_COUNT) ")\n"
    "  --max-depth N             deepest array nesting walked (default " GGUFLINT_STRINGIFY(LIMIT_DEFAULT_DEPTH) ")\n"
    "  --max-findings-per-rule N findings kept per rule and file (default " GGUFLINT_STRINGIFY(LIMIT_DEFAULT_FINDINGS_PER_RULE) ")\n"
    "  --stdin-max N             most bytes read from standard input (default 64 MiB)\n"
    "URLs (metadata read with HTTP range requests; $HF_ENDPOINT, $HF_TOKEN; these\n"
    "options apply to hash and its URLs too):\n"
    "  --max-fetch N             most metadata bytes fetched per file (default " GGUFLINT_STRINGIFY(LIMIT_DEFAULT_FETCH_MAX_BYTES) ")\n"
    "  --fetch-first-range N     bytes of the first request (default " GGUFLINT_STRINGIFY(LIMIT_DEFAULT_FETCH_FIRST_RANGE) ")\n"
    "  --header 'NAME: VALUE'    send this header to the URL's own host only\n"
    "  --timeout S               fail a request that receives nothing for S seconds\n"
    "                            (default " GGUFLINT_STRINGIFY(LIMIT_DEFAULT_FETCH_TIMEOUT_S) ")\n"
    "  --connect-timeout S       seconds to connect (default " GGUFLINT_STRINGIFY(LIMIT_DEFAULT_FETCH_CONNECT_TIMEOUT_S) ")\n"
    "  --retries N               retries after 429 and 5xx answers (default " GGUFLINT_STRINGIFY(LIMIT_DEFAULT_FETCH_RETRIES) ")\n"
    "  --deadline S              end a request after S seconds however slowly its bytes\n"
    "                            come, retries and Retry-After waits included (default " GGUFLINT_STRINGIFY(LIMIT_DEFAULT_FETCH_DEADLINE_S) ")\n"
    "  --file-deadline S         end every request of one remote file after S seconds\n"
    "                            (default " GGUFLINT_STRINGIFY(LIMIT_DEFAULT_FETCH_FILE_DEADLINE_S) "; raise it to hash or --deep big remote files)\n"
    "  --version, -h/--help\n";
// clang-format on

static int cmd_rules(int argc, char **argv)
{
    const char *fmt = "text";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--markdown") == 0)
            fmt = "markdown";
        else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc)
            fmt = argv[++i];
        else if (strncmp(argv[i], "--format=", 9) == 0)
            fmt = argv[i] + 9;
        else
            return usage_error("rules: unknown argument '%s'", argv[i]);
    }
    if (strcmp(fmt, "markdown") == 0) {
        gguflint_rules_markdown(gguflint_write_file, stdout);
        return EXIT_CLEAN;
    }
    if (strcmp(fmt, "json") == 0) {
        gguflint_rules_json(gguflint_write_file, stdout);
        return EXIT_CLEAN;
    }
    if (strcmp(fmt, "text") != 0)
        return usage_error("rules: unknown format '%s' (text, json, markdown)", fmt);
    for (size_t i = 0; i < gguflint_rule_count(); i++) {
        const gguflint_rule_info *r = gguflint_rule(i);
        printf("%-6s %-28s %-10s %-8s %s\n", r->id, r->slug, r->family,
               gguflint_severity_name(r->default_severity), r->summary);
    }
    return EXIT_CLEAN;
}

/* Every architecture name with its coverage level and the llama.cpp file and
 * commit its tables came from. Names and paths are plain ASCII from the
 * generated tables, so the JSON needs no escaping beyond the quotes. */
static int cmd_archs(int argc, char **argv)
{
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
            const char *f = argv[++i];
            if (strcmp(f, "json") == 0)
                json = true;
            else if (strcmp(f, "text") != 0)
                return usage_error("archs: --format is text or json, not '%s'", f);
        } else {
            return usage_error("archs: unknown argument '%s'", argv[i]);
        }
    }
    size_t n = gguflint_arch_count(), full = 0, keys = 0;
    gguflint_arch_info a;
    for (size_t i = 0; i < n; i++) {
        gguflint_arch_get(i, &a);
        full += strcmp(a.coverage, "full") == 0;
        keys += strcmp(a.coverage, "keys") == 0;
    }
    if (json) {
        printf("{\"stamp\": {\"commit\": \"%s\", \"date\": \"%s\", \"build\": \"%s\"},\n",
               gguflint_arch_names_commit(), gguflint_arch_tables_date(),
               gguflint_arch_tables_build());
        printf(" \"names_source\": {\"file\": \"%s\", \"commit\": \"%s\"},\n",
               gguflint_arch_names_source(), gguflint_arch_names_commit());
        printf(" \"summary\": {\"architectures\": %zu, \"full\": %zu, \"keys\": %zu, "
               "\"name\": %zu},\n \"architectures\": [",
               n, full, keys, n - full - keys);
        for (size_t i = 0; i < n; i++) {
            gguflint_arch_get(i, &a);
            printf("%s\n  {\"name\": \"%s\", \"coverage\": \"%s\", \"keys\": %zu, "
                   "\"tensors\": %zu, \"source\": ",
                   i ? "," : "", a.name, a.coverage, a.key_count, a.tensor_count);
            if (a.source)
                printf("{\"file\": \"%s\", \"commit\": \"%s\"}}", a.source, a.source_commit);
            else
                printf("null}");
        }
        printf("\n]}\n");
        return EXIT_CLEAN;
    }
    printf("%-20s %-5s %5s %7s  %s\n", "ARCHITECTURE", "LEVEL", "KEYS", "TENSORS",
           "LLAMA.CPP SOURCE");
    for (size_t i = 0; i < n; i++) {
        gguflint_arch_get(i, &a);
        printf("%-20s %-5s %5zu %7zu  ", a.name, a.coverage, a.key_count, a.tensor_count);
        if (a.source)
            printf("%s @ %s\n", a.source, a.source_commit);
        else
            printf("-\n");
    }
    printf("%zu architectures (names: %s @ %s): %zu full, %zu keys only, %zu name only\n", n,
           gguflint_arch_names_source(), gguflint_arch_names_commit(), full, keys, n - full - keys);
    const char *build = gguflint_arch_tables_build();
    printf("tables: llama.cpp of %s (%s%s%s)\n", gguflint_arch_tables_date(),
           gguflint_arch_names_commit(), build[0] ? ", " : "", build);
    return EXIT_CLEAN;
}

static int cmd_explain(int argc, char **argv)
{
    if (argc != 2)
        return usage_error("%s", "explain takes one rule id or slug");
    int i = gguflint_rule_find(argv[1]);
    if (i < 0)
        return usage_error("unknown rule '%s'", argv[1]);
    gguflint_rule_explain((size_t)i, gguflint_write_file, stdout);
    return EXIT_CLEAN;
}

static void dump_then(gguflint_ctx *ctx, void *arg)
{
    gguflint_dump(ctx, *(gguflint_format *)arg, gguflint_write_file, stdout);
}

static int cmd_dump(int argc, char **argv)
{
    gguflint_format fmt = GGUFLINT_FORMAT_TEXT;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
            if (!parse_format(argv[++i], &fmt))
                return usage_error("unknown format '%s'", argv[i]);
        } else if (strncmp(argv[i], "--format=", 9) == 0) {
            if (!parse_format(argv[i] + 9, &fmt))
                return usage_error("unknown format '%s'", argv[i] + 9);
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return usage_error("dump: unknown option '%s'", argv[i]);
        } else if (path) {
            return usage_error("%s", "dump takes one path");
        } else {
            path = argv[i];
        }
    }
    if (!path)
        return usage_error("%s", "dump needs a path");
    if (fmt != GGUFLINT_FORMAT_TEXT && fmt != GGUFLINT_FORMAT_JSON)
        return usage_error("%s", "dump writes text or json");
    gguflint_ctx *ctx = gguflint_new(NULL);
    if (!ctx) {
        fprintf(stderr, "gguflint: out of memory\n");
        return EXIT_USAGE;
    }
    int st = guarded_run(ctx, path, 1ull << 30, dump_then, &fmt);
    if (st < 0) {
        fprintf(stderr, "gguflint: ");
        err_text(path);
        fprintf(stderr, ": the file changed (shrank) while being read\n");
        gguflint_free(ctx);
        return EXIT_USAGE;
    }
    if (st != GGUFLINT_OK) {
        report_status(path, ctx, st);
        gguflint_free(ctx);
        return EXIT_USAGE;
    }
    /* What was dumped is all there is only when the file is GGUF and its
     * metadata was read to the end; otherwise the dump is partial: exit 1,
     * as lint does for a malformed file. */
    const gguflint_header *h = gguflint_get_header(ctx);
    int rc = h->is_gguf && h->metadata_complete ? EXIT_CLEAN : EXIT_FINDINGS;
    gguflint_free(ctx);
    return rc;
}

static int dispatch(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "dump") == 0)
        return cmd_dump(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "rules") == 0)
        return cmd_rules(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "hash") == 0)
        return cmd_hash(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "archs") == 0)
        return cmd_archs(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "explain") == 0)
        return cmd_explain(argc - 1, argv + 1);
    return cmd_lint(argc, argv);
}

int main(int argc, char **argv)
{
    install_bus_guard();
    return cli_run_on_big_stack(dispatch, argc, argv);
}
