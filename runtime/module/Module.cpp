#include "runtime/module/Module.h"

#include "runtime/platform/Platform.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace etch::runtime {

class MappedFile {
public:
  MappedFile(const std::string &path, void *mapping, size_t size)
      : path(path), mapping(mapping), size(size) {}
  ~MappedFile() { munmap(mapping, size); }
  const uint8_t *data() const { return static_cast<const uint8_t *>(mapping); }

  std::string path; // as first opened; messages name it
  void *mapping;
  size_t size;
  /// Set once for a weights file, under the registry's lock.
  mutable std::optional<WeightsFile> weights;
};

namespace {
#ifdef MAP_POPULATE
constexpr int kPopulate = MAP_POPULATE;
#else
constexpr int kPopulate = 0; // Linux's; elsewhere pages fault in on use
#endif

/// The files mapped now, by device and inode: a file opened again while
/// mapped is the same mapping.
struct MappingRegistry {
  std::mutex lock;
  std::map<std::pair<dev_t, ino_t>, std::weak_ptr<const MappedFile>> files;
};
MappingRegistry &registry() {
  static MappingRegistry instance;
  return instance;
}

/// Maps \p path (what: "file" or "weights file", for messages).
Result<std::shared_ptr<const MappedFile>> mapFile(const char *path,
                                                  const char *what) {
  int fd = ::open(path, O_RDONLY);
  if (fd < 0) {
    ET_LOG(Error, "%s: cannot open %s", path, what);
    return Error::AccessFailed;
  }
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    ET_LOG(Error, "%s: not a regular file", path);
    return Error::AccessFailed;
  }
  if (info.st_size == 0) {
    ::close(fd);
    ET_LOG(Error, "%s: empty file", path);
    return Error::InvalidProgram;
  }
  MappingRegistry &mapped = registry();
  std::lock_guard<std::mutex> guard(mapped.lock);
  auto key = std::make_pair(info.st_dev, info.st_ino);
  auto found = mapped.files.find(key);
  if (found != mapped.files.end())
    if (std::shared_ptr<const MappedFile> file = found->second.lock();
        file && file->size == static_cast<size_t>(info.st_size)) {
      ::close(fd);
      return file;
    }
  // Populated now: every weight is read by the first execute anyway, and
  // faulting them in there made an LLM's first prefill 2-4x slower.
  void *mapping =
      mmap(nullptr, info.st_size, PROT_READ, MAP_PRIVATE | kPopulate, fd, 0);
  ::close(fd);
  if (mapping == MAP_FAILED) {
    ET_LOG(Error, "%s: cannot map file", path);
    return Error::AccessFailed;
  }
  auto file = std::make_shared<const MappedFile>(path, mapping, info.st_size);
  mapped.files[key] = file;
  return file;
}

/// Where a program's weights are by default: the file it was compiled
/// against, beside the program.
std::string besideProgram(const char *programPath, const char *weightsName) {
  std::string name = weightsName;
  if (size_t slash = name.rfind('/'); slash != std::string::npos)
    name = name.substr(slash + 1);
  std::string path = programPath;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? name : path.substr(0, slash + 1) + name;
}

} // namespace

Result<std::shared_ptr<const WeightsFile>> openWeightsFile(const char *path) {
  Result<std::shared_ptr<const MappedFile>> file =
      mapFile(path, "weights file");
  if (!file.ok())
    return file.error();
  std::lock_guard<std::mutex> guard(registry().lock);
  const MappedFile &mapped = **file;
  if (!mapped.weights) {
    Result<WeightsFile> weights =
        WeightsFile::load(mapped.data(), mapped.size, mapped.path.c_str());
    if (!weights.ok())
      return weights.error();
    mapped.weights.emplace(*weights);
  }
  // Shares ownership of the mapping.
  return std::shared_ptr<const WeightsFile>(*file, &*mapped.weights);
}

Result<std::unique_ptr<Module>> Module::open(const char *path,
                                             const char *weightsPath) {
  Result<std::shared_ptr<const MappedFile>> file = mapFile(path, "file");
  if (!file.ok())
    return file.error();
  std::unique_ptr<Module> module(new Module());
  module->file_ = std::move(*file);
  const char *compiledAgainst = "";
  Result<bool> needsWeights = Program::needsWeights(
      module->file_->data(), module->file_->size, compiledAgainst);
  if (!needsWeights.ok()) {
    ET_LOG(Error, "%s: not a valid etch program", path);
    return needsWeights.error();
  }
  const WeightsFile *weights = nullptr;
  if (*needsWeights) {
    if (!weightsPath && !*compiledAgainst) {
      ET_LOG(Error, "%s: the program needs external weights; name the file",
             path);
      return Error::WeightsMismatch;
    }
    std::string where = weightsPath ? std::string(weightsPath)
                                    : besideProgram(path, compiledAgainst);
    if (!weightsPath && ::access(where.c_str(), R_OK) != 0) {
      ET_LOG(Error,
             "the program keeps its weights in '%s' (et-compile "
             "--external-weights), which is not beside it; name the file "
             "(et-run --weights)",
             compiledAgainst);
      return Error::AccessFailed;
    }
    Result<std::shared_ptr<const WeightsFile>> opened =
        openWeightsFile(where.c_str());
    if (!opened.ok())
      return opened.error();
    module->weights_ = std::move(*opened);
    weights = module->weights_.get();
  }
  Result<Program> program =
      Program::load(module->file_->data(), module->file_->size, weights);
  if (!program.ok()) {
    ET_LOG(Error, "%s: not a valid etch program", path);
    return program.error();
  }
  module->program_ = std::make_unique<Program>(std::move(*program));
  return module;
}

Module::~Module() = default;

size_t Module::fileSize() const { return file_->size; }

const WeightsFile *Module::weights() const { return weights_.get(); }

Result<std::unique_ptr<Method>> Module::loadMethod(const char *name,
                                                   SharedState *shared) const {
  return Method::load(*program_, name, shared);
}

} // namespace etch::runtime
