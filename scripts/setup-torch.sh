#!/usr/bin/env bash
# Makes the two Debian chroots that hold real torch 2.x for the test suite:
#   trixie: torch 2.6.0, torchvision 0.21 (flat-zip .pt2, PT2E in torch.ao)
#   sid:    torch 2.14.1, torchvision 0.27, transformers, onnxruntime
# Idempotent: a chroot whose package set is complete is left as it is. The
# chroots live outside the clone, in ${ETCH_CHROOT_DIR:-/var/cache/etch/chroots}.
# Needs root (debootstrap, chroot); prints why and fails when it cannot.
#
# usage: setup-torch.sh [trixie|sid ...]   (default: both)
set -euo pipefail

dir=${ETCH_CHROOT_DIR:-/var/cache/etch/chroots}
mirror=${ETCH_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
  # The mirror apt is configured with (deb822 or one-line sources).
  mirror=$(grep -hoE 'https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list \
    /etc/apt/sources.list.d/* 2>/dev/null | head -1 | tr -d ' ' || true)
  mirror=${mirror:-http://deb.debian.org/debian}
fi

packages_for() {
  local common="python3-torch python3-torchvision python3-numpy python3-venv python3-pytest"
  case "$1" in
  trixie) echo "$common" ;;
  sid) echo "$common python3-transformers python3-onnx python3-onnxruntime" \
    "python3-tokenizers python3-sentencepiece python3-tiktoken python3-openai" ;;
  *) echo "setup-torch: unknown suite '$1' (trixie or sid)" >&2; return 1 ;;
  esac
}

die() {
  echo "setup-torch: $*" >&2
  exit 1
}

[ "$(id -u)" -eq 0 ] || die "making the torch chroots needs root (debootstrap, chroot); run as root, or set ETCH_SKIP_TORCH=1 to run the suite without the torch 2.x tests"
command -v debootstrap >/dev/null || {
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends debootstrap >/dev/null ||
    die "cannot install debootstrap"
}

make_chroot() {
  local suite=$1 root="$dir/$1" stamp="$dir/$1.ready"
  local packages
  packages=$(packages_for "$suite")
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$packages" ]; then
    return 0
  fi
  echo "setup-torch: making the $suite chroot in $root (about 90 s, ~2 GB)"
  mkdir -p "$dir"
  if [ ! -x "$root/usr/bin/apt-get" ]; then
    rm -rf "$root"
    debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$dir/$suite.log" 2>&1 ||
      die "debootstrap $suite from $mirror failed (see $dir/$suite.log)"
  fi
  # The mirror's sid Release file can be past its Valid-Until date.
  chroot "$root" apt-get -o Acquire::Check-Valid-Until=false update -qq \
    >>"$dir/$suite.log" 2>&1 || die "apt-get update in the $suite chroot failed (see $dir/$suite.log)"
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -qq \
    --no-install-recommends $packages >>"$dir/$suite.log" 2>&1 ||
    die "installing '$packages' in the $suite chroot failed (see $dir/$suite.log)"
  chroot "$root" apt-get clean
  echo "$packages" >"$stamp"
}

suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(trixie sid)
for suite in "${suites[@]}"; do
  make_chroot "$suite"
done
