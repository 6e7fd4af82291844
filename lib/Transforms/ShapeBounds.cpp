//===- ShapeBounds.cpp - Upper bounds of dynamic shapes -------------------===//
#include "etch/Transforms/ShapeBounds.h"

#include "edge/EdgeDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

using namespace mlir;
using namespace etch::edge;

namespace etch {
namespace {

bool isDynamic(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && !tensor.hasStaticShape();
}

std::optional<int64_t> scalarOf(Value value) { return constantSize(value); }

/// Integer arithmetic on constant sizes (the ops torch's symbolic sizes
/// become); std::nullopt when \p op is not that.
std::optional<int64_t> evaluateSize(Operation *op) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (op->getNumResults() != 1 || !type || type.getRank() != 0 ||
      !type.getElementType().isInteger(64))
    return std::nullopt;
  if (auto size = dyn_cast<SymSizeOp>(op)) {
    RankedTensorType input = size.getSelf().getType();
    int64_t dim = static_cast<int64_t>(size.getDim());
    if (dim < 0)
      dim += input.getRank();
    if (input.isDynamicDim(dim))
      return std::nullopt;
    return input.getDimSize(dim);
  }
  if (op->getNumOperands() != 2)
    return std::nullopt;
  std::optional<int64_t> a = scalarOf(op->getOperand(0)),
                         b = scalarOf(op->getOperand(1));
  if (!a || !b)
    return std::nullopt;
  int64_t result = 0;
  if (isa<AddOp>(op) && !__builtin_add_overflow(*a, *b, &result))
    return result;
  if (isa<SubOp>(op) && !__builtin_sub_overflow(*a, *b, &result))
    return result;
  if (isa<MulOp>(op) && !__builtin_mul_overflow(*a, *b, &result))
    return result;
  if (isa<MaximumOp>(op))
    return std::max(*a, *b);
  if (isa<MinimumOp>(op))
    return std::min(*a, *b);
  if ((isa<DivOp, RemainderOp>(op)) && *b != 0 &&
      !(*a == INT64_MIN && *b == -1)) {
    int64_t q = *a / *b - ((*a % *b != 0) && ((*a < 0) != (*b < 0)));
    return isa<DivOp>(op) ? q : *a - q * *b;
  }
  return std::nullopt;
}

class BoundsSpecializer {
public:
  explicit BoundsSpecializer(
      llvm::DenseMap<Value, Value> &toOriginal)
      : toOriginal(toOriginal) {}

  LogicalResult run(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (isa<ConstantOp>(op) || op.hasTrait<OpTrait::IsTerminator>())
        continue;
      if (auto delegate = dyn_cast<DelegateOp>(op)) {
        if (failed(runDelegate(delegate)))
          return failure();
        continue;
      }
      if (failed(inferOp(op)))
        return failure();
      if (std::optional<int64_t> size = evaluateSize(&op))
        replaceWithConstant(op, *size);
    }
    return success();
  }

private:
  LogicalResult inferOp(Operation &op) {
    auto inference = dyn_cast<InferTypeOpInterface>(op);
    if (!inference) {
      for (Value result : op.getResults())
        if (isDynamic(result.getType()))
          return op.emitError("cannot bound the dynamic shape of ")
                 << result.getType() << " ('" << op.getName()
                 << "' does not infer its type)";
      return success();
    }
    SmallVector<Type> types;
    if (auto dataDependent = dyn_cast<DataDependentShapeOpInterface>(op)) {
      // Extents the values decide: the largest they can be.
      if (failed(dataDependent.upperBoundTypes(op.getOperandTypes(), types)))
        return op.emitError("cannot bound the data-dependent shape of ")
               << op.getName()
               << " (its operands' shapes are not bounded, or the bound "
                  "does not fit int64)";
    } else if (failed(inference.inferReturnTypes(
                   op.getContext(), op.getLoc(), op.getOperands(),
                   op.getAttrDictionary(), op.getPropertiesStorage(),
                   op.getRegions(), types))) {
      return op.emitError("cannot bound the dynamic shapes: shape inference "
                          "fails at the inputs' largest shapes");
    }
    for (auto [result, type] : llvm::zip(op.getResults(), types)) {
      if (isDynamic(type))
        return op.emitError("cannot bound the dynamic shape of ")
               << result.getType() << " from the inputs' largest shapes";
      result.setType(type);
    }
    return success();
  }

