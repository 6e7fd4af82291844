//===- SymbolicExpr.h - torch.export's symbolic size expressions -*- C++ -*-===//
//
// torch.export records a dynamic size as a sympy expression in `srepr` form
// ("Mul(Integer(2), Symbol('s77', positive=True, integer=True))") and each
// symbol's range in `range_constraints`. This evaluates such expressions to
// give every dynamic dimension its bounds.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_LIB_IMPORT_TORCH_SYMBOLICEXPR_H
#define ETCH_LIB_IMPORT_TORCH_SYMBOLICEXPR_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace etch::torch_import {

class SymbolicExpr {
public:
  /// Parses sympy's srepr text; null with \p error when etch does not
  /// understand it.
  static std::unique_ptr<SymbolicExpr> parse(llvm::StringRef text,
                                             std::string &error);
  ~SymbolicExpr();

  /// The value for the given symbol values; std::nullopt when a symbol is
  /// missing or the arithmetic does not give an integer.
  std::optional<int64_t>
  evaluate(const llvm::StringMap<int64_t> &symbols) const;
  /// The symbols it uses.
  void collectSymbols(std::vector<std::string> &names) const;
  /// The symbol name when the expression is just one symbol.
  std::optional<std::string> asSymbol() const;

  std::string op;    // "Symbol", "Integer", "Add", "Mul", "FloorDiv", ...
  std::string name;  // Symbol
  int64_t value = 0; // Integer
  std::vector<std::unique_ptr<SymbolicExpr>> operands;
};

/// A symbol's range from range_constraints.
struct SymbolRange {
  int64_t min = 0, max = 0;
};

/// [min, max] of \p expr over the ranges of its symbols (taken at the
/// corners of the ranges: sizes are monotonic in each symbol);
/// std::nullopt with \p error when a symbol has no finite range.
std::optional<std::pair<int64_t, int64_t>>
boundsOf(const SymbolicExpr &expr,
         const llvm::StringMap<SymbolRange> &ranges, std::string &error);

} // namespace etch::torch_import

#endif // ETCH_LIB_IMPORT_TORCH_SYMBOLICEXPR_H
