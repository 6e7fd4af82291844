//===- ZipArchive.h - Read entries of a zip file (libzip) -------*- C++ -*-===//
#ifndef ETCH_LIB_IMPORT_TORCH_ZIPARCHIVE_H
#define ETCH_LIB_IMPORT_TORCH_ZIPARCHIVE_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct zip;

namespace etch::torch_import {

/// A read-only zip archive, from a file or from bytes (torch.save output
/// nested inside a .pt2). Errors are returned as messages.
class ZipArchive {
public:
  static std::unique_ptr<ZipArchive> openFile(const std::string &path,
                                              std::string &error);
  static std::unique_ptr<ZipArchive> openBytes(std::string bytes,
                                               std::string &error);
  ~ZipArchive();

  const std::vector<std::string> &entries() const { return names; }
  bool contains(const std::string &name) const;
  /// The entry's uncompressed bytes; std::nullopt (and \p error) when the
  /// entry is missing or unreadable.
  std::optional<std::string> read(const std::string &name,
                                  std::string &error) const;

private:
  ZipArchive() = default;
  bool indexEntries(std::string &error);

  zip *archive = nullptr;
  std::string ownedBytes; // backing store for openBytes
  uint64_t archiveBytes = 0;
  std::vector<std::string> names;
};

} // namespace etch::torch_import

#endif // ETCH_LIB_IMPORT_TORCH_ZIPARCHIVE_H
