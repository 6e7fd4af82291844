//===- Calibration.cpp - Observe values on the portable kernels -----------===//
#include "Calibration.h"

#include "etch/Serialize/ProgramWriter.h"
#include "etch/Transforms/Passes.h"
#include "runtime/executor/Method.h"
#include "runtime/program/Program.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;

namespace etch::quantization {

struct CalibrationProgram::State {
  struct FreeDeleter {
    void operator()(uint8_t *bytes) const { std::free(bytes); }
  };
  std::unique_ptr<uint8_t, FreeDeleter> bytes; // 64-byte aligned file image
  std::optional<runtime::Program> program;
  std::unique_ptr<runtime::Method> method;
  func::FuncOp func;
  /// Per observed value: the function argument it is, or the method output.
  SmallVector<std::pair<int64_t, int64_t>> sources; // (argument, output)
};

CalibrationProgram::CalibrationProgram(std::unique_ptr<State> state)
    : state(std::move(state)) {}
CalibrationProgram::~CalibrationProgram() = default;

FailureOr<std::unique_ptr<CalibrationProgram>>
CalibrationProgram::create(func::FuncOp func, ArrayRef<Value> observed) {
  auto state = std::make_unique<State>();
  state->func = func;
  // A module of its own holding a copy of the function, whose results are
  // followed by every observed value that is not an argument.
  OwningOpRef<ModuleOp> module = ModuleOp::create(func.getLoc());
  IRMapping mapping;
  auto copy = cast<func::FuncOp>(func->clone(mapping));
  module->push_back(copy);
  auto terminator = cast<func::ReturnOp>(copy.getBody().front().getTerminator());
  SmallVector<Value> results(terminator.getOperands());
  size_t originalResults = results.size();
  for (Value value : observed) {
    if (auto argument = dyn_cast<BlockArgument>(value)) {
      state->sources.push_back({argument.getArgNumber(), -1});
      continue;
    }
    state->sources.push_back({-1, int64_t(results.size())});
    results.push_back(mapping.lookup(value));
  }
  MLIRContext *context = func.getContext();
  SmallVector<DictionaryAttr> resultAttrs;
  for (size_t i = 0; i < results.size(); ++i) {
    DictionaryAttr attrs = i < originalResults ? copy.getResultAttrDict(i)
                                               : DictionaryAttr();
    if (!attrs)
      attrs = DictionaryAttr::get(
          context, {NamedAttribute(StringAttr::get(context, "etch.name"),
                                   StringAttr::get(context, "observed" +
                                                                std::to_string(i)))});
    resultAttrs.push_back(attrs);
  }
  terminator->setOperands(results);
  copy.setFunctionType(FunctionType::get(context, copy.getArgumentTypes(),
                                         ValueRange(results).getTypes()));
  copy.setAllResultAttrs(resultAttrs);
  // Portable kernels only: the reference semantics, on any machine.
  PassManager pm(func.getContext());
  static const std::string portable[] = {"portable"};
  PartitionOptions partition;
  partition.targets = portable;
  pm.addNestedPass<func::FuncOp>(createPartition(partition));
  pm.addNestedPass<func::FuncOp>(createMemoryPlan());
  if (failed(pm.run(*module)))
    return func.emitError("quantize: cannot build the calibration program");
  std::string image;
  llvm::raw_string_ostream os(image);
  if (failed(writeProgram(*module, os)))
    return failure();
  os.flush();
  // Segments are read in place: the image starts 64-byte aligned.
  size_t size = (image.size() + 63) / 64 * 64;
  state->bytes.reset(static_cast<uint8_t *>(std::aligned_alloc(64, size)));
  std::memcpy(state->bytes.get(), image.data(), image.size());
  runtime::Result<runtime::Program> program =
      runtime::Program::load(state->bytes.get(), image.size());
  if (!program.ok())
    return func.emitError("quantize: the calibration program does not load");
  state->program.emplace(std::move(program.get()));
  std::string name = func.getSymName().str();
  auto method = runtime::Method::load(*state->program, name.c_str());
  if (!method.ok())
    return func.emitError("quantize: the calibration program does not load "
                          "(see the runtime's message above)");
  state->method = std::move(method.get());
  return std::unique_ptr<CalibrationProgram>(
      new CalibrationProgram(std::move(state)));
}

LogicalResult CalibrationProgram::run(
    const CalibrationSample &sample,
    function_ref<void(size_t, const float *, size_t)> visit) {
  runtime::Method &method = *state->method;
  if (sample.size() != method.inputCount())
    return state->func.emitError("quantize: a calibration sample has ")
           << sample.size() << " inputs, the model takes "
           << method.inputCount();
  for (size_t i = 0; i < sample.size(); ++i) {
    const HostTensor &input = sample[i];
    if (method.setInput(i, input.type, input.shape.data(),
                        static_cast<int>(input.shape.size()), input.data.data(),
                        input.data.size()) != runtime::Error::Ok)
      return state->func.emitError("quantize: calibration input ")
             << i << " from '" << input.origin
             << "' does not fit the model's input (type and shape)";
  }
  if (method.execute() != runtime::Error::Ok)
    return state->func.emitError("quantize: calibration run failed");
  for (auto [index, source] : llvm::enumerate(state->sources)) {
    auto [argument, output] = source;
    if (argument >= 0) {
      const HostTensor &input = sample[argument];
      if (input.type == runtime::ScalarType::Float32)
        visit(index, reinterpret_cast<const float *>(input.data.data()),
              input.data.size() / sizeof(float));
      continue;
    }
    const runtime::TensorView &tensor = method.output(output);
    visit(index, tensor.data<float>(), tensor.numel());
  }
  return success();
}

} // namespace etch::quantization
