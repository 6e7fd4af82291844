#!/usr/bin/env bash
# Builds etch and packs the Python package `etch` with its native parts into
# one wheel in build/dist/ (python/make_wheel.py); prints its path last.
#   bash scripts/build-wheel.sh
#   pip install --no-deps build/dist/etch-*.whl
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ETCH_BUILD_DIR:-$root/build}
bash "$root/scripts/setup.sh" >&2
bash "$root/scripts/build.sh" >&2
/usr/bin/python3 "$root/python/make_wheel.py" "$build" "$build/dist"
