#!/usr/bin/env bash
# Configures and builds etch with clang 19, AddressSanitizer and
# UndefinedBehaviorSanitizer into ${ETCH_SANITIZE_BUILD_DIR:-build-asan}; the
# fuzz targets there are libFuzzer programs.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ETCH_SANITIZE_BUILD_DIR:-$root/build-asan}
CC=clang-19 CXX=clang++-19 cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DETCH_SANITIZE=ON "$@" >/dev/null
cmake --build "$build"
