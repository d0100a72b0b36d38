/* rules_json.c - the rule table as one JSON document (`gguflint rules
 * --format json`), for tools that configure or document gguflint: every
 * rule with its id, slug, family, default severity, the severity in each
 * profile, its documentation, its CWE ("CWE-125" or null) and its
 * security-severity (a number, or null). schema_version 1; fields are only ever
 * added. */
#include "report/out.h"

void gguflint_rules_json(gguflint_write_fn w, void *user)
{
    if (!w)
        return;
    const out o = {w, user};
    out_put(&o, "{\"schema_version\":1,\"tool\":{\"name\":\"gguflint\",\"version\":");
    out_jstr(&o, GGUFLINT_VERSION);
    out_put(&o, "},\"profiles\":[");
    for (size_t p = 0; gguflint_profile_name(p); p++) {
        out_put(&o, p ? "," : "");
        out_jstr(&o, gguflint_profile_name(p));
    }
    out_put(&o, "],\"rules\":[");
    for (size_t i = 0; i < gguflint_rule_count(); i++) {
        const gguflint_rule_info *r = gguflint_rule(i);
        out_put(&o, i ? ",{\"id\":" : "{\"id\":");
        out_jstr(&o, r->id);
        out_put(&o, ",\"slug\":");
        out_jstr(&o, r->slug);
        out_put(&o, ",\"family\":");
        out_jstr(&o, r->family);
        out_put(&o, ",\"default_severity\":");
        out_jstr(&o, gguflint_severity_name(r->default_severity));
        out_put(&o, ",\"severity\":{");
        for (size_t p = 0; gguflint_profile_name(p); p++) {
            out_put(&o, p ? "," : "");
            out_jstr(&o, gguflint_profile_name(p));
            out_put(&o, ":");
            out_jstr(&o, gguflint_severity_name(gguflint_rule_profile_severity(i, p)));
        }
        const char *const names[] = {"summary", "what", "why", "example", "fix"};
        const char *const texts[] = {r->summary, r->what, r->why, r->example, r->fix};
        out_put(&o, "}");
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
            out_put(&o, ",\"");
            out_put(&o, names[k]);
            out_put(&o, "\":");
            out_jstr(&o, texts[k] ? texts[k] : "");
        }
        out_put(&o, ",\"cwe\":");
        if (r->cwe > 0)
            out_putf(&o, "\"CWE-%d\"", r->cwe);
        else
            out_put(&o, "null");
        out_put(&o, ",\"security_severity\":");
        out_put(&o, r->security_severity ? r->security_severity : "null");
        out_put(&o, "}");
    }
    out_put(&o, "]}\n");
}
