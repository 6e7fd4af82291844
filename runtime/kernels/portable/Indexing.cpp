// Data-dependent reads and writes and running sums: gather, scatter,
// index_select, index (advanced indexing), nonzero, triu/tril, cumsum.
// Indices are data, known only at run time: an out-of-range index reads
// zeros or writes nothing, never outside a tensor.
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <cstring>

namespace etch::runtime::portable {
namespace {

bool isIndexType(ScalarType type) {
  return type == ScalarType::Int64 || type == ScalarType::Int32;
}

int64_t indexAt(const TensorView &index, int64_t i) {
  return index.scalarType() == ScalarType::Int64 ? index.data<int64_t>()[i]
                                                 : index.data<int32_t>()[i];
}

/// \p index wrapped like Python (negative counts from the end); -1 when it
/// is outside [-extent, extent).
int64_t wrapIndex(int64_t index, int64_t extent) {
  if (index < 0)
    index += extent;
  return index < 0 || index >= extent ? -1 : index;
}

/// Row-major coordinates of flat element \p flat of \p shape.
void unflatten(int64_t flat, const int64_t *shape, int rank, int64_t *out) {
  for (int d = rank - 1; d >= 0; --d) {
    out[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
}

} // namespace

Error validateGather(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 2, 2, 1));
  const TensorView &self = *call.inputs[0], &index = *call.inputs[1];
  if (!isIndexType(index.scalarType()))
    return kernelError(call, Error::InvalidType, "index must be int32/int64");
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", self.scalarType()));
  int64_t dim = normalizeDim(call.intAttr("dim", 0), std::max(self.rank(), 1));
  if (dim < 0 || index.rank() != self.rank())
    return kernelError(call, Error::InvalidProgram,
                       "needs a dim within self's rank and an index of "
                       "self's rank");
  for (int d = 0; d < self.rank(); ++d)
    if (d != dim && index.size(d) > self.size(d))
      return kernelError(call, Error::InvalidShape,
                         "index is larger than self in dim %d", d);
  return checkShape(call, call.outputs[0], "output", index.sizes(),
                    index.rank());
}

void runGather(const KernelCall &call) {
  const TensorView &self = *call.inputs[0], &index = *call.inputs[1];
  TensorView &out = *call.outputs[0];
  int rank = self.rank();
  int64_t dim = normalizeDim(call.intAttr("dim", 0), std::max(rank, 1));
  size_t element = elementSize(self.scalarType());
  const char *src = static_cast<const char *>(self.data());
  char *dst = static_cast<char *>(out.data());
  int64_t coordinate[kMaxRank];
  for (int64_t i = 0; i < out.numel(); ++i) {
    unflatten(i, out.sizes(), rank, coordinate);
    int64_t picked = rank ? wrapIndex(indexAt(index, i), self.size(dim))
                          : wrapIndex(indexAt(index, i), 1);
    if (picked < 0) {
      std::memset(dst + i * element, 0, element);
      continue;
    }
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d)
      offset += (d == dim ? picked : coordinate[d]) * self.stride(d);
    std::memcpy(dst + i * element, src + offset * element, element);
  }
}

namespace {

/// The first write at a position replaces it (none); later ones combine.
template <typename T> T combine(const char *reduce, T old, T value) {
  switch (reduce[0]) {
  case 'a':
    if (reduce[1] == 'd')
      return old + value;
    return reduce[2] == 'a' ? (value > old ? value : old)  // amax
                            : (value < old ? value : old); // amin
  case 'm':
    return old * value;
  default:
    return value;
  }
}

template <typename T> void scatterTyped(const KernelCall &call, int64_t dim) {
  const TensorView &self = *call.inputs[0], &index = *call.inputs[1],
                   &src = *call.inputs[2];
  TensorView &out = *call.outputs[0];
  const char *reduce = call.stringAttr("reduce", "none");
  if (out.data() != self.data())
    // memmove: a damaged program may plan them overlapping.
    std::memmove(out.data(), self.data(), out.nbytes());
  T *dst = out.data<T>();
  const T *values = src.data<T>();
  int rank = self.rank();
  int64_t coordinate[kMaxRank] = {};
  for (int64_t i = 0; i < index.numel(); ++i) {
    unflatten(i, index.sizes(), rank, coordinate);
    int64_t target = wrapIndex(indexAt(index, i), rank ? self.size(dim) : 1);
    if (target < 0)
      continue; // nothing outside the result
    int64_t at = 0, from = 0;
    for (int d = 0; d < rank; ++d) {
      at += (d == dim ? target : coordinate[d]) * out.stride(d);
      from += coordinate[d] * src.stride(d);
    }
    dst[at] = combine(reduce, dst[at], values[from]);
  }
}

} // namespace

