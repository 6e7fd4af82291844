#!/usr/bin/env bash
# int8 vs fp32, side by side in one run on this machine (figures, not tests):
#  - etch fp32 and etch --quantize=int8 (calibrated on 32 seeded random
#    inputs), both --targets=xnnpack,portable;
#  - etch on onnxruntime's own QDQ file of the model (quantize_static, made in
#    the sid chroot when scripts/setup-torch.sh has made it);
#  - ONNX Runtime (npm onnxruntime-node) on the fp32 file and on its QDQ file.
# 2 threads, batch 1, the same input; each figure is the median over ROUNDS
# alternating rounds of the median of RUNS runs after warm-up.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

/usr/bin/python3 - "$work/quant/calibration" <<'PY'
import os, sys, numpy as np
folder = sys.argv[1]; os.makedirs(folder, exist_ok=True)
rng = np.random.default_rng(1)
for k in range(32):
    np.save(os.path.join(folder, f"{k:02d}.npy"), rng.standard_normal((1, 3, 224, 224)).astype(np.float32))
PY
printf '%s threads, batch 1; median over %s alternating rounds of the median of %s runs (ms)\n' \
  "$threads" "$rounds" "$runs"
printf '%-19s %8s %8s %8s %8s %8s | %9s %9s %9s %9s\n' model etch_f32 etch_i8 etch_qdq ort_f32 \
  ort_qdq i8/f32 i8/ort_f32 i8/ort_qdq qdq/ort_qdq
for model in mobilenet_v2 mobilenet_v3_small resnet18; do
  /usr/bin/python3 "$root/python/etch/onnx_corpus.py" --out "$work/corpus" --model "$model" --opset 13
  onnx="$work/corpus/${model}_op13.onnx"
  input="$work/corpus/${model}_input.npy"
  "$build/bin/et-compile" "$onnx" --targets=xnnpack,portable -o "$work/quant/$model.f32.etp"
  "$build/bin/et-compile" "$onnx" --targets=xnnpack,portable --quantize=int8 \
    --calibration-data="$work/quant/calibration" -o "$work/quant/$model.i8.etp" 2>/dev/null
  qdq="$work/quant/sid/ort_${model}_qdq.onnx"
  if [ ! -f "$qdq" ] && [ -f "${ETCH_CHROOT_DIR:-/var/cache/etch/chroots}/sid.ready" ]; then
    "$root/scripts/torch-run.sh" sid "$work/quant/sid" python/etch/quant_corpus.py \
      --models "ort_$model" --onnx "@$onnx" >/dev/null 2>&1 || true
  fi
  have_qdq=0
  if [ -f "$qdq" ]; then
    have_qdq=1
    "$build/bin/et-compile" "$qdq" --targets=xnnpack,portable -o "$work/quant/$model.qdq.etp"
  fi
  f32s=() i8s=() qdqs=() ortf=() ortq=()
  for _ in $(seq 1 "$rounds"); do
    f32s+=("$(etch_ms "$work/quant/$model.f32.etp" "$input")")
    ortf+=("$(ort_ms "$onnx" "$input")")
    i8s+=("$(etch_ms "$work/quant/$model.i8.etp" "$input")")
    if [ "$have_qdq" = 1 ]; then
      qdqs+=("$(etch_ms "$work/quant/$model.qdq.etp" "$input")")
      ortq+=("$(ort_ms "$qdq" "$input")")
    else
      qdqs+=(0) ortq+=(0)
    fi
  done
  f32=$(median "${f32s[@]}") i8=$(median "${i8s[@]}") q=$(median "${qdqs[@]}")
  of=$(median "${ortf[@]}") oq=$(median "${ortq[@]}")
  printf '%-19s %8s %8s %8s %8s %8s | %9s %9s %9s %9s\n' "$model" "$f32" "$i8" "$q" "$of" "$oq" \
    "$(ratio "$i8" "$f32")" "$(ratio "$i8" "$of")" "$(ratio "$i8" "$oq")" "$(ratio "$q" "$oq")"
done
