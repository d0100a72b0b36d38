/* fuzz_baseline.c - the --baseline reader (src/cli/baseline.c) on arbitrary
 * bytes: it must accept the file or give a reason, never crash or leak, and
 * what it accepts must hold only what the matcher relies on (entries sorted
 * by fingerprint, each line's rest inside the text, at most one entry per
 * 17 bytes). */
#include "fuzz_common.h"

#include "baseline.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    baseline b;
    if (!baseline_parse_text(&b, text, size, "fuzz.baseline")) {
        FUZZ_ASSERT(b.error[0] != '\0');
        baseline_free(&b);
        return 0;
    }
    FUZZ_ASSERT(b.n <= size / 17 + 1);
    for (size_t i = 0; i < b.n; i++) {
        FUZZ_ASSERT(b.e[i].text + b.e[i].len <= size);
        FUZZ_ASSERT(b.e[i].line >= 1 && !b.e[i].hit);
        if (i)
            FUZZ_ASSERT(b.e[i - 1].fp <= b.e[i].fp);
    }
    baseline_free(&b);
    return 0;
}
