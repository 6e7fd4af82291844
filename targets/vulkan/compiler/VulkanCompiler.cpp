//===- VulkanCompiler.cpp - Delegate body -> Vulkan blob ------------------===//
#include "VulkanCompiler.h"

#include "ArenaPlan.h"
#include "VulkanRules.h"

#include "targets/vulkan/schema/ShaderInterface.h"

#include "runtime/backend/BlobFraming.h"
#include "runtime/core/Half.h"

#include "edge/ConstantData.h"
#include "edge/EdgeTypeUtils.h"
#include "etch/Quantization/QdqPattern.h"
#include "etch/Target/ChannelsLast.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace etch::edge;

namespace etch::vulkan {
namespace {

constexpr uint32_t kLineWidth = 64; // invocations of the 1-D shaders
constexpr uint32_t kTile = 16;      // Gemm's square tile

/// Bool values (attention masks from outside) are bytes in the arena.
bool isBool(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType().isInteger(1);
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t total = 1;
  for (int64_t dim : dims)
    total *= dim;
  return total;
}

SmallVector<int64_t> contiguousStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

uint64_t wordBytes(int64_t bytes) { return (bytes + 3) / 4 * 4; }

uint32_t ceilDiv(int64_t value, int64_t by) {
  return static_cast<uint32_t>((value + by - 1) / by);
}

/// A value as the shaders see it: a buffer of the plan and row-major dims.
struct Stored {
  int buffer;
  SmallVector<int64_t> shape;
};

/// Six dims and two stride lists (leading 1s for lower ranks), as Copy
/// and Binary read them.
struct Walk {
  uint32_t dims[kMaxRank] = {1, 1, 1, 1, 1, 1};
  uint32_t first[kMaxRank] = {};
  uint32_t second[kMaxRank] = {};
  Walk(ArrayRef<int64_t> shape, ArrayRef<int64_t> firstStrides,
       ArrayRef<int64_t> secondStrides) {
    size_t pad = kMaxRank - shape.size();
    for (size_t d = 0; d < shape.size(); ++d) {
      dims[pad + d] = shape[d];
      first[pad + d] = firstStrides[d];
      second[pad + d] = secondStrides[d];
    }
  }
  std::vector<uint32_t> words() const {
    std::vector<uint32_t> push(dims, dims + kMaxRank);
    push.insert(push.end(), first, first + kMaxRank);
    push.insert(push.end(), second, second + kMaxRank);
    return push;
  }
};

/// The strides that read an operand of shape \p operand broadcast to
/// \p shape (NumPy rules: a missing or size-1 dim repeats).
SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> operand,
                                      ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 0);
  SmallVector<int64_t> own = contiguousStrides(operand);
  size_t pad = shape.size() - operand.size();
  for (size_t d = 0; d < operand.size(); ++d)
    if (operand[d] == shape[pad + d] && operand[d] != 1)
      strides[pad + d] = own[d];
  return strides;
}

/// Gemm's operands: A [M, K], B [K, N] and the bias through strides.
struct GemmForm {
  int64_t M, N, K, batch = 1;
  int64_t aBatch = 0, aRow, aCol = 1;
  int64_t bBatch = 0, bRow, bCol = 1;
  int64_t biasRow = 0, biasCol = 1;
};

class DelegateCompiler {
public:
  DelegateCompiler(DelegateOp delegate, FloatStorage storage)
      : delegate(delegate), storage(storage),
        elementSize(elementBytes(storage)) {}

  FailureOr<CompiledDelegate> run() {
    Block &body = delegate.getBody().front();
    for (BlockArgument argument : body.getArguments()) {
      int buffer = newBuffer(shapeOf(argument), true, isBool(argument));
      stored[argument] = {buffer, SmallVector<int64_t>(shapeOf(argument))};
    }
    argumentBuffers = buffers.size();
    auto terminator = cast<DelegateReturnOp>(body.getTerminator());
    for (Value value : terminator.getOperands())
      returned.insert(value);
    for (Operation &op : body) {
      // A dequantized constant is float weights to its readers (operand()).
      auto dequantize = dyn_cast<DequantizeOp>(op);
      if (isa<ConstantOp, DelegateReturnOp>(op) ||
          (dequantize && quantization::isConstant(dequantize.getInput())))
        continue;
      if (failed(lower(&op)))
        return failure();
    }
    for (Value value : terminator.getOperands()) {
      auto it = stored.find(value);
      if (it == stored.end())
        return delegate.emitOpError(
            "vulkan: a delegate result is not computed inside the delegate");
      Stored output = it->second;
      // A view of an input or a constant (a delegate of views alone) gets
      // bytes of its own.
      if (size_t(output.buffer) < argumentBuffers ||
          !data[output.buffer].empty()) {
        SmallVector<int64_t> strides = contiguousStrides(output.shape);
        Stored copy{newBuffer(output.shape), output.shape};
        emitCopy(output.buffer, copy.buffer,
                 Walk(output.shape, strides, strides), 0, 0);
        output = copy;
      }
      buffers[output.buffer].pinned = true;
      outputs.push_back(output);
    }
    return finish();
  }

private:
  //===--- buffers ------------------------------------------------------===//

