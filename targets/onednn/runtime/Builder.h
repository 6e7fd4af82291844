//===- Builder.h - A oneDNN blob into primitives and steps -----*- C++ -*-===//
//
// init's work for one delegate: verifies the blob, gives every tensor
// memory, creates one primitive per node with its post-ops, reorders
// weights to the layouts the primitives prefer and records the steps
// execute runs (Handle). Its methods live in BuilderTensors.cpp,
// BuilderPrimitives.cpp and BuilderNodes.cpp.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Handle.h"

#include <initializer_list>
#include <unordered_map>

namespace etch::onednn::backend {

class Builder {
public:
  /// How a convolution or inner product multiplies: in float, in int8 (an
  /// 8-bit source, VNNI), or an int8 node computed in float where oneDNN's
  /// int8 kernels would saturate (Handle::int8AsFloat).
  enum class Arithmetic { Float, Int8, Int8AsFloat };

  Builder(const Blob &blob, const uint8_t *data, uint64_t dataSize,
          Handle &handle, Span<TensorView *> inputs, Span<TensorView *> outputs)
      : blob(blob), data(data), dataSize(dataSize), handle(handle),
        inputs(inputs), outputs(outputs) {}

  Error build();

private:
  /// Tensor \p i's own bytes made current from its blocked twin (a reorder
  /// step here), for a reader that needs them.
  Error catchUp(uint32_t i);

  /// catchUp for every tensor \p node reads but its source when
  /// \p exceptSource.
  Error catchUpReads(const Node &node, bool exceptSource = false);

  Error describeTensor(uint32_t i, const Tensor &tensor);

  /// Every node writes a tensor no other node writes, that is neither a
  /// constant nor a delegate input; every delegate output is written.
  Error checkWriters();

  /// The sum post-op of \p node, or null (more than one: the first).
  static const PostOp *sumOf(const Node &node);

  /// The tensor whose buffer holds \p i's bytes (through reshapes).
  uint32_t storageOf(uint32_t i) const;

  /// Whether node \p n or a later one reads \p storage's bytes other than
  /// as node \p n's sum operand.
  bool readFrom(uint32_t n, uint32_t storage) const;

  /// A sum post-op accumulates into its node's result: the result takes
  /// over the operand's buffer when that is an intermediate buffer of the
  /// same size that nothing reads from the node on (a residual block's
  /// input); otherwise execute copies the operand there first. Of two sums
  /// of one operand the earlier sees the later's read: one takes it over
  /// at most.
  void planTakeOvers();

  /// A reshape's result shares its input's bytes unless it leaves the
  /// delegate.
  bool isAlias(uint32_t i) const;

  Error bindTensor(uint32_t i, const Tensor &tensor);

  /// NCHW program tensor <-> NHWC staging (tensor \p i).
  Error addBorderReorder(uint32_t i, TensorView &view, bool intoDelegate);

  /// A reorder step from \p from to \p to; with \p attr (scales, zero
  /// points) a conversion between data types.
  Error makeReorder(dnnl_memory_t from, dnnl_memory_t to, Step &step,
                    const_dnnl_primitive_attr_t attr = nullptr);

  /// A conversion step from \p from to \p to: scale * (value - \p fromZero)
  /// + \p toZero, rounded and saturated to \p to's type.
  Error addConversion(dnnl_memory_t from, dnnl_memory_t to, float scale,
                      int32_t fromZero, int32_t toZero);

  /// The input memory at \p index of \p node (must exist).
  dnnl_memory_t inputMemory(const Node &node, size_t index);

  /// Tensor \p tensor as an operand of a primitive whose result has
  /// \p target dims: its own descriptor at that rank, its plain bytes under
  /// \p target (an inner product flattens its leading dims), or its plain
  /// dims padded with leading 1s (broadcast).
  bool operandMd(uint32_t tensor, const Dims &target, dnnl_memory_desc_t &md);

  /// Post-ops of \p node, whose primitive's result has \p resultDims, into
  /// \p creation, their operands into \p step.
  Error addPostOps(const Node &node, const Dims &resultDims, Creation &creation,
                   Step &step, Arithmetic arithmetic = Arithmetic::Float);

  /// A sum post-op's operand is a computed tensor of its node's result
  /// dims, layout and element size, and the node's only sum.
  Error checkSum(const Node &node, const PostOp &post);

  /// oneDNN's sum post-op: the operand, in its scale and zero point, is
  /// added to the result, whose buffer must hold the operand's bytes by
  /// then (taken over, or copied by a step before the node's).
  Error addSum(const Node &node, const PostOp &post, Creation &creation);

  /// The sum post-op \p post, at \p position, of an int8 node computed in
  /// float: its operand converted to the result's units (a step before the
  /// node's) and added as a binary post-op.
  Error addSumInFloat(const Node &node, const PostOp &post, uint32_t position,
                      const Dims &resultDims, Creation &creation, Step &step);

