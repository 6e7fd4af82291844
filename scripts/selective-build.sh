#!/usr/bin/env bash
# A runtime with only what some programs use (docs/runtime.md, selective
# builds):
#
#   bash scripts/selective-build.sh OUT_DIR PROGRAM.etp...
#
# Reads each program's operator table and delegate targets (flatc dumps the
# program's flatbuffer as JSON), configures a runtime-only build in OUT_DIR
# with -DETCH_SELECT_OPERATORS and -DETCH_SELECT_TARGETS (the CMake options
# an embedder sets the same way), builds et-run and the static runtime
# libraries (etch_runtime, etch_kernels, etch_backends), runs every program
# once with the new et-run, and prints what went in and et-run's text size.
# A program whose external weights are not beside it is run with the
# weights file ETCH_WEIGHTS names.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ $# -lt 2 ]; then
  echo "usage: selective-build.sh OUT_DIR PROGRAM.etp..." >&2
  exit 2
fi
out=$1
shift
for program in "$@"; do
  [ -f "$program" ] || { echo "selective-build.sh: $program: no such file" >&2; exit 1; }
done
"$root/scripts/setup.sh" >/dev/null

# What the programs use: "operators a;b;c" and "targets x;y" (or none).
uses=$(python3 "$root/python/etch/program_uses.py" "$root/runtime/schema/program.fbs" "$@" 2>&1) ||
  { echo "selective-build.sh: $uses" >&2; exit 1; }
operators=$(sed -n 's/^operators //p' <<<"$uses")
targets=$(sed -n 's/^targets //p' <<<"$uses")

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache
                                          -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake -S "$root" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DETCH_BUILD_COMPILER=OFF -DETCH_BUILD_TESTS=OFF \
  "-DETCH_SELECT_OPERATORS=$operators" "-DETCH_SELECT_TARGETS=$targets" \
  "${launcher[@]}" >/dev/null
cmake --build "$out" --target et-run etch_runtime etch_kernels etch_backends >/dev/null

for program in "$@"; do
  weights=()
  [ -n "${ETCH_WEIGHTS:-}" ] && weights=(--weights "$ETCH_WEIGHTS")
  if ! "$out/bin/et-run" "$program" "${weights[@]}" >/dev/null 2>"$out/run.log"; then
    echo "selective-build.sh: the selective et-run cannot run $program:" >&2
    cat "$out/run.log" >&2
    exit 1
  fi
done
text=$(size "$out/bin/et-run" | awk 'NR == 2 { print $1 }')
echo "operators: ${operators//;/ }"
echo "targets: ${targets//;/ }"
echo "et-run: $out/bin/et-run, $text bytes of text; ran ${#} program(s)"
