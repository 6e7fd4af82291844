// Data movement: view/squeeze/unsqueeze (copies, none where the memory plan
// put the output at the input's bytes), permute, transpose, cat, slice,
// slice_scatter, select, expand, embedding. Element-type generic (byte
// copies).
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace etch::runtime::portable {
namespace {

/// Copies a strided view of `in` (per-output-dim input strides, in
/// elements, starting at `base`) into contiguous `out`.
void gather(const TensorView &in, const TensorView &out, const int64_t *strides,
            int64_t base) {
  size_t element = elementSize(in.scalarType());
  const char *src = static_cast<const char *>(in.data());
  char *dst = static_cast<char *>(out.data());
  int rank = out.rank();
  if (rank == 0) {
    std::memcpy(dst, src + base * element, element);
    return;
  }
  // Copy runs along the innermost dim at once when it is contiguous.
  int64_t inner = out.size(rank - 1);
  bool contiguousInner = strides[rank - 1] == 1;
  int64_t index[kMaxRank] = {};
  int64_t offset = base;
  int64_t runs = inner ? out.numel() / inner : 0;
  for (int64_t run = 0; run < runs; ++run) {
    char *target = dst + run * inner * element;
    if (contiguousInner) {
      std::memcpy(target, src + offset * element, inner * element);
    } else {
      for (int64_t i = 0; i < inner; ++i)
        std::memcpy(target + i * element,
                    src + (offset + i * strides[rank - 1]) * element, element);
    }
    for (int d = rank - 2; d >= 0; --d) {
      offset += strides[d];
      if (++index[d] < out.size(d))
        break;
      offset -= strides[d] * out.size(d);
      index[d] = 0;
    }
  }
}

Error checkSameType(const KernelCall &call) {
  return checkType(call, call.outputs[0], "output",
                   call.inputs[0]->scalarType());
}

} // namespace

/// view, squeeze and unsqueeze: the output shape from the input's and the
/// op's attributes (so the shape follows dynamic input shapes).
Error validateReshape(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, call.inputs.size(), 1));
  ET_CHECK_OK(checkSameType(call));
  const TensorView &in = *call.inputs[0];
  int64_t expected[kMaxRank];
  int rank = 0;
  if (call.find("size")) { // view: one entry may be -1
    Span<const int64_t> size = call.intsAttr("size");
    int64_t sizes[kMaxRank];
    if (size.size() > static_cast<size_t>(kMaxRank))
      return kernelError(call, Error::InvalidProgram, "size has too many dims");
    if (!resolveSizeList(call, size, 1, sizes))
      return kernelError(call, Error::InvalidProgram,
                         "needs one 0-d int64 input per dynamic size entry");
    int64_t known, inferred;
    bool unknown;
    if (readViewSize(sizes, size.size(), /*unknownAllowed=*/false, known,
                     inferred, unknown) != ViewSizeError::None)
      return kernelError(call, Error::InvalidProgram, "bad size entry");
    rank = static_cast<int>(size.size());
    std::copy(sizes, sizes + rank, expected);
    if (inferred >= 0) {
      expected[inferred] = inferredViewExtent(in.numel(), known);
      if (expected[inferred] < 0)
        return kernelError(call, Error::InvalidShape,
                           "size does not divide the input's elements");
    }
  } else if (call.inputs.size() != 1) {
    return kernelError(call, Error::InvalidProgram, "takes one input");
  } else if (const AttributeValue *dim = call.find("dim");
             dim && dim->kind == AttributeValue::Kind::Int) {
    // unsqueeze: a size-1 dim at `dim` (counted in the output's rank).
    if (in.rank() >= kMaxRank)
      return kernelError(call, Error::InvalidProgram, "dim is out of range");
    rank = static_cast<int>(
        unsqueezedShape(in.sizes(), in.rank(), dim->intValue, expected));
    if (rank < 0)
      return kernelError(call, Error::InvalidProgram, "dim is out of range");
  } else {
    // squeeze: the listed size-1 dims, or every one (no list).
    Span<const int64_t> dims = call.intsAttr("dim");
    bool named[kMaxRank];
    size_t at;
    rank = static_cast<int>(squeezedShape(in.sizes(), in.rank(), dims.data(),
                                          dims.size(), call.find("dim"), named,
                                          expected, at));
    if (rank < 0)
      return kernelError(call, Error::InvalidProgram, "dim is out of range");
  }
  ET_CHECK_OK(checkShape(call, call.outputs[0], "output", expected, rank));
  if (in.numel() != call.outputs[0]->numel())
    return kernelError(call, Error::InvalidShape,
                       "input and output element counts differ");
  return Error::Ok;
}
void runReshape(const KernelCall &call) {
  if (call.outputs[0]->data() != call.inputs[0]->data())
    // memmove: a damaged program may plan them overlapping.
    std::memmove(call.outputs[0]->data(), call.inputs[0]->data(),
                 call.inputs[0]->nbytes());
}

