#include "runtime/executor/Method.h"
#include "runtime/core/MemoryPlanner.h"

#include "runtime/platform/Platform.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace etch::runtime {
namespace {


AttributeValue attributeValue(const schema::Value &value) {
  AttributeValue result;
  using Kind = AttributeValue::Kind;
  switch (value.kind_type()) {
  case schema::ValueKind::Int:
    result.kind = Kind::Int;
    result.intValue = value.kind_as_Int()->value();
    break;
  case schema::ValueKind::Double:
    result.kind = Kind::Double;
    result.doubleValue = value.kind_as_Double()->value();
    break;
  case schema::ValueKind::Bool:
    result.kind = Kind::Bool;
    result.boolValue = value.kind_as_Bool()->value();
    break;
  case schema::ValueKind::IntList:
    result.kind = Kind::IntList;
    if (const auto *items = value.kind_as_IntList()->items())
      result.ints = Span<const int64_t>(items->data(), items->size());
    break;
  case schema::ValueKind::DoubleList:
    result.kind = Kind::DoubleList;
    if (const auto *items = value.kind_as_DoubleList()->items())
      result.doubles = Span<const double>(items->data(), items->size());
    break;
  case schema::ValueKind::BoolList:
    result.kind = Kind::BoolList;
    if (const auto *items = value.kind_as_BoolList()->items())
      result.bools = Span<const uint8_t>(items->data(), items->size());
    break;
  case schema::ValueKind::String:
    result.kind = Kind::String;
    result.string = value.kind_as_String()->value()
                        ? value.kind_as_String()->value()->c_str()
                        : "";
    break;
  default:
    result.kind = Kind::None;
    break;
  }
  return result;
}

} // namespace

Result<std::unique_ptr<Method>> Method::load(const Program &program,
                                             const char *name,
                                             SharedState *shared,
                                             const LoadOptions &options) {
  const schema::Method *method = program.method(name);
  if (!method) {
    ET_LOG(Error, "program has no method '%s'", name);
    return Error::NotFound;
  }
  std::unique_ptr<Method> result(new Method());
  result->method_ = method;
  ET_CHECK_OK(result->bind(program, *method, shared, options));
  return result;
}

Method::~Method() {
  for (Call &call : calls_)
    if (call.backend && call.handle)
      call.backend->destroy(call.handle);
}

Error Method::shareState(const Program &program, const schema::Method &method,
                         SharedState &shared, SharedRange *ranges) {
  for (const schema::MutableBuffer *buffer : *method.mutable_buffers()) {
    // Verified at load: an arena tensor, an initial segment of its size.
    const schema::Tensor *state =
        method.values()->Get(buffer->value())->kind_as_Tensor();
    int32_t initial = buffer->initial_segment();
    Result<uint8_t *> memory = shared.acquire(
        buffer->name()->c_str(), static_cast<ScalarType>(state->scalar_type()),
        state->nbytes(),
        initial < 0 ? Span<const uint8_t>() : program.segment(initial),
        method.name()->c_str());
    if (!memory.ok())
      return memory.error();
    *ranges++ = {state->arena(), state->offset(),
                 state->offset() + state->nbytes(), *memory};
  }
  return Error::Ok;
}

