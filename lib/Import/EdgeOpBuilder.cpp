#include "EdgeOpBuilder.h"

#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;

namespace etch {

FailureOr<Value> EdgeOpBuilder::create(Location loc, StringRef opName,
                                       ValueRange operands,
                                       ArrayRef<NamedAttribute> attributes) {
  // Create with a placeholder result type, then infer the real one through
  // the op's InferTypeOpInterface.
  OperationState state(loc, opName);
  state.addOperands(operands);
  state.addAttributes(attributes);
  state.addTypes(builder.getNoneType());
  return createFromState(state);
}

FailureOr<Value> EdgeOpBuilder::createFromState(OperationState &state) {
  Location loc = state.location;
  StringRef opName = state.name.getStringRef();
  Operation *op = builder.create(state);
  // Inference reads attributes and operands, so missing or malformed ones
  // must be caught first. The placeholder result type fails the result
  // checks too: those are ignored here (inference decides the type).
  std::string attributeProblem;
  {
    ScopedDiagnosticHandler capture(op->getContext(), [&](Diagnostic &diag) {
      std::string message = diag.str();
      bool aboutInputs = message.find("attribute") != std::string::npos ||
                         message.find("operand") != std::string::npos;
      if (attributeProblem.empty() && aboutInputs &&
          message.find("result") == std::string::npos)
        attributeProblem = message;
      return success();
    });
    // The placeholder result type always fails a check, whose diagnostic
    // would print the op and so number the whole function around it: every
    // op created would cost the function's size (an unrolled loop's import
    // ran minutes). The message alone is what is read here.
    MLIRContext *context = op->getContext();
    bool printsOp = context->shouldPrintOpOnDiagnostic();
    context->printOpOnDiagnostic(false);
    // Trait checks (operand counts) come first, then the ODS constraints.
    (void)op->getName().getRegisteredInfo()->verifyInvariants(op);
    context->printOpOnDiagnostic(printsOp);
  }
  if (!attributeProblem.empty()) {
    op->erase();
    return emitError(loc) << errorContext
                          << attributeProblem; // already names the op
  }
  auto inference = dyn_cast<InferTypeOpInterface>(op);
  if (!inference) {
    op->erase();
    return emitError(loc) << errorContext << "internal: " << opName
                          << " does not infer its result type";
  }
  SmallVector<Type> types;
  std::string inferenceProblem;
  LogicalResult inferred = failure();
  {
    ScopedDiagnosticHandler capture(op->getContext(), [&](Diagnostic &diag) {
      if (inferenceProblem.empty())
        inferenceProblem = diag.str();
      return success();
    });
    inferred = inference.inferReturnTypes(
        op->getContext(), loc, op->getOperands(), op->getAttrDictionary(),
        op->getPropertiesStorage(), op->getRegions(), types);
  }
  if (failed(inferred)) {
    op->erase();
    return emitError(loc) << errorContext
                          << (inferenceProblem.empty()
                                  ? "'" + opName.str() +
                                        "' op cannot infer its result type"
                                  : inferenceProblem);
  }
  if (types.size() != op->getNumResults()) {
    // Made with one placeholder result: again with every inferred one
    // (topk, sort).
    OperationState again(loc, op->getName());
    again.addOperands(op->getOperands());
    again.addAttributes(op->getAttrDictionary().getValue());
    again.addTypes(types);
    Operation *made = builder.create(again);
    op->erase();
    return verified(made);
  }
  for (auto [result, type] : llvm::zip(op->getResults(), types))
    result.setType(type);
  // Inference computes the types; checks of operands that do not shape the
  // result live in the op's verifier, which must reach the user here, with
  // the node's context, as an inference error does.
  return verified(op);
}

Operation *EdgeOpBuilder::createCustom(Location loc, StringRef opName,
                                       ValueRange operands,
                                       TypeRange resultTypes,
                                       ArrayRef<NamedAttribute> attributes,
                                       UnmappedOperators &unmapped) {
  auto custom = builder.create<edge::CustomOp>(
      loc, resultTypes, builder.getStringAttr(opName), operands);
  for (const NamedAttribute &attribute : attributes)
    custom->setAttr(attribute.getName(), attribute.getValue());
  unmapped.note(opName);
  return custom;
}

Value EdgeOpBuilder::constantFromBytes(Location loc, RankedTensorType type,
                                       ArrayRef<char> bytes, StringRef name) {
  return builder.create<edge::ConstantOp>(
      loc, edge::makeConstantFromBytes(type, bytes, name));
}

FailureOr<Value> EdgeOpBuilder::verified(Operation *op) {
  std::string problem;
  {
    ScopedDiagnosticHandler capture(op->getContext(), [&](Diagnostic &diag) {
      if (problem.empty())
        problem = diag.str();
      return success();
    });
    // The message alone is read: printing the op would number its function.
    MLIRContext *context = op->getContext();
    bool printsOp = context->shouldPrintOpOnDiagnostic();
    context->printOpOnDiagnostic(false);
    LogicalResult verifiedOp = mlir::verify(op, /*verifyRecursively=*/false);
    context->printOpOnDiagnostic(printsOp);
    if (succeeded(verifiedOp))
      return op->getResult(0);
  }
  Location loc = op->getLoc();
  op->erase();
  return emitError(loc) << errorContext << problem;
}

FailureOr<Value> EdgeOpBuilder::quantize(Location loc, Value input,
                                         quant::QuantizedType quantized) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getElementType() != quantized.getExpressedType())
    return emitError(loc) << errorContext << "quantizes " << type
                          << ", expected a tensor of "
                          << quantized.getExpressedType();
  return verified(builder.create<edge::QuantizeOp>(loc, type.clone(quantized),
                                                   input));
}

