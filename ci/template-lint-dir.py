#!/usr/bin/env python3
"""Lint a directory of chat templates the way a downloaded model would carry them.

    ci/template-lint-dir.py --gguflint build-ci/gguflint DIR [--profile security]

Each DIR/*.jinja is wrapped in a minimal GGUF written here (general.architecture
and tokenizer.chat_template; no vocabulary, so the conformance checks GG740-GG743
stay silent) and linted with `--format json`. Prints every finding, then the count
of findings by rule and severity and the number of templates with an error. When
a Python with jinja2 is at hand (/usr/bin/python3 on Debian), every template that
gets a GG731 syntax error is also parsed by Jinja2, so a reported syntax error can
be told apart from a false one. Exit 1 when some template has an error that
Jinja2 does not confirm, else 0. Nothing is copied anywhere: the templates stay
where they are (real templates are never committed to the project).
"""
import argparse
import collections
import json
import os
import struct
import subprocess
import sys
import tempfile

try:
    import jinja2
except ImportError:  # the parse check is optional
    jinja2 = None


def kv_str(key, val):
    k, v = key.encode(), val.encode()
    return struct.pack("<Q", len(k)) + k + struct.pack("<IQ", 8, len(v)) + v


def gguf(template):
    kvs = [kv_str("general.architecture", "llama"), kv_str("tokenizer.chat_template", template)]
    return b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs)) + b"".join(kvs)


def jinja_rejects(text):
    if jinja2 is None:
        return None
    try:
        jinja2.Environment(extensions=["jinja2.ext.loopcontrols", "jinja2.ext.do"]).parse(text)
        return None
    except jinja2.TemplateSyntaxError as e:
        return str(e)
    except Exception as e:  # noqa: BLE001 - any parser failure counts
        return f"{type(e).__name__}: {e}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gguflint", required=True)
    ap.add_argument("--profile", default="security")
    ap.add_argument("dir")
    a = ap.parse_args()
    names = sorted(f for f in os.listdir(a.dir) if f.endswith(".jinja"))
    by_rule = collections.Counter()
    with_error, unconfirmed = [], []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.gguf")
        for name in names:
            with open(os.path.join(a.dir, name), encoding="utf-8") as f:
                text = f.read()
            with open(path, "wb") as f:
                f.write(gguf(text))
            r = subprocess.run([a.gguflint, "--profile", a.profile, "--format", "json",
                                "--exit-zero", path], capture_output=True, text=True, check=False)
            findings = [x for fl in json.loads(r.stdout)["files"] for x in fl.get("findings", [])]
            errors = False
            for x in findings:
                by_rule[(x["rule"], x["severity"])] += 1
                print(f"{name}: {x['severity']} {x['rule']} {x['message'][:240]}")
                if x["severity"] == "error":
                    errors = True
                    if x["rule"] == "GG731":
                        why = jinja_rejects(text)
                        print(f"  jinja2: {why or 'parses it (a FALSE syntax error)'}")
                        if not why:
                            unconfirmed.append(name)
                    else:
                        unconfirmed.append(name)
            if errors:
                with_error.append(name)
    print(f"--- {len(names)} templates, profile {a.profile}")
    for (rule, sev), n in sorted(by_rule.items()):
        print(f"  {rule} {sev}: {n}")
    print(f"  templates with an error: {len(with_error)} ({', '.join(with_error) or '-'})")
    print(f"  errors not confirmed by Jinja2: {len(set(unconfirmed))}")
    return 1 if unconfirmed else 0


if __name__ == "__main__":
    sys.exit(main())
