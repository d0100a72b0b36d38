#!/usr/bin/env bash
# check_precommit.sh SOURCE_DIR [BUILD_DIR] - the language: python hooks of
# .pre-commit-hooks.yaml work with nothing on PATH, pinned by commit hash,
# offline, with pre-commit itself (Debian's pre-commit package):
#   - the work tree (tracked and untracked files, as they are) is committed
#     into a scratch hook repository; a scratch model repository pins it by
#     that commit's hash in its .pre-commit-config.yaml;
#   - `pre-commit run` installs the hooks (pip install . in pre-commit's own
#     venv: the library and the program built from the sources; with
#     BUILD_DIR, GGUFLINT_LIBRARY_DIR reuses that build's library and
#     program) and passes valid.gguf (exit 0), fails hostile.gguf (exit 1,
#     rule ids in the output) with gguflint-python, and
#     gguflint-python-security passes --profile security;
#   - `pre-commit autoupdate --bleeding-edge --freeze` (the update the hooks
#     file documents) moves rev to the hash of a newer commit.
# PATH holds no gguflint during the runs. Without pre-commit the same install
# (pip install . into a venv) and the hook's command are checked instead.
# (PRE_COMMIT=none forces that; PRE_COMMIT=PROGRAM names another pre-commit).
# Exits 77 (skipped) without git or a python with venv, cffi and setuptools.
set -euo pipefail
src=$(cd "$1" && pwd)
build=${2:+$(cd "$2" && pwd)}
# shellcheck source=release_common.sh
. "$(dirname "$0")/release_common.sh"
git -C "$src" rev-parse -q --verify HEAD >/dev/null 2>&1 ||
    { echo "SKIP: no git, or $src is not a git checkout"; exit 77; }
release_setup check_precommit cffi setuptools venv

# offline: Debian's cffi and setuptools through the system site, no index
export VIRTUALENV_SYSTEM_SITE_PACKAGES=1 PIP_NO_INDEX=1 PIP_NO_BUILD_ISOLATION=0
export PIP_DISABLE_PIP_VERSION_CHECK=1 PRE_COMMIT_HOME=$tmp/cache PYTHONDONTWRITEBYTECODE=1
pre_commit=${PRE_COMMIT:-pre-commit} # PRE_COMMIT=none: the checks without pre-commit
[ -z "$build" ] || export GGUFLINT_LIBRARY_DIR=$build
git_q() { git -c user.name=t -c user.email=t@t.invalid -c init.defaultBranch=main "$@"; }
# no gguflint on PATH: keep only the folders of the tools used here
path=
for tool in git "$python" cmake cc make "$pre_commit" sha256sum; do
    p=$(command -v "$tool" 2>/dev/null) || continue
    d=$(dirname "$p")
    [[ ":$path:" == *":$d:"* ]] || path=${path:+$path:}$d
done
for d in ${path//:/ }; do
    [ ! -x "$d/gguflint" ] || fail "$d/gguflint is on the PATH these checks need"
done

# the hook repository: the work tree as it is, one commit
hookrepo=$tmp/hookrepo
mkdir "$hookrepo"
(cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf - 2>/dev/null) |
    tar -xf - -C "$hookrepo"
git_q -C "$hookrepo" init -q
git_q -C "$hookrepo" add -A
git_q -C "$hookrepo" commit -qm "gguflint under test"
rev=$(git -C "$hookrepo" rev-parse HEAD)

# the model repository that uses the hooks
models=$tmp/models
mkdir "$models"
cp "$src/corpus/examples/valid.gguf" "$src/corpus/examples/hostile.gguf" "$models/"
git_q -C "$models" init -q
cat >"$models/.pre-commit-config.yaml" <<EOF
repos:
  - repo: $hookrepo
    rev: $rev
    hooks:
      - id: gguflint-python
      - id: gguflint-python-security
        args: [--quiet, --format, json]
EOF
git_q -C "$models" add -A

if ! command -v "$pre_commit" >/dev/null; then
    echo "pre-commit not installed (apt-get install pre-commit): its install and the hook command checked instead"
    $python -m venv --system-site-packages "$tmp/venv"
    (cd "$hookrepo" && "$tmp/venv/bin/python" -m pip install -q .) >"$tmp/pip.log" 2>&1 ||
        { cat "$tmp/pip.log"; fail "pip install . of the hook repository"; }
    expect_exit 0 "$tmp/valid.out" env PATH="$tmp/venv/bin:$path" gguflint --quiet "$models/valid.gguf"
    expect_exit 1 "$tmp/hostile.out" env PATH="$tmp/venv/bin:$path" gguflint --quiet "$models/hostile.gguf"
    ok "pip install . gives a gguflint command that lints the examples ($((SECONDS - t0)) s)"
    exit 0
fi

run() { (cd "$models" && PATH=$path "$pre_commit" "$@"); }
expect_exit 0 "$tmp/valid.out" run run --files valid.gguf
grep -q '^gguflint\.*Passed' "$tmp/valid.out" || { cat "$tmp/valid.out"; fail "no Passed line"; }
ok "pre-commit installed the hooks at rev ${rev:0:12} and passed valid.gguf ($((SECONDS - t0)) s)"

expect_exit 1 "$tmp/hostile.out" run run --files hostile.gguf
grep -q 'GG[0-9]' "$tmp/hostile.out" || { cat "$tmp/hostile.out"; fail "no rule id in the output"; }
# the security hook's JSON is what its program gives with --profile security
# (and not what the ggml profile gives)
prog=$(find "$PRE_COMMIT_HOME" -path '*/bin/gguflint' | head -1)
[ -n "$prog" ] || fail "no gguflint command in pre-commit's venv"
got=$(grep '^{"schema_version"' "$tmp/hostile.out") || fail "the security hook printed no JSON"
for profile in security ggml; do
    (cd "$models" && PATH=$path "$prog" --profile $profile --quiet --format json hostile.gguf \
        >"$tmp/$profile.json") || true
done
[ "$got" = "$(cat "$tmp/security.json")" ] && [ "$got" != "$(cat "$tmp/ggml.json")" ] ||
    fail "gguflint-python-security did not run with --profile security"
ok "both hooks failed hostile.gguf with rule ids; the security hook ran --profile security"

# the documented update: the newest commit of the default branch, as a hash
echo "# a later commit" >>"$hookrepo/README.md"
git_q -C "$hookrepo" commit -qam "a later commit"
newrev=$(git -C "$hookrepo" rev-parse HEAD)
run autoupdate --bleeding-edge --freeze >"$tmp/update.out" 2>&1 ||
    { cat "$tmp/update.out"; fail "pre-commit autoupdate"; }
grep -q "rev: $newrev" "$models/.pre-commit-config.yaml" ||
    { cat "$tmp/update.out" "$models/.pre-commit-config.yaml"; fail "autoupdate did not pin $newrev"; }
ok "pre-commit autoupdate --bleeding-edge --freeze pinned ${newrev:0:12}"
echo "check_precommit: all passed ($((SECONDS - t0)) s)"
