/* genkit.c - see genkit.h. */
#include "genkit.h"

#include <stdio.h>
#include <stdlib.h>

static void *checked(void *p)
{
    if (!p) {
        fputs("out of memory\n", stderr);
        exit(1);
    }
    return p;
}

void *gk_malloc(size_t n)
{
    return checked(malloc(n ? n : 1));
}

void *gk_calloc(size_t n, size_t size)
{
    return checked(calloc(n ? n : 1, size ? size : 1));
}

uint64_t gk_rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}
