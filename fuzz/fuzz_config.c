/* fuzz_config.c - the .gguflint.ini reader (src/cli/config.c, over libinih)
 * on arbitrary bytes: it must accept a file or give a reason, never crash or
 * leak, and whatever it accepts must hold only what the CLI relies on (every
 * [ignore:] section with its rules and a reason, counts within the fixed
 * tables). */
#include "fuzz_common.h"

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    config cfg;
    if (!config_parse_text(&cfg, (const char *)data, size, "fuzz.ini")) {
        FUZZ_ASSERT(cfg.error[0] != '\0');
        config_free(&cfg);
        return 0;
    }
    FUZZ_ASSERT(cfg.n_main <= CONFIG_MAX_ITEMS && cfg.n_severity <= CONFIG_MAX_ITEMS);
    FUZZ_ASSERT(cfg.n_limits <= CONFIG_MAX_ITEMS && cfg.n_ignores <= CONFIG_MAX_ITEMS);
    for (size_t i = 0; i < cfg.n_ignores; i++) {
        const config_ignore *ig = &cfg.ignores[i];
        FUZZ_ASSERT(ig->pattern && ig->rules && ig->reason && ig->rules[0] && ig->reason[0]);
    }
    for (size_t i = 0; i < cfg.n_main; i++)
        FUZZ_ASSERT(cfg.main[i].key && cfg.main[i].value);
    config_free(&cfg);
    return 0;
}
