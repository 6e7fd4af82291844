// The delegate interface: a target's runtime half. A delegate is
// initialised once per method load with its blob and compile specs, then
// executed any number of times; it must not allocate in execute.
#pragma once

#include "runtime/backend/BlobFraming.h"
#include "runtime/core/LoadOptions.h"
#include "runtime/core/Result.h"
#include "runtime/core/Span.h"
#include "runtime/core/Tensor.h"

#include <cstdint>

namespace etch::runtime {

struct CompileSpec {
  const char *key;
  Span<const uint8_t> value;
};

/// A step a delegate timed itself (a GPU dispatch, measured on the device):
/// what ran, and its time summed over every execute since init.
struct DelegateEvent {
  const char *name; // static storage
  uint64_t nanos;
};

class Backend {
public:
  virtual ~Backend() = default;
  /// Verifies \p blob and builds what execute needs, with the tensors the
  /// call will pass (bound at load, so execute can stay allocation-free),
  /// under the embedder's \p options (threads, profiling, memory limit);
  /// returns an opaque handle.
  virtual Result<void *> init(const DelegateBlob &blob,
                              Span<const CompileSpec> specs,
                              Span<TensorView *> inputs,
                              Span<TensorView *> outputs,
                              const LoadOptions &options) = 0;
  virtual Error execute(void *handle, Span<TensorView *> inputs,
                        Span<TensorView *> outputs) = 0;
  /// The delegate's inputs took new shapes (dynamic dimensions, within the
  /// capacities planned at init): adapt and set the outputs' shapes. Called
  /// while the method prepares new input shapes, never from execute; it may
  /// allocate. The default refuses (a delegate without dynamic shapes).
  virtual Error resize(void *handle, Span<TensorView *> inputs,
                       Span<TensorView *> outputs);
  /// The steps a delegate timed, when it was initialised with
  /// LoadOptions::profileDelegates: writes the first \p out.size() and
  /// returns how many there are. Not called from execute. The default
  /// has none (the runtime's own per-instruction time covers the call).
  virtual size_t profile(void *handle, Span<DelegateEvent> out);
  virtual void destroy(void *handle) = 0;
};

/// The threads a delegate runs on: \p options.threads (et-run --threads,
/// the embedder), else its positive `num_threads` compile spec, else every
/// core.
size_t delegateThreadCount(Span<const CompileSpec> specs,
                           const LoadOptions &options);

/// How a delegate refuses its blob: logs "<target>: <what>" and returns
/// Error::DelegateInvalidBlob.
Error invalidBlob(const char *target, const char *what);

/// openBlob, then the schema's root (\p GetRoot of the target's generated
/// header) with its tensor and node tables present and the delegate call's
/// input and output counts; null, the reason logged by invalidBlob for
/// \p target, otherwise.
template <typename Root, bool (*Verify)(flatbuffers::Verifier &),
          const Root *(*GetRoot)(const void *)>
const Root *openBlobRoot(const char *target, const DelegateBlob &delegate,
                         const char *magic, uint32_t version, size_t inputs,
                         size_t outputs, FramedBlob &blob) {
  if (std::string problem = openBlob<Verify>(delegate, magic, version, blob);
      !problem.empty()) {
    invalidBlob(target, problem.c_str());
    return nullptr;
  }
  const Root *root = GetRoot(blob.flatbuffer);
  if (!root->tensors() || !root->nodes() || root->input_count() != inputs ||
      root->output_count() != outputs) {
    invalidBlob(target, "blob inputs/outputs differ from the delegate call's");
    return nullptr;
  }
  return root;
}

/// Registers \p backend under \p name (static registration; no allocation).
/// Returns false when the name is taken or the table is full.
bool registerBackend(const char *name, Backend *backend);
Backend *findBackend(const char *name);

/// Registers every backend the build includes (generated from
/// targets/CMakeLists.txt; link etch_backends). Idempotent.
void registerAllBackends();

} // namespace etch::runtime

/// A target's runtime registers its backend with this one line: it defines
/// etchRegisterBackend_<name>(), which registerAllBackends calls.
#define ETCH_REGISTER_BACKEND(name, BackendType)                               \
  bool etchRegisterBackend_##name() {                                          \
    static BackendType backend;                                                \
    return ::etch::runtime::registerBackend(#name, &backend);                  \
  }
