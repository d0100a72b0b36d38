#!/usr/bin/env bash
# Checks the integrations that converter authors and model hubs install:
#   (a) src/cli/gguflint.1 renders without warnings (man -l, groff -ww,
#       mandoc -T lint: each one that is installed) and mentions every
#       command, long option and short option that `gguflint --help' prints,
#       and the version `gguflint --version' prints;
#   (b) .pre-commit-hooks.yaml parses, and each hook's entry + args pass
#       corpus/examples/valid.gguf (exit 0) and fail hostile.gguf (exit 1);
#   (c) action.yml parses, is a composite action whose every input is used,
#       whose outputs come from its steps and whose run scripts take inputs
#       through env only; the script of its lint step, run here against
#       corpus/examples/ as the runner would run it, gives the expected exit
#       status, annotations, outputs and a SARIF file that is valid JSON;
#   (d) ci/examples/model-repo-workflow.yml parses and uses the action with
#       inputs the action declares.
# YAML is parsed with python3-yaml when installed; without it, a minimal
# structural check of the same files (layout as written here) stands in.
#
#   bash ci/check-integrations.sh [path/to/gguflint]
#
# The binary's directory is put first on PATH (the pre-commit hooks run
# `gguflint` from PATH). Exit status 0 when every check passed, 1 otherwise.
# GGUFLINT_CHECK_MINIMAL=1 runs the checks used when python3-yaml, man, groff
# and mandoc are all missing (to test them).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/build-release/gguflint}
case "$BIN" in /*) ;; *) BIN=$PWD/$BIN ;; esac
if [ ! -x "$BIN" ]; then
    echo "check-integrations: no gguflint binary at $BIN" >&2
    exit 2
fi
PATH="$(dirname "$BIN"):$PATH"
export PATH
MAN=$ROOT/src/cli/gguflint.1
HOOKS=$ROOT/.pre-commit-hooks.yaml
ACTION=$ROOT/action.yml
EXAMPLE=$ROOT/ci/examples/model-repo-workflow.yml
EXAMPLES=$ROOT/corpus/examples

TMP=$(mktemp -d "${TMPDIR:-/tmp}/gguflint-integrations.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# Run everything from an empty directory, so no .gguflint.ini of the source
# tree (or of a parent directory) changes the results.
cd "$TMP" || exit 2

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
skip() { echo "skip: $*"; }
check() { # check DESCRIPTION COMMAND...: ok when the command succeeds
    local what=$1
    shift
    if "$@"; then ok "$what"; else bad "$what"; fi
}

# python3 with the yaml module: /usr/bin/python3 first (Debian's
# python3-yaml), then the first python3 on PATH.
PY=
for p in /usr/bin/python3 "$(command -v python3 2>/dev/null)"; do
    [ -z "${GGUFLINT_CHECK_MINIMAL:-}" ] || break
    if [ -n "$p" ] && [ -x "$p" ] && "$p" -c 'import yaml' 2>/dev/null; then
        PY=$p
        break
    fi
done
PYJSON=
for p in /usr/bin/python3 "$(command -v python3 2>/dev/null)"; do
    if [ -n "$p" ] && [ -x "$p" ]; then PYJSON=$p; break; fi
done
if [ -z "$PY" ]; then
    skip "python3-yaml is not installed: minimal structural YAML checks only"
fi

# is_json FILE: FILE holds one valid JSON document.
is_json() {
    if [ -n "$PYJSON" ]; then
        "$PYJSON" -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$1"
    elif command -v jq >/dev/null; then
        jq -e . "$1" >/dev/null
    else
        echo "no python3 and no jq: cannot check JSON" >&2
        return 0
    fi
}

# tabs_free FILE: YAML indentation must not use tabs.
tabs_free() { ! grep -n "$(printf '\t')" "$1"; }

# ---------------------------------------------------------------- (a) man page

help_text=$("$BIN" --help)
version=$("$BIN" --version | awk '{print $2}')

check "man page exists" test -s "$MAN"

# render_warnings NAME COMMAND...: the command's standard error must have no
# warning or error line.
render_warnings() {
    local name=$1
    shift
    local err
    err=$("$@" 2>&1 >/dev/null)
    local rc=$?
    if [ $rc -ne 0 ] || grep -qiE 'warning|error|:[0-9]+:' <<<"$err"; then
        printf '%s\n' "$err" | sed 's/^/    /'
        bad "man page: $name reports problems (exit $rc)"
    else
        ok "man page: $name renders it without warnings"
    fi
}
have() { [ -z "${GGUFLINT_CHECK_MINIMAL:-}" ] && command -v "$1" >/dev/null; }
# roff_text FILE: the text of a man page without a formatter: macro lines
# reduced to their words (the alternating-font ones joined as they render),
# escapes for hyphens, fonts and spacing removed.
roff_text() {
    awk '{
        gsub(/\\-/, "-"); gsub(/\\(%|&|\|)/, ""); gsub(/\\f[BIRP]/, ""); gsub(/\\~/, " ")
        if ($0 ~ /^\.(BR|BI|IR|RB|RI|IB) /) {
            s = substr($0, index($0, " ") + 1); out = ""
            while (s != "") {
                sub(/^ +/, "", s)
                if (s == "") break
                if (substr(s, 1, 1) == "\"") {
                    s = substr(s, 2); i = index(s, "\""); if (!i) i = length(s) + 1
                    out = out substr(s, 1, i - 1); s = substr(s, i + 1)
                } else {
                    i = index(s, " "); if (!i) i = length(s) + 1
                    out = out substr(s, 1, i - 1); s = substr(s, i)
                }
            }
            print out
        } else if ($0 ~ /^\.(B|I|SY|SH|SS) /) {
            s = substr($0, index($0, " ") + 1); gsub(/"/, "", s); print s
        } else if ($0 !~ /^\./) print
    }' "$1"
}
rendered=
if have man; then
    render_warnings "man -l" env MANWIDTH=80 man --warnings=w -l "$MAN"
fi
if have groff; then
    render_warnings "groff -man -ww" groff -man -Tutf8 -ww -z "$MAN"
    # a wide page without hyphenation, so no option name is broken
    rendered=$(groff -man -Tascii -P-cbou -rLL=400n -rHY=0 "$MAN" 2>/dev/null)
fi
mandoc_lint() { mandoc -T lint -W warning "$1" >&2; } # it reports on stdout
if have mandoc; then
    render_warnings "mandoc -T lint" mandoc_lint "$MAN"
    [ -n "$rendered" ] || rendered=$(mandoc -T ascii -O width=400 "$MAN" 2>/dev/null)
fi
if [ -z "$rendered" ] && have man; then
    rendered=$(MANWIDTH=400 man -l "$MAN" 2>/dev/null)
fi
if [ -z "$rendered" ]; then
    skip "man page: no man, groff or mandoc: not rendered; options looked up in the source"
    rendered=$(roff_text "$MAN")
fi
# strip overstrikes and SGR sequences that a renderer may have left
rendered=$(printf '%s\n' "$rendered" | sed $'s/.\b//g; s/\x1b\\[[0-9;]*m//g')

# long options (--x-y), short options (-x) and commands (gguflint WORD)
long_opts=$(printf '%s\n' "$help_text" | grep -oE -- '--[a-z][a-z-]*[a-z]' | sort -u)
short_opts=$(printf '%s\n' "$help_text" | grep -oE -- '(^|[][ ,/|])-[a-zA-Z]\b' |
    grep -oE -- '-[a-zA-Z]' | sort -u)
commands=$(printf '%s\n' "$help_text" | sed -nE 's/^(usage:)? *gguflint ([a-z]+)( .*|$)/\2/p' |
    sort -u)
if [ -z "$long_opts" ] || [ -z "$commands" ]; then bad "could not parse gguflint --help"; fi
# Each option must be documented where it is defined: first on a line (the
# tag of an item: "--jobs N", "-r, --recursive") or in a line that shows a
# command ("gguflint hash [-o manifest] path ...").
missing=
for o in $long_opts $short_opts; do
    grep -qE -- \
        "^ *((-[a-zA-Z]|--[a-z-]+), )*$o([ ,=]|$)|^ *gguflint .*[^a-zA-Z0-9-]$o([^a-zA-Z0-9-]|$)" \
        <<<"$rendered" ||
        missing="$missing $o"
done
for c in $commands; do
    grep -qE "gguflint $c( |$)" <<<"$rendered" || missing="$missing 'gguflint $c'"
done
if [ -z "$missing" ]; then
    ok "man page documents all $(wc -w <<<"$long_opts $short_opts") options and" \
        "$(wc -w <<<"$commands") commands of gguflint --help"
else
    bad "man page does not mention:$missing"
fi
th_version=$(sed -nE 's/^\.TH +[^ ]+ +[^ ]+ +[^ ]+ +"gguflint ([^"]+)".*/\1/p' "$MAN")
if [ "$th_version" = "$version" ]; then
    ok "man page .TH version is gguflint --version ($version)"
