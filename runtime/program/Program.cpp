#include "runtime/program/Program.h"

#include "runtime/core/Tensor.h"
#include "runtime/platform/Platform.h"
#include "runtime/program/FileHeader.h"
#include "runtime/program/VectorAlignment.h"

#include <cstring>

namespace etch::runtime {
namespace {

// Program files store ScalarType's codes; the schema numbers them again.
#define ETCH_SCHEMA_TYPE_MATCHES(name, code, size, text, cName)                \
  static_assert(static_cast<int>(schema::ScalarType::name) == code,            \
                "program.fbs numbers ScalarType::" #name " as the runtime");
ETCH_FOR_EACH_SCALAR_TYPE(ETCH_SCHEMA_TYPE_MATCHES)
#undef ETCH_SCHEMA_TYPE_MATCHES
static_assert(static_cast<int>(schema::ScalarType::MAX) == kLastScalarType,
              "program.fbs has a type the runtime lacks");

Error fail(Error error, const char *what) {
  ET_LOG(Error, "program: %s", what);
  return error;
}

/// a + b <= limit without overflow.
bool fits(uint64_t a, uint64_t b, uint64_t limit) {
  return a <= limit && b <= limit - a;
}

/// What is wrong with a tensor's quantization parameters, or null: kernels
/// index scales by the quantized dimension and clamp to [qmin, qmax] of the
/// storage type without further checks.
const char *quantizationProblem(const schema::Tensor &tensor,
                                const schema::Quantization &quant) {
  int64_t low, high;
  switch (tensor.scalar_type()) {
  case schema::ScalarType::Int8: low = INT8_MIN, high = INT8_MAX; break;
  case schema::ScalarType::UInt8: low = 0, high = UINT8_MAX; break;
  case schema::ScalarType::Int16: low = INT16_MIN, high = INT16_MAX; break;
  case schema::ScalarType::Int32: low = INT32_MIN, high = INT32_MAX; break;
  default: return "only int8, uint8, int16 and int32 tensors are quantized";
  }
  const auto *scales = quant.scales();
  const auto *zeroPoints = quant.zero_points();
  if (!scales || !zeroPoints || !hasAlignedElements(scales) ||
      !hasAlignedElements(zeroPoints))
    return "quantization scales or zero points missing or misaligned";
  uint32_t rank = tensor.sizes() ? tensor.sizes()->size() : 0;
  uint64_t count = 1;
  if (quant.axis() != -1) {
    if (quant.axis() < 0 || static_cast<uint32_t>(quant.axis()) >= rank)
      return "quantization axis out of range";
    count = static_cast<uint64_t>(tensor.sizes()->Get(quant.axis()));
  }
  if (scales->size() != count || zeroPoints->size() != count)
    return "quantization needs one scale and zero point per index of its axis";
  for (uint32_t i = 0; i < count; ++i) {
    double scale = scales->Get(i);
    int64_t zeroPoint = zeroPoints->Get(i);
    if (!(scale > 0) || scale > 3.4e38 || zeroPoint < low || zeroPoint > high)
      return "quantization scale not positive and finite, or zero point "
             "outside the storage range";
  }
  if (quant.qmin() < low || quant.qmax() > high || quant.qmin() > quant.qmax())
    return "quantization range [qmin, qmax] outside the storage type";
  return nullptr;
}

Error verifyTensor(const schema::Method &method, const schema::Tensor &tensor,
                   uint32_t index, const schema::Program &program) {
  char where[160];
  auto bad = [&](const char *what) {
    std::snprintf(where, sizeof(where), "method '%s', value %u: %s",
                  method.name()->c_str(), index, what);
    return fail(Error::InvalidProgram, where);
  };
  if (static_cast<uint8_t>(tensor.scalar_type()) > kLastScalarType)
    return bad("unknown scalar type");
  const auto *sizes = tensor.sizes();
  if (!hasAlignedElements(sizes))
    return bad("sizes vector is misaligned");
  uint32_t rank = sizes ? sizes->size() : 0;
  if (rank > static_cast<uint32_t>(kMaxRank))
    return bad("rank exceeds the runtime's maximum");
  uint64_t numel = 1;
  for (uint32_t d = 0; d < rank; ++d) {
    int64_t size = sizes->Get(d);
    if (size < 0)
      return bad("negative size");
    if (size && numel > UINT64_MAX / static_cast<uint64_t>(size))
      return bad("element count overflows");
    numel *= size;
  }
  uint64_t element = elementSize(static_cast<ScalarType>(tensor.scalar_type()));
  if (numel > UINT64_MAX / element || numel * element != tensor.nbytes())
    return bad("nbytes does not match sizes and scalar type");
  // Arenas and segments start 64-byte aligned; kernels read elements in place.
  if (tensor.offset() % element != 0)
    return bad("offset is not a multiple of the element size");
  if (const auto *order = tensor.dim_order()) {
    if (order->size() != rank)
      return bad("dim_order length differs from the rank");
    for (uint32_t d = 0; d < rank; ++d)
      if (order->Get(d) != d)
        return bad("only contiguous (row-major) dim order is supported");
  }
  if (const schema::Quantization *quant = tensor.quantization())
    if (const char *problem = quantizationProblem(tensor, *quant))
      return bad(problem);
  switch (tensor.storage()) {
  case schema::TensorStorage::Arena: {
    const auto *arenas = method.arena_sizes();
    if (!arenas || tensor.arena() >= arenas->size())
      return bad("arena index out of range");
    if (!fits(tensor.offset(), tensor.nbytes(), arenas->Get(tensor.arena())))
      return bad("offset + nbytes exceeds its arena");
    return Error::Ok;
  }
  case schema::TensorStorage::Constant: {
    const auto *segments = program.segments();
    if (!segments || tensor.segment() >= segments->size())
      return bad("segment index out of range");
    if (!fits(tensor.offset(), tensor.nbytes(),
              segments->Get(tensor.segment())->size()))
      return bad("offset + nbytes exceeds its segment");
    return Error::Ok;
  }
  case schema::TensorStorage::Delegate:
    return Error::Ok;
  }
  return bad("unknown storage kind");
}

/// The value's tensor table, or null when \p index is not a tensor value.
const schema::Tensor *tensorAt(const schema::Method &method, int64_t index) {
  if (index < 0 || static_cast<uint64_t>(index) >= method.values()->size())
    return nullptr;
  return method.values()->Get(index)->kind_as_Tensor();
}

/// A tensor whose bytes the host can read: instructions never see
/// delegate-internal values.
bool isHostTensor(const schema::Method &method, int64_t index) {
  const schema::Tensor *tensor = tensorAt(method, index);
  return tensor && tensor->storage() != schema::TensorStorage::Delegate;
}

/// A memory-planned tensor: what instructions may write.
bool isArenaTensor(const schema::Method &method, int64_t index) {
  const schema::Tensor *tensor = tensorAt(method, index);
  return tensor && tensor->storage() == schema::TensorStorage::Arena;
}

Error verifyScalarValue(const schema::Value &value) {
  switch (value.kind_type()) {
  case schema::ValueKind::IntList:
    return hasAlignedElements(value.kind_as_IntList()->items()) ? Error::Ok
                                                     : Error::InvalidProgram;
  case schema::ValueKind::DoubleList:
    return hasAlignedElements(value.kind_as_DoubleList()->items()) ? Error::Ok
                                                        : Error::InvalidProgram;
  default:
    return Error::Ok;
  }
}

Error verifyMethod(const schema::Method &method,
                   const schema::Program &program) {
  char where[160];
  auto bad = [&](const char *what, uint32_t index) {
    std::snprintf(where, sizeof(where), "method '%s', %s %u",
                  method.name()->c_str(), what, index);
    return fail(Error::InvalidProgram, where);
  };
  if (!method.values() || !method.instructions() || !method.inputs() ||
      !method.outputs())
    return fail(Error::InvalidProgram, "method lacks values, instructions, "
                                       "inputs or outputs");
  if (!hasAlignedElements(method.arena_sizes())) {
    std::snprintf(where, sizeof(where),
                  "method '%s': arena_sizes vector is misaligned",
                  method.name()->c_str());
    return fail(Error::InvalidProgram, where);
  }
  const auto &values = *method.values();
  for (uint32_t i = 0; i < values.size(); ++i) {
    const schema::Value *value = values.Get(i);
    // A union type without its table is as empty as no type at all.
    if (!value || value->kind_type() == schema::ValueKind::NONE ||
        !value->kind())
      return bad("empty value", i);
    if (const schema::Tensor *tensor = value->kind_as_Tensor())
      ET_CHECK_OK(verifyTensor(method, *tensor, i, program));
    else if (verifyScalarValue(*value) != Error::Ok)
      return bad("misaligned list in value", i);
  }
  for (uint32_t index : *method.inputs())
    if (!isArenaTensor(method, index))
      return bad("input is not a memory-planned tensor: value", index);
  for (uint32_t index : *method.outputs())
    if (!isHostTensor(method, index))
      return bad("output is not a host tensor: value", index);
  if (const auto *bounds = method.input_bounds())
    for (uint32_t b = 0; b < bounds->size(); ++b) {
      const schema::InputBounds *entry = bounds->Get(b);
      const schema::Tensor *input =
          entry->input() < method.inputs()->size()
              ? tensorAt(method, method.inputs()->Get(entry->input()))
              : nullptr;
      uint32_t rank = input && input->sizes() ? input->sizes()->size() : 0;
      if (!input || !entry->min() || !entry->max() ||
          entry->min()->size() != rank || entry->max()->size() != rank ||
          !hasAlignedElements(entry->min()) ||
          !hasAlignedElements(entry->max()))
        return bad("malformed input bounds", b);
      // The planned shape is the upper bound.
      for (uint32_t d = 0; d < rank; ++d)
        if (entry->min()->Get(d) < 0 ||
            entry->min()->Get(d) > entry->max()->Get(d) ||
            entry->max()->Get(d) != input->sizes()->Get(d))
          return bad("input bounds do not fit the planned input", b);
    }
  uint32_t operatorCount = method.operators() ? method.operators()->size() : 0;
  uint32_t delegateCount = method.delegates() ? method.delegates()->size() : 0;
  const auto &instructions = *method.instructions();
  for (uint32_t i = 0; i < instructions.size(); ++i) {
    const schema::Instruction *instruction = instructions.Get(i);
    if (const schema::KernelCall *call = instruction->kind_as_KernelCall()) {
      if (call->operator_() >= operatorCount)
        return bad("operator index out of range in instruction", i);
      if (call->inputs())
        for (int32_t input : *call->inputs())
          if (input != -1 && !isHostTensor(method, input))
            return bad("kernel input is not a host tensor in instruction", i);
      if (!call->outputs() || call->outputs()->size() == 0)
        return bad("kernel call without outputs: instruction", i);
      for (uint32_t output : *call->outputs())
        if (!isArenaTensor(method, output))
          return bad("kernel output is not an arena tensor in instruction", i);
      if (call->attributes())
        for (const schema::NamedArgument *attribute : *call->attributes())
          if (attribute->value() >= values.size() ||
              values.Get(attribute->value())->kind_type() ==
                  schema::ValueKind::Tensor)
            return bad("attribute is not a scalar or list value in instruction",
                       i);
    } else if (const schema::DelegateCall *call =
                   instruction->kind_as_DelegateCall()) {
      if (call->delegate() >= delegateCount)
        return bad("delegate index out of range in instruction", i);
      if (call->inputs())
        for (uint32_t index : *call->inputs())
          if (!isHostTensor(method, index))
            return bad("delegate input is not a host tensor in instruction",
                       i);
      if (call->outputs())
        for (uint32_t index : *call->outputs())
          if (!isArenaTensor(method, index))
            return bad("delegate output is not an arena tensor in instruction",
                       i);
    } else {
      return bad("empty instruction", i);
    }
  }
  if (const auto *buffers = method.mutable_buffers())
    for (uint32_t b = 0; b < buffers->size(); ++b) {
      const schema::MutableBuffer *buffer = buffers->Get(b);
      const schema::Tensor *state = tensorAt(method, buffer->value());
      const schema::Tensor *update = tensorAt(method, buffer->update());
      if (!state || state->storage() != schema::TensorStorage::Arena)
        return bad("mutable buffer is not an arena tensor: buffer", b);
      if (!isHostTensor(method, buffer->update()) ||
          update->scalar_type() != state->scalar_type() ||
          update->nbytes() != state->nbytes())
        return bad("mutable buffer's update is not a host tensor of its type "
                   "and size: buffer",
                   b);
      int32_t initial = buffer->initial_segment();
      if (initial != -1 &&
          (initial < 0 || !program.segments() ||
           static_cast<uint32_t>(initial) >= program.segments()->size() ||
           program.segments()->Get(initial)->size() != state->nbytes()))
        return bad("mutable buffer's initial contents are not a segment of "
                   "its size: buffer",
                   b);
    }
  if (method.delegates())
    for (uint32_t i = 0; i < delegateCount; ++i) {
      const schema::DelegateEntry *entry = method.delegates()->Get(i);
      uint32_t segments = program.segments() ? program.segments()->size() : 0;
      if (entry->segment() >= segments)
        return bad("delegate blob segment out of range: delegate", i);
      if (entry->constants_segment() < -1 ||
          entry->constants_segment() >= static_cast<int64_t>(segments))
        return bad("delegate constants segment out of range: delegate", i);
    }
  return Error::Ok;
}

/// The segments in the file lie inside it; \p external says whether any is
/// kept in an external weights file (checkExternalSegments).
Error verifySegments(const schema::Program &program, uint64_t base, size_t size,
                     bool &external) {
  external = false;
  if (!program.segments())
    return Error::Ok;
  for (uint32_t i = 0; i < program.segments()->size(); ++i) {
    const schema::Segment *segment = program.segments()->Get(i);
    if (!segment->external()) {
      if (segment->offset() % kSegmentAlignment != 0 ||
          !fits(base, segment->offset(), size) ||
          !fits(base + segment->offset(), segment->size(), size))
        return fail(Error::InvalidProgram,
                    "a data segment lies outside the file (truncated?)");
      continue;
    }
    if (program.version() < 3)
      return fail(Error::InvalidProgram,
                  "an external segment in a version-2 program");
    external = true;
  }
  return Error::Ok;
}

/// Every external segment is in \p weights under its checksum and size.
Error checkExternalSegments(const schema::Program &program,
                            const WeightsFile &weights) {
  const char *weightsName =
      program.weights_file() ? program.weights_file()->c_str() : "";
  for (uint32_t i = 0; i < program.segments()->size(); ++i) {
    const schema::Segment *segment = program.segments()->Get(i);
    if (segment->external() &&
        !weights.find(segment->checksum(), segment->size()).data()) {
      ET_LOG(Error,
             "program: %s has no entry for segment %u (%llu bytes, checksum "
             "%016llx): it holds another program's weights (this one was "
             "compiled against '%s')",
             weights.name(), i,
             static_cast<unsigned long long>(segment->size()),
             static_cast<unsigned long long>(segment->checksum()), weightsName);
      return Error::WeightsMismatch;
    }
  }
  return Error::Ok;
}

/// load(data, size, weights)'s resolver: the file given, if any.
Result<const WeightsFile *> givenWeights(void *context, const char *name) {
  const auto *weights = static_cast<const WeightsFile *>(context);
  if (!weights) {
    ET_LOG(Error,
           "program: its weights are in an external file ('%s'); load it "
           "with the program (et-run --weights FILE)",
           name);
    return Error::WeightsMismatch;
  }
  return weights;
}

} // namespace

Result<Program> Program::load(const void *data, size_t size,
                              const WeightsFile *weights) {
  return verify(data, size, {givenWeights, const_cast<WeightsFile *>(weights)});
}

Result<Program> Program::load(const void *data, size_t size,
                              const WeightsResolver &resolver) {
  return verify(data, size, resolver);
}

Result<Program> Program::verify(const void *data, size_t size,
                                const WeightsResolver &resolver) {
  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  if (!data || size < sizeof(FileHeader))
    return fail(Error::InvalidProgram,
                "file is shorter than the 32-byte header");
  // Offsets inside are checked for alignment relative to the start; the
  // start itself must be aligned for those checks to mean anything.
  if (reinterpret_cast<uintptr_t>(data) % kSegmentAlignment != 0)
    return fail(Error::InvalidArgument,
                "program data must start on a 64-byte boundary (mmap it)");
  FileHeader header;
  std::memcpy(&header, bytes, sizeof(header));
  if (std::memcmp(header.magic, kProgramMagic, sizeof(kProgramMagic)) != 0)
    return fail(Error::InvalidProgram,
                "not an etch program (wrong magic; expected ETCHPRG)");
  if (header.headerVersion != kFileHeaderVersion)
    return fail(Error::ProgramVersionMismatch,
                "unsupported file header version");
  if (!fits(header.flatbufferOffset, header.flatbufferSize, size) ||
      header.flatbufferOffset % 8 != 0)
    return fail(Error::InvalidProgram,
                "flatbuffer extends past the end of the file (truncated?)");
  const uint8_t *buffer = bytes + header.flatbufferOffset;
  // The root offset and the 4-byte identifier come first.
  if (header.flatbufferSize < 2 * sizeof(flatbuffers::uoffset_t))
    return fail(Error::InvalidProgram, "flatbuffer is too short");
  if (!flatbuffers::BufferHasIdentifier(buffer, schema::ProgramIdentifier()))
    return fail(Error::InvalidProgram, "flatbuffer identifier is not ETP1");
  flatbuffers::Verifier verifier(buffer, header.flatbufferSize);
  if (!schema::VerifyProgramBuffer(verifier))
    return fail(Error::InvalidProgram,
                "flatbuffer verification failed (corrupt file)");
  const schema::Program *program = schema::GetProgram(buffer);
  if (program->version() < kOldestProgramVersion ||
      program->version() > kProgramVersion) {
    ET_LOG(Error, "program: version %u, this runtime reads versions %u to %u",
           program->version(), kOldestProgramVersion, kProgramVersion);
    return Error::ProgramVersionMismatch;
  }
  uint64_t base = segmentBase(header);
  bool external = false;
  ET_CHECK_OK(verifySegments(*program, base, size, external));
  if (const auto *entries = program->named_data())
    for (const schema::NamedData *entry : *entries)
      if (!program->segments() ||
          entry->segment() >= program->segments()->size())
        return fail(Error::InvalidProgram,
                    "named data's segment index is out of range");
  if (!program->methods() || program->methods()->size() == 0)
    return fail(Error::InvalidProgram, "program has no methods");
  for (const schema::Method *method : *program->methods())
    ET_CHECK_OK(verifyMethod(*method, *program));
  // The program is sound: now the file its external weights are in.
  const WeightsFile *weights = nullptr;
  if (external) {
    Result<const WeightsFile *> resolved = resolver.resolve(
        resolver.context,
        program->weights_file() ? program->weights_file()->c_str() : "");
    if (!resolved.ok())
      return resolved.error();
    weights = *resolved;
    ET_CHECK_OK(checkExternalSegments(*program, *weights));
  }
  return Program(bytes, size, program, base, weights);
}

const schema::Method *Program::method(const char *name) const {
  for (const schema::Method *method : *program_->methods())
    if (std::strcmp(method->name()->c_str(), name) == 0)
      return method;
  return nullptr;
}

const char *Program::metadata(const char *key) const {
  if (const auto *entries = program_->metadata())
    for (const schema::Metadata *entry : *entries)
      if (std::strcmp(entry->key()->c_str(), key) == 0)
        return entry->value()->c_str();
  return nullptr;
}

Span<const uint8_t> Program::namedData(const char *name) const {
  if (const auto *entries = program_->named_data())
    for (const schema::NamedData *entry : *entries)
      if (std::strcmp(entry->name()->c_str(), name) == 0)
        return segment(entry->segment());
  return Span<const uint8_t>(nullptr, 0);
}

Span<const uint8_t> Program::segment(uint32_t index) const {
  const schema::Segment *segment = program_->segments()->Get(index);
  if (segment->external())
    return weights_->find(segment->checksum(), segment->size());
  return Span<const uint8_t>(data_ + segmentBase_ + segment->offset(),
                             segment->size());
}

const char *Program::weightsFileName() const {
  return program_->weights_file() ? program_->weights_file()->c_str() : "";
}

} // namespace etch::runtime
