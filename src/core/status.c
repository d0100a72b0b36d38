/* status.c - the status strings and the version of the library linked. */
#include "gguflint.h"

const char *gguflint_strerror(int st)
{
    switch (st) {
    case GGUFLINT_OK: return "ok";
    case GGUFLINT_E_IO: return "I/O error";
    case GGUFLINT_E_NOT_REGULAR: return "not a regular file";
    case GGUFLINT_E_NOMEM: return "out of memory";
    case GGUFLINT_E_STATE: return "bad call sequence";
    case GGUFLINT_E_ARG: return "bad argument";
    case GGUFLINT_E_INTERNAL: return "internal error";
    default: return "unknown status";
    }
}

const char *gguflint_version(void)
{
    return GGUFLINT_VERSION;
}

unsigned gguflint_version_number(void)
{
    return GGUFLINT_VERSION_NUMBER;
}
