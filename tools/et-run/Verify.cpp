#include "Verify.h"
#include "Text.h"

#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/program/FileHeader.h"
#include "runtime/schema/bundled_generated.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>

namespace etch::tools {

using namespace runtime;

namespace {

using BundledTensors =
    flatbuffers::Vector<flatbuffers::Offset<schema::BundledTensor>>;

/// \p entry as a view of its bytes; false with \p why when they do not
/// hold the tensor it describes.
bool viewOf(const schema::BundledTensor &entry, TensorView &view,
            std::string &why) {
  auto type = static_cast<ScalarType>(entry.scalar_type());
  const auto *sizes = entry.sizes();
  int rank = sizes ? static_cast<int>(sizes->size()) : 0;
  if (entry.scalar_type() > kLastScalarType || rank > kMaxRank ||
      !view.reset(type, sizes ? sizes->data() : nullptr, rank)) {
    why = "an unreadable tensor";
    return false;
  }
  size_t bytes = entry.data() ? entry.data()->size() : 0;
  if (bytes != view.nbytes()) {
    why = "holds " + std::to_string(bytes) + " bytes, " +
          std::to_string(view.nbytes()) + " expected";
    return false;
  }
  view.setData(bytes ? const_cast<uint8_t *>(entry.data()->data()) : nullptr);
  return true;
}

struct Comparison {
  int64_t outside = 0; // elements past the tolerance
  double noise = 0, signal = 0, maxAbs = 0;
};

/// Compares \p actual with \p expected; "" or why they cannot be compared.
std::string compare(const TensorView &actual, const TensorView &expected,
                    VerifyTolerance tolerance, Comparison &result) {
  if (actual.scalarType() != expected.scalarType() ||
      actual.rank() != expected.rank() ||
      shapeText(actual) != shapeText(expected))
    return std::string("is ") + scalarTypeName(actual.scalarType()) + " " +
           shapeText(actual) + ", expected " +
           scalarTypeName(expected.scalarType()) + " " + shapeText(expected);
  if (!portable::isConvertible(actual.scalarType()))
    return std::string("has dtype ") + scalarTypeName(actual.scalarType()) +
           ", which --verify cannot compare";
  for (int64_t i = 0; i < actual.numel(); ++i) {
    double a = portable::loadAsDouble(actual, i);
    double e = portable::loadAsDouble(expected, i);
    bool same = a == e || (std::isnan(a) && std::isnan(e));
    double difference = same ? 0 : std::fabs(a - e);
    if (!same &&
        !(difference <= tolerance.atol + tolerance.rtol * std::fabs(e)))
      ++result.outside;
    if (std::isfinite(difference)) {
      result.noise += difference * difference;
      result.maxAbs = std::max(result.maxAbs, difference);
    }
    if (std::isfinite(e))
      result.signal += e * e;
  }
  return "";
}

class CaseRunner {
public:
  CaseRunner(Module &module, VerifyTolerance tolerance,
             std::string (*runtimeError)())
      : module(module), tolerance(tolerance), runtimeError(runtimeError) {}

