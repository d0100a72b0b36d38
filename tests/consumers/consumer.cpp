// consumer.cpp - a C++ program on the installed shared library: the header
// compiles as C++, the API links, and linting a file finds what it should.
//   consumer_cxx FILE EXPECTED_MIN_FINDINGS
#include <gguflint.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    std::unique_ptr<gguflint_options, void (*)(gguflint_options *)> opt(gguflint_options_new(),
                                                                        gguflint_options_free);
    if (!opt || gguflint_options_profile(opt.get(), "security") != GGUFLINT_OK)
        return 2;
    gguflint_ctx *ctx = gguflint_new(opt.get());
    int st = gguflint_open_file(ctx, argv[1]);
    if (st == GGUFLINT_OK)
        st = gguflint_run(ctx);
    if (st != GGUFLINT_OK) {
        std::fprintf(stderr, "%s: %s\n", argv[1], gguflint_strerror(st));
        gguflint_free(ctx);
        return 2;
    }
    size_t n = gguflint_finding_count(ctx);
    std::printf("%s: %zu findings (library %s, header %s)\n", argv[1], n, gguflint_version(),
                GGUFLINT_VERSION);
    gguflint_free(ctx);
    bool version_ok = gguflint_version_number() == GGUFLINT_VERSION_NUMBER;
    return version_ok && n >= std::strtoul(argv[2], nullptr, 10) ? 0 : 1;
}
