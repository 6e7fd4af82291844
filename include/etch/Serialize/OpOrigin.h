//===- OpOrigin.h - Where an op comes from, read from its location -*- C++
//-*-===//
// The producer's node names and source line an op's location carries: what
// a program's debug handles record and what the tools print.
#ifndef ETCH_SERIALIZE_OPORIGIN_H
#define ETCH_SERIALIZE_OPORIGIN_H

#include "mlir/IR/Location.h"

#include <string>

namespace etch {

/// What a location says about where an op comes from.
struct OpOrigin {
  std::string node;   // "conv2d", "/features/features.0/Conv"; "" unknown
  std::string source; // "model.py:36"; "" unknown
};

/// The node names (a NameLoc; fused ops join theirs with '+') and the first
/// source line (a FileLineColLoc with a line) in \p loc.
OpOrigin opOrigin(mlir::Location loc);

} // namespace etch

#endif // ETCH_SERIALIZE_OPORIGIN_H
