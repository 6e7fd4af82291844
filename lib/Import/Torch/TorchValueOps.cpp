//===- TorchValueOps.cpp - Identities, casts and elementwise rewrites -----===//
//
// Ops that keep their input (clone, dropout in eval, asserts), dtype
// conversions, and elementwise ATen ops expressed with other Edge ops:
// rsub, masked_fill, clamp_min/max, relu6, diff, bitwise ops on bools,
// floor_divide, copy, cumsum with a dtype, advanced indexing and
// masked_select, sym_size.
//
//===----------------------------------------------------------------------===//
#include "TorchImporter.h"

#include "edge/EdgeDialect.h"
#include "edge/EdgeTypeUtils.h"

using namespace mlir;

namespace etch::torch_import {
namespace {

using Kind = TorchArgument::Kind;

Type elementTypeOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

LogicalResult importIdentity(TorchNode &node) {
  if (node.aten() == "aten::dropout" || node.aten() == "aten::feature_dropout" ||
      node.aten() == "aten::alpha_dropout")
    if (node.boolean("train").value_or(false))
      return node.error() << "dropout in training mode (export the model "
                             "after model.eval())";
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor input";
  return node.bind(input);
}

LogicalResult importToCopy(TorchNode &node) {
  // _to_copy / to.dtype / to.device / to.dtype_layout / to.other / type_as:
  // the recorded result dtype says what the conversion is.
  Value input = node.self();
  FailureOr<RankedTensorType> result = node.outputType();
  if (!input)
    return node.error() << "needs a tensor input";
  if (failed(result))
    return failure();
  return node.bind(node.castTo(input, result->getElementType()));
}

LogicalResult importRsub(TorchNode &node) {
  // rsub(self, other, alpha) = other - alpha * self.
  Value input = node.self();
  const TorchArgument *other = node.arg("other");
  if (!input || !other)
    return node.error() << "needs tensor 'self' and 'other'";
  FailureOr<RankedTensorType> result = node.outputType();
  if (failed(result))
    return failure();
  Type type = result->getElementType();
  Value minuend = node.tensor("other");
  if (!minuend) {
    // Bool Scalars are not accepted for rsub's operands.
    std::optional<double> value =
        other->kind == Kind::Bool ? std::nullopt : other->scalarValue();
    if (!value)
      return node.error() << "'other' must be a tensor or a constant scalar, "
                             "got "
                          << other->unionKey;
    minuend = node.scalar(type, *value);
  }
  std::optional<double> alpha = 1.0;
  if (const TorchArgument *a = node.arg("alpha"); a && a->kind != Kind::None)
    alpha = a->kind == Kind::Bool ? std::nullopt : a->scalarValue();
  if (!alpha)
    return node.error() << "'alpha' must be a constant scalar";
  FailureOr<Value> lhs = node.castTo(minuend, type),
                   rhs = node.castTo(input, type);
  if (failed(lhs) || failed(rhs))
    return failure();
  return node.bind(node.build<edge::SubOp>(
      *lhs, *rhs, node.builder().getF64FloatAttr(*alpha)));
}

LogicalResult importMaskedFill(TorchNode &node) {
  // masked_fill(self, mask, value) = where(mask, value, self); value is a
  // Scalar or a 0-d tensor.
  Value input = node.self(), mask = node.tensor("mask");
  if (!input || !mask)
    return node.error() << "needs tensors 'self' and 'mask'";
  Type type = elementTypeOf(input);
  Value fill = node.tensor("value");
  if (!fill) {
    std::optional<double> value = node.number("value");
    if (!value)
      return node.error() << "needs a constant or tensor 'value'";
    fill = node.scalar(type, *value);
  }
  FailureOr<Value> filled = node.castTo(fill, type);
  FailureOr<Value> condition = node.castTo(
      mask, IntegerType::get(node.builder().getContext(), 1));
  if (failed(filled) || failed(condition))
    return failure();
  return node.bind(node.build<edge::WhereOp>(*condition, *filled, input));
}

LogicalResult importClampBound(TorchNode &node) {
  // clamp_min(self, min) / clamp_max(self, max); relu6(self).
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor input";
  Builder &b = node.builder();
  if (node.aten() == "aten::relu6")
    return node.bind(node.build<edge::HardtanhOp>(input, b.getF64FloatAttr(0.0),
                                                  b.getF64FloatAttr(6.0)));
  bool lower = node.aten().starts_with("aten::clamp_min");
  if (Value tensorBound = node.tensor(lower ? "min" : "max")) {
    // clamp_min.Tensor / clamp_max.Tensor: maximum / minimum in the
    // result's type.
    FailureOr<RankedTensorType> result = node.outputType();
    if (failed(result))
      return failure();
    FailureOr<Value> x = node.castTo(input, result->getElementType());
    FailureOr<Value> y = node.castTo(tensorBound, result->getElementType());
    if (failed(x) || failed(y))
      return failure();
    return node.bind(lower ? node.build<edge::MaximumOp>(*x, *y)
                           : node.build<edge::MinimumOp>(*x, *y));
  }
  std::optional<double> bound = node.number(lower ? "min" : "max");
  if (!bound)
    return node.error() << "needs a constant scalar bound";
  FloatAttr attr = b.getF64FloatAttr(*bound);
  return node.bind(node.build<edge::ClampOp>(input, lower ? attr : FloatAttr(),
                                             lower ? FloatAttr() : attr));
}

LogicalResult importDiff(TorchNode &node) {
  // diff(self, n=1, dim=-1, prepend=None, append=None): n times
  // x[1:] - x[:-1] along dim, after joining prepend and append.
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor input";
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  int64_t n = node.integer("n").value_or(1);
  int64_t dim = node.integer("dim").value_or(-1);
  if (dim < 0)
    dim += rank;
  if (n < 0 || dim < 0 || dim >= rank)
    return node.error() << "needs n >= 0 and a dim within rank " << rank;
  Builder &b = node.builder();
  SmallVector<Value> parts;
  if (Value prepend = node.tensor("prepend"))
    parts.push_back(prepend);
  parts.push_back(input);
  if (Value append = node.tensor("append"))
    parts.push_back(append);
  Value current = input;
  if (parts.size() > 1) {
    FailureOr<Value> joined = node.build<edge::CatOp>(parts, dim);
    if (failed(joined))
      return failure();
    current = *joined;
  }
  for (int64_t i = 0; i < n; ++i) {
    FailureOr<Value> next = node.build<edge::SliceOp>(
        current, Value(), dim, b.getI64IntegerAttr(1), IntegerAttr(), 1);
    FailureOr<Value> previous = node.build<edge::SliceOp>(
        current, Value(), dim, b.getI64IntegerAttr(0), b.getI64IntegerAttr(-1), 1);
    if (failed(next) || failed(previous))
      return failure();
    // Bools differ by xor (torch's diff of bools is logical_xor).
    FailureOr<Value> difference =
        elementTypeOf(current).isInteger(1)
            ? node.build<edge::LogicalXorOp>(*next, *previous)
            : node.build<edge::SubOp>(*next, *previous, b.getF64FloatAttr(1));
    if (failed(difference))
      return failure();
    current = *difference;
  }
  return node.bind(current);
}

LogicalResult importBitwise(TorchNode &node) {
  // On bools, bitwise and/or/xor/not (and Python's &, |, ^, ~) are the
  // logical ops.
  StringRef aten = node.aten();
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor input";
  bool isBool = elementTypeOf(input).isInteger(1);
  Value other = node.tensor("other");
  if (other)
    isBool &= elementTypeOf(other).isInteger(1);
  else if (const TorchArgument *scalar = node.arg("other"))
    isBool &= scalar->kind == Kind::Bool;
  if (!isBool)
    return node.error() << "bitwise ops are supported on bool tensors only";
  if (aten == "aten::bitwise_not")
    return node.bind(node.build<edge::LogicalNotOp>(input));
  if (!other)
    other = node.scalar(elementTypeOf(input),
                        node.number("other").value_or(0.0));
  if (aten == "aten::bitwise_and" || aten == "aten::__and__")
    return node.bind(node.build<edge::LogicalAndOp>(input, other));
  if (aten == "aten::bitwise_or" || aten == "aten::__or__")
    return node.bind(node.build<edge::LogicalOrOp>(input, other));
  return node.bind(node.build<edge::LogicalXorOp>(input, other));
}

LogicalResult importFloorDivide(TorchNode &node) {
  // floor_divide(self, other) = div(self, other, rounding_mode="floor").
  node.args().emplace_back("rounding_mode", TorchArgument{});
  TorchArgument &mode = node.args().back().second;
  mode.kind = Kind::String;
  mode.unionKey = "as_string";
  mode.strings = {"floor"};
  return node.importAs("aten::div");
}

LogicalResult importCopy(TorchNode &node) {
  // copy(self, src): src broadcast to self's shape and converted to its
  // dtype (the functional form of copy_, which writes buffers).
  Value target = node.self(), source = node.tensor("src");
  if (!target || !source)
    return node.error() << "needs tensors 'self' and 'src'";
  auto type = cast<RankedTensorType>(target.getType());
  FailureOr<Value> converted = node.castTo(source, type.getElementType());
  if (failed(converted))
    return failure();
  if (converted->getType() == type)
    return node.bind(*converted);
  return node.bind(node.build<edge::ExpandOp>(
      *converted, ValueRange(), node.builder().getDenseI64ArrayAttr(type.getShape())));
}

LogicalResult importSoftplus(TorchNode &node) {
  // softplus(self, beta=1, threshold=20): log1p(exp(beta x)) / beta, and x
  // itself where beta x > threshold, as ATen.
  Value input = node.self();
  std::optional<double> beta =
      node.has("beta") ? node.number("beta") : std::optional<double>(1.0);
  std::optional<double> threshold = node.has("threshold")
                                        ? node.number("threshold")
                                        : std::optional<double>(20.0);
  if (!input || !beta || !threshold)
    return node.error() << "needs a tensor and constant beta and threshold";
  Type element = edge::rankedType(input).getElementType();
  FailureOr<Value> scaled =
      *beta == 1.0
          ? FailureOr<Value>(input)
          : node.build<edge::MulOp>(input, node.scalar(element, *beta));
  if (failed(scaled))
    return failure();
  FailureOr<Value> grown = node.build<edge::ExpOp>(*scaled);
  if (failed(grown))
    return failure();
  FailureOr<Value> soft = node.build<edge::Log1pOp>(*grown);
  if (succeeded(soft) && *beta != 1.0)
    soft = node.build<edge::DivOp>(*soft, node.scalar(element, *beta),
                                   StringAttr());
  FailureOr<Value> linear =
      node.build<edge::GtOp>(*scaled, node.scalar(element, *threshold));
  if (failed(soft) || failed(linear))
    return failure();
  return node.bind(node.build<edge::WhereOp>(*linear, input, *soft));
}

LogicalResult importCumsum(TorchNode &node) {
  // cumsum(self, dim, dtype=None): with a dtype, the input is converted
  // first (so the sum runs in that type). Edge sums integers in i64; a
  // narrower integer dtype (MoE routers count tokens in int32) takes the
  // low bits, which are what a sum in that type would wrap to.
  Value input = node.self();
  std::optional<int64_t> dim = node.integer("dim");
  FailureOr<RankedTensorType> result = node.outputType();
  if (!input || !dim)
    return node.error() << "needs a tensor and a constant dim";
  if (failed(result))
    return failure();
  if (node.has("dtype")) {
    FailureOr<Value> converted =
        node.castTo(input, result->getElementType());
    if (failed(converted))
      return failure();
    input = *converted;
  }
  FailureOr<Value> sums = node.build<edge::CumsumOp>(input, *dim);
  if (failed(sums))
    return failure();
  return node.bind(node.castTo(*sums, result->getElementType()));
}

std::optional<std::pair<SmallVector<Value>, SmallVector<int64_t>>>
presentIndices(TorchNode &node, ArrayRef<Value> indices);

LogicalResult importIndex(TorchNode &node) {
  // index.Tensor(self, indices: Tensor?[]): None entries leave a dimension
  // whole; bool masks select through nonzero (a data-dependent shape).
  Value input = node.self();
  std::optional<SmallVector<Value>> indices = node.tensors("indices");
  if (!input || !indices)
    return node.error() << "needs a tensor and a list of index tensors";
  auto present = presentIndices(node, *indices);
  if (!present)
    return failure();
  if (present->first.empty())
    return node.bind(input);
  return node.bind(node.build<edge::IndexOp>(
      input, present->first,
      node.builder().getDenseI64ArrayAttr(present->second)));
}

/// The present (non-None) index tensors of an `indices` list and the dims
/// they index, a bool mask as the coordinates where it holds; std::nullopt
/// after an error.
std::optional<std::pair<SmallVector<Value>, SmallVector<int64_t>>>
presentIndices(TorchNode &node, ArrayRef<Value> indices) {
  SmallVector<Value> present;
  SmallVector<int64_t> dims;
  int64_t dim = 0; // a mask of rank k covers k dims
  for (auto [position, index] : llvm::enumerate(indices)) {
    if (!index) {
      ++dim;
      continue;
    }
    Type type = elementTypeOf(index);
    if (!type.isInteger(1) && !type.isInteger(8)) {
      present.push_back(index);
      dims.push_back(dim++);
      continue;
    }
    // A mask selects where it holds: nonzero's columns index the dims it
    // covers (a data-dependent count, planned at the mask's size).
    int64_t maskRank = cast<RankedTensorType>(index.getType()).getRank();
    if (maskRank == 0) {
      node.error() << "indexes with a 0-d bool mask (index " << position
                   << "), which is not supported";
      return std::nullopt;
    }
    FailureOr<Value> where = node.build<edge::NonzeroOp>(index);
    if (failed(where))
      return std::nullopt;
    Builder &b = node.builder();
    for (int64_t column = 0; column < maskRank; ++column) {
      FailureOr<Value> coordinates = node.build<edge::SelectOp>(
          *where, b.getI64IntegerAttr(1), b.getI64IntegerAttr(column));
      if (failed(coordinates))
        return std::nullopt;
      present.push_back(*coordinates);
      dims.push_back(dim++);
    }
  }
  return std::make_pair(present, dims);
}

/// masked_select(self, mask): self[mask] once both broadcast to one shape,
/// the selected values in row-major order (as many as the mask holds).
LogicalResult importMaskedSelect(TorchNode &node) {
  Value input = node.self(), mask = node.tensor("mask");
  if (!input || !mask)
    return node.error() << "needs tensors 'self' and 'mask'";
  RankedTensorType inputType = edge::rankedType(input),
                   maskType = edge::rankedType(mask);
  SmallVector<int64_t> shape;
  if (!edge::broadcastShapes(inputType.getShape(), maskType.getShape(), shape))
    return node.error() << "self " << inputType << " and mask " << maskType
                        << " do not broadcast";
  if (shape.empty())
    shape.push_back(1); // 0-d: one element, selected or not
  Builder &b = node.builder();
  auto broadcast = [&](Value value) -> FailureOr<Value> {
    if (edge::rankedType(value).getShape() == ArrayRef<int64_t>(shape))
      return value;
    if (ShapedType::isDynamicShape(shape))
      return node.error() << "needs static shapes where self " << inputType
                          << " and mask " << maskType << " broadcast";
    return node.build<edge::ExpandOp>(value, ValueRange(),
                                      b.getDenseI64ArrayAttr(shape));
  };
  FailureOr<Value> condition = node.castTo(mask, b.getI1Type());
  if (failed(condition))
    return failure();
  FailureOr<Value> values = broadcast(input), flags = broadcast(*condition);
  if (failed(values) || failed(flags))
    return failure();
  auto present = presentIndices(node, {*flags});
  if (!present)
    return failure();
  return node.bind(node.build<edge::IndexOp>(
      *values, present->first, b.getDenseI64ArrayAttr(present->second)));
}

/// index_put(self, indices, values, accumulate): edge.index_put.
LogicalResult importIndexPut(TorchNode &node) {
  Value input = node.self(), values = node.tensor("values");
  std::optional<SmallVector<Value>> indices = node.tensors("indices");
  if (!input || !values || !indices)
    return node.error() << "needs self, a list of index tensors and values";
  auto present = presentIndices(node, *indices);
  if (!present)
    return failure();
  if (present->first.empty())
    return node.error() << "needs at least one index tensor";
  FailureOr<Value> cast = node.castTo(values, elementTypeOf(input));
  if (failed(cast))
    return failure();
  Builder &b = node.builder();
  return node.bind(node.build<edge::IndexPutOp>(
      input, *cast, present->first, b.getDenseI64ArrayAttr(present->second),
      node.boolean("accumulate").value_or(false)));
}

/// scatter(self, dim, index, src | value[, reduce]), scatter_add and
/// scatter_reduce.two (include_self): edge.scatter; a scalar value is
/// broadcast to index's shape first.
LogicalResult importScatter(TorchNode &node) {
  Value input = node.self(), index = node.tensor("index");
  std::optional<int64_t> dim = node.integer("dim");
  if (!input || !index || !dim)
    return node.error() << "needs self, a constant dim and an index tensor";
  Type element = elementTypeOf(input);
  Value src = node.tensor("src");
  if (!src) {
    std::optional<double> value = node.number("value");
    auto indexType = cast<RankedTensorType>(index.getType());
    if (!value || !indexType.hasStaticShape())
      return node.error() << "needs a src tensor, or a constant value and an "
                             "index of static shape";
    FailureOr<Value> filled = node.build<edge::ExpandOp>(
        node.scalar(element, *value), ValueRange{},
        node.builder().getDenseI64ArrayAttr(indexType.getShape()));
    if (failed(filled))
      return failure();
    src = *filled;
  }
  FailureOr<Value> cast = node.castTo(src, element);
  if (failed(cast))
    return failure();
  // torch's names for the ways to combine: edge.scatter's reduce.
  std::string reduce = "none";
  if (node.aten().starts_with("aten::scatter_add")) // and scatter_add_
    reduce = "add";
  if (const TorchArgument *given = node.arg("reduce");
      given && given->kind == Kind::String) {
    StringRef name = given->strings.front();
    reduce = name == "sum" || name == "add"         ? "add"
             : name == "prod" || name == "multiply" ? "multiply"
             : name == "amax" || name == "amin"     ? name.str()
                                                    : "";
    if (reduce.empty())
      return node.error() << "reduce '" << name
                          << "' is not supported (sum/add, prod/multiply, "
                             "amax, amin)";
  }
  if (!node.boolean("include_self").value_or(true))
    return node.error() << "include_self=False is not supported";
  Builder &b = node.builder();
  return node.bind(node.build<edge::ScatterOp>(
      input, b.getI64IntegerAttr(*dim), index, *cast, b.getStringAttr(reduce)));
}

/// index_copy(self, dim, index, source): source's slices along dim land at
/// the positions `index` lists (index_put on that one dim); index_add sums
/// them in (scaled by alpha), index_fill writes one value.
LogicalResult importIndexCopy(TorchNode &node) {
  StringRef aten = node.aten();
  bool add = aten.starts_with("aten::index_add"),
       fill = aten.starts_with("aten::index_fill");
  Value input = node.self(), index = node.tensor("index"),
        source = node.tensor("source");
  std::optional<int64_t> dim = node.integer("dim");
  if (fill && input) {
    source = node.tensor("value");
    if (std::optional<double> value = node.number("value"); !source && value)
      source = node.scalar(elementTypeOf(input), *value);
  }
  if (!input || !index || !source || !dim)
    return node.error() << "needs self, a constant dim, index and "
                        << (fill ? "value" : "source");
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  int64_t d = *dim < 0 ? *dim + rank : *dim;
  if (d < 0 || d >= rank)
    return node.error() << "dim " << *dim << " is out of range";
  FailureOr<Value> converted = node.castTo(source, elementTypeOf(input));
  if (failed(converted))
    return failure();
  double alpha = node.number("alpha").value_or(1.0);
  if (add && alpha != 1.0)
    converted = node.build<edge::MulOp>(
        *converted, node.scalar(elementTypeOf(input), alpha));
  if (failed(converted))
    return failure();
  Builder &b = node.builder();
  return node.bind(node.build<edge::IndexPutOp>(
      input, *converted, ValueRange{index}, b.getDenseI64ArrayAttr({d}), add));
}

LogicalResult importSymSize(TorchNode &node) {
  // sym_size(self, dim) defines a symbolic int: a constant when that dim is
  // static, else the run-time size (edge.sym_size).
  Value input = node.self();
  std::optional<int64_t> dim = node.integer("dim");
  std::optional<std::string> name = node.outputSymbol();
  if (!input || !dim || !name)
    return node.error() << "malformed sym_size node";
  auto type = cast<RankedTensorType>(input.getType());
  int64_t d = *dim < 0 ? *dim + type.getRank() : *dim;
  if (d < 0 || d >= type.getRank())
    return node.error() << "dim " << *dim << " is out of range for " << type;
  if (!type.isDynamicDim(d)) {
    node.defineSymbol(*name, type.getDimSize(d));
    return success();
  }
  FailureOr<Value> size = node.build<edge::SymSizeOp>(input, d);
  if (failed(size))
    return failure();
  node.defineSymbolValue(*name, *size);
  return success();
}

/// Python operators on symbolic ints (_operator.mul, sym_max, ...): folded
/// when every operand is known, else Edge arithmetic on 0-d i64 values.
/// Comparisons of symbolic ints (what torch's runtime assertions test):
/// a known bool when both sides are known, else a symbol etch does not
/// evaluate (reading it anywhere but in an assertion is an error).
LogicalResult importSymbolicComparison(TorchNode &node) {
  std::optional<std::string> name = node.outputSymbol();
  SmallVector<const TorchArgument *> operands;
  for (const auto &[key, arg] : node.args())
    if (arg.kind == Kind::Int)
      operands.push_back(&arg);
  if (!name || operands.size() != 2)
    return node.error() << "needs two int operands and a symbolic bool output";
  std::optional<int64_t> a = operands[0]->ints.front(),
                         b = operands[1]->ints.front();
  if (!a || !b) {
    node.defineSymbol(*name, std::nullopt);
    return success();
  }
  StringRef op = node.aten();
  op.consume_front("_operator.");
  bool holds = op == "eq"   ? *a == *b
               : op == "ne" ? *a != *b
               : op == "lt" ? *a < *b
               : op == "le" ? *a <= *b
               : op == "gt" ? *a > *b
                            : *a >= *b;
  node.defineSymbol(*name, holds ? 1 : 0);
  return success();
}

LogicalResult importSymbolicOperator(TorchNode &node) {
  std::optional<std::string> name = node.outputSymbol();
  if (!name)
    return node.error() << "needs a symbolic int output";
  SmallVector<const TorchArgument *> operands;
  for (const auto &[key, arg] : node.args())
    if (arg.kind == Kind::Int)
      operands.push_back(&arg);
  StringRef op = node.aten();
  op.consume_front("_operator.");
  op.consume_front("torch.");
  bool unary = op == "neg";
  if (operands.size() != (unary ? 1u : 2u))
    return node.error() << "needs " << (unary ? 1 : 2) << " int operands";
  std::optional<int64_t> a = operands[0]->ints.front();
  std::optional<int64_t> b = unary ? 0 : operands[1]->ints.front();
  if (a && b) {
    int64_t result = 0;
    bool overflow = false;
    if (op == "add")
      overflow = __builtin_add_overflow(*a, *b, &result);
    else if (op == "sub")
      overflow = __builtin_sub_overflow(*a, *b, &result);
    else if (op == "mul")
      overflow = __builtin_mul_overflow(*a, *b, &result);
    else if (op == "neg")
      overflow = __builtin_sub_overflow(int64_t(0), *a, &result);
    else if ((op == "floordiv" || op == "mod") && *b != 0 &&
             !(*a == INT64_MIN && *b == -1)) {
      int64_t q = *a / *b - ((*a % *b != 0) && ((*a < 0) != (*b < 0)));
      result = op == "floordiv" ? q : *a - q * *b;
    } else if (op == "sym_max" || op == "sym_min")
      result = op == "sym_max" ? std::max(*a, *b) : std::min(*a, *b);
    else
      return node.error() << "symbolic operator '" << op
                          << "' is not supported";
    if (overflow)
      return node.error() << "overflows int64";
    node.defineSymbol(*name, result);
    return success();
  }
  Value lhs = node.sizeValue(*operands[0], 0);
  Value rhs = unary ? Value() : node.sizeValue(*operands[1], 0);
  if (!lhs || (!unary && !rhs))
    return failure();
  Builder &builder = node.builder();
  FloatAttr one = builder.getF64FloatAttr(1.0);
  FailureOr<Value> result = failure();
  if (op == "add")
    result = node.build<edge::AddOp>(lhs, rhs, one);
  else if (op == "sub")
    result = node.build<edge::SubOp>(lhs, rhs, one);
  else if (op == "mul")
    result = node.build<edge::MulOp>(lhs, rhs);
  else if (op == "neg")
    result = node.build<edge::SubOp>(
        node.scalar(builder.getIntegerType(64), 0), lhs, one);
  else if (op == "floordiv")
    result = node.build<edge::DivOp>(lhs, rhs, builder.getStringAttr("floor"));
  else if (op == "mod")
    result = node.build<edge::RemainderOp>(lhs, rhs);
  else if (op == "sym_max")
    result = node.build<edge::MaximumOp>(lhs, rhs);
  else if (op == "sym_min")
    result = node.build<edge::MinimumOp>(lhs, rhs);
  else
    return node.error() << "symbolic operator '" << op << "' is not supported";
  if (failed(result))
    return failure();
  node.defineSymbolValue(*name, *result);
  return success();
}

} // namespace

void addValueHandlers(TorchOpHandlers &handlers) {
  for (const char *name :
       {"aten::clone", "aten::alias", "aten::detach", "aten::contiguous",
        "aten::lift_fresh_copy", "aten::dropout", "aten::feature_dropout",
        "aten::alpha_dropout", "aten::lift_fresh", "aten::view_copy_identity",
        "aten::resolve_conj", "aten::resolve_neg", "aten::positive"})
    handlers[name] = importIdentity;
  for (const char *name : {"aten::_to_copy", "aten::to", "aten::type_as"})
    handlers[name] = importToCopy;
  handlers["aten::rsub"] = importRsub;
  handlers["aten::masked_fill"] = importMaskedFill;
  for (const char *name : {"aten::clamp_min", "aten::clamp_max", "aten::relu6"})
    handlers[name] = importClampBound;
  handlers["aten::diff"] = importDiff;
  for (const char *name :
       {"aten::bitwise_and", "aten::bitwise_or", "aten::bitwise_xor",
        "aten::bitwise_not", "aten::__and__", "aten::__or__", "aten::__xor__"})
    handlers[name] = importBitwise;
  handlers["aten::floor_divide"] = importFloorDivide;
  handlers["aten::copy"] = importCopy;
  handlers["aten::cumsum"] = importCumsum;
  handlers["aten::softplus"] = importSoftplus;
  handlers["aten::index"] = importIndex;
  handlers["aten::masked_select"] = importMaskedSelect;
  handlers["aten::index_put"] = importIndexPut;
  for (const char *name :
       {"aten::index_copy", "aten::index_add", "aten::index_fill"})
    handlers[name] = importIndexCopy;
  for (const char *name :
       {"aten::scatter", "aten::scatter_add", "aten::scatter_reduce"})
    handlers[name] = importScatter;
  handlers["aten::sym_size"] = importSymSize;
  for (const char *name :
       {"_operator.add", "_operator.sub", "_operator.mul", "_operator.neg",
        "_operator.floordiv", "_operator.mod", "torch.sym_max",
        "torch.sym_min"})
    handlers[name] = importSymbolicOperator;
  for (const char *name : {"_operator.eq", "_operator.ne", "_operator.lt",
                           "_operator.le", "_operator.gt", "_operator.ge"})
    handlers[name] = importSymbolicComparison;
}

} // namespace etch::torch_import
