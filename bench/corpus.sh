#!/usr/bin/env bash
# The whole ONNX e2e corpus, etch (default CPU targets) against ONNX Runtime
# side by side in one run (figures, not tests): per model the median over
# ROUNDS alternating rounds of the median of RUNS runs, 2 threads, batch 1,
# the same ONNX file and input; the etch/ORT ratio, the program's delegates
# and the share of etch's time spent outside them (et-run --profile, one
# thread); then the ratios' geometric mean. MODELS narrows the list.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
corpus_models=$(/usr/bin/python3 "$root/python/etch/onnx_corpus.py" --help |
  sed -n 's/.*--model {\([^}]*\)}.*/\1/p' | tr ',' ' ')
etch_ms() {
  "$build/bin/etch-runtime-bench" --threads "$threads" --runs "$runs" --input "$2" run "$1" |
    sed -E 's/.*median ([0-9.]+) ms.*/\1/'
}
# Share of the profiled time outside delegates (rows other than a target's),
# on one thread: two threads on this shared 2-core machine make tiny
# delegate calls wait for a descheduled pool thread now and then.
outside_share() {
  "$build/bin/et-run" "$1" --input "$2" --threads 1 --profile --iterations 20 \
    --output-dir "$work/profile" 2>&1 |
    awk -v targets="$("$build/bin/et-compile" --list-targets | tr '\n' ' ')" '
      BEGIN { n = split(targets, t, " "); for (i = 1; i <= n; i++) target[t[i]] = 1 }
      /^op +calls/ { table = 1; next }
      table && NF == 4 && $3 ~ /^[0-9.]+$/ { all += $3; if (!($1 in target)) outside += $3 }
      END { printf "%.0f%%", (all > 0 ? 100 * outside / all : 0) }'
}
printf '%s threads, batch 1; CPU %s; median over %s alternating rounds of the median of %s runs (ms)\n' \
  "$threads" "$("$build/bin/etch-runtime-bench" isa)" "$rounds" "$runs"
printf '| %-18s | %8s | %8s | %8s | %9s | %16s |\n' model etch ort etch/ort delegates "outside delegates"
printf '|%s|%s|%s|%s|%s|%s|\n' -------------------- ---------- ---------- ---------- ----------- -------------------
log_sum=0 count=0
for model in ${MODELS:-$corpus_models}; do
  /usr/bin/python3 "$root/python/etch/onnx_corpus.py" --out "$work/corpus" --model "$model" --opset 17 >/dev/null
  onnx="$work/corpus/${model}_op17.onnx"
  input="$work/corpus/${model}_input.npy"
  delegates=$("$build/bin/et-compile" "$onnx" -o "$work/$model.etp" --print-partition-summary |
    sed -n 's/^ *delegates: \([0-9]*\).*/\1/p')
  etchs=() orts=()
  for _ in $(seq 1 "$rounds"); do
    etchs+=("$(etch_ms "$work/$model.etp" "$input")")
    orts+=("$(NODE_PATH="$work/ort/node_modules" node "$root/bench/ort_bench.js" "$onnx" "$input" "$runs" "$threads" |
      sed -E 's/.*median ([0-9.]+) ms/\1/')")
  done
  e=$(median "${etchs[@]}") o=$(median "${orts[@]}")
  ratio=$(awk "BEGIN{printf \"%.2f\", $e / $o}")
  log_sum=$(awk "BEGIN{print $log_sum + log($e / $o)}") count=$((count + 1))
  printf '| %-18s | %8s | %8s | %8s | %9s | %16s |\n' "$model" "$e" "$o" "$ratio" \
    "${delegates:-0}" "$(outside_share "$work/$model.etp" "$input")"
done
awk "BEGIN{printf \"geometric mean of etch/ort over %d models: %.2f\n\", $count, exp($log_sum / $count)}"
