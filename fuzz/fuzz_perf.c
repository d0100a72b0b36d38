/* fuzz_perf.c - performance fuzzing (the PerfFuzz idea): the harness fails
 * when linting an input costs more than the complexity contract allows for
 * its size, and it steers the fuzzer towards inputs that cost more per byte.
 *
 * The cost is counted inside the harness: the library is built with clang's
 * -fprofile-instr-generate (the perf-fuzz preset), which keeps a 64-bit
 * execution counter per basic-block edge in the section __llvm_prf_cnts; the
 * sum of the counters before and after a run is the number of edges the run
 * took, a measure of its instructions that counts every loop of every stage
 * (parser, checks, template analysis, reports) without instrumenting them
 * by hand. The budget is BASE + PER_BYTE x size edges (PERF_FUZZ_PER_BYTE and
 * PERF_FUZZ_BASE override them); over it, the harness prints the cost and
 * aborts, so the input is kept as a crash.
 *
 * Guidance: the cost per byte, in quarter powers of two, sets one of the
 * counters of the section __libfuzzer_extra_counters, so libFuzzer keeps an
 * input that reaches a higher cost per byte than any before as new coverage.
 * Inputs are linted with every rule at its default and the security
 * profile's template analysis, plus --deep when the last byte says so. In a
 * build without the counters (the replay engine of the ordinary tests) the
 * harness only lints. */
#include "fuzz_common.h"

extern uint64_t __start___llvm_prf_cnts[] __attribute__((weak));
extern uint64_t __stop___llvm_prf_cnts[] __attribute__((weak));

#define N_BUCKETS 128
__attribute__((used, section("__libfuzzer_extra_counters"))) static uint8_t perf_buckets[N_BUCKETS];

/* Edges taken so far by instrumented code (0 without the counters). */
static uint64_t edges(void)
{
    uint64_t s = 0;
    if (!__start___llvm_prf_cnts || !__stop___llvm_prf_cnts)
        return 0;
    for (const uint64_t *p = __start___llvm_prf_cnts; p < __stop___llvm_prf_cnts; p++)
        s += *p;
    return s;
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtoull(v, NULL, 10) : dflt;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The bound: the contract's target is 250 instructions per byte, and
     * an edge is about five instructions, so PER_BYTE 100 allows twice the
     * target; BASE covers the fixed costs (rule tables, the template
     * analyser's fixed folding budget: 11 M edges for the worst corpus file). */
    static uint64_t per_byte, base;
    static int verbose = -1;
    if (verbose < 0) {
        per_byte = env_u64("PERF_FUZZ_PER_BYTE", 100);
        base = env_u64("PERF_FUZZ_BASE", 16000000);
        verbose = getenv("PERF_FUZZ_VERBOSE") != NULL;
    }
    gguflint_options *opt = gguflint_options_new();
    if (!opt)
        return 0;
    gguflint_options_profile(opt, "security");
    if (size > 0 && (data[size - 1] & 0x80))
        gguflint_options_set_deep(opt, true);
    uint64_t before = edges();
    gguflint_ctx *ctx = gguflint_new(opt);
    gguflint_options_free(opt);
    if (!ctx)
        return 0;
    fuzz_check_status(gguflint_set_buffer(ctx, data, size));
    int st = gguflint_run(ctx);
    fuzz_check_status(st);
    fuzz_sink sink = {0, 1};
    gguflint_report *r = gguflint_report_new(GGUFLINT_FORMAT_TEXT, fuzz_write, &sink);
    if (r) {
        gguflint_report_file(r, "perf.gguf", ctx, st);
        gguflint_report_end(r, true);
        gguflint_report_free(r);
    }
    gguflint_free(ctx);
    uint64_t cost = edges() - before;
    if (cost == 0)
        return 0; /* no counters in this build */
    double per = (double)cost / (double)(size + 64);
    /* bucket: 4 x log2 of the cost per byte, from the leading bit and the
     * two after it */
    uint64_t q = cost / (size + 64);
    int b = 0;
    if (q) {
        int msb = 63 - __builtin_clzll(q);
        b = 1 + 4 * msb + (msb >= 2 ? (int)((q >> (msb - 2)) & 3) : 0);
    }
    perf_buckets[b < N_BUCKETS ? b : N_BUCKETS - 1] = 1;
    uint64_t bound = base + per_byte * (uint64_t)size;
    if (verbose)
        fprintf(stderr, "perf: %zu bytes, %llu edges, %.1f per byte, %.1f %% of the budget\n", size,
                (unsigned long long)cost, per, 100.0 * (double)cost / (double)bound);
    if (cost > bound) {
        fprintf(stderr,
                "perf: budget exceeded: %llu edges for %zu bytes (%.1f per byte; the bound is "
                "%llu + %llu per byte)\n",
                (unsigned long long)cost, size, per, (unsigned long long)base,
                (unsigned long long)per_byte);
        abort();
    }
    return 0;
}
