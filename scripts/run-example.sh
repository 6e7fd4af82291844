#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds etch and runs the bundled example:
# the small CNN in docs/examples goes through the Edge passes.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
build=${ETCH_BUILD_DIR:-$root/build}
echo "== docs/examples/small_cnn.mlir after -etch-fold-batch-norm -canonicalize (weights elided)"
"$build/bin/et-opt" "$root/docs/examples/small_cnn.mlir" \
  -etch-fold-batch-norm -canonicalize --mlir-elide-resource-strings-if-larger=64
