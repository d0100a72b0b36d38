#!/bin/bash -eu
# .clusterfuzzlite/build.sh - builds every fuzz harness for ClusterFuzzLite /
# OSS-Fuzz with $CC $CFLAGS and links $LIB_FUZZING_ENGINE; ships, per target,
# <target>_seed_corpus.zip (corpus/), <target>.dict and <target>.options.
# Each GGUF harness also gets a structure-aware <target>_sa variant
# (libFuzzer's custom mutator; engines without custom-mutator support ignore
# it); the harnesses of text readers (fuzz_fetch: HTTP scripts,
# fuzz_manifest: JSON manifests, fuzz_config: INI files, fuzz_baseline:
# --baseline files) have their own seeds
# and dictionaries and no such variant; nor has fuzz_diff (two GGUF files end
# to end: seeds from corpus/diffs, the GGUF dictionary).
# Run locally with ci/cflite-check.sh.
SRC_DIR=${SRC_DIR:-$SRC/gguflint}
cd "$SRC_DIR"
: "${WORK:=$(mktemp -d)}"
LINK=${CXX:-$CC}
# URL inputs (src/net/, and the fuzz_fetch harness) when libcurl's headers and
# libjansson are there (the Dockerfile installs them); libjansson is linked
# statically so the runner image needs no extra library, libcurl is dlopen'ed.
url=()
url_libs=()
jansson=/usr/lib/x86_64-linux-gnu/libjansson.a
if [ -f /usr/include/jansson.h ] && [ -f "$jansson" ] &&
    echo '#include <curl/curl.h>' | $CC -E - >/dev/null 2>&1; then
    url=(-DGGUFLINT_HAVE_URL)
    url_libs=("$jansson" -ldl)
fi
objs=()
for f in $(find src -name '*.c' -not -path 'src/cli/*' | sort); do
    if [ "${f#src/net/}" != "$f" ] && [ ${#url[@]} -eq 0 ]; then continue; fi
    o=$WORK/lib_$(echo "${f#src/}" | tr / _ | sed 's/\.c$//').o
    $CC $CFLAGS -std=c11 -D_DEFAULT_SOURCE -DGGUFLINT_UNSTABLE_API "${url[@]}" -Isrc -c "$f" -o "$o"
    objs+=("$o")
done
# zip_seeds ZIP DIR EXT: every *EXT file under DIR ("" : every file), flat
zip_seeds() {
    rm -f "$1"
    python3 - "$1" "$2" "$3" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for root, _, files in os.walk(sys.argv[2]):
        for f in sorted(files):
            if f.endswith(sys.argv[3]):
                z.write(os.path.join(root, f), f)
PY
}
seed_zip=$WORK/seed_corpus.zip
zip_seeds "$seed_zip" corpus .gguf
zip_seeds "$WORK/fetch_seed_corpus.zip" corpus/fetch ""
zip_seeds "$WORK/manifest_seed_corpus.zip" corpus/manifests .json
zip_seeds "$WORK/config_seed_corpus.zip" corpus/configs .ini
zip_seeds "$WORK/baseline_seed_corpus.zip" corpus/baselines .baseline
zip_seeds "$WORK/diff_seed_corpus.zip" corpus/diffs .pair
for src in fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    variants=("" _sa)
    cli=()
    libs=("${url_libs[@]}")
    dict=fuzz/gguf.dict
    zipf=$seed_zip
    case $name in
    fuzz_template) dict=fuzz/template.dict ;;
    fuzz_fetch)
        [ ${#url[@]} -gt 0 ] || continue # needs URL support
        variants=("")
        dict=fuzz/fetch.dict
        zipf=$WORK/fetch_seed_corpus.zip
        ;;
    fuzz_manifest)
        variants=("")
        cli=(src/cli/manifest.c)
        libs+=("$jansson")
        dict=fuzz/manifest.dict
        zipf=$WORK/manifest_seed_corpus.zip
        ;;
    fuzz_baseline)
        variants=("")
        cli=(src/cli/baseline.c src/cli/common.c)
        dict=fuzz/baseline.dict
        zipf=$WORK/baseline_seed_corpus.zip
        ;;
    fuzz_diff)
        variants=("")
        cli=(src/cli/diff.c src/cli/diff_text.c src/cli/diff_json.c src/cli/linediff.c
            src/cli/sha256.c)
        libs+=(-ldl)
        zipf=$WORK/diff_seed_corpus.zip
        ;;
    fuzz_config)
        variants=("")
        cli=(src/cli/config.c)
        libs+=(-linih)
        dict=fuzz/config.dict
        zipf=$WORK/config_seed_corpus.zip
        ;;
    esac
    cli_objs=()
    for c in "${cli[@]}"; do
        o=$WORK/cli_$(basename "$c" .c).o
        $CC $CFLAGS -std=c11 -D_DEFAULT_SOURCE -DGGUFLINT_UNSTABLE_API -Isrc -Isrc/cli -c "$c" -o "$o"
        cli_objs+=("$o")
    done
    for variant in "${variants[@]}"; do
        target=$name$variant
        extra=()
        [ -n "$variant" ] && extra=(-include fuzz/gguf_mutator.h)
        $CC $CFLAGS -std=c11 -DGGUFLINT_UNSTABLE_API "${url[@]}" -Isrc -Isrc/cli -Ifuzz "${extra[@]}" -c "$src" \
            -o "$WORK/$target.o"
        $LINK $CFLAGS "$WORK/$target.o" "${cli_objs[@]}" "${objs[@]}" $LIB_FUZZING_ENGINE -lm \
            "${libs[@]}" -lpthread -o "$OUT/$target"
        cp "$dict" "$OUT/$target.dict"
        printf '[libfuzzer]\ndict = %s.dict\nmax_len = 1048576\nrss_limit_mb = 2048\ntimeout = 10\n' \
            "$target" >"$OUT/$target.options"
        cp "$zipf" "$OUT/${target}_seed_corpus.zip"
    done
done
