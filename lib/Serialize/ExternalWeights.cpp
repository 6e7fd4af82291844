//===- ExternalWeights.cpp - Writing an external weights file -------------===//
#include "etch/Serialize/ExternalWeights.h"

#include "runtime/core/Checksum.h"
#include "runtime/platform/Platform.h"
#include "runtime/program/FileHeader.h"
#include "runtime/program/WeightsFile.h"
#include "runtime/schema/weights_generated.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

namespace etch {
namespace {

struct FreeDeleter {
  void operator()(void *data) const { std::free(data); }
};

uint64_t alignUp(uint64_t value) {
  return (value + runtime::kSegmentAlignment - 1) / runtime::kSegmentAlignment *
         runtime::kSegmentAlignment;
}

} // namespace

std::unique_ptr<ExternalWeights> ExternalWeights::open(llvm::StringRef path,
                                                       std::string &error) {
  std::unique_ptr<ExternalWeights> weights(new ExternalWeights(path));
  if (!llvm::sys::fs::exists(path))
    return weights;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file) {
    error = (path + ": cannot read: " + file.getError().message()).str();
    return nullptr;
  }
  // The runtime's own check, on a 64-byte aligned copy.
  size_t size = (*file)->getBufferSize();
  std::unique_ptr<uint8_t, FreeDeleter> copy(static_cast<uint8_t *>(
      std::aligned_alloc(runtime::kSegmentAlignment, alignUp(size + 1))));
  std::memcpy(copy.get(), (*file)->getBufferStart(), size);
  std::string name = path.str();
  // The runtime logs what is wrong; here it goes into the one error line.
  static std::string logged;
  logged.clear();
  runtime::PlatformHooks saved = runtime::platformHooks();
  runtime::PlatformHooks capture = saved;
  capture.log = [](runtime::LogLevel, const char *, int, const char *message) {
    if (logged.empty())
      logged = message;
  };
  runtime::setPlatformHooks(capture);
  runtime::Result<runtime::WeightsFile> loaded =
      runtime::WeightsFile::load(copy.get(), size, name.c_str());
  runtime::setPlatformHooks(saved);
  if (!loaded.ok()) {
    error = logged + "; it exists and is not a valid etch weights file: "
                     "remove it or name another";
    return nullptr;
  }
  const uint8_t *buffer =
      copy.get() + reinterpret_cast<const runtime::FileHeader *>(copy.get())
                       ->flatbufferOffset;
  if (const auto *entries = schema::GetWeightsFile(buffer)->entries())
    for (const schema::WeightEntry *entry : *entries) {
      runtime::Span<const uint8_t> bytes =
          loaded->find(entry->checksum(), entry->size());
      auto key = std::make_pair(entry->checksum(), entry->size());
      weights->entries_[key].assign(
          reinterpret_cast<const char *>(bytes.data()), bytes.size());
    }
  return weights;
}

uint64_t ExternalWeights::add(llvm::ArrayRef<char> bytes) {
  uint64_t checksum = runtime::checksum64(bytes.data(), bytes.size());
  auto key = std::make_pair(checksum, static_cast<uint64_t>(bytes.size()));
  // An entry the file (or this program) has already is kept as it is.
  if (auto [it, inserted] = entries_.try_emplace(key); inserted)
    it->second.assign(bytes.data(), bytes.size());
  return checksum;
}

bool ExternalWeights::write(std::string &error) const {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<schema::WeightEntry>> index;
  uint64_t offset = 0;
  // std::map keeps them sorted by (checksum, size), as the runtime needs.
  for (const auto &[key, bytes] : entries_) {
    index.push_back(
        schema::CreateWeightEntry(fbb, key.first, key.second, offset));
    offset = alignUp(offset + bytes.size());
  }
  schema::FinishWeightsFileBuffer(
      fbb,
      schema::CreateWeightsFileDirect(fbb, runtime::kWeightsVersion, &index));
  runtime::FileHeader header;
  std::memcpy(header.magic, runtime::kWeightsMagic, sizeof(header.magic));
  header.headerVersion = runtime::kFileHeaderVersion;
  header.reserved = 0;
  header.flatbufferOffset = sizeof(header);
  header.flatbufferSize = fbb.GetSize();

  llvm::SmallString<256> temporary(path_);
  temporary += ".tmp";
  std::error_code code;
  {
    llvm::raw_fd_ostream os(temporary, code);
    if (code) {
      error = path_ + ": cannot write: " + code.message();
      return false;
    }
    os.write(reinterpret_cast<const char *>(&header), sizeof(header));
    os.write(reinterpret_cast<const char *>(fbb.GetBufferPointer()),
             fbb.GetSize());
    uint64_t position = sizeof(header) + fbb.GetSize();
    uint64_t base = runtime::segmentBase(header);
    os.write_zeros(base - position);
    position = base;
    for (const auto &[key, bytes] : entries_) {
      os.write(bytes.data(), bytes.size());
      position += bytes.size();
      uint64_t next = alignUp(position - base) + base;
      os.write_zeros(next - position);
      position = next;
    }
    os.close();
    if (os.has_error()) {
      error = path_ + ": cannot write: " + os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(temporary);
      return false;
    }
  }
  if (std::error_code renamed = llvm::sys::fs::rename(temporary, path_)) {
    error = path_ + ": cannot replace: " + renamed.message();
    llvm::sys::fs::remove(temporary);
    return false;
  }
  return true;
}

} // namespace etch
