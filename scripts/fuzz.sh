#!/usr/bin/env bash
# Fuzzes etch's loaders with libFuzzer (clang 19, ASan + UBSan).
#
#   scripts/fuzz.sh [--seconds N] [--seed S] [target ...]
#
# Targets: program, blob-<target> (one per built target), pt2, onnx,
# tokenizer, chat-template and openai-request; the default is all of them, N seconds each
# (default 60). Builds the sanitizer configuration in
# ${ETCH_SANITIZE_BUILD_DIR:-build-asan} if needed, makes seed corpora from
# the suite's own files, keeps each target's growing corpus in that build
# folder, and fails when a target finds a crash, a leak, a timeout or a
# sanitizer report: the input is then under
# <build>/fuzz/artifacts/<target>/; copy it into test/fuzz/regressions/.
#
# --seed S makes a run repeatable: libFuzzer's seed S, starting from the
# seeds and regressions alone (a fresh corpus in <build>/fuzz/seeded/), so
# a run on another machine takes the same path, as far as its time goes.
# The test command fuzzes this way: a longer local run with the same seed
# covers what CI's run tried.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ETCH_SANITIZE_BUILD_DIR:-$root/build-asan}
seconds=60
seed=
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
  --seconds) seconds=$2; shift 2 ;;
  --seed) seed=$2; shift 2 ;;
  -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
  *) targets+=("$1"); shift ;;
  esac
done

"$root/scripts/build-sanitized.sh" >/dev/null
if [ ${#targets[@]} -eq 0 ]; then
  for fuzzer in "$build"/bin/etch-fuzz-*; do
    name=${fuzzer##*/etch-fuzz-}
    [ "$name" = seeds ] || targets+=("$name")
  done
fi

seeds="$build/fuzz/seeds"
if [ ! -f "$seeds/.made" ] || [ -n "$(find "$root/test/fuzz" "$root/test/Import" \
    -newer "$seeds/.made" -type f 2>/dev/null | head -1)" ]; then
  "$root/test/fuzz/make-seeds.sh" "$build" "$seeds"
  touch "$seeds/.made"
fi

status=0
for target in "${targets[@]}"; do
  fuzzer="$build/bin/etch-fuzz-$target"
  [ -x "$fuzzer" ] || { echo "fuzz: no target '$target'" >&2; exit 2; }
  corpus="$build/fuzz/corpus/$target"
  seeding=()
  if [ -n "$seed" ]; then
    corpus="$build/fuzz/seeded/$target"
    rm -rf "$corpus"
    seeding=(-seed="$seed")
  fi
  artifacts="$build/fuzz/artifacts/$target"
  mkdir -p "$corpus" "$artifacts" "$seeds/$target"
  regressions=()
  [ -d "$root/test/fuzz/regressions/$target" ] &&
    regressions=("$root/test/fuzz/regressions/$target")
  log="$build/fuzz/$target.log"
  echo "== fuzz $target for ${seconds}s${seed:+ from seed $seed} (log: $log)"
  # Inputs up to 1 MB: the seed models are small; 2 GB and 10 s per input.
  if ! ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    LSAN_OPTIONS=suppressions="$root/test/lsan.supp" \
      "$fuzzer" "${seeding[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=1048576 -print_final_stats=1 -artifact_prefix="$artifacts/" \
      "$corpus" "$seeds/$target" "${regressions[@]}" >"$log" 2>&1; then
    echo "fuzz $target: FOUND A PROBLEM; inputs in $artifacts:" >&2
    ls "$artifacts" >&2
    # Sanitizer reports, failed assertions (XNNPACK keeps its asserts) and
    # what libFuzzer said last: enough to tell the crash from the CI log.
    grep -E "ERROR|SUMMARY|runtime error|Assertion|stack smashing|terminate called|what\(\)" \
      "$log" | head -8 >&2 || true
    tail -n 25 "$log" | grep -v "^    #" >&2 || true
    # Small inputs go into the log too, so a CI failure can be replayed.
    for input in "$artifacts"/*; do
      [ -f "$input" ] && [ "$(stat -c %s "$input")" -le 8192 ] &&
        { echo "base64 of ${input##*/}:"; base64 -w 100 "$input"; } >&2
    done
    status=1
  fi
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)|cov: " \
    "$log" | tail -4 | sed "s/^/  /"
done
exit $status
