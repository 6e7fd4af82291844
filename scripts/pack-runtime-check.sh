#!/usr/bin/env bash
# Packs what another x86-64 machine needs to check this tree's runtime on
# its own CPU (or GPU) without building anything there:
#
#   bash scripts/pack-runtime-check.sh OUT_DIR [--max-mb N] [--vulkan]
#   (on the other machine, with python3 + numpy)  bash OUT_DIR/run.sh
#
# OUT_DIR gets the runtime-only build's tools and unit tests (build-runtime,
# as scripts/test.sh builds it) with the Debian shared libraries they load,
# the programs the last release lit run compiled in test/E2E (each CPU
# configuration of every model up to --max-mb megabytes, 2.5 by default;
# --vulkan takes the Vulkan ones instead), and what each gave here on
# seeded inputs. run.sh runs the unit tests uncapped and capped to AVX2 and
# scalar, then python/etch/runtime_check.py over every program under the
# same caps (Vulkan: uncapped; set VK_DRIVER_FILES there if the loader
# finds no driver). docs/reliability.md gives what a Xeon and an H100 said.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ETCH_BUILD_DIR:-$root/build}
runtime_build=${ETCH_RUNTIME_BUILD_DIR:-$build-runtime}
[ $# -ge 1 ] || { echo "usage: pack-runtime-check.sh OUT_DIR [--max-mb N] [--vulkan]" >&2; exit 2; }
out=$1
shift
max_mb=2.5 vulkan=0
while [ $# -gt 0 ]; do
  case $1 in
    --max-mb) max_mb=$2; shift 2 ;;
    --vulkan) vulkan=1; shift ;;
    *) echo "pack-runtime-check.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
for need in "$runtime_build/bin/et-run" "$build/test/E2E"; do
  [ -e "$need" ] || { echo "pack-runtime-check.sh: $need is missing: run scripts/test.sh (or build.sh and the lit suite) first" >&2; exit 1; }
done
rm -rf "$out" && mkdir -p "$out/bin" "$out/lib" "$out/programs" "$out/references"
cp "$runtime_build"/bin/{et-run,etch-no-alloc-check,etch_*_tests} "$out/bin/"
# The libraries the tools load beyond glibc and the C++ runtime.
ldd "$out"/bin/* | awk '$3 ~ /^\// {print $3}' | sort -u |
  grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
  xargs -r cp -L -t "$out/lib/"
cp "$root"/python/etch/{runtime_check,compare,cpu,e2e}.py "$out/"
# One program per model and configuration: the training-IR export of the
# sid chroot stands for its decomposed and trixie twins.
find "$build/test/E2E" -name model.etp -size -"$(awk -v m="$max_mb" 'BEGIN{print int(m*1024)}')"k |
  grep -v -e /decomposed -e -trixie | sort | while read -r program; do
    config=$(basename "$(dirname "$program")")
    case $config in vulkan-*) [ "$vulkan" = 1 ] || continue ;; *) [ "$vulkan" = 0 ] || continue ;; esac
    name=$(realpath --relative-to="$build/test/E2E" "$(dirname "$program")" |
      sed 's|Output/||g; s|\.test\.tmp||; s|/|__|g')
    cp "$program" "$out/programs/$name.etp"
    mkdir -p "$out/references/$name"
    "$runtime_build/bin/et-run" "$program" --seed 7 --iterations 1 --threads 2 \
      --output-dir "$out/references/$name" >"$out/references/$name/run.log" 2>&1 ||
      rm -rf "$out/references/$name" # refused here (oneDNN int8 without VNNI)
  done
cat >"$out/run.sh" <<'EOF'
#!/usr/bin/env bash
# Unit tests and programs on this machine: uncapped, capped to AVX2 and to
# scalar (packed by scripts/pack-runtime-check.sh).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
grep -m1 "model name" /proc/cpuinfo
status=0
for cap in native avx2 scalar; do
  for test in "$here"/bin/etch_*_tests; do
    if [ $cap = native ]; then "$test" --gtest_brief=1; else ETCH_CPU_ISA=$cap "$test" --gtest_brief=1; fi \
      >"/tmp/$(basename "$test").$cap.log" 2>&1 || { status=1; echo "FAIL $(basename "$test") ($cap):"; tail -20 "/tmp/$(basename "$test").$cap.log"; }
  done
  echo "unit tests ($cap): done"
done
caps=native,avx2,scalar
ls "$here"/programs | grep -q vulkan && caps=native
python3 "$here/runtime_check.py" "$here" --caps "$caps" || status=1
exit $status
EOF
chmod +x "$out/run.sh"
echo "pack-runtime-check.sh: $(ls "$out/programs" | wc -l) programs, $(du -sh "$out" | cut -f1) in $out"
