// One request at a time at the model, a bounded number waiting: a request
// that finds the queue full is turned away at once (HTTP 503) instead of
// piling up.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace etch::tools::serve {

class RequestGate {
public:
  explicit RequestGate(int64_t waitingLimit) : waitingLimit_(waitingLimit) {}

  /// Waits until the model is free; false at once when waitingLimit
  /// requests already wait for it.
  bool enter() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (busy_ && waiting_ >= waitingLimit_)
      return false;
    ++waiting_;
    free_.wait(lock, [&] { return !busy_; });
    --waiting_;
    busy_ = true;
    return true;
  }

  void leave() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      busy_ = false;
    }
    free_.notify_one();
  }

  int64_t waiting() {
    std::lock_guard<std::mutex> lock(mutex_);
    return waiting_;
  }

private:
  std::mutex mutex_;
  std::condition_variable free_;
  int64_t waitingLimit_;
  int64_t waiting_ = 0;
  bool busy_ = false;
};

/// The model for one request, held until the last copy goes (a streamed
/// response holds it until its stream ends).
class GateTicket {
public:
  explicit GateTicket(RequestGate &gate) : gate_(gate) {}
  ~GateTicket() { gate_.leave(); }
  GateTicket(const GateTicket &) = delete;
  GateTicket &operator=(const GateTicket &) = delete;

private:
  RequestGate &gate_;
};

} // namespace etch::tools::serve
