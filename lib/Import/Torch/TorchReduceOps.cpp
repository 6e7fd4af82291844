//===- TorchReduceOps.cpp - Reductions and norms decomposed in C++ --------===//
//
//   max / min (.dim: values and indices; .default: over everything; .other:
//       elementwise) -> amax/amin + argmax/argmin, maximum/minimum
//   var / std / var_mean / std_mean (dims, correction or unbiased, keepdim)
//       -> mean, sub, mul, sum, div (sqrt)
//   group_norm / native_group_norm -> layer_norm over each group, then the
//       per-channel affine
//   batch norm in training mode (batch statistics; the functional forms'
//       updated running statistics) -> mean, sub, mul, rsqrt
//   topk, sort (.stable), argsort -> topk, sort (two results)
//   linalg_vector_norm / norm (any order p, dims, keepdim, dtype) -> abs,
//       sum (pow, sqrt) or amax/amin; _weight_norm -> v * (g / norm of v)
//   histc -> each value's bin (trunc), compared with every bin, summed
//
//===----------------------------------------------------------------------===//
#include "Formula.h"
#include "TorchImporter.h"

#include "edge/EdgeDialect.h"
#include "edge/EdgeTypeUtils.h"

#include <cmath>

using namespace mlir;

namespace etch::torch_import {
namespace {

LogicalResult importMaxMin(TorchNode &node) {
  bool max = node.aten() == "aten::max";
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor";
  Builder &b = node.builder();
  if (Value other = node.tensor("other"))
    return node.bind(max ? node.build<edge::MaximumOp>(input, other)
                         : node.build<edge::MinimumOp>(input, other));
  std::optional<int64_t> dim = node.integer("dim");
  bool keepdim = node.boolean("keepdim").value_or(false);
  if (!dim) // the whole tensor: one value
    return node.bind(max ? node.build<edge::AmaxOp>(input, DenseI64ArrayAttr(),
                                                    false)
                         : node.build<edge::AminOp>(input, DenseI64ArrayAttr(),
                                                    false));
  DenseI64ArrayAttr dims = b.getDenseI64ArrayAttr({*dim});
  FailureOr<Value> values =
      max ? node.build<edge::AmaxOp>(input, dims, keepdim)
          : node.build<edge::AminOp>(input, dims, keepdim);
  FailureOr<Value> indices =
      max ? node.build<edge::ArgmaxOp>(input, b.getI64IntegerAttr(*dim),
                                       keepdim)
          : node.build<edge::ArgminOp>(input, b.getI64IntegerAttr(*dim),
                                       keepdim);
  if (failed(values) || failed(indices))
    return failure();
  return node.bindEach({*values, *indices});
}

/// var(self, dim, correction, keepdim) / var(self, dim, unbiased, keepdim),
/// and std as its square root: sum((x - mean)^2) / (n - correction).
LogicalResult importVariance(TorchNode &node) {
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor";
  auto type = edge::rankedType(input);
  if (!type.hasStaticShape() || !isa<FloatType>(type.getElementType()))
    return node.error() << "needs a statically shaped float tensor";
  std::optional<SmallVector<int64_t>> dims =
      node.has("dim") ? node.ints("dim") : SmallVector<int64_t>();
  if (!dims)
    return node.error() << "needs constant dims";
  if (dims->empty())
    for (int64_t d = 0; d < type.getRank(); ++d)
      dims->push_back(d);
  double correction = 1.0;
  if (node.has("correction"))
    correction = node.number("correction").value_or(1.0);
  else if (node.has("unbiased"))
    correction = node.boolean("unbiased").value_or(true) ? 1.0 : 0.0;
  bool keepdim = node.boolean("keepdim").value_or(false);
  int64_t count = 1;
  for (int64_t d : *dims) {
    int64_t axis = d < 0 ? d + type.getRank() : d;
    if (axis < 0 || axis >= type.getRank())
      return node.error() << "dim " << d << " is out of range";
    count *= type.getDimSize(axis);
  }
  Builder &b = node.builder();
  DenseI64ArrayAttr dimsAttr = b.getDenseI64ArrayAttr(*dims);
  FailureOr<Value> mean = node.build<edge::MeanOp>(input, dimsAttr, true);
  if (failed(mean))
    return failure();
  FailureOr<Value> centered =
      node.build<edge::SubOp>(input, *mean, b.getF64FloatAttr(1.0));
  if (failed(centered))
    return failure();
  FailureOr<Value> squared = node.build<edge::MulOp>(*centered, *centered);
  if (failed(squared))
    return failure();
  FailureOr<Value> total = node.build<edge::SumOp>(*squared, dimsAttr, keepdim);
  if (failed(total))
    return failure();
  // n - correction <= 0 gives inf or nan, as torch.
  Value divisor = node.scalar(type.getElementType(), count - correction);
  FailureOr<Value> variance =
      node.build<edge::DivOp>(*total, divisor, StringAttr());
  StringRef aten = node.aten();
  bool root = aten.starts_with("aten::std");
  FailureOr<Value> spread = failed(variance) || !root
                                ? variance
                                : node.build<edge::SqrtOp>(*variance);
  if (failed(spread) || !aten.ends_with("_mean"))
    return node.bind(spread);
  // var_mean / std_mean: the mean too, kept dims as keepdim says.
  FailureOr<Value> reported =
      keepdim ? mean : node.build<edge::MeanOp>(input, dimsAttr, false);
  if (failed(reported))
    return failure();
  return node.bindEach({*spread, *reported});
}

/// Batch norm in training mode: each channel normalized with the batch's own
/// mean and biased variance (over every dim but 1), then the affine; the
/// saved mean and 1/std come out as torch's second and third results. The
/// functional forms of the core IR also return the running statistics
/// updated by momentum (the variance unbiased), which the program writes back
/// to its buffers. In eval mode the ops are edge.batch_norm.
LogicalResult importBatchNorm(TorchNode &node) {
  StringRef aten = node.aten();
  bool withUpdate = aten.starts_with("aten::_batch_norm_with_update");
  bool functional = aten.ends_with("_functional");
  if (!node.boolean("training").value_or(withUpdate))
    return node.importAs("aten::batch_norm");
  Value x = node.self();
  Value runningMean = node.tensor("running_mean"),
        runningVar = node.tensor("running_var");
  if (!functional && (runningMean || runningVar))
    return node.error()
           << "batch norm in training mode updates its running statistics in "
              "place; export after model.eval(), or with "
              "run_decompositions(), which makes the updates outputs";
  auto type = x ? edge::rankedType(x) : RankedTensorType();
  if (!type || type.getRank() < 2 || !type.hasStaticShape() ||
      !isa<FloatType>(type.getElementType()))
    return node.error() << "needs a statically shaped float input of rank 2 "
                           "or more";
  int64_t rank = type.getRank(), channels = type.getDimSize(1);
  SmallVector<int64_t> dims = {0};
  for (int64_t d = 2; d < rank; ++d)
    dims.push_back(d);
  int64_t count = type.getNumElements() / std::max<int64_t>(channels, 1);
  double eps = node.number("eps").value_or(1e-5);
  double momentum = node.number("momentum").value_or(0.1);
  Formula f(node);
  DenseI64ArrayAttr over = node.builder().getDenseI64ArrayAttr(dims);
  SmallVector<int64_t> channel(rank, 1);
  channel[1] = channels;
  Value mean = f.op<edge::MeanOp>(x, over, true);
  Value centered = f.sub(x, mean);
  Value variance = f.op<edge::MeanOp>(f.mul(centered, centered), over, true);
  Value rstd = f.op<edge::RsqrtOp>(f.add(variance, f.constant(x, eps)));
  Value result = f.mul(centered, rstd);
  if (Value weight = node.tensor("weight"))
    result = f.mul(result, f.reshape(weight, channel));
  if (Value bias = node.tensor("bias"))
    result = f.add(result, f.reshape(bias, channel));
  SmallVector<Value> results = {result, f.reshape(mean, {channels}),
                                f.reshape(rstd, {channels})};
  if (functional) {
    if (withUpdate)
      results.push_back(Value()); // the reserve space: nothing to hold
    auto updated = [&](Value running, Value batch) {
      Value kept = f.mul(running, f.constant(x, 1.0 - momentum));
      Value added =
          f.mul(f.reshape(batch, {channels}), f.constant(x, momentum));
      return f.add(kept, added);
    };
    double unbias = count > 1 ? double(count) / double(count - 1) : 1.0;
    if (runningMean && runningVar) {
      results.push_back(updated(runningMean, mean));
      results.push_back(
          updated(runningVar, f.mul(variance, f.constant(x, unbias))));
    }
  }
  if (!result)
    return failure();
  return node.bindEach(results);
}

/// group_norm(input, num_groups, weight, bias, eps) and
/// native_group_norm(input, weight, bias, N, C, HxW, group, eps) (its mean
/// and rstd outputs are not produced).
LogicalResult importGroupNorm(TorchNode &node) {
  Value input = node.self();
  std::optional<int64_t> groups = node.has("num_groups")
                                      ? node.integer("num_groups")
                                      : node.integer("group");
  double eps = node.number("eps").value_or(1e-5);
  if (!input || !groups || *groups <= 0)
    return node.error() << "needs a tensor and a constant group count";
  auto type = edge::rankedType(input);
  if (type.getRank() < 2 || type.isDynamicDim(1))
    return node.error() << "needs [N, C, ...] input with a static C";
  int64_t channels = type.getDimSize(1);
  if (channels % *groups)
    return node.error() << channels << " channels do not split into "
                        << *groups << " groups";
  int64_t perGroup = channels / *groups;
  for (int64_t d = 2; d < type.getRank(); ++d) {
    if (type.isDynamicDim(d))
      return node.error() << "needs static spatial dims";
    perGroup *= type.getDimSize(d);
  }
  Builder &b = node.builder();
  int64_t batch = type.isDynamicDim(0) ? -1 : type.getDimSize(0);
  FailureOr<Value> grouped = node.build<edge::ViewOp>(
      input, ValueRange(), b.getDenseI64ArrayAttr({batch, *groups, perGroup}));
  if (failed(grouped))
    return failure();
  FailureOr<Value> normalized = node.build<edge::LayerNormOp>(
      *grouped, b.getDenseI64ArrayAttr({perGroup}), Value(), Value(),
      b.getF64FloatAttr(eps));
  if (failed(normalized))
    return failure();
  SmallVector<int64_t> shape(type.getShape());
  if (type.isDynamicDim(0))
    shape[0] = -1;
  FailureOr<Value> result = node.build<edge::ViewOp>(
      *normalized, ValueRange(), b.getDenseI64ArrayAttr(shape));
  if (failed(result))
    return failure();
  // The per-channel affine: weight and bias as [C, 1, ...].
  SmallVector<int64_t> perChannel(type.getRank() - 1, 1);
  perChannel[0] = channels;
  for (auto [name, isScale] : {std::pair{"weight", true}, {"bias", false}}) {
    Value parameter = node.tensor(name);
    if (!parameter)
      continue;
    FailureOr<Value> shaped = node.build<edge::ViewOp>(
        parameter, ValueRange(), b.getDenseI64ArrayAttr(perChannel));
    if (failed(shaped))
      return failure();
    result = isScale ? node.build<edge::MulOp>(*result, *shaped)
                     : node.build<edge::AddOp>(*result, *shaped,
                                               b.getF64FloatAttr(1.0));
    if (failed(result))
      return failure();
  }
  return node.bind(result);
}

/// prod(self, dtype) over everything and prod.dim_int(self, dim, keepdim,
/// dtype): edge.prod of the recorded result type (torch multiplies
/// integers in int64).
LogicalResult importProd(TorchNode &node) {
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor";
  FailureOr<RankedTensorType> recorded = node.outputType();
  if (failed(recorded))
    return failure();
  FailureOr<Value> cast = node.castTo(input, recorded->getElementType());
  if (failed(cast))
    return failure();
  Builder &b = node.builder();
  std::optional<int64_t> dim = node.integer("dim");
  return node.bind(node.build<edge::ProdOp>(
      *cast, dim ? b.getDenseI64ArrayAttr({*dim}) : DenseI64ArrayAttr(),
      node.boolean("keepdim").value_or(false)));
}

/// _unique2(self, sorted, return_inverse, return_counts) -> (output,
/// inverse with self's shape, counts); torch's sorted=False order is its
/// hash table's, which etch does not reproduce. unique_dim(self, dim, ...)
/// -> (slices, inverse per slice, counts), always sorted.
/// unique_consecutive(self, return_inverse, return_counts, dim=None): the
/// same in order, merging runs of equal neighbours only (CTC decoding).
LogicalResult importUnique(TorchNode &node) {
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor";
  bool consecutive = node.aten() == "aten::unique_consecutive";
  std::optional<int64_t> dim = node.integer("dim");
  bool slices = node.aten() == "aten::unique_dim" || (consecutive && dim);
  if (slices && !dim)
    return node.error() << "needs a constant dim";
  if (!slices && !consecutive && !node.boolean("sorted").value_or(true))
    return node.error() << "sorted=False is not supported (torch's order "
                           "then is its hash table's); use sorted=True";
  Builder &b = node.builder();
  BoolAttr sorted = b.getBoolAttr(!consecutive);
  FailureOr<Value> values =
      slices ? node.build<edge::UniqueDimOp>(input, b.getI64IntegerAttr(*dim),
                                             sorted, b.getBoolAttr(consecutive))
             : node.build<edge::UniqueOp>(input, sorted,
                                          b.getBoolAttr(consecutive));
  if (failed(values))
    return failure();
  Operation *unique = values->getDefiningOp();
  Value inverse;
  if (slices && node.boolean("return_inverse").value_or(false)) {
    inverse = unique->getResult(2);
  } else if (node.boolean("return_inverse").value_or(false)) {
    auto shape = cast<RankedTensorType>(input.getType()).getShape();
    if (ShapedType::isDynamicShape(shape))
      return node.error() << "return_inverse needs a static input shape";
    FailureOr<Value> shaped =
        node.build<edge::ViewOp>(unique->getResult(2), ValueRange(),
                                 node.builder().getDenseI64ArrayAttr(shape));
    if (failed(shaped))
      return failure();
    inverse = *shaped;
  }
  Value counts = node.boolean("return_counts").value_or(false)
                     ? unique->getResult(3)
                     : Value();
  // torch 2.6 records inverse and counts in self's dtype (its meta
  // function's); the graph after them was traced with that type.
  for (auto [index, value] :
       llvm::enumerate(SmallVector<Value *>{&inverse, &counts})) {
    if (!*value)
      continue;
    FailureOr<RankedTensorType> recorded = node.outputType(index + 1);
    if (failed(recorded))
      return failure();
    FailureOr<Value> cast = node.castTo(*value, recorded->getElementType());
    if (failed(cast))
      return failure();
    *value = *cast;
  }
  return node.bindEach({unique->getResult(0), inverse, counts});
}

/// topk(self, k, dim=-1, largest=True, sorted=True) -> (values, indices).
LogicalResult importTopk(TorchNode &node) {
  Value input = node.self();
  std::optional<int64_t> k = node.integer("k");
  if (!input || !k)
    return node.error() << "needs a tensor and a constant k";
  Builder &b = node.builder();
  FailureOr<Value> values = node.build<edge::TopkOp>(
      input, b.getI64IntegerAttr(*k),
      b.getI64IntegerAttr(node.integer("dim").value_or(-1)),
      b.getBoolAttr(node.boolean("largest").value_or(true)),
      b.getBoolAttr(node.boolean("sorted").value_or(true)));
  if (failed(values))
    return failure();
  Operation *topk = values->getDefiningOp();
  return node.bindEach({topk->getResult(0), topk->getResult(1)});
}

/// sort(self, dim=-1, descending=False) and sort.stable(self, *, stable,
/// dim, descending) -> (values, indices); argsort: the indices. Edge's sort
/// is stable, a valid answer to stable=False too.
LogicalResult importSort(TorchNode &node) {
  Value input = node.self();
  if (!input)
    return node.error() << "needs a tensor";
  Builder &b = node.builder();
  FailureOr<Value> values = node.build<edge::SortOp>(
      input, b.getI64IntegerAttr(node.integer("dim").value_or(-1)),
      b.getBoolAttr(node.boolean("descending").value_or(false)));
  if (failed(values))
    return failure();
  Operation *sort = values->getDefiningOp();
  if (node.aten() == "aten::argsort")
    return node.bindEach({sort->getResult(1)});
  return node.bindEach({sort->getResult(0), sort->getResult(1)});
}

/// Every dim of a tensor of \p rank, except \p skip (none when negative).
DenseI64ArrayAttr allDimsBut(TorchNode &node, int64_t rank, int64_t skip) {
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (d != skip)
      dims.push_back(d);
  return node.builder().getDenseI64ArrayAttr(dims);
}

/// (Σ|x|^p)^(1/p) over \p dims: p = ±inf the largest / smallest |x|, p = 0
/// the count of non-zeros, p = 2 as sqrt(Σx²).
FailureOr<Value> vectorNorm(TorchNode &node, Value x, double p,
                            DenseI64ArrayAttr dims, bool keepdim) {
  Type element = edge::rankedType(x).getElementType();
  auto sum = [&](FailureOr<Value> terms) -> FailureOr<Value> {
    if (failed(terms))
      return failure();
    return node.build<edge::SumOp>(*terms, dims, keepdim);
  };
  if (p == 2) {
    FailureOr<Value> total = sum(node.build<edge::MulOp>(x, x));
    if (failed(total))
      return failure();
    return node.build<edge::SqrtOp>(*total);
  }
  if (p == 0) {
    FailureOr<Value> nonzero =
        node.build<edge::NeOp>(x, node.scalar(element, 0.0));
    if (failed(nonzero))
      return failure();
    return sum(node.castTo(*nonzero, element));
  }
  FailureOr<Value> magnitude = node.build<edge::AbsOp>(x);
  if (failed(magnitude))
    return failure();
  if (std::isinf(p))
    return p > 0 ? node.build<edge::AmaxOp>(*magnitude, dims, keepdim)
                 : node.build<edge::AminOp>(*magnitude, dims, keepdim);
  if (p == 1)
    return sum(magnitude);
  FailureOr<Value> total =
      sum(node.build<edge::PowOp>(*magnitude, node.scalar(element, p)));
  if (failed(total))
    return failure();
  return node.build<edge::PowOp>(*total, node.scalar(element, 1.0 / p));
}

LogicalResult importVectorNorm(TorchNode &node) {
  // linalg_vector_norm(self, ord=2, dim=None, keepdim=False, dtype=None) and
  // norm(self, p=2, dim, keepdim, dtype): over `dim`, or every dim when it
  // is None or empty; a dtype converts the input first.
  Value input = node.self();
  FailureOr<RankedTensorType> result = node.outputType();
  if (!input)
    return node.error() << "needs a tensor";
  if (failed(result))
    return failure();
  Type element = result->getElementType();
  if (!isa<FloatType>(element))
    return node.error() << "needs a float result, got " << *result;
  StringRef order = node.arg("ord") ? "ord" : "p";
  std::optional<double> p = node.number(order);
  if (node.has(order) && !p)
    return node.error() << "needs a constant '" << order << "'";
  std::optional<SmallVector<int64_t>> dims =
      node.has("dim") ? node.ints("dim") : SmallVector<int64_t>();
  if (!dims)
    return node.error() << "needs constant dims";
  int64_t rank = edge::rankedType(input).getRank();
  DenseI64ArrayAttr dimsAttr = dims->empty()
                                   ? allDimsBut(node, rank, -1)
                                   : node.builder().getDenseI64ArrayAttr(*dims);
  FailureOr<Value> x = node.castTo(input, element);
  if (failed(x))
    return failure();
  return node.bind(vectorNorm(node, *x, p.value_or(2.0), dimsAttr,
                              node.boolean("keepdim").value_or(false)));
}

LogicalResult importHistc(TorchNode &node) {
  // histc(self, bins=100, min=0, max=0): how many values fall in each of
  // `bins` equal bins over [min, max] (the last bin closed, values outside
  // left out); min = max takes the data's own range, widened by 1 each way
  // when the data is one value. Bin of x: (x - min) * bins / (max - min),
  // truncated, in the input's type, as ATen's CPU kernel.
  Value input = node.self();
  std::optional<int64_t> bins =
      node.has("bins") ? node.integer("bins") : std::optional<int64_t>(100);
  std::optional<double> lo = node.has("min") ? node.number("min") : 0.0,
                        hi = node.has("max") ? node.number("max") : 0.0;
  if (!input || !bins || *bins <= 0 || !lo || !hi)
    return node.error() << "needs a tensor, a positive constant bins and "
                           "constant min and max";
  RankedTensorType type = edge::rankedType(input);
  Type element = type.getElementType();
  if (!isa<FloatType>(element) || !type.hasStaticShape())
    return node.error() << "needs a float tensor of static shape, got " << type;
  if (*lo > *hi)
    return node.error() << "max " << *hi << " is below min " << *lo;
  Builder &b = node.builder();
  Formula f(node);
  Value column = f.reshape(input, {type.getNumElements(), 1});
  Value low = f.constant(element, *lo), high = f.constant(element, *hi);
  if (*lo == *hi) {
    low = f.wholeTensorMin(column);
    high = f.wholeTensorMax(column);
    Value single = f.eq(low, high), one = f.constant(element, 1.0);
    low = f.where(single, f.sub(low, one), low);
    high = f.where(single, f.add(high, one), high);
  }
  Value binCount = f.constant(element, static_cast<double>(*bins));
  Value index = f.op<edge::TruncOp>(
      f.div(f.mul(f.sub(column, low), binCount), f.sub(high, low)));
  // x = max lands on bins itself: the last bin is closed.
  index = f.where(f.eq(index, binCount),
                  f.constant(element, static_cast<double>(*bins - 1)), index);
  SmallVector<Attribute> ids;
  for (int64_t i = 0; i < *bins; ++i)
    ids.push_back(FloatAttr::get(element, static_cast<double>(i)));
  Value binIds = node.builder().create<edge::ConstantOp>(
      node.loc(),
      DenseElementsAttr::get(RankedTensorType::get({1, *bins}, element), ids));
  Value inside = f.both(f.ge(column, low), f.le(column, high));
  Value hits = f.cast(f.both(f.eq(index, binIds), inside), element);
  Value total = f.op<edge::SumOp>(hits, b.getDenseI64ArrayAttr({0}), false);
  if (!total)
    return failure();
  return node.bind(total);
}

LogicalResult importWeightNorm(TorchNode &node) {
  // _weight_norm(v, g, dim=0): v * (g / ||v||), the 2-norm over every dim
  // but `dim` (over all of them for dim = -1), kept as size-1 dims so it
  // broadcasts like g. _weight_norm_interface returns that norm too.
  Value v = node.tensor("v"), g = node.tensor("g");
  std::optional<int64_t> dim = node.integer("dim");
  if (!v || !g || !dim)
    return node.error() << "needs tensors 'v' and 'g' and a constant dim";
  int64_t rank = edge::rankedType(v).getRank();
  int64_t kept = *dim == -1 ? -1 : (*dim < 0 ? *dim + rank : *dim);
  if (kept >= rank || kept < -1)
    return node.error() << "dim " << *dim << " does not fit rank " << rank;
  FailureOr<Value> norm =
      vectorNorm(node, v, 2.0, allDimsBut(node, rank, kept), true);
  if (failed(norm))
    return failure();
  FailureOr<Value> scale = node.build<edge::DivOp>(g, *norm, StringAttr());
  if (failed(scale))
    return failure();
  FailureOr<Value> weight = node.build<edge::MulOp>(v, *scale);
  if (failed(weight))
    return failure();
  if (node.aten() == "aten::_weight_norm_interface")
    return node.bindEach({*weight, *norm});
  return node.bind(weight);
}

} // namespace

void addReduceHandlers(TorchOpHandlers &handlers) {
  handlers["aten::prod"] = importProd;
  handlers["aten::topk"] = importTopk;
  for (const char *name :
       {"aten::_unique2", "aten::unique_dim", "aten::unique_consecutive"})
    handlers[name] = importUnique;
  handlers["aten::sort"] = importSort;
  handlers["aten::argsort"] = importSort;
  handlers["aten::max"] = importMaxMin;
  handlers["aten::min"] = importMaxMin;
  for (const char *name :
       {"aten::var", "aten::std", "aten::var_mean", "aten::std_mean"})
    handlers[name] = importVariance;
  handlers["aten::group_norm"] = importGroupNorm;
  for (const char *name : {"aten::batch_norm", "aten::native_batch_norm",
                           "aten::_native_batch_norm_legit",
                           "aten::_native_batch_norm_legit_functional",
                           "aten::_batch_norm_with_update",
                           "aten::_batch_norm_with_update_functional"})
    handlers[name] = importBatchNorm;
  handlers["aten::native_group_norm"] = importGroupNorm;
  for (const char *name : {"aten::linalg_vector_norm", "aten::norm"})
    handlers[name] = importVectorNorm;
  handlers["aten::histc"] = importHistc;
  for (const char *name :
       {"aten::_weight_norm", "aten::_weight_norm_interface"})
    handlers[name] = importWeightNorm;
}

} // namespace etch::torch_import
