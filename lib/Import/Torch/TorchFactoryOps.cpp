//===- TorchFactoryOps.cpp - ATen factory ops become constants ------------===//
//
// full, zeros, ones, empty, scalar_tensor, arange, fill and their *_like /
// new_* forms compute values that depend only on their arguments and the
// (static) result shape, so the importer evaluates them into edge.constant;
// the result's dtype and shape come from the program's tensor metadata.
//
//===----------------------------------------------------------------------===//

#include "TorchImporter.h"

#include "edge/ConstantData.h"

#include "edge/EdgeDialect.h"

#include <cmath>
#include <cstdio>

using namespace mlir;

namespace etch::torch_import {
namespace {

/// "2", "0.5": how the user wrote the number in Python.
std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

Attribute elementAttr(Type elementType, double value) {
  if (isa<FloatType>(elementType))
    return FloatAttr::get(elementType, value);
  if (elementType.isInteger(1))
    return IntegerAttr::get(elementType, value != 0.0 ? 1 : 0);
  return IntegerAttr::get(elementType, static_cast<int64_t>(value));
}

/// The recorded result type when it is static and of a numeric element type.
FailureOr<RankedTensorType> staticResult(TorchNode &node) {
  FailureOr<RankedTensorType> type = node.outputType();
  if (failed(type))
    return failure();
  if (!type->hasStaticShape())
    return node.error() << "needs a static result shape to become a "
                           "constant, got "
                        << *type;
  if (!type->getElementType().isIntOrFloat())
    return node.error() << "unsupported result type " << *type;
  return type;
}

/// A fill whose shape is known only at run time: edge.full, its sizes from
/// the `size` argument or, for the *_like forms, from `self`.
LogicalResult runtimeFill(TorchNode &node, RankedTensorType type,
                          double value) {
  Builder &b = node.builder();
  SmallVector<Value> dynamic;
  std::optional<SmallVector<int64_t>> sizes;
  if (node.has("size")) {
    sizes = node.sizeOperands("size", dynamic);
    if (!sizes)
      return failure();
  } else if (Value like = node.self()) {
    auto likeType = cast<RankedTensorType>(like.getType());
    sizes.emplace();
    for (int64_t d = 0; d < likeType.getRank(); ++d) {
      if (!likeType.isDynamicDim(d)) {
        sizes->push_back(likeType.getDimSize(d));
        continue;
      }
      FailureOr<Value> size = node.build<edge::SymSizeOp>(like, d);
      if (failed(size))
        return failure();
      sizes->push_back(edge::kDynamicSize);
      dynamic.push_back(*size);
    }
  } else {
    return node.error() << "needs a size or a tensor to take the shape of";
  }
  return node.bind(node.build<edge::FullOp>(
      dynamic, b.getDenseI64ArrayAttr(*sizes), b.getF64FloatAttr(value),
      TypeAttr::get(type.getElementType())));
}

LogicalResult splat(TorchNode &node, std::optional<double> value) {
  if (!value)
    return node.error() << "needs a constant fill value";
  FailureOr<RankedTensorType> recorded = node.outputType();
  if (succeeded(recorded) && !recorded->hasStaticShape() &&
      recorded->getElementType().isIntOrFloat())
    return runtimeFill(node, *recorded, *value);
  FailureOr<RankedTensorType> type = staticResult(node);
  if (failed(type))
    return failure();
  return node.bind(Value(node.builder().create<edge::ConstantOp>(
      node.loc(), DenseElementsAttr::get(
                      *type, elementAttr(type->getElementType(), *value)))));
}

// Values that do not matter (empty) are zeros.
LogicalResult importZeros(TorchNode &node) { return splat(node, 0.0); }
LogicalResult importOnes(TorchNode &node) { return splat(node, 1.0); }
LogicalResult importFull(TorchNode &node) {
  // full(size, fill_value), full_like(self, fill_value),
  // scalar_tensor(s), fill(self, value).
  for (const char *name : {"fill_value", "s", "value"})
    if (node.has(name))
      return splat(node, node.number(name));
  return splat(node, std::nullopt);
}

/// fill(self, value) with a tensor `value` (fill.Tensor, the in-place
/// `x[...] = t` of the training IR): a constant value is a splat; another
/// 0-d value is cast and broadcast to self's shape.
LogicalResult importFill(TorchNode &node) {
  const TorchArgument *valueArg = node.arg("value");
  if (!valueArg || !valueArg->isTensorLike())
    return importFull(node);
  Value self = node.self(), value = node.tensor("value");
  if (!self || !value)
    return node.error() << "needs 'self' and a 'value' tensor";
  auto valueType = cast<RankedTensorType>(value.getType());
  if (valueType.getRank() != 0)
    return node.error() << "needs a 0-d 'value', got " << valueType;
  if (std::optional<SmallVector<float>> constant =
          edge::getConstantFloats(value);
      constant && constant->size() == 1)
    return splat(node, static_cast<double>(constant->front()));
  auto selfType = cast<RankedTensorType>(self.getType());
  if (!selfType.hasStaticShape())
    return node.error() << "needs a statically shaped 'self' for a run-time "
                           "fill value";
  FailureOr<Value> cast = node.castTo(value, selfType.getElementType());
  if (failed(cast))
    return failure();
  Builder &b = node.builder();
  SmallVector<int64_t> ones(selfType.getRank(), 1);
  FailureOr<Value> shaped = node.build<edge::ViewOp>(
      *cast, ValueRange(), b.getDenseI64ArrayAttr(ones));
  if (failed(shaped))
    return failure();
  return node.bind(node.build<edge::ExpandOp>(
      *shaped, ValueRange(), b.getDenseI64ArrayAttr(selfType.getShape())));
}

LogicalResult importArange(TorchNode &node) {
  // arange(end) / arange.start(start, end) / arange.start_step(.., step):
  // element i is start + i * step; the count comes from the result shape.
  // An end known only at run time makes edge.arange.
  const TorchArgument *endArg = node.arg("end");
  if (endArg && endArg->kind == TorchArgument::Kind::Int &&
      !endArg->ints.front()) {
    FailureOr<RankedTensorType> recorded = node.outputType();
    std::optional<double> start =
        node.has("start") ? node.number("start") : 0.0;
    std::optional<double> step = node.has("step") ? node.number("step") : 1.0;
    Value end = node.sizeValue(*endArg, 0);
    if (failed(recorded) || !end)
      return failure();
    if (!start || !step)
      return node.error() << "needs a constant start and step";
    Builder &b = node.builder();
    return node.bind(node.build<edge::ArangeOp>(
        end, b.getF64FloatAttr(*start), FloatAttr(), b.getF64FloatAttr(*step),
        TypeAttr::get(recorded->getElementType())));
  }
  FailureOr<RankedTensorType> type = staticResult(node);
  if (failed(type))
    return failure();
  std::optional<double> start = node.has("start") ? node.number("start") : 0.0;
  std::optional<double> step = node.has("step") ? node.number("step") : 1.0;
  std::optional<double> end = node.number("end");
  if (!start || !step || !end || *step == 0.0)
    return node.error() << "needs constant start, end and a non-zero step";
  int64_t count = type->getNumElements();
  if (type->getRank() != 1 ||
      count != std::max<int64_t>(
                   0, static_cast<int64_t>(std::ceil((*end - *start) / *step))))
    return node.error() << "result " << *type << " does not match range ["
                        << formatNumber(*start) << ", " << formatNumber(*end)
                        << ") with step " << formatNumber(*step);
  SmallVector<Attribute> elements;
  elements.reserve(count);
  for (int64_t i = 0; i < count; ++i)
    elements.push_back(elementAttr(type->getElementType(), *start + i * *step));
  return node.bind(Value(node.builder().create<edge::ConstantOp>(
      node.loc(), DenseElementsAttr::get(*type, elements))));
}

} // namespace

void addFactoryHandlers(TorchOpHandlers &handlers) {
  for (const char *name : {"aten::zeros", "aten::zeros_like", "aten::new_zeros",
                           "aten::zero", "aten::empty", "aten::empty_like",
                           "aten::new_empty", "aten::empty_strided",
                           "aten::new_empty_strided", "aten::empty_permuted"})
    handlers[name] = importZeros;
  for (const char *name : {"aten::ones", "aten::ones_like", "aten::new_ones"})
    handlers[name] = importOnes;
  for (const char *name : {"aten::full", "aten::full_like", "aten::new_full",
                           "aten::scalar_tensor"})
    handlers[name] = importFull;
  handlers["aten::fill"] = importFill;
  handlers["aten::arange"] = importArange;
}

} // namespace etch::torch_import
