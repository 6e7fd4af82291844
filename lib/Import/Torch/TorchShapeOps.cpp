//===- TorchShapeOps.cpp - Reshapes, splits and views ---------------------===//
//
// ATen's view family where its arguments differ from the Edge op's: sizes
// with symbolic entries, flatten/unflatten, multi-output splits (one slice
// each), narrow, the *_as forms, sym_size, as_strided, repeat, flip, cat of
// legacy empty tensors, stack, swapaxes, .T / .mT, meshgrid,
// repeat_interleave.
//
//===----------------------------------------------------------------------===//
#include "TorchImporter.h"

#include "edge/EdgeDialect.h"
#include "edge/EdgeTypeUtils.h"
#include "runtime/core/ReductionShape.h"

using namespace mlir;

namespace etch::torch_import {
namespace {

using Kind = TorchArgument::Kind;

/// The node's size list, with at most one unknown (symbolic) extent turned
/// into -1; std::nullopt after an error.
std::optional<SmallVector<int64_t>> sizeList(TorchNode &node,
                                             StringRef argument) {
  const TorchArgument *size = node.arg(argument);
  if (!size || size->kind != Kind::Ints) {
    node.error() << "needs an int list '" << argument << "'";
    return std::nullopt;
  }
  SmallVector<int64_t> result;
  int unknown = 0;
  for (std::optional<int64_t> extent : size->ints) {
    unknown += !extent || *extent == -1;
    result.push_back(extent.value_or(-1));
  }
  if (unknown > 1) {
    node.error() << "'" << argument << "' has " << unknown
                 << " unknown extents; a view can infer only one";
    return std::nullopt;
  }
  return result;
}

FailureOr<Value> view(TorchNode &node, Value input, ArrayRef<int64_t> shape) {
  return node.build<edge::ViewOp>(input, ValueRange(),
                                  node.builder().getDenseI64ArrayAttr(shape));
}

/// Entries \p indices of \p value along \p dim (a constant index_select).
FailureOr<Value> selectEntries(TorchNode &node, Value value, int64_t dim,
                               ArrayRef<int64_t> indices) {
  auto indexType = RankedTensorType::get({int64_t(indices.size())},
                                         node.builder().getI64Type());
  Value index = node.builder().create<edge::ConstantOp>(
      node.loc(), DenseElementsAttr::get(indexType, indices));
  return node.build<edge::IndexSelectOp>(value, dim, index);
}

LogicalResult importView(TorchNode &node) {
  // view(self, size) / reshape(self, shape) / _unsafe_view(self, size). One
  // run-time size can be inferred (-1); more come as size operands.
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor input";
  StringRef name = node.has("shape") ? "shape" : "size";
  const TorchArgument *size = node.arg(name);
  if (size && size->kind == Kind::Ints &&
      llvm::count(size->ints, std::nullopt) + llvm::count(size->ints, -1) > 1) {
    SmallVector<Value> dynamic;
    std::optional<SmallVector<int64_t>> shape =
        node.sizeOperands(name, dynamic);
    if (!shape)
      return failure();
    return node.bind(node.build<edge::ViewOp>(
        input, dynamic, node.builder().getDenseI64ArrayAttr(*shape)));
  }
  std::optional<SmallVector<int64_t>> shape = sizeList(node, name);
  if (!shape)
    return failure();
  return node.bind(view(node, input, *shape));
}

LogicalResult importExpand(TorchNode &node) {
  // expand(self, size): -1 keeps a dim; run-time sizes come as operands.
  Value input = node.self();
  SmallVector<Value> dynamic;
  std::optional<SmallVector<int64_t>> size =
      input ? node.sizeOperands("size", dynamic) : std::nullopt;
  if (!input)
    return node.error() << "needs a tensor input";
  if (!size)
    return failure();
  return node.bind(node.build<edge::ExpandOp>(
      input, dynamic, node.builder().getDenseI64ArrayAttr(*size)));
}

LogicalResult importSlice(TorchNode &node) {
  // slice(self, dim=0, start=None, end=None, step=1); a run-time end comes
  // as an operand.
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor input";
  Builder &b = node.builder();
  const TorchArgument *start = node.arg("start"), *end = node.arg("end");
  if (start && start->kind == Kind::Int && !start->ints.front())
    return node.error() << "has a start known only at run time, which etch "
                           "does not support";
  IntegerAttr startAttr, endAttr;
  if (std::optional<int64_t> value = node.integer("start"))
    startAttr = b.getI64IntegerAttr(*value);
  Value dynamicEnd;
  if (end && end->kind == Kind::Int && !end->ints.front()) {
    if (!(dynamicEnd = node.sizeValue(*end, 0)))
      return failure();
  } else if (std::optional<int64_t> value = node.integer("end")) {
    endAttr = b.getI64IntegerAttr(*value);
  }
  return node.bind(node.build<edge::SliceOp>(
      input, dynamicEnd, node.integer("dim").value_or(0), startAttr, endAttr,
      node.integer("step").value_or(1)));
}

LogicalResult importFlatten(TorchNode &node) {
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor input";
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = std::max<int64_t>(type.getRank(), 1);
  auto dimArg = [&](StringRef name, int64_t fallback) {
    int64_t dim = node.integer(name).value_or(fallback);
    return dim < 0 ? dim + rank : dim;
  };
  int64_t start = dimArg("start_dim", 0), end = dimArg("end_dim", -1);
  if (start < 0 || end >= rank || start > end)
    return node.error() << "start_dim/end_dim out of range for " << type;
  SmallVector<int64_t> shape;
  int64_t merged = 1;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (d < start || d > end) {
      shape.push_back(type.isDynamicDim(d) ? -1 : type.getDimSize(d));
      continue;
    }
    merged =
        type.isDynamicDim(d) || merged < 0 ? -1 : merged * type.getDimSize(d);
    if (d == end)
      shape.push_back(merged);
  }
  if (type.getRank() == 0)
    shape.push_back(1);
  if (llvm::count(shape, -1) > 1)
    return node.error() << "flattens " << type
                        << " with more than one unknown extent";
  return node.bind(view(node, input, shape));
}

LogicalResult importUnflatten(TorchNode &node) {
  // unflatten(self, dim, sizes): dim becomes `sizes` (one may be -1).
  Value input = node.self();
  std::optional<int64_t> dim = node.integer("dim");
  std::optional<SmallVector<int64_t>> sizes = sizeList(node, "sizes");
  if (!input || !dim)
    return node.error() << "needs a tensor and a constant dim";
  if (!sizes)
    return failure();
  auto type = cast<RankedTensorType>(input.getType());
  int64_t d = *dim < 0 ? *dim + type.getRank() : *dim;
  if (d < 0 || d >= type.getRank())
    return node.error() << "dim " << *dim << " is out of range for " << type;
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (i == d)
      shape.append(sizes->begin(), sizes->end());
    else
      shape.push_back(type.isDynamicDim(i) ? -1 : type.getDimSize(i));
  }
  if (llvm::count(shape, -1) > 1)
    return node.error() << "unflattens " << type
                        << " with more than one unknown extent";
  return node.bind(view(node, input, shape));
}

