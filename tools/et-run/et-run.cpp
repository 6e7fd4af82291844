//===- et-run.cpp - Run an etch program file ------------------------------===//
//
//   et-run model.etp [--input x.npy ... | --input-sets LIST] [--output-dir D]
//                    [--iterations N] [--profile] [--method NAME] [--seed S]
//                    [--threads N] [--keep-state] [--weights W]
//   et-run model.etp --verify [--rtol R] [--atol A]
//
// Uses only the runtime (no MLIR/LLVM). Inputs without --input are random
// (uniform [-1, 1) floats, small non-negative ints) from a fixed seed. A
// program with mutable buffers (KV caches) starts every iteration from
// their initial contents, so each gives the same outputs; --keep-state
// carries them from one iteration to the next instead. --input-sets runs
// once per line of LIST (that line's .npy paths) with one load, outputs
// in D/0/, D/1/, ...: an evaluation over many inputs without reloading.
// --verify runs the test cases et-compile --bundle stored in the program.
//
//===----------------------------------------------------------------------===//
#include "Intermediates.h"
#include "Npy.h"
#include "Text.h"
#include "Trace.h"
#include "Verify.h"

#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/module/Module.h"
#include "runtime/platform/Platform.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace etch::runtime;
using etch::tools::NpyArray;
using etch::tools::shapeText;