  /// Runs \p bundled; prints its line. False when it fails.
  bool run(const schema::BundledCase &bundled) {
    std::printf("case '%s' (%s): ", bundled.name()->c_str(),
                bundled.method()->c_str());
    Method *method = load(bundled.method()->c_str());
    if (!method)
      return fail("cannot load the method" + runtimeError());
    const BundledTensors *inputs = bundled.inputs();
    size_t inputCount = inputs ? inputs->size() : 0;
    if (inputCount != method->inputCount())
      return fail(std::to_string(inputCount) + " inputs, the method takes " +
                  std::to_string(method->inputCount()));
    method->resetState();
    std::string why;
    for (size_t i = 0; i < inputCount; ++i) {
      TensorView input;
      if (!viewOf(*inputs->Get(i), input, why))
        return fail("input " + std::to_string(i) + ": " + why);
      if (method->setInput(i, input.scalarType(), input.sizes(), input.rank(),
                           input.data(), input.nbytes()) != Error::Ok)
        return fail("input " + std::to_string(i) + " does not fit" +
                    runtimeError());
    }
    if (method->prepare() != Error::Ok || method->execute() != Error::Ok)
      return fail("execution failed" + runtimeError());
    const BundledTensors *expected = bundled.expected();
    size_t expectedCount = expected ? expected->size() : 0;
    if (expectedCount != method->outputCount())
      return fail(std::to_string(expectedCount) +
                  " expected outputs, the method gives " +
                  std::to_string(method->outputCount()));
    Comparison total;
    std::string outcome;
    for (size_t i = 0; i < expectedCount; ++i) {
      TensorView reference;
      if (!viewOf(*expected->Get(i), reference, why))
        return fail("expected output " + std::to_string(i) + ": " + why);
      Comparison each;
      why = compare(method->output(i), reference, tolerance, each);
      if (!why.empty())
        return fail("output " + std::to_string(i) + " " + why);
      if (each.outside && outcome.empty())
        outcome = "output " + std::to_string(i) + ": " +
                  std::to_string(each.outside) + " of " +
                  std::to_string(method->output(i).numel()) +
                  " elements outside the tolerance, ";
      total.outside += each.outside;
      total.noise += each.noise;
      total.signal += each.signal;
      total.maxAbs = std::max(total.maxAbs, each.maxAbs);
    }
    double relL2 = total.signal > 0 ? std::sqrt(total.noise / total.signal)
                                    : std::sqrt(total.noise);
    std::printf("%s%srel-L2 %.3g, max-abs %.3g\n",
                total.outside ? "FAIL, " : "pass, ", outcome.c_str(), relL2,
                total.maxAbs);
    return total.outside == 0;
  }

private:
  bool fail(const std::string &why) {
    std::printf("FAIL, %s\n", why.c_str());
    return false;
  }

  Method *load(const char *name) {
    auto it = methods.find(name);
    if (it != methods.end())
      return it->second.get();
    Result<std::unique_ptr<Method>> loaded = module.loadMethod(name);
    std::unique_ptr<Method> method = loaded.ok() ? std::move(*loaded) : nullptr;
    return (methods[name] = std::move(method)).get();
  }

  Module &module;
  VerifyTolerance tolerance;
  std::string (*runtimeError)();
  std::map<std::string, std::unique_ptr<Method>> methods;
};

} // namespace

int verifyBundledCases(Module &module, const std::string &path,
                       VerifyTolerance tolerance,
                       std::string (*runtimeError)()) {
  Span<const uint8_t> bytes = module.program().namedData(kBundledCasesName);
  if (bytes.empty()) {
    std::fprintf(stderr,
                 "et-run: %s: the program has no bundled cases (et-compile "
                 "--bundle stores them)\n",
                 path.c_str());
    return 1;
  }
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  const schema::BundledCases *bundle =
      schema::BundledCasesBufferHasIdentifier(bytes.data()) &&
              schema::VerifyBundledCasesBuffer(verifier)
          ? schema::GetBundledCases(bytes.data())
          : nullptr;
  if (!bundle || !bundle->cases() || bundle->cases()->size() == 0) {
    std::fprintf(stderr, "et-run: %s: the bundled cases are damaged\n",
                 path.c_str());
    return 1;
  }
  CaseRunner runner(module, tolerance, runtimeError);
  size_t passed = 0;
  for (const schema::BundledCase *bundled : *bundle->cases())
    passed += runner.run(*bundled);
  std::printf("verify: %zu of %u cases passed (rtol %g, atol %g)\n", passed,
              bundle->cases()->size(), tolerance.rtol, tolerance.atol);
  return passed == bundle->cases()->size() ? 0 : 1;
}

} // namespace etch::tools
