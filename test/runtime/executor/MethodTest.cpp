// Method loading against programs built here with the schema's own builders:
// what reaches a delegate's init.
#include "ProgramFile.h"

#include "runtime/backend/Backend.h"
#include "runtime/executor/Method.h"
#include "runtime/program/FileHeader.h"
#include "runtime/program/Program.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace etch::runtime {
namespace {

/// Records what init received; executes nothing.
class RecordingBackend : public Backend {
public:
  Result<void *> init(const DelegateBlob &blob, Span<const CompileSpec> specs,
                      Span<TensorView *>, Span<TensorView *>,
                      const LoadOptions &options) override {
    received = options;
    specKeys.clear();
    for (const CompileSpec &spec : specs)
      specKeys.emplace_back(spec.key);
    blobSize = blob.bytes.size();
    return static_cast<void *>(this);
  }
  Error execute(void *, Span<TensorView *>, Span<TensorView *>) override {
    return Error::Ok;
  }
  void destroy(void *) override {}

  std::vector<std::string> specKeys;
  size_t blobSize = 0;
  LoadOptions received;
};

RecordingBackend &recorder() {
  static RecordingBackend backend;
  static bool registered = registerBackend("test-recorder", &backend);
  EXPECT_TRUE(registered);
  return backend;
}

/// A program with one method whose single instruction calls the
/// "test-recorder" delegate with \p specCount compile specs and an 8-byte
/// blob.
flatbuffers::FlatBufferBuilder delegateProgram(int specCount) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<schema::CompileSpec>> specs;
  for (int i = 0; i < specCount; ++i)
    specs.push_back(schema::CreateCompileSpecDirect(
        fbb, ("key" + std::to_string(i)).c_str()));
  auto entry = schema::CreateDelegateEntryDirect(fbb, "test-recorder", 0,
                                                 &specs);
  std::vector<flatbuffers::Offset<schema::DelegateEntry>> delegates = {entry};
  std::vector<int64_t> sizes = {4};
  auto tensor = schema::CreateTensorDirect(
      fbb, schema::ScalarType::Float32, &sizes, nullptr,
      schema::TensorStorage::Arena, 0, 0, 0, 16);
  std::vector<flatbuffers::Offset<schema::Value>> values = {
      schema::CreateValue(fbb, schema::ValueKind::Tensor, tensor.Union())};
  std::vector<uint32_t> io = {0};
  auto call = schema::CreateDelegateCallDirect(fbb, 0, &io, &io);
  std::vector<flatbuffers::Offset<schema::Instruction>> instructions = {
      schema::CreateInstruction(fbb, schema::InstructionKind::DelegateCall,
                                call.Union())};
  std::vector<uint64_t> arenas = {16};
  auto method = schema::CreateMethodDirect(
      fbb, "forward", &values, &io, &io, nullptr, nullptr, &instructions,
      nullptr, &delegates, &arenas);
  std::vector<flatbuffers::Offset<schema::Method>> methods = {method};
  std::vector<flatbuffers::Offset<schema::Segment>> segments = {
      schema::CreateSegment(fbb, 0, 8)};
  fbb.Finish(schema::CreateProgramDirect(fbb, kProgramVersion, &methods,
                                         &segments),
             schema::ProgramIdentifier());
  return fbb;
}

struct DelegateProgram : testing::ProgramFile {
  explicit DelegateProgram(int specCount)
      : ProgramFile(delegateProgram(specCount), 64) {}
};

TEST(Method, EveryCompileSpecReachesTheDelegate) {
  RecordingBackend &backend = recorder();
  DelegateProgram file(20); // more than the 16 an earlier version kept
  Result<Program> program = Program::load(file.data(), file.size());
  ASSERT_TRUE(program.ok());
  Result<std::unique_ptr<Method>> method = Method::load(*program, "forward");
  ASSERT_TRUE(method.ok());
  ASSERT_EQ(backend.specKeys.size(), 20u);
  EXPECT_EQ(backend.specKeys.front(), "key0");
  EXPECT_EQ(backend.specKeys.back(), "key19");
  EXPECT_EQ(backend.blobSize, 8u);
}

TEST(Method, LoadOptionsReachTheDelegateAsGiven) {
  RecordingBackend &backend = recorder();
  DelegateProgram file(0);
  Result<Program> program = Program::load(file.data(), file.size());
  ASSERT_TRUE(program.ok());
  LoadOptions options;
  options.threads = 3;
  options.profileDelegates = true;
  options.memoryLimit = 1 << 20;
  ASSERT_TRUE(Method::load(*program, "forward", nullptr, options).ok());
  EXPECT_EQ(backend.received.threads, 3u);
  EXPECT_TRUE(backend.received.profileDelegates);
  EXPECT_EQ(backend.received.memoryLimit, uint64_t(1) << 20);
  // A second load with the defaults sees the defaults: nothing lingers in
  // the process from the first.
  ASSERT_TRUE(Method::load(*program, "forward").ok());
  EXPECT_EQ(backend.received.threads, 0u);
  EXPECT_FALSE(backend.received.profileDelegates);
  EXPECT_EQ(backend.received.memoryLimit, LoadOptions().memoryLimit);
}

TEST(Method, DelegateThreadsComeFromTheOptionsThenTheSpec) {
  char four[] = "4";
  CompileSpec spec{"num_threads",
                   Span<const uint8_t>(reinterpret_cast<uint8_t *>(four), 1)};
  Span<const CompileSpec> specs(&spec, 1);
  LoadOptions options;
  EXPECT_EQ(delegateThreadCount(specs, options), 4u);
  options.threads = 2;
  EXPECT_EQ(delegateThreadCount(specs, options), 2u);
  EXPECT_GE(delegateThreadCount(Span<const CompileSpec>(), LoadOptions()), 1u);
}

TEST(Method, ArenasAboveTheMemoryLimitAreRefused) {
  recorder();
  DelegateProgram file(0);
  Result<Program> program = Program::load(file.data(), file.size());
  ASSERT_TRUE(program.ok());
  LoadOptions small;
  small.memoryLimit = 8; // the method's arena holds 16 bytes
  Result<std::unique_ptr<Method>> refused =
      Method::load(*program, "forward", nullptr, small);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(), Error::MemoryAllocationFailed);
  EXPECT_TRUE(Method::load(*program, "forward").ok());
}

TEST(Program, UnalignedDataIsRefused) {
  DelegateProgram file(0);
  std::vector<uint8_t> shifted(file.size() + 8);
  std::memcpy(shifted.data() + 1, file.data(), file.size());
  Result<Program> program = Program::load(shifted.data() + 1, file.size());
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.error(), Error::InvalidArgument);
}

} // namespace
} // namespace etch::runtime
