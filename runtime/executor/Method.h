// An executable method: tensors bound to arenas and constant segments,
// kernel calls resolved and validated, delegates initialised -- all at load.
// execute() then runs the instruction list with no allocation and no checks
// beyond what load established.
#pragma once

#include "runtime/backend/Backend.h"
#include "runtime/core/LoadOptions.h"
#include "runtime/core/Result.h"
#include "runtime/executor/SharedState.h"
#include "runtime/kernels/KernelCall.h"
#include "runtime/platform/Platform.h"
#include "runtime/program/Program.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace etch::runtime {

class Method {
public:
  /// With \p shared, the method's state buffers are those of that name in
  /// \p shared (made by the first method that declares them): methods of
  /// one program loaded with one SharedState (Module does) share them.
  /// \p options reach the kernels' thread pool and every delegate's init.
  static Result<std::unique_ptr<Method>> load(const Program &program,
                                              const char *name,
                                              SharedState *shared = nullptr,
                                              const LoadOptions &options = {});
  ~Method();
  Method(const Method &) = delete;
  Method &operator=(const Method &) = delete;

  size_t inputCount() const { return inputs_.size(); }
  /// Input tensors live in the arena; fill them before execute().
  TensorView &input(size_t index) { return *inputs_[index]; }
  const TensorView &input(size_t index) const { return *inputs_[index]; }
  const char *inputName(size_t index) const;
  size_t outputCount() const { return outputs_.size(); }
  const TensorView &output(size_t index) const { return *outputs_[index]; }
  const char *outputName(size_t index) const;

  /// Copies \p bytes into input \p index after checking type and shape. An
  /// input with dynamic dimensions takes any shape within its bounds; the
  /// method then prepares the new shapes before the next execute.
  Error setInput(size_t index, ScalarType type, const int64_t *sizes, int rank,
                 const void *bytes, size_t nbytes);
  /// setInput without the copy where the method allows it: when only
  /// kernels read input \p index (no delegate reads it, nothing writes it,
  /// it is no output) and \p bytes is kTensorAlignment-aligned, the input
  /// points at the caller's memory, which must stay valid and unchanged
  /// until the next execute() returns. Else it copies, as setInput does.
  /// \p bound (may be null) says whether it bound.
  Error bindInput(size_t index, ScalarType type, const int64_t *sizes, int rank,
                  const void *bytes, size_t nbytes, bool *bound);
  /// Bounds of input \p index's dimension \p dim (equal for static dims).
  int64_t inputMinSize(size_t index, int dim) const;
  int64_t inputMaxSize(size_t index, int dim) const;

  /// After inputs changed shape: computes every tensor's shape (kernels'
  /// shape functions and size computations, delegates' resize), so that
  /// execute only computes. Delegates may allocate here (XNNPACK rebuilds
  /// its graph for new shapes); nothing else does. execute() calls it when
  /// needed; call it first to keep that work out of the timed execute.
  Error prepare();

  /// Called after each instruction (et-run --dump-intermediates).
  struct InstructionObserver {
    void (*after)(void *context, const Method &method, size_t instruction);
    void *context;
  };
  /// Runs every instruction. With \p instructionNanos (one slot per
  /// instruction), adds each instruction's time to its slot; with
  /// \p observer, calls it after each.
  Error execute(uint64_t *instructionNanos = nullptr,
                const InstructionObserver *observer = nullptr);

  /// Mutable buffers: state the method keeps between executions (KV
  /// caches). Each execute reads them and leaves their new contents.
  size_t stateCount() const { return states_.size(); }
  const char *stateName(size_t index) const { return states_[index].name; }
  const TensorView &state(size_t index) const { return *states_[index].value; }
  /// Gives every mutable buffer its initial contents again (load does it
  /// once): the next execute starts a new sequence.
  void resetState();

  size_t instructionCount() const { return calls_.size(); }
  /// "edge.convolution", or "delegate:<target>".
  const char *instructionName(size_t index) const { return calls_[index].name; }
  uint64_t arenaBytes() const { return arenaBytes_; }
  /// The tensors instruction \p index writes (a delegate: its outputs).
  Span<TensorView *const> instructionOutputs(size_t index) const {
    const Span<TensorView *> &outputs = calls_[index].args.outputs;
    return Span<TensorView *const>(outputs.data(), outputs.size());
  }
  /// Debug handles (InstructionDebug): how many Edge ops instruction
  /// \p index runs (0 when the program has no debug handles), and each
  /// op's name, the producer's node and source line ("" where unknown).
  size_t debugOpCount(size_t index) const;
  const char *debugOp(size_t index, size_t op) const;
  const char *debugNode(size_t index, size_t op) const;
  const char *debugSource(size_t index, size_t op) const;
  /// The producer node of instruction \p index's output \p output (inside
  /// a delegate, of the op that computes it; "" where unknown) and which
  /// of that op's results it is.
  const char *debugOutputNode(size_t index, size_t output) const;
  uint32_t debugOutputResult(size_t index, size_t output) const;
  /// The steps delegate instruction \p index timed itself (delegate
  /// profiling on at load): the first \p out.size() are written; returns
  /// how many there are, 0 for a kernel call.
  size_t delegateEvents(size_t index, Span<DelegateEvent> out) const;

private:
  struct Call {
    const char *name;
    const KernelEntry *kernel = nullptr; // kernel calls
    KernelCall args;
    bool shapeOnly = false;     // also runs while preparing shapes
    Backend *backend = nullptr; // delegate calls
    void *handle = nullptr;
  };
  struct State {
    const char *name;
    TensorView *value, *update;
    Span<const uint8_t> initial; // empty: zeros
  };
  struct InputBounds {
    int64_t min[kMaxRank], max[kMaxRank];
  };

  /// A state buffer's planned bytes in arena \p arena, and where its
  /// shared memory is.
  struct SharedRange {
    uint32_t arena;
    uint64_t begin, end;
    uint8_t *memory;
  };

  Method() = default;
  Error bind(const Program &program, const schema::Method &method,
             SharedState *shared, const LoadOptions &options);
  /// The shared memory of each state buffer's arena range, into \p ranges
  /// (one per mutable buffer).
  Error shareState(const Program &program, const schema::Method &method,
                   SharedState &shared, SharedRange *ranges);
  /// Call \p index takes its inputs' current shapes: a kernel validates
  /// and resizes its outputs, a delegate resizes.
  Error reshape(size_t index);
  /// Type and shape checks of setInput; resizes a dynamic input.
  Error acceptInput(size_t index, ScalarType type, const int64_t *sizes,
                    int rank, size_t nbytes);
  /// Which inputs bindInput may point at caller memory.
  void findBindableInputs();

  const schema::Method *method_ = nullptr;
  std::vector<PlatformBlock> arenas_;
  uint64_t arenaBytes_ = 0;
  std::vector<TensorView> tensors_;
  std::vector<QuantParams> quantParams_; // one per value; used when quantized
  std::vector<TensorView *> inputs_, outputs_;
  std::vector<InputBounds> inputBounds_;
  std::vector<void *> inputArena_; // each input's planned place
  std::vector<uint8_t> inputBindable_; // bytes: vector<bool> is more code
  bool shapesChanged_ = false;
  std::vector<TensorView *> argumentPointers_;
  std::vector<NamedAttribute> attributes_;
  std::vector<Call> calls_;
  std::vector<State> states_;
};

} // namespace etch::runtime
