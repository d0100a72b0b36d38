#!/bin/bash -eu
# .clusterfuzzlite/build.sh - builds every fuzz harness for ClusterFuzzLite /
# OSS-Fuzz with $CC $CFLAGS and links $LIB_FUZZING_ENGINE; ships, per target,
# <target>_seed_corpus.zip (corpus/), <target>.dict and <target>.options.
# Each harness also gets a structure-aware <target>_sa variant (libFuzzer's
# custom mutator; engines without custom-mutator support ignore it).
# Run locally with ci/cflite-check.sh.
SRC_DIR=${SRC_DIR:-$SRC/gguflint}
cd "$SRC_DIR"
: "${WORK:=$(mktemp -d)}"
LINK=${CXX:-$CC}
# URL inputs (src/net/, and the fuzz_fetch harness) when libcurl's headers and
# libjansson are there (the Dockerfile installs them); libjansson is linked
# statically so the runner image needs no extra library, libcurl is dlopen'ed.
url=()
libs=()
if [ -f /usr/include/jansson.h ] && [ -f /usr/lib/x86_64-linux-gnu/libjansson.a ] &&
    echo '#include <curl/curl.h>' | $CC -E - >/dev/null 2>&1; then
    url=(-DGGUFLINT_HAVE_URL)
    libs=(/usr/lib/x86_64-linux-gnu/libjansson.a -ldl)
fi
objs=()
for f in $(find src -name '*.c' -not -path 'src/cli/*' | sort); do
    if [ "${f#src/net/}" != "$f" ] && [ ${#url[@]} -eq 0 ]; then continue; fi
    o=$WORK/lib_$(echo "${f#src/}" | tr / _ | sed 's/\.c$//').o
    $CC $CFLAGS -std=c11 -D_DEFAULT_SOURCE "${url[@]}" -Isrc -c "$f" -o "$o"
    objs+=("$o")
done
fetch_zip=$WORK/fetch_seed_corpus.zip
rm -f "$fetch_zip"
python3 - "$fetch_zip" corpus/fetch <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for f in sorted(os.listdir(sys.argv[2])):
        z.write(os.path.join(sys.argv[2], f), f)
PY
seed_zip=$WORK/seed_corpus.zip
rm -f "$seed_zip"
if command -v zip >/dev/null; then
    (cd corpus && find . -type f -name '*.gguf' -print | zip -q -j "$seed_zip" -@)
else
    python3 - "$seed_zip" corpus <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for root, _, files in os.walk(sys.argv[2]):
        for f in sorted(files):
            if f.endswith(".gguf"):
                z.write(os.path.join(root, f), f)
PY
fi
for src in fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    variants=("" _sa)
    if [ "$name" = fuzz_fetch ]; then
        # HTTP scripts, not GGUF: no structure-aware variant; needs URL support
        [ ${#url[@]} -gt 0 ] || continue
        variants=("")
    fi
    for variant in "${variants[@]}"; do
        target=$name$variant
        extra=()
        [ -n "$variant" ] && extra=(-include fuzz/gguf_mutator.h)
        $CC $CFLAGS -std=c11 "${url[@]}" -Isrc -Ifuzz "${extra[@]}" -c "$src" -o "$WORK/$target.o"
        $LINK $CFLAGS "$WORK/$target.o" "${objs[@]}" $LIB_FUZZING_ENGINE -lm "${libs[@]}" \
            -lpthread -o "$OUT/$target"
        case $name in
        fuzz_template) cp fuzz/template.dict "$OUT/$target.dict" ;;
        fuzz_fetch) cp fuzz/fetch.dict "$OUT/$target.dict" ;;
        *) cp fuzz/gguf.dict "$OUT/$target.dict" ;;
        esac
        printf '[libfuzzer]\ndict = %s.dict\nmax_len = 1048576\nrss_limit_mb = 2048\ntimeout = 10\n' \
            "$target" >"$OUT/$target.options"
        if [ "$name" = fuzz_fetch ]; then
            cp "$fetch_zip" "$OUT/${target}_seed_corpus.zip"
        else
            cp "$seed_zip" "$OUT/${target}_seed_corpus.zip"
        fi
    done
done
