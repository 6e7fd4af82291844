// Mutable buffers (state a method keeps between executions, as KV caches):
// programs built here with the schema's builders, one kernel call
// acc' = acc + x whose result is the buffer's new contents. The state starts
// from its initial segment (or zeros), carries across executes, resets on
// request, and is written back only when the update lives elsewhere; a
// damaged entry is refused at load with what is wrong.
#include "ProgramFile.h"

#include "runtime/executor/Method.h"
#include "runtime/program/FileHeader.h"
#include "runtime/program/Program.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace etch::runtime {
namespace {

struct StateProgramOptions {
  uint64_t updateOffset = 128; // 64: the update shares the state's bytes
  int32_t initialSegment = 0;  // -1: zeros
  uint64_t segmentBytes = 16;  // the initial contents' size
  int64_t updateSize = 4;      // elements of the update tensor
  uint32_t stateValue = 1;     // the value the buffer names
  bool stateArena = false;     // acc and its update (in place) in arena 1
};

/// A program whose method takes x [4], returns acc + x, and keeps acc:
/// arena 0: x at 0, acc at 64, the update at updateOffset; the initial
/// contents 1, 2, 3, 4 in segment 0.
flatbuffers::FlatBufferBuilder stateProgram(const StateProgramOptions &o) {
  flatbuffers::FlatBufferBuilder fbb;
  auto tensor = [&](uint64_t offset, int64_t count, uint32_t arena = 0) {
    std::vector<int64_t> sizes = {count};
    auto t = schema::CreateTensorDirect(
        fbb, schema::ScalarType::Float32, &sizes, nullptr,
        schema::TensorStorage::Arena, arena, 0, offset, count * 4);
    return schema::CreateValue(fbb, schema::ValueKind::Tensor, t.Union());
  };
  std::vector<flatbuffers::Offset<schema::Value>> values = {
      tensor(0, 4), o.stateArena ? tensor(0, 4, 1) : tensor(64, 4),
      o.stateArena ? tensor(0, o.updateSize, 1)
                   : tensor(o.updateOffset, o.updateSize)};
  std::vector<int32_t> addInputs = {1, 0};
  std::vector<uint32_t> addOutputs = {2};
  auto add = schema::CreateKernelCallDirect(fbb, 0, &addInputs, &addOutputs);
  std::vector<flatbuffers::Offset<schema::Instruction>> instructions = {
      schema::CreateInstruction(fbb, schema::InstructionKind::KernelCall,
                                add.Union())};
  std::vector<flatbuffers::Offset<schema::Operator>> operators = {
      schema::CreateOperatorDirect(fbb, "edge.add")};
  std::vector<uint32_t> inputs = {0}, outputs = {2};
  std::vector<uint64_t> arenas = {256};
  if (o.stateArena)
    arenas.push_back(16);
  std::vector<flatbuffers::Offset<schema::MutableBuffer>> buffers = {
      schema::CreateMutableBufferDirect(fbb, "acc", o.stateValue, 2,
                                        o.initialSegment)};
  auto method = schema::CreateMethodDirect(
      fbb, "forward", &values, &inputs, &outputs, nullptr, nullptr,
      &instructions, &operators, nullptr, &arenas, nullptr, &buffers);
  std::vector<flatbuffers::Offset<schema::Method>> methods = {method};
  std::vector<flatbuffers::Offset<schema::Segment>> segments = {
      schema::CreateSegment(fbb, 0, o.segmentBytes)};
  fbb.Finish(schema::CreateProgramDirect(fbb, kProgramVersion, &methods,
                                         &segments),
             schema::ProgramIdentifier());
  return fbb;
}

struct StateProgram : testing::ProgramFile {
  explicit StateProgram(const StateProgramOptions &o = {})
      : ProgramFile(stateProgram(o), 64, initialContents()) {}
  static std::string initialContents() {
    float initial[4] = {1, 2, 3, 4};
    return std::string(reinterpret_cast<const char *>(initial),
                       sizeof(initial));
  }
};

/// Runs the method once on x = 1 everywhere; the output's values.
std::vector<float> step(Method &method) {
  float ones[4] = {1, 1, 1, 1};
  int64_t sizes[1] = {4};
  EXPECT_EQ(method.setInput(0, ScalarType::Float32, sizes, 1, ones,
                            sizeof(ones)),
            Error::Ok);
  EXPECT_EQ(method.execute(), Error::Ok);
  const float *out = method.output(0).data<float>();
  return std::vector<float>(out, out + 4);
}

void expectStateCarries(const StateProgramOptions &options) {
  StateProgram file(options);
  Result<Program> program = Program::load(file.data(), file.size());
  ASSERT_TRUE(program.ok());
  Result<std::unique_ptr<Method>> loaded = Method::load(*program, "forward");
  ASSERT_TRUE(loaded.ok());
  Method &method = **loaded;
  ASSERT_EQ(method.stateCount(), 1u);
  EXPECT_STREQ(method.stateName(0), "acc");
  std::vector<float> initial = options.initialSegment < 0
                                   ? std::vector<float>{0, 0, 0, 0}
                                   : std::vector<float>{1, 2, 3, 4};
  auto plus = [&](float added) {
    std::vector<float> values = initial;
    for (float &value : values)
      value += added;
    return values;
  };
  EXPECT_EQ(step(method), plus(1));
  EXPECT_EQ(step(method), plus(2));
  EXPECT_EQ(method.state(0).data<float>()[3], plus(2)[3]);
  method.resetState();
  EXPECT_EQ(step(method), plus(1));
}

TEST(State, CarriesAcrossExecutesAndResets) { expectStateCarries({}); }

TEST(State, AnUpdatePlannedInPlaceNeedsNoCopy) {
  StateProgramOptions inPlace;
  inPlace.updateOffset = 64;
  expectStateCarries(inPlace);
}

TEST(State, WithoutInitialContentsStartsAtZero) {
  StateProgramOptions zeros;
  zeros.initialSegment = -1;
  expectStateCarries(zeros);
}

void expectRefused(const StateProgramOptions &options) {
  StateProgram file(options);
  Result<Program> program = Program::load(file.data(), file.size());
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.error(), Error::InvalidProgram);
}

