#!/usr/bin/env python3
"""check_json_schema.py CLI SCHEMA CORPUS - the JSON report follows the
JSON Schema the repository documents it with (docs/schemas/
gguflint-report.schema.json), validated with a real validator
(python3-jsonschema, draft 2020-12), over the corpus's examples and
regressions, with a missing file, --deep (SHA-256 of each file, checked
against hashlib), --statistics and a --baseline. Also: each finding's
fingerprint is the one SARIF gives it, level matches severity, and the rule
facts (cwe, security_severity, fix) are the rule table's. Also `gguflint
estimate --format json` over the same files against gguflint-estimate.schema.json
(beside the report's schema), at three context sizes. Exits 77 (skipped)
without jsonschema."""
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("jsonschema not available: skipped")
    sys.exit(77)

LEVELS = {"note": 1, "warning": 2, "error": 3}


def run(cli, *args):
    out = subprocess.run([cli, *args], capture_output=True)
    if out.returncode not in (0, 1, 2):
        raise SystemExit(f"exit {out.returncode}: {args}")
    return json.loads(out.stdout.decode("utf-8"))


def main():
    cli, schema_path, corpus = sys.argv[1:4]
    schema = json.load(open(schema_path, encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    files = sorted(glob.glob(os.path.join(corpus, "examples", "*.gguf")) +
                   glob.glob(os.path.join(corpus, "regressions", "*.gguf")))
    if not files:
        print("no corpus files")
        return 1
    rules = {r["id"]: r for r in run(cli, "rules", "--format", "json")["rules"]}
    failures = 0
    docs = 0

    def check(doc, what):
        nonlocal failures, docs
        docs += 1
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        for e in errors[:5]:
            print(f"{what}: schema: {e.message} at {list(e.path)}")
        failures += len(errors)
        for f in doc["files"]:
            for g in f.get("findings", []):
                r = rules[g["rule"]]
                if g["level"] != LEVELS[g["severity"]] or g["cwe"] != r["cwe"] or \
                        g["security_severity"] != r["security_severity"] or g["fix"] != r["fix"]:
                    print(f"{what}: {g['rule']}: facts differ from the rule table")
                    failures += 1

    with tempfile.TemporaryDirectory() as tmp:
        baseline = os.path.join(tmp, "b.txt")
        check(run(cli, "--format", "json", "--write-baseline", baseline, *files), "corpus")
        check(run(cli, "--format", "json", "--baseline", baseline, *files), "baselined")
        check(run(cli, "--format", "json", "--statistics", files[0], "does-not-exist.gguf"),
              "statistics + missing")
        deep = run(cli, "--format", "json", "--deep", *files[:20])
        check(deep, "deep")
        for f in deep["files"]:
            want = hashlib.sha256(open(f["path"], "rb").read()).hexdigest()
            if f.get("sha256") != want:
                print(f"{f['path']}: sha256 {f.get('sha256')} != {want}")
                failures += 1
        # one fingerprint per finding, the same in JSON and SARIF
        for path in files[:40]:
            j = run(cli, "--format", "json", path)
            s = run(cli, "--format", "sarif", path)
            jp = [g["fingerprint"] for f in j["files"] for g in f.get("findings", [])]
            sp = [r["partialFingerprints"]["ggufFinding/v3"] for r in s["runs"][0]["results"]]
            if jp != sp:
                print(f"{path}: JSON and SARIF fingerprints differ")
                failures += 1
    # the estimate's documents, one per line
    est_schema = json.load(open(os.path.join(os.path.dirname(schema_path),
                                             "gguflint-estimate.schema.json"), encoding="utf-8"))
    cls.check_schema(est_schema)
    est_validator = cls(est_schema, format_checker=cls.FORMAT_CHECKER)
    for ctx in ("1", "4096", "4294967296"):
        out = subprocess.run([cli, "estimate", "--format", "json", "--ctx", ctx, *files],
                             capture_output=True)
        if out.returncode not in (0, 1):
            print(f"estimate --ctx {ctx}: exit {out.returncode}")
            failures += 1
        for line in out.stdout.decode("utf-8").splitlines():
            docs += 1
            errors = list(est_validator.iter_errors(json.loads(line)))
            for e in errors[:5]:
                print(f"estimate --ctx {ctx}: schema: {e.message} at {list(e.path)}")
            failures += len(errors)
    print(f"json schema: {docs} documents over {len(files)} files, {failures} failures")
    return 1 if failures else 0


sys.exit(main())