namespace {

struct Options {
  std::string program;
  std::vector<std::string> inputs;
  std::string inputSets; // a file: one line of .npy paths per execute
  std::string outputDir;
  std::string dumpDir;   // --dump-intermediates
  std::string tracePath; // --trace
  std::string weights;   // --weights
  std::string method = "forward";
  int iterations = 1;
  bool profile = false;
  unsigned seed = 0;
  int threads = 0;
  bool keepState = false;
  bool verify = false;
  etch::tools::VerifyTolerance tolerance;
};

/// The first error the runtime logged since the last take(): the most
/// specific cause, which et-run prints on its one line.
class ErrorCapture {
public:
  static void install() {
    PlatformHooks hooks{};
    hooks.log = [](LogLevel level, const char *, int, const char *message) {
      if (level == LogLevel::Error || level == LogLevel::Fatal) {
        if (!first[0])
          std::snprintf(first, sizeof(first), "%s", message);
        return;
      }
      std::fprintf(stderr, "etch: %s\n", message);
    };
    setPlatformHooks(hooks);
  }
  /// ": <cause>" or "", then forgets it.
  static std::string take() {
    std::string cause = first[0] ? std::string(": ") + first : "";
    first[0] = 0;
    return cause;
  }

private:
  static inline char first[512] = {};
};

constexpr const char *kUsage =
    "usage: et-run model.etp [--input x.npy ... | --input-sets LIST] "
    "[--output-dir D] [--iterations N] [--profile] [--method NAME] "
    "[--seed S] [--threads N] [--keep-state] [--dump-intermediates D]\n"
    "       [--trace FILE.json] [--weights FILE.etw]\n"
    "       et-run model.etp --verify [--rtol R] [--atol A] [--threads N]\n";

int usage(const char *message) {
  std::fprintf(stderr, "et-run: %s\n%s", message, kUsage);
  return 2;
}

/// --help: the usage line and what each option does, on stdout.
int help() {
  std::printf(
      "et-run: loads a program, runs a method and prints its outputs "
      "(docs/runtime.md)\n%s"
      "  --input x.npy      the next method input (repeatable; default: "
      "seeded values)\n"
      "  --input-sets LIST  one execute per line of LIST (the line's .npy\n"
      "                     paths, one per input), outputs in D/K/ for line "
      "K;\n"
      "                     the program loads once (needs --output-dir)\n"
      "  --output-dir D     write each output as D/outputN.npy\n"
      "  --iterations N     run N times, print mean and median time\n"
      "  --profile          time each instruction and delegate step\n"
      "  --method NAME      the method to run (forward)\n"
      "  --seed S           seed of the generated inputs (0)\n"
      "  --threads N        kernel threads (default: the cores)\n"
      "  --keep-state       keep state buffers between iterations\n"
      "  --weights FILE.etw the program's external weights (et-compile\n"
      "                     --external-weights; default: the file it was\n"
      "                     compiled against, beside the program)\n"
      "  --dump-intermediates D  write every value the method computes (the\n"
      "                     last iteration) as D/NNNN_<node>_K.npy, with\n"
      "                     D/index.json: instruction, op(s), producer\n"
      "                     node(s), source line(s), dtype, shape\n"
      "  --trace FILE.json  Chrome trace events (Perfetto, chrome://tracing):\n"
      "                     each execute and instruction, and the steps a\n"
      "                     delegate times itself (oneDNN, Vulkan)\n"
      "  --verify           run the test cases stored with et-compile "
      "--bundle;\n"
      "                     exit 0 when every output is within\n"
      "                     atol + rtol * |expected| of its expected value\n"
      "  --rtol R, --atol A the tolerances of --verify (1e-4, 1e-5)\n"
      "  --help, -h         this text\n",
      kUsage);
  return 0;
}

bool parse(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char * {
      return i + 1 < argc ? argv[++i] : nullptr;
    };
    if (arg == "--input") {
      const char *path = value();
      if (!path)
        return false;
      options.inputs.push_back(path);
    } else if (arg == "--input-sets") {
      const char *path = value();
      if (!path)
        return false;
      options.inputSets = path;
    } else if (arg == "--output-dir") {
      const char *path = value();
      if (!path)
        return false;
      options.outputDir = path;
    } else if (arg == "--dump-intermediates") {
      const char *path = value();
      if (!path)
        return false;
      options.dumpDir = path;
    } else if (arg == "--weights") {
      const char *path = value();
      if (!path)
        return false;
      options.weights = path;
    } else if (arg == "--trace") {
      const char *path = value();
      if (!path)
        return false;
      options.tracePath = path;
    } else if (arg == "--iterations") {
      const char *count = value();
      if (!count || (options.iterations = std::atoi(count)) < 1)
        return false;
    } else if (arg == "--method") {
      const char *name = value();
      if (!name)
        return false;
      options.method = name;
    } else if (arg == "--seed") {
      const char *seed = value();
      if (!seed)
        return false;
      options.seed = std::strtoul(seed, nullptr, 10);
    } else if (arg == "--threads") {
      const char *count = value();
      if (!count || (options.threads = std::atoi(count)) < 1)
        return false;
    } else if (arg == "--rtol" || arg == "--atol") {
      const char *number = value();
      char *end = nullptr;
      double parsed = number ? std::strtod(number, &end) : -1;
      if (!number || *end || !(parsed >= 0))
        return false;
      (arg == "--rtol" ? options.tolerance.rtol : options.tolerance.atol) =
          parsed;
    } else if (arg == "--verify") {
      options.verify = true;
    } else if (arg == "--profile") {
      options.profile = true;
    } else if (arg == "--keep-state") {
      options.keepState = true;
    } else if (!arg.empty() && arg[0] != '-' && options.program.empty()) {
      options.program = arg;
    } else {
      return false;
    }
  }
  // Input sets name their own inputs and need somewhere to put outputs;
  // a dump holds one execute's values.
  if (!options.inputSets.empty() &&
      (!options.inputs.empty() || options.outputDir.empty() ||
       !options.dumpDir.empty() || !options.tracePath.empty()))
    return false;
  // Each watches every instruction through the one observer.
  if (!options.dumpDir.empty() && !options.tracePath.empty())
    return false;
  // --verify runs the program's own inputs, once each.
  if (options.verify &&
      (!options.inputs.empty() || !options.inputSets.empty() ||
       !options.dumpDir.empty() || options.iterations != 1))
    return false;
  return !options.program.empty();
}

/// "[1..8, 3, 32, 32]": what input \p index accepts.
std::string boundsText(const Method &method, size_t index, int rank) {
  std::string text = "[";
  for (int d = 0; d < rank; ++d) {
    int64_t low = method.inputMinSize(index, d), high = method.inputMaxSize(index, d);
    text += (d ? ", " : "") + std::to_string(low);
    if (high != low)
      text += ".." + std::to_string(high);
  }
  return text + "]";
}

