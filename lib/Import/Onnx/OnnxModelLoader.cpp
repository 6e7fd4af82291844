//===- OnnxModelLoader.cpp - protobuf + libonnx -> OnnxGraph --------------===//
//
// Built with RTTI and exceptions (protobuf and libonnx need them); includes
// no MLIR or LLVM headers.
//
//===----------------------------------------------------------------------===//
#include "OnnxModel.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iterator>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <fstream>
#include <set>
#include <sstream>

namespace etch::onnx_import {

int64_t onnxElementSize(OnnxDataType type) {
  switch (type) {
  case OnnxDataType::Float:
  case OnnxDataType::Int32:
  case OnnxDataType::Uint32:
    return 4;
  case OnnxDataType::Uint8:
  case OnnxDataType::Int8:
  case OnnxDataType::Bool:
    return 1;
  case OnnxDataType::Uint16:
  case OnnxDataType::Int16:
  case OnnxDataType::Float16:
  case OnnxDataType::BFloat16:
    return 2;
  case OnnxDataType::Int64:
  case OnnxDataType::Double:
  case OnnxDataType::Uint64:
    return 8;
  default:
    return 0;
  }
}

const char *onnxTypeName(OnnxDataType type) {
  static const char *const names[] = {
      "undefined", "float",  "uint8",     "int8",       "uint16",  "int16",
      "int32",     "int64",  "string",    "bool",       "float16", "double",
      "uint32",    "uint64", "complex64", "complex128", "bfloat16"};
  auto index = static_cast<size_t>(type);
  return index < std::size(names) ? names[index] : "an unknown element type";
}

namespace {

OnnxValueType convertType(const onnx::TypeProto &type) {
  OnnxValueType result;
  if (!type.has_tensor_type())
    return result;
  const auto &tensor = type.tensor_type();
  result.elementType = static_cast<OnnxDataType>(tensor.elem_type());
  if (tensor.has_shape()) {
    result.hasShape = true;
    for (const auto &dim : tensor.shape().dim())
      result.dims.push_back(dim.has_dim_value() && dim.dim_value() >= 0
                                ? dim.dim_value()
                                : -1);
  }
  return result;
}

template <typename T, typename Field>
void appendValues(std::string &bytes, const Field &field) {
  for (auto value : field) {
    T converted = static_cast<T>(value);
    bytes.append(reinterpret_cast<const char *>(&converted), sizeof(T));
  }
}

/// A non-negative decimal integer, or std::nullopt.
std::optional<int64_t> parseNonNegative(const std::string &text) {
  if (text.empty() || text.size() > 18 ||
      text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoll(text); // cannot throw: at most 18 digits
}

/// Reads an external-data tensor. The location must name a file inside the
/// model's folder (no absolute path, no "..", no symlink out of it), and
/// offset + length must lie inside that file.
bool readExternalData(const onnx::TensorProto &proto,
                      const std::string &modelDir, int64_t expectedBytes,
                      std::string &bytes, std::string &error) {
  std::string location;
  auto fail = [&](const std::string &what) {
    error = "tensor '" + proto.name() + "': external data " + what;
    return false;
  };
  std::optional<int64_t> offset = 0, length;
  for (const auto &entry : proto.external_data()) {
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset" &&
             !(offset = parseNonNegative(entry.value())))
      return fail("offset '" + entry.value() +
                  "' is not a non-negative integer");
    else if (entry.key() == "length" &&
             !(length = parseNonNegative(entry.value())))
      return fail("length '" + entry.value() +
                  "' is not a non-negative integer");
  }
  bool escapes = location.empty() || location.front() == '/';
  for (size_t start = 0; !escapes && start <= location.size();) {
    size_t end = std::min(location.find('/', start), location.size());
    escapes = location.compare(start, end - start, "..") == 0;
    start = end + 1;
  }
  // Resolved paths catch symlinks that lead out of the folder.
  char *folder = realpath(modelDir.c_str(), nullptr);
  char *file = escapes ? nullptr
                       : realpath((modelDir + "/" + location).c_str(), nullptr);
  std::string folderPath = folder ? folder : "", filePath = file ? file : "";
  std::free(folder);
  std::free(file);
  if (escapes || (!filePath.empty() && filePath.rfind(folderPath + "/", 0)))
    return fail("location '" + location +
                "' is not a file inside the model's folder");
  struct stat info;
  if (filePath.empty() || ::stat(filePath.c_str(), &info) != 0 ||
      !S_ISREG(info.st_mode))
    return fail("'" + location + "' cannot be opened");
  int64_t size = length.value_or(expectedBytes);
  if (*offset > info.st_size || size > info.st_size - *offset)
    return fail("'" + location + "' is shorter than offset + length (" +
                std::to_string(info.st_size) + " bytes)");
  std::ifstream stream(filePath, std::ios::binary);
  bytes.resize(size);
  stream.seekg(*offset);
  stream.read(bytes.data(), size);
  if (!stream)
    return fail("'" + location + "' cannot be read");
  return true;
}

/// Fills tensor.bytes from raw_data, the typed repeated fields, or an
/// external file next to the model.
bool convertTensor(const onnx::TensorProto &proto, const std::string &modelDir,
                   OnnxTensor &tensor, std::string &error) {
  tensor.name = proto.name();
  tensor.elementType = static_cast<OnnxDataType>(proto.data_type());
  tensor.dims.assign(proto.dims().begin(), proto.dims().end());
  int64_t elementSize = onnxElementSize(tensor.elementType);
  if (elementSize == 0) {
    error = "tensor '" + proto.name() + "' has unsupported data type " +
            std::to_string(proto.data_type());
    return false;
  }
  int64_t expected = tensor.numElements();
  if (expected < 0 ||
      __builtin_mul_overflow(expected, elementSize, &expected)) {
    error = "tensor '" + proto.name() +
            "' has a negative dimension or too many elements";
    return false;
  }
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    if (!readExternalData(proto, modelDir, expected, tensor.bytes, error))
      return false;
  } else if (proto.has_raw_data()) {
    tensor.bytes = proto.raw_data();
  } else {
    switch (tensor.elementType) {
    case OnnxDataType::Float:
      appendValues<float>(tensor.bytes, proto.float_data());
      break;
    case OnnxDataType::Double:
      appendValues<double>(tensor.bytes, proto.double_data());
      break;
    case OnnxDataType::Int64:
      appendValues<int64_t>(tensor.bytes, proto.int64_data());
      break;
    case OnnxDataType::Uint64:
    case OnnxDataType::Uint32:
      if (tensor.elementType == OnnxDataType::Uint64)
        appendValues<uint64_t>(tensor.bytes, proto.uint64_data());
      else
        appendValues<uint32_t>(tensor.bytes, proto.uint64_data());
      break;
    case OnnxDataType::Int32:
      appendValues<int32_t>(tensor.bytes, proto.int32_data());
      break;
    case OnnxDataType::Int16:
    case OnnxDataType::Uint16:
    case OnnxDataType::Float16:
    case OnnxDataType::BFloat16:
      appendValues<uint16_t>(tensor.bytes, proto.int32_data());
      break;
    case OnnxDataType::Int8:
    case OnnxDataType::Uint8:
    case OnnxDataType::Bool:
      appendValues<uint8_t>(tensor.bytes, proto.int32_data());
      break;
    default:
      break;
    }
  }
  if (static_cast<int64_t>(tensor.bytes.size()) != expected) {
    error = "tensor '" + proto.name() + "' holds " +
            std::to_string(tensor.bytes.size()) + " bytes, its shape needs " +
            std::to_string(expected);
    return false;
  }
  return true;
}

bool convertNodes(const onnx::GraphProto &proto, const std::string &modelDir,
                  OnnxGraph &graph,
                  std::map<std::string, OnnxValueType> &valueTypes,
                  std::string &error);

/// A subgraph attribute: its formal inputs, outputs, initializers and nodes;
/// its value types join \p valueTypes (names are unique across scopes).
bool convertSubgraph(const onnx::GraphProto &proto, const std::string &modelDir,
                     OnnxGraph &graph,
                     std::map<std::string, OnnxValueType> &valueTypes,
                     std::string &error) {
  graph.name = proto.name();
  for (const auto &initializer : proto.initializer()) {
    OnnxTensor tensor;
    if (!convertTensor(initializer, modelDir, tensor, error))
      return false;
    graph.initializers.push_back(std::move(tensor));
  }
  for (const auto &input : proto.input()) {
    valueTypes[input.name()] = convertType(input.type());
    graph.formalInputs.push_back(input.name());
    graph.inputs.emplace_back(input.name(), convertType(input.type()));
  }
  for (const auto &output : proto.output()) {
    valueTypes[output.name()] = convertType(output.type());
    graph.outputs.emplace_back(output.name(), convertType(output.type()));
  }
  for (const auto &info : proto.value_info())
    valueTypes[info.name()] = convertType(info.type());
  return convertNodes(proto, modelDir, graph, valueTypes, error);
}

bool convertAttribute(const onnx::AttributeProto &proto,
                      const std::string &modelDir, OnnxAttribute &attribute,
                      std::map<std::string, OnnxValueType> &valueTypes,
                      std::string &error) {
  using Kind = OnnxAttribute::Kind;
  switch (proto.type()) {
  case onnx::AttributeProto::FLOAT:
    attribute.kind = Kind::Float;
    attribute.f = proto.f();
    return true;
  case onnx::AttributeProto::INT:
    attribute.kind = Kind::Int;
    attribute.i = proto.i();
    return true;
  case onnx::AttributeProto::STRING:
    attribute.kind = Kind::String;
    attribute.s = proto.s();
    return true;
  case onnx::AttributeProto::TENSOR:
    attribute.kind = Kind::Tensor;
    return convertTensor(proto.t(), modelDir, attribute.t, error);
  case onnx::AttributeProto::FLOATS:
    attribute.kind = Kind::Floats;
    attribute.floats.assign(proto.floats().begin(), proto.floats().end());
    return true;
  case onnx::AttributeProto::INTS:
    attribute.kind = Kind::Ints;
    attribute.ints.assign(proto.ints().begin(), proto.ints().end());
    return true;
  case onnx::AttributeProto::STRINGS:
    attribute.kind = Kind::Strings;
    attribute.strings.assign(proto.strings().begin(), proto.strings().end());
    return true;
  case onnx::AttributeProto::GRAPH: {
    auto graph = std::make_shared<OnnxGraph>();
    if (!convertSubgraph(proto.g(), modelDir, *graph, valueTypes, error))
      return false;
    attribute.kind = Kind::Graph;
    attribute.graph = std::move(graph);
    return true;
  }
  default:
    attribute.kind = Kind::Other;
    return true;
  }
}

bool writeAll(int fd, const std::string &bytes) {
  for (size_t done = 0; done < bytes.size();) {
    ssize_t written = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (written <= 0)
      return false;
    done += static_cast<size_t>(written);
  }
  return true;
}

void listInitializersAsInputs(onnx::GraphProto &graph) {
  std::set<std::string> listed;
  for (const auto &input : graph.input())
    listed.insert(input.name());
  for (const auto &initializer : graph.initializer()) {
    if (listed.count(initializer.name()))
      continue;
    onnx::ValueInfoProto *input = graph.add_input();
    input->set_name(initializer.name());
    auto *tensor = input->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(initializer.data_type());
    for (int64_t dim : initializer.dims())
      tensor->mutable_shape()->add_dim()->set_dim_value(dim);
  }
}

/// Fills value_info (and missing graph output types) by libonnx's shape
/// inference, after converting the model to opset `convertTo` with libonnx's
/// version converter when that is non-zero. Both run in a child process:
/// libonnx trusts its input in places (ranks of a convolution's operands, for
/// one), so a crafted model can make it read out of bounds, and that must end
/// in an error, not take etch down.
bool prepareModelIsolated(onnx::ModelProto &model, int64_t convertTo,
                          std::string &error) {
  int fds[2];
  if (::pipe(fds) != 0) {
    error = "cannot run ONNX shape inference (pipe failed)";
    return false;
  }
  pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    error = "cannot run ONNX shape inference (fork failed)";
    return false;
  }
  if (child == 0) {
    ::close(fds[0]);
    // What a crash prints (a sanitizer's report) is not for the user, and
    // a crash must end the child plainly: the parent reports it. (Crash
    // handlers inherited from a sanitizer or a fuzzer would treat it as
    // theirs.)
    int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0)
      ::dup2(null, STDERR_FILENO);
    for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
      std::signal(signal, SIG_DFL);
    // One status byte, then the inferred types or libonnx's message.
    // A converted model comes back whole; otherwise only the types.
    std::string message;
    const char *stage = "ONNX shape inference failed: ";
    try {
      if (convertTo) {
        // libonnx's converter looks initializers up among the graph inputs
        // (as IR version 3 required); some adapters (Softmax 12 -> 13) need
        // the input shapes.
        listInitializersAsInputs(*model.mutable_graph());
        onnx::shape_inference::InferShapes(model);
        stage = "cannot convert the model to ONNX opset 13 (libonnx's "
                "version converter): ";
        model = onnx::version_conversion::ConvertVersion(
            model, static_cast<int>(convertTo));
        stage = "ONNX shape inference failed: ";
      }
      onnx::shape_inference::InferShapes(model);
      if (convertTo) {
        message = "0" + model.SerializeAsString();
      } else {
        onnx::GraphProto types;
        *types.mutable_value_info() = model.graph().value_info();
        *types.mutable_output() = model.graph().output();
        message = "0" + types.SerializeAsString();
      }
    } catch (const std::exception &exception) {
      message = std::string("1") + stage + exception.what();
    }
    _exit(writeAll(fds[1], message) ? 0 : 1);
  }
  ::close(fds[1]);
  std::string reply;
  char buffer[65536];
  for (ssize_t got; (got = ::read(fds[0], buffer, sizeof(buffer))) != 0;) {
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      break;
    reply.append(buffer, static_cast<size_t>(got));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status) || reply.empty()) {
    error = std::string(convertTo ? "ONNX version conversion or shape "
                                    "inference (libonnx)"
                                  : "ONNX shape inference (libonnx)") +
            " crashed on this model" +
            (WIFSIGNALED(status)
                 ? " (signal " + std::to_string(WTERMSIG(status)) + ")"
                 : std::string()) +
            "; the model is malformed";
    return false;
  }
  if (reply[0] != '0') {
    error = reply.substr(1);
    return false;
  }
  if (convertTo) {
    if (!model.ParseFromString(reply.substr(1))) {
      error = "cannot read ONNX version conversion's result";
      return false;
    }
    return true;
  }
  onnx::GraphProto types;
  if (!types.ParseFromString(reply.substr(1))) {
    error = "cannot read ONNX shape inference's result";
    return false;
  }
  *model.mutable_graph()->mutable_value_info() = types.value_info();
  *model.mutable_graph()->mutable_output() = types.output();
  return true;
}

