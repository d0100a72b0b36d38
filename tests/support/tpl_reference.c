/* tpl_reference.c - linked into the template suites (tests/CMakeLists.txt,
 * which registers each of them a second time as NAME_refmode): with
 * GGUFLINT_TPL_REFERENCE set to anything but "0" in the environment, the
 * suite runs with the template analyser in its reference mode (every fast
 * path off, tpl_force_reference in template.h), so that what the suite
 * asserts holds of the plain byte loops too. */
#include "template/template.h"

#include <stdlib.h>
#include <string.h>

__attribute__((constructor)) static void tpl_reference_from_env(void)
{
    const char *v = getenv("GGUFLINT_TPL_REFERENCE");
    if (v && *v && strcmp(v, "0") != 0)
        tpl_force_reference(1);
}
