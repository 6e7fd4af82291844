#!/usr/bin/env bash
# The whole ONNX e2e corpus, etch (default CPU targets) against ONNX Runtime
# side by side in one run (figures, not tests): per model the median over
# ROUNDS alternating rounds of the median of RUNS runs, 2 threads, batch 1,
# the same ONNX file and input; the median of the rounds' etch/ORT ratios
# (the machine's speed drifts in phases of seconds: a round's two runs
# share one), the program's delegates and the share of etch's time spent
# outside them (et-run --profile, one thread); then the ratios' geometric
# mean. MODELS narrows the list.
# The header names the CPU's ISA. On a CPU with AVX-512 it also times etch
# capped to AVX2 (ETCH_CPU_ISA=avx2: its kernels, XNNPACK's and oneDNN's),
# as most users' CPUs run it, beside ORT capped the same way (a copy of its
# library whose CPU checks see no AVX-512: bench/ort_cap_avx2.py), and the
# capped etch's efficiency: the model's convolution and matmul GFLOP/s
# (python/etch/onnx_flops.py) over the AVX2 FMA peak of the cores used
# (etch-conv-kernels-bench peak avx2).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
corpus_models=$(/usr/bin/python3 "$root/python/etch/onnx_corpus.py" --help |
  sed -n 's/.*--model {\([^}]*\)}.*/\1/p' | tr ',' ' ')
capped=0
if grep -qw avx512f /proc/cpuinfo; then
  capped=1
  peak=$(ETCH_CPU_ISA=avx2 "$build/bin/etch-conv-kernels-bench" peak avx2)
fi
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
if [ $capped = 1 ]; then
  printf 'etch and ORT capped to AVX2: FMA peak %s GFLOP/s per core; efficiency = model GFLOP/s / (peak x %s)\n' "$peak" "$threads"
  printf '| %-18s | %8s | %8s | %8s | %9s | %16s | %9s | %9s | %13s | %10s |\n' model etch ort etch/ort delegates "outside delegates" \
    "etch AVX2" "ORT AVX2" "AVX2 etch/ort" "efficiency"
  printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' -------------------- ---------- ---------- ---------- ----------- ------------------- \
    ----------- ----------- --------------- ------------
else
  printf '| %-18s | %8s | %8s | %8s | %9s | %16s |\n' model etch ort etch/ort delegates "outside delegates"
  printf '|%s|%s|%s|%s|%s|%s|\n' -------------------- ---------- ---------- ---------- ----------- -------------------
fi
log_sum=0 log_sum_avx2=0 count=0
for model in ${MODELS:-$corpus_models}; do
  /usr/bin/python3 "$root/python/etch/onnx_corpus.py" --out "$work/corpus" --model "$model" --opset 17 >/dev/null
  onnx="$work/corpus/${model}_op17.onnx"
  input="$work/corpus/${model}_input.npy"
  delegates=$("$build/bin/et-compile" "$onnx" -o "$work/$model.etp" --print-partition-summary |
    sed -n 's/^ *delegates: \([0-9]*\).*/\1/p')
  etchs=() orts=() avx2s=() ort_avx2s=() ratios=() avx2_ratios=()
  for _ in $(seq 1 "$rounds"); do
    e=$(etch_ms "$work/$model.etp" "$input") o=$(ort_ms "$onnx" "$input")
    etchs+=("$e") orts+=("$o") ratios+=("$(ratio "$e" "$o")")
    if [ $capped = 1 ]; then
      a=$(ETCH_CPU_ISA=avx2 etch_ms "$work/$model.etp" "$input")
      oa=$(ort_ms "$onnx" "$input" "$work/ort-avx2/node_modules")
      avx2s+=("$a") ort_avx2s+=("$oa") avx2_ratios+=("$(ratio "$a" "$oa")")
    fi
  done
  e=$(median "${etchs[@]}") o=$(median "${orts[@]}") r=$(median "${ratios[@]}")
  log_sum=$(awk "BEGIN{print $log_sum + log($r)}") count=$((count + 1))
  row=$(printf '| %-18s | %8s | %8s | %8s | %9s | %16s |' "$model" "$e" "$o" "$r" \
    "${delegates:-0}" "$(outside_share "$work/$model.etp" "$input")")
  if [ $capped = 1 ]; then
    a=$(median "${avx2s[@]}") oa=$(median "${ort_avx2s[@]}") ra=$(median "${avx2_ratios[@]}")
    log_sum_avx2=$(awk "BEGIN{print $log_sum_avx2 + log($ra)}")
    flops=$(/usr/bin/python3 "$root/python/etch/onnx_flops.py" "$onnx")
    row="$row $(printf ' %9s | %9s | %13s | %10s |' "$a" "$oa" "$ra" \
      "$(awk "BEGIN{printf \"%.2f\", $flops / ($a / 1000) / 1e9 / ($peak * $threads)}")")"
  fi
  echo "$row"
done
awk "BEGIN{printf \"geometric mean of etch/ort over %d models: %.2f\n\", $count, exp($log_sum / $count)}"
[ $capped = 1 ] &&
  awk "BEGIN{printf \"geometric mean of etch/ort, both capped to AVX2: %.2f\n\", exp($log_sum_avx2 / $count)}"
exit 0
