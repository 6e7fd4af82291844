#include "runtime/module/MappedFile.h"

#include "runtime/platform/Platform.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <new>

namespace etch::runtime {

struct MappedFile {
  dev_t device;
  ino_t inode;
  void *mapping;
  size_t size;
  int references;
  char *path;                     // as first opened; messages name it
  WeightsFile *weights = nullptr; // verified on first use as weights
};

namespace {
#ifdef MAP_POPULATE
constexpr int kPopulate = MAP_POPULATE;
#else
constexpr int kPopulate = 0; // Linux's; elsewhere pages fault in on use
#endif

/// The files mapped now. A file past the table's size is mapped unshared.
constexpr size_t kSharedFiles = 64;
MappedFile *mapped[kSharedFiles];
std::atomic_flag lock = ATOMIC_FLAG_INIT;

struct Locked {
  Locked() {
    while (lock.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~Locked() { lock.clear(std::memory_order_release); }
};

/// The mapped file of \p info with a new reference, or null (under lock).
MappedFile *findMapped(const struct stat &info) {
  for (MappedFile *file : mapped)
    if (file && file->device == info.st_dev && file->inode == info.st_ino &&
        file->size == static_cast<size_t>(info.st_size)) {
      ++file->references;
      return file;
    }
  return nullptr;
}

void destroy(MappedFile *file) {
  munmap(file->mapping, file->size);
  delete file->weights;
  delete[] file->path;
  delete file;
}

} // namespace

Result<MappedFile *> mapFile(const char *path, const char *what) {
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
  Locked guard;
  if (MappedFile *file = findMapped(info)) {
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
  size_t length = std::strlen(path);
  auto *file = new (std::nothrow)
      MappedFile{info.st_dev, info.st_ino,
                 mapping,     static_cast<size_t>(info.st_size),
                 1,           new (std::nothrow) char[length + 1]};
  if (!file || !file->path) {
    if (file)
      delete file;
    munmap(mapping, info.st_size);
    return Error::MemoryAllocationFailed;
  }
  std::memcpy(file->path, path, length + 1);
  for (MappedFile *&slot : mapped)
    if (!slot) {
      slot = file;
      break;
    }
  return file;
}

void releaseFile(MappedFile *file) {
  if (!file)
    return;
  {
    Locked guard;
    if (--file->references > 0)
      return;
    for (MappedFile *&slot : mapped)
      if (slot == file)
        slot = nullptr;
  }
  destroy(file);
}

const uint8_t *fileData(const MappedFile *file) {
  return static_cast<const uint8_t *>(file->mapping);
}

size_t fileSize(const MappedFile *file) { return file->size; }

Result<WeightsMapping> WeightsMapping::open(const char *path) {
  Result<MappedFile *> file = mapFile(path, "weights file");
  if (!file.ok())
    return file.error();
  WeightsMapping mapping(*file);
  Locked guard;
  if (!(*file)->weights) {
    Result<WeightsFile> weights =
        WeightsFile::load(fileData(*file), fileSize(*file), (*file)->path);
    if (!weights.ok())
      return weights.error();
    (*file)->weights = new (std::nothrow) WeightsFile(*weights);
    if (!(*file)->weights)
      return Error::MemoryAllocationFailed;
  }
  return mapping;
}

WeightsMapping &WeightsMapping::operator=(WeightsMapping &&other) {
  if (this != &other) {
    releaseFile(file_);
    file_ = other.file_;
    other.file_ = nullptr;
  }
  return *this;
}

const WeightsFile *WeightsMapping::get() const {
  return file_ ? file_->weights : nullptr;
}

Result<const WeightsFile *> WeightsMapping::reopen(const char *path) {
  Result<WeightsMapping> opened = open(path);
  if (!opened.ok())
    return opened.error();
  *this = std::move(*opened);
  return get();
}

} // namespace etch::runtime
