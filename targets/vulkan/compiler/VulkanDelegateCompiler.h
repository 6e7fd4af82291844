//===- VulkanDelegateCompiler.h - One delegate's lowering ------*- C++ -*-===//
//
// The state of lowering one delegate body to Vulkan dispatches: its buffers
// (planned with ArenaPlan), its dispatches and the blob they become
// (VulkanCompiler.cpp), and one lowering per Edge op family
// (VulkanOpLowering.cpp). Internal to the target's compiler side.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_TARGETS_VULKAN_COMPILER_VULKANDELEGATECOMPILER_H
#define ETCH_TARGETS_VULKAN_COMPILER_VULKANDELEGATECOMPILER_H

#include "ArenaPlan.h"
#include "VulkanCompiler.h"
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

namespace etch::vulkan::lowering {

using namespace mlir;
using namespace etch::edge;

constexpr uint32_t kLineWidth = 64; // invocations of the 1-D shaders
constexpr uint32_t kTile = 16;      // Gemm's square tile

/// Bool values (attention masks from outside) are bytes in the arena.
inline bool isBool(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType().isInteger(1);
}

inline ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

inline int64_t product(ArrayRef<int64_t> dims) {
  int64_t total = 1;
  for (int64_t dim : dims)
    total *= dim;
  return total;
}

inline SmallVector<int64_t> contiguousStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

inline uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

inline uint64_t wordBytes(int64_t bytes) { return (bytes + 3) / 4 * 4; }

inline uint32_t ceilDiv(int64_t value, int64_t by) {
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
inline SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> operand,
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

  FailureOr<CompiledDelegate> run();

private:
  //===--- buffers ------------------------------------------------------===//

  /// A buffer of \p shape's float elements (in the arena's storage), or
  /// bytes when \p bytes; whole 32-bit words either way.
  int newBuffer(ArrayRef<int64_t> shape, bool pinned = false,
                bool bytes = false);

  int constantBuffer(ArrayRef<int64_t> shape, std::vector<float> values);

  /// \p value's buffer: computed earlier, or a constant uploaded once.
  FailureOr<Stored> operand(Operation *user, Value value);

  /// A [rows, cols] constant stored transposed, [cols, rows]: the layout
  /// Gemm reads along its rows.
  FailureOr<int> transposedConstant(Operation *user, Value value);

  Stored result(Value value);

  //===--- dispatches ---------------------------------------------------===//

  /// Adds a dispatch; the last binding is the one it writes.
  int emit(Shader shader, std::vector<int> bound, std::vector<uint32_t> push,
           std::array<uint32_t, 3> groups, std::array<uint32_t, 2> local);

  /// A grid-stride launch over \p count elements.
  int emitLine(Shader shader, std::vector<int> bound,
               std::vector<uint32_t> push, int64_t count);

  void emitCopy(int from, int to, const Walk &walk, int64_t fromOffset,
                int64_t toOffset);

  static int64_t elementCount(const Walk &walk);

  /// Gemm writing \p out: act(A B + bias); returns the dispatch.
  FailureOr<int> emitGemm(Operation *op, int a, int b, int bias, int out,
                          const GemmForm &g);

  /// Where a dispatch takes a fused activation: its push words.
  static constexpr size_t kGemmActivation = 12, kConvActivation = 17;

  //===--- lowering -----------------------------------------------------===//

  LogicalResult lowerActivation(Operation *op, const ActivationForm &form);

  LogicalResult lowerBinary(Operation *op, const BinaryForm &form);

  LogicalResult lowerGemm(Operation *op, Value lhs, Value rhs, Value bias,
                          GemmForm g, bool packRhs);

  /// linear(x, W, b) = x W^T + b: W packed as [K, N] when constant.
  LogicalResult lowerLinear(LinearOp linear);

  /// mm / bmm / addmm: row-major operands as they are.
  LogicalResult lowerMatrixProduct(Operation *op, Value lhs, Value rhs,
                                   Value bias);

  LogicalResult lowerConvolution(ConvolutionOp conv);

  LogicalResult lowerPool(Operation *op, PoolMode mode,
                          ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                          ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
                          float divisor);

  LogicalResult lowerPooling(Operation *op);

  /// [outer, D, inner] around \p dim of \p shape.
  static std::array<int64_t, 3> around(ArrayRef<int64_t> shape, int64_t dim);

  LogicalResult lowerSoftmax(Operation *op, int64_t dim, bool logarithm);

  LogicalResult lowerLayerNorm(LayerNormOp norm);

  /// One dim at a time, last first: a mean of equal-sized means is the
  /// mean, and sums, maxima and minima compose the same way.
  LogicalResult lowerReduction(Operation *op, ReduceMode mode,
                               std::optional<ArrayRef<int64_t>> dims);

  /// The result holds the input's bytes under other dims.
  LogicalResult lowerView(Operation *op);

  /// out[i] = in[offset + strided(i)] over the result's dims.
  LogicalResult lowerGather(Operation *op, ArrayRef<int64_t> sourceStrides,
                            int64_t offset);

  LogicalResult lowerPermute(Operation *op, ArrayRef<int64_t> permutation);

  LogicalResult lowerSlice(SliceOp slice);

  LogicalResult lowerSelect(SelectOp select);

  LogicalResult lowerCat(CatOp cat);

  /// The mask's words: a bool argument's bytes, a float tensor, or a
  /// constant bool mask made additive (0 / -inf) here.
  FailureOr<std::pair<Stored, MaskKind>> attentionMask(Operation *op,
                                                       Value mask);

  LogicalResult lowerAttention(ScaledDotProductAttentionOp attention);

  LogicalResult lower(Operation *op);

  //===--- the blob -----------------------------------------------------===//

  FailureOr<CompiledDelegate> finish();

  /// \p values as the arena stores them.
  void appendStored(std::string &out, const std::vector<float> &values) const;

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

} // namespace etch::vulkan::lowering

#endif
