// slice with step 1: for each index of the dims before the sliced one, the
// slice is one contiguous run (its length times the inner dims), copied with
// memcpy (nothing where the memory plan put the output at the slice's
// bytes). Other steps go to the portable kernel.
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cstring>

namespace etch::runtime::optimized {

void runSlice(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  TensorView &out = *call.outputs[0];
  portable::SliceSpec s = portable::sliceOf(call, in, call.input(1));
  if (portable::sliceInPlace(in, out, s))
    return;
  if (s.step != 1) {
    portable::runSlice(call);
    return;
  }
  size_t element = elementSize(in.scalarType());
  int64_t outer = 1;
  for (int64_t d = 0; d < s.dim; ++d)
    outer *= in.size(static_cast<int>(d));
  size_t inner = static_cast<size_t>(in.stride(static_cast<int>(s.dim))) * element;
  size_t run = static_cast<size_t>(s.length) * inner;
  size_t row = static_cast<size_t>(in.size(static_cast<int>(s.dim))) * inner;
  if (run == 0)
    return;
  const char *src = static_cast<const char *>(in.data()) + s.start * inner;
  char *dst = static_cast<char *>(out.data());
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(dst + o * run, src + o * row, run);
}

} // namespace etch::runtime::optimized
