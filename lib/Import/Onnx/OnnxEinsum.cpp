//===- OnnxEinsum.cpp - Einsum as permutes, sums and batched matmuls ------===//
//
// Each operand first sums the letters no one else needs; operands then fold
// left to right, each pair one `bmm` over [batch, left, contracted] x
// [batch, contracted, right] with permutes and views around it; the result
// is permuted to the output's letters. Ellipses become placeholder letters.
//
//===----------------------------------------------------------------------===//
#include "OnnxCompose.h"

#include "edge/EdgeDialect.h"

#include <string>

using namespace mlir;

namespace etch::onnx_import {
namespace {

/// An operand and the letter naming each of its dimensions.
struct Term {
  Value value;
  std::string letters;
};

int64_t product(ArrayRef<int64_t> extents) {
  int64_t result = 1;
  for (int64_t extent : extents)
    result *= extent;
  return result;
}

/// Extents of \p term's dimensions named by \p letters, in that order.
SmallVector<int64_t> extentsOf(Compose &c, const Term &term,
                               StringRef letters) {
  SmallVector<int64_t> extents;
  for (char letter : letters)
    extents.push_back(
        c.typeOf(term.value).getDimSize(term.letters.find(letter)));
  return extents;
}

/// \p term permuted so its letters read \p order.
Term arranged(Compose &c, const Term &term, const std::string &order) {
  if (order == term.letters)
    return term;
  SmallVector<int64_t> dims;
  for (char letter : order)
    dims.push_back(static_cast<int64_t>(term.letters.find(letter)));
  return {c.permute(term.value, dims), order};
}

/// \p term with the letters outside \p keep summed away.
Term summedTo(Compose &c, const Term &term, StringRef keep) {
  SmallVector<int64_t> dims;
  std::string kept;
  for (auto [index, letter] : llvm::enumerate(term.letters)) {
    if (keep.contains(letter))
      kept.push_back(letter);
    else
      dims.push_back(static_cast<int64_t>(index));
  }
  if (dims.empty())
    return term;
  return {c.op<edge::SumOp>(term.value, {c.attr("dim", ArrayRef(dims)),
                                         c.boolAttr("keepdim", false)}),
          kept};
}

/// One operand's letters, its ellipsis replaced by \p broadcast.
FailureOr<std::string> expand(Compose &c, StringRef spec, int64_t rank,
                              StringRef broadcast) {
  std::string letters = spec.str();
  size_t dots = letters.find("...");
  if (dots != std::string::npos) {
    int64_t named = static_cast<int64_t>(letters.size()) - 3;
    int64_t covered = rank - named;
    if (covered < 0 || covered > static_cast<int64_t>(broadcast.size()))
      return c.importer.nodeError(c.node)
             << "'" << spec << "' does not fit an operand of rank " << rank;
    letters.replace(dots, 3, broadcast.take_back(covered).str());
  }
  if (static_cast<int64_t>(letters.size()) != rank)
    return c.importer.nodeError(c.node)
           << "'" << spec << "' names " << letters.size()
           << " dimensions of an operand of rank " << rank;
  for (size_t i = 0; i < letters.size(); ++i)
    if (letters.find(letters[i], i + 1) != std::string::npos)
      return c.importer.nodeError(c.node)
             << "repeated letter '" << letters[i] << "' in '" << spec
             << "' (diagonals) is not supported";
  return letters;
}

/// Contracts two terms, keeping the letters in \p keep.
Term contract(Compose &c, const Term &a, const Term &b, StringRef keep) {
  std::string batch, left, right, inner;
  for (char letter : a.letters) {
    bool shared = b.letters.find(letter) != std::string::npos;
    (shared ? (keep.contains(letter) ? batch : inner) : left).push_back(letter);
  }
  for (char letter : b.letters)
    if (a.letters.find(letter) == std::string::npos)
      right.push_back(letter);
  Term lhs = arranged(c, a, batch + left + inner);
  Term rhs = arranged(c, b, batch + inner + right);
  SmallVector<int64_t> batchExtents = extentsOf(c, lhs, batch),
                       leftExtents = extentsOf(c, lhs, left),
                       innerExtents = extentsOf(c, lhs, inner),
                       rightExtents = extentsOf(c, rhs, right);
  int64_t n = product(batchExtents), l = product(leftExtents),
          k = product(innerExtents), r = product(rightExtents);
  Value product3 = c.op<edge::BmmOp>(
      {c.view(lhs.value, {n, l, k}), c.view(rhs.value, {n, k, r})});
  SmallVector<int64_t> shape(batchExtents);
  llvm::append_range(shape, leftExtents);
  llvm::append_range(shape, rightExtents);
  return {c.view(product3, shape), batch + left + right};
}

} // namespace

LogicalResult composeEinsum(Compose &c) {
  std::string equation;
  for (char ch : c.importer.stringAttr(c.node, "equation", ""))
    if (ch != ' ')
      equation.push_back(ch);
  StringRef text(equation);
  auto [inputsText, outputText] = text.split("->");
  bool explicitOutput = text.contains("->");
  SmallVector<StringRef> specs;
  inputsText.split(specs, ',');
  if (specs.size() != c.node.inputs.size())
    return c.importer.nodeError(c.node)
           << "equation '" << equation << "' names " << specs.size()
           << " operands for " << c.node.inputs.size() << " inputs";

  // Ellipsis dimensions get placeholder letters that no equation uses.
  int64_t maxBroadcast = 0;
  SmallVector<Term> terms;
  for (size_t i = 0; i < specs.size(); ++i) {
    Value value = c.in(i);
    if (!value)
      return failure();
    if (!c.typeOf(value).hasStaticShape())
      return c.importer.nodeError(c.node)
             << "operand " << i << " needs a static shape, got "
             << c.typeOf(value);
    terms.push_back({value, ""});
    int64_t rank = c.typeOf(value).getRank();
    int64_t named = static_cast<int64_t>(specs[i].size());
    if (specs[i].contains("..."))
      maxBroadcast = std::max(maxBroadcast, rank - (named - 3));
  }
  std::string broadcast;
  for (int64_t i = 0; i < maxBroadcast; ++i)
    broadcast.push_back(static_cast<char>('0' + i));
  for (auto [term, spec] : llvm::zip(terms, specs)) {
    FailureOr<std::string> letters =
        expand(c, spec, c.typeOf(term.value).getRank(), broadcast);
    if (failed(letters))
      return failure();
    term.letters = *letters;
  }
  std::string output;
  if (explicitOutput) {
    int64_t rank = static_cast<int64_t>(outputText.size()) +
                   (outputText.contains("...") ? maxBroadcast - 3 : 0);
    FailureOr<std::string> letters = expand(c, outputText, rank, broadcast);
    if (failed(letters))
      return failure();
    output = *letters;
  } else {
    // Implicit output: the broadcast letters, then those used once, sorted.
    output = broadcast;
    std::string once;
    for (const Term &term : terms)
      for (char letter : term.letters)
        if (!llvm::is_contained(broadcast, letter))
          once.push_back(letter);
    llvm::sort(once);
    for (size_t i = 0; i < once.size(); ++i)
      if ((i == 0 || once[i] != once[i - 1]) &&
          (i + 1 == once.size() || once[i] != once[i + 1]))
        output.push_back(once[i]);
  }

  // Fold left to right, keeping what later operands or the output read.
  auto neededAfter = [&](size_t index) {
    std::string needed = output;
    for (size_t j = index + 1; j < terms.size(); ++j)
      needed += terms[j].letters;
    return needed;
  };
  for (const Term &term : terms)
    for (char letter : term.letters)
      for (const Term &other : terms)
        if (other.letters.find(letter) != std::string::npos &&
            extentsOf(c, other, StringRef(&letter, 1)) !=
                extentsOf(c, term, StringRef(&letter, 1)))
          return c.importer.nodeError(c.node)
                 << "letter '" << letter
                 << "' has different extents in two operands (broadcasting "
                    "inside einsum is not supported)";
  Term result = summedTo(c, terms[0], neededAfter(0));
  for (size_t i = 1; i < terms.size(); ++i) {
    std::string keep = neededAfter(i);
    Term next = summedTo(c, terms[i], keep + result.letters);
    result = summedTo(c, result, keep + next.letters);
    result = contract(c, result, next, keep);
  }
  result = summedTo(c, result, output);
  if (result.letters.size() != output.size())
    return c.importer.nodeError(c.node)
           << "output '" << outputText << "' names letters no operand has";
  return c.bind(arranged(c, result, output).value);
}

} // namespace etch::onnx_import
