// et-run --trace FILE.json: Chrome trace-event JSON (Perfetto,
// chrome://tracing) of every execute: one complete ("X") event per
// execute and per instruction on the executing thread's track, each chunk
// the kernels' thread pool runs on the track of the thread that ran it
// (named by its instruction), and the steps a delegate timed itself (oneDNN
// primitives, Vulkan dispatches) on a track of their own, laid end to end
// from the delegate call's start.
#pragma once

#include "runtime/executor/Method.h"
#include "runtime/kernels/optimized/ThreadPool.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace etch::tools {

class ChromeTrace {
public:
  /// What Method::execute calls after each instruction.
  runtime::Method::InstructionObserver observer() {
    return {&ChromeTrace::after, this};
  }
  /// Brackets one execute: \p begin before it, \p end after it (then the
  /// delegates' own step times are read).
  void begin();
  void end(const runtime::Method &method);
  /// Writes the events; false with \p error when the file cannot be written.
  bool write(const std::string &path, const runtime::Method &method,
             std::string &error) const;

private:
  struct Event {
    std::string name, category;
    uint64_t start, duration;
    long track;       // the thread's id, or kDelegateTrack
    long instruction; // -1: none
  };
  static void after(void *self, const runtime::Method &method,
                    size_t instruction);
  static void chunk(void *self, uint64_t start, uint64_t end);

  runtime::optimized::ThreadPool::ChunkObserver chunks_{&ChromeTrace::chunk,
                                                        this};
  std::mutex chunkMutex_;          // chunks arrive on every thread
  std::atomic<size_t> running_{0}; // the instruction running now
  long executingThread_ = 0;
  uint64_t origin_ = 0, executeStart_ = 0, previous_ = 0;
  std::vector<uint64_t> instructionStart_;
  std::vector<Event> events_;
  int iteration_ = 0;
};

} // namespace etch::tools