Error Method::bind(const Program &program, const schema::Method &method,
                   SharedState *shared, const LoadOptions &options) {
  prepareKernels(options.threads);
  // One range per state buffer (an array: the core stays small).
  uint32_t sharedCount =
      shared && method.mutable_buffers() ? method.mutable_buffers()->size() : 0;
  std::unique_ptr<SharedRange[]> sharedRanges(
      sharedCount ? new (std::nothrow) SharedRange[sharedCount] : nullptr);
  if (sharedCount && !sharedRanges)
    return Error::MemoryAllocationFailed;
  if (sharedCount)
    ET_CHECK_OK(shareState(program, method, *shared, sharedRanges.get()));
  Span<const SharedRange> ranges(sharedRanges.get(), sharedCount);
  // Arenas: the memory plan, allocated once here; not one that holds
  // nothing but shared state (the plan's state arena).
  if (const auto *sizes = method.arena_sizes()) {
    for (uint32_t arena = 0; arena < sizes->size(); ++arena) {
      uint64_t size = sizes->Get(arena), covered = 0;
      for (const SharedRange &range : ranges)
        covered += range.arena == arena ? range.end - range.begin : 0;
      if (size && covered == size) {
        arenas_.emplace_back();
        continue;
      }
      if (size > options.memoryLimit - arenaBytes_) {
        ET_LOG(Error,
               "the method's arenas need more than the memory limit (%llu "
               "bytes)",
               static_cast<unsigned long long>(options.memoryLimit));
        return Error::MemoryAllocationFailed;
      }
      PlatformBlock memory = allocatePlatformBlock(size, 64);
      if (!memory) {
        ET_LOG(Error, "cannot allocate a %llu-byte arena",
               static_cast<unsigned long long>(size));
        return Error::MemoryAllocationFailed;
      }
      // Touched here, so the first execute does not pay its page faults.
      std::memset(memory.get(), 0, size);
      arenas_.push_back(std::move(memory));
      arenaBytes_ += size;
    }
  }
  // A value planned inside a state buffer's bytes (the state, an update
  // planned in place) lives in the shared memory at the same place.
  auto arenaAddress = [&](const schema::Tensor &tensor) -> uint8_t * {
    for (const SharedRange &range : ranges)
      if (tensor.arena() == range.arena && tensor.offset() >= range.begin &&
          tensor.offset() + tensor.nbytes() <= range.end)
        return range.memory + (tensor.offset() - range.begin);
    uint8_t *base = arenas_[tensor.arena()].get();
    return base ? base + tensor.offset() : nullptr;
  };
  const auto &values = *method.values();
  tensors_.resize(values.size());
  quantParams_.resize(values.size());
  for (uint32_t i = 0; i < values.size(); ++i) {
    const schema::Tensor *tensor = values.Get(i)->kind_as_Tensor();
    if (!tensor)
      continue;
    int64_t sizes[kMaxRank];
    int rank = tensor->sizes() ? static_cast<int>(tensor->sizes()->size()) : 0;
    for (int d = 0; d < rank; ++d)
      sizes[d] = tensor->sizes()->Get(d);
    tensors_[i].reset(static_cast<ScalarType>(tensor->scalar_type()), sizes,
                      rank);
    if (const schema::Quantization *quant = tensor->quantization()) {
      quantParams_[i] = {quant->scales()->data(), quant->zero_points()->data(),
                         quant->axis(), quant->qmin(), quant->qmax()};
      tensors_[i].setQuant(&quantParams_[i]);
    }
    switch (tensor->storage()) {
    case schema::TensorStorage::Arena:
      if (uint8_t *address = arenaAddress(*tensor))
        tensors_[i].setData(address);
      else {
        ET_LOG(Error, "value %u lies across shared state buffers", i);
        return Error::InvalidProgram;
      }
      break;
    case schema::TensorStorage::Constant:
      // Kernels never write their inputs; constants stay in the file image.
      tensors_[i].setData(const_cast<uint8_t *>(
          program.segment(tensor->segment()).data() + tensor->offset()));
      break;
    case schema::TensorStorage::Delegate:
      break;
    }
  }
  for (uint32_t index : *method.inputs()) {
    TensorView *input = &tensors_[index];
    inputs_.push_back(input);
    InputBounds bounds;
    for (int d = 0; d < input->rank(); ++d)
      bounds.min[d] = bounds.max[d] = input->size(d);
    inputBounds_.push_back(bounds);
  }
  if (const auto *allBounds = method.input_bounds())
    for (const schema::InputBounds *entry : *allBounds) {
      // Verified at load: the input exists, min/max have its rank, and max
      // is the planned shape.
      InputBounds &bounds = inputBounds_[entry->input()];
      for (uint32_t d = 0; d < entry->min()->size(); ++d)
        bounds.min[d] = entry->min()->Get(d);
    }
  for (uint32_t index : *method.outputs())
    outputs_.push_back(&tensors_[index]);
  if (const auto *buffers = method.mutable_buffers())
    for (const schema::MutableBuffer *buffer : *buffers) {
      // Verified at load: arena state, update of its type and size, and an
      // initial segment of its size.
      int32_t initial = buffer->initial_segment();
      states_.push_back({buffer->name()->c_str(), &tensors_[buffer->value()],
                         &tensors_[buffer->update()],
                         initial < 0 ? Span<const uint8_t>()
                                     : program.segment(initial)});
    }
  // Shared buffers got their initial contents when made: loading another
  // method must not reset a sequence one has begun.
  if (sharedCount == 0)
    resetState();

  // Size the argument arrays first so the spans below stay valid.
  const auto &instructions = *method.instructions();
  size_t pointerCount = 0, attributeCount = 0;
  for (const schema::Instruction *instruction : instructions) {
    if (const auto *call = instruction->kind_as_KernelCall()) {
      pointerCount += (call->inputs() ? call->inputs()->size() : 0) +
                      call->outputs()->size();
      attributeCount += call->attributes() ? call->attributes()->size() : 0;
    } else if (const auto *call = instruction->kind_as_DelegateCall()) {
      pointerCount += (call->inputs() ? call->inputs()->size() : 0) +
                      (call->outputs() ? call->outputs()->size() : 0);
    }
  }
  argumentPointers_.reserve(pointerCount);
  attributes_.reserve(attributeCount);
  calls_.resize(instructions.size());

  auto tensorSpan = [&](const auto *indices) {
    size_t begin = argumentPointers_.size();
    if (indices)
      for (auto index : *indices)
        argumentPointers_.push_back(index < 0 ? nullptr : &tensors_[index]);
    return Span<TensorView *>(argumentPointers_.data() + begin,
                              argumentPointers_.size() - begin);
  };

  for (uint32_t i = 0; i < instructions.size(); ++i) {
    Call &call = calls_[i];
    if (const auto *kernelCall = instructions.Get(i)->kind_as_KernelCall()) {
      const char *opName =
          method.operators()->Get(kernelCall->operator_())->name()->c_str();
      call.name = opName;
      call.kernel = findKernel(opName);
      if (!call.kernel) {
        ET_LOG(Error, "instruction %u: no kernel for operator '%s'%s", i,
               opName,
               selectiveKernels()
                   ? " (a selective build without it: build with this "
                     "program, scripts/selective-build.sh)"
                   : "");
        return Error::OperatorMissing;
      }
      call.args.opName = opName;
      call.args.instruction = i;
      call.shapeOnly = kernelCall->shape_only();
      call.args.inputs = tensorSpan(kernelCall->inputs());
      call.args.outputs = tensorSpan(kernelCall->outputs());
      size_t begin = attributes_.size();
      if (kernelCall->attributes())
        for (const schema::NamedArgument *attribute : *kernelCall->attributes())
          attributes_.push_back(
              {attribute->name()->c_str(),
               attributeValue(*values.Get(attribute->value()))});
      call.args.attributes = Span<const NamedAttribute>(
          attributes_.data() + begin, attributes_.size() - begin);
      ET_CHECK_OK(call.kernel->validate(call.args));
      // Sizes computed from shapes are known now (the planned shapes):
      // later calls validate against them.
      if (call.shapeOnly)
        call.kernel->run(call.args);
      continue;
    }
    const auto *delegateCall = instructions.Get(i)->kind_as_DelegateCall();
    const schema::DelegateEntry *entry =
        method.delegates()->Get(delegateCall->delegate());
    call.name = entry->target()->c_str();
    call.backend = findBackend(entry->target()->c_str());
    if (!call.backend) {
      ET_LOG(Error, "instruction %u: no backend '%s' is linked in", i,
             entry->target()->c_str());
      return Error::DelegateMissing;
    }
    call.args.inputs = tensorSpan(delegateCall->inputs());
    call.args.outputs = tensorSpan(delegateCall->outputs());
    // Every spec reaches the backend; they live only for init.
    std::vector<CompileSpec> specs;
    if (entry->specs())
      for (const schema::CompileSpec *spec : *entry->specs())
        specs.push_back({spec->key()->c_str(),
                         spec->value()
                             ? Span<const uint8_t>(spec->value()->data(),
                                                   spec->value()->size())
                             : Span<const uint8_t>()});
    DelegateBlob blob{program.segment(entry->segment()), {}};
    if (entry->constants_segment() >= 0)
      blob.constants = program.segment(entry->constants_segment());
    Result<void *> handle = call.backend->init(
        blob, Span<const CompileSpec>(specs.data(), specs.size()),
        call.args.inputs, call.args.outputs, options);
    if (!handle.ok()) {
      ET_LOG(Error, "instruction %u: backend '%s' rejected its blob", i,
             entry->target()->c_str());
      return handle.error();
    }
    call.handle = *handle;
  }
  findBindableInputs();
  return Error::Ok;
}

