#!/usr/bin/env bash
# LLM decoding, etch vs llama.cpp side by side in one run (figures, not a
# test). The reference model of the LLM issue (Llama architecture, hidden
# 512, 8 layers, 8 heads, MLP 1408, vocab 32000; random weights, seed 0):
#  - etch: the transformers export (python/etch/llm_export.py, sid chroot)
#    compiled with --targets=portable (etch's optimized kernels) and
#    --last-logits-only (logits of the last prompt position only, the rows
#    llama.cpp computes too) as f32, --quantize=int8-weight and
#    --quantize=int4-weight, run with et-llm --warmup (llama-bench warms up
#    before it measures as well);
#  - llama.cpp (Debian sid's 0.7.0, in the chroot): the same weights
#    converted by its convert_hf_to_gguf.py to f32, then llama-quantize
#    --pure to Q8_0 and Q4_0 (every tensor, as etch quantizes every one).
# Prefill of a 16-token prompt and decode of 128 tokens, 1 and 2 threads;
# each figure is the median over ROUNDS (3) rounds that alternate etch and
# llama.cpp. Ends with one line per precision (2 threads):
#   <precision> (<isa>): etch <decode t/s> llama.cpp <decode t/s> ratio <etch/llama.cpp>
# Also prints each quantized program's logits error and top-1 agreement
# against float torch over 64 teacher-forced tokens.
# Needs root once (installs llama.cpp into the sid chroot of
# scripts/setup-torch.sh). The header names the CPU's ISA; on a CPU with
# AVX-512 every figure is taken twice in each round: as the CPU allows, and
# with both sides capped to AVX2 (etch: ETCH_CPU_ISA=avx2; llama.cpp: its
# ggml CPU backend directory narrowed, in the chroot's private mount
# namespace, to the haswell build -- AVX2, FMA, F16C -- so ggml's loader
# cannot pick an AVX-512 one).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/llm-common.sh"
work="$build/bench/llm"
mkdir -p "$work"
chroot_dir=${ETCH_CHROOT_DIR:-/var/cache/etch/chroots}/sid
model=reference_llama

# llama.cpp and its converter's needs, in the sid chroot (once).
llama_stamp="$chroot_dir.llama-ready"
if [ ! -f "$llama_stamp" ]; then
  echo "llm.sh: installing llama.cpp into the sid chroot"
  DEBIAN_FRONTEND=noninteractive chroot "$chroot_dir" apt-get install -y -qq \
    --no-install-recommends llama.cpp llama.cpp-tools python3-gguf \
    python3-sentencepiece >"$work/llama-install.log" 2>&1 ||
    { echo "llm.sh: installing llama.cpp failed (see $work/llama-install.log)" >&2; exit 1; }
  touch "$llama_stamp"
fi
in_sid() { # runs a command in the chroot with /proc mounted privately
  unshare --mount --propagation private sh -c \
    'mount -t proc proc "$1/proc" && shift && exec chroot "$@"' sh "$chroot_dir" "$chroot_dir" "$@"
}
backends=/usr/lib/x86_64-linux-gnu/ggml/backends0
haswell_only="$chroot_dir/tmp/etch-ggml-haswell"
mkdir -p "$haswell_only"
cp -f "$chroot_dir$backends/libggml-cpu-haswell.so" "$haswell_only/"
in_sid_avx2() { # in_sid with only ggml's AVX2 CPU backend to load
  unshare --mount --propagation private sh -c \
    'mount -t proc proc "$1/proc" && mount --bind "$2" "$1$3" && shift 3 && exec chroot "$@"' \
    sh "$chroot_dir" "$haswell_only" "$backends" "$chroot_dir" "$@"
}
variants="native"
grep -qw avx512f /proc/cpuinfo && variants="native avx2"

# The model once: export, GGUF files, etch programs.
if [ ! -f "$work/${model}_export.pt2" ]; then
  "$root/scripts/torch-run.sh" sid "$work" python/etch/llm_export.py --models "$model" >/dev/null 2>&1
fi
if [ ! -f "$work/${model}_q4_0.gguf" ]; then
  "$root/scripts/torch-run.sh" sid "$work" python/etch/llm_gguf.py --models "$model" >/dev/null 2>&1
