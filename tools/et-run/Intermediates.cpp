#include "Intermediates.h"
#include "Npy.h"
#include "Text.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace etch::tools {

using runtime::Method;
using runtime::TensorView;

namespace {

/// A node name as a file name part: letters, digits, '-' and '_' kept.
std::string fileSafe(const char *name) {
  std::string out;
  for (const char *c = name; *c && out.size() < 48; ++c)
    out +=
        std::isalnum(static_cast<unsigned char>(*c)) || *c == '-' || *c == '_'
            ? *c
            : '_';
  return out;
}

/// The ops, nodes and sources of instruction \p i as JSON lists.
std::string debugFields(const Method &method, size_t i) {
  std::string ops, nodes, sources;
  for (size_t k = 0; k < method.debugOpCount(i); ++k) {
    const char *separator = k ? ", " : "";
    ops += separator + jsonQuoted(method.debugOp(i, k));
    nodes += separator + jsonQuoted(method.debugNode(i, k));
    sources += separator + jsonQuoted(method.debugSource(i, k));
  }
  return "\"ops\": [" + ops + "], \"nodes\": [" + nodes + "], \"sources\": [" +
         sources + "]";
}

} // namespace

bool IntermediateDump::begin(const std::string &dir, const Method &method,
                             std::string &error) {
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    error = "cannot create " + dir + ": " + std::strerror(errno);
    return false;
  }
  // Found before the first file rather than after a half-written dump (a
  // probe file: access() says yes to root even where writes fail).
  std::string probe = dir + "/.et-run-probe";
  int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    error = "cannot write to " + dir + ": " + std::strerror(errno);
    return false;
  }
  close(fd);
  unlink(probe.c_str());
  dir_ = dir;
  for (size_t i = 0; i < method.inputCount(); ++i) {
    const TensorView &input = method.input(i);
    write(input, "input" + std::to_string(i) + ".npy",
          "\"kind\": \"input\", \"input\": " + std::to_string(i) +
              ", \"name\": " + jsonQuoted(method.inputName(i)));
  }
  error = error_;
  return error_.empty();
}

void IntermediateDump::after(void *self, const Method &method,
                             size_t instruction) {
  auto &dump = *static_cast<IntermediateDump *>(self);
  const char *name = method.instructionName(instruction);
  // A kernel call is named by its producer node (else its op), a delegate
  // by its target: it holds many nodes.
  bool delegate = isDelegateCall(name);
  const char *node =
      method.debugOpCount(instruction) ? method.debugNode(instruction, 0) : "";
  std::string label =
      delegate ? "delegate-" + fileSafe(name) : fileSafe(*node ? node : name);
  char prefix[16];
  std::snprintf(prefix, sizeof prefix, "%04zu_", instruction);
  runtime::Span<TensorView *const> outputs =
      method.instructionOutputs(instruction);
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (!outputs[k])
      continue;
    dump.write(
        *outputs[k], prefix + label + "_" + std::to_string(k) + ".npy",
        "\"kind\": \"instruction\", \"instruction\": " +
            std::to_string(instruction) + ", \"call\": " + jsonQuoted(name) +
            ", \"output\": " + std::to_string(k) + ", \"output_node\": " +
            jsonQuoted(method.debugOutputNode(instruction, k)) +
            ", \"output_result\": " +
            std::to_string(method.debugOutputResult(instruction, k)) + ", " +
            debugFields(method, instruction));
  }
}

void IntermediateDump::write(const TensorView &tensor, const std::string &file,
                             std::string entry) {
  std::string error;
  if (!writeNpy(dir_ + "/" + file, tensor.scalarType(), tensor.sizes(),
                tensor.rank(), tensor.data(), tensor.nbytes(), error)) {
    if (error_.empty())
      error_ = error;
    return;
  }
  written_.push_back(dir_ + "/" + file);
  index_ += std::string(entries_++ ? ",\n" : "") +
            "  {\"file\": " + jsonQuoted(file) + ", \"dtype\": " +
            jsonQuoted(runtime::scalarTypeName(tensor.scalarType())) +
            ", \"shape\": " + shapeText(tensor) + ", " + entry + "}";
}

bool IntermediateDump::finish(std::string &error) {
  std::string path = dir_ + "/index.json";
  FILE *file = std::fopen(path.c_str(), "w");
  bool written = file && std::fprintf(file, "[\n%s\n]\n", index_.c_str()) >= 0;
  if (file)
    written &= std::fclose(file) == 0;
  if (written && error_.empty())
    return true;
  error = written ? error_ : "cannot write " + path;
  // A dump is whole or absent: what was written is removed.
  for (const std::string &each : written_)
    std::remove(each.c_str());
  std::remove(path.c_str());
  return false;
}

} // namespace etch::tools
