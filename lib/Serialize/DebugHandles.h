//===- DebugHandles.h - An instruction's producer nodes for the program -===//
// The debug handle of an instruction (runtime/schema/program.fbs,
// InstructionDebug): the Edge ops it runs and, read from their locations,
// the producer's node names and source lines.
#ifndef ETCH_SERIALIZE_DEBUGHANDLES_H
#define ETCH_SERIALIZE_DEBUGHANDLES_H

#include "etch/Serialize/OpOrigin.h"
#include "runtime/schema/program_generated.h"

#include "mlir/IR/Operation.h"

#include <string>

namespace etch {

/// The debug entry of the instruction that runs \p op: \p op itself, or
/// every op inside it for an edge.delegate.
flatbuffers::Offset<schema::InstructionDebug>
instructionDebug(flatbuffers::FlatBufferBuilder &fbb, mlir::Operation *op);

} // namespace etch

#endif // ETCH_SERIALIZE_DEBUGHANDLES_H
