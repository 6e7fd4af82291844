#!/usr/bin/env bash
# Prefill and decode as separate methods vs one method for both (figures,
# not a test). The reference Llama of bench/llm.sh (random weights, seed 0),
# exported twice by python/etch/llm_export.py (sid chroot): with a dynamic
# sequence (1..128) and for one token. Compiled for --targets=portable with
# --last-logits-only, f32 and --quantize=int4-weight, as
#   one:   the dynamic export alone (method forward: prefill and every
#          decode step run the plan for 128 tokens, at the step's size)
#   split: et-compile --method prefill=dynamic --method decode=one-token
#          (decode planned and specialised for one token; the KV caches
#          shared by name)
# et-llm then generates 128 tokens after a 16-token prompt (--warmup), 1
# and 2 threads, ROUNDS (3) alternating rounds, medians. On a CPU with
# AVX-512 each figure is also taken capped to AVX2 (ETCH_CPU_ISA=avx2).
# Ends with one line per precision (2 threads):
#   <precision> (<isa>): decode split/one <ratio>, prefill split/one <ratio>
# and the program sizes (split / one).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/llm-common.sh"
work="$build/bench/llm-methods"
mkdir -p "$work"
model=reference_llama
if [ ! -f "$work/${model}_decode.pt2" ]; then
  "$root/scripts/torch-run.sh" sid "$work" python/etch/llm_export.py --models "$model" \
    --new-tokens 8 >"$work/export.log" 2>&1 ||
    { echo "llm-methods.sh: export failed (see $work/export.log)" >&2; exit 1; }
fi
variants="native"
grep -qw avx512f /proc/cpuinfo && variants="native avx2"
declare -A scheme=([f32]="" [int4]="--quantize=int4-weight")
for precision in f32 int4; do
  # shellcheck disable=SC2086
  "$build/bin/et-compile" "$work/${model}_export.pt2" --targets=portable \
    --last-logits-only ${scheme[$precision]} -o "$work/one-$precision.etp"
  # shellcheck disable=SC2086
  "$build/bin/et-compile" --method "prefill=$work/${model}_export.pt2" \
    --method "decode=$work/${model}_decode.pt2" --targets=portable \
    --last-logits-only ${scheme[$precision]} -o "$work/split-$precision.etp"
done
prompt="$work/${model}_prompt.txt"

declare -A results
for round in $(seq "$rounds"); do
  for precision in f32 int4; do
    for threads in 1 2; do
      for variant in $variants; do
        cap=()
        [ "$variant" = avx2 ] && cap=(env ETCH_CPU_ISA=avx2)
        for form in one split; do
          out=$("${cap[@]}" "$build/bin/et-llm" "$work/$form-$precision.etp" --prompt "@$prompt" \
            --max-new-tokens 129 --ignore-eos --threads "$threads" --warmup --quiet)
          key=$precision,$threads,$variant,$form
          results[$key,pp]+=" $(rate prefill <<<"$out")"
          results[$key,tg]+=" $(rate decode <<<"$out")"
        done
      done
    done
  done
done
header "reference Llama"
printf '%-9s %7s %6s | %9s %9s %6s | %9s %9s %6s\n' precision threads isa \
  "one pp16" "split pp" ratio "one tg" "split tg" ratio
for precision in f32 int4; do
  for threads in 1 2; do
    for variant in $variants; do
      key=$precision,$threads,$variant
      op=$(median "${results[$key,one,pp]}") sp=$(median "${results[$key,split,pp]}")
      ot=$(median "${results[$key,one,tg]}") st=$(median "${results[$key,split,tg]}")
      printf '%-9s %7s %6s | %9s %9s %6s | %9s %9s %6s\n' "$precision" "$threads" "$variant" \
        "$op" "$sp" "$(ratio "$sp" "$op")" "$ot" "$st" "$(ratio "$st" "$ot")"
    done
  done
done
for precision in f32 int4; do
  for variant in $variants; do
    key=$precision,2,$variant
    echo "$precision ($variant): decode split/one $(ratio "$(median "${results[$key,split,tg]}")" \
      "$(median "${results[$key,one,tg]}")"), prefill split/one $(ratio \
      "$(median "${results[$key,split,pp]}")" "$(median "${results[$key,one,pp]}")")"
  done
  echo "$precision program bytes: split $(stat -c %s "$work/split-$precision.etp"), one" \
    "$(stat -c %s "$work/one-$precision.etp") (ratio $(ratio "$(stat -c %s "$work/split-$precision.etp")" \
    "$(stat -c %s "$work/one-$precision.etp")"))"
done
