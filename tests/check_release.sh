#!/usr/bin/env bash
# check_release.sh - the release artefacts install and lint, as a user would.
#
#   check_release.sh SOURCE_DIR [ARTEFACT_DIR]
#
# Without ARTEFACT_DIR (the ctest release_install) it first runs
# ci/release.sh into a scratch folder: a release of the commit checked out
# (HEAD: uncommitted changes are not in it). Then:
#   - SHA256SUMS verifies and names every artefact; the SBOM is CycloneDX 1.6,
#     lists libc6 with its version and libcurl4 as optional, and its file
#     hashes are those of SHA256SUMS;
#   - the program links no shared library but libc.so.6;
#   - the .deb unpacks into a scratch root (dpkg -x) and its gguflint lints the
#     two example files (exit 0 and 1, rule ids in the hostile one's JSON);
#   - the wheel installs into a scratch venv (pip --no-index) and its
#     `gguflint` command, `python -m gguflint` and gguflint.lint() give the
#     .deb's program's findings.
# Exits 77 (skipped) without dpkg-deb, a python with venv and cffi, or (to
# build the release) a git checkout.
set -euo pipefail
src=$(cd "$1" && pwd)
# shellcheck source=release_common.sh
. "$(dirname "$0")/release_common.sh"
command -v dpkg-deb >/dev/null || { echo "SKIP: no dpkg-deb"; exit 77; }
[ $# -ge 2 ] || git -C "$src" rev-parse -q --verify HEAD >/dev/null 2>&1 ||
    { echo "SKIP: $src is not a git checkout (ci/release.sh archives HEAD)"; exit 77; }
release_setup check_release cffi venv ensurepip

if [ $# -ge 2 ]; then
    out=$(cd "$2" && pwd)
else
    bash "$src/ci/release.sh" --out "$tmp/out" --no-docker >"$tmp/release.log" 2>&1 ||
        { cat "$tmp/release.log"; fail "ci/release.sh"; }
    grep '^== release\|^   ' "$tmp/release.log"
    out=$tmp/out
    ok "ci/release.sh ($((SECONDS - t0)) s)"
fi

version=$(sed -n 's/^#define GGUFLINT_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
    "$src/src/gguflint.h" | paste -sd.)
valid=$src/corpus/examples/valid.gguf
hostile=$src/corpus/examples/hostile.gguf

# checksums, and the artefacts they name
(cd "$out" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not verify"
for f in "gguflint-$version-linux-x86_64" "gguflint_${version}_amd64.deb" "gguflint-$version.tar.gz" \
    "gguflint-$version.cdx.json"; do
    grep -q "  $f\$" "$out/SHA256SUMS" || fail "SHA256SUMS does not list $f"
done
wheel=$(ls "$out"/gguflint-"$version"-*.whl)
ok "SHA256SUMS verifies: $(wc -l <"$out/SHA256SUMS") files"

# the SBOM: CycloneDX 1.6, the C library every binary links, the artefacts' hashes
$python - "$out/gguflint-$version.cdx.json" "$out/SHA256SUMS" <<'EOF' || fail "SBOM"
import json, sys
bom = json.load(open(sys.argv[1]))
assert bom["bomFormat"] == "CycloneDX" and bom["specVersion"] == "1.6", "not CycloneDX 1.6"
names = {c["name"]: c for c in bom["components"]}
assert "libc6" in names and names["libc6"].get("version"), "libc6 (with a version) missing"
assert names.get("libcurl4", {}).get("scope") == "optional", "libcurl4 is loaded on demand"
sums = dict(reversed(line.split()) for line in open(sys.argv[2]))
for c in bom["components"]:
    if c["type"] == "file":
        assert sums[c["name"]] == c["hashes"][0]["content"], c["name"] + ": hash differs"
print("ok: SBOM: %d components, libc6 %s" % (len(names), names["libc6"]["version"]))
EOF

[ -f "$src/../shared/schemas/cyclonedx/bom-1.6.SNAPSHOT.schema.json" ] ||
    echo "skipped: SBOM schema validation: ../shared/schemas/cyclonedx is absent"

# the program: only glibc dynamic
needed=$(readelf -d "$out/gguflint-$version-linux-x86_64" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | paste -sd' ')
[ "$needed" = "libc.so.6" ] || fail "the release program needs $needed (only libc.so.6 expected)"
ok "the program links libc.so.6 only"

# lint: exit status and the hostile file's rule ids from one program
expect_lint() { # PROGRAM... : valid exits 0, hostile exits 1 naming GG rules
    expect_exit 0 "$tmp/lint.out" "$@" --quiet "$valid"
    expect_exit 1 "$tmp/lint.json" "$@" --format json "$hostile"
    grep -q '"rule": *"GG' "$tmp/lint.json" || fail "$* on hostile.gguf: no rule id in its JSON"
}

# the .deb, unpacked into a scratch root
deb=$out/gguflint_${version}_amd64.deb
[ "$(dpkg-deb -f "$deb" Package)" = gguflint ] || fail "$deb: Package is not gguflint"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "$deb: Version is not $version"
dpkg-deb -f "$deb" Depends | grep -q libc6 || fail "$deb: Depends has no libc6"
dpkg -x "$deb" "$tmp/root"
bin=$(find "$tmp/root" -path '*/bin/gguflint' -type f)
[ -n "$bin" ] || fail "$deb has no bin/gguflint"
for f in include/gguflint.h share/man/man1/gguflint.1; do
    find "$tmp/root" -path "*/$f" | grep -q . || fail "$deb has no $f"
done
find "$tmp/root" -name 'libgguflint.a' | grep -q . || fail "$deb has no libgguflint.a"
[ "$("$bin" --version)" = "$("$out/gguflint-$version-linux-x86_64" --version)" ] ||
    fail "the .deb's program and the release program differ in --version"
expect_lint "$bin" --isolated
cp "$tmp/lint.json" "$tmp/deb.json"
ok ".deb (dpkg -x): $(dpkg-deb -f "$deb" Depends); ${bin#"$tmp/root"} lints the examples"

# the wheel, into a scratch venv (Debian's cffi through the system site)
$python -m venv --system-site-packages "$tmp/venv"
PIP_DISABLE_PIP_VERSION_CHECK=1 "$tmp/venv/bin/pip" install -q --no-index "$wheel" ||
    fail "pip install --no-index $wheel"
expect_lint "$tmp/venv/bin/gguflint" --isolated
cmp -s "$tmp/lint.json" "$tmp/deb.json" || fail "the wheel's gguflint and the .deb's differ on hostile.gguf"
expect_lint "$tmp/venv/bin/python" -m gguflint --isolated
"$tmp/venv/bin/python" - "$hostile" "$tmp/deb.json" <<'EOF' || fail "gguflint.lint() in the venv"
import json, sys
import gguflint
r = gguflint.lint(sys.argv[1])
cli = json.load(open(sys.argv[2]))
assert not r.ok
got = sorted((f.rule, f.offset) for f in r.findings)
want = sorted((f["rule"], f["offset"]) for f in cli["files"][0]["findings"])
assert got == want, (got[:5], want[:5])
print("ok: gguflint.lint() in the venv: %d findings, as the CLI's" % len(got))
EOF
ok "wheel (pip --no-index): gguflint, python -m gguflint and gguflint.lint() agree with the .deb"
echo "check_release: all passed ($((SECONDS - t0)) s)"