/// libonnx's shape inference divides by strides and trusts window
/// attributes: a zero stride is a SIGFPE inside it, which no try/catch stops.
/// Checked first, by attribute name, whatever the op. (protobuf's parser
/// bounds the nesting depth of subgraphs.)
bool validateWindowAttributes(const onnx::GraphProto &graph,
                              std::string &error) {
  for (const auto &node : graph.node()) {
    for (const auto &attribute : node.attribute()) {
      const std::string &name = attribute.name();
      bool positive = name == "strides" || name == "dilations" ||
                      name == "kernel_shape";
      if (!positive && name != "pads" && name != "output_padding")
        continue;
      for (int64_t value : attribute.ints())
        if (positive ? value <= 0 : value < 0) {
          error = "node '" + node.name() + "' (" + node.op_type() +
                  "): attribute '" + name + "' holds " +
                  std::to_string(value) + "; expected " +
                  (positive ? "positive" : "non-negative") + " values";
          return false;
        }
    }
    // If/Loop/Scan bodies are inferred too.
    for (const auto &attribute : node.attribute()) {
      if (attribute.has_g() && !validateWindowAttributes(attribute.g(), error))
        return false;
      for (const auto &body : attribute.graphs())
        if (!validateWindowAttributes(body, error))
          return false;
    }
  }
  return true;
}