LogicalResult importT(TorchNode &node) {
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor input";
  if (cast<ShapedType>(input.getType()).getRank() < 2)
    return node.bind(input);
  return node.bind(node.build<edge::TransposeOp>(input, 0, 1));
}

LogicalResult importSplit(TorchNode &node) {
  // split/split_with_sizes/chunk/unbind: one slice (or select, for unbind)
  // per output, each output's extent as the program records it.
  Value input = node.self();
  std::vector<std::string> outputs = node.outputNames();
  if (!input || outputs.empty())
    return node.error() << "needs a tensor input and outputs";
  auto type = cast<RankedTensorType>(input.getType());
  int64_t dim = node.integer("dim").value_or(0);
  if (dim < 0)
    dim += type.getRank();
  if (dim < 0 || dim >= type.getRank() || type.isDynamicDim(dim))
    return node.error() << "needs a static dim to split, got " << type;
  bool unbind = node.aten() == "aten::unbind";
  SmallVector<Value> pieces;
  int64_t start = 0;
  for (size_t index = 0; index < outputs.size(); ++index) {
    FailureOr<RankedTensorType> outType = node.outputType(index);
    if (failed(outType))
      return failure();
    FailureOr<Value> piece;
    if (unbind) {
      piece = node.build<edge::SelectOp>(input, dim, index);
    } else {
      if (outType->getRank() != type.getRank() || outType->isDynamicDim(dim))
        return node.error() << "output #" << index << " is " << *outType
                            << ", not a static piece of " << type
                            << " along dim " << dim;
      int64_t length = outType->getDimSize(dim);
      Builder &b = node.builder();
      piece = node.build<edge::SliceOp>(input, Value(), dim, b.getI64IntegerAttr(start),
                                        b.getI64IntegerAttr(start + length),
                                        1);
      start += length;
    }
    if (failed(piece))
      return failure();
    pieces.push_back(*piece);
  }
  return node.bindEach(pieces);
}

LogicalResult importNarrow(TorchNode &node) {
  // narrow(self, dim, start, length) = slice(dim, start, start + length).
  Value input = node.self();
  std::optional<int64_t> dim = node.integer("dim"),
                         start = node.integer("start"),
                         length = node.integer("length");
  if (!input || !dim || !start || !length)
    return node.error() << "needs a tensor and constant dim, start, length";
  auto type = cast<RankedTensorType>(input.getType());
  int64_t d = *dim < 0 ? *dim + type.getRank() : *dim;
  int64_t begin = *start;
  if (begin < 0 && d >= 0 && d < type.getRank() && !type.isDynamicDim(d))
    begin += type.getDimSize(d);
  Builder &b = node.builder();
  return node.bind(node.build<edge::SliceOp>(input, Value(), *dim,
                                             b.getI64IntegerAttr(begin),
                                             b.getI64IntegerAttr(begin + *length),
                                             1));
}

/// expand_as / view_as / reshape_as: the other tensor's shape.
LogicalResult importAs(TorchNode &node) {
  Value input = node.self(), other = node.tensor("other");
  if (!input || !other)
    return node.error() << "needs 'self' and 'other' tensors";
  ArrayRef<int64_t> shape = cast<RankedTensorType>(other.getType()).getShape();
  if (ShapedType::isDynamicShape(shape))
    return node.error() << "needs a static shape for 'other'";
  Builder &b = node.builder();
  if (node.aten() == "aten::expand_as")
    return node.bind(
        node.build<edge::ExpandOp>(input, ValueRange(),
                                   b.getDenseI64ArrayAttr(shape)));
  return node.bind(view(node, input, shape));
}

