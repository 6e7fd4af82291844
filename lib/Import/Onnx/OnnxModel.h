//===- OnnxModel.h - An ONNX graph as plain C++ data ------------*- C++ -*-===//
//
// The protobuf/libonnx side of the ONNX importer produces this neutral form,
// so that the MLIR side never includes protobuf (which needs RTTI and
// exceptions that the MLIR side is built without).
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_LIB_IMPORT_ONNX_ONNXMODEL_H
#define ETCH_LIB_IMPORT_ONNX_ONNXMODEL_H

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace etch::onnx_import {

/// ONNX TensorProto.DataType values the importer understands.
enum class OnnxDataType : int32_t {
  Undefined = 0,
  Float = 1,
  Uint8 = 2,
  Int8 = 3,
  Uint16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Double = 11,
  Uint32 = 12,
  Uint64 = 13,
  BFloat16 = 16,
};

/// Element type and shape of a value; dims are -1 where unknown or symbolic.
struct OnnxValueType {
  OnnxDataType elementType = OnnxDataType::Undefined;
  std::vector<int64_t> dims;
  bool hasShape = false;
};

/// A tensor with its data as little-endian bytes in row-major order.
struct OnnxTensor {
  std::string name;
  OnnxDataType elementType = OnnxDataType::Undefined;
  std::vector<int64_t> dims;
  std::string bytes;

  /// The element count, or -1 when a dim is negative or the product
  /// overflows (dims come from the file).
  int64_t numElements() const {
    int64_t count = 1;
    for (int64_t dim : dims)
      if (dim < 0 || __builtin_mul_overflow(count, dim, &count))
        return -1;
    return count;
  }
};

struct OnnxGraph;

struct OnnxAttribute {
  enum class Kind {
    Float,
    Int,
    String,
    Tensor,
    Floats,
    Ints,
    Strings,
    Graph,
    Other
  };
  Kind kind = Kind::Other;
  float f = 0;
  int64_t i = 0;
  std::string s;
  OnnxTensor t;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  /// A subgraph (If's branches, Loop's and Scan's body).
  std::shared_ptr<const OnnxGraph> graph;
};

struct OnnxNode {
  std::string opType;
  std::string domain;
  std::string name;
  std::vector<std::string> inputs; // "" marks an omitted optional input
  std::vector<std::string> outputs;
  std::map<std::string, OnnxAttribute> attributes;
};

/// The opsets of the default domain the importer reads directly; older ones
/// are converted to the oldest of these at load.
constexpr int64_t kOldestImportedOpset = 13;
constexpr int64_t kNewestImportedOpset = 17;

struct OnnxGraph {
  std::string name;
  int64_t opsetVersion = 0;       // of the default (ai.onnx) domain
  int64_t convertedFromOpset = 0; // the file's opset when it was converted
  std::vector<std::pair<std::string, OnnxValueType>> inputs; // no initializers
  std::vector<std::pair<std::string, OnnxValueType>> outputs;
  std::vector<OnnxTensor> initializers;
  std::vector<OnnxNode> nodes;
  std::map<std::string, OnnxValueType> valueTypes; // from shape inference
  /// A subgraph's formal inputs in order (initializers included); the top
  /// graph lists its runtime inputs in `inputs` instead.
  std::vector<std::string> formalInputs;
};

/// Reads and shape-infers the model at \p path. On failure returns
/// std::nullopt and sets \p error to a message naming the problem.
std::optional<OnnxGraph> loadOnnxModel(const std::string &path,
                                       std::string &error);
/// The same for a serialized model already in memory; external data is
/// looked up in \p modelDir.
std::optional<OnnxGraph> loadOnnxModelFromBytes(const std::string &bytes,
                                                const std::string &modelDir,
                                                std::string &error);

/// Bytes per element of \p type, 0 for types without a fixed size.
int64_t onnxElementSize(OnnxDataType type);
/// ONNX's name of \p type ("float", "uint16", ...), for messages.
const char *onnxTypeName(OnnxDataType type);

} // namespace etch::onnx_import

#endif // ETCH_LIB_IMPORT_ONNX_ONNXMODEL_H
