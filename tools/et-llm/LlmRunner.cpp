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

bool LlmRunner::bind(runtime::Method &method, std::string &error) {
  method_ = &method;
  ids_ = findInput(method, "input_ids");
  positions_ = findInput(method, "cache_position");
  // Unnamed programs: the int64 [1, S] input and the int64 [S] one.
  for (size_t i = 0; i < method.inputCount(); ++i) {
    const TensorView &input = method.input(i);
    if (input.scalarType() != ScalarType::Int64)
      continue;
    if (ids_ < 0 && input.rank() == 2 && static_cast<int>(i) != positions_)
      ids_ = static_cast<int>(i);
    else if (positions_ < 0 && input.rank() == 1 && static_cast<int>(i) != ids_)
      positions_ = static_cast<int>(i);
  }
  size_t expected = positions_ >= 0 ? 2 : 1;
  if (ids_ < 0 || method.inputCount() != expected) {
    error = "expected a decoder taking input_ids (int64 [1, S]) and "
            "optionally cache_position (int64 [S]); the method takes " +
            inputList(method);
    return false;
  }
  const TensorView &ids = method.input(ids_);
  if (ids.scalarType() != ScalarType::Int64 || ids.rank() != 2 ||
      method.inputMaxSize(ids_, 0) != 1) {
    error = "input_ids must be int64 [1, S]; the method takes " +
            inputList(method);
    return false;
  }
  maxChunk_ = method.inputMaxSize(ids_, 1);
  if (positions_ >= 0) {
    const TensorView &positions = method.input(positions_);
    if (positions.scalarType() != ScalarType::Int64 || positions.rank() != 1 ||
        method.inputMaxSize(positions_, 0) != maxChunk_) {
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
  vocab_ = logits.size(logits.rank() - 1);
  scratch_.resize(2 * std::max<int64_t>(maxChunk_, 1));
  return true;
}

void LlmRunner::reset() {
  method_->resetState();
  history_.clear();
}

const float *LlmRunner::logits() const {
  const TensorView &logits = method_->output(0);
  return logits.data<float>() + (logits.numel() - vocab_);
}

Error LlmRunner::run(const int64_t *tokens, int64_t count, int64_t start) {
  int64_t idSizes[2] = {1, count};
  Error status = method_->setInput(ids_, ScalarType::Int64, idSizes, 2, tokens,
                                   count * sizeof(int64_t));
  if (status != Error::Ok)
    return status;
  if (positions_ >= 0) {
    int64_t *positions = scratch_.data();
    for (int64_t i = 0; i < count; ++i)
      positions[i] = start + i;
    status = method_->setInput(positions_, ScalarType::Int64, &count, 1,
                               positions, count * sizeof(int64_t));
    if (status != Error::Ok)
      return status;
  }
  return method_->execute();
}

Error LlmRunner::feed(const int64_t *tokens, int64_t count, int64_t start) {
  if (positions_ < 0) {
    // No cache: the whole sequence every time.
    history_.insert(history_.end(), tokens, tokens + count);
    if (static_cast<int64_t>(history_.size()) > maxChunk_)
      return Error::InvalidShape;
    return run(history_.data(), history_.size(), 0);
  }
  for (int64_t done = 0; done < count;) {
    int64_t chunk = std::min(maxChunk_, count - done);
    Error status = run(tokens + done, chunk, start + done);
    if (status != Error::Ok)
      return status;
    done += chunk;
  }
  return Error::Ok;
}

} // namespace etch::tools