  /// A buffer of \p shape's float elements (in the arena's storage), or
  /// bytes when \p bytes; whole 32-bit words either way.
  int newBuffer(ArrayRef<int64_t> shape, bool pinned = false,
                bool bytes = false) {
    PlannedBuffer buffer;
    buffer.bytes = wordBytes(product(shape) * (bytes ? 1 : elementSize));
    buffer.pinned = pinned;
    buffers.push_back(buffer);
    data.emplace_back();
    return static_cast<int>(buffers.size()) - 1;
  }

  int constantBuffer(ArrayRef<int64_t> shape, std::vector<float> values) {
    int buffer = newBuffer(shape, true);
    data[buffer] = std::move(values);
    return buffer;
  }

  /// \p value's buffer: computed earlier, or a constant uploaded once.
  FailureOr<Stored> operand(Operation *user, Value value) {
    if (auto it = stored.find(value); it != stored.end())
      return it->second;
    std::optional<SmallVector<float>> values =
        quantization::constantRealValues(value);
    if (!values)
      return user->emitOpError("vulkan: operand is neither computed in the "
                               "delegate nor a constant");
    Stored result{constantBuffer(shapeOf(value),
                                 std::vector<float>(values->begin(),
                                                    values->end())),
                  SmallVector<int64_t>(shapeOf(value))};
    stored[value] = result;
    return result;
  }

  /// A [rows, cols] constant stored transposed, [cols, rows]: the layout
  /// Gemm reads along its rows.
  FailureOr<int> transposedConstant(Operation *user, Value value) {
    if (auto it = transposed.find(value); it != transposed.end())
      return it->second;
    std::optional<SmallVector<float>> values =
        quantization::constantRealValues(value);
    if (!values)
      return user->emitOpError("vulkan: weight payload is not available");
    ArrayRef<int64_t> shape = shapeOf(value);
    std::vector<float> packed =
        permuteData<float>(std::vector<float>(values->begin(), values->end()),
                           shape, {1, 0});
    int buffer = constantBuffer({shape[1], shape[0]}, std::move(packed));
    transposed[value] = buffer;
    return buffer;
  }

  Stored result(Value value) {
    Stored out{newBuffer(shapeOf(value)), SmallVector<int64_t>(shapeOf(value))};
    stored[value] = out;
    return out;
  }

  //===--- dispatches ---------------------------------------------------===//

  /// Adds a dispatch; the last binding is the one it writes.
  int emit(Shader shader, std::vector<int> bound, std::vector<uint32_t> push,
           std::array<uint32_t, 3> groups, std::array<uint32_t, 2> local) {
    int index = static_cast<int>(dispatches.size());
    for (int buffer : bound)
      buffers[buffer].lastUse = index;
    PlannedBuffer &written = buffers[bound.back()];
    if (written.firstWrite < 0)
      written.firstWrite = index;
    dispatches.push_back({shader, std::move(bound), std::move(push), groups,
                          local});
    return index;
  }

  /// A grid-stride launch over \p count elements.
  int emitLine(Shader shader, std::vector<int> bound,
               std::vector<uint32_t> push, int64_t count) {
    uint32_t groups = std::min<int64_t>(ceilDiv(count, kLineWidth), kMaxGroups);
    return emit(shader, std::move(bound), std::move(push), {groups, 1, 1},
                {kLineWidth, 1});
  }

  void emitCopy(int from, int to, const Walk &walk, int64_t fromOffset,
                int64_t toOffset) {
    std::vector<uint32_t> push = walk.words();
    push.push_back(static_cast<uint32_t>(fromOffset));
    push.push_back(static_cast<uint32_t>(toOffset));
    emitLine(Shader::Copy, {from, to}, std::move(push), elementCount(walk));
  }

  static int64_t elementCount(const Walk &walk) {
    int64_t count = 1;
    for (uint32_t dim : walk.dims)
      count *= dim;
    return count;
  }