Error validateScatter(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 3, 3, 1));
  const TensorView &self = *call.inputs[0], &index = *call.inputs[1],
                   &src = *call.inputs[2];
  ScalarType type = self.scalarType();
  ET_CHECK_OK(checkNumericType(call, type));
  if (!isIndexType(index.scalarType()))
    return kernelError(call, Error::InvalidType, "index must be int32/int64");
  ET_CHECK_OK(checkType(call, &src, "src", type));
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", type));
  int64_t dim = normalizeDim(call.intAttr("dim", 0), std::max(self.rank(), 1));
  if (dim < 0 || index.rank() != self.rank() || src.rank() != self.rank())
    return kernelError(call, Error::InvalidProgram,
                       "needs a dim within self's rank and index and src of "
                       "self's rank");
  for (int d = 0; d < self.rank(); ++d)
    if (index.size(d) > src.size(d) ||
        (d != dim && index.size(d) > self.size(d)))
      return kernelError(call, Error::InvalidShape,
                         "index is larger than src or self in dim %d", d);
  const char *reduce = call.stringAttr("reduce", "none");
  if (std::strcmp(reduce, "none") && std::strcmp(reduce, "add") &&
      std::strcmp(reduce, "multiply") && std::strcmp(reduce, "amax") &&
      std::strcmp(reduce, "amin"))
    return kernelError(call, Error::InvalidProgram, "unknown reduce '%s'",
                       reduce);
  return checkShape(call, call.outputs[0], "output", self.sizes(), self.rank());
}

void runScatter(const KernelCall &call) {
  int64_t dim =
      normalizeDim(call.intAttr("dim", 0), std::max(call.inputs[0]->rank(), 1));
  visitNumericType(call.inputs[0]->scalarType(), [&](auto *type) {
    scatterTyped<std::remove_pointer_t<decltype(type)>>(call, dim);
  });
}

Error validateIndexSelect(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 2, 2, 1));
  const TensorView &self = *call.inputs[0], &index = *call.inputs[1];
  if (!isIndexType(index.scalarType()) || index.rank() > 1)
    return kernelError(call, Error::InvalidProgram,
                       "index must be a 0-D or 1-D int32/int64 tensor");
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", self.scalarType()));
  int64_t dim = normalizeDim(call.intAttr("dim", 0), std::max(self.rank(), 1));
  if (dim < 0)
    return kernelError(call, Error::InvalidProgram, "dim out of range");
  int64_t expected[kMaxRank];
  for (int d = 0; d < self.rank(); ++d)
    expected[d] = d == dim ? index.numel() : self.size(d);
  return checkShape(call, call.outputs[0], "output", expected, self.rank());
}

void runIndexSelect(const KernelCall &call) {
  const TensorView &self = *call.inputs[0], &index = *call.inputs[1];
  TensorView &out = *call.outputs[0];
  if (self.rank() == 0) {
    bool valid = wrapIndex(indexAt(index, 0), 1) == 0;
    std::memcpy(out.data(), self.data(), valid ? out.nbytes() : 0);
    if (!valid)
      std::memset(out.data(), 0, out.nbytes());
    return;
  }
  int64_t dim = normalizeDim(call.intAttr("dim", 0), self.rank());
  // [outer, extent, inner] blocks: each index copies one inner run per outer.
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < dim; ++d)
    outer *= self.size(d);
  for (int d = dim + 1; d < self.rank(); ++d)
    inner *= self.size(d);
  size_t run = inner * elementSize(self.scalarType());
  const char *src = static_cast<const char *>(self.data());
  char *dst = static_cast<char *>(out.data());
  int64_t extent = self.size(dim), count = index.numel();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < count; ++k) {
      int64_t picked = wrapIndex(indexAt(index, k), extent);
      char *target = dst + (o * count + k) * run;
      if (picked < 0)
        std::memset(target, 0, run);
      else
        std::memcpy(target, src + (o * extent + picked) * run, run);
    }
}

