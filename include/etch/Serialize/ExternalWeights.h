//===- ExternalWeights.h - Writing an external weights file -----*- C++ -*-===//
//
// et-compile --external-weights FILE: a program's weights (constant tensors,
// delegates' constant sections, initial state) go into FILE, the program
// refers to each by checksum and size (runtime/schema/weights.fbs). FILE may
// already hold weights: what it has is kept and reused, so every program
// compiled against it stays valid and programs loaded together share it.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_SERIALIZE_EXTERNALWEIGHTS_H
#define ETCH_SERIALIZE_EXTERNALWEIGHTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

namespace etch {

class ExternalWeights {
public:
  /// The weights already in \p path (an etch weights file), or none when it
  /// does not exist; null with \p error set when it exists but is not a
  /// valid weights file (it is never overwritten then).
  static std::unique_ptr<ExternalWeights> open(llvm::StringRef path,
                                               std::string &error);

  /// Stores \p bytes once; returns their checksum (the key, with the size).
  uint64_t add(llvm::ArrayRef<char> bytes);
  /// Writes the file: a temporary beside it, renamed over it (a program
  /// running with the old file keeps its mapping). False with \p error.
  bool write(std::string &error) const;

  const std::string &path() const { return path_; }

private:
  explicit ExternalWeights(llvm::StringRef path) : path_(path.str()) {}

  std::string path_;
  std::map<std::pair<uint64_t, uint64_t>, std::string> entries_;
};

} // namespace etch

#endif // ETCH_SERIALIZE_EXTERNALWEIGHTS_H