bool convertNodes(const onnx::GraphProto &proto, const std::string &modelDir,
                  OnnxGraph &graph,
                  std::map<std::string, OnnxValueType> &valueTypes,
                  std::string &error) {
  for (const auto &nodeProto : proto.node()) {
    OnnxNode node;
    node.opType = nodeProto.op_type();
    node.domain = nodeProto.domain();
    node.name = nodeProto.name();
    node.inputs.assign(nodeProto.input().begin(), nodeProto.input().end());
    node.outputs.assign(nodeProto.output().begin(), nodeProto.output().end());
    for (const auto &attributeProto : nodeProto.attribute()) {
      OnnxAttribute attribute;
      if (!convertAttribute(attributeProto, modelDir, attribute, valueTypes,
                            error)) {
        error = "node '" + node.name + "' (" + node.opType + "), attribute '" +
                attributeProto.name() + "': " + error;
        return false;
      }
      node.attributes[attributeProto.name()] = std::move(attribute);
    }
    graph.nodes.push_back(std::move(node));
  }
  return true;
}

} // namespace

std::optional<OnnxGraph> loadOnnxModel(const std::string &path,
                                       std::string &error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = "cannot open file";
    return std::nullopt;
  }
  std::stringstream contents;
  contents << file.rdbuf();
  std::string modelDir = ".";
  if (size_t slash = path.find_last_of('/'); slash != std::string::npos)
    modelDir = path.substr(0, slash);
  return loadOnnxModelFromBytes(contents.str(), modelDir, error);
}