else
    bad "man page .TH version '$th_version' differs from gguflint --version '$version'"
fi
for section in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS "EXIT STATUS" FILES \
    "OUTPUT FORMATS" EXAMPLES "SEE ALSO"; do
    grep -qE "^\.SH \"?$section\"?\$" "$MAN" || missing_sh="${missing_sh:-} '$section'"
done
if [ -z "${missing_sh:-}" ]; then ok "man page has every section"; else
    bad "man page lacks sections:$missing_sh"; fi
for code in 0 1 2; do
    grep -qE "^\.B $code\$" "$MAN" || bad "man page: EXIT STATUS does not list $code"
done

# ---------------------------------------------------- YAML helpers (python3)

# yaml_ok FILE: parses as YAML (one document). Without python3-yaml: no
# tabs, and every line at column 0 is a comment, a `key:` or a `- ` item.
yaml_ok() {
    if [ -n "$PY" ]; then
        "$PY" -c 'import sys, yaml
try:
    yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
except yaml.YAMLError as e:
    sys.exit("    " + str(e).replace("\n", "\n    "))' "$1"
    else
        tabs_free "$1" && ! grep -nvE '^($|#|[A-Za-z_][A-Za-z0-9_-]*:( |$)|- )' "$1" | grep -v '^[0-9]*: '
    fi
}

