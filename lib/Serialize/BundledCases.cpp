//===- BundledCases.cpp - Test cases stored in the program ----------------===//
#include "BundledCases.h"

#include "runtime/program/FileHeader.h"
#include "runtime/schema/bundled_generated.h"

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

FailureOr<NamedData> bundledCasesData(ModuleOp module,
                                      const std::vector<BundledCase> &cases) {
  namespace fb = flatbuffers;
  fb::FlatBufferBuilder fbb;
  auto tensors = [&](const std::vector<BundledTensor> &list) {
    std::vector<fb::Offset<schema::BundledTensor>> entries;
    for (const BundledTensor &tensor : list) {
      fbb.ForceVectorAlignment(tensor.bytes.size(), 1, 16);
      auto data = fbb.CreateVector(
          reinterpret_cast<const uint8_t *>(tensor.bytes.data()),
          tensor.bytes.size());
      entries.push_back(
          schema::CreateBundledTensor(fbb, static_cast<uint8_t>(tensor.type),
                                      fbb.CreateVector(tensor.shape), data));
    }
    return fbb.CreateVector(entries);
  };
  std::vector<fb::Offset<schema::BundledCase>> entries;
  for (const BundledCase &each : cases) {
    auto func = module.lookupSymbol<func::FuncOp>(each.method);
    if (!func || func.isExternal())
      return module.emitError("bundled case '")
             << each.name << "' is for method '" << each.method
             << "', which the program does not have";
    if (failed(checkBundledCase(func, each)))
      return failure();
    auto inputs = tensors(each.inputs);
    auto expected = tensors(each.expected);
    entries.push_back(schema::CreateBundledCase(
        fbb, fbb.CreateString(each.name), fbb.CreateString(each.method), inputs,
        expected));
  }
  schema::FinishBundledCasesBuffer(
      fbb, schema::CreateBundledCases(fbb, fbb.CreateVector(entries)));
  return NamedData{
      runtime::kBundledCasesName,
      std::string(reinterpret_cast<const char *>(fbb.GetBufferPointer()),
                  fbb.GetSize())};
}

} // namespace etch
