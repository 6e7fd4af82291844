//===- TorchProductOps.cpp - Products the training IR keeps whole ---------===//
//
//   baddbmm -> bmm, scaled and added to self
//   einsum -> permutes, sums and bmm (../Einsum.h, shared with ONNX)
//
//===----------------------------------------------------------------------===//
#include "TorchImporter.h"

#include "../Einsum.h"
#include "edge/EdgeDialect.h"
#include "edge/EdgeTypeUtils.h"

using namespace mlir;

namespace etch::torch_import {
namespace {

LogicalResult importBaddbmm(TorchNode &node) {
  // baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
  // beta * self + alpha * (batch1 @ batch2); with beta = 0 self is not
  // read at all (its NaNs do not propagate), as in ATen.
  Value self = node.self(), lhs = node.tensor("batch1"),
        rhs = node.tensor("batch2");
  if (!self || !lhs || !rhs)
    return node.error() << "needs tensors 'self', 'batch1' and 'batch2'";
  double beta = node.number("beta").value_or(1.0),
         alpha = node.number("alpha").value_or(1.0);
  if ((node.has("beta") && !node.number("beta")) ||
      (node.has("alpha") && !node.number("alpha")))
    return node.error() << "needs constant 'beta' and 'alpha'";
  FailureOr<Value> product = node.build<edge::BmmOp>(lhs, rhs);
  if (failed(product))
    return failure();
  Type element = edge::rankedType(*product).getElementType();
  if (alpha != 1.0)
    product = node.build<edge::MulOp>(*product, node.scalar(element, alpha));
  if (failed(product) || beta == 0.0)
    return node.bind(product);
  FailureOr<Value> base =
      beta == 1.0 ? FailureOr<Value>(self)
                  : node.build<edge::MulOp>(self, node.scalar(element, beta));
  if (failed(base))
    return failure();
  return node.bind(node.build<edge::AddOp>(
      *base, *product, node.builder().getF64FloatAttr(1.0)));
}

LogicalResult importEinsum(TorchNode &node) {
  // einsum(equation, tensors, path=None): the path is only an evaluation
  // order hint.
  const TorchArgument *equation = node.arg("equation");
  std::optional<SmallVector<Value>> operands = node.tensors("tensors");
  if (!equation || equation->kind != TorchArgument::Kind::String ||
      equation->strings.empty() || !operands ||
      llvm::is_contained(*operands, Value()))
    return node.error() << "needs an equation string and a list of tensors";
  return node.bind(buildEinsum(node.edge(), node.loc(),
                               equation->strings.front(), *operands));
}

} // namespace

void addProductHandlers(TorchOpHandlers &handlers) {
  handlers["aten::baddbmm"] = importBaddbmm;
  handlers["aten::einsum"] = importEinsum;
}

} // namespace etch::torch_import
