#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds etch and runs every test: the full
# build (lit suite + unit tests through ctest), then the runtime alone built
# without MLIR/LLVM, as an embedder would. Exits non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ETCH_BUILD_DIR:-$root/build}

"$root/scripts/setup.sh"

echo "== build (compiler + runtime)"
"$root/scripts/build.sh"
echo "== tests (compiler + runtime)"
status=0
ctest --test-dir "$build" --output-on-failure -j2 || status=1
# ctest runs lit as one test; show lit's own summary too.
log="$build/Testing/Temporary/LastTest.log"
if [ -f "$log" ]; then
  grep -E '^(Total Discovered Tests|  (Passed|Failed|Unsupported|Expectedly Failed|Unresolved)):' "$log" || true
fi

echo "== build (runtime only, -DETCH_BUILD_COMPILER=OFF)"
ETCH_BUILD_DIR="$build-runtime" "$root/scripts/build.sh" -DETCH_BUILD_COMPILER=OFF
echo "== tests (runtime only)"
ctest --test-dir "$build-runtime" --output-on-failure -j2 || status=1

exit $status