namespace {
/// What index.Tensor's attributes and operands say, checked at load. The
/// index tensors are the call's inputs from `first` on.
struct IndexPlan {
  size_t first = 1;
  int64_t dims[kMaxRank];
  int count = 0;
  bool adjacent = true;
  int broadcastRank = 0;
  int64_t broadcast[kMaxRank];
};

bool planIndex(const KernelCall &call, size_t first, IndexPlan &plan) {
  Span<const int64_t> dims = call.intsAttr("indexed_dims");
  const TensorView &self = *call.inputs[0];
  plan.first = first;
  if (dims.empty() || call.inputs.size() < first ||
      dims.size() != call.inputs.size() - first ||
      dims.size() > static_cast<size_t>(self.rank()))
    return false;
  plan.count = static_cast<int>(dims.size());
  for (int i = 0; i < plan.count; ++i) {
    plan.dims[i] = dims[i];
    if (dims[i] < 0 || dims[i] >= self.rank() || (i && dims[i] <= dims[i - 1]))
      return false;
  }
  plan.adjacent = dims[plan.count - 1] - dims[0] + 1 == plan.count;
  // Broadcast the index shapes together (NumPy rules).
  plan.broadcastRank = 0;
  for (int i = 0; i < plan.count; ++i) {
    const TensorView *index = call.inputs[first + i];
    if (!index || !isIndexType(index->scalarType()))
      return false;
    int rank = std::max(plan.broadcastRank, index->rank());
    int64_t merged[kMaxRank];
    for (int d = 0; d < rank; ++d) {
      int a = d - (rank - plan.broadcastRank), b = d - (rank - index->rank());
      int64_t x = a >= 0 ? plan.broadcast[a] : 1;
      int64_t y = b >= 0 ? index->size(b) : 1;
      if (x != y && x != 1 && y != 1)
        return false;
      merged[d] = x == 1 ? y : x;
    }
    plan.broadcastRank = rank;
    std::memcpy(plan.broadcast, merged, sizeof(int64_t) * rank);
  }
  return plan.broadcastRank + self.rank() - plan.count <= kMaxRank;
}

/// The shape self[indices] has (NumPy's layout: adjacent indexed dims are
/// replaced in place by the broadcast index shape B; otherwise B comes
/// first and the remaining dims follow in order); returns its rank.
int indexedShape(const IndexPlan &plan, const TensorView &self,
                 int64_t *shape) {
  int rank = 0;
  if (!plan.adjacent)
    for (int d = 0; d < plan.broadcastRank; ++d)
      shape[rank++] = plan.broadcast[d];
  for (int d = 0; d < self.rank(); ++d) {
    if (plan.adjacent && d == plan.dims[0])
      for (int b = 0; b < plan.broadcastRank; ++b)
        shape[rank++] = plan.broadcast[b];
    bool indexed = false;
    for (int i = 0; i < plan.count; ++i)
      indexed |= plan.dims[i] == d;
    if (!indexed)
      shape[rank++] = self.size(d);
  }
  return rank;
}

/// The element of self at `coordinate` of the indexed shape; -1 when an
/// index is out of range.
int64_t selfOffset(const KernelCall &call, const IndexPlan &plan,
                   const int64_t *coordinate) {
  const TensorView &self = *call.inputs[0];
  int first = plan.adjacent ? static_cast<int>(plan.dims[0]) : 0;
  const int64_t *b = coordinate + first;
  int remaining = 0; // non-indexed dims seen so far
  int64_t offset = 0;
  for (int d = 0; d < self.rank(); ++d) {
    int slot = -1;
    for (int k = 0; k < plan.count; ++k)
      if (plan.dims[k] == d)
        slot = k;
    int64_t position;
    if (slot < 0) {
      int at = !plan.adjacent ? plan.broadcastRank + remaining
               : d < first    ? d
                              : d - plan.count + plan.broadcastRank;
      position = coordinate[at];
      ++remaining;
    } else {
      const TensorView &index = *call.inputs[plan.first + slot];
      int64_t flat = 0;
      int shift = plan.broadcastRank - index.rank();
      for (int k = 0; k < index.rank(); ++k)
        flat += (index.size(k) == 1 ? 0 : b[shift + k]) * index.stride(k);
      position = wrapIndex(indexAt(index, flat), self.size(d));
      if (position < 0)
        return -1;
    }
    offset += position * self.stride(d);
  }
  return offset;
}
} // namespace

Error validateIndex(const KernelCall &call) {
  if (call.inputs.size() < 2 || call.outputs.size() != 1)
    return kernelError(call, Error::InvalidProgram,
                       "needs self, at least one index and one output");
  IndexPlan plan;
  if (!planIndex(call, 1, plan))
    return kernelError(call, Error::InvalidProgram,
                       "indexed_dims and the int32/int64 index tensors do not "
                       "match self or do not broadcast together");
  const TensorView &self = *call.inputs[0];
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", self.scalarType()));
  int64_t expected[kMaxRank];
  int rank = indexedShape(plan, self, expected);
  return checkShape(call, call.outputs[0], "output", expected, rank);
}