bool permutationOf(const KernelCall &call, int rank, int64_t *perm) {
  if (!call.find("dims"))
    return transpositionOf(rank, call.intAttr("dim0", 0),
                           call.intAttr("dim1", 0), perm);
  Span<const int64_t> dims = call.intsAttr("dims");
  bool named[kMaxRank];
  size_t at;
  return rank <= kMaxRank &&
         runtime::permutationOf(dims.data(), dims.size(), rank, named, perm,
                                at) == PermutationError::None;
}

Error validatePermute(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  ET_CHECK_OK(checkSameType(call));
  const TensorView &in = *call.inputs[0];
  int64_t perm[kMaxRank], expected[kMaxRank];
  if (!permutationOf(call, in.rank(), perm))
    return kernelError(call, Error::InvalidProgram, "not a valid permutation");
  for (int d = 0; d < in.rank(); ++d)
    expected[d] = in.size(perm[d]);
  return checkShape(call, call.outputs[0], "output", expected, in.rank());
}

void runPermute(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  int64_t perm[kMaxRank], strides[kMaxRank];
  permutationOf(call, in.rank(), perm);
  for (int d = 0; d < in.rank(); ++d)
    strides[d] = in.stride(perm[d]);
  gather(in, *call.outputs[0], strides, 0);
}

Error validateCat(const KernelCall &call) {
  if (call.inputs.empty() || call.outputs.size() != 1)
    return kernelError(call, Error::InvalidProgram,
                       "needs tensors and one output");
  const TensorView &first = *call.inputs[0];
  int64_t dim = normalizeDim(call.intAttr("dim", 0), first.rank());
  if (dim < 0)
    return kernelError(call, Error::InvalidProgram, "dim is out of range");
  int64_t expected[kMaxRank];
  for (int d = 0; d < first.rank(); ++d)
    expected[d] = first.size(d);
  expected[dim] = 0;
  for (TensorView *tensor : call.inputs) {
    if (!tensor || tensor->rank() != first.rank() ||
        tensor->scalarType() != first.scalarType())
      return kernelError(call, Error::InvalidShape,
                         "tensors differ in rank or element type");
    for (int d = 0; d < first.rank(); ++d)
      if (d != dim && tensor->size(d) != first.size(d))
        return kernelError(call, Error::InvalidShape,
                           "tensors differ outside the cat dim");
    expected[dim] += tensor->size(dim);
  }
  ET_CHECK_OK(checkSameType(call));
  return checkShape(call, call.outputs[0], "output", expected, first.rank());
}

void runCat(const KernelCall &call) {
  const TensorView &out = *call.outputs[0];
  int64_t dim = normalizeDim(call.intAttr("dim", 0), out.rank());
  size_t element = elementSize(out.scalarType());
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= out.size(d);
  int64_t outRow = out.stride(dim) * out.size(dim) * element;
  char *dst = static_cast<char *>(out.data());
  int64_t column = 0;
  for (TensorView *tensor : call.inputs) {
    int64_t chunk = tensor->stride(dim) * tensor->size(dim) * element;
    const char *src = static_cast<const char *>(tensor->data());
    // The memory plan puts an input in its slice when the slices are
    // contiguous: its producer wrote it there already.
    if (outer == 1 && src == dst + column) {
      column += chunk;
      continue;
    }
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(dst + o * outRow + column, src + o * chunk, chunk);
    column += chunk;
  }
}

