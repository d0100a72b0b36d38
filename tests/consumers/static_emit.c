/* static_emit.c - a C program that defines its own `emit`, `grow` and `q`
 * (names the library uses internally) and links the static library: it
 * must link, and the library must still report findings (its internal
 * calls must not bind to these).
 *   consumer_static FILE EXPECTED_MIN_FINDINGS */
#include <gguflint.h>

#include <stdio.h>
#include <stdlib.h>

int emit(int x);
int grow(int x);
int q(int x);

int emit(int x)
{
    return x + 1;
}

int grow(int x)
{
    return x * 2;
}

int q(int x)
{
    return x - 1;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    gguflint_ctx *ctx = gguflint_new(NULL);
    int st = gguflint_open_file(ctx, argv[1]);
    if (st == GGUFLINT_OK)
        st = gguflint_run(ctx);
    if (st != GGUFLINT_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], gguflint_strerror(st));
        gguflint_free(ctx);
        return 2;
    }
    size_t n = gguflint_finding_count(ctx);
    printf("%s: %zu findings, own emit(1) = %d\n", argv[1], n, emit(grow(q(1))));
    gguflint_free(ctx);
    return n >= strtoul(argv[2], NULL, 10) ? 0 : 1;
}