FailureOr<Value> EdgeOpBuilder::dequantize(Location loc, Value input,
                                           quant::QuantizedType quantized) {
  auto type = cast<RankedTensorType>(input.getType());
  auto quantizedType = type.clone(quantized);
  if (type.getElementType() == quantized) {
    // Already quantized this way (the quantize it follows).
  } else if (edge::isQuantized(type)) {
    return emitError(loc) << errorContext << "dequantizes " << type
                          << " with different parameters: " << quantized;
  } else if (auto constant = input.getDefiningOp<edge::ConstantOp>();
             constant && type == edge::storageTensorType(quantizedType)) {
    auto quantizedConstant = builder.create<edge::ConstantOp>(
        constant.getLoc(), quantizedType, constant.getValue());
    FailureOr<Value> checked = verified(quantizedConstant);
    if (failed(checked))
      return failure();
    input = *checked;
  } else {
    return emitError(loc)
           << errorContext << "dequantizes " << type << " as " << quantized
           << "; expected a quantize result or a constant of "
           << edge::storageTensorType(quantizedType);
  }
  return verified(builder.create<edge::DequantizeOp>(
      loc, type.clone(quantized.getExpressedType()), input));
}

Value EdgeOpBuilder::scalarConstant(Location loc, Type elementType,
                                    double value) {
  auto type = RankedTensorType::get({}, elementType);
  Attribute element;
  if (isa<FloatType>(elementType))
    element = builder.getFloatAttr(elementType, value);
  else
    element = builder.getIntegerAttr(elementType, static_cast<int64_t>(value));
  return builder.create<edge::ConstantOp>(
      loc, DenseElementsAttr::get(type, element));
}

InFlightDiagnostic EdgeOpBuilder::error(Location loc) const {
  return emitError(loc) << errorContext;
}

void UnmappedOperators::report(Location loc) const {
  for (const auto &[name, count] : counts)
    emitWarning(loc) << "'" << name << "' imported as edge.custom (" << count
                     << (count == 1 ? " time)" : " times)");
}

void UnmappedOperators::forget(StringRef name) {
  auto it = counts.find(name.str());
  if (it != counts.end() && --it->second == 0)
    counts.erase(it);
}

void eraseUnreadCustoms(Operation *root, UnmappedOperators &unmapped) {
  // Post-order, last op first: a custom read only by an unread custom goes
  // after its reader.
  root->walk<WalkOrder::PostOrder, ReverseIterator>([&](Operation *op) {
    auto custom = dyn_cast<edge::CustomOp>(op);
    if (!custom || !op->use_empty())
      return;
    unmapped.forget(custom.getOpName());
    op->erase();
  });
}

} // namespace etch