void runIndex(const KernelCall &call) {
  IndexPlan plan;
  planIndex(call, 1, plan); // validated at load
  const TensorView &self = *call.inputs[0];
  TensorView &out = *call.outputs[0];
  size_t element = elementSize(self.scalarType());
  const char *src = static_cast<const char *>(self.data());
  char *dst = static_cast<char *>(out.data());
  int64_t coordinate[kMaxRank];
  for (int64_t i = 0; i < out.numel(); ++i) {
    unflatten(i, out.sizes(), out.rank(), coordinate);
    int64_t source = selfOffset(call, plan, coordinate);
    if (source < 0)
      std::memset(dst + i * element, 0, element);
    else
      std::memcpy(dst + i * element, src + source * element, element);
  }
}

Error validateIndexPut(const KernelCall &call) {
  if (call.inputs.size() < 3 || call.outputs.size() != 1)
    return kernelError(call, Error::InvalidProgram,
                       "needs self, values, at least one index and one "
                       "output");
  IndexPlan plan;
  if (!planIndex(call, 2, plan))
    return kernelError(call, Error::InvalidProgram,
                       "indexed_dims and the int32/int64 index tensors do not "
                       "match self or do not broadcast together");
  const TensorView &self = *call.inputs[0], &values = *call.inputs[1];
  ScalarType type = self.scalarType();
  if (call.boolAttr("accumulate", false) && type != ScalarType::Float32 &&
      type != ScalarType::Int64 && type != ScalarType::Int32)
    return kernelError(call, Error::NotSupported,
                       "accumulates float32, int64 and int32, not %s",
                       scalarTypeName(type));
  ET_CHECK_OK(checkType(call, &values, "values", type));
  int64_t shape[kMaxRank];
  int rank = indexedShape(plan, self, shape);
  bool broadcasts = values.rank() <= rank;
  for (int d = 0; broadcasts && d < values.rank(); ++d) {
    int64_t extent = values.size(d);
    broadcasts = extent == 1 || extent == shape[rank - values.rank() + d];
  }
  if (!broadcasts)
    return kernelError(call, Error::InvalidShape,
                       "values do not broadcast to the indexed shape");
  return checkShape(call, call.outputs[0], "output", self.sizes(),
                    self.rank());
}

void runIndexPut(const KernelCall &call) {
  IndexPlan plan;
  planIndex(call, 2, plan); // validated at load
  const TensorView &self = *call.inputs[0], &values = *call.inputs[1];
  TensorView &out = *call.outputs[0];
  if (out.data() != self.data())
    // memmove: a damaged program may plan them overlapping.
    std::memmove(out.data(), self.data(), self.nbytes());
  bool accumulate = call.boolAttr("accumulate", false);
  size_t element = elementSize(self.scalarType());
  char *dst = static_cast<char *>(out.data());
  const char *src = static_cast<const char *>(values.data());
  int64_t shape[kMaxRank], coordinate[kMaxRank];
  int rank = indexedShape(plan, self, shape);
  int64_t count = 1;
  for (int d = 0; d < rank; ++d)
    count *= shape[d];
  int shift = rank - values.rank();
  for (int64_t i = 0; i < count; ++i) {
    unflatten(i, shape, rank, coordinate);
    int64_t target = selfOffset(call, plan, coordinate);
    if (target < 0)
      continue;
    int64_t source = 0; // values broadcast: size-1 dims repeat
    for (int d = 0; d < values.rank(); ++d)
      source += (values.size(d) == 1 ? 0 : coordinate[shift + d]) *
                values.stride(d);
    if (!accumulate) {
      std::memcpy(dst + target * element, src + source * element, element);
    } else if (self.scalarType() == ScalarType::Float32) {
      out.data<float>()[target] += values.data<float>()[source];
    } else if (self.scalarType() == ScalarType::Int64) {
      uint64_t sum = uint64_t(out.data<int64_t>()[target]) +
                     uint64_t(values.data<int64_t>()[source]); // wraps
      out.data<int64_t>()[target] = static_cast<int64_t>(sum);
    } else {
      uint32_t sum = uint32_t(out.data<int32_t>()[target]) +
                     uint32_t(values.data<int32_t>()[source]);
      out.data<int32_t>()[target] = static_cast<int32_t>(sum);
    }
  }
}

