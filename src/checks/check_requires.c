/* check_requires.c - GG595: under a pinned llama.cpp (--llama-build), every
 * need of the file (model/requires.h) that the pinned build cannot know. */
#include "checks/checks.h"

#include "model/model.h"
#include "model/requires.h"

#include <stdio.h>

void check_requires(gguflint_ctx *ctx)
{
    uint32_t build;
    const char *date;
    if (!llama_pin(ctx, &build, &date) || !rule_wanted(ctx, R_LLAMA_TOO_OLD))
        return;
    char pin[24];
    if (build)
        snprintf(pin, sizeof pin, "b%u", build);
    else
        snprintf(pin, sizeof pin, "%s", date);
    llama_req q;
    llama_requires(ctx, &q);
    for (size_t i = 0; i < q.n; i++) {
        const llama_need *n = &q.need[i];
        if (llama_need_newer(n, build, date) != 1)
            continue;
        char name[280], path[320];
        llama_need_name(n, name, sizeof name);
        if (n->t)
            tensor_path(path, sizeof path, ctx, n->t);
        else
            kv_path(path, sizeof path, n->kv);
        const char *what = hist_kind_name((hist_kind)n->kind);
        if (!n->row) {
            emit(ctx, R_LLAMA_TOO_OLD, n->offset, n->length, path,
                 "%s '%s' is unknown to the reference tree (llama.cpp %s of %s): the pinned %s "
                 "cannot load it",
                 what, name, hist_stamp_build(), hist_stamp_date(), pin);
        } else if (n->row->build) {
            emit(ctx, R_LLAMA_TOO_OLD, n->offset, n->length, path,
                 "%s '%s' needs llama.cpp b%u (%s, commit %.12s), newer than the pinned %s", what,
                 name, n->row->build, n->row->date, n->row->commit, pin);
        } else {
            emit(ctx, R_LLAMA_TOO_OLD, n->offset, n->length, path,
                 "%s '%s' needs llama.cpp after %s (%s, commit %.12s), newer than the pinned %s",
                 what, name, hist_stamp_build(), n->row->date, n->row->commit, pin);
        }
    }
}