  /// Gemm writing \p out: act(A B + bias); returns the dispatch.
  FailureOr<int> emitGemm(Operation *op, int a, int b, int bias, int out,
                          const GemmForm &g) {
    if (g.batch > kMaxGroups || ceilDiv(g.M, kTile) > kMaxGroups ||
        ceilDiv(g.N, kTile) > kMaxGroups)
      return op->emitOpError("vulkan: matrix product too large for one "
                             "dispatch");
    std::vector<uint32_t> push = {
        uint32_t(g.M),       uint32_t(g.N),       uint32_t(g.K),
        uint32_t(g.aBatch),  uint32_t(g.aRow),    uint32_t(g.aCol),
        uint32_t(g.bBatch),  uint32_t(g.bRow),    uint32_t(g.bCol),
        uint32_t(g.biasRow), uint32_t(g.biasCol), uint32_t(bias >= 0),
        uint32_t(Activation::None), 0, 0};
    int dispatch = emit(Shader::Gemm, {a, b, bias >= 0 ? bias : out, out},
                        std::move(push),
                        {ceilDiv(g.N, kTile), ceilDiv(g.M, kTile),
                         uint32_t(g.batch)},
                        {kTile, kTile});
    return dispatch;
  }

  /// Where a dispatch takes a fused activation: its push words.
  static constexpr size_t kGemmActivation = 12, kConvActivation = 17;

  //===--- lowering -----------------------------------------------------===//

  LogicalResult lowerActivation(Operation *op, const ActivationForm &form) {
    Value input = op->getOperand(0), out = op->getResult(0);
    // The epilogue of the GEMM or convolution that computed the input.
    if (auto it = epilogues.find(input); it != epilogues.end() &&
                                         input.hasOneUse() &&
                                         !returned.count(input)) {
      auto [dispatch, at] = it->second;
      std::vector<uint32_t> &push = dispatches[dispatch].push;
      push[at] = static_cast<uint32_t>(form.activation);
      push[at + 1] = floatBits(form.alpha);
      push[at + 2] = floatBits(form.beta);
      Stored fused = stored.lookup(input); // a copy: insertion may rehash
      stored[out] = fused;
      epilogues.erase(it);
      return success();
    }
    FailureOr<Stored> in = operand(op, input);
    if (failed(in))
      return failure();
    Stored to = result(out);
    int64_t count = product(to.shape);
    emitLine(Shader::Unary, {in->buffer, to.buffer},
             {uint32_t(count), uint32_t(form.activation), floatBits(form.alpha),
              floatBits(form.beta)},
             count);
    return success();
  }

  LogicalResult lowerBinary(Operation *op, const BinaryForm &form) {
    FailureOr<Stored> a = operand(op, op->getOperand(0));
    FailureOr<Stored> b = operand(op, op->getOperand(1));
    if (failed(a) || failed(b))
      return failure();
    Stored to = result(op->getResult(0));
    Walk walk(to.shape, broadcastStrides(a->shape, to.shape),
              broadcastStrides(b->shape, to.shape));
    std::vector<uint32_t> push = walk.words();
    push.push_back(static_cast<uint32_t>(form.op));
    push.push_back(floatBits(form.alpha));
    emitLine(Shader::Binary, {a->buffer, b->buffer, to.buffer},
             std::move(push), product(to.shape));
    return success();
  }

  LogicalResult lowerGemm(Operation *op, Value lhs, Value rhs, Value bias,
                          GemmForm g, bool packRhs) {
    FailureOr<Stored> a = operand(op, lhs);
    FailureOr<int> b = packRhs ? transposedConstant(op, rhs)
                               : FailureOr<int>(failure());
    if (!packRhs) {
      FailureOr<Stored> rhsStored = operand(op, rhs);
      if (failed(rhsStored))
        return failure();
      b = rhsStored->buffer;
    }
    int biasBuffer = -1;
    if (bias) {
      FailureOr<Stored> biasStored = operand(op, bias);
      if (failed(biasStored))
        return failure();
      biasBuffer = biasStored->buffer;
      // The bias broadcast to [M, N] (rank <= 2 by ATen's rules).
      SmallVector<int64_t> shape(biasStored->shape);
      while (shape.size() < 2)
        shape.insert(shape.begin(), 1);
      g.biasRow = shape[0] == 1 ? 0 : shape[1];
      g.biasCol = shape[1] == 1 ? 0 : 1;
    }
    if (failed(a) || failed(b))
      return failure();
    Stored to = result(op->getResult(0));
    FailureOr<int> dispatch =
        emitGemm(op, a->buffer, *b, biasBuffer, to.buffer, g);
    if (failed(dispatch))
      return failure();
    epilogues[op->getResult(0)] = {*dispatch, kGemmActivation};
    return success();
  }

  /// linear(x, W, b) = x W^T + b: W packed as [K, N] when constant.
  LogicalResult lowerLinear(LinearOp linear) {
    ArrayRef<int64_t> in = shapeOf(linear.getInput());
    ArrayRef<int64_t> weight = shapeOf(linear.getWeight());
    GemmForm g;
    g.K = in.back();
    g.M = product(in) / g.K;
    g.N = weight[0];
    g.aRow = g.K;
    bool pack = quantization::isConstant(linear.getWeight());
    g.bRow = pack ? g.N : 1;
    g.bCol = pack ? 1 : g.K;
    return lowerGemm(linear, linear.getInput(), linear.getWeight(),
                     linear.getBias(), g, pack);
  }

