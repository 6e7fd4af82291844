//===- CApi.cpp - The runtime's C API (include/etch/c/etch_runtime.h) -----===//
//
// A thin layer over Module / Program / Method. Each entry point runs with
// the runtime's log captured: the first error logged during the call joins
// the status message, as the tools print it. Built like the runtime (no
// exceptions, no RTTI); allocations that fail are statuses.
//
//===----------------------------------------------------------------------===//
#include "etch/c/etch_runtime.h"

#include "runtime/core/MemoryPlanner.h"

#include "runtime/backend/Backend.h"
#include "runtime/executor/Method.h"
#include "runtime/module/Module.h"
#include "runtime/platform/Platform.h"

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

using namespace etch::runtime;

struct etch_status {
  etch_code code;
  std::string message;
  bool owned = true; // false: the static out-of-memory status
};

struct etch_program {
  // Exactly one of the two holds the bytes: a file mapping, or a copy.
  std::unique_ptr<Module> module;
  std::unique_ptr<uint8_t[], void (*)(uint8_t *)> copy{nullptr, nullptr};
  std::unique_ptr<Program> loaded;
  WeightsMapping weights; // for `loaded`
  LoadOptions options;    // every method loaded from it gets them
  std::string name;
  std::vector<const char *> methodNames;

  const Program &program() const {
    return module ? module->program() : *loaded;
  }
};

struct etch_method {
  std::unique_ptr<Method> method;
};