/// cat skips "legacy empty" tensors (1-D with no elements) whatever `dim`
/// says, as torch does: transformers concatenate a cache that starts empty.
LogicalResult importCat(TorchNode &node) {
  auto values = node.tensors("tensors");
  if (!values)
    return node.importAs("aten::cat");
  for (auto &[name, arg] : node.args()) {
    if (name != "tensors" || arg.tensors.size() != values->size())
      continue;
    std::vector<std::string> kept;
    Value last;
    for (auto [tensorName, value] : llvm::zip(arg.tensors, *values)) {
      auto type = value ? dyn_cast<RankedTensorType>(value.getType())
                        : RankedTensorType();
      if (type && type.getRank() == 1 && type.getDimSize(0) == 0)
        continue;
      kept.push_back(tensorName);
      last = value;
    }
    if (kept.size() == 1 && kept.size() != arg.tensors.size())
      return node.bind(last);
    if (!kept.empty())
      arg.tensors = std::move(kept);
  }
  return node.importAs("aten::cat");
}

/// as_strided(self, size, stride, storage_offset) over a static input (Edge
/// values are contiguous): a view when the strides are the contiguous ones
/// for `size` (size-1 dims may have any stride), otherwise a gather from the
/// flattened input at the addressed elements.
LogicalResult importAsStrided(TorchNode &node) {
  Value input = node.self();
  std::optional<SmallVector<int64_t>> size = node.ints("size"),
                                      stride = node.ints("stride");
  int64_t offset = node.integer("storage_offset").value_or(0);
  if (!input || !size || !stride || size->size() != stride->size())
    return node.error() << "needs a tensor and constant size and stride "
                           "lists of one length";
  auto type = cast<RankedTensorType>(input.getType());
  if (!type.hasStaticShape())
    return node.error() << "needs a statically shaped input";
  int64_t numel = type.getNumElements(), count = 1, last = offset;
  for (auto [extent, step] : llvm::zip(*size, *stride)) {
    if (extent < 0 || step < 0)
      return node.error() << "negative size or stride";
    if (extent && __builtin_mul_overflow(count, extent, &count))
      return node.error() << "size overflows";
    last += extent ? (extent - 1) * step : 0;
  }
  if (count > 0 && (offset < 0 || last >= numel))
    return node.error() << "addresses element " << last
                        << " of an input with " << numel << " elements";
  bool contiguous = offset == 0 && count == numel;
  for (int64_t d = static_cast<int64_t>(size->size()) - 1, expected = 1;
       d >= 0; --d) {
    if ((*size)[d] != 1 && (*stride)[d] != expected)
      contiguous = false;
    expected *= (*size)[d];
  }
  if (contiguous)
    return node.bind(view(node, input, *size));
  if (count > (int64_t(1) << 24))
    return node.error() << "gathers " << count
                        << " elements; etch builds its index only up to 2^24";
  // The element addresses in row-major order of `size`.
  SmallVector<int64_t> addresses;
  addresses.reserve(count);
  SmallVector<int64_t> index(size->size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t address = offset;
    for (size_t d = 0; d < index.size(); ++d)
      address += index[d] * (*stride)[d];
    addresses.push_back(address);
    for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
      if (++index[d] < (*size)[d])
        break;
      index[d] = 0;
    }
  }
  FailureOr<Value> flat = view(node, input, {numel});
  if (failed(flat))
    return failure();
  FailureOr<Value> picked = selectEntries(node, *flat, 0, addresses);
  if (failed(picked))
    return failure();
  return node.bind(view(node, *picked, *size));
}

/// repeat(self, repeats): each (leading-padded) dim d tiled repeats[d]
/// times = view with a unit dim before each, expand it, view back.
LogicalResult importRepeat(TorchNode &node) {
  // repeat(self, repeats) and tile(self, dims), which pads its list with
  // leading 1s to the input's rank.
  bool tile = node.aten().starts_with("aten::tile");
  Value input = node.self();
  std::optional<SmallVector<int64_t>> repeats =
      node.ints(tile ? "dims" : "repeats");
  if (!input || !repeats)
    return node.error() << "needs a tensor and constant repeats";
  auto type = cast<RankedTensorType>(input.getType());
  if (!type.hasStaticShape())
    return node.error() << "needs a statically shaped input";
  if (tile && repeats->size() < static_cast<size_t>(type.getRank()))
    repeats->insert(repeats->begin(), type.getRank() - repeats->size(), 1);
  if (repeats->size() < static_cast<size_t>(type.getRank()))
    return node.error() << "needs at least one repeat per dim";
  SmallVector<int64_t> padded(repeats->size() - type.getRank(), 1);
  llvm::append_range(padded, type.getShape());
  SmallVector<int64_t> unit, expanded, result;
  for (auto [extent, times] : llvm::zip(padded, *repeats)) {
    if (times < 0)
      return node.error() << "negative repeat " << times;
    unit.append({1, extent});
    expanded.append({times, extent});
    result.push_back(times * extent);
  }
  Builder &b = node.builder();
  FailureOr<Value> spread = view(node, input, unit);
  if (failed(spread))
    return failure();
  FailureOr<Value> tiled = node.build<edge::ExpandOp>(
      *spread, ValueRange(), b.getDenseI64ArrayAttr(expanded));
  if (failed(tiled))
    return failure();
  return node.bind(view(node, *tiled, result));
}

