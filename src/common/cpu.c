/* cpu.c - the host's vector features (cpu.h). */
#include "common/cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
static int probed = -1; /* -1: not yet; then the CPU_* bits */

unsigned cpu_features(void)
{
    int h = __atomic_load_n(&probed, __ATOMIC_RELAXED);
    if (h < 0) {
        __builtin_cpu_init();
        h = (__builtin_cpu_supports("avx2") ? CPU_AVX2 : 0) |
            (__builtin_cpu_supports("popcnt") ? CPU_POPCNT : 0) |
            (__builtin_cpu_supports("bmi2") ? CPU_BMI2 : 0);
        __atomic_store_n(&probed, h, __ATOMIC_RELAXED);
    }
    return (unsigned)h;
}
#else
unsigned cpu_features(void)
{
    return 0;
}
#endif