TEST(State, DamagedEntriesAreRefusedAtLoad) {
  StateProgramOptions wrongSize;
  wrongSize.updateSize = 3; // the update does not fit the buffer
  expectRefused(wrongSize);
  StateProgramOptions shortInitial;
  shortInitial.segmentBytes = 8; // initial contents of another size
  expectRefused(shortInitial);
  StateProgramOptions noSegment;
  noSegment.initialSegment = 5;
  expectRefused(noSegment);
  StateProgramOptions noValue;
  noValue.stateValue = 9;
  expectRefused(noValue);
}

/// Two loads of the method sharing their state (as prefill and decode do):
/// each execute continues from what the other left, neither load resets
/// it, and either reset restarts both.
void expectSharedStateCarries(const StateProgramOptions &options) {
  StateProgram file(options);
  Result<Program> program = Program::load(file.data(), file.size());
  ASSERT_TRUE(program.ok());
  SharedState shared;
  Result<std::unique_ptr<Method>> first =
      Method::load(*program, "forward", &shared);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(step(**first), (std::vector<float>{2, 3, 4, 5}));
  Result<std::unique_ptr<Method>> second =
      Method::load(*program, "forward", &shared);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(shared.bufferCount(), 1u);
  EXPECT_EQ(shared.totalBytes(), 16u);
  EXPECT_EQ(step(**second), (std::vector<float>{3, 4, 5, 6}));
  EXPECT_EQ(step(**first), (std::vector<float>{4, 5, 6, 7}));
  EXPECT_EQ((*first)->state(0).data(), (*second)->state(0).data());
  (*second)->resetState();
  EXPECT_EQ(step(**first), (std::vector<float>{2, 3, 4, 5}));
  // Without a SharedState a load keeps its own.
  Result<std::unique_ptr<Method>> own = Method::load(*program, "forward");
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(step(**own), (std::vector<float>{2, 3, 4, 5}));
}

TEST(State, MethodsLoadedWithOneSharedStateShareIt) {
  expectSharedStateCarries({});
}

TEST(State, SharedStateKeepsAnUpdatePlannedInPlace) {
  StateProgramOptions inPlace;
  inPlace.updateOffset = 64;
  expectSharedStateCarries(inPlace);
}

TEST(State, AStateArenaIsNotAllocatedWhenShared) {
  StateProgramOptions stateArena;
  stateArena.stateArena = true;
  expectStateCarries(stateArena);
  expectSharedStateCarries(stateArena);
  StateProgram file(stateArena);
  Result<Program> program = Program::load(file.data(), file.size());
  ASSERT_TRUE(program.ok());
  SharedState shared;
  Result<std::unique_ptr<Method>> alone = Method::load(*program, "forward");
  Result<std::unique_ptr<Method>> sharing =
      Method::load(*program, "forward", &shared);
  ASSERT_TRUE(alone.ok() && sharing.ok());
  EXPECT_EQ((*alone)->arenaBytes(), 256u + 16u);
  EXPECT_EQ((*sharing)->arenaBytes(), 256u);
}

TEST(State, SharedBuffersMustAgree) {
  SharedState shared;
  float initial[4] = {1, 2, 3, 4};
  Span<const uint8_t> contents(reinterpret_cast<const uint8_t *>(initial),
                               sizeof(initial));
  ASSERT_TRUE(
      shared.acquire("cache", ScalarType::Float32, 16, contents, "prefill")
          .ok());
  EXPECT_EQ(shared.acquire("cache", ScalarType::Float32, 32, contents, "decode")
                .error(),
            Error::InvalidProgram);
  EXPECT_EQ(shared.acquire("cache", ScalarType::Int32, 16, contents, "decode")
                .error(),
            Error::InvalidProgram);
  EXPECT_EQ(shared
                .acquire("cache", ScalarType::Float32, 16,
                         Span<const uint8_t>(), "decode")
                .error(),
            Error::InvalidProgram);
  Result<uint8_t *> again =
      shared.acquire("cache", ScalarType::Float32, 16, contents, "decode");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(reinterpret_cast<float *>(*again)[3], 4.0f);
}

} // namespace
} // namespace etch::runtime
