//===- TorchFactoryOps.cpp - ATen factory ops become constants ------------===//
//
// full, zeros, ones, scalar_tensor, arange and their *_like / new_* forms
// compute values that depend only on their arguments and the (static) result
// shape, so the importer evaluates them into edge.constant; the result's
// dtype and shape come from the program's tensor metadata.
//
//===----------------------------------------------------------------------===//

#include "TorchImporter.h"

#include "edge/EdgeDialect.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using llvm::json::Object;

namespace etch::torch_import {

namespace {
/// How a factory op's values follow from its arguments.
enum class Fill { None, Zero, One, Argument, Range };
} // namespace

static Fill fillFor(StringRef aten) {
  return llvm::StringSwitch<Fill>(aten)
      .Cases("aten::zeros", "aten::zeros_like", "aten::new_zeros", Fill::Zero)
      .Cases("aten::ones", "aten::ones_like", "aten::new_ones", Fill::One)
      .Cases("aten::full", "aten::full_like", "aten::new_full",
             "aten::scalar_tensor", Fill::Argument)
      .Case("aten::arange", Fill::Range)
      .Default(Fill::None);
}

/// "2", "0.5": how the user wrote the number in Python.
static std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

static Attribute elementAttr(Type elementType, double value) {
  if (isa<FloatType>(elementType))
    return FloatAttr::get(elementType, value);
  if (elementType.isInteger(1))
    return IntegerAttr::get(elementType, value != 0.0 ? 1 : 0);
  return IntegerAttr::get(elementType, static_cast<int64_t>(value));
}

LogicalResult TorchImporter::importFactory(const Object &node, StringRef aten,
                                           const NamedArguments &args,
                                           bool &handled) {
  Fill fill = fillFor(aten);
  handled = fill != Fill::None;
  if (!handled)
    return success();
  Location loc = nodeLocation(node);
  auto number = [&](StringRef name) -> std::optional<double> {
    for (const auto &[key, arg] : args)
      if (key == name)
        return arg.scalarValue();
    return std::nullopt;
  };
  auto has = [&](StringRef name) {
    return llvm::any_of(args, [&](const auto &entry) {
      return entry.first == name &&
             entry.second.kind != TorchArgument::Kind::None;
    });
  };

  std::vector<std::string> outputs = outputTensorNames(node);
  if (outputs.empty())
    return nodeError(node, aten) << "has no tensor output";
  FailureOr<RankedTensorType> type = tensorType(outputs.front(), loc);
  if (failed(type))
    return failure();
  if (!type->hasStaticShape())
    return nodeError(node, aten)
           << "needs a static result shape to become a constant, got " << *type;
  Type elementType = type->getElementType();
  if (!elementType.isIntOrFloat())
    return nodeError(node, aten) << "unsupported result type " << *type;

  if (fill != Fill::Range) {
    std::optional<double> value = fill == Fill::Zero  ? 0.0
                                  : fill == Fill::One ? 1.0
                                  : has("fill_value") ? number("fill_value")
                                                      : number("s");
    if (!value)
      return nodeError(node, aten)
             << "needs a constant fill value ('fill_value' or 's')";
    return bindOutputs(node, aten,
                       Value(builder.create<edge::ConstantOp>(
                           loc, DenseElementsAttr::get(
                                    *type, elementAttr(elementType, *value)))));
  }

  // arange(end) / arange.start(start, end) / arange.start_step(.., step):
  // element i is start + i * step; the count comes from the result shape.
  std::optional<double> start = has("start") ? number("start") : 0.0;
  std::optional<double> step = has("step") ? number("step") : 1.0;
  std::optional<double> end = number("end");
  if (!start || !step || !end || *step == 0.0)
    return nodeError(node, aten)
           << "needs constant start, end and a non-zero step";
  int64_t count = type->getNumElements();
  if (type->getRank() != 1 ||
      count != std::max<int64_t>(
                   0, static_cast<int64_t>(std::ceil((*end - *start) / *step))))
    return nodeError(node, aten)
           << "result " << *type << " does not match range ["
           << formatNumber(*start) << ", " << formatNumber(*end)
           << ") with step " << formatNumber(*step);
  SmallVector<Attribute> elements;
  elements.reserve(count);
  for (int64_t i = 0; i < count; ++i)
    elements.push_back(elementAttr(elementType, *start + i * *step));
  return bindOutputs(node, aten,
                     Value(builder.create<edge::ConstantOp>(
                         loc, DenseElementsAttr::get(*type, elements))));
}

} // namespace etch::torch_import
