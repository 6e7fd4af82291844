//===- FuzzDelegateBlob.cpp - Fuzz one target's delegate blob -------------===//
//
// Built once per target (ETCH_FUZZ_TARGET names it). Input: the border
// tensors of a delegate call, then the blob:
//   u8 input count, u8 output count, then per tensor: u8 rank, rank x u32
//   dims (float32 tensors), then the blob bytes.
// The blob goes through the backend's init (framing, flatbuffer, semantic
// validation, building the target's graph) and, when accepted, one execute
// on zero inputs, then (inputs shrunk to batch 1) a resize and another.
// etch-fuzz-seeds writes seeds from compiled programs. oneDNN's int8 nodes
// build both ways: in int8 for inputs of even size, in float
// (ETCH_ONEDNN_INT8=float, as on a CPU without VNNI) for odd ones.
//
//===----------------------------------------------------------------------===//
#include "FuzzRuntime.h"

#include "runtime/backend/Backend.h"
#include "runtime/platform/Platform.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#ifndef ETCH_FUZZ_TARGET
#error "ETCH_FUZZ_TARGET names the target whose blobs are fuzzed"
#endif

using namespace etch::runtime;

namespace {

struct Reader {
  const uint8_t *data;
  size_t size, offset = 0;
  template <typename T> bool read(T &value) {
    if (size - offset < sizeof(T))
      return false;
    std::memcpy(&value, data + offset, sizeof(T));
    offset += sizeof(T);
    return true;
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Backend *backend = [] {
    etch::fuzz::quietRuntimeLog();
    registerAllBackends();
    return findBackend(ETCH_FUZZ_TARGET);
  }();
  if (!backend)
    std::abort(); // the build links the target: this is a harness bug
  if (std::strcmp(ETCH_FUZZ_TARGET, "onednn") == 0)
    setenv("ETCH_ONEDNN_INT8", size % 2 ? "float" : "auto", 1);
  Reader reader{data, size};
  uint8_t counts[2];
  if (!reader.read(counts[0]) || !reader.read(counts[1]))
    return 0;
  std::vector<TensorView> tensors(counts[0] + counts[1]);
  std::vector<std::unique_ptr<float, etch::fuzz::FreeDeleter>> buffers;
  uint64_t totalBytes = 0;
  for (TensorView &tensor : tensors) {
    uint8_t rank;
    int64_t sizes[kMaxRank];
    if (!reader.read(rank) || rank > kMaxRank)
      return 0;
    for (int d = 0; d < rank; ++d) {
      uint32_t dim;
      if (!reader.read(dim))
        return 0;
      sizes[d] = dim;
    }
    if (!tensor.reset(ScalarType::Float32, sizes, rank) ||
        tensor.nbytes() > etch::fuzz::kFuzzMemoryLimit - totalBytes)
      return 0;
    totalBytes += tensor.nbytes();
    buffers.emplace_back(
        static_cast<float *>(std::calloc(tensor.numel() + 1, sizeof(float))));
    tensor.setData(buffers.back().get());
  }
  std::vector<TensorView *> pointers;
  for (TensorView &tensor : tensors)
    pointers.push_back(&tensor);
  // The blob is 64-byte aligned in a program's segment.
  size_t blobSize = size - reader.offset;
  etch::fuzz::AlignedBytes blob =
      etch::fuzz::alignedCopy(data + reader.offset, blobSize);
  Result<void *> handle = backend->init(
      DelegateBlob{Span<const uint8_t>(blob.get(), blobSize), {}},
      Span<const CompileSpec>(), Span<TensorView *>(pointers.data(), counts[0]),
      Span<TensorView *>(pointers.data() + counts[0], counts[1]),
      etch::fuzz::fuzzLoadOptions());
  if (!handle.ok())
    return 0;
  Error status = backend->execute(
      *handle, Span<TensorView *>(pointers.data(), counts[0]),
      Span<TensorView *>(pointers.data() + counts[0], counts[1]));
  if (etch::fuzz::verbose())
    std::fprintf(stderr, "blob accepted; execute: %s\n", errorName(status));
  // Dynamic shapes: the inputs shrink to batch 1 (within their capacity),
  // the delegate recomputes its shapes from the blob, then runs again.
  bool shrunk = false;
  for (int i = 0; i < counts[0]; ++i) {
    TensorView &input = tensors[i];
    if (input.rank() == 0 || input.size(0) <= 1)
      continue;
    int64_t sizes[kMaxRank];
    std::copy(input.sizes(), input.sizes() + input.rank(), sizes);
    sizes[0] = 1;
    shrunk |= input.resize(sizes, input.rank());
  }
  if (shrunk &&
      backend->resize(*handle, Span<TensorView *>(pointers.data(), counts[0]),
                      Span<TensorView *>(pointers.data() + counts[0],
                                         counts[1])) == Error::Ok)
    status = backend->execute(
        *handle, Span<TensorView *>(pointers.data(), counts[0]),
        Span<TensorView *>(pointers.data() + counts[0], counts[1]));
  backend->destroy(*handle);
  return 0;
}
