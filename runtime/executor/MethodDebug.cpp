//===- MethodDebug.cpp - A method's debug handles ------------------------===//
// Method's debug-handle accessors in a file of their own: an app that never
// asks for them does not link them (the runtime core stays its size).
#include "runtime/executor/Method.h"
#include "runtime/schema/program_generated.h"

namespace etch::runtime {

/// The debug entry of instruction \p index, or null: none in the program,
/// or a list that does not match the instructions.
static const schema::InstructionDebug *debugEntry(const schema::Method &method,
                                                  size_t index) {
  const auto *debug = method.debug();
  if (!debug || debug->size() != method.instructions()->size() ||
      index >= debug->size())
    return nullptr;
  return debug->Get(index);
}

/// Entry \p op of one of an InstructionDebug's string lists, "" past it.
static const char *debugString(
    const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>> *list,
    size_t op) {
  return list && op < list->size() ? list->Get(op)->c_str() : "";
}

size_t Method::debugOpCount(size_t index) const {
  const schema::InstructionDebug *entry = debugEntry(*method_, index);
  return entry && entry->ops() ? entry->ops()->size() : 0;
}

const char *Method::debugOp(size_t index, size_t op) const {
  const schema::InstructionDebug *entry = debugEntry(*method_, index);
  return entry ? debugString(entry->ops(), op) : "";
}

const char *Method::debugNode(size_t index, size_t op) const {
  const schema::InstructionDebug *entry = debugEntry(*method_, index);
  return entry ? debugString(entry->nodes(), op) : "";
}

const char *Method::debugSource(size_t index, size_t op) const {
  const schema::InstructionDebug *entry = debugEntry(*method_, index);
  return entry ? debugString(entry->sources(), op) : "";
}

const char *Method::debugOutputNode(size_t index, size_t output) const {
  const schema::InstructionDebug *entry = debugEntry(*method_, index);
  return entry ? debugString(entry->output_nodes(), output) : "";
}

uint32_t Method::debugOutputResult(size_t index, size_t output) const {
  const schema::InstructionDebug *entry = debugEntry(*method_, index);
  const auto *results = entry ? entry->output_results() : nullptr;
  return results && output < results->size() ? results->Get(output) : 0;
}

} // namespace etch::runtime
