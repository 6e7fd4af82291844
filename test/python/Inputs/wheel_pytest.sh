#!/usr/bin/env bash
# Installs the wheel in DIST into a fresh venv (system site packages visible,
# so the suite's torch is there) and runs test_etch.py there with pytest:
#
#   wheel_pytest.sh SUITE DIST DATA
#
# SUITE: host (Debian 12's /usr/bin/python3) or a torch chroot made by
# scripts/setup-torch.sh (trixie: torch 2.6, sid: torch 2.14). DATA: the
# folder test_etch.py reads (ETCH_TEST_DATA). Nothing of the source tree is
# on the path: `import etch` is the wheel's.
set -euo pipefail
suite=$1 dist=$2 data=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ "$suite" = host ]; then
  base=$(mktemp -d) inside=$base prefix=()
else
  chroot_dir=${ETCH_CHROOT_DIR:-/var/cache/etch/chroots}/$suite
  [ -f "$chroot_dir.ready" ] || { echo "wheel_pytest: no $suite chroot" >&2; exit 3; }
  base=$(mktemp -d "$chroot_dir/tmp/etch-wheel-XXXXXX") inside=/tmp/${base##*/}
  prefix=(unshare --mount --propagation private sh -c \
    'mount -t proc proc "$1/proc" && shift && exec chroot "$@"' sh "$chroot_dir" "$chroot_dir")
fi
trap 'rm -rf "$base"' EXIT
mkdir -p "$base/tests" "$base/data"
cp "$dist"/*.whl "$base/"
cp "$here/../test_etch.py" "$base/tests/"
cp -r "$data"/. "$base/data/"
"${prefix[@]}" env -i PATH=/usr/bin:/bin HOME=/tmp OMP_NUM_THREADS=1 \
  ETCH_TEST_DATA="$inside/data" sh -c '
  set -e
  python3 -m venv --system-site-packages "$1/venv"
  "$1/venv/bin/python" -m pip install -q --no-deps --no-index "$1"/*.whl
  cd "$1/tests"
  exec "$1/venv/bin/python" -m pytest -q -p no:cacheprovider -rs test_etch.py' sh "$inside"
