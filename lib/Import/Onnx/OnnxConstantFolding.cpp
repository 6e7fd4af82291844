//===- OnnxConstantFolding.cpp - Evaluate shape arithmetic at import ------===//
//
// Exporters compute slice bounds and reshape targets from Shape through small
// integer subgraphs (Gather, Unsqueeze, Concat, Div, ...). When every input
// is already a constant, the importer evaluates such a node into a new
// constant instead of emitting ops that would need dynamic shapes.
//
//===----------------------------------------------------------------------===//
#include "OnnxImporter.h"

#include <cstring>

namespace etch::onnx_import {
namespace {

constexpr int64_t kMaxFoldedElements = 1024;

/// A small integer tensor: row-major values plus dims.
struct IntTensor {
  std::vector<int64_t> dims;
  std::vector<int64_t> values;
};

bool isInteger(OnnxDataType type) {
  return type == OnnxDataType::Int64 || type == OnnxDataType::Int32;
}

/// Shape arithmetic reads integers and the masks Equal makes of them.
bool isFoldable(OnnxDataType type) {
  return isInteger(type) || type == OnnxDataType::Bool;
}

OnnxTensor toTensor(const IntTensor &input, const std::string &name,
                    OnnxDataType type) {
  OnnxTensor tensor;
  tensor.name = name;
  tensor.elementType = type;
  tensor.dims = input.dims;
  for (int64_t value : input.values) {
    if (type == OnnxDataType::Int32) {
      int32_t narrow = static_cast<int32_t>(value);
      tensor.bytes.append(reinterpret_cast<const char *>(&narrow), 4);
    } else if (type == OnnxDataType::Bool) {
      tensor.bytes.push_back(value != 0 ? 1 : 0);
    } else {
      tensor.bytes.append(reinterpret_cast<const char *>(&value), 8);
    }
  }
  return tensor;
}

int64_t normalize(int64_t index, int64_t extent) {
  return index < 0 ? index + extent : index;
}

/// \p fn over inputs that are scalars or of one shape (what shape arithmetic
/// uses; no general broadcasting); false when they are neither.
template <typename Fn>
bool elementwise(const std::vector<IntTensor> &inputs, IntTensor &result,
                 Fn fn) {
  // The result takes the dims of the largest input, and among one-element
  // inputs the highest rank: Sub(rank, [1]) is [rank - 1], not a scalar.
  size_t n = 0;
  for (const IntTensor &input : inputs)
    if (input.values.size() > n ||
        (input.values.size() == n && input.dims.size() > result.dims.size())) {
      n = input.values.size();
      result.dims = input.dims;
    }
  for (const IntTensor &input : inputs)
    if (input.values.size() != n && input.values.size() != 1)
      return false;
  std::vector<int64_t> operands(inputs.size());
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < inputs.size(); ++k)
      operands[k] = inputs[k].values[inputs[k].values.size() == 1 ? 0 : i];
    std::optional<int64_t> value = fn(operands);
    if (!value)
      return false;
    result.values.push_back(*value);
  }
  return true;
}

} // namespace