SliceSpec sliceOf(const KernelCall &call, const TensorView &in,
                  const TensorView *dynamicEnd) {
  int64_t dim = normalizeDim(call.intAttr("dim", 0), in.rank());
  int64_t extent = dim >= 0 ? in.size(dim) : 0;
  int64_t end = dynamicEnd ? dynamicEnd->data<int64_t>()[0]
                           : call.intAttr("end", INT64_MAX);
  int64_t step = call.intAttr("step", 1);
  if (step < 1)
    return {dim, 0, step, 0};
  SliceRange range = pythonSlice(extent, call.intAttr("start", 0), end, step);
  return {dim, range.start, range.step, range.length};
}

bool sliceInPlace(const TensorView &in, const TensorView &out,
                  const SliceSpec &s) {
  if (!sliceIsOneRun(in.sizes(), s.dim, s.step))
    return false;
  const char *first = static_cast<const char *>(in.data()) +
                      s.start * in.stride(static_cast<int>(s.dim)) *
                          elementSize(in.scalarType());
  return out.data() == first;
}

/// The shape of slice \p s of \p in, into \p shape.
void sliceShape(const TensorView &in, const SliceSpec &s, int64_t *shape) {
  for (int d = 0; d < in.rank(); ++d)
    shape[d] = in.size(d);
  shape[s.dim] = s.length;
}

Error validateSlice(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 2, 1));
  if (call.inputs.size() == 2 && !isSizeTensor(call.inputs[1]))
    return kernelError(call, Error::InvalidProgram,
                       "the dynamic end must be a 0-d int64 tensor");
  ET_CHECK_OK(checkSameType(call));
  const TensorView &in = *call.inputs[0];
  SliceSpec s = sliceOf(call, in, call.input(1));
  if (s.dim < 0 || s.step < 1)
    return kernelError(call, Error::InvalidProgram, "bad dim or step");
  int64_t expected[kMaxRank];
  sliceShape(in, s, expected);
  return checkShape(call, call.outputs[0], "output", expected, in.rank());
}

void runSlice(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  SliceSpec s = sliceOf(call, in, call.input(1));
  if (sliceInPlace(in, *call.outputs[0], s))
    return;
  int64_t strides[kMaxRank];
  for (int d = 0; d < in.rank(); ++d)
    strides[d] = in.stride(d) * (d == s.dim ? s.step : 1);
  gather(in, *call.outputs[0], strides, s.start * in.stride(s.dim));
}

Error validateSliceScatter(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 2, 2, 1));
  ET_CHECK_OK(checkSameType(call));
  const TensorView &in = *call.inputs[0];
  SliceSpec s = sliceOf(call, in, nullptr);
  if (s.dim < 0 || s.step < 1)
    return kernelError(call, Error::InvalidProgram, "bad dim or step");
  int64_t expected[kMaxRank];
  sliceShape(in, s, expected);
  ET_CHECK_OK(checkShape(call, call.inputs[1], "src", expected, in.rank()));
  return checkShape(call, call.outputs[0], "output", in.sizes(), in.rank());
}

void runSliceScatter(const KernelCall &call) {
  const TensorView &in = *call.inputs[0], &src = *call.inputs[1];
  TensorView &out = *call.outputs[0];
  if (out.data() != in.data())
    // memmove: a damaged program may plan them overlapping.
    std::memmove(out.data(), in.data(), in.nbytes());
  SliceSpec s = sliceOf(call, in, nullptr);
  // Each source element lands at its slice position: walk src in order and
  // step through out with the slice's strides.
  size_t element = elementSize(in.scalarType());
  const char *from = static_cast<const char *>(src.data());
  char *to = static_cast<char *>(out.data());
  int rank = src.rank();
  int64_t index[kMaxRank] = {};
  int64_t offset = s.start * out.stride(s.dim);
  for (int64_t i = 0; i < src.numel(); ++i) {
    std::memcpy(to + offset * element, from + i * element, element);
    for (int d = rank - 1; d >= 0; --d) {
      int64_t step = out.stride(d) * (d == s.dim ? s.step : 1);
      offset += step;
      if (++index[d] < src.size(d))
        break;
      offset -= step * src.size(d);
      index[d] = 0;
    }
  }
}

