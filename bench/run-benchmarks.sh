#!/usr/bin/env bash
# Runtime benchmarks, printed as figures (not tests): framework overhead per
# kernel call, load+init time of each corpus program, arena size vs its
# lower bound, and portable execute time.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ETCH_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
"$root/scripts/build.sh" >/dev/null
work="$build/bench"
mkdir -p "$work/corpus"

# A program of 1000 relu calls on one float: execute time per instruction
# minus the kernel's own time is the framework's overhead.
{
  echo 'func.func @forward(%x: tensor<1xf32>) -> tensor<1xf32> {'
  prev='%x'
  for i in $(seq 1 1000); do
    echo "  %v$i = edge.relu $prev : (tensor<1xf32>) -> tensor<1xf32>"
    prev="%v$i"
  done
  echo "  return $prev : tensor<1xf32>"
  echo '}'
} > "$work/tiny_ops.mlir"
"$build/bin/et-compile" "$work/tiny_ops.mlir" --compile-to=program -o "$work/tiny_ops.etp"
"$build/bin/etch-runtime-bench" overhead "$work/tiny_ops.etp"

programs=()
for model in mobilenet_v2 mobilenet_v3_small resnet18; do
  /usr/bin/python3 "$root/python/etch/onnx_corpus.py" --out "$work/corpus" --model "$model" --opset 17
  echo -n "memory plan $model: "
  "$build/bin/et-compile" "$work/corpus/${model}_op17.onnx" -o "$work/$model.etp" --print-memory-plan
  programs+=("$work/$model.etp")
done
"$build/bin/etch-runtime-bench" load "${programs[@]}"
"$build/bin/etch-runtime-bench" run "${programs[@]}"
