/* report_text.c - the text report: one gcc-style line per finding
 * (PATH:0xOFFSET: SEVERITY ID slug: LOGICAL-PATH: message), optionally the
 * counts per rule, and a summary that includes the findings dropped by the
 * per-rule limit. With GGUFLINT_REPORT_COLOR the severity is coloured (ANSI
 * SGR); the colour codes are the library's own bytes, never the file's.
 * Messages and paths are already escaped by the library; they are escaped
 * again for the terminal (safe_text), and the display path given by the
 * caller is escaped here. A file that could not be read is printed by the
 * caller (to stderr), not here. */
#include "report/report.h"

#include "common/escape.h"

#include <inttypes.h>
#include <string.h>

#define SGR_RESET "\x1b[0m"
/* by severity: off (unused), note cyan, warning yellow, error red; bold */
static const char *const sgr[4] = {"", "\x1b[1;36m", "\x1b[1;33m", "\x1b[1;31m"};

typedef struct line {
    char b[256];
    size_t n;
    bool full;
} line;

static void add(line *l, const char *s)
{
    size_t m = strlen(s);
    if (m > sizeof l->b - l->n) {
        l->full = true;
        return;
    }
    memcpy(l->b + l->n, s, m);
    l->n += m;
}

/* ":0xOFFSET: SEVERITY ID slug: " in one write, without stdio: out_putf
 * and a write per piece cost a few hundred instructions a finding, and a -r
 * scan of many small files prints mostly these lines. Library text only. */
static void put_head(const out *o, bool color, const gguflint_finding *f,
                     const gguflint_rule_info *ri)
{
    line l = {{0}, 0, false};
    char hex[20];
    size_t h = sizeof hex;
    uint64_t v = f->offset;
    hex[--h] = '\0';
    do {
        hex[--h] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    add(&l, ":0x");
    add(&l, hex + h);
    add(&l, ": ");
    if (color)
        add(&l, sgr[f->severity & 3]);
    add(&l, gguflint_severity_name(f->severity));
    if (color)
        add(&l, SGR_RESET);
    add(&l, " ");
    add(&l, ri->id);
    add(&l, " ");
    add(&l, ri->slug);
    add(&l, ": ");
    if (!l.full) {
        out_putn(o, l.b, l.n);
        return;
    }
    out_putf(o, ":0x%" PRIx64 ": %s%s%s %s %s: ", f->offset, color ? sgr[f->severity & 3] : "",
             gguflint_severity_name(f->severity), color ? SGR_RESET : "", ri->id, ri->slug);
}

static void text_file(gguflint_report *r, const char *path, const gguflint_ctx *ctx, int status)
{
    if (status != GGUFLINT_OK || !ctx)
        return;
    const out *o = &r->o;
    size_t n = gguflint_finding_count(ctx);
    for (size_t i = 0; i < n; i++) {
        if (!report_shown(r, i))
            continue;
        const gguflint_finding *f = gguflint_finding_get(ctx, i);
        const gguflint_rule_info *ri = gguflint_rule((size_t)f->rule);
        out_escape(o, path, strlen(path));
        put_head(o, r->color, f, ri);
        if (f->path[0]) {
            safe_text(o->w, o->u, f->path, strlen(f->path));
            out_put(o, ": ");
        }
        safe_text(o->w, o->u, f->message, strlen(f->message));
        out_put(o, "\n");
    }
    report_requires_text(o, path, ctx);
    uint64_t d = gguflint_findings_dropped(ctx);
    if (d) {
        out_escape(o, path, strlen(path));
        out_putf(o, ": note: %" PRIu64 " more findings not shown (per-rule limit)\n", d);
    }
}

static void text_end(gguflint_report *r, bool summary)
{
    report_statistics_text(r);
    if (!summary)
        return;
    const uint64_t *c = r->counts;
    /* a file that could not be read was not checked: it is counted apart */
    uint64_t checked = r->files - r->unreadable;
    out_putf(&r->o, "%" PRIu64 " file%s checked", checked, checked == 1 ? "" : "s");
    if (r->unreadable)
        out_putf(&r->o, ", %" PRIu64 " unreadable", r->unreadable);
    out_putf(&r->o, ": %" PRIu64 " error%s, %" PRIu64 " warning%s, %" PRIu64 " note%s",
             c[GGUFLINT_ERROR], c[GGUFLINT_ERROR] == 1 ? "" : "s", c[GGUFLINT_WARNING],
             c[GGUFLINT_WARNING] == 1 ? "" : "s", c[GGUFLINT_NOTE],
             c[GGUFLINT_NOTE] == 1 ? "" : "s");
    if (r->dropped)
        out_putf(&r->o, ", %" PRIu64 " more not shown (over the per-rule limit)", r->dropped);
    if (r->baselined || r->gone)
        out_putf(&r->o, ", %" PRIu64 " baselined (%" PRIu64 " baseline entr%s gone)", r->baselined,
                 r->gone, r->gone == 1 ? "y" : "ies");
    if (r->config) { /* the configuration file that set the rules */
        out_put(&r->o, " (config: ");
        out_escape(&r->o, r->config, strlen(r->config));
        out_put(&r->o, ")");
    }
    out_put(&r->o, "\n");
}

const report_writer report_text = {NULL, text_file, text_end};
