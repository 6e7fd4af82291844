#!/usr/bin/env bash
# Installs every Debian 12 package etch needs to build, test and benchmark.
# Idempotent: when everything is present it only runs one dpkg query and exits.
set -euo pipefail

PACKAGES=(
  # build
  cmake ninja-build ccache g++ pkg-config clang-format
  # LLVM/MLIR 19 (shared libMLIR.so/libLLVM.so, FileCheck, lit)
  libmlir-19-dev mlir-19-tools llvm-19-dev llvm-19-tools
  # serialization, import
  libflatbuffers-dev flatbuffers-compiler
  libprotobuf-dev protobuf-compiler libonnx-dev
  libzip-dev zlib1g-dev
  # tokenizers (runtime/llm/tokenizer)
  libonig-dev libutf8proc-dev nlohmann-json3-dev libsentencepiece-dev
  # et-llm serve (HTTP); curl speaks to it in the tests
  libcpp-httplib-dev curl
  # the Python wheel (scripts/build-wheel.sh) and its tests
  patchelf python3-venv python3-pip python3-pytest
  # targets
  libxnnpack-dev libpthreadpool-dev libcpuinfo-dev
  libdnnl-dev ocl-icd-opencl-dev # oneDNN's CMake config needs OpenCL
  libvulkan-dev glslc spirv-tools mesa-vulkan-drivers vulkan-validationlayers
  # tests; the sanitizer build and libFuzzer (clang 19); torch 2.x chroots
  libgtest-dev libgmock-dev clang-19 libclang-rt-19-dev debootstrap
  # reference numerics (Debian's torch 1.13, no PyPI)
  python3 python3-numpy python3-torch python3-torchvision python3-onnx
  # ONNX's backend node tests (test/Import/Onnx/NodeSuite)
  libonnx-testdata
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "etch setup: installing ${#missing[@]} Debian packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "etch setup: done"
