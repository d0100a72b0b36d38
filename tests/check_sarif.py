#!/usr/bin/env python3
"""check_sarif.py CLI SCHEMA FILE... - runs `gguflint --format sarif` over the
given files (plus a missing path, to exercise toolExecutionNotifications) and
validates the output against the official SARIF 2.1.0 JSON schema with a real
validator (python3-jsonschema). Also checks what GitHub code scanning needs:
ruleId, level, a message with the hex offset, startLine 1 with byteOffset and
byteLength, and partialFingerprints: each result its own (distinct findings
never share one, or code scanning merges their alerts), the same from one
run to the next and for two spellings of one path (./x, x, /abs/x run from
its folder). What security teams need: help.markdown on every rule, a
helpUri into RULES.md (with --help-uri) whose anchor is a real section,
security-severity and the "security" tag together, CWE tags of the form
external/cwe/cwe-NNN, the crasher rules GG207 and GG110 scored, relative
artifact URIs with uriBaseId SRCROOT and originalUriBaseIds naming it.
Exits 77 (skipped) when the schema or jsonschema is not available."""
import re
import json
import os
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    print("jsonschema not available: skipped")
    sys.exit(77)


def fingerprints(cli, args, cwd=None):
    out = subprocess.run([cli, "--format", "sarif"] + args, capture_output=True, cwd=cwd)
    run = json.loads(out.stdout.decode("utf-8"))["runs"][0]
    return run, [r["partialFingerprints"]["ggufFinding/v3"] for r in run["results"]]


def check_spellings(cli, validator, files):
    """One file named three ways from its folder gives one set of
    fingerprints and one URI; --help-uri gives helpUri into RULES.md."""
    failures = 0
    if not files:
        return 0
    path = os.path.abspath(files[0])
    folder, name = os.path.dirname(path), os.path.basename(path)
    seen = []
    for spelling in (name, "./" + name, path, folder + "//./" + name):
        run, prints = fingerprints(cli, [spelling], cwd=folder)
        uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                for r in run["results"]}
        seen.append((spelling, prints, uris))
    for spelling, prints, uris in seen[1:]:
        if prints != seen[0][1] or uris != seen[0][2]:
            print("fingerprints or URIs differ between", repr(seen[0][0]), "and",
                  repr(spelling), uris, seen[0][2])
            failures += 1
    url = "https://example.org/gguflint/blob/0123abc/rules/RULES.md"
    out = subprocess.run([cli, "--format", "sarif", "--help-uri", url, path], capture_output=True)
    doc = json.loads(out.stdout.decode("utf-8"))
    failures += len(list(validator.iter_errors(doc)))
    rules_md = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rules", "RULES.md")
    headings = set()
    if os.path.exists(rules_md):
        for line in open(rules_md, encoding="utf-8"):
            if line.startswith("## "):
                headings.add(re.sub(r"[^a-z0-9 -]", "", line[3:].strip().lower()).replace(" ", "-"))
    for rule in doc["runs"][0]["tool"]["driver"]["rules"]:
        uri = rule.get("helpUri", "")
        anchor = uri.split("#", 1)[1] if "#" in uri else ""
        if not uri.startswith(url + "#") or (headings and anchor not in headings):
            print("bad helpUri", uri, "for", rule["id"])
            failures += 1
    return failures


def main():
    cli, schema_path, files = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3:]
    if not os.path.exists(schema_path):
        print("schema not found: skipped")
        sys.exit(77)
    schema = json.load(open(schema_path))
    validator_cls = jsonschema.validators.validator_for(schema)
    validator = validator_cls(schema)
    files = [f for f in files if os.path.exists(f)]
    runs = [files, files + ["does-not-exist.gguf"], files[:1]]
    failures = 0
    for args in runs:
        out = subprocess.run([cli, "--format", "sarif"] + args, capture_output=True)
        if out.returncode not in (0, 1, 2):
            print("unexpected exit", out.returncode, args)
            failures += 1
            continue
        doc = json.loads(out.stdout.decode("utf-8"))
        errors = list(validator.iter_errors(doc))
        for e in errors[:5]:
            print("schema error:", e.message, list(e.path))
        failures += len(errors)
        run = doc["runs"][0]
        rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
        for res in run["results"]:
            ok = (res["ruleId"] in rule_ids
                  and rule_ids[res["ruleIndex"]] == res["ruleId"]
                  and res["level"] in ("error", "warning", "note")
                  and "0x" in res["message"]["text"]
                  and res["locations"][0]["physicalLocation"]["region"]["startLine"] == 1
                  and "byteOffset" in res["locations"][0]["physicalLocation"]["region"]
                  and res["partialFingerprints"])
            if not ok:
                print("bad result:", json.dumps(res)[:300])
                failures += 1
        prints = {}
        for res in run["results"]:
            fp = res.get("partialFingerprints", {}).get("ggufFinding/v3")
            if not fp:
                print("result without a ggufFinding/v3 fingerprint:", json.dumps(res)[:200])
                failures += 1
            elif fp in prints:
                print("two results share fingerprint", fp + ":", prints[fp][:120], "|",
                      res["message"]["text"][:120])
                failures += 1
            else:
                prints[fp] = res["message"]["text"]
        again = subprocess.run([cli, "--format", "sarif"] + args, capture_output=True)
        again_prints = [r["partialFingerprints"]["ggufFinding/v3"]
                        for r in json.loads(again.stdout.decode("utf-8"))["runs"][0]["results"]]
        if again_prints != [r["partialFingerprints"].get("ggufFinding/v3")
                            for r in run["results"]]:
            print("fingerprints differ between two runs over the same files")
            failures += 1
        for rule in run["tool"]["driver"]["rules"]:
            props = rule["properties"]
            if ("security" in props["tags"]) != ("security-severity" in props):
                print("security tag and security-severity disagree:", rule["id"])
                failures += 1
            for tag in props["tags"]:
                if tag.startswith("external/") and not re.fullmatch(r"external/cwe/cwe-\d+", tag):
                    print("bad CWE tag", tag, "on", rule["id"])
                    failures += 1
            if not rule.get("help", {}).get("markdown"):
                print("rule without help.markdown:", rule["id"])
                failures += 1
        scored = {r["id"] for r in run["tool"]["driver"]["rules"]
                  if "security-severity" in r["properties"]}
        for crasher in ("GG207", "GG110", "GG008", "GG720"):
            if crasher not in scored:
                print("crasher rule without security-severity:", crasher)
                failures += 1
        for res in run["results"]:
            loc = res["locations"][0]["physicalLocation"]["artifactLocation"]
            if not loc["uri"].startswith(("file:", "http:", "https:", "hf:")) and \
                    loc.get("uriBaseId") != "SRCROOT":
                print("relative URI without uriBaseId:", loc)
                failures += 1
        if run["results"] and "SRCROOT" not in run.get("originalUriBaseIds", {}):
            print("no originalUriBaseIds.SRCROOT")
            failures += 1
        if "does-not-exist.gguf" in args:
            inv = run["invocations"][0]
            if inv["executionSuccessful"] or not inv["toolExecutionNotifications"]:
                print("missing notification for an unreadable file")
                failures += 1
    failures += check_spellings(cli, validator, files)
    print("sarif: %d runs checked, %d failures" % (len(runs), failures))
    sys.exit(1 if failures else 0)


main()