void fillRandom(TensorView &tensor, std::mt19937 &generator) {
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(0, 9);
  for (int64_t i = 0; i < tensor.numel(); ++i) {
    switch (tensor.scalarType()) {
    case ScalarType::Float32:
      tensor.data<float>()[i] = real(generator);
      break;
    case ScalarType::Float64:
      tensor.data<double>()[i] = real(generator);
      break;
    case ScalarType::Int64:
      tensor.data<int64_t>()[i] = small(generator);
      break;
    case ScalarType::Int32:
      tensor.data<int32_t>()[i] = small(generator);
      break;
    default:
      static_cast<uint8_t *>(
          tensor.data())[i * elementSize(tensor.scalarType())] =
          static_cast<uint8_t>(small(generator) & 1);
      break;
    }
  }
}

struct ProfileRow {
  std::string name;
  uint64_t calls = 0, nanos = 0;
};

void addToRow(std::vector<ProfileRow> &rows, const std::string &name,
              uint64_t calls, uint64_t nanos) {
  auto it = std::find_if(rows.begin(), rows.end(), [&](const ProfileRow &row) {
    return row.name == name;
  });
  if (it == rows.end()) {
    rows.push_back({name});
    it = rows.end() - 1;
  }
  it->calls += calls;
  it->nanos += nanos;
}

void printRows(const char *heading, std::vector<ProfileRow> rows) {
  std::sort(rows.begin(), rows.end(),
            [](const ProfileRow &a, const ProfileRow &b) {
              return a.nanos > b.nanos;
            });
  std::printf("%-28s %8s %12s %12s\n", heading, "calls", "total ms", "mean us");
  for (const ProfileRow &row : rows)
    std::printf("%-28s %8llu %12.3f %12.3f\n", row.name.c_str(),
                static_cast<unsigned long long>(row.calls), row.nanos / 1e6,
                row.nanos / 1e3 / row.calls);
}

/// Wall time per op, then the steps delegates timed on their device
/// (Vulkan dispatches), each summed over the iterations.
void printProfile(const Method &method, const std::vector<uint64_t> &nanos,
                  int iterations) {
  std::vector<ProfileRow> ops, steps;
  std::vector<DelegateEvent> events;
  for (size_t i = 0; i < method.instructionCount(); ++i) {
    addToRow(ops, method.instructionName(i), iterations, nanos[i]);
    size_t count = method.delegateEvents(i, {});
    events.resize(count);
    method.delegateEvents(i, {events.data(), events.size()});
    for (const DelegateEvent &event : events)
      addToRow(steps, std::string(method.instructionName(i)) + " " + event.name,
               iterations, event.nanos);
  }
  printRows("op", ops);
  if (!steps.empty())
    printRows("delegate step (its own timing)", steps);
}

/// Binds input i of \p method to paths[i] (.npy), or to seeded values
/// when \p paths is empty; false after printing why not.
bool bindInputs(Method &method, const std::vector<std::string> &paths,
                std::mt19937 &generator) {
  for (size_t i = 0; i < method.inputCount(); ++i) {
    if (paths.empty()) {
      fillRandom(method.input(i), generator);
      continue;
    }
    NpyArray array;
    std::string error;
    if (!etch::tools::readNpy(paths[i], array, error)) {
      std::fprintf(stderr, "et-run: %s\n", error.c_str());
      return false;
    }
    // NumPy has no bfloat16: its bits come as uint16 (as onnx stores them).
    if (array.type == ScalarType::UInt16 &&
        method.input(i).scalarType() == ScalarType::BFloat16)
      array.type = ScalarType::BFloat16;
    Error status = method.setInput(i, array.type, array.shape.data(),
                                   static_cast<int>(array.shape.size()),
                                   array.data.data(), array.data.size());
    if (status != Error::Ok) {
      // The runtime's message says what is wrong; the declared type and
      // bounds say what would fit.
      std::string cause = ErrorCapture::take();
      std::fprintf(stderr, "et-run: %s: %s (the program takes %s %s)\n",
                   paths[i].c_str(),
                   cause.empty() ? errorName(status) : cause.c_str() + 2,
                   scalarTypeName(method.input(i).scalarType()),
                   boundsText(method, i, method.input(i).rank()).c_str());
      return false;
    }
  }
  return true;
}

