// index_put of whole slices along one dim (a KV-cache update: `values`
// rows written at `cache_position` along the sequence dim): one copy per
// slice instead of one per element. Other forms (several index tensors,
// broadcast values, accumulate) run the portable kernel. Indices are data:
// negative ones count from the end, out-of-range ones write nothing, as in
// the portable kernel.
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cstring>

namespace etch::runtime::optimized {
namespace {

/// Whether \p call writes whole slices: one 1-D index tensor for dim d and
/// values shaped as self with dim d resized to the index count.
bool writesSlices(const KernelCall &call, int64_t &dim) {
  const TensorView &self = *call.inputs[0], &values = *call.inputs[1];
  Span<const int64_t> dims = call.intsAttr("indexed_dims");
  if (call.boolAttr("accumulate", false) || dims.size() != 1 ||
      call.inputs.size() != 3 || call.inputs[2]->rank() != 1 ||
      values.rank() != self.rank())
    return false;
  dim = dims[0];
  for (int d = 0; d < self.rank(); ++d)
    if (values.size(d) != (d == dim ? call.inputs[2]->size(0) : self.size(d)))
      return false;
  return true;
}

} // namespace

void runIndexPut(const KernelCall &call) {
  int64_t dim;
  if (!writesSlices(call, dim)) {
    portable::runIndexPut(call);
    return;
  }
  const TensorView &self = *call.inputs[0], &values = *call.inputs[1],
                   &indices = *call.inputs[2];
  TensorView &out = *call.outputs[0];
  if (out.data() != self.data())
    // memmove: a damaged program may plan them overlapping.
    std::memmove(out.data(), self.data(), self.nbytes());
  int64_t extent = self.size(dim), count = indices.size(0);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < dim; ++d)
    outer *= self.size(d);
  for (int d = dim + 1; d < self.rank(); ++d)
    inner *= self.size(d);
  size_t bytes = inner * elementSize(self.scalarType());
  char *dst = static_cast<char *>(out.data());
  const char *src = static_cast<const char *>(values.data());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < count; ++i) {
      int64_t index = indices.scalarType() == ScalarType::Int64
                          ? indices.data<int64_t>()[i]
                          : indices.data<int32_t>()[i];
      if (index < 0)
        index += extent;
      if (index < 0 || index >= extent)
        continue;
      std::memcpy(dst + (o * extent + index) * bytes,
                  src + (o * count + i) * bytes, bytes);
    }
}

} // namespace etch::runtime::optimized