  LogicalResult runDelegate(DelegateOp delegate) {
    Block &body = delegate.getBody().front();
    for (auto [argument, operand] :
         llvm::zip(body.getArguments(), delegate.getOperands()))
      argument.setType(operand.getType());
    if (failed(run(body)))
      return failure();
    for (auto [result, returned] : llvm::zip(
             delegate.getResults(), body.getTerminator()->getOperands()))
      result.setType(returned.getType());
    return success();
  }

  void replaceWithConstant(Operation &op, int64_t value) {
    OpBuilder builder(&op);
    auto type = cast<RankedTensorType>(op.getResult(0).getType());
    Value constant = builder.create<ConstantOp>(
        op.getLoc(), DenseElementsAttr::get(type, APInt(64, value, true)));
    if (Value original = toOriginal.lookup(op.getResult(0)))
      toOriginal[constant] = original;
    op.getResult(0).replaceAllUsesWith(constant);
    op.erase();
  }

  llvm::DenseMap<Value, Value> &toOriginal;
};

} // namespace

FailureOr<llvm::DenseMap<Value, RankedTensorType>>
computeUpperBounds(func::FuncOp func) {
  llvm::DenseMap<Value, RankedTensorType> bounds;
  bool dynamic = false;
  func.walk([&](Operation *op) {
    for (Value result : op->getResults())
      dynamic |= isDynamic(result.getType());
  });
  for (BlockArgument argument : func.getArguments())
    dynamic |= isDynamic(argument.getType());
  if (!dynamic)
    return bounds;

  // Work on a copy whose inputs have their largest shapes.
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(func.getLoc());
  IRMapping mapping;
  auto copy = cast<func::FuncOp>(func->clone(mapping));
  scratch->push_back(copy);
  llvm::DenseMap<Value, Value> toOriginal;
  func.walk([&](Operation *op) {
    for (Value result : op->getResults())
      toOriginal[mapping.lookup(result)] = result;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          toOriginal[mapping.lookup(argument)] = argument;
  });
  for (BlockArgument argument : func.getArguments()) {
    if (!isDynamic(argument.getType()))
      continue;
    auto max = func.getArgAttrOfType<DenseI64ArrayAttr>(
        argument.getArgNumber(), "etch.max_sizes");
    auto type = cast<RankedTensorType>(argument.getType());
    if (!max || max.size() != type.getRank())
      return func.emitError("input #")
             << argument.getArgNumber() << " has the dynamic type " << type
             << " but no bounds (etch.max_sizes)";
    BlockArgument bounded = copy.getArgument(argument.getArgNumber());
    bounded.setType(type.clone(max.asArrayRef()));
    toOriginal[bounded] = argument;
  }
  BoundsSpecializer specializer(toOriginal);
  if (failed(specializer.run(copy.getBody().front())))
    return failure();
  copy.walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (Value original = toOriginal.lookup(result))
        if (isDynamic(original.getType()))
          bounds[original] = cast<RankedTensorType>(result.getType());
  });
  for (BlockArgument argument : copy.getArguments())
    if (Value original = toOriginal.lookup(argument))
      if (isDynamic(original.getType()))
        bounds[original] = cast<RankedTensorType>(argument.getType());
  copy.walk([&](DelegateOp delegate) {
    for (BlockArgument argument : delegate.getBody().getArguments())
      if (Value original = toOriginal.lookup(argument))
        if (isDynamic(original.getType()))
          bounds[original] = cast<RankedTensorType>(argument.getType());
  });
  return bounds;
}

} // namespace etch