# ---------------------------------------------------------- (b) pre-commit

check_hooks() {

# Hooks as lines: ID<TAB>ENTRY<TAB>ARGS<TAB>LANGUAGE<TAB>FILES<TAB>TYPES
hooks_table() {
    if [ -n "$PY" ]; then
        "$PY" - "$HOOKS" <<'PY'
import sys, yaml
hooks = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
assert isinstance(hooks, list) and hooks, "a list of hooks"
for h in hooks:
    for key in ("id", "name", "entry", "language"):
        assert isinstance(h.get(key), str) and h[key], f"hook without {key}: {h}"
    args = h.get("args", [])
    assert isinstance(args, list) and all(isinstance(a, str) for a in args)
    print("\t".join([h["id"], h["entry"], " ".join(args), h["language"],
                     h.get("files", ""), ",".join(h.get("types", []))]))
PY
    else
        awk '
            function out() { if (id != "") printf "%s\t%s\t%s\t%s\t%s\t%s\n", id, entry, args, lang, files, types }
            function val(s) { sub(/^[^:]*: */, "", s); sub(/ +#.*$/, "", s); gsub(/^'"'"'|'"'"'$/, "", s); return s }
            function list(s) { s = val(s); gsub(/[][]/, "", s); gsub(/, */, " ", s); return s }
            /^- id:/ { out(); id = val($0); entry = args = lang = files = types = ""; next }
            /^  entry:/ { entry = val($0) }
            /^  args:/ { args = list($0) }
            /^  language:/ { lang = val($0) }
            /^  files:/ { files = val($0) }
            /^  types:/ { types = list($0); gsub(/ /, ",", types) }
            END { out() }' "$HOOKS"
    fi
}
hooks=$(hooks_table) || bad ".pre-commit-hooks.yaml: malformed hook list"
n_hooks=0
while IFS=$'\t' read -r id entry args lang files types; do
    [ -n "$id" ] || continue
    n_hooks=$((n_hooks + 1))
    # system: gguflint on PATH; python: the package's gguflint command (the
    # same program; tests/check_precommit.sh installs it with pre-commit)
    [ "$lang" = system ] || [ "$lang" = python ] || bad "hook $id: language is '$lang', expected system or python"
    [ "${entry%% *}" = gguflint ] || bad "hook $id: entry '$entry' does not run gguflint"
    [[ ",$types," == *,file,* ]] || bad "hook $id: types lacks file"
    # pre-commit matches files with Python's re.search
    if [ -n "$PYJSON" ]; then
        "$PYJSON" -c 'import re, sys
r = re.compile(sys.argv[1])
assert r.search("models/m.gguf") and r.search("m.gguf")
assert not r.search("m.gguf.txt") and not r.search("m.ggufx") and not r.search("README.md")' \
            "$files" || bad "hook $id: files '$files' does not select exactly *.gguf"
    fi
    # the command pre-commit runs: entry, args, then the file names
    read -r -a cmd <<<"$entry $args"
    "${cmd[@]}" "$EXAMPLES/valid.gguf" >"$TMP/hook.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then ok "hook $id passes valid.gguf"; else
        sed 's/^/    /' "$TMP/hook.out" | head -5
        bad "hook $id: valid.gguf exit $rc, expected 0"
    fi
    "${cmd[@]}" "$EXAMPLES/hostile.gguf" >"$TMP/hook.out" 2>&1
    rc=$?
    if [ $rc -eq 1 ]; then ok "hook $id fails hostile.gguf"; else
        sed 's/^/    /' "$TMP/hook.out" | head -5
        bad "hook $id: hostile.gguf exit $rc, expected 1"
    fi
done <<<"$hooks"
hook_ids=$(cut -f1 <<<"$hooks")
grep -qx gguflint <<<"$hook_ids" || bad "no hook with id gguflint"
grep -qx gguflint-security <<<"$hook_ids" || bad "no hook with id gguflint-security"
grep -qE -- $'^gguflint-security\t[^\t]*--profile security' <<<"$hooks" ||
    bad "hook gguflint-security does not pass --profile security"
[ "$n_hooks" -ge 2 ] || bad "expected at least 2 hooks, found $n_hooks"

}
if yaml_ok "$HOOKS"; then
    ok ".pre-commit-hooks.yaml parses as YAML"
    check_hooks
else
    bad ".pre-commit-hooks.yaml does not parse as YAML"
fi

# ------------------------------------------------------------- (c) action.yml

check_action() {

# extract_step_awk ID SCRIPT ENV: the run script and the env lines
# (NAME<TAB>VALUE) of the step with that id, from the layout of action.yml
# (steps at 4 spaces, their keys at 6, env entries and script lines at 8).
extract_step_awk() {
    awk -v want="$1" -v script="$2" -v envf="$3" '
        function flush() {
            if (id == want) { printf "%s", body > script; printf "%s", envs > envf; found = 1 }
            id = ""; body = ""; envs = ""; mode = ""
        }
        /^runs:/ { inruns = 1; next }
        inruns && /^  steps:/ { insteps = 1; next }
        !insteps { next }
        /^[^ ]/ || /^  [^ ]/ { flush(); insteps = 0; next }
        /^    - / { flush(); line = "      " substr($0, 7) } 
        !/^    - / { line = $0 }
        mode == "run" && (line ~ /^        / || line ~ /^ *$/) {
            body = body substr(line, 9) "\n"; next
        }
        mode == "env" && line ~ /^        [A-Za-z_][A-Za-z0-9_]*:/ {
            k = line; sub(/^ */, "", k); v = k; sub(/:.*/, "", k); sub(/^[^:]*: */, "", v)
            envs = envs k "\t" v "\n"; next
        }
        line ~ /^      [a-z-]+:/ {
            mode = ""
            if (line ~ /^      id: /) { id = line; sub(/^      id: */, "", id) }
            else if (line ~ /^      env: *$/) mode = "env"
            else if (line ~ /^      run: *\| *$/) mode = "run"
        }
        END { flush(); exit found ? 0 : 1 }' "$ACTION"
}

# extract_step ID SCRIPT ENV: with python3-yaml (checked against the awk
# reading, so the fallback stays right), else with awk only.
extract_step() {
    if [ -n "$PY" ]; then
        "$PY" - "$ACTION" "$@" <<'PY' || return 1
import sys, yaml
action = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
want, script, envf = sys.argv[2:5]
step = [s for s in action["runs"]["steps"] if s.get("id") == want][0]
open(script, "w").write(step["run"])
open(envf, "w").write("".join(f"{k}\t{v}\n" for k, v in step.get("env", {}).items()))
PY
        extract_step_awk "$1" "$TMP/awk.script" "$TMP/awk.env" || {
            echo "the awk reading of action.yml does not find step $1" >&2
            return 1
        }
        if ! diff <(sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$2") \
            <(sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$TMP/awk.script") >&2 ||
            ! diff "$3" "$TMP/awk.env" >&2; then
            echo "the awk reading of step $1 differs from python3-yaml's" >&2
            return 1
        fi
    else
        extract_step_awk "$@"
    fi
}

if [ -n "$PY" ]; then
    if "$PY" - "$ACTION" <<'PY'; then ok "action.yml: composite; inputs used, outputs from steps, no \${{ }} in run scripts"; else bad "action.yml structure"; fi
import re, sys, yaml
action = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
problems = []
for key in ("name", "description", "inputs", "runs"):
    if key not in action:
        problems.append(f"no top-level {key}")
runs = action.get("runs", {})
if runs.get("using") != "composite":
    problems.append(f"runs.using is {runs.get('using')!r}, not composite")
steps = runs.get("steps", [])
steps_text = yaml.safe_dump(steps, width=1 << 20)
for name, spec in action.get("inputs", {}).items():
    if not re.search(r"inputs\.%s(?![\w-])" % re.escape(name), steps_text):
        problems.append(f"input {name} is not used by any step")
    if "description" not in spec:
        problems.append(f"input {name} has no description")
ids = {s["id"]: s for s in steps if "id" in s}
for name, spec in action.get("outputs", {}).items():
    m = re.fullmatch(r"\$\{\{ *steps\.([\w-]+)\.outputs\.([\w-]+) *\}\}", str(spec.get("value", "")))
    if not m:
        problems.append(f"output {name} is not a step output")
    elif m[1] not in ids or not re.search(r'echo "?%s=' % re.escape(m[2]), ids[m[1]].get("run", "")):
        problems.append(f"output {name}: step {m[1]} does not write {m[2]}")
for s in steps:
    if "run" in s:
        if "shell" not in s:
            problems.append(f"step {s.get('name')}: composite run steps need shell")
        if "${{" in s["run"]:
            problems.append(f"step {s.get('name')}: ${{{{ }}}} inside a run script (pass it through env)")
    if "uses" in s and "@" not in s["uses"]:
        problems.append(f"step {s.get('name')}: uses without a version")
upload = [s for s in steps if str(s.get("uses", "")).startswith("github/codeql-action/upload-sarif@")]
if not upload or upload[0].get("with", {}).get("category") != "gguflint" or \
        not str(upload[0].get("if", "")).startswith("always()"):
    problems.append("no upload-sarif step with category gguflint and if: always()")
build = "\n".join(s.get("run", "") for s in steps)
for needle in ("cmake --preset release", "cmake --build --preset release", "GITHUB_ACTION_PATH",
               "clang", "cmake", "libcmocka-dev", "libinih-dev", "libssl-dev"):
    if needle not in build:
        problems.append(f"the steps do not mention {needle}")
for p in problems:
    print("   ", p)
sys.exit(1 if problems else 0)
PY
else
    # minimal: composite, each input (2-space key under inputs:) used somewhere
    if grep -qE '^  using: *composite *$' "$ACTION"; then ok "action.yml: runs.using composite"; else
        bad "action.yml: not runs: using: composite"; fi
    inputs=$(awk '/^inputs:/ {f = 1; next} /^[^ #]/ {f = 0} f && /^  [a-z][a-z0-9-]*:/ {
        sub(/^  /, ""); sub(/:.*/, ""); print }' "$ACTION")
    unused=
    for i in $inputs; do
        grep -qE "inputs\.$i([^a-zA-Z0-9_-]|$)" "$ACTION" || unused="$unused $i"
    done
    if [ -n "$inputs" ] && [ -z "$unused" ]; then ok "action.yml: every input is used"; else
        bad "action.yml: inputs not used:${unused:- (no inputs found)}"; fi
fi

# Run the lint step's script as the runner would: env from its env: block
# with the expressions substituted, in a workspace holding corpus/examples/.
if extract_step lint "$TMP/lint.sh" "$TMP/lint.env"; then
    ok "action.yml: lint step extracted"
    if command -v shellcheck >/dev/null; then
        check "action.yml: shellcheck of the lint step's script" \
            shellcheck -s bash -S warning "$TMP/lint.sh"
        if extract_step build "$TMP/build.sh" "$TMP/build.env"; then
            check "action.yml: shellcheck of the build step's script" \
                shellcheck -s bash -S warning "$TMP/build.sh"
        else
            bad "action.yml: no build step"
        fi
    else
        skip "shellcheck is not installed"
    fi
else
    bad "action.yml: no step with id lint and a run script"
fi

# input defaults, as the runner fills them in
declare -gA DEFAULTS=()
if [ -n "$PY" ]; then
    while IFS=$'\t' read -r k v; do [ -n "$k" ] && DEFAULTS[$k]=$v; done < <("$PY" - "$ACTION" <<'PY'
import sys, yaml
for k, v in yaml.safe_load(open(sys.argv[1], encoding="utf-8"))["inputs"].items():
    print(f"{k}\t{v.get('default', '')}")
PY
)
else
    while IFS=$'\t' read -r k v; do [ -n "$k" ] && DEFAULTS[$k]=$v; done < <(awk '
        /^inputs:/ {f = 1; next} /^[^ #]/ {f = 0}
        f && /^  [a-z][a-z0-9-]*:/ { k = $0; sub(/^  /, "", k); sub(/:.*/, "", k) }
        f && /^    default:/ { v = $0; sub(/^    default: */, "", v); gsub(/^'"'"'|'"'"'$/, "", v)
                              print k "\t" v }' "$ACTION")
fi

# run_lint NAME=VALUE...: run the lint step with these inputs (others at
# their defaults); leaves $TMP/ws/{out,err,outputs} and sets lint_rc.
run_lint() {
    local -A inp=()
    local k
    for k in "${!DEFAULTS[@]}"; do inp[$k]=${DEFAULTS[$k]}; done
    local kv
    for kv in "$@"; do inp[${kv%%=*}]=${kv#*=}; done
    rm -rf "$TMP/ws" "$TMP/runner"
    mkdir -p "$TMP/ws/corpus/examples" "$TMP/runner"
    cp "$EXAMPLES/valid.gguf" "$EXAMPLES/hostile.gguf" "$TMP/ws/corpus/examples/"
    if [ -n "${WS_SETUP:-}" ]; then "$WS_SETUP"; fi
    local envs=(GITHUB_OUTPUT="$TMP/runner/outputs" GITHUB_STEP_SUMMARY="$TMP/runner/summary"
        RUNNER_TEMP="$TMP/runner" GITHUB_WORKSPACE="$TMP/ws")
    local name value expr
    while IFS=$'\t' read -r name value; do
        [ -n "$name" ] || continue
        expr=$(printf '%s' "$value" | sed -nE 's/^\$\{\{ *([a-zA-Z0-9_.-]+) *\}\}$/\1/p')
        case "$expr" in
            inputs.*) envs+=("$name=${inp[${expr#inputs.}]-}") ;;
            steps.build.outputs.bin) envs+=("$name=${LINT_BIN:-$BIN}") ;;
            github.server_url) envs+=("$name=https://github.example") ;;
            github.action_repository) envs+=("$name=${ACTION_REPOSITORY-}") ;;
            github.action_ref) envs+=("$name=${ACTION_REF-}") ;;
            *)
                echo "unsupported env value in the lint step: $name: $value" >&2
                lint_rc=99
                return
                ;;
        esac
    done <"$TMP/lint.env"
    # as the runner runs `shell: bash`
    (cd "$TMP/ws" && env "${envs[@]}" bash --noprofile --norc -eo pipefail "$TMP/lint.sh" \
        >"$TMP/runner/out" 2>"$TMP/runner/err")
    lint_rc=$?
    touch "$TMP/runner/outputs"
}
output() { sed -n "s/^$1=//p" "$TMP/runner/outputs" | tail -1; }
sarif_results() { # the number of results of the SARIF file
    "$PYJSON" -c 'import json, sys
print(sum(len(r.get("results", [])) for r in json.load(open(sys.argv[1]))["runs"]))' "$1"
}