namespace {

static_assert(ETCH_MAX_RANK == kMaxRank, "etch_runtime.h's rank bound");
static_assert(ETCH_TENSOR_ALIGNMENT == kTensorAlignment,
              "etch_runtime.h's tensor alignment");
// etch_runtime.h is plain C and stands alone, so it spells the codes out;
// every one is checked against the runtime's tables here.
#define ETCH_C_DTYPE_MATCHES(name, code, size, text, cName)                    \
  static_assert(ETCH_##cName == code, "etch_dtype mirrors "                    \
                                      "ScalarType::" #name);
ETCH_FOR_EACH_SCALAR_TYPE(ETCH_C_DTYPE_MATCHES)
#undef ETCH_C_DTYPE_MATCHES
#define ETCH_C_CODE_MATCHES(name, code, cName)                                 \
  static_assert(ETCH_##cName == code, "etch_code mirrors Error::" #name);
ETCH_FOR_EACH_ERROR(ETCH_C_CODE_MATCHES)
#undef ETCH_C_CODE_MATCHES

/// The first error the runtime logs while a C API call runs on this
/// thread; other threads' messages go to the hook that was installed.
thread_local std::string *capturing = nullptr;
void (*previousLog)(LogLevel, const char *, int, const char *) = nullptr;

void captureLog(LogLevel level, const char *file, int line,
                const char *message) {
  if (capturing) {
    if (level >= LogLevel::Error && capturing->empty())
      *capturing = message;
    return;
  }
  if (previousLog)
    previousLog(level, file, line, message);
}

void installCapture() {
  static bool installed = [] {
    previousLog = platformHooks().log;
    PlatformHooks hooks{};
    hooks.log = captureLog;
    setPlatformHooks(hooks);
    registerAllBackends();
    return true;
  }();
  (void)installed;
}

/// Captures the runtime's first error for the scope of one call.
class Capture {
public:
  Capture() {
    installCapture();
    capturing = &first_;
  }
  ~Capture() { capturing = nullptr; }
  /// ": " and the first logged error, or "".
  std::string cause() const { return first_.empty() ? "" : ": " + first_; }

private:
  std::string first_;
};

etch_status *status(etch_code code, std::string message) {
  etch_status *made =
      new (std::nothrow) etch_status{code, std::move(message), true};
  // Out of memory for the status itself: a static one says so.
  static etch_status outOfMemory{ETCH_MEMORY_ALLOCATION_FAILED, "out of memory",
                                 false};
  return made ? made : &outOfMemory;
}

etch_status *status(Error error, const std::string &what,
                    const Capture &capture) {
  return status(static_cast<etch_code>(error),
                what + " (" + errorName(error) + ")" + capture.cause());
}

/// A C caller may pass any int as an etch_dtype; reading one outside the
/// enumerators through the enum type is undefined in C++, so its bytes are
/// read as the int they are (through a reference: no enum load).
int rawValue(const etch_dtype &dtype) {
  static_assert(sizeof(etch_dtype) == sizeof(int), "C's enum is an int");
  int value;
  std::memcpy(&value, &dtype, sizeof value);
  return value;
}

bool isDtype(const etch_dtype &dtype) {
  int value = rawValue(dtype);
  return value >= 0 && value <= kLastScalarType;
}

etch_status *invalid(const std::string &message) {
  return status(ETCH_INVALID_ARGUMENT, message);
}

/// options->weights_path where the caller's struct has that field.
const char *weightsPath(const etch_load_options *options) {
  bool has = options &&
             options->struct_size >= offsetof(etch_load_options, weights_path) +
                                         sizeof(options->weights_path);
  return has ? options->weights_path : nullptr;
}

/// The runtime's LoadOptions for the C caller's \p options (may be null).
LoadOptions loadOptions(const etch_load_options *options) {
  LoadOptions result;
  if (!options)
    return result;
  result.threads = options->threads;
  result.profileDelegates = options->profile_delegates != 0;
  result.weightsPath = weightsPath(options);
  return result;
}

/// etch_program_load's weights resolver: only the file the options name
/// (a program in memory has no folder to look beside).
struct WeightsFromOptions {
  const char *path;
  WeightsMapping *mapping;
  std::optional<std::string> unnamed; // set: the file the program wants

  static Result<const WeightsFile *> resolve(void *context,
                                             const char *compiledAgainst) {
    auto &lookup = *static_cast<WeightsFromOptions *>(context);
    if (!lookup.path) {
      lookup.unnamed = compiledAgainst;
      return Error::WeightsMismatch;
    }
    return lookup.mapping->reopen(lookup.path);
  }
};

etch_status *finishProgram(std::unique_ptr<etch_program> program,
                           etch_program **out) {
  const auto *methods = program->program().flatbuffer().methods();
  for (const auto *method : *methods)
    program->methodNames.push_back(method->name()->c_str());
  *out = program.release();
  return nullptr;
}

void fillInfo(const TensorView &tensor, const char *name,
              etch_tensor_info *info) {
  info->name = name ? name : "";
  info->dtype = static_cast<etch_dtype>(tensor.scalarType());
  info->rank = tensor.rank();
  for (int d = 0; d < ETCH_MAX_RANK; ++d) {
    int64_t size = d < tensor.rank() ? tensor.size(d) : 0;
    info->sizes[d] = info->min_sizes[d] = info->max_sizes[d] = size;
  }
  info->nbytes = tensor.nbytes();
}

} // namespace

extern "C" {

etch_code etch_status_code(const etch_status *status) {
  return status ? status->code : ETCH_OK;
}

const char *etch_status_message(const etch_status *status) {
  return status ? status->message.c_str() : "";
}

void etch_status_free(etch_status *status) {
  if (status && status->owned)
    delete status;
}

const char *etch_dtype_name(etch_dtype dtype) {
  if (!isDtype(dtype))
    return "unknown";
  return scalarTypeName(static_cast<ScalarType>(rawValue(dtype)));
}

size_t etch_dtype_size(etch_dtype dtype) {
  if (!isDtype(dtype))
    return 0;
  return elementSize(static_cast<ScalarType>(rawValue(dtype)));
}

const char *etch_version(void) { return ETCH_VERSION; }

void etch_load_options_init(etch_load_options *options) {
  if (!options)
    return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
}

etch_status *etch_program_open(const char *path,
                               const etch_load_options *options,
                               etch_program **program) {
  if (!path || !program)
    return invalid("etch_program_open: path and program must not be NULL");
  *program = nullptr;
  Capture capture;
  LoadOptions chosen = loadOptions(options);
  Result<std::unique_ptr<Module>> module = Module::open(path, chosen);
  if (!module.ok())
    return status(module.error(), std::string(path) + ": cannot load program",
                  capture);
  auto made = std::unique_ptr<etch_program>(new (std::nothrow) etch_program());
  if (!made)
    return status(ETCH_MEMORY_ALLOCATION_FAILED, "out of memory");
  made->module = std::move(*module);
  made->options = chosen;
  made->options.weightsPath = nullptr; // read by open only
  made->name = path;
  return finishProgram(std::move(made), program);
}

etch_status *etch_program_load(const void *data, size_t size, const char *name,
                               const etch_load_options *options,
                               etch_program **program) {
  std::string shown = name ? name : "<memory>";
  if (!program || (!data && size))
    return invalid("etch_program_load: data and program must not be NULL");
  *program = nullptr;
  Capture capture;
  auto made = std::unique_ptr<etch_program>(new (std::nothrow) etch_program());
  if (!made)
    return status(ETCH_MEMORY_ALLOCATION_FAILED, "out of memory");
  made->options = loadOptions(options);
  // Aligned as a mapping is: the program's segments start on 64-byte
  // boundaries of the file.
  made->copy = {static_cast<uint8_t *>(platformAllocate(size ? size : 1, 64)),
                [](uint8_t *bytes) { platformDeallocate(bytes); }};
  if (!made->copy)
    return status(ETCH_MEMORY_ALLOCATION_FAILED,
                  shown + ": cannot load program (MemoryAllocationFailed): " +
                      std::to_string(size) + " bytes");
  if (size)
    std::memcpy(made->copy.get(), data, size);
  WeightsFromOptions lookup{made->options.weightsPath, &made->weights, {}};
  Result<Program> loaded = Program::load(
      made->copy.get(), size, {WeightsFromOptions::resolve, &lookup});
  if (!loaded.ok() && lookup.unnamed)
    return status(ETCH_WEIGHTS_MISMATCH,
                  shown + ": cannot load program: it keeps its weights in '" +
                      *lookup.unnamed +
                      "'; set etch_load_options.weights_path");
  if (!loaded.ok())
    return status(loaded.error(), shown + ": cannot load program", capture);
  made->loaded = std::make_unique<Program>(std::move(*loaded));
  made->options.weightsPath = nullptr; // the caller's string ends here
  made->name = shown;
  return finishProgram(std::move(made), program);
}

void etch_program_free(etch_program *program) { delete program; }

size_t etch_program_method_count(const etch_program *program) {
  return program ? program->methodNames.size() : 0;
}

const char *etch_program_method_name(const etch_program *program,
                                     size_t index) {
  if (!program || index >= program->methodNames.size())
    return nullptr;
  return program->methodNames[index];
}

const char *etch_program_metadata(const etch_program *program,
                                  const char *key) {
  return program && key ? program->program().metadata(key) : nullptr;
}

struct etch_state {
  SharedState shared;
};

etch_status *etch_state_create(etch_state **state) {
  if (!state)
    return invalid("etch_state_create: state must not be NULL");
  *state = new (std::nothrow) etch_state();
  return *state ? nullptr
                : status(ETCH_MEMORY_ALLOCATION_FAILED, "out of memory");
}

void etch_state_free(etch_state *state) { delete state; }

etch_status *etch_method_load(const etch_program *program, const char *name,
                              etch_method **method) {
  return etch_method_load_shared(program, name, nullptr, method);
}

etch_status *etch_method_load_shared(const etch_program *program,
                                     const char *name, etch_state *state,
                                     etch_method **method) {
  if (!program || !method)
    return invalid("etch_method_load: program and method must not be NULL");
  *method = nullptr;
  const char *wanted = name ? name : "forward";
  Capture capture;
  Result<std::unique_ptr<Method>> loaded =
      Method::load(program->program(), wanted, state ? &state->shared : nullptr,
                   program->options);
  if (!loaded.ok())
    return status(loaded.error(),
                  program->name + ": cannot load method '" + wanted + "'",
                  capture);
  auto *made = new (std::nothrow) etch_method{std::move(*loaded)};
  if (!made)
    return status(ETCH_MEMORY_ALLOCATION_FAILED, "out of memory");
  *method = made;
  return nullptr;
}

void etch_method_free(etch_method *method) { delete method; }

size_t etch_method_input_count(const etch_method *method) {
  return method ? method->method->inputCount() : 0;
}

size_t etch_method_output_count(const etch_method *method) {
  return method ? method->method->outputCount() : 0;
}

etch_status *etch_method_input_info(const etch_method *method, size_t index,
                                    etch_tensor_info *info) {
  if (!method || !info)
    return invalid("etch_method_input_info: method and info must not be NULL");
  Method &m = *method->method;
  if (index >= m.inputCount())
    return status(ETCH_INDEX_OUT_OF_RANGE,
                  "input " + std::to_string(index) +
                      " does not exist (the method takes " +
                      std::to_string(m.inputCount()) + ")");
  fillInfo(m.input(index), m.inputName(index), info);
  for (int d = 0; d < info->rank; ++d) {
    info->min_sizes[d] = m.inputMinSize(index, d);
    info->max_sizes[d] = m.inputMaxSize(index, d);
  }
  return nullptr;
}

etch_status *etch_method_output_info(const etch_method *method, size_t index,
                                     etch_tensor_info *info) {
  if (!method || !info)
    return invalid("etch_method_output_info: method and info must not be NULL");
  const Method &m = *method->method;
  if (index >= m.outputCount())
    return status(ETCH_INDEX_OUT_OF_RANGE,
                  "output " + std::to_string(index) +
                      " does not exist (the method has " +
                      std::to_string(m.outputCount()) + ")");
  fillInfo(m.output(index), m.outputName(index), info);
  return nullptr;
}

/// set_input and bind_input: the argument checks, then the method's. dtype
/// by reference: an out-of-range value from C is read through its bytes
/// (rawValue), never loaded as an enum.
static etch_status *giveInput(const char *function, etch_method *method,
                              size_t index, const etch_dtype &dtype,
                              const int64_t *sizes, int32_t rank,
                              const void *data, size_t nbytes, int *bound) {
  if (!method || (!sizes && rank > 0) || (!data && nbytes))
    return invalid(std::string(function) +
                   ": method, sizes and data must not be NULL");
  if (!isDtype(dtype))
    return status(ETCH_INVALID_TYPE, "input " + std::to_string(index) +
                                         ": dtype " +
                                         std::to_string(rawValue(dtype)) +
                                         " is not an etch_dtype");
  Capture capture;
  auto type = static_cast<ScalarType>(rawValue(dtype));
  bool inPlace = false;
  Error error =
      bound ? method->method->bindInput(index, type, sizes, rank, data, nbytes,
                                        &inPlace)
            : method->method->setInput(index, type, sizes, rank, data, nbytes);
  if (bound)
    *bound = inPlace;
  if (error != Error::Ok)
    return status(error, "cannot set input " + std::to_string(index), capture);
  return nullptr;
}

etch_status *etch_method_set_input(etch_method *method, size_t index,
                                   etch_dtype dtype, const int64_t *sizes,
                                   int32_t rank, const void *data,
                                   size_t nbytes) {
  return giveInput("etch_method_set_input", method, index, dtype, sizes, rank,
                   data, nbytes, nullptr);
}

etch_status *etch_method_bind_input(etch_method *method, size_t index,
                                    etch_dtype dtype, const int64_t *sizes,
                                    int32_t rank, const void *data,
                                    size_t nbytes, int *bound) {
  int ignored = 0;
  return giveInput("etch_method_bind_input", method, index, dtype, sizes, rank,
                   data, nbytes, bound ? bound : &ignored);
}

etch_status *etch_method_execute(etch_method *method) {
  if (!method)
    return invalid("etch_method_execute: method must not be NULL");
  Capture capture;
  Error error = method->method->execute();
  if (error != Error::Ok)
    return status(error, "execution failed", capture);
  return nullptr;
}

etch_status *etch_method_output_data(const etch_method *method, size_t index,
                                     const void **data, size_t *nbytes) {
  etch_tensor_info info;
  if (!data || !nbytes)
    return invalid("etch_method_output_data: data and nbytes must not be NULL");
  if (etch_status *problem = etch_method_output_info(method, index, &info))
    return problem;
  *data = method->method->output(index).data();
  *nbytes = info.nbytes;
  return nullptr;
}

etch_status *etch_method_copy_output(const etch_method *method, size_t index,
                                     void *buffer, size_t capacity) {
  const void *data = nullptr;
  size_t nbytes = 0;
  if (etch_status *problem =
          etch_method_output_data(method, index, &data, &nbytes))
    return problem;
  if (!buffer && nbytes)
    return invalid("etch_method_copy_output: buffer must not be NULL");
  if (capacity < nbytes)
    return status(ETCH_INVALID_ARGUMENT,
                  "output " + std::to_string(index) + " holds " +
                      std::to_string(nbytes) + " bytes; the buffer has " +
                      std::to_string(capacity));
  if (nbytes)
    std::memcpy(buffer, data, nbytes);
  return nullptr;
}

void etch_method_reset_state(etch_method *method) {
  if (method)
    method->method->resetState();
}

} // extern "C"
