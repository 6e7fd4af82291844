#include "Trace.h"
#include "Text.h"

#include "runtime/platform/Platform.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <sys/syscall.h>
#include <unistd.h>

namespace etch::tools {

using runtime::Method;

namespace {

// Not a thread id of this process: the delegates' own steps.
constexpr long kDelegateTrack = 0x7ffffffe;

long threadId() { return static_cast<long>(syscall(SYS_gettid)); }

/// The producer nodes of instruction \p index, joined by ", ".
std::string nodesOf(const Method &method, size_t index) {
  std::string nodes;
  for (size_t k = 0; k < method.debugOpCount(index); ++k) {
    const char *node = method.debugNode(index, k);
    if (*node)
      nodes += (nodes.empty() ? "" : ", ") + std::string(node);
  }
  return nodes;
}

} // namespace

void ChromeTrace::begin() {
  executeStart_ = previous_ = runtime::nowNanoseconds();
  if (!origin_)
    origin_ = executeStart_;
  executingThread_ = threadId();
  instructionStart_.clear();
  running_ = 0;
  runtime::optimized::ThreadPool::shared().setChunkObserver(&chunks_);
}

void ChromeTrace::chunk(void *self, uint64_t start, uint64_t end) {
  auto &trace = *static_cast<ChromeTrace *>(self);
  long instruction = static_cast<long>(trace.running_.load());
  std::lock_guard<std::mutex> lock(trace.chunkMutex_);
  trace.events_.push_back(
      {"", "chunk", start, end - start, threadId(), instruction});
}

void ChromeTrace::after(void *self, const Method &method, size_t instruction) {
  auto &trace = *static_cast<ChromeTrace *>(self);
  uint64_t now = runtime::nowNanoseconds();
  bool delegate = isDelegateCall(method.instructionName(instruction));
  std::lock_guard<std::mutex> lock(trace.chunkMutex_);
  trace.events_.push_back({method.instructionName(instruction),
                           delegate ? "delegate" : "kernel", trace.previous_,
                           now - trace.previous_, trace.executingThread_,
                           static_cast<long>(instruction)});
  trace.instructionStart_.resize(instruction + 1, 0);
  trace.instructionStart_[instruction] = trace.previous_;
  trace.previous_ = now;
  trace.running_ = instruction + 1;
}

void ChromeTrace::end(const Method &method) {
  uint64_t now = runtime::nowNanoseconds();
  runtime::optimized::ThreadPool::shared().setChunkObserver(nullptr);
  events_.push_back({"execute #" + std::to_string(iteration_++), "method",
                     executeStart_, now - executeStart_, executingThread_, -1});
  std::vector<runtime::DelegateEvent> steps;
  for (size_t i = 0; i < instructionStart_.size(); ++i) {
    size_t count = method.delegateEvents(i, {});
    if (!count)
      continue;
    steps.resize(count);
    method.delegateEvents(i, {steps.data(), steps.size()});
    uint64_t at = instructionStart_[i];
    for (const runtime::DelegateEvent &step : steps) {
      events_.push_back(
          {std::string(method.instructionName(i)) + " " + step.name,
           "delegate step", at, step.nanos, kDelegateTrack,
           static_cast<long>(i)});
      at += step.nanos;
    }
  }
}

bool ChromeTrace::write(const std::string &path, const Method &method,
                        std::string &error) const {
  FILE *file = std::fopen(path.c_str(), "w");
  if (!file) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  // One named track per thread: the executing one, the pool's workers, and
  // the delegates' own steps.
  std::set<long> threads;
  for (const Event &event : events_)
    threads.insert(event.track);
  std::fprintf(file, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [");
  const char *separator = "\n";
  for (long thread : threads) {
    const char *name = thread == executingThread_ ? "execute (instructions)"
                       : thread == kDelegateTrack
                           ? "delegate steps (timed by the target)"
                           : "kernel worker";
    std::fprintf(file,
                 "%s  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, "
                 "\"tid\": %ld, \"args\": {\"name\": \"%s\"}}",
                 separator, thread, name);
    separator = ",\n";
  }
  for (const Event &event : events_) {
    std::string name = event.name, args;
    size_t index = static_cast<size_t>(event.instruction);
    if (event.category == "kernel" || event.category == "delegate")
      args = ", \"args\": {\"instruction\": " + std::to_string(index) +
             ", \"nodes\": " + jsonQuoted(nodesOf(method, index)) + "}";
    if (event.category == "chunk") {
      // A chunk of the instruction running when it ran.
      name = index < method.instructionCount()
                 ? std::string(method.instructionName(index)) + " (chunk)"
                 : "chunk";
      args = ", \"args\": {\"instruction\": " + std::to_string(index) + "}";
    }
    std::fprintf(file,
                 "%s  {\"name\": %s, \"cat\": \"%s\", \"ph\": \"X\", "
                 "\"ts\": %.3f, \"dur\": %.3f, \"pid\": 1, \"tid\": %ld%s}",
                 separator, jsonQuoted(name).c_str(), event.category.c_str(),
                 (event.start - origin_) / 1e3, event.duration / 1e3,
                 event.track, args.c_str());
    separator = ",\n";
  }
  bool written = std::fprintf(file, "\n]}\n") > 0;
  written &= std::fclose(file) == 0;
  if (!written)
    error = "cannot write " + path;
  return written;
}

} // namespace etch::tools