  /// mm / bmm / addmm: row-major operands as they are.
  LogicalResult lowerMatrixProduct(Operation *op, Value lhs, Value rhs,
                                   Value bias) {
    ArrayRef<int64_t> a = shapeOf(lhs), b = shapeOf(rhs);
    size_t rank = a.size();
    GemmForm g;
    g.M = a[rank - 2];
    g.K = a[rank - 1];
    g.N = b[rank - 1];
    g.batch = rank == 3 ? a[0] : 1;
    g.aRow = g.K;
    g.bRow = g.N;
    g.aBatch = g.M * g.K;
    g.bBatch = g.K * g.N;
    return lowerGemm(op, lhs, rhs, bias, g, false);
  }

  LogicalResult lowerConvolution(ConvolutionOp conv) {
    FailureOr<Stored> in = operand(conv, conv.getInput());
    FailureOr<Stored> weight = operand(conv, conv.getWeight());
    FailureOr<Stored> bias = conv.getBias() ? operand(conv, conv.getBias())
                                            : FailureOr<Stored>(Stored{-1});
    if (failed(in) || failed(weight) || failed(bias))
      return failure();
    auto pair = [](ArrayRef<int64_t> values) {
      return std::array<int64_t, 2>{values[0], values[values.size() - 1]};
    };
    ArrayRef<int64_t> x = in->shape, w = weight->shape;
    ArrayRef<int64_t> y = shapeOf(conv.getResult());
    auto stride = pair(conv.getStride());
    auto padding = pair(conv.getPadding());
    auto dilation = pair(conv.getDilation());
    int64_t groups = conv.getGroups();
    int64_t KH = w[2], KW = w[3], H = x[2], W = x[3];
    Stored to = result(conv.getResult());
    // 1x1, dense, unpadded, unit stride: per image [O, C] x [C, H*W].
    if (KH == 1 && KW == 1 && groups == 1 && stride == std::array<int64_t, 2>{1, 1} &&
        padding == std::array<int64_t, 2>{0, 0}) {
      GemmForm g;
      g.M = w[0];
      g.K = x[1];
      g.N = H * W;
      g.batch = x[0];
      g.aRow = g.K;
      g.bBatch = g.K * g.N;
      g.bRow = g.N;
      g.biasRow = 1;
      g.biasCol = 0;
      FailureOr<int> dispatch = emitGemm(conv, weight->buffer, in->buffer,
                                         bias->buffer, to.buffer, g);
      if (failed(dispatch))
        return failure();
      epilogues[conv.getResult()] = {*dispatch, kGemmActivation};
      return success();
    }
    std::vector<uint32_t> push = {
        uint32_t(x[0]),        uint32_t(x[1]),        uint32_t(H),
        uint32_t(W),           uint32_t(y[1]),        uint32_t(y[2]),
        uint32_t(y[3]),        uint32_t(KH),          uint32_t(KW),
        uint32_t(stride[0]),   uint32_t(stride[1]),   uint32_t(padding[0]),
        uint32_t(padding[1]),  uint32_t(dilation[0]), uint32_t(dilation[1]),
        uint32_t(groups),      uint32_t(bias->buffer >= 0),
        uint32_t(Activation::None), 0, 0};
    std::vector<int> bound = {in->buffer, weight->buffer,
                              bias->buffer >= 0 ? bias->buffer : to.buffer,
                              to.buffer};
    int64_t pixels = product(y.drop_front(2));
    int dispatch = emitLine(
        Shader::Conv2d, std::move(bound), std::move(push),
        x[0] * groups * ceilDiv(y[1] / groups, kConvBlock) * pixels);
    epilogues[conv.getResult()] = {dispatch, kConvActivation};
    return success();
  }

  LogicalResult lowerPool(Operation *op, PoolMode mode,
                          ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                          ArrayRef<int64_t> padding,
                          ArrayRef<int64_t> dilation, float divisor) {
    FailureOr<Stored> in = operand(op, op->getOperand(0));
    if (failed(in))
      return failure();
    Stored to = result(op->getResult(0));
    ArrayRef<int64_t> x = in->shape, y = to.shape;
    auto at = [](ArrayRef<int64_t> values, size_t i, int64_t otherwise) {
      return uint32_t(values.empty() ? otherwise
                                     : values[values.size() > 1 ? i : 0]);
    };
    std::vector<uint32_t> push = {
        uint32_t(x[0] * x[1]), uint32_t(x[2]), uint32_t(x[3]),
        uint32_t(y[2]), uint32_t(y[3]),
        at(kernel, 0, 1), at(kernel, 1, 1),
        at(stride, 0, at(kernel, 0, 1)), at(stride, 1, at(kernel, 1, 1)),
        at(padding, 0, 0), at(padding, 1, 0),
        at(dilation, 0, 1), at(dilation, 1, 1),
        uint32_t(mode), floatBits(divisor)};
    emitLine(Shader::Pool2d, {in->buffer, to.buffer}, std::move(push),
             product(y));
    return success();
  }

