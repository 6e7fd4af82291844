# Shared by the LLM benchmarks (llm.sh, llm-methods.sh): sourced first. Sets
# root, build and rounds; sets up the machine, the sid chroot and the build.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ETCH_BUILD_DIR:-$root/build}
rounds=${ROUNDS:-3}
"$root/scripts/setup.sh"
"$root/scripts/setup-torch.sh" sid
"$root/scripts/build.sh" >/dev/null
# rate PHASE: et-llm's tokens/s for "prefill" or "decode" from its output.
rate() { sed -nE "s/^$1: .*\(([0-9.]+) tokens\/s\)$/\1/p"; }
# median "V1 V2 ...": to one decimal.
median() { printf '%s\n' $1 | sort -g | awk '{v[NR]=$1} END{printf "%.1f", v[int((NR+1)/2)]}'; }
ratio() { awk "BEGIN{ printf \"%.2f\", $1 / $2 }"; }
# header MODEL: the first line, naming the CPU and the ISA etch runs.
header() {
  local cpu
  cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
  printf '%s, %s (%s); median of %s alternating rounds, tokens/s\n' \
    "$1" "$cpu" "$("$build/bin/etch-runtime-bench" isa)" "$rounds"
}
