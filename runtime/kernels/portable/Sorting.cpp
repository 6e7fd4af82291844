// topk and sort along one dim, unique over everything. The indices output
// is the working space: a heap of candidate positions ordered by (value,
// position), so nothing is allocated and equal values keep the lower
// position first (one total order: any algorithm gives the stable answer).
#include "runtime/core/ReductionShape.h"
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cmath>
#include <utility>

namespace etch::runtime::portable {
namespace {

/// One lane along the dim: \p count positions, \p stride apart.
struct Lane {
  int64_t *slots;
  int64_t stride;
  int64_t &operator[](int64_t i) const { return slots[i * stride]; }
};

/// Whether position a of \p values comes before b: better value first (NaN
/// counts as the largest), then the lower position.
template <typename T> struct Order {
  const T *values;
  int64_t stride;
  bool largestFirst;

  bool operator()(int64_t a, int64_t b) const {
    T x = values[a * stride], y = values[b * stride];
    if constexpr (std::is_floating_point_v<T>) {
      bool xNan = std::isnan(x), yNan = std::isnan(y);
      if (xNan || yNan) {
        if (xNan == yNan)
          return a < b;
        return largestFirst ? xNan : yNan;
      }
    }
    if (x != y)
      return largestFirst ? x > y : x < y;
    return a < b;
  }
};

/// Max-heap by \p before: the root is the candidate that comes last.
template <typename Before>
void siftDown(const Lane &heap, int64_t i, int64_t size, const Before &before) {
  for (;;) {
    int64_t last = i, left = 2 * i + 1, right = left + 1;
    if (left < size && before(heap[last], heap[left]))
      last = left;
    if (right < size && before(heap[last], heap[right]))
      last = right;
    if (last == i)
      return;
    std::swap(heap[i], heap[last]);
    i = last;
  }
}

template <typename Before>
void siftUp(const Lane &heap, int64_t i, const Before &before) {
  while (i > 0) {
    int64_t parent = (i - 1) / 2;
    if (!before(heap[parent], heap[i]))
      return;
    std::swap(heap[parent], heap[i]);
    i = parent;
  }
}

/// Leaves the \p keep first of \p count positions in \p out, in order.
template <typename Before>
void selectFirst(const Lane &out, int64_t count, int64_t keep,
                 const Before &before) {
  if (keep == 0)
    return;
  int64_t size = 0;
  for (int64_t position = 0; position < count; ++position) {
    if (size < keep) {
      out[size] = position;
      siftUp(out, size++, before);
    } else if (before(position, out[0])) {
      out[0] = position;
      siftDown(out, 0, size, before);
    }
  }
  for (int64_t end = size - 1; end > 0; --end) {
    std::swap(out[0], out[end]);
    siftDown(out, 0, end, before);
  }
}

/// Every lane along \p dim: the first \p keep positions, then their values.
template <typename T>
void selectLanes(const KernelCall &call, int64_t dim, int64_t keep,
                 bool largestFirst) {
  const TensorView &in = *call.inputs[0];
  int64_t count = in.rank() ? in.size(dim) : 1, outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= in.size(d);
  for (int64_t d = dim + 1; d < in.rank(); ++d)
    inner *= in.size(d);
  const T *values = in.data<T>();
  T *outValues = call.outputs[0]->data<T>();
  int64_t *outIndices = call.outputs[1]->data<int64_t>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const T *lane = values + o * count * inner + i;
      int64_t first = o * keep * inner + i;
      Lane out{outIndices + first, inner};
      selectFirst(out, count, keep, Order<T>{lane, inner, largestFirst});
      for (int64_t j = 0; j < keep; ++j)
        outValues[first + j * inner] = lane[out[j] * inner];
    }
}

/// The element types these kernels order; an error naming the others.
Error checkSortable(const KernelCall &call, const TensorView &in, int outputs) {
  ET_CHECK_OK(checkArity(call, 1, 1, outputs));
  ET_CHECK_OK(checkNumericType(call, in.scalarType()));
  return checkType(call, call.outputs[0], "values", in.scalarType());
}

void select(const KernelCall &call, int64_t keep, bool largestFirst) {
  const TensorView &in = *call.inputs[0];
  int64_t dim =
      in.rank() ? normalizeDim(call.intAttr("dim", -1), in.rank()) : 0;
  visitNumericType(in.scalarType(), [&](auto *type) {
    selectLanes<std::remove_pointer_t<decltype(type)>>(call, dim, keep,
                                                       largestFirst);
  });
}

/// Both outputs of a topk keeping \p k (or a sort: k is the extent).
Error validateSelection(const KernelCall &call, bool isTopk) {
  const TensorView &in = *call.inputs[0];
  ET_CHECK_OK(checkSortable(call, in, 2));
  ET_CHECK_OK(checkType(call, call.outputs[1], "indices", ScalarType::Int64));
  int64_t dim = normalizeDim(call.intAttr("dim", -1), std::max(in.rank(), 1));
  if (dim < 0)
    return kernelError(call, Error::InvalidProgram, "dim out of range");
  int64_t scalarExtent = 1;
  const int64_t *sizes = in.rank() ? in.sizes() : &scalarExtent;
  int64_t k = isTopk ? call.intAttr("k", -1) : sizes[dim];
  int64_t expected[kMaxRank];
  if (!selectedShape(sizes, std::max(in.rank(), 1), dim, k, expected))
    return kernelError(
        call, Error::InvalidShape, "k = %lld is outside [0, %lld]",
        static_cast<long long>(k), static_cast<long long>(sizes[dim]));
  ET_CHECK_OK(checkShape(call, call.outputs[0], "values", expected, in.rank()));
  return checkShape(call, call.outputs[1], "indices", expected, in.rank());
}

/// unique over the flattened tensor; ascending: positions sorted by (value,
/// position) in the indices output, then grouped; in first-occurrence order:
/// each element looked up among the values found so far (consecutive: the
/// last one only).
template <typename T>
int64_t uniqueTyped(const KernelCall &call, bool sorted, bool consecutive) {
  const TensorView &in = *call.inputs[0];
  const T *x = in.data<T>();
  T *values = call.outputs[0]->data<T>();
  int64_t *first = call.outputs[1]->data<int64_t>();
  int64_t *inverse = call.outputs[2]->data<int64_t>();
  int64_t *counts = call.outputs[3]->data<int64_t>();
  int64_t n = in.numel(), groups = 0;
  if (sorted) {
    selectFirst(Lane{first, 1}, n, n, Order<T>{x, 1, false});
    for (int64_t i = 0; i < n; ++i) {
      int64_t position = first[i]; // read before slot `groups` <= i is reused
      if (groups == 0 || !(x[position] == values[groups - 1])) {
        values[groups] = x[position];
        first[groups] = position; // the lowest position of equal values
        counts[groups++] = 0;
      }
      ++counts[groups - 1];
      inverse[position] = groups - 1;
    }
    return groups;
  }
  for (int64_t position = 0; position < n; ++position) {
    // Consecutive: only the run before may continue.
    int64_t k = consecutive ? std::max<int64_t>(groups - 1, 0) : 0;
    while (k < groups && !(values[k] == x[position]))
      ++k;
    if (k == groups) {
      values[groups] = x[position];
      first[groups] = position;
      counts[groups++] = 0;
    }
    ++counts[k];
    inverse[position] = k;
  }
  return groups;
}

/// unique_dim: slices along a dim compared element by element. With no
/// working memory beyond the outputs, each slice's first occurrence and
/// rank among the distinct slices are found by comparing slices (O(n^2)
/// slice comparisons): `indices` first collects the first occurrences in
/// position order, then is rewritten in output order.
template <typename T> struct Slices {
  const T *x;
  int64_t outer, count, inner;
  /// <0, 0, >0 as slice i orders before, equal to, after slice j.
  int compare(int64_t i, int64_t j) const {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < inner; ++k) {
        T a = x[(o * count + i) * inner + k],
          b = x[(o * count + j) * inner + k];
        if (a < b)
          return -1;
        if (b < a)
          return 1;
      }
    return 0;
  }
};

