#include "runtime/kernels/optimized/ThreadPool.h"

#include "runtime/platform/Platform.h"

#include <algorithm>
#include <cstdlib>
#include <immintrin.h>

namespace etch::runtime::optimized {
namespace {

// Chunks per thread of a job: some balance when a thread starts late or
// runs slower, few takes from next_ (each moves its cache line between
// cores; more chunks measured slower on these 2-core machines).
constexpr int64_t kChunksPerThread = 4;

/// A job's task with the chunk observer around each chunk.
struct ObservedTask {
  ThreadPool::Task task;
  const void *context;
  const ThreadPool::ChunkObserver *observer;

  static void run(const void *self, int64_t begin, int64_t end) {
    const auto &observed = *static_cast<const ObservedTask *>(self);
    uint64_t start = nowNanoseconds();
    observed.task(observed.context, begin, end);
    observed.observer->chunk(observed.observer->context, start,
                             nowNanoseconds());
  }
};

} // namespace

ThreadPool &ThreadPool::shared() {
  static ThreadPool pool;
  return pool;
}

ThreadPool::~ThreadPool() { resize(1); }

void ThreadPool::resize(size_t threads) {
  std::lock_guard<std::mutex> job(jobMutex_);
  wantedThreads_ = std::max<size_t>(threads, 1);
  startWorkers(lender_.impl ? 1 : wantedThreads_);
}

void ThreadPool::borrow(const Lender &lender) {
  std::lock_guard<std::mutex> job(jobMutex_);
  lender_ = lender;
  lent_ = lender.impl != nullptr;
  lentThreads_ = lender.impl ? lender.threads : 0;
  startWorkers(1);
}

void ThreadPool::giveBack(const void *impl) {
  std::lock_guard<std::mutex> job(jobMutex_);
  if (lender_.impl != impl)
    return;
  lender_ = Lender();
  lent_ = false;
  lentThreads_ = 0;
  startWorkers(wantedThreads_);
}

void ThreadPool::startWorkers(size_t threads) {
  if (threads == workers_.size() + 1)
    return;
  {
    std::lock_guard<std::mutex> lock(sleepMutex_);
    stop_ = true;
  }
  generation_.fetch_add(1);
  wake_.notify_all();
  for (std::thread &worker : workers_)
    worker.join();
  workers_.clear();
  stop_ = false;
  // Workers wait for the generation after this one: a job published before
  // a worker first runs is still its to join.
  uint64_t current = generation_.load();
  std::atomic<size_t> running{0};
  for (size_t i = 1; i < threads; ++i)
    workers_.emplace_back([this, current, &running] {
      running.fetch_add(1);
      workerLoop(current);
    });
  // A thread's start-up (the C library's and a sanitizer's per-thread set-up)
  // may allocate: it belongs to the load, not to the first execute.
  while (running.load() < workers_.size())
    std::this_thread::yield();
}

void ThreadPool::work() {
  for (;;) {
    int64_t begin = next_.fetch_add(chunk_, std::memory_order_relaxed);
    if (begin >= count_)
      return;
    task_(context_, begin, std::min(begin + chunk_, count_));
  }
}

void ThreadPool::workerLoop(uint64_t seen) {
  for (;;) {
    // Spin, then sleep, until a new generation (a job, or stop).
    uint64_t start = nowNanoseconds();
    for (int spins = 0; generation_.load() == seen; ++spins) {
      _mm_pause();
      if ((spins & 255) == 0 &&
          (resting_.load(std::memory_order_relaxed) ||
           nowNanoseconds() - start >
               spinNanos_.load(std::memory_order_relaxed))) {
        std::unique_lock<std::mutex> lock(sleepMutex_);
        sleeping_.fetch_add(1);
        wake_.wait(lock, [&] { return generation_.load() != seen || stop_; });
        sleeping_.fetch_sub(1);
      }
    }
    seen = generation_.load();
    {
      std::lock_guard<std::mutex> lock(sleepMutex_);
      if (stop_)
        return;
    }
    // Join the job while it is open; the caller may have done it all.
    int64_t gate = gate_.load(std::memory_order_acquire);
    while ((gate & kGateOpen) && !gate_.compare_exchange_weak(
                                     gate, gate + 1, std::memory_order_acq_rel))
      ;
    if (!(gate & kGateOpen))
      continue;
    work();
    gate_.fetch_sub(1, std::memory_order_release);
  }
}

void ThreadPool::run(int64_t count, int64_t grain, Task task,
                     const void *context) {
  if (count <= 0)
    return;
  grain = std::max<int64_t>(grain, 1);
  std::unique_lock<std::mutex> job(jobMutex_, std::try_to_lock);
  int64_t threads =
      !job.owns_lock() ? 1
      : lender_.impl   ? static_cast<int64_t>(lender_.threads)
                       : static_cast<int64_t>(workers_.size()) + 1;
  if (threads <= 1 || count <= grain) {
    task(context, 0, count);
    return;
  }
  int64_t chunk = std::max(grain, (count + kChunksPerThread * threads - 1) /
                                      (kChunksPerThread * threads));
  ObservedTask observed{task, context,
                        observer_.load(std::memory_order_acquire)};
  if (observed.observer) {
    task = &ObservedTask::run;
    context = &observed;
  }
  if (lender_.impl) {
    lender_.parallelize(lender_.impl, count, chunk, task, context);
    return;
  }
  task_ = task;
  context_ = context;
  count_ = count;
  chunk_ = chunk;
  next_.store(0, std::memory_order_relaxed);
  resting_.store(false, std::memory_order_relaxed);
  gate_.store(kGateOpen, std::memory_order_release); // the job's state above
  generation_.fetch_add(1); // wakes the workers (sequentially consistent)
  if (sleeping_.load() > 0) {
    std::lock_guard<std::mutex> lock(sleepMutex_);
    wake_.notify_all();
  }
  work();
  // Every chunk is taken; those still running belong to workers inside.
  gate_.fetch_and(~kGateOpen, std::memory_order_acq_rel);
  while (gate_.load(std::memory_order_acquire) != 0)
    _mm_pause();
}

void ThreadPool::rest() { resting_.store(true, std::memory_order_relaxed); }

size_t kernelThreadCount(size_t threads) {
  if (const char *text = std::getenv("ETCH_KERNEL_THREADS"))
    if (long threads = std::strtol(text, nullptr, 10); threads > 0)
      return static_cast<size_t>(threads);
  if (threads)
    return threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

} // namespace etch::runtime::optimized