  LogicalResult lowerPooling(Operation *op) {
    if (auto pool = dyn_cast<MaxPool2dOp>(op))
      return lowerPool(op, PoolMode::Max, pool.getKernelSize(),
                       pool.getStride(), pool.getPadding(),
                       pool.getDilation(), 0);
    if (auto pool = dyn_cast<AvgPool2dOp>(op)) {
      float divisor = pool.getDivisorOverride()
                          ? float(*pool.getDivisorOverride())
                          : 0.0f;
      return lowerPool(op,
                       pool.getCountIncludePad() ? PoolMode::AvgIncludePad
                                                 : PoolMode::AvgExcludePad,
                       pool.getKernelSize(), pool.getStride(),
                       pool.getPadding(), {}, divisor);
    }
    return lowerPool(op, PoolMode::AdaptiveAvg, {}, {}, {}, {}, 0);
  }

  /// [outer, D, inner] around \p dim of \p shape.
  static std::array<int64_t, 3> around(ArrayRef<int64_t> shape, int64_t dim) {
    return {product(shape.take_front(dim)), shape[dim],
            product(shape.drop_front(dim + 1))};
  }

  LogicalResult lowerSoftmax(Operation *op, int64_t dim, bool logarithm) {
    FailureOr<Stored> in = operand(op, op->getOperand(0));
    if (failed(in))
      return failure();
    Stored to = result(op->getResult(0));
    int64_t rank = to.shape.size();
    auto [outer, D, inner] =
        around(to.shape, rank ? *normalizeDim(std::nullopt, "softmax", "dim",
                                              dim, rank)
                              : 0);
    emitLine(Shader::Softmax, {in->buffer, to.buffer},
             {uint32_t(outer), uint32_t(D), uint32_t(inner),
              uint32_t(logarithm)},
             outer * inner);
    return success();
  }

  LogicalResult lowerLayerNorm(LayerNormOp norm) {
    FailureOr<Stored> in = operand(norm, norm.getInput());
    FailureOr<Stored> weight = norm.getWeight()
                                   ? operand(norm, norm.getWeight())
                                   : FailureOr<Stored>(Stored{-1});
    FailureOr<Stored> bias = norm.getBias() ? operand(norm, norm.getBias())
                                            : FailureOr<Stored>(Stored{-1});
    if (failed(in) || failed(weight) || failed(bias))
      return failure();
    Stored to = result(norm.getResult());
    int64_t D = product(norm.getNormalizedShape());
    int64_t rows = product(to.shape) / D;
    uint32_t groups = std::min<int64_t>(rows, kMaxGroups);
    emit(Shader::LayerNorm,
         {in->buffer, weight->buffer >= 0 ? weight->buffer : to.buffer,
          bias->buffer >= 0 ? bias->buffer : to.buffer, to.buffer},
         {uint32_t(rows), uint32_t(D),
          floatBits(float(norm.getEps().convertToDouble())),
          uint32_t(weight->buffer >= 0), uint32_t(bias->buffer >= 0)},
         {groups, 1, 1}, {kLineWidth, 1});
    return success();
  }

  /// One dim at a time, last first: a mean of equal-sized means is the
  /// mean, and sums, maxima and minima compose the same way.
  LogicalResult lowerReduction(Operation *op, ReduceMode mode,
                               std::optional<ArrayRef<int64_t>> dims) {
    FailureOr<Stored> in = operand(op, op->getOperand(0));
    if (failed(in))
      return failure();
    int64_t rank = in->shape.size();
    SmallVector<int64_t> reduced;
    if (!dims || dims->empty())
      for (int64_t d = 0; d < rank; ++d)
        reduced.push_back(d);
    else
      for (int64_t dim : *dims)
        reduced.push_back(
            *normalizeDim(std::nullopt, "reduction", "dim", dim, rank));
    llvm::sort(reduced);
    reduced.erase(std::unique(reduced.begin(), reduced.end()), reduced.end());
    Stored to = result(op->getResult(0));
    SmallVector<int64_t> shape(in->shape);
    int from = in->buffer;
    for (size_t i = reduced.size(); i-- > 0;) {
      auto [outer, R, inner] = around(shape, reduced[i]);
      shape[reduced[i]] = 1;
      int into = i == 0 ? to.buffer : newBuffer(shape);
      emitLine(Shader::Reduce, {from, into},
               {uint32_t(outer), uint32_t(R), uint32_t(inner), uint32_t(mode)},
               outer * inner);
      from = into;
    }
    if (reduced.empty()) // a rank-0 input: a copy
      emitCopy(from, to.buffer, Walk({1}, {0}, {0}), 0, 0);
    return success();
  }