template <typename T>
int64_t uniqueSlicesTyped(const KernelCall &call, int64_t dim, bool sorted,
                          bool consecutive) {
  const TensorView &in = *call.inputs[0];
  Slices<T> s{in.data<T>(), 1, in.size(dim), 1};
  for (int d = 0; d < dim; ++d)
    s.outer *= in.size(d);
  for (int d = dim + 1; d < in.rank(); ++d)
    s.inner *= in.size(d);
  int64_t *first = call.outputs[1]->data<int64_t>();
  int64_t *inverse = call.outputs[2]->data<int64_t>();
  int64_t *counts = call.outputs[3]->data<int64_t>();
  // The first occurrences, in position order; inverse[i] = that group.
  int64_t groups = 0;
  for (int64_t i = 0; i < s.count; ++i) {
    int64_t g = consecutive ? std::max<int64_t>(groups - 1, 0) : 0;
    while (g < groups && s.compare(first[g], i) != 0)
      ++g;
    if (g == groups)
      first[groups++] = i;
    inverse[i] = g;
  }
  // Output rank of each group: its position, or its lexicographic rank
  // (counts[] holds the rank for now).
  for (int64_t g = 0; g < groups; ++g) {
    int64_t rank = g;
    if (sorted) {
      rank = 0;
      for (int64_t h = 0; h < groups; ++h)
        rank += s.compare(first[h], first[g]) < 0;
    }
    counts[g] = rank;
  }
  for (int64_t i = 0; i < s.count; ++i)
    inverse[i] = counts[inverse[i]];
  // first[] and counts[] in output order: place each group at its rank.
  for (int64_t r = 0; r < groups; ++r) {
    int64_t g = r;
    while (counts[g] != r) {
      // Follow the permutation cycle: swap group g towards its rank.
      int64_t target = counts[g];
      std::swap(first[g], first[target]);
      std::swap(counts[g], counts[target]);
    }
  }
  for (int64_t r = 0; r < groups; ++r)
    counts[r] = 0;
  for (int64_t i = 0; i < s.count; ++i)
    ++counts[inverse[i]];
  T *values = call.outputs[0]->data<T>();
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t r = 0; r < groups; ++r)
      std::copy(s.x + (o * s.count + first[r]) * s.inner,
                s.x + (o * s.count + first[r] + 1) * s.inner,
                values + (o * groups + r) * s.inner);
  return groups;
}