# A model repository as a maintainer has it: its own .gguflint.ini at the
# root (an ignore for a legacy folder), models below, a vendored folder that
# ships a .gguflint.ini silencing everything, and (BASELINE_COPY) a
# committed baseline.
setup_repo() {
    local ws=$TMP/ws
    rm -rf "$ws/corpus"
    mkdir -p "$ws/models/legacy" "$ws/models/vendor"
    printf '[ignore:models/legacy/*.gguf]\nrules = GG106\nreason = kept as published\n' \
        >"$ws/.gguflint.ini"
    printf '[ignore:*]\nrules = ALL\nreason = trust me\n' >"$ws/models/vendor/.gguflint.ini"
    cp "$EXAMPLES/hostile.gguf" "$ws/models/model.gguf"
    cp "$EXAMPLES/hostile.gguf" "$ws/models/legacy/old.gguf"
    cp "$EXAMPLES/hostile.gguf" "$ws/models/vendor/v.gguf"
    if [ -n "${BASELINE_COPY:-}" ]; then cp "$BASELINE_COPY" "$ws/gguflint.baseline"; fi
    if [ -n "${EXTRA_MODEL:-}" ]; then cp "$EXAMPLES/hostile.gguf" "$ws/models/new.gguf"; fi
}
count_ann() { grep -c "^::error file=$1,line=1,title=$2" "$TMP/runner/out" || true; }
sarif_prints() { # the sorted fingerprints of gguflint.sarif
    "$PYJSON" -c 'import json, sys
print("\n".join(sorted(r["partialFingerprints"]["ggufFinding/v3"]
    for r in json.load(open(sys.argv[1]))["runs"][0]["results"])))' "$1"
}

