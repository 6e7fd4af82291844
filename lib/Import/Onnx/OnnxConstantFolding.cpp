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
    } else {
      tensor.bytes.append(reinterpret_cast<const char *>(&value), 8);
    }
  }
  return tensor;
}

int64_t normalize(int64_t index, int64_t extent) {
  return index < 0 ? index + extent : index;
}

} // namespace

bool OnnxImporter::foldConstantNode(const OnnxNode &node) {
  static const char *kFoldable[] = {"Gather", "Unsqueeze", "Squeeze", "Concat",
                                    "Add",    "Sub",       "Mul",     "Div",
                                    "Cast",   "Slice",     "Reshape"};
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
    if (!tensor || !isInteger(tensor->elementType) ||
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
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    if (inputs.size() != 2)
      return false;
    const IntTensor &y = inputs[1];
    // Scalars and equal-length vectors: what shape arithmetic uses.
    size_t n = std::max(x.values.size(), y.values.size());
    if ((x.values.size() != n && x.values.size() != 1) ||
        (y.values.size() != n && y.values.size() != 1))
      return false;
    result.dims = x.values.size() >= y.values.size() ? x.dims : y.dims;
    for (size_t i = 0; i < n; ++i) {
      int64_t a = x.values[x.values.size() == 1 ? 0 : i];
      int64_t b = y.values[y.values.size() == 1 ? 0 : i];
      if (op == "Div" && b == 0)
        return false;
      result.values.push_back(op == "Add"   ? a + b
                              : op == "Sub" ? a - b
                              : op == "Mul" ? a * b
                                            : a / b);
    }
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
