#include "Einsum.h"

#include "edge/EdgeDialect.h"
#include "edge/EdgeTypeUtils.h"

#include <string>

using namespace mlir;

namespace etch {
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

/// The Edge ops the contraction needs; a failed step yields a null value
/// that every later step passes on (its error was reported).
struct Steps {
  EdgeOpBuilder &edge;
  Location loc;

  static Value orNull(FailureOr<Value> value) {
    return succeeded(value) ? *value : Value();
  }
  DenseI64ArrayAttr ints(ArrayRef<int64_t> values) {
    return edge.getBuilder().getDenseI64ArrayAttr(values);
  }
  Value permute(Value value, ArrayRef<int64_t> dims) {
    return value ? orNull(edge.build<edge::PermuteOp>(loc, value, ints(dims)))
                 : Value();
  }
  Value view(Value value, ArrayRef<int64_t> shape) {
    return value ? orNull(edge.build<edge::ViewOp>(loc, value, ValueRange(),
                                                   ints(shape)))
                 : Value();
  }
  Value sum(Value value, ArrayRef<int64_t> dims) {
    return value
               ? orNull(edge.build<edge::SumOp>(loc, value, ints(dims), false))
               : Value();
  }
  Value bmm(Value lhs, Value rhs) {
    return lhs && rhs ? orNull(edge.build<edge::BmmOp>(loc, lhs, rhs))
                      : Value();
  }
  InFlightDiagnostic error() { return edge.error(loc); }
};

/// Extents of \p term's dimensions named by \p letters, in that order.
SmallVector<int64_t> extentsOf(const Term &term, StringRef letters) {
  SmallVector<int64_t> extents;
  for (char letter : letters)
    extents.push_back(
        edge::rankedType(term.value).getDimSize(term.letters.find(letter)));
  return extents;
}

/// \p term permuted so its letters read \p order.
Term arranged(Steps &s, const Term &term, const std::string &order) {
  if (order == term.letters)
    return term;
  SmallVector<int64_t> dims;
  for (char letter : order)
    dims.push_back(static_cast<int64_t>(term.letters.find(letter)));
  return {s.permute(term.value, dims), order};
}

/// \p term with the letters outside \p keep summed away.
Term summedTo(Steps &s, const Term &term, StringRef keep) {
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
  return {s.sum(term.value, dims), kept};
}

/// One operand's letters, its ellipsis replaced by \p broadcast.
FailureOr<std::string> expand(Steps &s, StringRef spec, int64_t rank,
                              StringRef broadcast) {
  std::string letters = spec.str();
  size_t dots = letters.find("...");
  if (dots != std::string::npos) {
    int64_t named = static_cast<int64_t>(letters.size()) - 3;
    int64_t covered = rank - named;
    if (covered < 0 || covered > static_cast<int64_t>(broadcast.size()))
      return s.error() << "'" << spec << "' does not fit an operand of rank "
                       << rank;
    letters.replace(dots, 3, broadcast.take_back(covered).str());
  }
  if (static_cast<int64_t>(letters.size()) != rank)
    return s.error() << "'" << spec << "' names " << letters.size()
                     << " dimensions of an operand of rank " << rank;
  for (size_t i = 0; i < letters.size(); ++i)
    if (letters.find(letters[i], i + 1) != std::string::npos)
      return s.error() << "repeated letter '" << letters[i] << "' in '" << spec
                       << "' (diagonals) is not supported";
  return letters;
}

/// Contracts two terms, keeping the letters in \p keep.
Term contract(Steps &s, const Term &a, const Term &b, StringRef keep) {
  std::string batch, left, right, inner;
  for (char letter : a.letters) {
    bool shared = b.letters.find(letter) != std::string::npos;
    (shared ? (keep.contains(letter) ? batch : inner) : left).push_back(letter);
  }
  for (char letter : b.letters)
    if (a.letters.find(letter) == std::string::npos)
      right.push_back(letter);
  Term lhs = arranged(s, a, batch + left + inner);
  Term rhs = arranged(s, b, batch + inner + right);
  if (!lhs.value || !rhs.value)
    return {Value(), batch + left + right};
  SmallVector<int64_t> batchExtents = extentsOf(lhs, batch),
                       leftExtents = extentsOf(lhs, left),
                       innerExtents = extentsOf(lhs, inner),
                       rightExtents = extentsOf(rhs, right);
  int64_t n = product(batchExtents), l = product(leftExtents),
          k = product(innerExtents), r = product(rightExtents);
  Value product3 =
      s.bmm(s.view(lhs.value, {n, l, k}), s.view(rhs.value, {n, k, r}));
  SmallVector<int64_t> shape(batchExtents);
  llvm::append_range(shape, leftExtents);
  llvm::append_range(shape, rightExtents);
  return {s.view(product3, shape), batch + left + right};
}

/// The output's letters: explicit after "->", else the broadcast letters
/// and then those used once, sorted.
FailureOr<std::string> outputLetters(Steps &s, StringRef text,
                                     ArrayRef<Term> terms,
                                     StringRef broadcast) {
  if (text.contains("->")) {
    StringRef outputText = text.split("->").second;
    int64_t rank =
        static_cast<int64_t>(outputText.size()) +
        (outputText.contains("...") ? static_cast<int64_t>(broadcast.size()) - 3
                                    : 0);
    return expand(s, outputText, rank, broadcast);
  }
  std::string output = broadcast.str(), once;
  for (const Term &term : terms)
    for (char letter : term.letters)
      if (!llvm::is_contained(broadcast, letter))
        once.push_back(letter);
  llvm::sort(once);
  for (size_t i = 0; i < once.size(); ++i)
    if ((i == 0 || once[i] != once[i - 1]) &&
        (i + 1 == once.size() || once[i] != once[i + 1]))
      output.push_back(once[i]);
  return output;
}

} // namespace

