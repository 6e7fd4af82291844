//===- OnnxEinsum.cpp - Einsum through the importers' shared builder ------===//
#include "OnnxCompose.h"

#include "../Einsum.h"

using namespace mlir;

namespace etch::onnx_import {

LogicalResult composeEinsum(Compose &c) {
  SmallVector<Value> operands;
  for (size_t i = 0; i < c.node.inputs.size(); ++i) {
    Value value = c.in(i);
    if (!value)
      return failure();
    operands.push_back(value);
  }
  std::string equation = c.importer.stringAttr(c.node, "equation", "");
  FailureOr<Value> result =
      buildEinsum(c.importer.edge, c.loc, equation, operands);
  if (failed(result))
    return failure();
  return c.bind(*result);
}

} // namespace etch::onnx_import