/// pixel_shuffle(self, upscale_factor) / pixel_unshuffle(self,
/// downscale_factor) on [*, C, H, W], and channel_shuffle(self, groups) on
/// [N, C, *]: a view that splits dims, a permutation, a view that joins them.
LogicalResult importShuffle(TorchNode &node) {
  StringRef aten = node.aten();
  bool channels =
      aten == "aten::channel_shuffle" || aten == "aten::native_channel_shuffle";
  bool down = aten == "aten::pixel_unshuffle";
  Value input = node.self();
  std::optional<int64_t> factor = node.integer(channels ? "groups"
                                               : down   ? "downscale_factor"
                                                        : "upscale_factor");
  if (!input || !factor || *factor <= 0)
    return node.error() << "needs a tensor and a positive constant factor";
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank(), r = *factor;
  if (!type.hasStaticShape() || rank < (channels ? 2 : 3))
    return node.error() << "needs a statically shaped input of rank at least "
                        << (channels ? 2 : 3);
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> split, order, joined;
  if (channels) {
    // [N, g, C/g, *] -> [N, C/g, g, *].
    if (shape[1] % r)
      return node.error() << shape[1] << " channels do not split into " << r
                          << " groups";
    split = {shape[0], r, shape[1] / r};
    split.append(shape.begin() + 2, shape.end());
    order = {0, 2, 1};
    for (int64_t d = 3; d < rank + 1; ++d)
      order.push_back(d);
    joined.assign(shape.begin(), shape.end());
  } else {
    int64_t batch = rank - 3;
    SmallVector<int64_t> lead(shape.begin(), shape.begin() + batch);
    int64_t c = shape[batch], h = shape[batch + 1], w = shape[batch + 2];
    if (down && (h % r || w % r))
      return node.error() << "height " << h << " and width " << w
                          << " must divide by downscale_factor " << r;
    if (!down && c % (r * r))
      return node.error() << c << " channels must divide by upscale_factor "
                          << r << " squared";
    for (int64_t d = 0; d < batch; ++d)
      order.push_back(d);
    split = lead;
    joined = lead;
    if (down) {
      // [*, C, H/r, r, W/r, r] -> [*, C, r, r, H/r, W/r].
      split.append({c, h / r, r, w / r, r});
      for (int64_t d : {0, 2, 4, 1, 3})
        order.push_back(batch + d);
      joined.append({c * r * r, h / r, w / r});
    } else {
      // [*, C, r, r, H, W] -> [*, C, H, r, W, r].
      split.append({c / (r * r), r, r, h, w});
      for (int64_t d : {0, 3, 1, 4, 2})
        order.push_back(batch + d);
      joined.append({c / (r * r), h * r, w * r});
    }
  }
  FailureOr<Value> parts = view(node, input, split);
  if (failed(parts))
    return failure();
  FailureOr<Value> moved = node.build<edge::PermuteOp>(
      *parts, node.builder().getDenseI64ArrayAttr(order));
  if (failed(moved))
    return failure();
  return node.bind(view(node, *moved, joined));
}

/// Tensor.unfold(self, dimension, size, step): every window of `size`
/// entries `step` apart along the dim, the windows in its place and their
/// entries as a new last dim: one index_select of the windows' entries, a
/// view that splits them, a permutation.
LogicalResult importUnfold(TorchNode &node) {
  Value input = node.self();
  std::optional<int64_t> dim = node.integer("dimension"),
                         size = node.integer("size"),
                         step = node.integer("step");
  if (!input || !dim || !size || !step || *size < 0 || *step <= 0)
    return node.error() << "needs a tensor, a constant dimension and size, "
                           "and a positive constant step";
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank(), d = *dim < 0 ? *dim + rank : *dim;
  if (rank == 0 && (d == 0 || d == -1) && *size <= 1) // one window of it
    return node.bind(view(node, input, {*size}));
  if (rank == 0 || d < 0 || d >= rank || type.isDynamicDim(d))
    return node.error() << "dimension " << *dim << " of " << type
                        << " must exist and have a static size";
  int64_t length = type.getDimSize(d);
  if (*size > length)
    return node.error() << "window size " << *size << " exceeds dim " << d
                        << " of size " << length;
  int64_t windows = (length - *size) / *step + 1;
  SmallVector<int64_t> entries;
  for (int64_t w = 0; w < windows; ++w)
    for (int64_t k = 0; k < *size; ++k)
      entries.push_back(w * *step + k);
  FailureOr<Value> picked = selectEntries(node, input, d, entries);
  if (failed(picked))
    return failure();
  SmallVector<int64_t> split;
  for (int64_t e = 0; e < rank; ++e) {
    if (e != d) {
      split.push_back(type.isDynamicDim(e) ? -1 : type.getDimSize(e));
      continue;
    }
    split.append({windows, *size});
  }
  SmallVector<int64_t> order;
  for (int64_t e = 0; e <= rank; ++e)
    if (e != d + 1)
      order.push_back(e);
  order.push_back(d + 1);
  FailureOr<Value> windowed = view(node, *picked, split);
  if (failed(windowed) || d + 1 == rank) // the entries are already last
    return node.bind(windowed);
  return node.bind(node.build<edge::PermuteOp>(
      *windowed, node.builder().getDenseI64ArrayAttr(order)));
}

