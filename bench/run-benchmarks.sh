#!/usr/bin/env bash
# Benchmarks, printed as figures (not tests), all in one run on this machine:
#  - runtime framework overhead per kernel call and load+init times;
#  - memory plan: arena size vs its lower bound;
#  - etch-xnnpack, etch-portable and ONNX Runtime (npm onnxruntime-node,
#    installed with --ignore-scripts) side by side: 2 threads, batch 1, the
#    same ONNX file and input, median of RUNS runs after warm-up. The shared
#    machine drifts, so etch and ORT are measured in ROUNDS alternating
#    rounds and each figure is the median of its rounds' medians.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

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
"$build/bin/et-compile" "$work/tiny_ops.mlir" -o "$work/tiny_ops.etp"
"$build/bin/etch-runtime-bench" overhead "$work/tiny_ops.etp"

printf '\n%s threads, batch 1; each figure: median over %s alternating rounds of the median of %s runs\n' \
  "$threads" "$rounds" "$runs"
printf '%-20s %10s %10s %10s %8s %8s %10s %10s %9s\n' model xnnpack_ms portable_ms ort_ms \
  xnn/ort port/ort xnn_load ort_create arena/lb
for model in mobilenet_v2 mobilenet_v3_small resnet18; do
  /usr/bin/python3 "$root/python/etch/onnx_corpus.py" --out "$work/corpus" --model "$model" --opset 17
  onnx="$work/corpus/${model}_op17.onnx"
  input="$work/corpus/${model}_input.npy"
  plan=$("$build/bin/et-compile" "$onnx" --targets=portable -o "$work/$model.portable.etp" --print-memory-plan)
  "$build/bin/et-compile" "$onnx" --targets=xnnpack,portable -o "$work/$model.xnnpack.etp"
  arena=$(echo "$plan" | sed -E 's/.*ratio ([0-9.]+)\).*/\1/')
  xnns=() ports=() loads=() orts=() creates=()
  for _ in $(seq 1 "$rounds"); do
    xnns+=("$(etch_ms "$work/$model.xnnpack.etp" "$input")")
    ort=$(ort_run "$onnx" "$input")
    creates+=("$(echo "$ort" | sed -E 's/ort create ([0-9.]+) ms.*/\1/')")
    orts+=("$(echo "$ort" | ms)")
    ports+=("$(etch_ms "$work/$model.portable.etp" "$input")")
    loads+=("$("$build/bin/etch-runtime-bench" --threads "$threads" --runs "$runs" load "$work/$model.xnnpack.etp" | ms)")
  done
  xnn=$(median "${xnns[@]}") port=$(median "${ports[@]}") load=$(median "${loads[@]}")
  ort_ms=$(median "${orts[@]}") ort_create=$(median "${creates[@]}")
  printf '%-20s %10s %10s %10s %8.2f %8.1f %10s %10s %9s\n' "$model" "$xnn" "$port" "$ort_ms" \
    "$(awk "BEGIN{print $xnn / $ort_ms}")" "$(awk "BEGIN{print $port / $ort_ms}")" "$load" "$ort_create" "$arena"
done
