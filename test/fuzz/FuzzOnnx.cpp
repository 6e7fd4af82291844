//===- FuzzOnnx.cpp - Fuzz the ONNX importer ------------------------------===//
//
// Input: a serialized ONNX model; imported (protobuf, validation, libonnx
// shape inference, conversion) and compiled. External data resolves against
// an empty folder made for the run.
//
//===----------------------------------------------------------------------===//
#include "FuzzCompile.h"
#include "FuzzSupport.h"

#include "etch/Import/Import.h"

#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string emptyFolder = [] {
    char path[] = "/tmp/etch-fuzz-onnx-XXXXXX";
    const char *made = mkdtemp(path);
    return std::string(made ? made : "/nonexistent");
  }();
  std::string bytes(reinterpret_cast<const char *>(data), size);
  etch::fuzz::compileForFuzzing([&](mlir::MLIRContext *context) {
    return etch::importOnnxFromBytes("fuzz.onnx", bytes, emptyFolder, context);
  });
  return 0;
}
