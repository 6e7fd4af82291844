//===- MemoryPlanSvg.h - et-compile --memory-plan-svg ------------*- C++
//-*-===//
#ifndef ETCH_TOOLS_ETCOMPILE_MEMORYPLANSVG_H
#define ETCH_TOOLS_ETCOMPILE_MEMORYPLANSVG_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace etch::tools {

/// Draws each planned method's arena as SVG: every arena value a box from
/// the instruction that writes it to the last that reads it (x) over the
/// bytes it occupies (y), with a tooltip naming the value's op and producer
/// node, its type, offset and size. Values that share bytes by design (an
/// in-place update, a cat input written into its slice) overlap.
void writeMemoryPlanSvg(mlir::ModuleOp module, llvm::raw_ostream &os);

} // namespace etch::tools

#endif
