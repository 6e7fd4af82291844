#include "edge/EdgeTypeUtils.h"

#include "runtime/core/BroadcastShape.h"
#include "runtime/core/ReductionShape.h"
#include "runtime/core/WindowExtent.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace etch::edge {

bool areCompatibleTensorTypes(TypeRange lhs, TypeRange rhs) {
  if (lhs.size() != rhs.size())
    return false;
  for (auto [left, right] : llvm::zip(lhs, rhs)) {
    if (left == right)
      continue;
    auto leftTensor = dyn_cast<RankedTensorType>(left);
    auto rightTensor = dyn_cast<RankedTensorType>(right);
    if (!leftTensor || !rightTensor ||
        leftTensor.getElementType() != rightTensor.getElementType() ||
        leftTensor.getRank() != rightTensor.getRank())
      return false;
    for (auto [l, r] : llvm::zip(leftTensor.getShape(), rightTensor.getShape()))
      if (!ShapedType::isDynamic(l) && !ShapedType::isDynamic(r) && l != r)
        return false;
  }
  return true;
}

LogicalResult emitInferenceError(std::optional<Location> location,
                                 StringRef opName, const Twine &message) {
  return emitOptionalError(location, "'", opName, "' op ", message);
}

std::optional<int64_t> normalizeDim(std::optional<Location> location,
                                    StringRef opName, StringRef what,
                                    int64_t dim, int64_t rank) {
  int64_t normalized = etch::runtime::normalizedDim(dim, rank);
  if (normalized < 0) {
    (void)emitInferenceError(location, opName,
                             Twine(what) + " " + Twine(dim) +
                                 " is out of range for rank " + Twine(rank));
    return std::nullopt;
  }
  return normalized;
}

RankedTensorType rankedType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

LogicalResult verifyResultShape(Operation *op, ArrayRef<int64_t> expected) {
  ArrayRef<int64_t> actual =
      cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  bool agree = actual.size() == expected.size() &&
               llvm::all_of(llvm::zip(actual, expected), [](auto pair) {
                 return extentsAgree(std::get<0>(pair), std::get<1>(pair));
               });
  if (!agree)
    return op->emitOpError() << "result shape " << formatShape(actual)
                             << " differs from the expected "
                             << formatShape(expected);
  return success();
}

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(shape, os, [&](int64_t dim) {
    if (ShapedType::isDynamic(dim))
      os << "?";
    else
      os << dim;
  });
  os << "]";
  return text;
}

static_assert(ShapedType::kDynamic == runtime::kUnknownExtent,
              "the shared broadcast rule marks dynamic extents as MLIR does");

bool broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                     SmallVectorImpl<int64_t> &out) {
  out.resize(std::max(a.size(), b.size()));
  int64_t rank = runtime::broadcastShape(a.data(), a.size(), b.data(), b.size(),
                                         out.data());
  if (rank < 0)
    out.clear();
  return rank >= 0;
}

bool broadcastsTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  size_t offset = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && !extentsAgree(from[i], to[offset + i]))
      return false;
  return true;
}

LogicalResult
verifySameElementType(std::optional<Location> location, StringRef opName,
                      ArrayRef<std::pair<StringRef, Value>> values) {
  if (values.empty())
    return success();
  Type expected = rankedType(values.front().second).getElementType();
  for (auto [name, value] : values.drop_front()) {
    if (!value)
      continue;
    Type actual = rankedType(value).getElementType();
    if (actual != expected)
      return emitInferenceError(
          location, opName,
          Twine(name) + " has element type " + formatType(actual) +
              ", expected " + formatType(expected) + " (the element type of " +
              values.front().first + ")");
  }
  return success();
}

LogicalResult verifyRank(std::optional<Location> location, StringRef opName,
                         StringRef name, Value value, int64_t rank) {
  RankedTensorType type = rankedType(value);
  if (type.getRank() == rank)
    return success();
  return emitInferenceError(location, opName,
                            Twine(name) + " must have rank " + Twine(rank) +
                                ", got rank " + Twine(type.getRank()) + " (" +
                                formatType(type) + ")");
}

LogicalResult verifySpatialEntries(std::optional<Location> location,
                                   StringRef opName, StringRef attr,
                                   ArrayRef<int64_t> values, int64_t minimum,
                                   size_t spatialDims) {
  if (values.size() != spatialDims)
    return emitInferenceError(location, opName,
                              Twine(attr) + " must have " + Twine(spatialDims) +
                                  " entries (" +
                                  (spatialDims == 3 ? "D, H, W" : "H, W") +
                                  "), got " + Twine(values.size()));
  for (int64_t value : values)
    if (value < minimum)
      return emitInferenceError(location, opName,
                                Twine(attr) + " entries must be >= " +
                                    Twine(minimum) + ", got " + Twine(value));
  return success();
}

std::string formatType(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

int64_t slidingWindowExtent(int64_t input, int64_t kernel, int64_t stride,
                            int64_t padding, int64_t dilation, bool ceilMode) {
  if (ShapedType::isDynamic(input))
    return ShapedType::kDynamic;
  return runtime::windowExtent(input, kernel, stride, padding, dilation,
                               ceilMode);
}

std::optional<int64_t> constantSize(Value size) {
  Operation *op = size ? size.getDefiningOp() : nullptr;
  if (!op || op->getName().getStringRef() != "edge.constant")
    return std::nullopt;
  auto dense = dyn_cast<DenseIntElementsAttr>(op->getAttr("value"));
  if (!dense || dense.getNumElements() != 1)
    return std::nullopt;
  return (*dense.value_begin<llvm::APInt>()).getSExtValue();
}

std::optional<SmallVector<int64_t>>
resolveSizes(std::optional<Location> location, StringRef opName,
             ArrayRef<int64_t> size, ValueRange dynamicSizes) {
  SmallVector<int64_t> resolved;
  size_t next = 0;
  for (int64_t entry : size) {
    if (entry != kDynamicSize) {
      resolved.push_back(entry);
      continue;
    }
    if (next == dynamicSizes.size())
      break;
    resolved.push_back(
        constantSize(dynamicSizes[next++]).value_or(ShapedType::kDynamic));
  }
  if (resolved.size() != size.size() || next != dynamicSizes.size()) {
    (void)emitInferenceError(location, opName,
                             "needs one dynamic_size operand per dynamic "
                             "entry of " +
                                 formatShape(size) + ", got " +
                                 Twine(dynamicSizes.size()));
    return std::nullopt;
  }
  return resolved;
}

} // namespace etch::edge
