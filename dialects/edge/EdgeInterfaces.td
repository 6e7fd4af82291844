//===- EdgeInterfaces.td - Edge op interfaces --------------*- tablegen -*-===//
#ifndef ETCH_EDGE_INTERFACES_TD
#define ETCH_EDGE_INTERFACES_TD

include "mlir/IR/OpBase.td"

//===----------------------------------------------------------------------===//
// Interfaces
//===----------------------------------------------------------------------===//

def Edge_AtenOpInterface : OpInterface<"AtenOpInterface"> {
  let cppNamespace = "::etch::edge";
  let description = [{
    An Edge op that mirrors one or more ATen operators. The first name is the
    canonical one; further names are ATen operators with the same semantics
    under value semantics (for example `aten::reshape` for `edge.view`).
  }];
  let methods = [
    StaticInterfaceMethod<
      "Comma-separated ATen operator names (without overload) this op mirrors.",
      "::llvm::StringRef", "getAtenNames", (ins)>,
    StaticInterfaceMethod<
      "Comma-separated operand names that torch promotes to one element type "
      "before the op (ATen's type promotion); importers insert the casts.",
      "::llvm::StringRef", "getPromotedOperands", (ins)>,
  ];
}

def Edge_DataDependentShapeOpInterface
    : OpInterface<"DataDependentShapeOpInterface"> {
  let cppNamespace = "::etch::edge";
  let description = [{
    An op whose result extents depend on the values it reads (nonzero): its
    type has dynamic dims whatever its operands' shapes are. The memory plan
    reserves the upper bound; at run time the kernel sets the actual shape
    and the calls after it take it.
  }];
  let methods = [
    InterfaceMethod<
      "The result types at their largest, for operands of static shapes "
      "(failure when an operand shape is dynamic).",
      "::mlir::LogicalResult", "upperBoundTypes",
      (ins "::mlir::TypeRange":$operandTypes,
           "::llvm::SmallVectorImpl<::mlir::Type> &":$types)>,
  ];
}

#endif // ETCH_EDGE_INTERFACES_TD
