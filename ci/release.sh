#!/usr/bin/env bash
# ci/release.sh - build the release artefacts of the commit checked out.
#
#   bash ci/release.sh [--out DIR] [--jobs N] [--no-docker]
#
# From a clean checkout (git archive of HEAD, unpacked in a scratch folder,
# so nothing uncommitted and nothing generated gets in) it builds, into DIR
# (default build-artefacts/; never committed):
#   gguflint-V-linux-x86_64        the program, stripped: libinih and libjansson
#                                  linked in, glibc dynamic (libc.so.6, glibc
#                                  2.34 or newer); libcurl (URL inputs) and
#                                  libcrypto (`gguflint hash`) are loaded with
#                                  dlopen when first used, as in every build
#   gguflint_V_amd64.deb           CPack's Debian package (packaging/cpack.cmake)
#   gguflint-V-cpXY-cpXY-linux_x86_64.whl
#                                  the Python package, built offline (pip wheel
#                                  --no-build-isolation --no-index): the cffi
#                                  extension with libgguflint.a inside, and the
#                                  program for its `gguflint` command
#   gguflint-V.tar.gz              the source (git archive of HEAD)
#   gguflint-V.cdx.json            CycloneDX 1.6 SBOM (packaging/sbom.py),
#                                  validated against ../shared/schemas/cyclonedx
#                                  when that folder is there
#   SHA256SUMS                     of every file above
# and, when `docker info` works, the image gguflint:V from Dockerfile.
#
# The release build runs no tests (cmake --preset dist builds no test): run
# bash ci/test.sh for them; tests/check_release.sh (the ctest release_install)
# installs the artefacts and lints with them. Debian: cmake, a C compiler,
# libinih-dev, libjansson-dev, libcurl4-openssl-dev, dpkg-dev, python3-cffi,
# python3-setuptools, python3-pip, python3-wheel, python3-jsonschema.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build-artefacts
jobs=2
docker=auto
while [ $# -gt 0 ]; do
    case $1 in
    --out) out=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --no-docker) docker=no; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "release.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
[ "$(uname -m)" = x86_64 ] || { echo "release.sh: builds x86-64 Linux releases; this is $(uname -m)" >&2; exit 2; }
python=/usr/bin/python3 # Debian's: its cffi, setuptools and wheel build the wheel
[ -x $python ] || python=python3
version=$(sed -n 's/^#define GGUFLINT_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
    "$root/src/gguflint.h" | paste -sd.)
commit=$(git -C "$root" rev-parse HEAD)
# file times and the SBOM's timestamp: the commit's time, not the build's
SOURCE_DATE_EPOCH=$(git -C "$root" log -1 --format=%ct HEAD)
export SOURCE_DATE_EPOCH
out=$(mkdir -p "$out" && cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gguflint-release.XXXXXX")
trap 'rm -rf "$work"' EXIT
rm -f "$out"/gguflint[-_]* "$out"/SHA256SUMS

t0=$SECONDS
step() { echo "== release: $* ($((SECONDS - t0)) s)"; }

step "gguflint $version from commit ${commit:0:12} into $out"
if [ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ]; then
    echo "   note: the work tree has uncommitted changes; they are not in this release"
fi
tarball=$out/gguflint-$version.tar.gz
git -C "$root" archive --format=tar --prefix="gguflint-$version/" HEAD | gzip -n -9 >"$tarball"
src=$work/gguflint-$version
tar -xzf "$tarball" -C "$work"

step "build (cmake --preset dist: Release, no tests, static CLI libraries)"
echo "   tests: none built or run by a release build (run bash ci/test.sh)"
(cd "$src" && cmake --preset dist -DCMAKE_INSTALL_PREFIX=/usr >"$work/configure.log") ||
    { cat "$work/configure.log"; exit 1; }
build=$src/build-dist
cmake --build "$build" -j"$jobs" --target gguflint gguflint_static gguflint_shared \
    >"$work/build.log" || { tail -40 "$work/build.log"; exit 1; }

step "program"
binary=$out/gguflint-$version-linux-x86_64
strip -o "$binary" "$build/gguflint"
"$binary" --version >/dev/null

step "Debian package (cpack -G DEB)"
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/cpack" >"$work/cpack.log") ||
    { cat "$work/cpack.log"; exit 1; }
mv "$work"/cpack/gguflint_*.deb "$out/"
deb=$(ls "$out"/gguflint_*.deb)

step "Python wheel (offline)"
# (the scratch folder's name kept out of the extension's debug information)
CFLAGS="-ffile-prefix-map=$work=/build" \
    GGUFLINT_LIBRARY_DIR=$build GGUFLINT_CLI_BINARY=$binary PYTHONDONTWRITEBYTECODE=1 \
    $python -m pip wheel -q --no-build-isolation --no-index --no-deps -w "$out" "$src/python" \
    >"$work/wheel.log" 2>&1 || { cat "$work/wheel.log"; exit 1; }
wheel=$(ls "$out"/gguflint-*.whl)

step "SBOM (CycloneDX 1.6)"
mkdir -p "$work/whl"
(cd "$work/whl" && $python -m zipfile -e "$wheel" .)
elves=(--elf "$binary" --elf "$(ls "$work"/whl/gguflint/_native*.so)")
[ ! -e "$build/libgguflint.so" ] || elves+=(--elf "$(readlink -f "$build/libgguflint.so")")
schemas=$root/../shared/schemas/cyclonedx
validate=()
if [ -f "$schemas/bom-1.6.SNAPSHOT.schema.json" ]; then
    validate=(--validate "$schemas")
else
    echo "   SBOM not validated: $schemas is absent"
fi
sbom=$out/gguflint-$version.cdx.json
$python "$root/packaging/sbom.py" --version "$version" --commit "$commit" \
    --cmake-cache "$build/CMakeCache.txt" --static-user "$(basename "$binary")" "${elves[@]}" \
    --artefact "$binary" --artefact "$deb" --artefact "$wheel" --artefact "$tarball" \
    "${validate[@]}" --out "$sbom"

step "SHA256SUMS"
(cd "$out" && sha256sum -- "$(basename "$binary")" "$(basename "$deb")" "$(basename "$wheel")" \
    "$(basename "$tarball")" "$(basename "$sbom")" >SHA256SUMS)

if [ "$docker" = auto ] && command -v docker >/dev/null && docker info >/dev/null 2>&1; then
    step "container image gguflint:$version (Dockerfile)"
    docker build -q -t "gguflint:$version" -f "$src/Dockerfile" \
        --build-arg "DEB=$(basename "$deb")" "$out"
    docker run --rm -v "$src/corpus/examples:/work:ro" "gguflint:$version" valid.gguf
else
    step "container image skipped: $([ "$docker" = no ] && echo "--no-docker" || echo "docker info does not work here")"
fi

step "done"
(cd "$out" && ls -l -- "$(basename "$binary")" "$(basename "$deb")" "$(basename "$wheel")" \
    "$(basename "$tarball")" "$(basename "$sbom")" SHA256SUMS | awk '{printf "   %9d  %s\n", $5, $9}')