  /// Whether int8 node \p node, computed in float, can round and saturate
  /// its float result to its 8-bit grid itself (quantizeResultInFloat):
  /// an 8-bit result, and no clip post-op of other bounds but as the last
  /// post-op (oneDNN 2.6 gives every eltwise post-op of one algorithm the
  /// first one's parameters; a last clip narrows to the range instead).
  bool quantizesInFloat(const Node &node) const;

  /// Bounds [\p low, \p high] of such a node's last clip intersected with
  /// its result type's range less its zero point (integers: rounding
  /// commutes with them).
  void narrowToResultRange(const Node &node, float &low, float &high) const;

  /// The last post-ops of such a node: saturate to the result type's range
  /// less its zero point (unless a last clip did) and round half to even;
  /// the float result is then the 8-bit values less their zero point, what
  /// its readers' floatCopyOf would make of them. (Rounding before the
  /// zero point is added, as the compiler's requantization does: the two
  /// differ only on exact ties.)
  Error quantizeResultInFloat(const Node &node, Creation &creation);

  /// Whether a node reads 8-bit tensor \p i other than as the source of
  /// an int8 convolution or inner product, or \p i leaves the delegate.
  bool readAsBytes(uint32_t i) const;

  /// Before a node with a sum post-op: \p operand's bytes into \p dst, the
  /// node's result memory (nothing when the result took its buffer over).
  Error fillSumDestination(uint32_t operand, dnnl_memory_t dst);

  static bool sameLayout(dnnl_memory_t memory, const dnnl_memory_desc_t &md);

  /// The primitive descriptor of \p desc (a oneDNN op descriptor) with
  /// \p node's post-ops and, for an int8 convolution, its requantization;
  /// \p missing says what oneDNN lacks when it has no implementation.
  Error describePrimitive(const Node &node, const Dims &resultDims,
                          const void *desc, Creation &creation, Step &step,
                          const char *missing,
                          Arithmetic arithmetic = Arithmetic::Float,
                          const char *preferred = nullptr);

  /// The descriptor of oneDNN's first implementation of \p desc whose name
  /// starts with \p prefix, or null (then its own first choice stands).
  dnnl_primitive_desc_t
  preferredImplementation(const void *desc, const_dnnl_primitive_attr_t attr,
                          const char *prefix);

  /// Creates the primitive of \p creation's descriptor and its scratchpad;
  /// with a sum post-op in \p node (not computed as float), first the step
  /// filling its result.
  Error finishPrimitive(const Node &node, Creation &creation, Step &step,
                        Arithmetic arithmetic = Arithmetic::Float);

  /// describePrimitive, then finishPrimitive with \p args, for a primitive
  /// that needs nothing between the two (no weights to reorder).
  Error addPrimitive(const Node &node, const Dims &resultDims, const void *desc,
                     const char *missing,
                     std::initializer_list<dnnl_exec_arg_t> args);

  /// Weights (\p values, laid out as \p userMd) as the primitive wants
  /// them: reordered once, here.
  Error weightsMemory(Creation &creation, const dnnl_memory_desc_t &userMd,
                      void *values, dnnl_memory_t &memory);

  /// How \p node multiplies given its source's data type and this CPU.
  Arithmetic arithmeticOf(const Node &node) const;

  /// What a convolution or inner product computes on: its source and
  /// result memories as the primitive sees them, its weights' values
  /// (row-major, output channels first) and its bias memory or null.
  struct ProductOperands {
    dnnl_memory_t source, result, bias;
    void *weights;
  };

  /// A convolution or inner product on \p operands, computed as
  /// arithmeticOf(node) says: \p describe(source, bias or null, result,
  /// desc) initializes its oneDNN descriptor (else \p rejected); \p missing
  /// says what oneDNN lacks when it has no implementation; \p preferred as
  /// describePrimitive's.
  template <typename Desc, typename Describe>
  Error addProduct(const Node &node, const Dims &resultDims,
                   ProductOperands operands,
                   const dnnl_memory_desc_t &userWeights, Describe describe,
                   const char *rejected, const char *missing,
                   const char *preferred = nullptr);

  /// An int8 node's operands replaced by float ones computing the same
  /// values (BuilderInt8AsFloat.cpp): the source less its zero point, the
  /// weights and bias times the output scales (outputScales), a float
  /// result in the result's units before its zero point. The post-ops see
  /// what they see in int8.
  Error standInFloat(const Node &node, ProductOperands &operands);

  /// After an int8 node computed in float: its float result rounded,
  /// offset by the result's zero point and saturated into \p result, the
  /// 8-bit tensor (no step for a float result, nor where the float result
  /// is already quantized and nothing reads the 8-bit bytes).
  Error convertFloatResult(const Node &node, dnnl_memory_t floatResult,
                           dnnl_memory_t result);