/// diagonal(self, offset, dim1, dim2): dim1 and dim2 moved last and joined,
/// then every (m+1)th entry from the offset's first one (m: dim2's size);
/// trace(self) sums the main diagonal.
LogicalResult importDiagonal(TorchNode &node) {
  bool trace = node.aten() == "aten::trace";
  Value input = node.self();
  // diag(matrix, diagonal) names its offset otherwise.
  int64_t offset =
      node.integer(node.has("diagonal") ? "diagonal" : "offset").value_or(0);
  auto type =
      input ? cast<RankedTensorType>(input.getType()) : RankedTensorType();
  int64_t rank = type ? type.getRank() : 0;
  // linalg.diagonal's defaults are the last two dims.
  bool linalg = node.aten() == "aten::linalg_diagonal";
  int64_t d1 = node.integer("dim1").value_or(linalg ? -2 : 0),
          d2 = node.integer("dim2").value_or(linalg ? -1 : 1);
  d1 = d1 < 0 ? d1 + rank : d1;
  d2 = d2 < 0 ? d2 + rank : d2;
  if (!input || rank < 2 || d1 < 0 || d2 < 0 || d1 >= rank || d2 >= rank ||
      d1 == d2 || type.isDynamicDim(d1) || type.isDynamicDim(d2))
    return node.error() << "needs two distinct dims of static size";
  int64_t n = type.getDimSize(d1), m = type.getDimSize(d2);
  int64_t count = std::max<int64_t>(0, offset >= 0 ? std::min(n, m - offset)
                                                   : std::min(n + offset, m));
  int64_t start = offset >= 0 ? offset : -offset * m;
  SmallVector<int64_t> order, joined;
  for (int64_t e = 0; e < rank; ++e)
    if (e != d1 && e != d2) {
      order.push_back(e);
      joined.push_back(type.isDynamicDim(e) ? -1 : type.getDimSize(e));
    }
  order.append({d1, d2});
  joined.push_back(n * m);
  Builder &b = node.builder();
  FailureOr<Value> moved =
      llvm::is_sorted(order)
          ? FailureOr<Value>(input)
          : node.build<edge::PermuteOp>(input, b.getDenseI64ArrayAttr(order));
  if (failed(moved))
    return failure();
  FailureOr<Value> flat = view(node, *moved, joined);
  if (failed(flat))
    return failure();
  int64_t last = static_cast<int64_t>(joined.size()) - 1;
  SmallVector<int64_t> entries;
  for (int64_t i = 0; i < count; ++i)
    entries.push_back(start + i * (m + 1));
  FailureOr<Value> diagonal = selectEntries(node, *flat, last, entries);
  if (failed(diagonal) || !trace)
    return node.bind(diagonal);
  FailureOr<RankedTensorType> result = node.outputType();
  if (failed(result))
    return failure();
  FailureOr<Value> widened = node.castTo(*diagonal, result->getElementType());
  if (failed(widened))
    return failure();
  return node.bind(
      node.build<edge::SumOp>(*widened, DenseI64ArrayAttr(), false));
}

/// diag_embed(self, offset, dim1=-2, dim2=-1) and diag of a vector: the last
/// dim's n entries on a diagonal of an N x N matrix (N = n + |offset|),
/// zeros elsewhere. One index_select from the entries with a zero appended,
/// every matrix cell naming its entry or the zero, then a view.
LogicalResult importDiagEmbed(TorchNode &node) {
  Value input = node.self();
  bool embed = node.aten() == "aten::diag_embed";
  int64_t offset = node.integer(embed ? "offset" : "diagonal").value_or(0);
  if (!input)
    return node.error() << "needs a tensor input";
  auto type = edge::rankedType(input);
  if (!embed && type.getRank() == 2)
    return importDiagonal(node);
  int64_t rank = type.getRank();
  if (rank < 1 || (!embed && rank != 1) || type.isDynamicDim(rank - 1))
    return node.error() << "needs a vector (diag) or a tensor whose last dim "
                           "is static (diag_embed), got "
                        << type;
  // The result has one dim more than the input.
  auto resultDim = [&](StringRef name, int64_t fallback) {
    int64_t dim = node.integer(name).value_or(fallback);
    return dim < 0 ? dim + rank + 1 : dim;
  };
  if (embed &&
      (resultDim("dim1", -2) != rank - 1 || resultDim("dim2", -1) != rank))
    return node.error() << "supports the diagonal in the last two dims only";
  int64_t n = type.getDimSize(rank - 1);
  int64_t size = n + std::abs(offset);
  Builder &b = node.builder();
  SmallVector<int64_t> pads(2 * rank, 0);
  pads[1] = 1; // one zero after the last dim's entries (ATen pad order)
  FailureOr<Value> padded = node.build<edge::ConstantPadNdOp>(
      input, b.getDenseI64ArrayAttr(pads), b.getF64FloatAttr(0.0));
  if (failed(padded))
    return failure();
  SmallVector<int64_t> cells;
  for (int64_t r = 0; r < size; ++r)
    for (int64_t c = 0; c < size; ++c)
      cells.push_back(c - r == offset ? (offset >= 0 ? r : c) : n);
  FailureOr<Value> placed = selectEntries(node, *padded, rank - 1, cells);
  if (failed(placed))
    return failure();
  SmallVector<int64_t> shape(type.getShape().drop_back());
  for (int64_t &extent : shape)
    if (ShapedType::isDynamic(extent))
      extent = -1;
  shape.append({size, size});
  return node.bind(view(node, *placed, shape));
}

/// broadcast_tensors(tensors): each expanded to the common (recorded) shape.
LogicalResult importBroadcastTensors(TorchNode &node) {
  std::optional<SmallVector<Value>> inputs = node.tensors("tensors");
  if (!inputs || llvm::is_contained(*inputs, Value()))
    return node.error() << "needs a list of tensors";
  SmallVector<Value> results;
  for (auto [index, input] : llvm::enumerate(*inputs)) {
    FailureOr<RankedTensorType> type = node.outputType(index);
    if (failed(type))
      return failure();
    if (!type->hasStaticShape())
      return node.error() << "output " << index << " is " << *type
                          << "; etch broadcasts to static shapes only";
    FailureOr<Value> expanded = node.build<edge::ExpandOp>(
        input, ValueRange(),
        node.builder().getDenseI64ArrayAttr(type->getShape()));
    if (failed(expanded))
      return failure();
    results.push_back(*expanded);
  }
  return node.bindEach(results);
}