  /// The result holds the input's bytes under other dims.
  LogicalResult lowerView(Operation *op) {
    FailureOr<Stored> in = operand(op, op->getOperand(0));
    if (failed(in))
      return failure();
    stored[op->getResult(0)] = {in->buffer,
                                SmallVector<int64_t>(shapeOf(op->getResult(0)))};
    return success();
  }

  /// out[i] = in[offset + strided(i)] over the result's dims.
  LogicalResult lowerGather(Operation *op, ArrayRef<int64_t> sourceStrides,
                            int64_t offset) {
    FailureOr<Stored> in = operand(op, op->getOperand(0));
    if (failed(in))
      return failure();
    Stored to = result(op->getResult(0));
    emitCopy(in->buffer, to.buffer,
             Walk(to.shape, sourceStrides, contiguousStrides(to.shape)), offset,
             0);
    return success();
  }

  LogicalResult lowerPermute(Operation *op, ArrayRef<int64_t> permutation) {
    SmallVector<int64_t> inStrides = contiguousStrides(shapeOf(op->getOperand(0)));
    SmallVector<int64_t> strides;
    for (int64_t d : permutation)
      strides.push_back(inStrides[d]);
    return lowerGather(op, strides, 0);
  }

  LogicalResult lowerSlice(SliceOp slice) {
    ArrayRef<int64_t> in = shapeOf(slice.getSelf());
    int64_t dim = *normalizeDim(std::nullopt, "slice", "dim", slice.getDim(),
                                in.size());
    int64_t start = slice.getStart().value_or(0);
    if (start < 0)
      start += in[dim];
    start = std::clamp<int64_t>(start, 0, in[dim]);
    SmallVector<int64_t> strides = contiguousStrides(in);
    int64_t offset = start * strides[dim];
    strides[dim] *= slice.getStep();
    return lowerGather(slice, strides, offset);
  }

  LogicalResult lowerSelect(SelectOp select) {
    ArrayRef<int64_t> in = shapeOf(select.getSelf());
    int64_t dim = *normalizeDim(std::nullopt, "select", "dim",
                                select.getDim(), in.size());
    int64_t index = static_cast<int64_t>(select.getIndex()); // I64Attr
    if (index < 0)
      index += in[dim];
    SmallVector<int64_t> strides = contiguousStrides(in);
    int64_t offset = index * strides[dim];
    strides.erase(strides.begin() + dim);
    return lowerGather(select, strides, offset);
  }

  LogicalResult lowerCat(CatOp cat) {
    Stored to = result(cat.getResult());
    int64_t dim = *normalizeDim(std::nullopt, "cat", "dim", cat.getDim(),
                                to.shape.size());
    SmallVector<int64_t> outStrides = contiguousStrides(to.shape);
    int64_t at = 0;
    for (Value piece : cat.getTensors()) {
      FailureOr<Stored> in = operand(cat, piece);
      if (failed(in))
        return failure();
      emitCopy(in->buffer, to.buffer,
               Walk(in->shape, contiguousStrides(in->shape), outStrides), 0,
               at * outStrides[dim]);
      at += in->shape[dim];
    }
    return success();
  }

  /// The mask's words: a bool argument's bytes, a float tensor, or a
  /// constant bool mask made additive (0 / -inf) here.
  FailureOr<std::pair<Stored, MaskKind>> attentionMask(Operation *op,
                                                       Value mask) {
    if (!isBool(mask) || !quantization::isConstant(mask)) {
      FailureOr<Stored> stored = operand(op, mask);
      if (failed(stored))
        return failure();
      return std::make_pair(*stored,
                            isBool(mask) ? MaskKind::Bool : MaskKind::Additive);
    }
    SmallVector<char> storage;
    auto constant = mask.getDefiningOp<ConstantOp>();
    std::optional<ArrayRef<char>> keep =
        constant ? getConstantBytes(constant.getValue(), storage)
                 : std::nullopt;
    if (!keep)
      return op->emitOpError("vulkan: mask payload is not available");
    std::vector<float> added;
    for (char value : *keep)
      added.push_back(value != 0 ? 0.0f
                                 : -std::numeric_limits<float>::infinity());
    return std::make_pair(Stored{constantBuffer(shapeOf(mask), added),
                                 SmallVector<int64_t>(shapeOf(mask))},
                          MaskKind::Additive);
  }

