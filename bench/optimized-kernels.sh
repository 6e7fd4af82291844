#!/usr/bin/env bash
# The optimized CPU kernels against the portable ones they replace and
# against ONNX Runtime, side by side in one run (figures, not tests): each
# model compiled once for the default targets, then run with the optimized
# kernels (the default) and with ETCH_KERNELS=portable, alternating rounds.
# 2 threads for the delegates and ORT; the optimized kernels run on one.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
printf '%s threads, batch 1; gemm micro-kernel %s; median over %s alternating rounds of the median of %s runs (ms)\n' \
  "$threads" "$("$build/bin/etch-runtime-bench" isa)" "$rounds" "$runs"
printf '%-16s %10s %10s %8s | %14s %10s %10s\n' model optimized portable ort \
  optimized/port optim/ort port/ort
for model in ${MODELS:-encoder_block convnext_tiny}; do
  /usr/bin/python3 "$root/python/etch/onnx_corpus.py" --out "$work/corpus" --model "$model" --opset 17
  onnx="$work/corpus/${model}_op17.onnx"
  input="$work/corpus/${model}_input.npy"
  "$build/bin/et-compile" "$onnx" -o "$work/$model.etp"
  fast=() slow=() orts=()
  for _ in $(seq 1 "$rounds"); do
    fast+=("$(etch_ms "$work/$model.etp" "$input")")
    slow+=("$(ETCH_KERNELS=portable etch_ms "$work/$model.etp" "$input")")
    orts+=("$(ort_ms "$onnx" "$input")")
  done
  f=$(median "${fast[@]}") p=$(median "${slow[@]}") o=$(median "${orts[@]}")
  printf '%-16s %10s %10s %8s | %14s %10s %10s\n' "$model" "$f" "$p" "$o" \
    "$(ratio "$f" "$p")" "$(ratio "$f" "$o")" "$(ratio "$p" "$o")"
done
