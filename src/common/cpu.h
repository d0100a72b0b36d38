/* cpu.h - the host's vector features, probed once (the one CPU-feature
 * probe of the library: every AVX2 path asks here). */
#ifndef GGUFLINT_CPU_H
#define GGUFLINT_CPU_H

enum { CPU_AVX2 = 1u << 0, CPU_POPCNT = 1u << 1, CPU_BMI2 = 1u << 2 };

/* The CPU_* bits the host has; 0 off x86-64 or without a GNU compiler.
 * Probed on first use; a benign race (every probe agrees). */
unsigned cpu_features(void);

#endif