  /// A float copy of 8-bit tensor \p i less its zero point, made once
  /// (a conversion step where the first reader needs it).
  Error floatCopyOf(uint32_t i, void *&copy);

  /// Per output channel of an int8 convolution or inner product: source
  /// scale * weight scale / the scale its accumulator is requantized to.
  Error outputScales(const Node &node, std::vector<float> &scales);

  Error buildNode(const Node &node);

  /// Reads a pair of 2-D window values; \p offset is subtracted (ATen's
  /// dilation 1 is oneDNN's 0).
  static bool pair(const flatbuffers::Vector<int64_t> *values, int64_t low,
                   int64_t offset, dnnl_dims_t out);

  Error buildConvolution(const Node &node, const Convolution &params);

  /// Winograd (F(4x4, 3x3) / F(2x2, 3x3)) where it beat the direct brgconv
  /// kernels per layer on this project's AVX-512 machines (docs/targets.md:
  /// 1.5-3x on resnet18's 3x3 layers): float 3x3 stride-1 dense
  /// convolutions of at least 64 channels in and out. oneDNN transforms
  /// Winograd weights on one thread at init (4 ms for 128x128x3x3, 40 ms
  /// for 512x512x3x3), so by default only layers of at most 128x128
  /// channels, keeping load + init far below ORT's session creation;
  /// ETCH_ONEDNN_WINOGRAD=all takes every size, =0 none.
  static bool winogradWins(bool int8, int64_t groups, const Dims &weights,
                           const dnnl_dims_t strides,
                           const dnnl_dims_t dilations);

  /// \p node as a Winograd convolution on blocked activations: the source
  /// from its blocked twin (made by a reorder if it has none), the result
  /// into a new twin. \p built stays false where oneDNN has no Winograd
  /// kernel for the shapes and post-ops.
  Error tryWinograd(const Node &node, const dnnl_memory_desc_t &userWeights,
                    const dnnl_memory_desc_t *biasMd, const dnnl_dims_t strides,
                    const dnnl_dims_t padBegin, const dnnl_dims_t padEnd,
                    bool &built);

  /// The scale of tensor \p i (1 for float values).
  float scaleOf(uint32_t i) const;
  int32_t zeroPointOf(uint32_t i) const;

  /// A zero point oneDNN reads at execute (its convolutions take only
  /// run-time ones): an s32 memory bound to \p arg's zero-point argument.
  Error addZeroPoint(Creation &creation, Step &step, int arg, int32_t value);

  /// An int8 convolution's or inner product's requantization: its
  /// outputScales and the zero points.
  Error addInt8Scaling(const Node &node, Creation &creation, Step &step);

  /// Quantize, dequantize or requantize: a reorder that scales by the
  /// input's scale over the output's and moves the zero points.
  Error buildConvert(const Node &node);

  /// How many times nodes read tensor \p i (inputs and post-op operands).
  size_t readerCount(uint32_t i) const;

  Error buildInnerProduct(const Node &node);

  Error buildPool(const Node &node, const Pool &params);

  Error buildBinary(const Node &node, const BinaryOp &params);

  Error buildEltwise(const Node &node, const EltwiseOp &params);

  /// The result views the input's bytes; one leaving the delegate is a
  /// copy.
  Error buildReshape(const Node &node);

  const Blob &blob;
  const uint8_t *data; // the constant section
  uint64_t dataSize;
  Handle &handle;
  Span<TensorView *> inputs, outputs;
  std::vector<Dims> dims;
  std::vector<DataType> types;
  std::vector<dnnl_memory_desc_t> mds;
  std::vector<void *> pointers;
  std::vector<dnnl_memory_t> memories;
  std::vector<int> writer; // the node writing each tensor, or -1
  // The sum operand whose buffer each result takes over, or kAbsentTensor.
  std::vector<uint32_t> takesOver;
  /// A tensor's copy in the blocked layout Winograd convolutions read and
  /// write (oneDNN offers Winograd only on blocked activations). A
  /// Winograd result lives there first: its own (NHWC) bytes are behind
  /// until a reader needs them (catchUp).
  struct BlockedTwin {
    dnnl_memory_t memory = nullptr;
    bool nhwcBehind = false;
  };
  std::vector<BlockedTwin> twins;  // per tensor
  std::vector<void *> floatCopies; // per tensor: floatCopyOf's
  struct BorderReorder {
    size_t step;           // in handle.steps
    dnnl_memory_t program; // the NCHW program tensor
  };
  std::unordered_map<uint32_t, BorderReorder> borderReorders; // by tensor
};

} // namespace etch::onednn::backend