Error validateSelect(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  ET_CHECK_OK(checkSameType(call));
  const TensorView &in = *call.inputs[0];
  int64_t dim = normalizeDim(call.intAttr("dim", 0), in.rank());
  int64_t index = dim >= 0 ? call.intAttr("index", 0) : 0;
  if (dim < 0 || index < -in.size(dim) || index >= in.size(dim))
    return kernelError(call, Error::InvalidProgram,
                       "dim or index out of range");
  int64_t expected[kMaxRank];
  int rank = 0;
  for (int d = 0; d < in.rank(); ++d)
    if (d != dim)
      expected[rank++] = in.size(d);
  return checkShape(call, call.outputs[0], "output", expected, rank);
}

void runSelect(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  int64_t dim = normalizeDim(call.intAttr("dim", 0), in.rank());
  int64_t index = call.intAttr("index", 0);
  if (index < 0)
    index += in.size(dim);
  int64_t strides[kMaxRank];
  int rank = 0;
  for (int d = 0; d < in.rank(); ++d)
    if (d != dim)
      strides[rank++] = in.stride(d);
  gather(in, *call.outputs[0], strides, index * in.stride(dim));
}

Error validateExpand(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, call.inputs.size(), 1));
  ET_CHECK_OK(checkSameType(call));
  const TensorView &in = *call.inputs[0];
  Span<const int64_t> attr = call.intsAttr("size");
  int64_t sizes[kMaxRank];
  if (attr.size() < static_cast<size_t>(in.rank()) ||
      attr.size() > static_cast<size_t>(kMaxRank))
    return kernelError(call, Error::InvalidProgram,
                       "size has fewer dims than the input");
  if (!resolveSizeList(call, attr, 1, sizes))
    return kernelError(call, Error::InvalidProgram,
                       "needs one 0-d int64 input per dynamic size entry");
  Span<const int64_t> size(sizes, attr.size());
  // -1 keeps the input's extent (ATen).
  int64_t expected[kMaxRank];
  int offset = static_cast<int>(size.size()) - in.rank();
  for (int d = 0; d < static_cast<int>(size.size()); ++d)
    expected[d] = size[d] == -1 && d >= offset ? in.size(d - offset) : size[d];
  ET_CHECK_OK(checkShape(call, call.outputs[0], "output", expected,
                         static_cast<int>(size.size())));
  int64_t strides[kMaxRank];
  if (!broadcastStrides(in, *call.outputs[0], strides))
    return kernelError(call, Error::InvalidShape,
                       "input does not broadcast to the output");
  return Error::Ok;
}

void runExpand(const KernelCall &call) {
  int64_t strides[kMaxRank];
  broadcastStrides(*call.inputs[0], *call.outputs[0], strides);
  gather(*call.inputs[0], *call.outputs[0], strides, 0);
}

Error validateEmbedding(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 2, 2, 1));
  const TensorView &weight = *call.inputs[0], &indices = *call.inputs[1];
  if (weight.rank() != 2 || (indices.scalarType() != ScalarType::Int64 &&
                             indices.scalarType() != ScalarType::Int32))
    return kernelError(call, Error::InvalidProgram,
                       "needs a rank-2 weight and int32/int64 indices");
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", weight.scalarType()));
  int64_t expected[kMaxRank];
  for (int d = 0; d < indices.rank(); ++d)
    expected[d] = indices.size(d);
  expected[indices.rank()] = weight.size(1);
  return checkShape(call, call.outputs[0], "output", expected,
                    indices.rank() + 1);
}