/// unique's and unique_dim's outputs: values of the input's type, then
/// indices, inverse and counts in int64.
const char *const kUniqueNames[] = {"values", "indices", "inverse", "counts"};
Error checkUniqueTypes(const KernelCall &call) {
  ET_CHECK_OK(checkSortable(call, *call.inputs[0], 4));
  for (int i = 1; i < 4; ++i)
    ET_CHECK_OK(
        checkType(call, call.outputs[i], kUniqueNames[i], ScalarType::Int64));
  return Error::Ok;
}

} // namespace

Error validateUnique(const KernelCall &call) {
  ET_CHECK_OK(checkUniqueTypes(call));
  // Planned for every element distinct; run() sets the actual count.
  int64_t bound = call.inputs[0]->numel();
  for (int i = 0; i < 4; ++i)
    ET_CHECK_OK(checkShape(call, call.outputs[i], kUniqueNames[i], &bound, 1));
  return Error::Ok;
}

void runUnique(const KernelCall &call) {
  bool sorted = call.boolAttr("sorted", true);
  bool consecutive = call.boolAttr("consecutive", false);
  int64_t groups =
      visitNumericType(call.inputs[0]->scalarType(), [&](auto *type) {
        return uniqueTyped<std::remove_pointer_t<decltype(type)>>(
            call, sorted && !consecutive, consecutive);
      });
  for (int i : {0, 1, 3}) // within the planned bound: never fails
    call.outputs[i]->resize(&groups, 1);
}

Error validateUniqueDim(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  ET_CHECK_OK(checkUniqueTypes(call));
  int64_t rank = in.rank(), dim = call.intAttr("dim", 0);
  if (rank == 0 || dim < -rank || dim >= rank)
    return kernelError(
        call, Error::InvalidProgram, "dim %lld is out of range for rank %lld",
        static_cast<long long>(dim), static_cast<long long>(rank));
  dim = normalizeDim(dim, in.rank());
  // Planned for every slice distinct; run() sets the actual count.
  int64_t slices = in.size(dim);
  ET_CHECK_OK(
      checkShape(call, call.outputs[0], "values", in.sizes(), in.rank()));
  for (int i = 1; i < 4; ++i)
    ET_CHECK_OK(checkShape(call, call.outputs[i], kUniqueNames[i], &slices, 1));
  return Error::Ok;
}

void runUniqueDim(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  int64_t dim = normalizeDim(call.intAttr("dim", 0), in.rank());
  bool sorted = call.boolAttr("sorted", true);
  bool consecutive = call.boolAttr("consecutive", false);
  int64_t groups = visitNumericType(in.scalarType(), [&](auto *type) {
    return uniqueSlicesTyped<std::remove_pointer_t<decltype(type)>>(
        call, dim, sorted && !consecutive, consecutive);
  });
  int64_t shape[kMaxRank];
  std::copy(in.sizes(), in.sizes() + in.rank(), shape);
  shape[dim] = groups; // within the planned bound: never fails
  call.outputs[0]->resize(shape, in.rank());
  for (int i : {1, 3})
    call.outputs[i]->resize(&groups, 1);
}

Error validateTopk(const KernelCall &call) {
  return validateSelection(call, true);
}
void runTopk(const KernelCall &call) {
  select(call, call.intAttr("k", 0), call.boolAttr("largest", true));
}

Error validateSort(const KernelCall &call) {
  return validateSelection(call, false);
}
void runSort(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  int64_t dim =
      in.rank() ? normalizeDim(call.intAttr("dim", -1), in.rank()) : 0;
  select(call, in.rank() ? in.size(dim) : 1,
         call.boolAttr("descending", false));
}

} // namespace etch::runtime::portable