  LogicalResult lowerAttention(ScaledDotProductAttentionOp attention) {
    FailureOr<Stored> q = operand(attention, attention.getQuery());
    FailureOr<Stored> k = operand(attention, attention.getKey());
    FailureOr<Stored> v = operand(attention, attention.getValue());
    if (failed(q) || failed(k) || failed(v))
      return failure();
    Stored to = result(attention.getResult());
    bool heads = q->shape.size() == 4;
    int64_t B = q->shape[0], H = heads ? q->shape[1] : 1,
            KVH = heads ? k->shape[1] : 1;
    int64_t L = q->shape.end()[-2], E = q->shape.back(),
            S = k->shape.end()[-2], Ev = v->shape.back();
    float scale = attention.getScale()
                      ? float(attention.getScale()->convertToDouble())
                      : 1.0f / std::sqrt(float(E));
    MaskKind kind = MaskKind::None;
    int maskBuffer = to.buffer; // unread without a mask
    SmallVector<int64_t> strides = {0, 0, 0, 0};
    if (Value mask = attention.getAttnMask()) {
      auto found = attentionMask(attention, mask);
      if (failed(found))
        return failure();
      kind = found->second;
      maskBuffer = found->first.buffer;
      // Broadcast to [B, H, L, S] ([B, L, S] for a query without heads).
      SmallVector<int64_t> target = {B, H, L, S};
      if (!heads)
        target.erase(target.begin() + 1);
      strides = broadcastStrides(found->first.shape, target);
      if (!heads)
        strides.insert(strides.begin() + 1, 0);
    }
    std::vector<uint32_t> push = {
        uint32_t(B), uint32_t(H), uint32_t(KVH), uint32_t(L), uint32_t(S),
        uint32_t(E), uint32_t(Ev), uint32_t(kind),
        uint32_t(strides[0]), uint32_t(strides[1]), uint32_t(strides[2]),
        uint32_t(strides[3]), uint32_t(attention.getIsCausal()),
        floatBits(scale)};
    emitLine(Shader::Attention,
             {q->buffer, k->buffer, v->buffer, maskBuffer, to.buffer},
             std::move(push), B * H * L);
    return success();
  }

  LogicalResult lower(Operation *op) {
    if (auto attention = dyn_cast<ScaledDotProductAttentionOp>(op))
      return lowerAttention(attention);
    if (std::optional<ActivationForm> form = activationForm(op))
      return lowerActivation(op, *form);
    if (std::optional<BinaryForm> form = binaryForm(op))
      return lowerBinary(op, *form);
    if (auto conv = dyn_cast<ConvolutionOp>(op))
      return lowerConvolution(conv);
    if (auto linear = dyn_cast<LinearOp>(op))
      return lowerLinear(linear);
    if (auto addmm = dyn_cast<AddmmOp>(op))
      return lowerMatrixProduct(op, addmm.getMat1(), addmm.getMat2(),
                                addmm.getSelf());
    if (isa<MmOp, BmmOp>(op))
      return lowerMatrixProduct(op, op->getOperand(0), op->getOperand(1),
                                Value());
    if (isa<MaxPool2dOp, AvgPool2dOp, AdaptiveAvgPool2dOp>(op))
      return lowerPooling(op);
    if (auto softmax = dyn_cast<SoftmaxOp>(op))
      return lowerSoftmax(op, softmax.getDim(), false);
    if (auto softmax = dyn_cast<LogSoftmaxOp>(op))
      return lowerSoftmax(op, softmax.getDim(), true);
    if (auto norm = dyn_cast<LayerNormOp>(op))
      return lowerLayerNorm(norm);
    if (auto mean = dyn_cast<MeanOp>(op))
      return lowerReduction(op, ReduceMode::Mean, mean.getDim());
    if (auto sum = dyn_cast<SumOp>(op))
      return lowerReduction(op, ReduceMode::Sum, sum.getDim());
    if (auto amax = dyn_cast<AmaxOp>(op))
      return lowerReduction(op, ReduceMode::Max, amax.getDim());
    if (auto amin = dyn_cast<AminOp>(op))
      return lowerReduction(op, ReduceMode::Min, amin.getDim());
    if (isa<ViewOp, SqueezeOp, UnsqueezeOp>(op))
      return lowerView(op);
    if (auto permute = dyn_cast<PermuteOp>(op)) {
      SmallVector<int64_t> dims;
      for (int64_t d : permute.getDims())
        dims.push_back(*normalizeDim(std::nullopt, "permute", "dim", d,
                                     permute.getDims().size()));
      return lowerPermute(op, dims);
    }
    if (auto transpose = dyn_cast<TransposeOp>(op)) {
      int64_t rank = shapeOf(transpose.getSelf()).size();
      SmallVector<int64_t> dims;
      for (int64_t d = 0; d < rank; ++d)
        dims.push_back(d);
      std::swap(dims[*normalizeDim(std::nullopt, "transpose", "dim",
                                   transpose.getDim0(), rank)],
                dims[*normalizeDim(std::nullopt, "transpose", "dim",
                                   transpose.getDim1(), rank)]);
      return lowerPermute(op, dims);
    }
    if (auto expand = dyn_cast<ExpandOp>(op))
      return lowerGather(op,
                         broadcastStrides(shapeOf(expand.getSelf()),
                                          shapeOf(expand.getResult())),
                         0);
    if (auto slice = dyn_cast<SliceOp>(op))
      return lowerSlice(slice);
    if (auto select = dyn_cast<SelectOp>(op))
      return lowerSelect(select);
    if (auto cat = dyn_cast<CatOp>(op))
      return lowerCat(cat);
    return op->emitOpError("vulkan: ") << whyUnsupported(op);
  }

