//===- TorchProductOps.cpp - Products the training IR keeps whole ---------===//
//
//   baddbmm, addbmm, addmv, addr -> the product, scaled and added to self
//   einsum -> permutes, sums and bmm (../Einsum.h, shared with ONNX)
//   dot, vdot, inner, outer / ger, mv, tensordot -> einsum equations
//
//===----------------------------------------------------------------------===//
#include "TorchImporter.h"

#include "../Einsum.h"
#include "edge/EdgeDialect.h"
#include "edge/EdgeTypeUtils.h"

using namespace mlir;

namespace etch::torch_import {
namespace {

/// beta * self + alpha * product, as ATen's add* ops: with beta = 0 self is
/// not read at all (its NaNs do not propagate).
LogicalResult bindScaledSum(TorchNode &node, Value self,
                            FailureOr<Value> product) {
  if ((node.has("beta") && !node.number("beta")) ||
      (node.has("alpha") && !node.number("alpha")))
    return node.error() << "needs constant 'beta' and 'alpha'";
  double beta = node.number("beta").value_or(1.0),
         alpha = node.number("alpha").value_or(1.0);
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

/// The einsum equation contracting dims \p left of a rank-\p a operand with
/// dims \p right of a rank-\p b one, pairwise (tensordot's form): the other
/// dims stay, the first operand's first. std::nullopt when a dim is out of
/// range or paired twice, or the ranks need more than 26 letters.
std::optional<std::string> contractionEquation(int64_t a, int64_t b,
                                               ArrayRef<int64_t> left,
                                               ArrayRef<int64_t> right) {
  if (a + b > 26 || left.size() != right.size())
    return std::nullopt;
  std::string lhs, rhs(b, ' '), output;
  for (int64_t d = 0; d < a; ++d)
    lhs += static_cast<char>('a' + d);
  char next = static_cast<char>('a' + a);
  for (auto [l, r] : llvm::zip(left, right)) {
    int64_t dl = l < 0 ? l + a : l, dr = r < 0 ? r + b : r;
    if (dl < 0 || dl >= a || dr < 0 || dr >= b || rhs[dr] != ' ')
      return std::nullopt;
    rhs[dr] = lhs[dl];
  }
  for (char &letter : rhs)
    if (letter == ' ')
      letter = next++;
  for (char letter : lhs)
    if (!llvm::is_contained(rhs, letter))
      output += letter;
  for (char letter : rhs)
    if (!llvm::is_contained(lhs, letter))
      output += letter;
  return lhs + "," + rhs + "->" + output;
}

/// The einsum equation of a vector or matrix product ATen names, for
/// operands of ranks \p a and \p b; empty when the ranks do not fit.
std::string productEquation(StringRef aten, int64_t a, int64_t b) {
  if ((aten == "aten::dot" || aten == "aten::vdot") && a == 1 && b == 1)
    return "i,i->";
  if ((aten == "aten::outer" || aten == "aten::ger" || aten == "aten::addr") &&
      a == 1 && b == 1)
    return "i,j->ij";
  if ((aten == "aten::mv" || aten == "aten::addmv") && a == 2 && b == 1)
    return "ij,j->i";
  if (aten == "aten::inner" && a >= 1 && b >= 1) // the last dims contract
    return contractionEquation(a, b, {a - 1}, {b - 1}).value_or("");
  return "";
}

/// dot / vdot / inner / outer / ger / mv and addmv / addr: one einsum
/// (real tensors: vdot is dot); addbmm sums its bmm over the batch.
LogicalResult importVectorProduct(TorchNode &node) {
  StringRef aten = node.aten();
  bool scaled = aten.starts_with("aten::add");
  static const llvm::StringMap<std::pair<const char *, const char *>>
      operandNames = {{"aten::addmv", {"mat", "vec"}},
                      {"aten::addr", {"vec1", "vec2"}},
                      {"aten::addbmm", {"batch1", "batch2"}},
                      {"aten::mv", {"self", "vec"}},
                      {"aten::outer", {"self", "vec2"}},
                      {"aten::ger", {"self", "vec2"}},
                      {"aten::dot", {"self", "tensor"}},
                      {"aten::vdot", {"self", "other"}},
                      {"aten::inner", {"self", "other"}}};
  auto names = operandNames.lookup(aten);
  Value lhs = node.tensor(names.first), rhs = node.tensor(names.second);
  Value self = scaled ? node.self() : Value();
  if (!lhs || !rhs || (scaled && !self))
    return node.error() << "needs tensors '" << names.first << "' and '"
                        << names.second << "'" << (scaled ? " and 'self'" : "");
  int64_t a = edge::rankedType(lhs).getRank(),
          b = edge::rankedType(rhs).getRank();
  if (aten == "aten::inner" && (a == 0 || b == 0)) // a scalar scales
    return node.bind(node.build<edge::MulOp>(lhs, rhs));
  std::string equation = aten == "aten::addbmm"
                             ? (a == 3 && b == 3 ? "bij,bjk->ik" : "")
                             : productEquation(aten, a, b);
  if (equation.empty())
    return node.error() << "does not take operands of rank " << a << " and "
                        << b;
  FailureOr<Value> product =
      buildEinsum(node.edge(), node.loc(), equation, {lhs, rhs});
  if (!scaled)
    return node.bind(product);
  return bindScaledSum(node, self, product);
}

/// tensordot(self, other, dims_self, dims_other): the listed dims contract
/// pairwise; the others stay, self's first (one einsum).
LogicalResult importTensordot(TorchNode &node) {
  Value lhs = node.self(), rhs = node.tensor("other");
  std::optional<SmallVector<int64_t>> left = node.ints("dims_self"),
                                      right = node.ints("dims_other");
  if (!lhs || !rhs || !left || !right || left->size() != right->size())
    return node.error() << "needs two tensors and dim lists of one length";
  int64_t a = edge::rankedType(lhs).getRank(),
          b = edge::rankedType(rhs).getRank();
  std::optional<std::string> equation =
      contractionEquation(a, b, *left, *right);
  if (!equation)
    return node.error() << "dims_self and dims_other do not pair dims of "
                           "ranks "
                        << a << " and " << b << " (at most 26 dims in all)";
  return node.bind(buildEinsum(node.edge(), node.loc(), *equation, {lhs, rhs}));
}

LogicalResult importBaddbmm(TorchNode &node) {
  // baddbmm(self, batch1, batch2, *, beta=1, alpha=1).
  Value self = node.self(), lhs = node.tensor("batch1"),
        rhs = node.tensor("batch2");
  if (!self || !lhs || !rhs)
    return node.error() << "needs tensors 'self', 'batch1' and 'batch2'";
  return bindScaledSum(node, self, node.build<edge::BmmOp>(lhs, rhs));
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
  for (const char *name :
       {"aten::dot", "aten::vdot", "aten::inner", "aten::outer", "aten::ger",
        "aten::mv", "aten::addmv", "aten::addr", "aten::addbmm"})
    handlers[name] = importVectorProduct;
  handlers["aten::tensordot"] = importTensordot;
}

} // namespace etch::torch_import