check_repo_layout() {
    [ -n "$PYJSON" ] || { skip "action repository layout (no python3 for SARIF)"; return; }
    local why= prints_dot prints_plain
    WS_SETUP=setup_repo run_lint
    [ "$lint_rc" -eq 1 ] || why="$why exit $lint_rc (expected 1);"
    [ "$(count_ann models/legacy/old.gguf 'GG106 ')" = 0 ] ||
        why="$why the root config's ignore did not apply to models/legacy;"
    [ "$(count_ann models/model.gguf 'GG106 ')" -ge 1 ] || why="$why no GG106 on models/model.gguf;"
    [ "$(count_ann models/vendor/v.gguf 'GG106 ')" -ge 1 ] ||
        why="$why the vendored folder's config was applied;"
    grep -q '"config":"'"$TMP/ws/.gguflint.ini"'"' "$TMP/ws/gguflint.sarif" ||
        why="$why SARIF does not name the root config;"
    grep -q 'helpUri' "$TMP/ws/gguflint.sarif" && why="$why helpUri without an action ref;"
    prints_plain=$(sarif_prints "$TMP/ws/gguflint.sarif")
    # ./-prefixed paths: the same annotations, ignores and fingerprints
    ACTION_REPOSITORY=owner/gguflint ACTION_REF=0123abc WS_SETUP=setup_repo run_lint \
        "paths=./models"
    [ "$(count_ann models/legacy/old.gguf 'GG106 ')" = 0 ] ||
        why="$why [ignore:models/legacy/*.gguf] missed ./models/legacy/old.gguf;"
    prints_dot=$(sarif_prints "$TMP/ws/gguflint.sarif")
    [ "$prints_dot" = "$prints_plain" ] || why="$why fingerprints of ./models differ from .;"
    grep -q '"helpUri":"https://github.example/owner/gguflint/blob/0123abc/rules/RULES.md#gg' \
        "$TMP/ws/gguflint.sarif" || why="$why no helpUri to the action's RULES.md;"
    if [ -z "$why" ]; then
        ok "action repository layout: the root config applies to . and ./models, a vendored one never; fingerprints agree"
    else
        sed 's/^/    stderr: /' "$TMP/runner/err" | head -10
        bad "action repository layout:$why"
    fi
    # a baseline written today, committed, then only new findings fail the step
    why=
    WS_SETUP=setup_repo run_lint "extra-args=--write-baseline gguflint.baseline --exit-zero"
    cp "$TMP/ws/gguflint.baseline" "$TMP/baseline.committed" 2>/dev/null ||
        why="$why no baseline written;"
    BASELINE_COPY=$TMP/baseline.committed WS_SETUP=setup_repo run_lint \
        baseline=gguflint.baseline "paths=./models"
    [ "$lint_rc" -eq 0 ] && [ "$(output errors)" = 0 ] ||
        why="$why with the baseline: exit $lint_rc, $(output errors) errors (expected 0, 0);"
    [ "$(sarif_results "$TMP/ws/gguflint.sarif")" = 0 ] || why="$why baselined results in SARIF;"
    EXTRA_MODEL=1 BASELINE_COPY=$TMP/baseline.committed WS_SETUP=setup_repo run_lint \
        baseline=gguflint.baseline
    [ "$lint_rc" -eq 1 ] || why="$why a new file: exit $lint_rc (expected 1);"
    [ "$(grep -c '^::error ' "$TMP/runner/out")" = "$(count_ann models/new.gguf GG)" ] ||
        why="$why annotations on files the baseline records;"
    run_lint baseline=missing.baseline
    [ "$lint_rc" -eq 2 ] || why="$why a missing baseline: exit $lint_rc (expected 2);"
    if [ -z "$why" ]; then
        ok "action baseline: written once, then only new findings are reported and fail"
    else
        sed 's/^/    stderr: /' "$TMP/runner/err" | head -10
        bad "action baseline:$why"
    fi
}

