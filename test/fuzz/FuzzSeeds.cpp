//===- FuzzSeeds.cpp - Seed corpora for the fuzz targets ------------------===//
//
//   etch-fuzz-seeds blobs program.etp OUTDIR   one seed per delegate call,
//       in OUTDIR/blob-<target>/, in the format of FuzzDelegateBlob.cpp
//   etch-fuzz-seeds entries model.pt2 OUT      the .pt2 as an entry list
//       (the format of FuzzPt2.cpp)
//   etch-fuzz-seeds zip ENTRIES OUT.pt2        the .pt2 FuzzPt2.cpp makes of
//       an entry list (to replay a found input with et-compile)
//
//===----------------------------------------------------------------------===//
#include "StoredZip.h"

#include "runtime/platform/Platform.h"
#include "runtime/program/Program.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <sys/stat.h>

using namespace etch::runtime;
namespace schema = etch::schema;

namespace {

bool readFile(const char *path, std::string &bytes) {
  std::ifstream file(path, std::ios::binary);
  bytes.assign(std::istreambuf_iterator<char>(file),
               std::istreambuf_iterator<char>());
  return static_cast<bool>(file) || file.eof();
}

bool writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream file(path, std::ios::binary);
  file.write(bytes.data(), bytes.size());
  return static_cast<bool>(file);
}

void appendTensor(std::string &seed, const schema::Method &method,
                  uint32_t value) {
  const schema::Tensor *tensor = method.values()->Get(value)->kind_as_Tensor();
  uint8_t rank = tensor->sizes() ? tensor->sizes()->size() : 0;
  seed.push_back(static_cast<char>(rank));
  for (uint8_t d = 0; d < rank; ++d) {
    uint32_t dim = static_cast<uint32_t>(tensor->sizes()->Get(d));
    seed.append(reinterpret_cast<const char *>(&dim), sizeof(dim));
  }
}

int blobSeeds(const char *programPath, const std::string &outDir) {
  std::string bytes;
  if (!readFile(programPath, bytes))
    return std::fprintf(stderr, "%s: cannot read\n", programPath), 1;
  struct Free {
    void operator()(void *p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> aligned(static_cast<char *>(
      std::aligned_alloc(64, (bytes.size() + 63) / 64 * 64 + 64)));
  std::memcpy(aligned.get(), bytes.data(), bytes.size());
  Result<Program> program = Program::load(aligned.get(), bytes.size());
  if (!program.ok())
    return std::fprintf(stderr, "%s: not a valid program\n", programPath), 1;
  std::string base = programPath;
  base = base.substr(base.find_last_of('/') + 1);
  int written = 0;
  for (const schema::Method *method : *program->flatbuffer().methods()) {
    for (const schema::Instruction *instruction : *method->instructions()) {
      const schema::DelegateCall *call = instruction->kind_as_DelegateCall();
      if (!call)
        continue;
      const schema::DelegateEntry *entry =
          method->delegates()->Get(call->delegate());
      size_t inputs = call->inputs() ? call->inputs()->size() : 0;
      size_t outputs = call->outputs() ? call->outputs()->size() : 0;
      std::string seed;
      seed.push_back(static_cast<char>(inputs));
      seed.push_back(static_cast<char>(outputs));
      for (const auto *list : {call->inputs(), call->outputs()})
        if (list)
          for (uint32_t value : *list)
            appendTensor(seed, *method, value);
      // The whole blob: its constants follow it when stored apart.
      Span<const uint8_t> blob = program->segment(entry->segment());
      seed.append(reinterpret_cast<const char *>(blob.data()), blob.size());
      if (entry->constants_segment() >= 0) {
        Span<const uint8_t> constants =
            program->segment(entry->constants_segment());
        seed.append(reinterpret_cast<const char *>(constants.data()),
                    constants.size());
      }
      std::string dir = outDir + "/blob-" + entry->target()->str();
      mkdir(dir.c_str(), 0755);
      if (!writeFile(dir + "/" + base + "-" + method->name()->str() + "-" +
                         std::to_string(written++),
                     seed))
        return std::fprintf(stderr, "%s: cannot write\n", dir.c_str()), 1;
    }
  }
  return 0;
}

int entrySeed(const char *pt2Path, const char *outPath) {
  std::string bytes;
  if (!readFile(pt2Path, bytes))
    return std::fprintf(stderr, "%s: cannot read\n", pt2Path), 1;
  std::optional<etch::fuzz::ZipEntries> entries =
      etch::fuzz::readStoredZipLeniently(bytes);
  if (!entries)
    return std::fprintf(stderr, "%s: not a zip of stored entries\n", pt2Path),
           1;
  if (!writeFile(outPath, etch::fuzz::formatEntryList(*entries)))
    return std::fprintf(stderr, "%s: cannot write\n", outPath), 1;
  return 0;
}

int zipFromEntries(const char *entriesPath, const char *outPath) {
  std::string bytes;
  if (!readFile(entriesPath, bytes))
    return std::fprintf(stderr, "%s: cannot read\n", entriesPath), 1;
  etch::fuzz::ZipEntries entries = etch::fuzz::parseEntryList(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  etch::fuzz::repackNestedZips(entries);
  if (!writeFile(outPath, etch::fuzz::writeStoredZip(entries)))
    return std::fprintf(stderr, "%s: cannot write\n", outPath), 1;
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 4 && std::strcmp(argv[1], "blobs") == 0)
    return blobSeeds(argv[2], argv[3]);
  if (argc == 4 && std::strcmp(argv[1], "entries") == 0)
    return entrySeed(argv[2], argv[3]);
  if (argc == 4 && std::strcmp(argv[1], "zip") == 0)
    return zipFromEntries(argv[2], argv[3]);
  std::fprintf(stderr, "usage: etch-fuzz-seeds blobs program.etp OUTDIR\n"
                       "       etch-fuzz-seeds entries model.pt2 OUT\n"
                       "       etch-fuzz-seeds zip ENTRIES OUT.pt2\n");
  return 2;
}
