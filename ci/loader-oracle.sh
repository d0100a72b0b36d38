#!/usr/bin/env bash
# The loader differential (issue 22): build llama.cpp's real loaders from
# ../shared/llama.cpp, generate minimal models, LoRA adapters and mmproj files
# from the loaders' own messages, mutate them, and compare every loader verdict
# with gguflint's. Fails on any disagreement that ci/loader-oracle/allowlist.tsv
# (deliberate extra rules) or known-gaps.tsv (open gaps) does not explain.
#
#   ci/loader-oracle.sh [--full] [GGUFLINT]
#
# Without --full a deterministic quarter of the mutants runs (every base model,
# every projector type's base file always). Prints "SKIP: ..." and exits 0 when
# ../shared/llama.cpp is absent. The llama.cpp build is kept in
# build-oracle/llama and reused.
set -euo pipefail
cd "$(dirname "$0")/.."
full=()
if [ "${1:-}" = "--full" ]; then full=(--full); shift; fi
gguflint=${1:-build-ci/gguflint}
src=${GGUFLINT_LLAMA_SRC:-../shared/llama.cpp}
if [ ! -f "$src/src/llama-arch.cpp" ] || [ ! -f "$src/tools/mtmd/clip.cpp" ]; then
  echo "SKIP: no llama.cpp tree at $src (the loader differential needs ../shared/llama.cpp)"
  exit 0
fi
if [ ! -x "$gguflint" ]; then
  echo "loader-oracle: no gguflint at $gguflint (build it first)" >&2
  exit 2
fi
out=${ORACLE_OUT:-build-oracle}
driver=$(bash ci/loader-oracle/build-driver.sh "$src" "$out")
rm -rf "$out/run"
python3 ci/loader-oracle/run.py --driver "$driver" --gguflint "$gguflint" --llama-src "$src" \
  --out "$out/run" "${full[@]}"