/// New input shapes (dynamic dimensions): every shape is computed now, so
/// the timed executes only compute.
bool prepare(Method &method, const Options &options) {
  if (Error status = method.prepare(); status != Error::Ok) {
    std::fprintf(stderr, "et-run: %s: cannot run these input shapes (%s)%s\n",
                 options.program.c_str(), errorName(status),
                 ErrorCapture::take().c_str());
    return false;
  }
  return true;
}

/// One timed execute, its time appended to \p times; \p observer sees
/// each instruction.
bool execute(Method &method, const Options &options, uint64_t *profile,
             std::vector<double> &times,
             const Method::InstructionObserver *observer = nullptr) {
  uint64_t start = nowNanoseconds();
  Error status = method.execute(profile, observer);
  times.push_back((nowNanoseconds() - start) / 1e6);
  if (status != Error::Ok) {
    std::fprintf(stderr, "et-run: %s: execution failed (%s)%s\n",
                 options.program.c_str(), errorName(status),
                 ErrorCapture::take().c_str());
    return false;
  }
  return true;
}

/// Each output's summary line (when \p print) and, with a \p dir, the
/// output as dir/outputN.npy.
bool writeOutputs(const Method &method, const std::string &dir, bool print) {
  if (!dir.empty())
    mkdir(dir.c_str(), 0755);
  for (size_t i = 0; i < method.outputCount(); ++i) {
    const TensorView &output = method.output(i);
    if (print) {
      double low = INFINITY, high = -INFINITY, sum = 0;
      for (int64_t e = 0; e < output.numel(); ++e) {
        double value = etch::runtime::portable::loadAsDouble(output, e);
        low = std::min(low, value);
        high = std::max(high, value);
        sum += value;
      }
      std::printf("output %zu '%s': %s %s min %.6g max %.6g mean %.6g\n", i,
                  method.outputName(i), scalarTypeName(output.scalarType()),
                  shapeText(output).c_str(), low, high,
                  output.numel() ? sum / output.numel() : 0.0);
    }
    if (dir.empty())
      continue;
    std::string path = dir + "/output" + std::to_string(i) + ".npy";
    std::string error;
    if (!etch::tools::writeNpy(path, output.scalarType(), output.sizes(),
                               output.rank(), output.data(), output.nbytes(),
                               error)) {
      std::fprintf(stderr, "et-run: %s\n", error.c_str());
      return false;
    }
  }
  return true;
}

void printTimes(const Method &method, double loadMs,
                const std::vector<double> &times, const char *unit) {
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  double total = 0;
  for (double t : times)
    total += t;
  std::printf("load %.3f ms, arena %llu bytes; %zu %s(s): mean %.3f ms, "
              "median %.3f ms per %s\n",
              loadMs, static_cast<unsigned long long>(method.arenaBytes()),
              times.size(), unit, times.empty() ? 0.0 : total / times.size(),
              sorted.empty() ? 0.0 : sorted[sorted.size() / 2], unit);
}

