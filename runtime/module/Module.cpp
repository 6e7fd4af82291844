#include "runtime/module/Module.h"

#include "runtime/platform/Platform.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace etch::runtime {
namespace {
#ifdef MAP_POPULATE
constexpr int kPopulate = MAP_POPULATE;
#else
constexpr int kPopulate = 0; // Linux's; elsewhere pages fault in on use
#endif
} // namespace

Result<std::unique_ptr<Module>> Module::open(const char *path) {
  int fd = ::open(path, O_RDONLY);
  if (fd < 0) {
    ET_LOG(Error, "%s: cannot open file", path);
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
  // Populated now: every weight is read by the first execute anyway, and
  // faulting them in there made an LLM's first prefill 2-4x slower.
  void *mapping =
      mmap(nullptr, info.st_size, PROT_READ, MAP_PRIVATE | kPopulate, fd, 0);
  ::close(fd);
  if (mapping == MAP_FAILED) {
    ET_LOG(Error, "%s: cannot map file", path);
    return Error::AccessFailed;
  }
  std::unique_ptr<Module> module(new Module());
  module->mapping_ = mapping;
  module->size_ = info.st_size;
  Result<Program> program = Program::load(mapping, info.st_size);
  if (!program.ok()) {
    ET_LOG(Error, "%s: not a valid etch program", path);
    return program.error();
  }
  module->program_ = std::make_unique<Program>(std::move(*program));
  return module;
}

Module::~Module() {
  if (mapping_)
    munmap(mapping_, size_);
}

Result<std::unique_ptr<Method>> Module::loadMethod(const char *name) const {
  return Method::load(*program_, name);
}

} // namespace etch::runtime
