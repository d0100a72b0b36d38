/* attr.h - the compiler attributes the project spells one way: gcc and clang
 * both take them, other compilers get a no-op. */
#ifndef GGUFLINT_COMMON_ATTR_H
#define GGUFLINT_COMMON_ATTR_H

/* A case that runs on into the next one on purpose: `GGUFLINT_FALLTHROUGH;`
 * as the case's last statement. gcc also accepts a comment there; clang's
 * -Wimplicit-fallthrough needs the attribute. */
#if defined(__has_attribute)
#if __has_attribute(fallthrough)
#define GGUFLINT_FALLTHROUGH __attribute__((fallthrough))
#endif
#endif
#ifndef GGUFLINT_FALLTHROUGH
#define GGUFLINT_FALLTHROUGH                                                                       \
    do {                                                                                           \
    } while (0)
#endif

#endif
