//===- EdgeBase.td - Edge dialect definition, types, base op -*- tablegen -*-===//
//
// The Edge dialect mirrors the core ATen operator set with value semantics.
// Every op that has an ATen counterpart names its arguments exactly as the
// ATen schema does and carries that ATen name through AtenOpInterface, so the
// importers, the runtime operator table and the docs all key off this file.
//
//===----------------------------------------------------------------------===//

#ifndef ETCH_EDGE_BASE_TD
#define ETCH_EDGE_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "EdgeInterfaces.td"

def Edge_Dialect : Dialect {
  let name = "edge";
  let cppNamespace = "::etch::edge";
  let summary = "Core ATen operators with value semantics";
  let description = [{
    The Edge dialect is what etch's importers produce and what its
    quantization, partitioning and code generation passes consume. Ops mirror
    core ATen operators (`aten::convolution`, `aten::addmm`, ...) with the same
    argument names; tensors are builtin ranked tensors. `edge.custom` keeps any
    operator the dialect does not define yet, so an importer never drops
    information.
  }];
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::quant::QuantizationDialect"];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Edge_Tensor : RankedTensorOf<[AnyType]>;
def Edge_FloatTensor : RankedTensorOf<[AnyFloat]>;
def Edge_NumericTensor
    : RankedTensorOf<[AnyFloat, AnySignlessInteger, AnyUnsignedInteger]>;
// Elements of MLIR's quant dialect: `!quant.uniform` per tensor or per axis.
def Edge_QuantizedElement : Type<CPred<
    "::llvm::isa<::mlir::quant::UniformQuantizedType, "
    "::mlir::quant::UniformQuantizedPerAxisType>($_self)">,
    "uniform quantized type">;
def Edge_QuantizedTensor : RankedTensorOf<[Edge_QuantizedElement]>;
def Edge_IndexTensor : RankedTensorOf<[I32, I64]>;
// Integer storage of quantized values (int8, int4 packed in bytes, ...).
def Edge_IntegerTensor : RankedTensorOf<[AnyInteger]>;
// A size known only at run time (dynamic shapes): a 0-d i64 tensor computed
// from tensor sizes (edge.sym_size and arithmetic on it).
def Edge_SizeTensor : TensorRankOf<[I64], [0]>;

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

// Declarations every Edge op shares: result types are compatible when they
// agree on rank and element type and on every dimension both sides know.
defvar edgeCommonDecls = [{
  static bool isCompatibleReturnTypes(::mlir::TypeRange lhs,
                                      ::mlir::TypeRange rhs) {
    return ::etch::edge::areCompatibleTensorTypes(lhs, rhs);
  }
}];

class Edge_Op<string mnemonic, list<Trait> traits = []>
    : Op<Edge_Dialect, mnemonic, traits> {
  code extraDecls = "";
  // A result-type rule the op shares with its family
  // (dialects/edge/InferenceRules.h, namespace rules): its inferReturnTypes
  // is generated to call rules::<inferRule>(context, location, name,
  // adaptor, types) instead of being written by hand; a rule's template
  // arguments name other rules' parts unqualified ("sameShape<0, AsI1>").
  string inferRule = "";
  // The op also returns where each value came from (sort, max pooling with
  // indices): an i64 tensor of the rule's result shape, appended.
  bit inferIndices = 0;
  // The op's portable kernel (runtime/kernels/portable): validate<Validator>
  // at load and run<Kernel> at execute, registered under the op's name.
  // scripts/generate-kernel-list.py writes the runtime's kernel list
  // (PortableKernels.inc: the registry and the declarations) from these
  // fields. Empty names: the mnemonic in CamelCase (max_pool2d: MaxPool2d).
  // Ops with Edge_DataDependentShapeOpInterface get KernelEntry::
  // shapeFromData.
  bit hasPortableKernel = 1;
  string portableKernel = "";
  string portableValidator = "";
  let extraClassDeclaration = edgeCommonDecls # extraDecls;
  let extraClassDefinition = !if(!empty(inferRule), "",
      "::mlir::LogicalResult $cppClass::inferReturnTypes("
      "::mlir::MLIRContext *context, "
      "std::optional<::mlir::Location> location, Adaptor adaptor, "
      "::llvm::SmallVectorImpl<::mlir::Type> &types) {\n" #
      "  using namespace ::etch::edge::rules;\n" #
      !if(inferIndices,
          "  return appendIndices(context, " # inferRule #
          "(context, location, getOperationName(), adaptor, types), types);\n}\n",
          "  return " # inferRule #
          "(context, location, getOperationName(), adaptor, types);\n}\n"));
}

// An op mirroring ATen operator(s) `aten`; the result type is inferred from
// operands and attributes and checked against the declared one.
class Edge_AtenOp<string mnemonic, string aten, list<Trait> traits = []>
    : Edge_Op<mnemonic, !listconcat(traits,
                                    [Pure, InferTypeOpAdaptor,
                                     Edge_AtenOpInterface])> {
  string atenNames = aten;
  // Operands torch promotes to a common element type ("self,other").
  string promotedOperands = "";
  let extraClassDeclaration = edgeCommonDecls #
      "static ::llvm::StringRef getAtenNames() { return \"" # aten # "\"; }\n" #
      "static ::llvm::StringRef getPromotedOperands() { return \"" #
      promotedOperands # "\"; }\n" #
      extraDecls;
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

// Elementwise float op of one tensor: the result has the operand's type.
class Edge_UnaryFloatOp<string mnemonic, string aten, list<Trait> traits = []>
    : Edge_AtenOp<mnemonic, aten, traits> {
  let portableValidator = "Unary";
  let arguments = (ins Edge_FloatTensor:$self);
  let results = (outs Edge_FloatTensor:$result);
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location>,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      types.push_back(adaptor.getSelf().getType());
      return ::mlir::success();
    }
  }];
}

// Elementwise op of one numeric tensor whose result has the operand's type
// (abs, neg, sign: integers stay integers, as in ATen).
class Edge_UnaryNumericOp<string mnemonic, string aten, list<Trait> traits = []>
    : Edge_AtenOp<mnemonic, aten, traits> {
  let portableValidator = "UnaryNumeric";
  let arguments = (ins Edge_NumericTensor:$self);
  let results = (outs Edge_NumericTensor:$result);
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location>,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      types.push_back(adaptor.getSelf().getType());
      return ::mlir::success();
    }
  }];
}

#endif // ETCH_EDGE_BASE_TD
