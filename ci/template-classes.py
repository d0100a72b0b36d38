#!/usr/bin/env python3
"""Precision and recall of the chat-template analyser, per class.

    ci/template-classes.py --gguflint build-ci/gguflint [--readme README.md]

Lints every attack of corpus/templates/attacks.tsv (grouped: code execution =
ssti, exec, obfuscation; DoS = dos; backdoor = behaviour; indicators) under
--profile security and the default profile (ggml), and every real template
set that is present (../shared/real-templates, ../shared/llama.cpp/models/
templates, ../real-templates-extra; absent ones are skipped) and the clean
corpus (corpus/templates/clean.tsv) under ggml, strict and security.
Prints a Markdown table: attacks caught at error and noticed at warning or
above, false errors on the real sets, and their
warnings by rule. With --readme the table replaces the text between the
template-classes markers of that file. With --check (and --readme) nothing
is written: exit 1 when the README's block differs from the table (rows of
real sets absent here are not compared) or when a real template has an
error, 77 (a skip) when ../shared is absent. Nothing is rendered.
"""
import argparse
import collections
import difflib
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
CLEAN, CLEAN_LABEL = "corpus/templates/clean.tsv", "clean corpus (`corpus/templates/clean.tsv`)"
BEGIN, END = "<!-- template-classes:begin -->", "<!-- template-classes:end -->"


def template_findings(gguflint, text, profile, path):
    with open(path, "wb") as f:
        f.write(tld.gguf(text))
    r = subprocess.run([gguflint, "--profile", profile, "--format", "json", "--exit-zero", path],
                       capture_output=True, text=True, check=False)
    return [x for fl in json.loads(r.stdout)["files"] for x in fl.get("findings", [])
            if x["rule"].startswith(("GG72", "GG73"))]


def check(block, lines, real_errors, readme):
    """1 when the README's block differs from `lines` (a row of a real set
    absent here is taken from the README) or a real template erred."""
    have = block.strip("\n").split("\n")
    want = [ln for ln in lines]
    absent = {ln.split(" | ")[0] for ln in want if "| absent: skipped |" in ln}
    keep = [ln for ln in have if ln.split(" | ")[0] in absent]
    want = [keep.pop(0) if ln.split(" | ")[0] in absent and keep else ln for ln in want]
    bad = 0
    if want != have:
        print(f"template-classes: {readme}'s block differs from what the corpus and the real "
              "sets give; rerun with --readme (without --check) to update it:", file=sys.stderr)
        for ln in difflib.unified_diff(have, want, "README", "computed", lineterm="", n=0):
            print(ln, file=sys.stderr)
        bad = 1
    if real_errors:
        print(f"template-classes: {real_errors} errors on real templates", file=sys.stderr)
        bad = 1
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gguflint", required=True)
    ap.add_argument("--readme")
    ap.add_argument("--check", action="store_true",
                    help="compare with the README's block instead of writing it")
    a = ap.parse_args()
    if a.check and not os.path.isdir(os.path.join(SRC, "../shared")):
        print("template-classes: ../shared is absent: skipped")
        return 77
    lines = []
    real_errors = 0
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
        for rel, label in [(CLEAN, CLEAN_LABEL)] + REAL:
            d = os.path.normpath(os.path.join(SRC, rel))
            if rel == CLEAN:
                with open(d, encoding="utf-8") as f:
                    texts = [ln.rstrip("\n").split("\t", 1) for ln in f
                             if ln.strip() and not ln.startswith("#")]
            elif not os.path.isdir(d):
                lines.append(f"| {label} | absent: skipped | | |")
                continue
            else:
                texts = []
                for n in sorted(n for n in os.listdir(d) if n.endswith(".jinja")):
                    with open(os.path.join(d, n), encoding="utf-8") as f:
                        texts.append((n, f.read()))
            names = [n for n, _ in texts]
            err = {"ggml": 0, "strict": 0, "security": 0}
            by_rule = collections.Counter()
            for n, text in texts:
                for p in err:
                    fs = template_findings(a.gguflint, text, p, path)
                    bad = any(x["severity"] == "error" for x in fs)
                    err[p] += bad
                    if bad:
                        real_errors += 1
                        print(f"template-classes: {rel}/{n}: an error under {p}", file=sys.stderr)
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
        old, tail = rest.split(END, 1)
        if a.check:
            return check(old, lines, real_errors, a.readme)
        with open(a.readme, "w", encoding="utf-8") as f:
            f.write(head + BEGIN + "\n" + out + END + tail)
    return 0


if __name__ == "__main__":
    sys.exit(main())