void Method::resetState() {
  for (State &state : states_) {
    if (state.initial.empty())
      std::memset(state.value->data(), 0, state.value->nbytes());
    else
      std::memcpy(state.value->data(), state.initial.data(),
                  state.value->nbytes());
  }
}

const char *Method::inputName(size_t index) const {
  const auto *names = method_->input_names();
  return names && index < names->size() ? names->Get(index)->c_str() : "";
}

const char *Method::outputName(size_t index) const {
  const auto *names = method_->output_names();
  return names && index < names->size() ? names->Get(index)->c_str() : "";
}

Error Method::acceptInput(size_t index, ScalarType type, const int64_t *sizes,
                          int rank, size_t nbytes) {
  if (index >= inputs_.size()) {
    ET_LOG(Error, "input %zu does not exist (the method takes %zu)", index,
           inputs_.size());
    return Error::InvalidArgument;
  }
  TensorView &input = *inputs_[index];
  if (type != input.scalarType()) {
    ET_LOG(Error, "input %zu is %s, the method expects %s", index,
           scalarTypeName(type), scalarTypeName(input.scalarType()));
    return Error::InvalidType;
  }
  if (rank != input.rank()) {
    ET_LOG(Error, "input %zu '%s' has %d dims, the method expects %d", index,
           inputName(index), rank, input.rank());
    return Error::InvalidShape;
  }
  const InputBounds &bounds = inputBounds_[index];
  bool sameShape = true;
  for (int d = 0; d < rank; ++d) {
    if (sizes[d] < bounds.min[d] || sizes[d] > bounds.max[d]) {
      if (bounds.min[d] == bounds.max[d])
        ET_LOG(Error, "input %zu '%s': dim %d is %lld, the method expects %lld",
               index, inputName(index), d, static_cast<long long>(sizes[d]),
               static_cast<long long>(bounds.min[d]));
      else
        ET_LOG(Error,
               "input %zu '%s': dim %d is %lld, outside its bounds [%lld, "
               "%lld]",
               index, inputName(index), d, static_cast<long long>(sizes[d]),
               static_cast<long long>(bounds.min[d]),
               static_cast<long long>(bounds.max[d]));
      return Error::InvalidShape;
    }
    sameShape &= sizes[d] == input.size(d);
  }
  // Within bounds, the shape fits the planned capacity.
  if (!sameShape) {
    input.resize(sizes, rank);
    shapesChanged_ = true;
  }
  if (nbytes != input.nbytes()) {
    ET_LOG(Error, "input %zu '%s' holds %zu bytes, its shape needs %zu", index,
           inputName(index), nbytes, input.nbytes());
    return Error::InvalidShape;
  }
  return Error::Ok;
}

