#include "Trace.h"
#include "Text.h"

#include "runtime/platform/Platform.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace etch::tools {

using runtime::Method;

namespace {

constexpr int kExecuteTrack = 1, kDelegateTrack = 2;

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
  instructionStart_.clear();
}

void ChromeTrace::after(void *self, const Method &method, size_t instruction) {
  auto &trace = *static_cast<ChromeTrace *>(self);
  uint64_t now = runtime::nowNanoseconds();
  bool delegate =
      std::strncmp(method.instructionName(instruction), "edge.", 5) != 0;
  trace.events_.push_back({method.instructionName(instruction),
                           delegate ? "delegate" : "kernel", trace.previous_,
                           now - trace.previous_, kExecuteTrack,
                           static_cast<long>(instruction)});
  trace.instructionStart_.resize(instruction + 1, 0);
  trace.instructionStart_[instruction] = trace.previous_;
  trace.previous_ = now;
}

void ChromeTrace::end(const Method &method) {
  uint64_t now = runtime::nowNanoseconds();
  events_.push_back({"execute #" + std::to_string(iteration_++), "method",
                     executeStart_, now - executeStart_, kExecuteTrack, -1});
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
  std::fprintf(
      file,
      "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n"
      "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, "
      "\"tid\": %d, \"args\": {\"name\": \"execute (instructions)\"}},\n"
      "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, "
      "\"tid\": %d, \"args\": {\"name\": \"delegate steps (timed by "
      "the target)\"}}",
      kExecuteTrack, kDelegateTrack);
  for (const Event &event : events_) {
    std::string args;
    if (event.instruction >= 0 && event.track == kExecuteTrack) {
      size_t index = static_cast<size_t>(event.instruction);
      args = ", \"args\": {\"instruction\": " + std::to_string(index) +
             ", \"nodes\": " + jsonQuoted(nodesOf(method, index)) + "}";
    }
    std::fprintf(file,
                 ",\n  {\"name\": %s, \"cat\": \"%s\", \"ph\": \"X\", "
                 "\"ts\": %.3f, \"dur\": %.3f, \"pid\": 1, \"tid\": %d%s}",
                 jsonQuoted(event.name).c_str(), event.category.c_str(),
                 (event.start - origin_) / 1e3, event.duration / 1e3,
                 event.track, args.c_str());
  }
  bool written = std::fprintf(file, "\n]}\n") > 0;
  written &= std::fclose(file) == 0;
  if (!written)
    error = "cannot write " + path;
  return written;
}

} // namespace etch::tools