# expect_lint DESCRIPTION RC ERRORS(0|+) SARIF(yes|no) INPUTS...
expect_lint() {
    local what=$1 want_rc=$2 want_errors=$3 want_sarif=$4
    shift 4
    run_lint "$@"
    local why=
    [ "$lint_rc" -eq "$want_rc" ] || why="$why exit $lint_rc (expected $want_rc);"
    [ "$(output exit-code)" = "$want_rc" ] || why="$why output exit-code '$(output exit-code)';"
    local errors
    errors=$(output errors)
    case "$want_errors" in
        0) [ "$errors" = 0 ] || why="$why errors '$errors' (expected 0);" ;;
        +) [[ $errors =~ ^[1-9][0-9]*$ ]] || why="$why errors '$errors' (expected > 0);" ;;
    esac
    [ "$(grep -c '^::error ' "$TMP/runner/out")" = "$errors" ] ||
        why="$why errors output differs from the annotations printed;"
    if [ "$want_errors" = + ]; then
        grep -qE '^::error file=(\./)?corpus/examples/hostile\.gguf,line=1,title=GG' "$TMP/runner/out" ||
            why="$why no annotation on corpus/examples/hostile.gguf;"
    fi
    for k in warnings notes; do
        [[ $(output $k) =~ ^[0-9]+$ ]] || why="$why output $k '$(output $k)';"
    done
    if [ "$want_sarif" = yes ]; then
        if [ "$(output sarif-file)" != gguflint.sarif ] || [ ! -s "$TMP/ws/gguflint.sarif" ]; then
            why="$why no gguflint.sarif;"
        elif ! is_json "$TMP/ws/gguflint.sarif"; then
            why="$why gguflint.sarif is not valid JSON;"
        elif [ -n "$PYJSON" ]; then
            local n
            n=$(sarif_results "$TMP/ws/gguflint.sarif")
            if [ "$want_errors" = 0 ] && [ "$n" != 0 ]; then why="$why SARIF has $n results;"; fi
            if [ "$want_errors" = + ] && [ "$n" = 0 ]; then why="$why SARIF has no results;"; fi
        fi
    else
        [ -z "$(output sarif-file)" ] && [ ! -e "$TMP/ws/gguflint.sarif" ] ||
            why="$why a SARIF file was written;"
    fi
    if [ -z "$why" ]; then ok "action lint step: $what"; else
        sed 's/^/    stderr: /' "$TMP/runner/err" | head -10
        bad "action lint step: $what:$why"
    fi
}

