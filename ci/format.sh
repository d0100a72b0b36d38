#!/usr/bin/env bash
# format.sh [--check] - apply .clang-format to the C sources of src/, tests/
# and fuzz/ (the .def tables and generated files are laid out by hand and
# left alone). --check changes nothing and exits 1 listing the files that
# differ from their formatted form; exits 77 when clang-format is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
cf=${CLANG_FORMAT:-clang-format}
command -v "$cf" >/dev/null || { echo "format: $cf not found: skipped"; exit 77; }
mapfile -t files < <(git ls-files 'src/*.c' 'src/*.h' 'tests/*.c' 'tests/*.h' 'fuzz/*.c' \
    'fuzz/*.h' 2>/dev/null || find src tests fuzz -name '*.[ch]' | sort)
if [ "${1:-}" = --check ]; then
    bad=0
    for f in "${files[@]}"; do
        if ! "$cf" --style=file "$f" | cmp -s - "$f"; then
            echo "not formatted: $f"
            bad=1
        fi
    done
    [ "$bad" = 0 ] && echo "format: ${#files[@]} files formatted"
    exit "$bad"
fi
"$cf" --style=file -i "${files[@]}"
echo "format: ${#files[@]} files formatted with $("$cf" --version | head -1)"
