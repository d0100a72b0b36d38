/* main.c - the gguflint command line, built on the public API only: the
 * command dispatch and the small commands (rules, explain, dump). The lint
 * command is in lint_cmd.c.
 *
 *   gguflint [options] PATH...     lint files ('-' reads standard input)
 *   gguflint dump [--format F] [--full-arrays] PATH...
 *   gguflint rules [--format text|json|markdown]
 *   gguflint archs [--format text|json]
 *   gguflint explain ID
 *   gguflint diff [--format text|json] [--data] A B
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
#include <sys/resource.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

// clang-format off
/* One line of help per line of source; the defaults come from core/limits.h. */
const char usage_text[] =
    "usage: gguflint [options] PATH...      lint GGUF files ('-' = standard input)\n"
    "       gguflint [options] URL...       http://, https://, hf://ORG/REPO[@REV][/PATH]\n"
    "       gguflint dump [--format text|json] [--full-arrays] PATH...\n"
    "       gguflint rules [--format text|json|markdown]\n"
    "       gguflint archs [--format text|json]   architectures and their coverage\n"
    "       gguflint explain ID|SLUG\n"
    "       gguflint COMMAND --help        help on one command\n"
    "       gguflint hash [-o MANIFEST] PATH|URL...  SHA-256 of each tensor's data\n"
    "       gguflint hash --verify-manifest MANIFEST [--data-only] PATH...\n"
    "       gguflint diff [--format text|json] [--data] A B   what changed\n"
    "       gguflint estimate [--ctx N] [--format json] PATH   memory at N tokens\n"
    "\n"
    "options:\n"
    "  --format FORMAT           text (default), json, sarif, github, baseline or\n"
    "                            cyclonedx (a CycloneDX 1.6 AI-BOM); may be given\n"
    "                            several times to write several reports in one pass\n"
    "                            (all but one with an --output-file)\n"
    "  --output-file FILE        write the report of the --format before it to FILE\n"
    "                            (default: standard output)\n"
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
    "                            working directory or the nearest parent; not read\n"
    "                            under --profile security, not applied when it\n"
    "                            turns off security checks: GG800)\n"
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
    "  --jobs-fixed, --deep-read mmap|pread: see the man page\n"
    "  --deep                    also read the tensor data (NaN/Inf, block scales,\n"
    "                            all-zero tensors, padding between tensors)\n"
    "  --header-only             the file may be a prefix (a partial download): check\n"
    "                            everything up to the data section, not its bounds\n"
    "  --llama-build BUILD|DATE  the files must load on this llama.cpp (bNNNN or\n"
    "                            YYYY-MM-DD): each need newer than it is GG595\n";

/* The rest of the help (split: a C string literal may hold 4095 bytes). */
const char usage_limits[] =
    "  --base MODEL              check the LoRA adapters among the inputs against\n"
    "                            this base model (a path or URL, read once, metadata\n"
    "                            only) as llama.cpp loads them: architecture, target\n"
    "                            tensors, shapes; other inputs are linted as usual;\n"
    "                            a MODEL that cannot be read or is not a model exits 2\n"
    "  --write-baseline FILE     also record every finding by fingerprint in FILE\n"
    "  --baseline FILE           report only findings FILE does not record; say how\n"
    "                            many were baselined and which recorded ones are gone\n"
    "  --help-uri URL            SARIF: each rule's helpUri is URL#ANCHOR (URL: where\n"
    "                            rules/RULES.md is published)\n"
    "  --bom-timestamp WHEN      CycloneDX: record WHEN (seconds since 1970, now, or\n"
    "                            none) as the BOM's timestamp; default\n"
    "                            SOURCE_DATE_EPOCH, else none (reproducible)\n"
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
    gguflint_arch_info a = GGUFLINT_ARCH_INFO_INIT;
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

typedef struct dump_args {
    gguflint_format fmt;
    uint64_t elems; /* array elements shown; 0: all */
} dump_args;

static void dump_then(gguflint_ctx *ctx, void *arg)
{
    const dump_args *d = arg;
    gguflint_dump_ex(ctx, d->fmt, gguflint_write_file, stdout, d->elems);
}

/* One path; EXIT_CLEAN, EXIT_FINDINGS when what was dumped is not all there
 * is (not GGUF, or metadata not read to the end: as lint does for a
 * malformed file), EXIT_USAGE when it could not be read. */
static int dump_one(const char *path, void *arg)
{
    dump_args *d = arg;
    gguflint_ctx *ctx = cli_new_ctx();
    if (!ctx)
        return EXIT_USAGE;
    int st = guarded_run(ctx, path, 1ull << 30, dump_then, d);
    int rc = EXIT_USAGE;
    if (st != GGUFLINT_OK) {
        report_status(path, ctx, st);
    } else {
        const gguflint_header *h = gguflint_get_header(ctx);
        rc = h->is_gguf && h->metadata_complete ? EXIT_CLEAN : EXIT_FINDINGS;
    }
    gguflint_free(ctx);
    return rc;
}

/* dump [--format text|json] [--full-arrays] PATH...: each file in turn (a
 * JSON document per line for json; a "==> PATH <==" line before each text
 * dump when there are several). The exit status is the worst of them. */
