#!/usr/bin/env bash
# Build llama.cpp's loaders (CPU only, static) from ../shared/llama.cpp and
# link the oracle's driver against them. Usage: build-driver.sh LLAMA_SRC OUT_DIR
# Prints the driver's path. The build is reused when OUT_DIR already has it.
set -euo pipefail
src=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
if [ ! -f "$out/llama/tools/mtmd/libmtmd.a" ]; then
  cmake -S "$src" -B "$out/llama" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DGGML_BACKEND_DL=OFF \
    -DBUILD_SHARED_LIBS=OFF -DGGML_OPENMP=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF \
    -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_BUILD_COMMON=OFF \
    -DLLAMA_BUILD_MTMD=ON >"$out/llama-configure.log" 2>&1
  cmake --build "$out/llama" -j"${ORACLE_JOBS:-2}" --target llama mtmd >"$out/llama-build.log" 2>&1 \
    || { tail -30 "$out/llama-build.log" >&2; exit 1; }
fi
b=$out/llama
c++ -O1 -x c -std=gnu11 "$here/driver.c" -x none -I"$src/include" -I"$src/ggml/include" \
  -I"$src/tools/mtmd" "$b/tools/mtmd/libmtmd.a" "$b/src/libllama.a" "$b/ggml/src/libggml.a" \
  "$b/ggml/src/libggml-cpu.a" "$b/ggml/src/libggml-base.a" -lpthread -lm -o "$out/driver"
echo "$out/driver"
