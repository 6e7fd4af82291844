# Shared by the benchmark scripts: settings, the build, ONNX Runtime from npm.
# Sourced; sets root, build, runs, threads, rounds, work and median().
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
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
