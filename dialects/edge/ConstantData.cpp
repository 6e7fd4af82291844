#include "edge/ConstantData.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"

#include <cstddef>
#include <cstring>

using namespace mlir;

namespace etch::edge {

/// Bytes per element of an integer/float type; i1 is stored as one byte.
static int64_t storageBytes(Type elementType) {
  return std::max<int64_t>(1, (elementType.getIntOrFloatBitWidth() + 7) / 8);
}

std::optional<ArrayRef<char>> getConstantBytes(ElementsAttr value,
                                               SmallVectorImpl<char> &storage) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  int64_t elementBytes = storageBytes(type.getElementType());
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    ArrayRef<char> data = blob->getData();
    if (static_cast<int64_t>(data.size()) !=
        type.getNumElements() * elementBytes)
      return std::nullopt;
    return data;
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return std::nullopt;
  if (type.getElementType().isInteger(1)) {
    storage.clear();
    for (bool bit : dense.getValues<bool>())
      storage.push_back(bit ? 1 : 0);
    return ArrayRef<char>(storage);
  }
  ArrayRef<char> raw = dense.getRawData();
  if (!dense.isSplat())
    return raw;
  storage.clear();
  storage.reserve(type.getNumElements() * elementBytes);
  for (int64_t i = 0; i < type.getNumElements(); ++i)
    storage.append(raw.begin(), raw.begin() + elementBytes);
  return ArrayRef<char>(storage);
}

std::optional<SmallVector<float>> getFloatValues(ElementsAttr value) {
  if (!value.getElementType().isF32())
    return std::nullopt;
  SmallVector<char> storage;
  std::optional<ArrayRef<char>> bytes = getConstantBytes(value, storage);
  if (!bytes)
    return std::nullopt;
  SmallVector<float> values(bytes->size() / sizeof(float));
  std::memcpy(values.data(), bytes->data(), values.size() * sizeof(float));
  return values;
}

std::optional<SmallVector<float>> getConstantFloats(Value value) {
  ElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  return getFloatValues(attr);
}

template <typename T>
static void appendAll(ArrayRef<char> bytes, SmallVectorImpl<double> &out) {
  for (size_t i = 0; i + sizeof(T) <= bytes.size(); i += sizeof(T)) {
    T element;
    std::memcpy(&element, bytes.data() + i, sizeof(T));
    out.push_back(static_cast<double>(element));
  }
}

std::optional<SmallVector<double>> getConstantNumbers(Value value) {
  ElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  SmallVector<char> storage;
  std::optional<ArrayRef<char>> bytes = getConstantBytes(attr, storage);
  if (!bytes)
    return std::nullopt;
  Type element = attr.getElementType();
  SmallVector<double> numbers;
  if (element.isF32())
    appendAll<float>(*bytes, numbers);
  else if (element.isF64())
    appendAll<double>(*bytes, numbers);
  else if (element.isInteger(64))
    appendAll<int64_t>(*bytes, numbers);
  else if (element.isInteger(32))
    appendAll<int32_t>(*bytes, numbers);
  else if (element.isUnsignedInteger(8))
    appendAll<uint8_t>(*bytes, numbers);
  else if (element.isInteger(8))
    appendAll<int8_t>(*bytes, numbers);
  else
    return std::nullopt;
  return numbers;
}

/// \p nameHint as a resource key MLIR prints bare and parses back (an
/// ONNX initializer such as "onnx::Conv_692" is not one).
static std::string resourceKey(StringRef nameHint) {
  std::string key = nameHint.str();
  for (char &c : key)
    if (!llvm::isAlnum(c) && c != '_' && c != '.' && c != '$')
      c = '_';
  if (key.empty() || llvm::isDigit(key.front()))
    key.insert(key.begin(), '_');
  return key;
}

ElementsAttr makeConstantFromBytes(RankedTensorType type, ArrayRef<char> bytes,
                                   StringRef nameHint) {
  if (type.getNumElements() <= kInlineConstantLimit &&
      !type.getElementType().isInteger(1))
    return DenseElementsAttr::getFromRawBuffer(type, bytes);
  if (type.getElementType().isInteger(1)) {
    SmallVector<bool> bits;
    for (char byte : bytes)
      bits.push_back(byte != 0);
    return DenseElementsAttr::get(type, bits);
  }
  int64_t alignment = storageBytes(type.getElementType());
  AsmResourceBlob blob =
      HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignment);
  auto &manager =
      DenseResourceElementsHandle::getManagerInterface(type.getContext());
  return DenseResourceElementsAttr::get(
      type, manager.insert(resourceKey(nameHint), std::move(blob)));
}

ElementsAttr makeConstantFromOwnedBytes(RankedTensorType type,
                                        std::string bytes, StringRef nameHint) {
  if (type.getNumElements() <= kInlineConstantLimit ||
      type.getElementType().isInteger(1))
    return makeConstantFromBytes(
        type, ArrayRef<char>(bytes.data(), bytes.size()), nameHint);
  auto *owned = new std::string(std::move(bytes));
  // operator new aligns to at least 16 bytes, enough for any element type.
  AsmResourceBlob blob(
      ArrayRef<char>(owned->data(), owned->size()), alignof(std::max_align_t),
      [owned](void *, size_t, size_t) { delete owned; },
      /*dataIsMutable=*/false);
  auto &manager =
      DenseResourceElementsHandle::getManagerInterface(type.getContext());
  return DenseResourceElementsAttr::get(
      type, manager.insert(resourceKey(nameHint), std::move(blob)));
}

ElementsAttr makeFloatConstant(RankedTensorType type, ArrayRef<float> values,
                               StringRef nameHint) {
  ArrayRef<char> bytes(reinterpret_cast<const char *>(values.data()),
                       values.size() * sizeof(float));
  return makeConstantFromBytes(type, bytes, nameHint);
}

} // namespace etch::edge
