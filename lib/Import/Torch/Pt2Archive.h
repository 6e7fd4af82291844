//===- Pt2Archive.h - The files inside a torch.export .pt2 ------*- C++ -*-===//
//
// Two layouts exist:
//  - torch <= 2.7: a flat zip with serialized_exported_program.json,
//    serialized_state_dict.pt and serialized_constants.pt (torch.save zips);
//  - torch >= 2.8 (PT2 archive): <root>/archive_format ("pt2"),
//    <root>/models/<name>.json, <root>/data/weights/<name>_weights_config.json
//    with raw weight files beside it, and the same for data/constants.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_LIB_IMPORT_TORCH_PT2ARCHIVE_H
#define ETCH_LIB_IMPORT_TORCH_PT2ARCHIVE_H

#include "TensorData.h"

#include <map>
#include <optional>
#include <string>

namespace etch::torch_import {

struct Pt2Contents {
  std::string layout; // for messages: "torch <= 2.7 flat zip" / "PT2 archive"
  std::string programJson; // the serialized ExportedProgram
  /// Parameters and buffers by fully qualified name.
  std::map<std::string, TensorData> weights;
  /// Tensor constants (lifted constants, non-persistent buffers) by name.
  std::map<std::string, TensorData> constants;
  /// extra_files/etch_metadata.json (torch.export.save's extra_files): facts
  /// the exporter records for the program (an LLM's context length).
  std::optional<std::string> metadataJson;
};

/// The extra file torch.export.save(..., extra_files=...) stores for etch.
inline constexpr const char *kMetadataFile = "etch_metadata.json";

/// Reads every part of the .pt2 at \p path; on failure returns std::nullopt
/// with \p error naming the part that is wrong.
std::optional<Pt2Contents> readPt2(const std::string &path, std::string &error);
/// The same for a .pt2 already in memory.
std::optional<Pt2Contents> readPt2FromBytes(std::string bytes,
                                            std::string &error);

} // namespace etch::torch_import

#endif // ETCH_LIB_IMPORT_TORCH_PT2ARCHIVE_H