std::optional<OnnxGraph> loadOnnxModelFromBytes(const std::string &bytes,
                                                const std::string &modelDir,
                                                std::string &error) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) {
    error = "not a valid ONNX model (protobuf parse failed)";
    return std::nullopt;
  }
  if (!model.has_graph()) {
    error = "ONNX model has no graph";
    return std::nullopt;
  }

  OnnxGraph graph;
  auto readOpset = [&] {
    for (const auto &opset : model.opset_import())
      if (opset.domain().empty() || opset.domain() == "ai.onnx")
        graph.opsetVersion = opset.version();
  };
  readOpset();
  auto readInitializers = [&] {
    graph.initializers.clear();
    for (const auto &initializer : model.graph().initializer()) {
      OnnxTensor tensor;
      if (!convertTensor(initializer, modelDir, tensor, error))
        return false;
      graph.initializers.push_back(std::move(tensor));
    }
    return true;
  };

  // Initializers first: libonnx's shape inference trusts their dims, and a
  // damaged one (dims that disagree with its data) can crash it.
  if (!readInitializers() || !validateWindowAttributes(model.graph(), error))
    return std::nullopt;
  // Older opsets are brought to the first one the importer reads by onnx's
  // own converter, which knows every operator's changes in between.
  int64_t convertTo =
      graph.opsetVersion > 0 && graph.opsetVersion < kOldestImportedOpset
          ? kOldestImportedOpset
          : 0;
  if (!prepareModelIsolated(model, convertTo, error))
    return std::nullopt;
  if (convertTo) {
    graph.convertedFromOpset = graph.opsetVersion;
    readOpset();
    if (!readInitializers())
      return std::nullopt;
  }
  const onnx::GraphProto &proto = model.graph();

  graph.name = proto.name();
  std::map<std::string, bool> isInitializer;
  for (const auto &initializer : graph.initializers)
    isInitializer[initializer.name] = true;
  for (const auto &input : proto.input()) {
    graph.valueTypes[input.name()] = convertType(input.type());
    if (!isInitializer.count(input.name()))
      graph.inputs.emplace_back(input.name(), convertType(input.type()));
  }
  for (const auto &output : proto.output()) {
    graph.valueTypes[output.name()] = convertType(output.type());
    graph.outputs.emplace_back(output.name(), convertType(output.type()));
  }
  for (const auto &info : proto.value_info())
    graph.valueTypes[info.name()] = convertType(info.type());

  if (!convertNodes(proto, modelDir, graph, graph.valueTypes, error))
    return std::nullopt;
  return graph;
}

} // namespace etch::onnx_import