/// --input-sets: one execute per line of the list, from the method's
/// initial state, outputs in outputDir/K/ for line K (counting from 0).
int runInputSets(Method &method, const Options &options, double loadMs) {
  std::ifstream list(options.inputSets);
  if (!list) {
    std::fprintf(stderr, "et-run: %s: cannot open the input list\n",
                 options.inputSets.c_str());
    return 1;
  }
  mkdir(options.outputDir.c_str(), 0755);
  std::vector<double> times;
  std::mt19937 unused;
  std::string line;
  for (int number = 1; std::getline(list, line); ++number) {
    std::istringstream words(line);
    std::vector<std::string> paths{std::istream_iterator<std::string>(words),
                                   std::istream_iterator<std::string>()};
    if (paths.empty())
      continue; // blank lines separate nothing
    if (paths.size() != method.inputCount()) {
      std::fprintf(stderr,
                   "et-run: %s:%d: method '%s' takes %zu inputs, %zu given\n",
                   options.inputSets.c_str(), number, options.method.c_str(),
                   method.inputCount(), paths.size());
      return 1;
    }
    std::string dir = options.outputDir + "/" + std::to_string(times.size());
    method.resetState();
    if (!bindInputs(method, paths, unused) || !prepare(method, options) ||
        !execute(method, options, nullptr, times) ||
        !writeOutputs(method, dir, /*print=*/false))
      return 1;
  }
  printTimes(method, loadMs, times, "input set");
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0)
      return help();
  Options options;
  if (!parse(argc, argv, options))
    return usage("bad arguments");

  ErrorCapture::install();
  registerAllBackends();
  LoadOptions load;
  load.threads = options.threads;
  load.profileDelegates = options.profile || !options.tracePath.empty();
  load.weightsPath =
      options.weights.empty() ? nullptr : options.weights.c_str();
  uint64_t loadStart = nowNanoseconds();
  Result<std::unique_ptr<Module>> module =
      Module::open(options.program.c_str(), load);
  if (!module.ok()) {
    std::fprintf(stderr, "et-run: %s: cannot load program (%s)%s\n",
                 options.program.c_str(), errorName(module.error()),
                 ErrorCapture::take().c_str());
    return 1;
  }
  if (options.verify)
    return etch::tools::verifyBundledCases(
        **module, options.program, options.tolerance, &ErrorCapture::take);
  Result<std::unique_ptr<Method>> loaded =
      (*module)->loadMethod(options.method.c_str());
  if (!loaded.ok()) {
    // A missing method: say which there are (et-compile --method).
    std::string methods;
    if (loaded.error() == Error::NotFound)
      for (const auto *method : *(*module)->program().flatbuffer().methods())
        methods += (methods.empty() ? " (the program has: " : ", ") +
                   method->name()->str();
    std::fprintf(stderr, "et-run: %s: cannot load method '%s' (%s)%s%s\n",
                 options.program.c_str(), options.method.c_str(),
                 errorName(loaded.error()), ErrorCapture::take().c_str(),
                 methods.empty() ? "" : (methods + ")").c_str());
    return 1;
  }
  Method &method = **loaded;
  double loadMs = (nowNanoseconds() - loadStart) / 1e6;

  if (!options.inputSets.empty())
    return runInputSets(method, options, loadMs);
  if (!options.inputs.empty() && options.inputs.size() != method.inputCount()) {
    std::fprintf(stderr, "et-run: method '%s' takes %zu inputs, %zu given\n",
                 options.method.c_str(), method.inputCount(),
                 options.inputs.size());
    return 1;
  }
  std::mt19937 generator(options.seed);
  if (!bindInputs(method, options.inputs, generator) ||
      !prepare(method, options))
    return 1;

  std::vector<uint64_t> profile(method.instructionCount(), 0);
  std::vector<double> times;
  etch::tools::ChromeTrace trace;
  bool tracing = !options.tracePath.empty();
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    if (iteration > 0 && !options.keepState)
      method.resetState();
    bool last = iteration + 1 == options.iterations;
    bool dumping = last && !options.dumpDir.empty();
    etch::tools::IntermediateDump dump;
    Method::InstructionObserver observer =
        tracing ? trace.observer() : dump.observer();
    std::string error;
    if (dumping && !dump.begin(options.dumpDir, method, error)) {
      std::fprintf(stderr, "et-run: --dump-intermediates: %s\n", error.c_str());
      return 1;
    }
    if (tracing)
      trace.begin();
    if (!execute(method, options, options.profile ? profile.data() : nullptr,
                 times, dumping || tracing ? &observer : nullptr))
      return 1;
    if (tracing)
      trace.end(method);
    if (dumping && !dump.finish(error)) {
      std::fprintf(stderr, "et-run: --dump-intermediates: %s\n", error.c_str());
      return 1;
    }
  }
  if (std::string error;
      tracing && !trace.write(options.tracePath, method, error)) {
    std::fprintf(stderr, "et-run: --trace: %s\n", error.c_str());
    return 1;
  }
  if (!writeOutputs(method, options.outputDir, /*print=*/true))
    return 1;
  printTimes(method, loadMs, times, "iteration");

  if (options.profile)
    printProfile(method, profile, options.iterations);
  return 0;
}