fi
gguf_dir="$chroot_dir/tmp/etch-llm-bench"
mkdir -p "$gguf_dir"
for kind in f32 q8_0 q4_0; do
  [ -f "$gguf_dir/$kind.gguf" ] || cp "$work/${model}_$kind.gguf" "$gguf_dir/$kind.gguf"
done
declare -A scheme=([f32]="" [int8]="--quantize=int8-weight" [int4]="--quantize=int4-weight")
declare -A peer=([f32]=f32 [int8]=q8_0 [int4]=q4_0)
for precision in f32 int8 int4; do
  # shellcheck disable=SC2086
  "$build/bin/et-compile" "$work/${model}_export.pt2" --targets=portable \
    --last-logits-only ${scheme[$precision]} -o "$work/$precision.etp"
done
prompt="$work/${model}_prompt.txt"

# tokens/s of llama-bench's row whose $1 (n_prompt or n_gen) is not 0.
llama_rate() {
  /usr/bin/python3 -c 'import csv, sys
for row in csv.DictReader(sys.stdin):
    if int(row[sys.argv[1]]) > 0:
        print(row["avg_ts"])' "$1"
}

# One round: every precision and thread count, etch then llama.cpp.
declare -A results
for round in $(seq "$rounds"); do
  for precision in f32 int8 int4; do
    for threads in 1 2; do
      for variant in $variants; do
        cap=() llama=in_sid
        [ "$variant" = avx2 ] && cap=(env ETCH_CPU_ISA=avx2) llama=in_sid_avx2
        out=$("${cap[@]}" "$build/bin/et-llm" "$work/$precision.etp" --prompt "@$prompt" \
          --max-new-tokens 129 --ignore-eos --threads "$threads" --warmup --quiet)
        key=$precision,$threads,$variant
        results[$key,etch_pp]+=" $(rate prefill <<<"$out")"
        results[$key,etch_tg]+=" $(rate decode <<<"$out")"
        csv=$($llama llama-bench -m "/tmp/etch-llm-bench/${peer[$precision]}.gguf" \
          -p 16 -n 128 -t "$threads" -r 1 -o csv 2>/dev/null)
        results[$key,llama_pp]+=" $(llama_rate n_prompt <<<"$csv")"
        results[$key,llama_tg]+=" $(llama_rate n_gen <<<"$csv")"
      done
    done
  done
done
header "reference Llama (58.5 M parameters)"
printf '%-6s %7s %6s | %11s %11s %6s | %11s %11s %6s\n' precision threads isa \
  "etch pp16" "llama pp16" ratio "etch tg128" "llama tg128" ratio
for precision in f32 int8 int4; do
  for threads in 1 2; do
    for variant in $variants; do
      key=$precision,$threads,$variant
      ep=$(median "${results[$key,etch_pp]}")
      lp=$(median "${results[$key,llama_pp]}")
      et=$(median "${results[$key,etch_tg]}")
      lt=$(median "${results[$key,llama_tg]}")
      printf '%-9s %4s %6s | %11s %11s %6s | %11s %11s %6s\n' "$precision" "$threads" "$variant" \
        "$ep" "$lp" "$(ratio "$ep" "$lp")" "$et" "$lt" "$(ratio "$et" "$lt")"
    done
  done
done

echo "quantization error against float torch (64 teacher-forced tokens):"
for precision in int8 int4; do
  /usr/bin/python3 "$root/python/etch/llm_check.py" --bin "$build/bin" \
    --configs portable --model "$work/${model}_export.pt2" --prefix "$work/$model" \
    --out "$work/check-$precision" --quantize "${scheme[$precision]#--quantize=}" \
    --same-tokens 0 --rtol-l2 1 --min-agreement 0 | sed "s/^portable: ok/  $precision:/"
done

for precision in f32 int8 int4; do
  for variant in $variants; do
    et=$(median "${results[$precision,2,$variant,etch_tg]}")
    lt=$(median "${results[$precision,2,$variant,llama_tg]}")
    echo "$precision ($variant): etch $et llama.cpp $lt ratio $(ratio "$et" "$lt")"
  done
done
