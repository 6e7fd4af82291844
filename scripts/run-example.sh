#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds etch, compiles the bundled model
# (docs/examples/small_cnn.pt2, a small CNN as torch 2.14's torch.export.save
# writes it) for the default targets (every CPU target built, then portable)
# and runs it on its committed input, comparing with torch's eager output.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ETCH_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "== et-compile docs/examples/small_cnn.pt2 -o small_cnn.etp"
"$build/bin/et-compile" "$root/docs/examples/small_cnn.pt2" -o "$out/small_cnn.etp" \
  --print-partition-summary --print-memory-plan
echo "== et-run small_cnn.etp (50 iterations)"
"$build/bin/et-run" "$out/small_cnn.etp" --input "$root/docs/examples/small_cnn_input.npy" \
  --output-dir "$out" --iterations 50
echo "== compared with torch eager"
/usr/bin/python3 "$root/python/etch/compare.py" "$out/output0.npy" \
  "$root/docs/examples/small_cnn_expected.npy"
