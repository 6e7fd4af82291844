//===- BundledCases.h - Test cases stored in the program ---------*- C++
//-*-===//
// et-compile --bundle: each case is checked against its method's signature
// before it is written, so a program never carries a case its method
// cannot take.
#ifndef ETCH_SERIALIZE_BUNDLEDCASES_H
#define ETCH_SERIALIZE_BUNDLEDCASES_H

#include "etch/Serialize/ProgramWriter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace etch {

/// The program's element type of \p type; std::nullopt when it has none.
std::optional<runtime::ScalarType> programScalarType(mlir::Type type);

/// Whether \p bundled fits \p func: as many inputs as arguments and
/// expected outputs as results, each of its dtype, rank and static sizes
/// (dynamic sizes: any), and bytes for every element; else an error naming
/// the case and file.
mlir::LogicalResult checkBundledCase(mlir::func::FuncOp func,
                                     const BundledCase &bundled);

/// \p cases, each checked against its method in \p module, as the named
/// data runtime::kBundledCasesName (runtime/schema/bundled.fbs).
mlir::FailureOr<NamedData>
bundledCasesData(mlir::ModuleOp module, const std::vector<BundledCase> &cases);

} // namespace etch

#endif // ETCH_SERIALIZE_BUNDLEDCASES_H
