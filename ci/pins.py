#!/usr/bin/env python3
"""pins.py - the commit the documentation pins gguflint to.

    python3 ci/pins.py check            (the ctest doc_pins)
    python3 ci/pins.py update [REV]     rewrite every pin to REV (default HEAD)

The published repository carries no tags (tags made in a clone are not
published), so the GitHub Action (`uses: OWNER/gguflint@...`) and the
pre-commit hooks (`rev: ...`) are pinned by a full commit hash everywhere the
documentation shows them: README.md, docs/*.md, python/README.md, action.yml,
.pre-commit-hooks.yaml and ci/examples/*.yml (a pin is a `uses:` or `rev:`
line, commented or not). `check` fails when a pin is not a 40-hex hash, when
two pins differ, when a file names gguflint@vX.Y.Z, and - in a clone with its
history - when the pinned commit is not in it, has no action.yml, or lacks a
hook id the documentation's examples use. `update` is how a maintainer moves
the pins after a merge: `python3 ci/pins.py update && git commit -am pins`
pins the commit before that one.
"""

import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIN = re.compile(r"^(\s*(?:#\s*)?(?:-\s*)?(?:uses:\s*[\w.-]+/gguflint@|rev:\s*))(\S+)", re.M)
HOOK_ID = re.compile(r"^\s*(?:#\s*)?-\s*id:\s*(gguflint[\w-]*)", re.M)
HOOK_EXAMPLE = re.compile(r"^\s*#\s*-\s*id:\s*(gguflint[\w-]*)", re.M)
TAG_PIN = re.compile(r"gguflint@v[0-9]+\.[0-9]+")
HEX40 = re.compile(r"^[0-9a-f]{40}$")


def files():
    names = ["README.md", "action.yml", ".pre-commit-hooks.yaml", "python/README.md"]
    names += sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
    names += sorted(os.path.relpath(p, ROOT)
                    for p in glob.glob(os.path.join(ROOT, "ci", "examples", "*.yml")))
    return [n for n in names if os.path.isfile(os.path.join(ROOT, n))]


def read(name):
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        return f.read()


def git(*args):
    return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True)


def check():
    problems, pins, ids = [], {}, set()
    for name in files():
        text = read(name)
        for m in PIN.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            pins.setdefault(m.group(2), []).append(f"{name}:{line}")
            if not HEX40.match(m.group(2)):
                problems.append(f"{name}:{line}: pin '{m.group(2)}' is not a full commit hash")
        for m in TAG_PIN.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            problems.append(f"{name}:{line}: '{m.group(0)}...' pins a tag the repository does not carry")
        # the hooks the examples use (in the hooks file: its commented example)
        example = HOOK_EXAMPLE if name == ".pre-commit-hooks.yaml" else HOOK_ID
        ids.update(example.findall(text))
    if len(pins) > 1:
        problems.append("the pins differ: " + "; ".join(f"{p} at {', '.join(w)}"
                                                         for p, w in sorted(pins.items())))
    n = sum(len(w) for w in pins.values())
    if not any("uses:" in l for l in open(os.path.join(ROOT, "action.yml"), encoding="utf-8")
               if PIN.match(l)):
        problems.append("action.yml shows no pinned `uses:` line")
    history = "not checked"
    if len(pins) == 1 and not problems:
        rev = next(iter(pins))
        inside = git("rev-parse", "--is-inside-work-tree")
        shallow = git("rev-parse", "--is-shallow-repository").stdout.strip() == "true"
        if inside.returncode != 0:
            history = "not checked: not a git clone"
        elif git("cat-file", "-e", rev + "^{commit}").returncode != 0:
            if shallow:
                history = "not checked: a shallow clone without the pinned commit"
            else:
                problems.append(f"the pinned commit {rev} is not in this repository's history "
                                "(run python3 ci/pins.py update)")
        else:
            if git("cat-file", "-e", f"{rev}:action.yml").returncode != 0:
                problems.append(f"the pinned commit {rev[:12]} has no action.yml")
            hooks = git("show", f"{rev}:.pre-commit-hooks.yaml").stdout
            have = set(re.findall(r"^- id:\s*(\S+)", hooks, re.M))
            for hook in sorted(ids - have):
                problems.append(f"the pinned commit {rev[:12]} has no hook '{hook}', "
                                "which the documentation uses")
            history = f"{rev[:12]} is in the history and has action.yml and the hooks " \
                      f"{', '.join(sorted(ids)) or '(none named)'}"
    for p in problems:
        print("pins:", p)
    if problems:
        return 1
    print(f"ok: {n} pins in {len(files())} files, one commit; history: {history}")
    return 0


def update(rev):
    res = git("rev-parse", "--verify", rev + "^{commit}")
    if res.returncode != 0:
        sys.exit(f"pins: {rev} is not a commit here")
    sha = res.stdout.strip()
    changed = 0
    for name in files():
        text = read(name)
        new = PIN.sub(lambda m: m.group(1) + sha, text)
        if new != text:
            with open(os.path.join(ROOT, name), "w", encoding="utf-8") as f:
                f.write(new)
            changed += 1
    print(f"pins: {changed} files now pin {sha}")
    return 0


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "check":
        return check()
    if len(sys.argv) >= 2 and sys.argv[1] == "update":
        return update(sys.argv[2] if len(sys.argv) > 2 else "HEAD")
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