if [ -s "$TMP/lint.env" ]; then
    expect_lint "defaults (paths ., recursive) find hostile.gguf" 1 + yes
    expect_lint "valid.gguf alone is clean" 0 0 yes \
        paths=corpus/examples/valid.gguf recursive=false
    expect_lint "two paths, newline-separated, --exit-zero in extra-args" 0 + yes \
        "paths=corpus/examples/valid.gguf
corpus/examples/hostile.gguf" recursive=false "extra-args=--exit-zero --quiet"
    expect_lint "sarif false writes no SARIF" 1 + no sarif=false
    expect_lint "security profile, fail-on warning" 1 + yes \
        profile=security fail-on=warning paths=corpus
    expect_lint "empty profile and fail-on defer to gguflint" 0 0 yes \
        profile= fail-on= paths=corpus/examples/valid.gguf
    run_lint "extra-args=--format json" paths=corpus/examples/valid.gguf
    if [ "$lint_rc" -eq 2 ] && grep -q "is set by the action" "$TMP/runner/err"; then
        ok "action lint step: extra-args cannot change the annotation format (refused)"
    else
        bad "action lint step: extra-args --format: exit $lint_rc, expected 2 with a reason"
    fi
    # the step lints once: annotations and SARIF come from one gguflint run
    printf '#!/usr/bin/env bash\necho run >>"%s"\nexec "%s" "$@"\n' \
        "$TMP/invocations" "$BIN" >"$TMP/counting-gguflint"
    chmod +x "$TMP/counting-gguflint"
    rm -f "$TMP/invocations"
    LINT_BIN=$TMP/counting-gguflint run_lint
    runs=$(cat "$TMP/invocations" 2>/dev/null | wc -l)
    if [ "$lint_rc" -eq 1 ] && [ "$runs" = 1 ] && [ -s "$TMP/ws/gguflint.sarif" ]; then
        ok "action lint step: one gguflint run writes the annotations and the SARIF file"
    else
        bad "action lint step: $runs gguflint run(s), exit $lint_rc (expected 1 run, exit 1)"
    fi
    run_lint recursive=false
    if [ "$lint_rc" -eq 2 ] && [ "$(output exit-code)" = 2 ]; then
        ok "action lint step: a directory without recursive is exit 2"
    else
        bad "action lint step: a directory without recursive: exit $lint_rc," \
            "output exit-code '$(output exit-code)', expected 2"
    fi
    check_repo_layout
    run_lint recursive=yes
    if [ "$lint_rc" -eq 2 ]; then ok "action lint step: rejects recursive=yes"; else
        bad "action lint step: recursive=yes: exit $lint_rc, expected 2"; fi
    run_lint "paths= "
    if [ "$lint_rc" -eq 2 ]; then ok "action lint step: rejects empty paths"; else
        bad "action lint step: empty paths: exit $lint_rc, expected 2"; fi