namespace {
Error validateTriangle(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  if (call.inputs[0]->rank() < 2)
    return kernelError(call, Error::InvalidShape, "self must have rank >= 2");
  return checkSameShape(call, call.inputs[0], call.outputs[0], "output");
}

void triangle(const KernelCall &call, bool upper) {
  const TensorView &in = *call.inputs[0];
  TensorView &out = *call.outputs[0];
  int64_t diagonal = call.intAttr("diagonal", 0);
  int64_t rows = in.size(in.rank() - 2), columns = in.size(in.rank() - 1);
  size_t element = elementSize(in.scalarType());
  const char *src = static_cast<const char *>(in.data());
  char *dst = static_cast<char *>(out.data());
  int64_t plane = rows * columns;
  int64_t matrices = plane > 0 ? in.numel() / plane : 0;
  for (int64_t m = 0; m < matrices; ++m)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < columns; ++c) {
        int64_t i = (m * rows + r) * columns + c;
        bool keep = upper ? c - r >= diagonal : c - r <= diagonal;
        if (keep)
          std::memcpy(dst + i * element, src + i * element, element);
        else
          std::memset(dst + i * element, 0, element);
      }
}
} // namespace

Error validateTriu(const KernelCall &call) { return validateTriangle(call); }
void runTriu(const KernelCall &call) { triangle(call, true); }
Error validateTril(const KernelCall &call) { return validateTriangle(call); }
void runTril(const KernelCall &call) { triangle(call, false); }

Error validateCumsum(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  const TensorView &in = *call.inputs[0], &out = *call.outputs[0];
  bool floating = in.scalarType() == ScalarType::Float32 ||
                  in.scalarType() == ScalarType::Float64;
  if (!isConvertible(in.scalarType()))
    return kernelError(call, Error::NotSupported, "does not take %s",
                       scalarTypeName(in.scalarType()));
  ET_CHECK_OK(checkType(call, &out, "output",
                        floating ? in.scalarType() : ScalarType::Int64));
  if (normalizeDim(call.intAttr("dim", 0), std::max(in.rank(), 1)) < 0)
    return kernelError(call, Error::InvalidProgram, "dim out of range");
  return checkShape(call, &out, "output", in.sizes(), in.rank());
}

void runCumsum(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  TensorView &out = *call.outputs[0];
  int rank = in.rank();
  int64_t dim = rank ? normalizeDim(call.intAttr("dim", 0), rank) : 0;
  int64_t extent = rank ? in.size(dim) : 1, stride = rank ? in.stride(dim) : 1;
  int64_t lines = extent ? in.numel() / extent : 0;
  bool integral = out.scalarType() == ScalarType::Int64;
  for (int64_t line = 0; line < lines; ++line) {
    // Line `line` starts at (outer, inner) = (line / stride, line % stride).
    int64_t start = (line / stride) * stride * extent + line % stride;
    double sum = 0;
    int64_t integer = 0;
    for (int64_t k = 0; k < extent; ++k) {
      int64_t i = start + k * stride;
      if (integral) {
        // Wraps on overflow as torch does (signed overflow is undefined).
        int64_t value = in.scalarType() == ScalarType::Int64
                            ? in.data<int64_t>()[i]
                            : static_cast<int64_t>(loadAsDouble(in, i));
        integer = static_cast<int64_t>(static_cast<uint64_t>(integer) +
                                       static_cast<uint64_t>(value));
        out.data<int64_t>()[i] = integer;
      } else {
        sum += loadAsDouble(in, i);
        storeFromDouble(out, i, sum);
      }
    }
  }
}

} // namespace etch::runtime::portable

namespace etch::runtime::portable {

Error validateNonzero(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  const TensorView &in = *call.inputs[0];
  if (!isConvertible(in.scalarType()))
    return kernelError(call, Error::NotSupported, "does not take %s",
                       scalarTypeName(in.scalarType()));
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", ScalarType::Int64));
  // Planned for every element nonzero; run() sets the actual count.
  int64_t bound[2] = {in.numel(), in.rank()};
  return checkShape(call, call.outputs[0], "output", bound, 2);
}

void runNonzero(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  TensorView &out = *call.outputs[0];
  int64_t *rows = out.data<int64_t>();
  int64_t count = 0, coordinate[kMaxRank] = {};
  for (int64_t i = 0; i < in.numel(); ++i) {
    if (loadAsDouble(in, i) != 0) {
      for (int d = 0; d < in.rank(); ++d)
        rows[count * in.rank() + d] = coordinate[d];
      ++count;
    }
    for (int d = in.rank() - 1; d >= 0 && ++coordinate[d] == in.size(d); --d)
      coordinate[d] = 0;
  }
  int64_t shape[2] = {count, in.rank()};
  out.resize(shape, 2); // within the planned bound: never fails
}

} // namespace etch::runtime::portable