/// ravel(self): the flattened tensor.
LogicalResult importRavel(TorchNode &node) {
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor input";
  return node.bind(view(node, input, {-1}));
}

/// select_scatter(self, src, dim, index).
LogicalResult importSelectScatter(TorchNode &node) {
  Value input = node.self(), src = node.tensor("src");
  std::optional<int64_t> dim = node.integer("dim"),
                         index = node.integer("index");
  if (!input || !src || !dim || !index)
    return node.error() << "needs self, src and constant dim and index";
  return node.bind(selectScatter(node, input, src, *dim, *index));
}

/// flip(self, dims): each dim read backwards.
LogicalResult importFlip(TorchNode &node) {
  // flip(self, dims); fliplr and flipud flip dim 1 and dim 0.
  Value value = node.self();
  StringRef aten = node.aten();
  std::optional<SmallVector<int64_t>> dims =
      aten == "aten::fliplr"   ? SmallVector<int64_t>{1}
      : aten == "aten::flipud" ? SmallVector<int64_t>{0}
                               : node.ints("dims");
  if (!value || !dims)
    return node.error() << "needs a tensor and constant dims";
  for (int64_t dim : *dims) {
    FailureOr<Value> flipped = flipDim(node, value, dim);
    if (failed(flipped))
      return failure();
    value = *flipped;
  }
  return node.bind(value);
}

LogicalResult importMovedim(TorchNode &node) {
  // movedim(self, source, destination), int or int[] forms.
  Value input = node.self();
  auto source = node.ints("source"), destination = node.ints("destination");
  if (!input || !source || !destination || source->size() != destination->size())
    return node.error() << "needs a tensor and matching source/destination";
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  SmallVector<int64_t> order(rank, -1);
  SmallVector<bool> used(rank, false);
  for (auto [from, to] : llvm::zip(*source, *destination)) {
    int64_t f = from < 0 ? from + rank : from, t = to < 0 ? to + rank : to;
    if (f < 0 || f >= rank || t < 0 || t >= rank || order[t] >= 0 || used[f])
      return node.error() << "bad or repeated source/destination dims";
    order[t] = f;
    used[f] = true;
  }
  int64_t next = 0;
  for (int64_t &slot : order) {
    if (slot >= 0)
      continue;
    while (used[next])
      ++next;
    slot = next;
    used[next] = true;
  }
  return node.bind(node.build<edge::PermuteOp>(
      input, node.builder().getDenseI64ArrayAttr(order)));
}

LogicalResult importSwapaxes(TorchNode &node) {
  // swapaxes(self, axis0, axis1) / swapdims(self, dim0, dim1): transpose.
  Value input = node.self();
  bool axes = node.has("axis0");
  std::optional<int64_t> first = node.integer(axes ? "axis0" : "dim0"),
                         second = node.integer(axes ? "axis1" : "dim1");
  if (!input || !first || !second)
    return node.error() << "needs a tensor and two constant dims";
  int64_t rank = edge::rankedType(input).getRank();
  int64_t a = runtime::normalizedDim(*first, std::max<int64_t>(rank, 1)),
          b = runtime::normalizedDim(*second, std::max<int64_t>(rank, 1));
  if (a < 0 || b < 0)
    return node.error() << "dims " << *first << " and " << *second
                        << " do not both fit rank " << rank;
  if (a == b || rank == 0)
    return node.bind(input);
  return node.bind(node.build<edge::TransposeOp>(input, a, b));
}

LogicalResult importReversedDims(TorchNode &node) {
  // numpy_T (Tensor.T): every dim reversed; mT / mH / adjoint (real
  // values): the last two swapped.
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor input";
  int64_t rank = edge::rankedType(input).getRank();
  if (node.aten() != "aten::numpy_T") {
    if (rank < 2)
      return node.error() << "needs a tensor of rank 2 or more, got rank "
                          << rank;
    return node.bind(node.build<edge::TransposeOp>(input, rank - 2, rank - 1));
  }
  if (rank < 2)
    return node.bind(input);
  SmallVector<int64_t> order;
  for (int64_t d = rank - 1; d >= 0; --d)
    order.push_back(d);
  return node.bind(node.build<edge::PermuteOp>(
      input, node.builder().getDenseI64ArrayAttr(order)));
}

LogicalResult importRepeatInterleave(TorchNode &node) {
  // repeat_interleave(self, repeats: int, dim=None): each entry along dim
  // `repeats` times in a row (the flattened tensor when dim is None): a
  // unit dim after it, expanded, then folded in.
  Value input = node.self();
  std::optional<int64_t> repeats = node.integer("repeats");
  if (!input || !repeats || *repeats < 0)
    return node.error() << "needs a tensor and a constant count of repeats "
                           "(per-entry counts in a tensor are not supported)";
  RankedTensorType type = edge::rankedType(input);
  if (!type.hasStaticShape())
    return node.error() << "needs a static shape, got " << type;
  if (!node.has("dim")) {
    FailureOr<Value> flat = view(node, input, {type.getNumElements()});
    if (failed(flat))
      return failure();
    input = *flat;
    type = edge::rankedType(input);
  }
  int64_t rank = std::max<int64_t>(type.getRank(), 1);
  int64_t dim = runtime::normalizedDim(node.integer("dim").value_or(0), rank);
  if (dim < 0)
    return node.error() << "dim does not fit rank " << rank;
  SmallVector<int64_t> shape(type.getShape());
  if (shape.empty())
    shape.push_back(1);
  FailureOr<Value> unit = node.build<edge::UnsqueezeOp>(input, dim + 1);
  if (failed(unit))
    return failure();
  SmallVector<int64_t> expanded(shape);
  expanded.insert(expanded.begin() + dim + 1, *repeats);
  FailureOr<Value> copies = node.build<edge::ExpandOp>(
      *unit, ValueRange(), node.builder().getDenseI64ArrayAttr(expanded));
  if (failed(copies))
    return failure();
  shape[dim] *= *repeats;
  return node.bind(view(node, *copies, shape));
}

