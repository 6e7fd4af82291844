// The optimized kernels' threads: the calling thread and its workers split
// a range of tasks. Workers spin for a while after each job (kernels come
// microseconds apart, and waking a sleeping thread can take milliseconds),
// then sleep until the next, or at once when a delegate asks (rest()).
// Threads start at load (Method::load calls prepareKernels()); running a
// job allocates nothing.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace etch::runtime::optimized {

// How much work pays for a task of its own: handing work to a second
// thread costs a few microseconds. One definition for every kernel.

/// Values a streaming loop's task covers at least (silu: ~16K values take a
/// few microseconds on one core).
inline constexpr int64_t kMinValuesPerTask = 16384;
/// Multiply-adds a task of small items (a depthwise plane, an int8 output
/// pixel) holds at least.
inline constexpr int64_t kMinWorkPerTask = 4096;
/// Multiply-adds below which a whole product (GEMM, convolution) runs on
/// one thread.
inline constexpr int64_t kMinParallelProduct = 1 << 16;

/// Items per task so that each task holds at least \p minimum of what one
/// item holds \p perItem of.
inline int64_t grainFor(int64_t perItem, int64_t minimum) {
  return std::max<int64_t>(1, minimum / std::max<int64_t>(1, perItem));
}

class ThreadPool {
public:
  using Task = void (*)(const void *context, int64_t begin, int64_t end);

  /// The process's pool.
  static ThreadPool &shared();
  ~ThreadPool();

  /// Threads counting the caller: \p threads - 1 workers. Starting or
  /// stopping workers waits for a running job.
  void resize(size_t threads);
  size_t threads() const { return workers_.size() + 1; }
  /// The threads a job runs on now: the lender's while lent, else
  /// threads(). For sizing a job's chunks; read without locks.
  size_t concurrency() const {
    size_t lent = lentThreads_.load(std::memory_order_relaxed);
    return lent ? lent : threads();
  }

  /// Calls task(context, begin, end) over [0, count) in chunks of at
  /// least \p grain, on every thread; returns when all are done. Runs on
  /// the caller alone when the pool is busy (another thread's job) or the
  /// range is one chunk.
  void run(int64_t count, int64_t grain, Task task, const void *context);

  /// Idle workers stop spinning and sleep until the next job: a delegate
  /// about to run threads of its own (oneDNN's OpenMP team) calls it, so
  /// that the two do not spin against each other on the same cores.
  void rest();
  // How long an idle worker spins before it sleeps. Waking a sleeping
  // thread costs far more than a gap between kernels on virtual machines
  // (the second vCPU of a 2-vCPU guest, halted, took up to milliseconds: a
  // 16-token Llama prefill at 2 threads varied 2,800-6,800 tokens/s after
  // the LLM runner's 8 MB cache reset, 5,400-6,600 spinning 2 ms).
  // XNNPACK's pthreadpool and llama.cpp spin for milliseconds too.
  static constexpr uint64_t kDefaultSpinNanoseconds = 2'000'000;
  /// How long idle workers spin before they sleep: less saves power
  /// between sparse jobs and costs a wake-up per job.
  void setSpinNanoseconds(uint64_t nanos) { spinNanos_.store(nanos); }
  /// Workers asleep now (for tests).
  size_t sleepingWorkers() const { return sleeping_.load(); }

  /// Another process-wide pool that takes this pool's jobs while it is
  /// lent (the XNNPACK delegates lend their pthreadpool): two pools, each
  /// spinning its idle threads, would fight for the cores between a
  /// delegate and the next kernel. parallelize(impl, count, chunk, task,
  /// context) calls task over [0, count) in chunks of \p chunk and returns
  /// when all are done.
  struct Lender {
    void *impl = nullptr;
    size_t threads = 1;
    void (*parallelize)(void *impl, int64_t count, int64_t chunk, Task task,
                        const void *context) = nullptr;
  };
  /// Jobs go to \p lender from now on; this pool's own workers stop.
  void borrow(const Lender &lender);
  /// Stops using the lender \p impl (if it is the current one) once a
  /// running job ends, and restarts this pool's workers.
  void giveBack(const void *impl);
  /// Whether a lender's threads run this pool's jobs now (another library's
  /// pool that cannot be lent, such as oneDNN's OpenMP team, then keeps to
  /// the calling thread rather than spin against it).
  bool isLent() const { return lent_.load(std::memory_order_relaxed); }

  /// Sees every chunk of the jobs that run on several threads (et-run
  /// --trace): chunk(context, start, end) with nowNanoseconds() times, on
  /// the thread that ran the chunk. Set or clear it between jobs; null (the
  /// default) costs one load per job.
  struct ChunkObserver {
    void (*chunk)(void *context, uint64_t start, uint64_t end);
    void *context;
  };
  void setChunkObserver(const ChunkObserver *observer) {
    observer_.store(observer, std::memory_order_release);
  }

  /// run() with a callable: fn(begin, end).
  template <typename Fn> void parallelFor(int64_t count, int64_t grain, Fn &&fn) {
    run(count, grain,
        [](const void *context, int64_t begin, int64_t end) {
          (*static_cast<const std::remove_reference_t<Fn> *>(context))(begin,
                                                                        end);
        },
        &fn);
  }

private:
  ThreadPool() = default;
  void workerLoop(uint64_t seen);
  void work();
  void startWorkers(size_t threads); // with jobMutex_ held

  Lender lender_;        // impl null: none
  std::atomic<bool> lent_{false}; // lender_.impl != null, read without locks
  std::atomic<size_t> lentThreads_{0}; // lender_.threads while lent
  size_t wantedThreads_ = 1; // resize()'s count, kept while lent

  std::vector<std::thread> workers_;
  std::mutex jobMutex_; // one job at a time
  // The job: workers take chunks from next_ until count_.
  Task task_ = nullptr;
  const void *context_ = nullptr;
  int64_t count_ = 0, chunk_ = 1;
  std::atomic<int64_t> next_{0};
  // The job's gate: kGateOpen while workers may join it, plus how many
  // joined and have not left. The caller closes it after its own share and
  // waits only for those inside: a worker that wakes late (asleep, or its
  // core taken by another process) finds it closed and joins the next job.
  static constexpr int64_t kGateOpen = int64_t(1) << 40;
  std::atomic<int64_t> gate_{0};
  std::atomic<uint64_t> generation_{0};
  // Sleeping workers wait here.
  std::mutex sleepMutex_;
  std::condition_variable wake_;
  std::atomic<int> sleeping_{0};
  std::atomic<bool> resting_{false}; // rest() until the next job: no spinning
  std::atomic<uint64_t> spinNanos_{kDefaultSpinNanoseconds};
  bool stop_ = false;
  std::atomic<const ChunkObserver *> observer_{nullptr};
};

/// Threads the optimized kernels use: \p threads when not 0 (the loading
/// method's LoadOptions), else the hardware's; ETCH_KERNEL_THREADS
/// overrides both.
size_t kernelThreadCount(size_t threads);

} // namespace etch::runtime::optimized
