/* report_requires.c - a file's llama.cpp requirement (model/requires.h) in
 * the reports: JSON "requires_llama" (every file), and in text one line per
 * file when the run pinned a build (--llama-build). */
#include "model/requires.h"
#include "report/report.h"

#include <inttypes.h>
#include <string.h>

static void put_row(const out *o, const hist_row *r)
{
    if (!r) {
        out_put(o, "\"build\":null,\"date\":null,\"commit\":null");
        return;
    }
    if (r->build)
        out_putf(o, "\"build\":\"b%u\"", r->build);
    else
        out_put(o, "\"build\":null");
    out_putf(o, ",\"date\":\"%s\",\"commit\":\"%s\"", r->date, r->commit);
}

void report_requires_json(const out *o, const gguflint_ctx *ctx)
{
    llama_req q;
    llama_requires(ctx, &q);
    out_put(o, ",\"requires_llama\":{");
    put_row(o, q.newest ? q.newest->row : NULL);
    out_put(o, ",\"reasons\":[");
    for (size_t i = 0; i < q.n; i++) {
        const llama_need *n = &q.need[i];
        char name[280];
        out_put(o, i ? ",{\"what\":" : "{\"what\":");
        out_jstr(o, hist_kind_name((hist_kind)n->kind));
        out_put(o, ",\"name\":");
        out_jstr(o, llama_need_name(n, name, sizeof name));
        out_putf(o, ",\"offset\":%" PRIu64 ",", n->offset);
        put_row(o, n->row);
        out_put(o, ",\"source\":");
        if (n->row)
            out_putf(o, "\"llama.cpp history (data/llama/history.def, tree %.12s of %s)\"",
                     hist_stamp_commit(), hist_stamp_date());
        else
            out_putf(o, "\"unknown to the reference tree (llama.cpp %s of %s)\"",
                     hist_stamp_build(), hist_stamp_date());
        out_put(o, "}");
    }
    out_put(o, "]}");
}

void report_requires_text(const out *o, const char *path, const gguflint_ctx *ctx)
{
    uint32_t build;
    const char *date;
    if (!llama_pin(ctx, &build, &date))
        return;
    llama_req q;
    llama_requires(ctx, &q);
    size_t unknown = 0;
    for (size_t i = 0; i < q.n; i++)
        unknown += !q.need[i].row;
    if (!q.newest && !unknown)
        return;
    out_escape(o, path, strlen(path));
    out_put(o, ": requires llama.cpp ");
    if (q.newest) {
        const llama_need *n = q.newest;
        char name[280];
        if (n->row->build)
            out_putf(o, "b%u", n->row->build);
        else
            out_putf(o, "after %s", hist_stamp_build());
        out_putf(o, " (%s, commit %.12s) for %s %s", n->row->date, n->row->commit,
                 hist_kind_name((hist_kind)n->kind), llama_need_name(n, name, sizeof name));
    } else {
        out_put(o, "(no dated need)");
    }
    if (unknown)
        out_putf(o, "; %zu name%s unknown to the reference tree", unknown, unknown == 1 ? "" : "s");
    out_put(o, "\n");
}