LogicalResult importStack(TorchNode &node) {
  // stack(tensors, dim=0): each tensor unsqueezed at dim, then joined there.
  std::optional<SmallVector<Value>> values = node.tensors("tensors");
  if (!values || values->empty() || llvm::is_contained(*values, Value()))
    return node.error() << "needs a non-empty list of tensors";
  int64_t rank = edge::rankedType(values->front()).getRank() + 1;
  int64_t requested = node.integer("dim").value_or(0);
  int64_t dim = runtime::normalizedDim(requested, rank);
  if (dim < 0)
    return node.error() << "dim " << requested
                        << " does not fit the stacked rank " << rank;
  SmallVector<Value> rows;
  for (Value value : *values) {
    FailureOr<Value> row = node.build<edge::UnsqueezeOp>(value, dim);
    if (failed(row))
      return failure();
    rows.push_back(*row);
  }
  if (rows.size() == 1)
    return node.bind(rows.front());
  return node.bind(node.build<edge::CatOp>(rows, dim));
}

/// \p value with unit dims added as torch.atleast_{1,2,3}d does: a vector
/// becomes a row ([1, n]; [1, n, 1] in 3-D), a matrix gains a last dim.
FailureOr<Value> atLeast(TorchNode &node, Value value, int64_t rank) {
  int64_t have = edge::rankedType(value).getRank();
  if (have >= rank)
    return value;
  if (have == 0)
    return view(node, value, SmallVector<int64_t>(rank, 1));
  FailureOr<Value> shaped = value;
  if (have == 1)
    shaped = node.build<edge::UnsqueezeOp>(value, int64_t(0));
  if (succeeded(shaped) && rank == 3)
    shaped = node.build<edge::UnsqueezeOp>(*shaped, int64_t(2));
  return shaped;
}

/// atleast_1d / atleast_2d / atleast_3d of a tensor or a list of them.
LogicalResult importAtLeast(TorchNode &node) {
  StringRef aten = node.aten();
  int64_t rank = aten[aten.size() - 2] - '0'; // "aten::atleast_2d"
  std::optional<SmallVector<Value>> list = node.tensors("tensors");
  SmallVector<Value> values = list ? *list : SmallVector<Value>{node.self()};
  if (values.empty() || llvm::is_contained(values, Value()))
    return node.error() << "needs a tensor or a list of tensors";
  SmallVector<Value> results;
  for (Value value : values) {
    FailureOr<Value> shaped = atLeast(node, value, rank);
    if (failed(shaped))
      return failure();
    results.push_back(*shaped);
  }
  return list ? node.bindEach(results) : node.bind(results.front());
}

/// hstack / vstack (row_stack) / dstack / column_stack: torch's promotion of
/// each tensor to a common rank, then one cat.
LogicalResult importStackFamily(TorchNode &node) {
  std::optional<SmallVector<Value>> values = node.tensors("tensors");
  if (!values || values->empty() || llvm::is_contained(*values, Value()))
    return node.error() << "needs a non-empty list of tensors";
  StringRef aten = node.aten();
  bool columns = aten == "aten::column_stack";
  int64_t rank = aten == "aten::dstack" ? 3 : aten == "aten::hstack" ? 1 : 2;
  SmallVector<Value> parts;
  for (Value value : *values) {
    int64_t have = edge::rankedType(value).getRank();
    // column_stack makes 0-D and 1-D tensors columns ([n, 1]).
    FailureOr<Value> shaped =
        columns && have <= 1
            ? (have == 0 ? view(node, value, {1, 1})
                         : node.build<edge::UnsqueezeOp>(value, int64_t(1)))
            : atLeast(node, value, rank);
    if (failed(shaped))
      return failure();
    parts.push_back(*shaped);
  }
  int64_t dim = aten == "aten::dstack" ? 2
                : aten == "aten::hstack"
                    ? (edge::rankedType(parts.front()).getRank() == 1 ? 0 : 1)
                : columns ? 1
                          : 0;
  if (parts.size() == 1)
    return node.bind(parts.front());
  return node.bind(node.build<edge::CatOp>(parts, dim));
}

