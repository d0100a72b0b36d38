/* vocab_tables.c - expands data/vocab/gen_tokmodels.def and
 * data/vocab/gen_pretok.def into the rows of vocab_tables.h. Data only: the
 * .def files are written by data/vocab/vocabgen.py and never edited here.
 * Every string is a char array inside its row, so the tables hold no
 * pointer and need no relocation. */
#include "checks/vocab_tables.h"

#include <string.h>

#define TREE VO_TREE
#define NEWER VO_NEWER
#define NO_VOCAB VM_NO_VOCAB
#define MERGES VM_MERGES
#define READS_PRE VM_READS_PRE
#define NO_BOS VP_NO_BOS

#define VOCAB_SOURCE(commit, date, build, ahead)
#define TOK_MODEL(name, vtype, flags, bos, eos, unk, sep, pad, mask, unless, forced, origin, src)  \
    {name, unless, forced, (uint8_t)(flags), origin, {bos, eos, unk, sep, pad, mask}},
const vocab_model vocab_models[] = {
#include "../../data/vocab/gen_tokmodels.def"
};
#undef TOK_MODEL
const size_t vocab_model_count = sizeof vocab_models / sizeof vocab_models[0];

#define PRE_TOK(name, ptype, value, flags, commit, date, build, origin, src)                       \
    {name, (uint8_t)(flags), origin},
const vocab_pre vocab_pres[] = {
#include "../../data/vocab/gen_pretok.def"
};
#undef PRE_TOK
#undef VOCAB_SOURCE
const size_t vocab_pre_count = sizeof vocab_pres / sizeof vocab_pres[0];

/* the stamp, from the first line of gen_tokmodels.def */
#define VOCAB_SOURCE(commit, date, build, ahead)                                                   \
    const char vocab_source_commit[41] = commit;                                                   \
    const char vocab_source_date[11] = date;                                                       \
    const char vocab_source_build[12] = build;
#define TOK_MODEL(...)
#include "../../data/vocab/gen_tokmodels.def"
#undef VOCAB_SOURCE
#undef TOK_MODEL

/* A name matches a row when it has the row's length and bytes; the row's
 * array is NUL-padded, so a name holding a NUL never matches. */
static int name_is(const char *row, size_t cap, const uint8_t *name, size_t len)
{
    return len > 0 && len < cap && row[len] == '\0' && memcmp(row, name, len) == 0 &&
           memchr(name, 0, len) == NULL;
}

const vocab_model *vocab_model_find(const uint8_t *name, size_t len)
{
    for (size_t i = 0; i < vocab_model_count; i++)
        if (name_is(vocab_models[i].name, sizeof vocab_models[i].name, name, len))
            return &vocab_models[i];
    return NULL;
}

const vocab_pre *vocab_pre_find(const uint8_t *name, size_t len)
{
    for (size_t i = 0; i < vocab_pre_count; i++)
        if (name_is(vocab_pres[i].name, sizeof vocab_pres[i].name, name, len))
            return &vocab_pres[i];
    return NULL;
}