Error Method::setInput(size_t index, ScalarType type, const int64_t *sizes,
                       int rank, const void *bytes, size_t nbytes) {
  ET_CHECK_OK(acceptInput(index, type, sizes, rank, nbytes));
  TensorView &input = *inputs_[index];
  input.setData(inputArena_[index]); // it may have been bound before
  std::memcpy(input.data(), bytes, nbytes);
  return Error::Ok;
}

Error Method::bindInput(size_t index, ScalarType type, const int64_t *sizes,
                        int rank, const void *bytes, size_t nbytes,
                        bool *bound) {
  bool inPlace = index < inputs_.size() && inputBindable_[index] &&
                 reinterpret_cast<uintptr_t>(bytes) % kTensorAlignment == 0;
  if (bound)
    *bound = false;
  if (!inPlace)
    return setInput(index, type, sizes, rank, bytes, nbytes);
  ET_CHECK_OK(acceptInput(index, type, sizes, rank, nbytes));
  // Kernels only read it (findBindableInputs), so const is kept.
  inputs_[index]->setData(const_cast<void *>(bytes));
  if (bound)
    *bound = true;
  return Error::Ok;
}

void Method::findBindableInputs() {
  inputArena_.clear();
  inputBindable_.assign(inputs_.size(), 1);
  auto notBindable = [&](const TensorView *tensor) {
    for (size_t i = 0; i < inputs_.size(); ++i)
      if (inputs_[i] == tensor)
        inputBindable_[i] = 0;
  };
  for (TensorView *input : inputs_)
    inputArena_.push_back(input->data());
  for (const Call &call : calls_) {
    for (TensorView *output : call.args.outputs)
      notBindable(output);
    if (call.backend) // a delegate binds its tensors' addresses at init
      for (TensorView *input : call.args.inputs)
        notBindable(input);
  }
  for (TensorView *output : outputs_)
    notBindable(output);
  for (const State &state : states_) {
    notBindable(state.value);
    notBindable(state.update);
  }
}

