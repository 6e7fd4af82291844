#!/usr/bin/env bash
# Runs one of etch's Python scripts with a chroot's torch 2.x:
#
#   torch-run.sh SUITE OUT_DIR SCRIPT [ARGS...]
#
# An argument @FILE names a host file the script reads: it is copied into
# the chroot and the script gets the copy's path.
#
# SUITE is trixie (torch 2.6) or sid (torch 2.14), made by setup-torch.sh in
# ${ETCH_CHROOT_DIR:-/var/cache/etch/chroots}. python/etch is copied into the
# chroot and SCRIPT (a path under python/etch) runs there with its outputs in
# a private folder, then copied to OUT_DIR (also when it fails). /proc is mounted in a
# private mount namespace (onnxruntime needs it), so nothing stays mounted.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
suite=$1 out=$2 script=$3
shift 3
chroot_dir=${ETCH_CHROOT_DIR:-/var/cache/etch/chroots}/$suite
if [ ! -f "$chroot_dir.ready" ]; then
  echo "torch-run: no $suite chroot in ${chroot_dir%/*}; run scripts/setup-torch.sh" \
    "(or set ETCH_SKIP_TORCH=1 to skip the torch 2.x tests)" >&2
  exit 3
fi
work=$(mktemp -d "$chroot_dir/tmp/etch-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/out"
cp -r "$root/python/etch" "$work/etch"
inside=/tmp/${work##*/}
args=()
for arg in "$@"; do
  if [ "${arg#@}" != "$arg" ]; then
    mkdir -p "$work/in"
    file=${arg#@}
    cp "$file" "$work/in/" || { echo "torch-run: cannot read $file" >&2; exit 2; }
    arg=$inside/in/${file##*/}
  fi
  args+=("$arg")
done
set -- "${args[@]+"${args[@]}"}"
status=0
unshare --mount --propagation private sh -c '
  mount -t proc proc "$1/proc" && shift && exec chroot "$@"' \
  sh "$chroot_dir" "$chroot_dir" env HOME=/tmp PYTHONPATH="$inside" \
  PYTHONDONTWRITEBYTECODE=1 OMP_NUM_THREADS=1 \
  python3 "$inside/etch/${script#python/etch/}" --out "$inside/out" "$@" || status=$?
# What the script wrote is kept even when it failed (a corpus run reports
# every model, then fails); the status says whether it all worked.
mkdir -p "$out"
# Each file (or folder) appears whole (tests may read the folder meanwhile).
for file in "$work"/out/*; do
  [ -e "$file" ] || continue
  name=${file##*/}
  rm -rf "$out/.$name.$$"
  cp -r "$file" "$out/.$name.$$" && rm -rf "$out/$name" &&
    mv -f "$out/.$name.$$" "$out/$name"
done
exit $status
