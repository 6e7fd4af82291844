#include "LlmRunner.h"

#include <algorithm>
#include <cstring>

namespace etch::tools {

using runtime::Error;
using runtime::ScalarType;
using runtime::TensorView;

namespace {

int findInput(runtime::Method &method, const char *name) {
  for (size_t i = 0; i < method.inputCount(); ++i)
    if (std::strcmp(method.inputName(i), name) == 0)
      return static_cast<int>(i);
  return -1;
}

std::string inputList(runtime::Method &method) {
  std::string text;
  for (size_t i = 0; i < method.inputCount(); ++i) {
    const TensorView &input = method.input(i);
    text += (i ? ", " : "") + std::string(method.inputName(i)) + " (" +
            runtime::scalarTypeName(input.scalarType()) + ", rank " +
            std::to_string(input.rank()) + ")";
  }
  return text;
}

} // namespace

bool LlmRunner::bindSlot(runtime::Method &method, Slot &slot,
                         std::string &error) {
  slot.method = &method;
  slot.ids = findInput(method, "input_ids");
  slot.positions = findInput(method, "cache_position");
  // Unnamed programs: the int64 [1, S] input and the int64 [S] one.
  for (size_t i = 0; i < method.inputCount(); ++i) {
    const TensorView &input = method.input(i);
    if (input.scalarType() != ScalarType::Int64)
      continue;
    if (slot.ids < 0 && input.rank() == 2 &&
        static_cast<int>(i) != slot.positions)
      slot.ids = static_cast<int>(i);
    else if (slot.positions < 0 && input.rank() == 1 &&
             static_cast<int>(i) != slot.ids)
      slot.positions = static_cast<int>(i);
  }
  size_t expected = slot.positions >= 0 ? 2 : 1;
  if (slot.ids < 0 || method.inputCount() != expected) {
    error = "expected a decoder taking input_ids (int64 [1, S]) and "
            "optionally cache_position (int64 [S]); the method takes " +
            inputList(method);
    return false;
  }
  const TensorView &ids = method.input(slot.ids);
  if (ids.scalarType() != ScalarType::Int64 || ids.rank() != 2 ||
      method.inputMaxSize(slot.ids, 0) != 1) {
    error = "input_ids must be int64 [1, S]; the method takes " +
            inputList(method);
    return false;
  }
  slot.maxChunk = method.inputMaxSize(slot.ids, 1);
  if (slot.positions >= 0) {
    const TensorView &positions = method.input(slot.positions);
    if (positions.scalarType() != ScalarType::Int64 || positions.rank() != 1 ||
        method.inputMaxSize(slot.positions, 0) != slot.maxChunk) {
      error = "cache_position must be int64 [S] with input_ids' S; the "
              "method takes " +
              inputList(method);
      return false;
    }
  }
  if (method.outputCount() == 0 ||
      method.output(0).scalarType() != ScalarType::Float32 ||
      method.output(0).rank() == 0) {
    error = "output 0 must be float32 logits [..., vocab]";
    return false;
  }
  const TensorView &logits = method.output(0);
  slot.vocab = logits.size(logits.rank() - 1);
  return true;
}

bool LlmRunner::bind(runtime::Method &method, std::string &error) {
  if (!bindSlot(method, prefill_, error))
    return false;
  vocab_ = prefill_.vocab;
  scratch_.resize(2 * std::max<int64_t>(prefill_.maxChunk, 1));
  return true;
}

bool LlmRunner::bindDecode(runtime::Method &decode, std::string &error) {
  std::string problem;
  if (!bindSlot(decode, decode_, problem)) {
    error = "method 'decode': " + problem;
    decode_ = Slot();
    return false;
  }
  if (prefill_.positions < 0 || decode_.positions < 0 ||
      decode_.vocab != vocab_) {
    error = "methods 'prefill' and 'decode' must both take cache_position "
            "and give logits of one vocabulary";
    decode_ = Slot();
    return false;
  }
  return true;
}

void LlmRunner::reset() {
  // Shared caches: resetting either resets them.
  prefill_.method->resetState();
  if (decode_.method)
    decode_.method->resetState();
  history_.clear();
  last_ = &prefill_;
}

const float *LlmRunner::logits() const {
  const TensorView &logits = last_->method->output(0);
  return logits.data<float>() + (logits.numel() - vocab_);
}

Error LlmRunner::run(Slot &slot, const int64_t *tokens, int64_t count,
                     int64_t start) {
  int64_t idSizes[2] = {1, count};
  Error status = slot.method->setInput(slot.ids, ScalarType::Int64, idSizes, 2,
                                       tokens, count * sizeof(int64_t));
  if (status != Error::Ok)
    return status;
  if (slot.positions >= 0) {
    int64_t *positions = scratch_.data();
    for (int64_t i = 0; i < count; ++i)
      positions[i] = start + i;
    status = slot.method->setInput(slot.positions, ScalarType::Int64, &count, 1,
                                   positions, count * sizeof(int64_t));
    if (status != Error::Ok)
      return status;
  }
  last_ = &slot;
  return slot.method->execute();
}

Error LlmRunner::feed(const int64_t *tokens, int64_t count, int64_t start) {
  if (prefill_.positions < 0) {
    // No cache: the whole sequence every time.
    history_.insert(history_.end(), tokens, tokens + count);
    if (static_cast<int64_t>(history_.size()) > prefill_.maxChunk)
      return Error::InvalidShape;
    return run(prefill_, history_.data(), history_.size(), 0);
  }
  if (count == 1 && decode_.method)
    return run(decode_, tokens, 1, start);
  for (int64_t done = 0; done < count;) {
    int64_t chunk = std::min(prefill_.maxChunk, count - done);
    Error status = run(prefill_, tokens + done, chunk, start + done);
    if (status != Error::Ok)
      return status;
    done += chunk;
  }
  return Error::Ok;
}

} // namespace etch::tools
