// permute / transpose: dims that stay adjacent and in order collapse into
// one, and what is left as a (batched) swap of the last two dims is copied
// in square tiles (Transpose.h), so both sides are read and written a
// cache line at a time (NCHW <-> NHWC is this case). Other permutations
// already move contiguous runs in the portable kernel, which runs them.
#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/optimized/Transpose.h"
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <algorithm>
#include <cstring>

namespace etch::runtime::optimized {
namespace {

/// The permutation with runs of output dims that read consecutive input
/// dims merged. sizes are the merged input dims, perm maps output group to
/// input group; returns the number of groups.
int collapse(const TensorView &in, const int64_t *perm, int rank,
             int64_t *sizes, int64_t *groupPerm) {
  // Output groups as [first source dim, last source dim].
  int64_t first[kMaxRank], last[kMaxRank];
  int groups = 0;
  for (int d = 0; d < rank; ++d) {
    if (in.size(perm[d]) == 1)
      continue; // size-1 dims move nothing
    if (groups > 0 && perm[d] == last[groups - 1] + 1) {
      last[groups - 1] = perm[d];
      continue;
    }
    first[groups] = last[groups] = perm[d];
    ++groups;
  }
  // Input order of the groups: by their first source dim.
  for (int g = 0; g < groups; ++g) {
    int position = 0;
    for (int h = 0; h < groups; ++h)
      position += first[h] < first[g];
    groupPerm[g] = position;
    int64_t size = 1;
    for (int64_t d = first[g]; d <= last[g]; ++d)
      size *= in.size(static_cast<int>(d));
    sizes[position] = size;
  }
  return groups;
}

} // namespace

void runPermute(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  TensorView &out = *call.outputs[0];
  int64_t perm[kMaxRank], sizes[kMaxRank], groupPerm[kMaxRank];
  portable::permutationOf(call, in.rank(), perm);
  int groups = collapse(in, perm, in.rank(), sizes, groupPerm);
  if (groups <= 1) { // nothing moves: a copy
    std::memcpy(out.data(), in.data(), in.nbytes());
    return;
  }
  bool swapsLastTwo = (groups == 2 && groupPerm[0] == 1) ||
                      (groups == 3 && groupPerm[0] == 0 && groupPerm[1] == 2);
  if (swapsLastTwo &&
      transposeBatched(in.data(), out.data(), groups == 3 ? sizes[0] : 1,
                       sizes[groups - 2], sizes[groups - 1],
                       elementSize(in.scalarType())))
    return;
  portable::runPermute(call);
}

} // namespace etch::runtime::optimized