FailureOr<Value> buildEinsum(EdgeOpBuilder &edge, Location loc,
                             StringRef equation, ArrayRef<Value> operands) {
  Steps s{edge, loc};
  std::string compact;
  for (char ch : equation)
    if (ch != ' ')
      compact.push_back(ch);
  StringRef text(compact);
  SmallVector<StringRef> specs;
  text.split("->").first.split(specs, ',');
  if (specs.size() != operands.size())
    return s.error() << "equation '" << compact << "' names " << specs.size()
                     << " operands for " << operands.size() << " inputs";

  // Ellipsis dimensions get placeholder letters that no equation uses.
  int64_t maxBroadcast = 0;
  SmallVector<Term> terms;
  for (auto [i, value] : llvm::enumerate(operands)) {
    if (!edge::rankedType(value).hasStaticShape())
      return s.error() << "operand " << i << " needs a static shape, got "
                       << edge::rankedType(value);
    terms.push_back({value, ""});
    int64_t rank = edge::rankedType(value).getRank();
    int64_t named = static_cast<int64_t>(specs[i].size());
    if (specs[i].contains("..."))
      maxBroadcast = std::max(maxBroadcast, rank - (named - 3));
  }
  std::string broadcast;
  for (int64_t i = 0; i < maxBroadcast; ++i)
    broadcast.push_back(static_cast<char>('0' + i));
  for (auto [term, spec] : llvm::zip(terms, specs)) {
    FailureOr<std::string> letters =
        expand(s, spec, edge::rankedType(term.value).getRank(), broadcast);
    if (failed(letters))
      return failure();
    term.letters = *letters;
  }
  FailureOr<std::string> output = outputLetters(s, text, terms, broadcast);
  if (failed(output))
    return failure();

  for (const Term &term : terms)
    for (char letter : term.letters)
      for (const Term &other : terms)
        if (other.letters.find(letter) != std::string::npos &&
            extentsOf(other, StringRef(&letter, 1)) !=
                extentsOf(term, StringRef(&letter, 1)))
          return s.error() << "letter '" << letter
                           << "' has different extents in two operands "
                              "(broadcasting inside einsum is not supported)";
  // Fold left to right, keeping what later operands or the output read.
  auto neededAfter = [&](size_t index) {
    std::string needed = *output;
    for (size_t j = index + 1; j < terms.size(); ++j)
      needed += terms[j].letters;
    return needed;
  };
  Term result = summedTo(s, terms[0], neededAfter(0));
  for (size_t i = 1; i < terms.size(); ++i) {
    std::string keep = neededAfter(i);
    Term next = summedTo(s, terms[i], keep + result.letters);
    result = summedTo(s, result, keep + next.letters);
    if (!next.value || !result.value)
      return failure();
    result = contract(s, result, next, keep);
  }
  if (!result.value)
    return failure();
  result = summedTo(s, result, *output);
  if (result.letters.size() != output->size())
    return s.error() << "output '" << text.split("->").second
                     << "' names letters no operand has";
  Value arrangedValue = arranged(s, result, *output).value;
  if (!arrangedValue)
    return failure();
  return arrangedValue;
}

} // namespace etch