// Indices are data, known only at run time: out-of-range rows are zeros
// (never a read outside the table).
void runEmbedding(const KernelCall &call) {
  const TensorView &weight = *call.inputs[0], &indices = *call.inputs[1];
  size_t row = weight.size(1) * elementSize(weight.scalarType());
  char *dst = static_cast<char *>(call.outputs[0]->data());
  const char *table = static_cast<const char *>(weight.data());
  for (int64_t i = 0; i < indices.numel(); ++i) {
    int64_t index = indices.scalarType() == ScalarType::Int64
                        ? indices.data<int64_t>()[i]
                        : indices.data<int32_t>()[i];
    if (index < 0)
      index += weight.size(0);
    if (index < 0 || index >= weight.size(0))
      std::memset(dst + i * row, 0, row);
    else
      std::memcpy(dst + i * row, table + index * row, row);
  }
}

Error validateSymSize(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 1));
  if (!isSizeTensor(call.outputs[0]) ||
      normalizeDim(call.intAttr("dim", 0), call.inputs[0]->rank()) < 0)
    return kernelError(call, Error::InvalidProgram,
                       "needs a dim of self and a 0-d int64 output");
  return Error::Ok;
}

void runSymSize(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  call.outputs[0]->data<int64_t>()[0] =
      in.size(normalizeDim(call.intAttr("dim", 0), in.rank()));
}

namespace {
/// The dtype attribute (a program ScalarType code) as the output must have.
bool dtypeMatches(const KernelCall &call) {
  return call.intAttr("dtype", -1) ==
         static_cast<int64_t>(call.outputs[0]->scalarType());
}
} // namespace

Error validateFull(const KernelCall &call) {
  if (call.outputs.size() != 1 || !dtypeMatches(call) ||
      !isConvertible(call.outputs[0]->scalarType()))
    return kernelError(call, Error::InvalidProgram,
                       "needs one output of the dtype attribute's type");
  Span<const int64_t> attr = call.intsAttr("size");
  int64_t sizes[kMaxRank];
  if (attr.size() > static_cast<size_t>(kMaxRank) ||
      !resolveSizeList(call, attr, 0, sizes))
    return kernelError(call, Error::InvalidProgram,
                       "needs one 0-d int64 input per dynamic size entry");
  for (size_t d = 0; d < attr.size(); ++d)
    if (sizes[d] < 0)
      return kernelError(call, Error::InvalidShape, "a size is negative");
  return checkShape(call, call.outputs[0], "output", sizes,
                    static_cast<int>(attr.size()));
}

void runFull(const KernelCall &call) {
  TensorView &out = *call.outputs[0];
  double value = call.doubleAttr("fill_value", 0);
  for (int64_t i = 0; i < out.numel(); ++i)
    storeFromDouble(out, i, value);
}

namespace {
/// arange's element count for the current end; -1 when it is not a count.
int64_t arangeCount(const KernelCall &call) {
  double start = call.doubleAttr("start", 0), step = call.doubleAttr("step", 1);
  double end = isSizeTensor(call.input(0))
                   ? static_cast<double>(call.inputs[0]->data<int64_t>()[0])
                   : call.doubleAttr("end", 0);
  double count = std::ceil((end - start) / step);
  if (step == 0 || !(count < 9.0e15)) // NaN or huge: not a count
    return -1;
  return count > 0 ? static_cast<int64_t>(count) : 0;
}
} // namespace

Error validateArange(const KernelCall &call) {
  if (call.outputs.size() != 1 || call.inputs.size() > 1 ||
      (call.inputs.size() == 1 && !isSizeTensor(call.inputs[0])) ||
      !dtypeMatches(call) || !isConvertible(call.outputs[0]->scalarType()))
    return kernelError(call, Error::InvalidProgram,
                       "needs an optional 0-d int64 end and one output of "
                       "the dtype attribute's type");
  int64_t count = arangeCount(call);
  if (count < 0)
    return kernelError(call, Error::InvalidProgram, "bad start, end or step");
  return checkShape(call, call.outputs[0], "output", &count, 1);
}

void runArange(const KernelCall &call) {
  TensorView &out = *call.outputs[0];
  double start = call.doubleAttr("start", 0), step = call.doubleAttr("step", 1);
  for (int64_t i = 0; i < out.numel(); ++i)
    storeFromDouble(out, i, start + static_cast<double>(i) * step);
}

} // namespace etch::runtime::portable