fi

}
action_parsed=
if yaml_ok "$ACTION"; then
    ok "action.yml parses as YAML"
    action_parsed=1
    check_action
else
    bad "action.yml does not parse as YAML"
fi

# ------------------------------------------------------ (d) example workflow

check_example() {
if [ -n "$PY" ]; then
    if "$PY" - "$EXAMPLE" "$ACTION" <<'PY'; then ok "example workflow: jobs, LFS checkout, gguflint step with declared inputs"; else bad "example workflow structure"; fi
import sys, yaml
wf = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
action = yaml.safe_load(open(sys.argv[2], encoding="utf-8"))
problems = []
on = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` key as true
if not on or "pull_request" not in on:
    problems.append("not triggered on pull_request")
steps = [s for job in wf.get("jobs", {}).values() for s in job.get("steps", [])]
import re
lint = [s for s in steps if re.match(r"[^/@\s]+/gguflint@", str(s.get("uses", "")))]
if not lint:
    problems.append("no step uses OWNER/gguflint@...")
for s in lint:
    if not re.search(r"@[0-9a-f]{40}$", str(s["uses"])):
        problems.append("the gguflint step is not pinned to a full commit hash")
for s in lint:
    for k in s.get("with", {}):
        if k not in action["inputs"]:
            problems.append(f"the gguflint step passes {k}, which action.yml does not declare")
    if "security" not in str(s.get("with", {}).get("profile", "")):
        problems.append("the gguflint step does not use the security profile")
if not any("lfs" in str(s) for s in steps):
    problems.append("no Git LFS fetch")
if "security-events" not in wf.get("permissions", {}):
    problems.append("no security-events permission for the SARIF upload")
for p in problems:
    print("   ", p)
sys.exit(1 if problems else 0)
PY
else
    if grep -qE '^ *uses: [^/@ ]+/gguflint@[0-9a-f]{40}' "$EXAMPLE" &&
        grep -qE '^jobs:' "$EXAMPLE" && grep -qE '^on:' "$EXAMPLE" && grep -q 'lfs' "$EXAMPLE"; then
        ok "example workflow: on, jobs, LFS and uses: OWNER/gguflint@COMMIT"
    else
        bad "example workflow lacks on:, jobs:, an LFS fetch or a pinned uses: OWNER/gguflint@"
    fi
fi
}
if ! yaml_ok "$EXAMPLE"; then
    bad "ci/examples/model-repo-workflow.yml does not parse as YAML"
else
    ok "ci/examples/model-repo-workflow.yml parses as YAML"
    if [ -n "$action_parsed" ]; then check_example; else
        skip "example workflow: not compared with action.yml, which does not parse"; fi
fi

echo "check-integrations: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
