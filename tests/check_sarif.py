#!/usr/bin/env python3
"""check_sarif.py CLI SCHEMA FILE... - runs `gguflint --format sarif` over the
given files (plus a missing path, to exercise toolExecutionNotifications) and
validates the output against the official SARIF 2.1.0 JSON schema with a real
validator (python3-jsonschema). Also checks what GitHub code scanning needs:
ruleId, level, a message with the hex offset, startLine 1 with byteOffset and
byteLength, and partialFingerprints: each result its own (distinct findings
never share one, or code scanning merges their alerts) and the same from one
run to the next. Exits 77 (skipped) when the schema or jsonschema is not
available."""
import json
import os
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    print("jsonschema not available: skipped")
    sys.exit(77)


def main():
    cli, schema_path, files = sys.argv[1], sys.argv[2], sys.argv[3:]
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
            fp = res.get("partialFingerprints", {}).get("ggufFinding/v2")
            if not fp:
                print("result without a ggufFinding/v2 fingerprint:", json.dumps(res)[:200])
                failures += 1
            elif fp in prints:
                print("two results share fingerprint", fp + ":", prints[fp][:120], "|",
                      res["message"]["text"][:120])
                failures += 1
            else:
                prints[fp] = res["message"]["text"]
        again = subprocess.run([cli, "--format", "sarif"] + args, capture_output=True)
        again_prints = [r["partialFingerprints"]["ggufFinding/v2"]
                        for r in json.loads(again.stdout.decode("utf-8"))["runs"][0]["results"]]
        if again_prints != [r["partialFingerprints"].get("ggufFinding/v2")
                            for r in run["results"]]:
            print("fingerprints differ between two runs over the same files")
            failures += 1
        for rule in run["tool"]["driver"]["rules"]:
            if "security" in rule["properties"]["tags"] and \
                    "security-severity" not in rule["properties"]:
                print("security rule without security-severity:", rule["id"])
                failures += 1
        if "does-not-exist.gguf" in args:
            inv = run["invocations"][0]
            if inv["executionSuccessful"] or not inv["toolExecutionNotifications"]:
                print("missing notification for an unreadable file")
                failures += 1
    print("sarif: %d runs checked, %d failures" % (len(runs), failures))
    sys.exit(1 if failures else 0)


main()
