#!/usr/bin/env bash
# Build with warnings as errors and run every test. This is the README's test
# command; .ci/run runs it and then the sanitizer build.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset ci
cmake --build --preset ci -j2
ctest --preset ci -j2
