// Drives a decoder-only LM program: token ids in, logits out. With a
// cache_position input and mutable buffers (a KV cache, as transformers'
// ExecuTorch exporter writes it) the prompt runs in chunks as long as the
// program accepts, then one token per step; without one, every step runs
// the whole sequence so far. A program with `prefill` and `decode` methods
// sharing their caches (et-compile --method) runs the prompt on prefill and
// each new token on decode, which is planned for one token.
#pragma once

#include "runtime/executor/Method.h"
#include "runtime/program/Program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace etch::tools {

class LlmRunner {
public:
  /// Finds the inputs (input_ids [1, S] int64, cache_position [S] int64) and
  /// the logits (output 0, float32 [..., vocab]) of \p method; false with
  /// \p error saying what does not fit.
  bool bind(runtime::Method &method, std::string &error);
  /// Adds \p decode for one-token steps (after bind, both with caches and
  /// of one vocabulary; loaded with the same SharedState).
  bool bindDecode(runtime::Method &decode, std::string &error);

  /// Runs \p count tokens at positions start, start + 1, ...; afterwards
  /// logits() holds the last token's row.
  runtime::Error feed(const int64_t *tokens, int64_t count, int64_t start);

  const float *logits() const;
  int64_t vocab() const { return vocab_; }
  /// Tokens one execute takes at most (the bound of input_ids' dim 1).
  int64_t maxChunk() const { return prefill_.maxChunk; }
  /// Whether the program keeps a cache (a cache_position input): otherwise
  /// each step recomputes the whole sequence.
  bool cached() const { return prefill_.positions >= 0; }
  bool splitDecode() const { return decode_.method != nullptr; }
  /// Forgets the sequence (the cache's initial contents again).
  void reset();

private:
  /// A method and where its inputs are.
  struct Slot {
    runtime::Method *method = nullptr;
    int ids = -1, positions = -1;
    int64_t maxChunk = 1, vocab = 0;
  };
  static bool bindSlot(runtime::Method &method, Slot &slot, std::string &error);
  runtime::Error run(Slot &slot, const int64_t *tokens, int64_t count,
                     int64_t start);

  Slot prefill_, decode_;
  const Slot *last_ = &prefill_; // the slot whose logits are current
  int64_t vocab_ = 0;
  std::vector<int64_t> history_; // stateless programs: the whole sequence
  std::vector<int64_t> scratch_;
};

} // namespace etch::tools