static int cmd_dump(int argc, char **argv)
{
    static const char *const with_value[] = {"--format", NULL};
    dump_args d = {GGUFLINT_FORMAT_TEXT, 0};
    d.elems = DUMP_ELEMS;
    int first = cli_options_first(&argc, argv, with_value);
    if (first < 0)
        return EXIT_USAGE;
    for (int i = 1; i < first; i++) {
        if (strcmp(argv[i], "--format") == 0 && i + 1 < first) {
            if (!parse_format(argv[++i], &d.fmt))
                return usage_error("unknown format '%s'", argv[i]);
        } else if (strncmp(argv[i], "--format=", 9) == 0) {
            if (!parse_format(argv[i] + 9, &d.fmt))
                return usage_error("unknown format '%s'", argv[i] + 9);
        } else if (strcmp(argv[i], "--full-arrays") == 0) {
            d.elems = 0;
        } else {
            return usage_error("dump: unknown option '%s'", argv[i]);
        }
    }
    if (first >= argc)
        return usage_error("%s", "dump needs a path");
    if (d.fmt != GGUFLINT_FORMAT_TEXT && d.fmt != GGUFLINT_FORMAT_JSON)
        return usage_error("%s", "dump writes text or json");
    return cli_each_path(first, argc, argv, d.fmt == GGUFLINT_FORMAT_TEXT, dump_one, &d);
}

/* The subcommands, each with its one-paragraph help (`gguflint CMD --help`). */
typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} command;

static const command commands[] = {
    {"dump", cmd_dump,
     "usage: gguflint dump [--format text|json] [--full-arrays] PATH...\n"
     "Print the header, every KV with its type and value, and the tensor table of\n"
     "each file. Arrays show their first " GGUFLINT_STRINGIFY(
         DUMP_ELEMS) " elements; --full-arrays shows every\n"
                     "element. json writes one document per file, one per line. Exit 1 when a\n"
                     "file is not GGUF or its metadata cannot be read to the end, 2 when one\n"
                     "cannot be read.\n"},
    {"rules", cmd_rules,
     "usage: gguflint rules [--format text|json|markdown] [--markdown]\n"
     "List the rules: id, slug, family, default severity and summary (json: every\n"
     "field, with the severity in each profile, CWE and security-severity;\n"
     "markdown: rules/RULES.md).\n"},
    {"archs", cmd_archs,
     "usage: gguflint archs [--format text|json]\n"
     "List the architectures gguflint knows, how fully each is checked (full, keys,\n"
     "name) and the llama.cpp source its tables came from.\n"},
    {"explain", cmd_explain,
     "usage: gguflint explain ID|SLUG\n"
     "Print a rule's page: summary, family, severities, CWE and security-severity,\n"
     "what it checks, why, an example and the fix.\n"},
    {"hash", cmd_hash,
     "usage: gguflint hash [-o MANIFEST] PATH|URL...\n"
     "       gguflint hash --verify-manifest MANIFEST [--data-only] PATH...\n"
     "Write the SHA-256 of each file, of its data section and of each tensor's data\n"
     "(-o: to MANIFEST), or check files against a manifest. Options may follow the\n"
     "paths; the URL options of `gguflint --help` apply.\n"},
    {"diff", cmd_diff,
     "usage: gguflint diff [--format text|json] [--data] A B\n"
     "What changed from A to B: header fields, keys added, removed and changed (long\n"
     "strings and arrays by SHA-256 and length), tensors added, removed, reshaped and\n"
     "retyped, and the chat templates line by line. --data also reads the tensor data\n"
     "and compares each tensor's SHA-256. A shard NAME-0000K-of-0000N.gguf stands for\n"
     "its whole split set. Exit 0 when the files are the same, 1 when they differ, 2\n"
     "when one cannot be read.\n"},
    {"estimate", cmd_estimate,
     "usage: gguflint estimate [--ctx N] [--batch N] [--ubatch N] [--cache-type-k T]\n"
     "                         [--cache-type-v T] [--format text|json] PATH...\n"
     "Estimate the memory llama.cpp (CPU) takes for each model at a context of N\n"
     "tokens (default 4096): weights by buffer and tensor type, the KV cache per\n"
     "layer (grouped-query heads, sliding-window layers, MLA), recurrent state,\n"
     "the output and compute buffers. --batch and --ubatch default to 2048 and 512\n"
     "(at most N); the cache types to f16. Exit 1 when a file cannot be estimated.\n"},
};

static int dispatch(int argc, char **argv)
{
    for (size_t i = 0; argc >= 2 && i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].name) != 0)
            continue;
        if (cli_wants_help(argc - 1, argv + 1)) {
            fputs(commands[i].help, stdout);
            return EXIT_CLEAN;
        }
        return commands[i].run(argc - 1, argv + 1);
    }
    return cmd_lint(argc, argv);
}

/* Under an address-space limit (ulimit -v), glibc's extra malloc arenas
 * (each reserves 64 MiB of address space for a thread that contends) make
 * `--deep -j 8` fail at random: one arena serves every thread then. */
static void fit_address_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return;
#ifdef __GLIBC__
    mallopt(M_ARENA_MAX, 1);
#endif
}

int main(int argc, char **argv)
{
    install_bus_guard();
    fit_address_limit();
    return cli_run_on_big_stack(dispatch, argc, argv);
}
