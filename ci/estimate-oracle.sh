#!/usr/bin/env bash
# The estimate oracle (issue 27 part 2): `gguflint estimate` against the
# buffer sizes llama.cpp itself reports for generated models of several
# architectures (ci/estimate-oracle/run.py states the cases and tolerances).
#
#   ci/estimate-oracle.sh [GGUFLINT]
#
# Reuses the llama.cpp build of the loader differential (build-oracle/llama,
# or $ORACLE_OUT/llama; ci/loader-oracle/build-driver.sh builds it when it is
# missing) and links ci/estimate-oracle/driver.cpp against it. Prints
# "SKIP: ..." and exits 0 when ../shared/llama.cpp is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
gguflint=${1:-build-ci/gguflint}
src=${GGUFLINT_LLAMA_SRC:-../shared/llama.cpp}
if [ ! -f "$src/src/llama-arch.cpp" ] || [ ! -f "$src/src/llama-ext.h" ]; then
  echo "SKIP: no llama.cpp tree at $src (the estimate oracle needs ../shared/llama.cpp)"
  exit 0
fi
if [ ! -x "$gguflint" ]; then
  echo "estimate-oracle: no gguflint at $gguflint (build it first)" >&2
  exit 2
fi
out=${ORACLE_OUT:-build-oracle}
loader_driver=$(bash ci/loader-oracle/build-driver.sh "$src" "$out")
b=$out/llama
c++ -O1 -std=c++17 ci/estimate-oracle/driver.cpp -I"$src/include" -I"$src/ggml/include" \
  -I"$src/src" "$b/src/libllama.a" "$b/ggml/src/libggml.a" "$b/ggml/src/libggml-cpu.a" \
  "$b/ggml/src/libggml-base.a" -lpthread -lm -o "$out/estimate-driver"
rm -rf "$out/estimate-run"
python3 ci/estimate-oracle/run.py --loader-driver "$loader_driver" --driver "$out/estimate-driver" \
  --gguflint "$gguflint" --out "$out/estimate-run"
rm -rf "$out/estimate-run/"*/  # the generated models; report.md stays
