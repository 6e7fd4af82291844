//===- BundledCases.cpp - Test cases stored in the program ----------------===//
#include "BundledCases.h"

#include "mlir/IR/BuiltinTypes.h"

#include <string>

using namespace mlir;

namespace etch {

std::optional<runtime::ScalarType> programScalarType(Type type) {
  using runtime::ScalarType;
  if (type.isF32())
    return ScalarType::Float32;
  if (type.isF16())
    return ScalarType::Float16;
  if (type.isF64())
    return ScalarType::Float64;
  if (type.isBF16())
    return ScalarType::BFloat16;
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer)
    return std::nullopt;
  bool isUnsigned = integer.isUnsigned();
  switch (integer.getWidth()) {
  case 1:
    return ScalarType::Bool;
  case 8:
    return isUnsigned ? ScalarType::UInt8 : ScalarType::Int8;
  case 16:
    return isUnsigned ? ScalarType::UInt16 : ScalarType::Int16;
  case 32:
    return isUnsigned ? ScalarType::UInt32 : ScalarType::Int32;
  case 64:
    return isUnsigned ? ScalarType::UInt64 : ScalarType::Int64;
  }
  return std::nullopt;
}

namespace {

std::string shapeText(ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (auto [index, size] : llvm::enumerate(shape))
    text += (index ? ", " : "") + std::to_string(size);
  return text + "]";
}

/// Whether \p tensor can be \p type: dtype, rank, static sizes, bytes.
std::string mismatch(const BundledTensor &tensor, Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked)
    return "the method's value is not a tensor";
  std::optional<runtime::ScalarType> expected =
      programScalarType(ranked.getElementType());
  bool fits = expected && *expected == tensor.type &&
              ranked.getRank() == static_cast<int64_t>(tensor.shape.size());
  size_t elements = 1;
  for (auto [index, size] : llvm::enumerate(tensor.shape)) {
    elements *= static_cast<size_t>(size);
    if (fits && !ranked.isDynamicDim(index) && ranked.getDimSize(index) != size)
      fits = false;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  if (!fits) {
    os << "is " << runtime::scalarTypeName(tensor.type) << " "
       << shapeText(tensor.shape) << ", the method takes " << type;
  } else if (tensor.bytes.size() != elements * elementSize(tensor.type)) {
    os << "holds " << tensor.bytes.size() << " bytes, "
       << elements * elementSize(tensor.type) << " expected";
  }
  return text;
}

} // namespace

LogicalResult checkBundledCase(func::FuncOp func, const BundledCase &bundled) {
  FunctionType signature = func.getFunctionType();
  // Trailing results are mutable buffers' new contents, not outputs.
  auto mutations = func->getAttrOfType<ArrayAttr>("etch.buffer_mutations");
  TypeRange outputs =
      signature.getResults().drop_back(mutations ? mutations.size() : 0);
  auto check = [&](const std::vector<BundledTensor> &tensors, TypeRange types,
                   const char *kind) -> LogicalResult {
    if (tensors.size() != types.size())
      return func.emitError("bundled case '")
             << bundled.name << "': " << tensors.size() << " " << kind
             << "s, method '" << bundled.method << "' has " << types.size();
    for (auto [index, tensor] : llvm::enumerate(tensors)) {
      std::string why = mismatch(tensor, types[index]);
      if (!why.empty())
        return func.emitError("bundled case '")
               << bundled.name << "': " << kind << " " << index << " ('"
               << tensor.origin << "') " << why;
    }
    return success();
  };
  return success(
      succeeded(check(bundled.inputs, signature.getInputs(), "input")) &&
      succeeded(check(bundled.expected, outputs, "output")));
}

} // namespace etch