bool OnnxImporter::foldConstantNode(const OnnxNode &node) {
  static const char *kFoldable[] = {
      "Gather", "Unsqueeze", "Squeeze", "Concat", "Add",     "Sub",
      "Mul",    "Div",       "Cast",    "Slice",  "Reshape", "Equal",
      "Where",  "Neg",       "Max",     "Min",    "Range",   "ConstantOfShape"};
  if (std::none_of(std::begin(kFoldable), std::end(kFoldable),
                   [&](const char *op) { return node.opType == op; }) ||
      node.outputs.size() != 1 || node.inputs.empty())
    return false;
  std::vector<IntTensor> inputs;
  OnnxDataType type = OnnxDataType::Undefined;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i].empty()) {
      inputs.push_back({});
      continue;
    }
    const OnnxTensor *tensor = constantInput(node, i);
    if (!tensor || !isFoldable(tensor->elementType) ||
        tensor->numElements() > kMaxFoldedElements)
      return false;
    std::optional<std::vector<int64_t>> values = constantInts(*tensor);
    if (!values)
      return false;
    if (i == 0)
      type = tensor->elementType;
    inputs.push_back({tensor->dims, *values});
  }
  const IntTensor &x = inputs[0];
  IntTensor result;
  const std::string &op = node.opType;
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" ||
      op == "Equal") {
    if (inputs.size() != 2 || !isInteger(type))
      return false;
    if (op == "Equal")
      type = OnnxDataType::Bool;
    auto apply = [&](const std::vector<int64_t> &v) -> std::optional<int64_t> {
      int64_t a = v[0], b = v[1];
      if (op == "Div" && b == 0)
        return std::nullopt;
      return op == "Add"   ? a + b
             : op == "Sub" ? a - b
             : op == "Mul" ? a * b
             : op == "Div" ? a / b
                           : int64_t(a == b);
    };
    if (!elementwise(inputs, result, apply))
      return false;
  } else if (op == "Neg" || op == "Max" || op == "Min") {
    if (!isInteger(type) || (op == "Neg" && inputs.size() != 1))
      return false;
    auto apply = [&](const std::vector<int64_t> &v) -> std::optional<int64_t> {
      if (op == "Neg")
        return -v[0];
      return op == "Max" ? *std::max_element(v.begin(), v.end())
                         : *std::min_element(v.begin(), v.end());
    };
    if (!elementwise(inputs, result, apply))
      return false;
  } else if (op == "Range") {
    // Positions from sizes: Range(0, Gather(Shape(x)), 1).
    if (inputs.size() != 3 || !isInteger(type))
      return false;
    for (const IntTensor &input : inputs)
      if (input.values.size() != 1)
        return false;
    int64_t start = x.values[0], limit = inputs[1].values[0],
            delta = inputs[2].values[0];
    if (delta == 0)
      return false;
    int64_t count = std::max<int64_t>(
        (limit - start + delta - (delta > 0 ? 1 : -1)) / delta, 0);
    if (count > kMaxFoldedElements)
      return false;
    for (int64_t i = 0; i < count; ++i)
      result.values.push_back(start + i * delta);
    result.dims = {count};
  } else if (op == "Where") {
    // condition ? x : y, typed as x.
    const OnnxTensor *chosen = constantInput(node, 1);
    if (inputs.size() != 3 || !chosen || !isInteger(chosen->elementType))
      return false;
    type = chosen->elementType;
    if (!elementwise(
            inputs, result,
            [](const std::vector<int64_t> &v) -> std::optional<int64_t> {
              return v[0] ? v[1] : v[2];
            }))
      return false;
  } else if (op == "ConstantOfShape") {
    auto value = node.attributes.find("value");
    if (value == node.attributes.end() ||
        !isInteger(value->second.t.elementType) || x.dims.size() != 1)
      return false;
    std::optional<std::vector<int64_t>> fill = constantInts(value->second.t);
    int64_t count = 1;
    for (int64_t extent : x.values)
      count *= extent >= 0 ? extent : kMaxFoldedElements + 1;
    if (!fill || fill->size() != 1 || count > kMaxFoldedElements)
      return false;
    type = value->second.t.elementType;
    result.dims = x.values;
    result.values.assign(count, fill->front());
  } else if (op == "Gather") {
    if (inputs.size() != 2 || x.dims.size() != 1 ||
        intAttr(node, "axis", 0) != 0)
      return false;
    result.dims = inputs[1].dims;
    for (int64_t index : inputs[1].values) {
      index = normalize(index, x.values.size());
      if (index < 0 || index >= static_cast<int64_t>(x.values.size()))
        return false;
      result.values.push_back(x.values[index]);
    }
  } else if (op == "Unsqueeze" || op == "Squeeze") {
    std::vector<int64_t> axes =
        intsAttr(node, "axes")
            .value_or(inputs.size() > 1 ? inputs[1].values
                                        : std::vector<int64_t>());
    result = x;
    if (op == "Unsqueeze") {
      int64_t rank = x.dims.size() + axes.size();
      for (int64_t &axis : axes)
        axis = normalize(axis, rank);
      std::sort(axes.begin(), axes.end());
      for (int64_t axis : axes) {
        if (axis < 0 || axis > static_cast<int64_t>(result.dims.size()))
          return false;
        result.dims.insert(result.dims.begin() + axis, 1);
      }
    } else {
      std::vector<int64_t> dims;
      for (size_t d = 0; d < x.dims.size(); ++d) {
        bool listed = axes.empty()
                          ? x.dims[d] == 1
                          : std::count(axes.begin(), axes.end(), d) ||
                                std::count(axes.begin(), axes.end(),
                                           int64_t(d) - int64_t(x.dims.size()));
        if (!listed)
          dims.push_back(x.dims[d]);
      }
      result.dims = dims;
    }
  } else if (op == "Concat") {
    for (const IntTensor &input : inputs) {
      if (input.dims.size() != 1)
        return false;
      result.values.insert(result.values.end(), input.values.begin(),
                           input.values.end());
    }
    result.dims = {static_cast<int64_t>(result.values.size())};
  } else if (op == "Cast") {
    OnnxDataType to = static_cast<OnnxDataType>(intAttr(node, "to", 0));
    if (!isInteger(to))
      return false;
    result = x;
    type = to;
  } else if (op == "Slice") {
    if (x.dims.size() != 1 || inputs.size() < 3)
      return false;
    int64_t extent = x.values.size();
    int64_t start = std::clamp<int64_t>(
        normalize(inputs[1].values.at(0), extent), 0, extent);
    int64_t end = std::clamp<int64_t>(normalize(inputs[2].values.at(0), extent),
                                      0, extent);
    int64_t step = inputs.size() > 4 && !inputs[4].values.empty()
                       ? inputs[4].values[0]
                       : 1;
    if (step != 1)
      return false;
    for (int64_t i = start; i < end; ++i)
      result.values.push_back(x.values[i]);
    result.dims = {static_cast<int64_t>(result.values.size())};
  } else if (op == "Reshape") {
    if (inputs.size() != 2)
      return false;
    result.values = x.values;
    result.dims = inputs[1].values;
    int64_t count = 1;
    for (int64_t dim : result.dims)
      count *= dim;
    if (count != static_cast<int64_t>(x.values.size()))
      return false;
  }
  auto folded =
      std::make_unique<OnnxTensor>(toTensor(result, node.outputs[0], type));
  constants[node.outputs[0]] = folded.get();
  ownedConstants.push_back(std::move(folded));
  return true;
}

} // namespace etch::onnx_import
