#!/usr/bin/env python3
"""Precision and recall of the chat-template analyser, per class.

    ci/template-classes.py --gguflint build-ci/gguflint [--readme README.md]

Lints every attack of corpus/templates/attacks.tsv (grouped: code execution =
ssti, exec, obfuscation; DoS = dos; backdoor = behaviour; indicators) under
--profile security and the default profile (ggml), and every real template
set that is present (../shared/real-templates, ../shared/llama.cpp/models/
templates, ../real-templates-extra; absent ones are skipped) under ggml,
strict and security. Prints a Markdown table: attacks caught at error and
noticed at warning or above, false errors on the real sets, and their
warnings by rule. With --readme the table replaces the text between the
template-classes markers of that file. Nothing is rendered.
"""
import argparse
import collections
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
spec = importlib.util.spec_from_file_location("tld", os.path.join(HERE, "template-lint-dir.py"))
tld = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tld)

CLASSES = {"ssti": "code execution", "exec": "code execution", "obfuscation": "code execution",
           "dos": "render-time DoS", "behaviour": "behavioural backdoor", "indicator": "indicators"}
REAL = [("../shared/real-templates", "real templates (`../shared/real-templates`)"),
        ("../shared/llama.cpp/models/templates", "llama.cpp `models/templates`"),
        ("../real-templates-extra", "extra real set (`../real-templates-extra`, outside the project)")]
BEGIN, END = "<!-- template-classes:begin -->", "<!-- template-classes:end -->"


def template_findings(gguflint, text, profile, path):
    with open(path, "wb") as f:
        f.write(tld.gguf(text))
    r = subprocess.run([gguflint, "--profile", profile, "--format", "json", "--exit-zero", path],
                       capture_output=True, text=True, check=False)
    return [x for fl in json.loads(r.stdout)["files"] for x in fl.get("findings", [])
            if x["rule"].startswith(("GG72", "GG73"))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gguflint", required=True)
    ap.add_argument("--readme")
    a = ap.parse_args()
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.gguf")
        per = collections.OrderedDict()
        with open(os.path.join(SRC, "corpus/templates/attacks.tsv"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                name, klass, rules, text = line.rstrip("\n").split("\t", 3)
                c = per.setdefault(CLASSES.get(klass, klass), [0, 0, 0, 0, 0])
                sec = template_findings(a.gguflint, text, "security", path)
                dflt = template_findings(a.gguflint, text, "ggml", path)
                ids = {x["rule"] for x in sec}
                c[0] += 1
                c[1] += all(r in ids for r in rules.split())
                c[2] += any(x["severity"] == "error" for x in sec)
                c[3] += any(x["severity"] in ("error", "warning") for x in sec)
                c[4] += any(x["severity"] == "error" for x in dflt)
        lines.append("| attack class (`corpus/templates/attacks.tsv`) | templates | every expected rule | "
                     "error under `security` | warning or above under `security` | error by default |")
        lines.append("| --- | --- | --- | --- | --- | --- |")
        for k, c in per.items():
            lines.append(f"| {k} | {c[0]} | {c[1]} | {c[2]} | {c[3]} | {c[4]} |")
        lines.append("")
        lines.append("| real set | templates | with an error (ggml / strict / security) | "
                     "warnings and notes under `security`, by rule |")
        lines.append("| --- | --- | --- | --- |")
        for rel, label in REAL:
            d = os.path.normpath(os.path.join(SRC, rel))
            if not os.path.isdir(d):
                lines.append(f"| {label} | absent: skipped | | |")
                continue
            names = sorted(n for n in os.listdir(d) if n.endswith(".jinja"))
            err = {"ggml": 0, "strict": 0, "security": 0}
            by_rule = collections.Counter()
            for n in names:
                with open(os.path.join(d, n), encoding="utf-8") as f:
                    text = f.read()
                for p in err:
                    fs = template_findings(a.gguflint, text, p, path)
                    err[p] += any(x["severity"] == "error" for x in fs)
                    if p == "security":
                        by_rule.update(x["rule"] for x in fs if x["severity"] != "error")
            rules = ", ".join(f"{r} x{k}" for r, k in sorted(by_rule.items())) or "none"
            lines.append(f"| {label} | {len(names)} | {err['ggml']} / {err['strict']} / "
                         f"{err['security']} | {rules} |")
    out = "\n".join(lines) + "\n"
    sys.stdout.write(out)
    if a.readme:
        with open(a.readme, encoding="utf-8") as f:
            s = f.read()
        if BEGIN not in s or END not in s:
            sys.exit(f"{a.readme}: no {BEGIN} ... {END} markers")
        head, rest = s.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        with open(a.readme, "w", encoding="utf-8") as f:
            f.write(head + BEGIN + "\n" + out + END + tail)
    return 0


if __name__ == "__main__":
    sys.exit(main())