  //===--- the blob -----------------------------------------------------===//

  FailureOr<CompiledDelegate> finish() {
    if (dispatches.empty())
      return delegate.emitOpError("vulkan: the delegate computes nothing "
                                  "(views only)");
    BlobT blob;
    blob.version = kBlobVersion;
    blob.float_storage = storage;
    blob.arena_size =
        planArena(buffers, dispatches.size(), kRegionAlignment);
    auto region = [&](int buffer) {
      return Region(buffers[buffer].offset, buffers[buffer].bytes);
    };
    std::string constants;
    for (size_t i = 0; i < buffers.size(); ++i) {
      if (data[i].empty())
        continue;
      auto upload = std::make_unique<UploadT>();
      upload->region = std::make_unique<Region>(region(i));
      upload->data_offset = constants.size();
      appendStored(constants, data[i]);
      constants.resize(upload->data_offset + buffers[i].bytes, '\0');
      constants.append(runtime::blobConstantPadding(constants.size()), '\0');
      blob.uploads.push_back(std::move(upload));
    }
    auto binding = [&](const Stored &value, bool boolean) {
      auto out = std::make_unique<BindingT>();
      out->region = std::make_unique<Region>(
          buffers[value.buffer].offset,
          wordBytes(product(value.shape) * (boolean ? 1 : elementSize)));
      out->dims.assign(value.shape.begin(), value.shape.end());
      out->datatype = boolean ? DataType::Bool : DataType::F32;
      return out;
    };
    Block &body = delegate.getBody().front();
    for (BlockArgument argument : body.getArguments())
      blob.inputs.push_back(binding(stored[argument], isBool(argument)));
    for (const Stored &output : outputs)
      blob.outputs.push_back(binding(output, false));
    for (const Draft &draft : dispatches) {
      auto dispatch = std::make_unique<DispatchT>();
      dispatch->shader = draft.shader;
      for (int buffer : draft.bound)
        dispatch->bindings.push_back(region(buffer));
      dispatch->push = draft.push;
      dispatch->groups.assign(draft.groups.begin(), draft.groups.end());
      dispatch->local_size.assign(draft.local.begin(), draft.local.end());
      blob.dispatches.push_back(std::move(dispatch));
    }
    flatbuffers::FlatBufferBuilder builder;
    builder.Finish(Blob::Pack(builder, &blob));
    CompiledDelegate compiled;
    compiled.blob = runtime::frameBlob(kBlobMagic, kBlobVersion,
                                       builder.GetBufferPointer(),
                                       builder.GetSize(), constants);
    return compiled;
  }

  /// \p values as the arena stores them.
  void appendStored(std::string &out, const std::vector<float> &values) const {
    if (storage == FloatStorage::F32) {
      out.append(reinterpret_cast<const char *>(values.data()),
                 values.size() * 4);
      return;
    }
    for (float value : values) {
      uint16_t half = runtime::floatToHalf(value);
      out.append(reinterpret_cast<const char *>(&half), 2);
    }
  }

  struct Draft {
    Shader shader;
    std::vector<int> bound;
    std::vector<uint32_t> push;
    std::array<uint32_t, 3> groups;
    std::array<uint32_t, 2> local;
  };

  DelegateOp delegate;
  FloatStorage storage;
  uint64_t elementSize; // bytes of a float element in the arena
  std::vector<PlannedBuffer> buffers;
  std::vector<std::vector<float>> data; // per buffer: constant values
  std::vector<Draft> dispatches;
  std::vector<Stored> outputs;
  size_t argumentBuffers = 0; // buffers [0, this) are the arguments
  llvm::DenseMap<Value, Stored> stored;
  llvm::DenseMap<Value, int> transposed;
  llvm::DenseSet<Value> returned;
  /// GEMM and convolution results whose dispatch can take an activation:
  /// the dispatch and where its activation's push words start.
  llvm::DenseMap<Value, std::pair<int, size_t>> epilogues;
};

} // namespace

FailureOr<CompiledDelegate> compileDelegate(DelegateOp delegate,
                                            FloatStorage storage) {
  return DelegateCompiler(delegate, storage).run();
}

} // namespace etch::vulkan
