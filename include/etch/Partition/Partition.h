//===- Partition.h - Partition reporting ------------------------*- C++ -*-===//
#ifndef ETCH_PARTITION_PARTITION_H
#define ETCH_PARTITION_PARTITION_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace etch {

/// Ops per target, each delegate with its op count, and every op that fell
/// back to the portable kernels with each target's reason.
void printPartitionSummary(mlir::ModuleOp module,
                           const std::vector<std::string> &targets,
                           llvm::raw_ostream &os);

/// A Graphviz picture: one node per op, delegates as clusters.
void writePartitionGraph(mlir::ModuleOp module, llvm::raw_ostream &os);

} // namespace etch

#endif // ETCH_PARTITION_PARTITION_H
