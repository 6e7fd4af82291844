# Shared by the benchmark scripts: settings, the build, ONNX Runtime from npm.
# Sourced; sets root, build, runs, threads, rounds, work and the helpers
# ms, etch_ms, ort_run, ort_ms, ratio and median.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ETCH_BUILD_DIR:-$root/build}
runs=${RUNS:-30}
threads=${THREADS:-2}
rounds=${ROUNDS:-3}
"$root/scripts/setup.sh"
"$root/scripts/build.sh" >/dev/null
work="$build/bench"
mkdir -p "$work/corpus" "$work/ort"
if ! command -v node >/dev/null; then
  apt-get install -y -qq nodejs npm >/dev/null
fi
if [ ! -d "$work/ort/node_modules/onnxruntime-node" ]; then
  (cd "$work/ort" && npm install --ignore-scripts --no-audit --no-fund \
     onnxruntime-node@1.30.0 >/dev/null)
fi
# On a CPU with AVX-512, a copy of it whose CPU checks see AVX2 at most, as
# on most users' CPUs (bench/ort_cap_avx2.py): ORT has no switch for that.
if grep -qw avx512f /proc/cpuinfo; then
  /usr/bin/python3 "$root/bench/ort_cap_avx2.py" "$work/ort/node_modules" "$work/ort-avx2/node_modules"
fi
# ms: the median of a bench line ("... median 1.234 ms ...").
ms() { sed -E 's/.*median ([0-9.]+) ms.*/\1/'; }
# etch_ms PROGRAM INPUT: etch's median latency over $runs runs.
etch_ms() { "$build/bin/etch-runtime-bench" --threads "$threads" --runs "$runs" --input "$2" run "$1" | ms; }
# ort_run MODEL INPUT [NODE_MODULES]: ort_bench.js's line (session creation,
# median latency) for the ORT in NODE_MODULES (default: the npm one);
# ort_ms the same, the median alone.
ort_run() { NODE_PATH="${3:-$work/ort/node_modules}" node "$root/bench/ort_bench.js" "$1" "$2" "$runs" "$threads"; }
ort_ms() { ort_run "$@" | ms; }
# ratio A B: A / B to two places.
ratio() { awk "BEGIN{ if ($2 > 0) printf \"%.2f\", $1 / $2; else print \"n/a\" }"; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