int64_t Method::inputMinSize(size_t index, int dim) const {
  return inputBounds_[index].min[dim];
}

int64_t Method::inputMaxSize(size_t index, int dim) const {
  return inputBounds_[index].max[dim];
}

namespace {
bool hasOnlyEmptyOutputs(const KernelCall &call) {
  for (const TensorView *output : call.outputs)
    if (!output || output->numel() != 0)
      return false;
  return !call.outputs.empty();
}
} // namespace

Error Method::reshape(size_t index) {
  Call &call = calls_[index];
  if (call.kernel) {
    call.args.resizeOutputs = true;
    Error error = call.kernel->validate(call.args);
    call.args.resizeOutputs = false;
    return error; // on failure the kernel said what does not fit
  }
  Error error =
      call.backend->resize(call.handle, call.args.inputs, call.args.outputs);
  if (error != Error::Ok)
    ET_LOG(Error,
           "instruction %zu: delegate '%s' cannot take the new input "
           "shapes",
           index, call.name);
  return error;
}

Error Method::prepare() {
  if (!shapesChanged_)
    return Error::Ok;
  for (size_t i = 0; i < calls_.size(); ++i) {
    ET_CHECK_OK(reshape(i));
    if (calls_[i].kernel && calls_[i].shapeOnly)
      calls_[i].kernel->run(calls_[i].args);
  }
  shapesChanged_ = false;
  return Error::Ok;
}

size_t Method::delegateEvents(size_t index, Span<DelegateEvent> out) const {
  const Call &call = calls_[index];
  return call.backend ? call.backend->profile(call.handle, out) : 0;
}

Error Method::execute(uint64_t *instructionNanos,
                      const InstructionObserver *observer) {
  if (shapesChanged_)
    ET_CHECK_OK(prepare());
  // After a call whose output shapes come from its data (nonzero), each
  // later kernel call takes the shapes it is given before it runs. Not
  // delegates: the compiler leaves every op that reads such a shape to
  // kernels (a delegate would resize, allocating, here).
  bool shapesFromData = false;
  for (size_t i = 0; i < calls_.size(); ++i) {
    Call &call = calls_[i];
    uint64_t start = instructionNanos ? nowNanoseconds() : 0;
    if (shapesFromData && call.kernel)
      ET_CHECK_OK(reshape(i));
    if (call.kernel) {
      // Nothing to compute into empty outputs (a selection that found
      // nothing); kernels may assume at least one element.
      if (call.kernel->shapeFromData || !hasOnlyEmptyOutputs(call.args))
        call.kernel->run(call.args);
      shapesFromData |= call.kernel->shapeFromData;
    } else {
      Error error = call.backend->execute(call.handle, call.args.inputs,
                                          call.args.outputs);
      if (error != Error::Ok) {
        ET_LOG(Error, "instruction %zu: delegate '%s' failed", i, call.name);
        return error;
      }
    }
    if (instructionNanos)
      instructionNanos[i] += nowNanoseconds() - start;
    if (observer)
      observer->after(observer->context, *this, i);
  }
  // New contents of mutable buffers the compiler could not plan in place.
  for (State &state : states_)
    if (state.update->data() != state.value->data())
      // memmove: a damaged program may plan the two overlapping.
      std::memmove(state.value->data(), state.update->data(),
                   state.value->nbytes());
  return Error::Ok;
}

} // namespace etch::runtime