LogicalResult importMeshgrid(TorchNode &node) {
  // meshgrid(tensors, indexing="ij"): output k holds tensor k (0-D or 1-D)
  // along its own dim, repeated along the others; "xy" swaps the first two
  // dims of every output (Cartesian indexing).
  std::optional<SmallVector<Value>> values = node.tensors("tensors");
  if (!values || values->empty() || llvm::is_contained(*values, Value()))
    return node.error() << "needs a non-empty list of tensors";
  std::string indexing = "ij";
  if (const TorchArgument *arg = node.arg("indexing");
      arg && arg->kind == Kind::String && !arg->strings.empty())
    indexing = arg->strings.front();
  if (indexing != "ij" && indexing != "xy")
    return node.error() << "indexing '" << indexing
                        << "' is neither 'ij' nor 'xy'";
  size_t count = values->size();
  SmallVector<int64_t> extents;
  for (Value value : *values) {
    RankedTensorType type = edge::rankedType(value);
    if (type.getRank() > 1 || !type.hasStaticShape())
      return node.error() << "needs 0-D or 1-D tensors of static size, got "
                          << type;
    extents.push_back(type.getRank() == 0 ? 1 : type.getDimSize(0));
  }
  // The dim that input k runs along in every output.
  SmallVector<int64_t> along(count);
  for (size_t k = 0; k < count; ++k)
    along[k] = static_cast<int64_t>(k);
  if (indexing == "xy" && count > 1)
    std::swap(along[0], along[1]);
  SmallVector<int64_t> shape(count);
  for (size_t k = 0; k < count; ++k)
    shape[along[k]] = extents[k];
  SmallVector<Value> grids;
  for (size_t k = 0; k < count; ++k) {
    SmallVector<int64_t> line(count, 1);
    line[along[k]] = extents[k];
    FailureOr<Value> placed = view(node, (*values)[k], line);
    if (failed(placed))
      return failure();
    FailureOr<Value> grid = node.build<edge::ExpandOp>(
        *placed, ValueRange(), node.builder().getDenseI64ArrayAttr(shape));
    if (failed(grid))
      return failure();
    grids.push_back(*grid);
  }
  return node.bindEach(grids);
}

} // namespace

FailureOr<Value> selectScatter(TorchNode &node, Value self, Value src,
                               int64_t dim, int64_t index) {
  auto type = cast<RankedTensorType>(self.getType());
  int64_t d = dim < 0 ? dim + type.getRank() : dim;
  if (d < 0 || d >= type.getRank())
    return node.error() << "dim " << dim << " is out of range";
  if (index < 0) {
    if (type.isDynamicDim(d))
      return node.error() << "needs a static dim for a negative index";
    index += type.getDimSize(d);
  }
  FailureOr<Value> row = node.build<edge::UnsqueezeOp>(src, d);
  if (failed(row))
    return failure();
  Builder &b = node.builder();
  return node.build<edge::SliceScatterOp>(self, *row, d,
                                          b.getI64IntegerAttr(index),
                                          b.getI64IntegerAttr(index + 1), 1);
}

FailureOr<Value> flipDim(TorchNode &node, Value value, int64_t dim) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t d = dim < 0 ? dim + type.getRank() : dim;
  if (d < 0 || d >= type.getRank() || type.isDynamicDim(d))
    return node.error() << "dim " << dim << " is out of range or dynamic";
  int64_t extent = type.getDimSize(d);
  SmallVector<int64_t> reversed;
  for (int64_t i = extent - 1; i >= 0; --i)
    reversed.push_back(i);
  return selectEntries(node, value, d, reversed);
}

void addShapeHandlers(TorchOpHandlers &handlers) {
  for (const char *name :
       {"aten::view", "aten::reshape", "aten::_unsafe_view", "aten::_reshape_copy"})
    handlers[name] = importView;
  handlers["aten::expand"] = importExpand;
  handlers["aten::slice"] = importSlice;
  handlers["aten::flatten"] = importFlatten;
  handlers["aten::unflatten"] = importUnflatten;
  handlers["aten::t"] = importT;
  for (const char *name : {"aten::split", "aten::split_with_sizes",
                           "aten::chunk", "aten::unbind", "aten::tensor_split"})
    handlers[name] = importSplit;
  handlers["aten::narrow"] = importNarrow;
  handlers["aten::as_strided"] = importAsStrided;
  handlers["aten::repeat"] = importRepeat;
  handlers["aten::tile"] = importRepeat;
  for (const char *name :
       {"aten::pixel_shuffle", "aten::pixel_unshuffle", "aten::channel_shuffle",
        "aten::native_channel_shuffle"})
    handlers[name] = importShuffle;
  handlers["aten::ravel"] = importRavel;
  handlers["aten::unfold"] = importUnfold;
  for (const char *name :
       {"aten::diagonal", "aten::linalg_diagonal", "aten::trace"})
    handlers[name] = importDiagonal;
  handlers["aten::broadcast_tensors"] = importBroadcastTensors;
  for (const char *name : {"aten::diag", "aten::diag_embed"})
    handlers[name] = importDiagEmbed;
  for (const char *name : {"aten::flip", "aten::fliplr", "aten::flipud"})
    handlers[name] = importFlip;
  handlers["aten::select_scatter"] = importSelectScatter;
  for (const char *name : {"aten::cat", "aten::concat", "aten::concatenate"})
    handlers[name] = importCat;
  for (const char *name :
       {"aten::expand_as", "aten::view_as", "aten::reshape_as"})
    handlers[name] = importAs;
  for (const char *name : {"aten::movedim", "aten::moveaxis"})
    handlers[name] = importMovedim;
  for (const char *name : {"aten::swapaxes", "aten::swapdims"})
    handlers[name] = importSwapaxes;
  for (const char *name :
       {"aten::numpy_T", "aten::mT", "aten::mH", "aten::adjoint"})
    handlers[name] = importReversedDims;
  handlers["aten::stack"] = importStack;
  for (const char *name : {"aten::hstack", "aten::vstack", "aten::row_stack",
                           "aten::dstack", "aten::column_stack"})
    handlers[name] = importStackFamily;
  for (const char *name :
       {"aten::atleast_1d", "aten::atleast_2d", "aten::atleast_3d"})
    handlers[name] = importAtLeast;
  handlers["aten::repeat_interleave"] = importRepeatInterleave;
  handlers["aten::meshgrid"] = importMeshgrid;
}

} // namespace etch::torch_import
