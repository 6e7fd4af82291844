#!/usr/bin/env bash
# etch on oneDNN vs etch on XNNPACK vs ONNX Runtime (figures, not tests):
# per model the median over ROUNDS alternating rounds of the median of RUNS
# runs, THREADS threads, batch 1, the same ONNX file and input. fp32 on
# both targets and ORT with the ratios to ORT; int8 (--quantize=int8,
# calibrated on 8 seeded standard-normal inputs) on both targets with
# oneDNN int8's speed-up over etch's best fp32; then load+init of the oneDNN
# fp32 program (primitive creation, weight reorders) against ORT's session
# creation. MODELS narrows the list. On a CPU with AVX-512 a second table
# has both targets capped to AVX2 (ETCH_CPU_ISA=avx2, which caps oneDNN
# too) against ORT capped the same way (bench/ort_cap_avx2.py) in the same
# rounds: there oneDNN's int8 layers compute in float, as on the AVX2
# laptops most users have (docs/targets.md).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# (the log line saying oneDNN's int8 layers compute in float is the table's
# heading's to say)
run_ms() {
  "$build/bin/etch-runtime-bench" --threads "$threads" --runs "$runs" --input "$input" run "$1" \
    2> >(grep -v 'onednn: no VNNI here' >&2) | ms
}
capped=0
grep -qw avx512f /proc/cpuinfo && capped=1
capped_rows=""
printf '%s threads, batch 1; CPU %s; median over %s alternating rounds of the median of %s runs (ms)\n' \
  "$threads" "$("$build/bin/etch-runtime-bench" isa)" "$rounds" "$runs"
calibration="$work/onednn-calibration"
mkdir -p "$calibration"
/usr/bin/python3 -c "
import numpy
rng = numpy.random.default_rng(1)
for i in range(8):
    numpy.save('$calibration/input%d.npy' % i, rng.standard_normal((1, 3, 224, 224)).astype('float32'))"
printf '| %-18s | %7s | %7s | %7s | %10s | %10s | %9s | %9s | %14s | %9s | %11s |\n' model \
  "dnn fp32" "xnn fp32" ort dnn/ort xnn/ort "dnn int8" "xnn int8" "best fp32/dnn int8" "dnn load" "ort session"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' -------------------- --------- --------- --------- \
  ------------ ------------ ----------- ----------- ---------------- ----------- -------------
for model in ${MODELS:-mobilenet_v2 mobilenet_v3_small resnet18}; do
  /usr/bin/python3 "$root/python/etch/onnx_corpus.py" --out "$work/corpus" --model "$model" --opset 17 >/dev/null
  onnx="$work/corpus/${model}_op17.onnx"
  input="$work/corpus/${model}_input.npy"
  "$build/bin/et-compile" "$onnx" --targets=onednn,portable -o "$work/$model.onednn.etp"
  "$build/bin/et-compile" "$onnx" --targets=xnnpack,portable -o "$work/$model.xnnpack.etp"
  for target in onednn xnnpack; do
    "$build/bin/et-compile" "$onnx" --targets=$target,portable --quantize=int8 \
      --calibration-data="$calibration" -o "$work/$model.$target-int8.etp"
  done
  dnns=() xnns=() orts=() loads=() creates=() dnn8s=() xnn8s=()
  cdnns=() cxnns=() corts=() cdnn8s=() cxnn8s=()
  for _ in $(seq 1 "$rounds"); do
    dnns+=("$(run_ms "$work/$model.onednn.etp")")
    xnns+=("$(run_ms "$work/$model.xnnpack.etp")")
    ort=$(ort_run "$onnx" "$input")
    orts+=("$(echo "$ort" | ms)")
    creates+=("$(echo "$ort" | sed -E 's/ort create ([0-9.]+) ms.*/\1/')")
    loads+=("$("$build/bin/etch-runtime-bench" --threads "$threads" --runs 5 load "$work/$model.onednn.etp" | ms)")
    # Without VNNI its int8 layers compute in float (docs/targets.md).
    dnn8s+=("$(run_ms "$work/$model.onednn-int8.etp")")
    xnn8s+=("$(run_ms "$work/$model.xnnpack-int8.etp")")
    if [ $capped = 1 ]; then
      cdnns+=("$(ETCH_CPU_ISA=avx2 run_ms "$work/$model.onednn.etp")")
      cxnns+=("$(ETCH_CPU_ISA=avx2 run_ms "$work/$model.xnnpack.etp")")
      corts+=("$(ort_ms "$onnx" "$input" "$work/ort-avx2/node_modules")")
      cdnn8s+=("$(ETCH_CPU_ISA=avx2 run_ms "$work/$model.onednn-int8.etp")")
      cxnn8s+=("$(ETCH_CPU_ISA=avx2 run_ms "$work/$model.xnnpack-int8.etp")")
    fi
  done
  d=$(median "${dnns[@]}") x=$(median "${xnns[@]}") o=$(median "${orts[@]}")
  l=$(median "${loads[@]}") c=$(median "${creates[@]}")
  x8=$(median "${xnn8s[@]}") d8=$(median "${dnn8s[@]}")
  speedup=$(awk "BEGIN{b = ($d < $x ? $d : $x); printf \"%.2f\", b / $d8}")
  printf '| %-18s | %7s | %7s | %7s | %10.2f | %10.2f | %9s | %9s | %18s | %9s | %11s |\n' "$model" "$d" "$x" "$o" \
    "$(awk "BEGIN{print $d / $o}")" "$(awk "BEGIN{print $x / $o}")" "$d8" "$x8" \
    "$speedup" "$l" "$c"
  if [ $capped = 1 ]; then
    cd_=$(median "${cdnns[@]}") cx=$(median "${cxnns[@]}") co=$(median "${corts[@]}") cd8=$(median "${cdnn8s[@]}")
    capped_rows+=$(printf '| %-18s | %7s | %7s | %7s | %10.2f | %10.2f | %9s | %9s | %16.2f |' "$model" "$cd_" \
      "$cx" "$co" "$(awk "BEGIN{print $cd_ / $co}")" "$(awk "BEGIN{print $cx / $co}")" "$cd8" \
      "$(median "${cxnn8s[@]}")" "$(awk "BEGIN{print $cd8 / $cd_}")")$'\n'
  fi
done
if [ $capped = 1 ]; then
  printf '\netch and ORT capped to AVX2 (ETCH_CPU_ISA=avx2; oneDNN int8 layers in float), same rounds (ms)\n'
  printf '| %-18s | %7s | %7s | %7s | %10s | %10s | %9s | %9s | %16s |\n' model "dnn fp32" "xnn fp32" ort dnn/ort xnn/ort \
    "dnn int8" "xnn int8" "dnn int8 / fp32"
  printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' -------------------- --------- --------- --------- ------------ ------------ \
    ----------- ----------- ------------------
  printf '%s' "$capped_rows"
fi
