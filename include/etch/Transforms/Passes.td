//===- Passes.td - etch Edge-dialect passes ----------------*- tablegen -*-===//
#ifndef ETCH_TRANSFORMS_PASSES_TD
#define ETCH_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FoldBatchNorm : Pass<"etch-fold-batch-norm", "mlir::func::FuncOp"> {
  let summary = "Fold inference batch_norm into the preceding convolution, else into a multiply and add";
  let description = [{
    Rewrites `batch_norm(convolution(x, W, b))` into `convolution(x, W', b')`
    with `W' = W * s`, `b' = (b - mean) * s + beta`, `s = gamma / sqrt(var +
    eps)` per output channel, when the convolution is not transposed, has no
    other user, and W, b and the batch-norm parameters are constants. The
    folded weights are new constants; the old ones are left for DCE. A
    float32 batch_norm with constant parameters and no convolution to fold
    into becomes `mul(x, s) + (beta - mean * s)` with [C, 1, ...] constants.
  }];
  let dependentDialects = ["::etch::edge::EdgeDialect"];
}

def FoldHardsigmoid : Pass<"etch-fold-hardsigmoid", "mlir::func::FuncOp"> {
  let summary = "Fold hardsigmoid's affine part into the preceding convolution";
  let description = [{
    Rewrites `hardsigmoid(convolution(x, W, b))` into
    `hardtanh(convolution(x, W / 6, b / 6 + 1/2), 0, 1)` when the
    convolution is not transposed, has no other user, and W and b are f32
    constants (an absent b is 0). Targets fuse the remaining [0, 1] clamp
    into the convolution's output range.
  }];
  let dependentDialects = ["::etch::edge::EdgeDialect"];
}

def LastPositionOutput
    : Pass<"etch-last-position-output", "mlir::func::FuncOp"> {
  let summary = "Compute an LLM's logits for the last sequence position only";
  let description = [{
    Generation samples from the last position's logits; a decoder exported
    from transformers returns them for every position of a prompt chunk,
    and the vocabulary projection (lm_head) is then a third or more of a
    prefill's work. For result `result` (logits `[..., S, vocab]`, the
    sequence along `dim`) produced by a projection of the hidden states --
    `edge.linear` / `edge.weight_only_linear` of `[..., S, H]`, or
    `edge.mm` / `edge.addmm` between views that flatten the leading dims
    and restore them (the core-ATen form) -- the hidden states are sliced
    to the last position first (`edge.slice` from -1), so the result is
    `[..., 1, vocab]`. The result's type and the function's signature
    change; the old projection is left for DCE. Any other producer is an
    error naming it.
  }];
  let options = [
    Option<"result", "result", "unsigned", "0",
           "Which function result holds the logits">,
    Option<"dim", "dim", "int64_t", "1",
           "The sequence dimension of the logits (not the last)">,
  ];
  let dependentDialects = ["::etch::edge::EdgeDialect"];
}

def MemoryPlan : Pass<"etch-memory-plan", "mlir::func::FuncOp"> {
  let summary = "Place every non-constant tensor in one memory arena";
  let description = [{
    Gives each function argument and each op result (except constants) a
    byte offset in a single arena, from the values' lifetimes in program
    order: buffers alive at the same time never overlap. Arguments live for
    the whole function (a method can run again on the same inputs). Results
    are recorded
    as `etch.arena_offsets` (per op result), `etch.arena_offset` (per
    argument), and the function attributes `etch.arena_size` and
    `etch.arena_lower_bound` (the most bytes alive at any instruction).
    State buffers (`edge.buffer`, with their in-place updates) come first,
    one after another, in `[0, etch.state_bytes)`: the program file keeps
    them as an arena of their own, which methods sharing their state do not
    allocate each.
    Tensors must have static or bounded shapes.

    Mutable buffers (`edge.buffer`) keep their bytes for the whole method
    and between executions. An `edge.index_put` or `edge.slice_scatter`
    whose `self` nothing reads afterwards writes in place: its result
    shares `self`'s bytes (a KV-cache update writes into the cache, so no
    copy follows).
  }];
  let options = [
    Option<"alignment", "alignment", "uint64_t", "64",
           "Byte alignment of every buffer's offset">,
  ];
  let dependentDialects = ["::etch::edge::EdgeDialect"];
}

def Partition : Pass<"etch-partition", "mlir::func::FuncOp"> {
  let summary = "Outline what each target runs into edge.delegate regions";
  let description = [{
    Targets are tried in the order given; the first that supports an op
    claims it. Claimed ops grow maximal connected groups in program order; an
    op joins a producer's group only when no path leaves the group and comes
    back (convexity), so the outlined graph stays acyclic. Each group becomes
    one `edge.delegate` (constants it uses are cloned in); ops no target
    claims stay for the portable kernels. `portable` in the list is the
    fallback and claims nothing.
  }];
  let options = [
    ListOption<"targets", "targets", "std::string",
               "Targets in priority order (e.g. xnnpack,portable)">,
  ];
  let dependentDialects = ["::etch::edge::EdgeDialect"];
}

def AssignLayout : Pass<"etch-assign-layout", "mlir::func::FuncOp"> {
  let summary = "Keep rank-4 values channels-last between delegates that "
                "store them so";
  let description = [{
    Runs after etch-partition. A `cat` or `slice` left outside the delegates
    whose rank-4 float inputs all come from delegates that keep their values
    NHWC (Target::keepsChannelsLast), or from other such ops, and whose
    results go only into such delegates or such ops, works on NHWC values
    instead: its dim is renumbered, and each border gets an `edge.permute`
    marked `etch.layout_border` inside the delegate (NCHW -> NHWC before a
    result, NHWC -> NCHW after an argument), which the target compiles as a
    view. The delegates then skip their layout conversions at those borders.
  }];
  let dependentDialects = ["::etch::edge::EdgeDialect"];
}

def FoldQuantizedOps : Pass<"etch-fold-quantized-ops", "mlir::func::FuncOp"> {
  let summary = "Fold dequantize -> op -> quantize into integer Edge ops";
  let description = [{
    For the ops no target claimed (those outside `edge.delegate` regions,
    which the portable kernels run), rewrites each quantized pattern the
    portable kernels have an integer kernel for into one op: convolution,
    linear, addmm and mm with constant weights (-> `edge.quantized_convolution`
    / `edge.quantized_linear`, transposed weights re-laid out), add and mul
    (-> `edge.quantized_add` / `edge.quantized_mul`). A relu, hardtanh or
    clamp between the op and its quantize becomes the new op's `min`/`max`.
    Operands must be 8-bit: activations per tensor, weights per tensor or
    per output channel. Patterns found by the same matcher the targets use
    (etch/Quantization/QdqPattern.h); what does not fold keeps its float
    semantics between quantize and dequantize.
  }];
  let dependentDialects = ["::etch::edge::EdgeDialect"];
}

def QuantizeWeights : Pass<"etch-quantize-weights", "mlir::func::FuncOp"> {
  let summary = "Weight-only quantization of linear and embedding weights";
  let description = [{
    Replaces each f32 constant weight of `edge.linear`, `edge.mm`,
    `edge.addmm` and `edge.embedding` by its quantized form and the op that
    dequantizes it (what torch's weight-only flows write): with `bits=8`,
    a per-output-channel symmetric int8 constant (scale max|w| / 127) and
    `edge.dequantize`; with `bits=4`, int8 storage of -8..7 per group of
    `group-size` columns (the value of largest magnitude maps to -8, as
    llama.cpp's Q4_0) and `edge.dequantize_per_channel_group`. Transposed
    uses (mm, addmm) get a permute after the dequantize. Weights whose rows
    `group-size` does not divide stay float. Activations stay float: no
    calibration. etch-fold-weight-only-ops packs the result for the
    kernels. `et-compile --quantize=int8-weight|int4-weight` runs it.
  }];
  let options = [
    Option<"bits", "bits", "int64_t", "8", "8 (per channel) or 4 (per group)">,
    Option<"groupSize", "group-size", "int64_t", "32",
           "Columns per scale with bits=4 (a multiple of 32)">,
  ];
  let dependentDialects = ["::etch::edge::EdgeDialect"];
}

def FoldWeightOnlyOps
    : Pass<"etch-fold-weight-only-ops", "mlir::func::FuncOp"> {
  let summary = "Pack dequantized constant weights into weight-only ops";
  let description = [{
    For the ops no target claimed: a float `edge.linear`, `edge.mm` or
    `edge.addmm` (bias + input @ W^T) whose weight is dequantized from
    constants -- `edge.dequantize` of a quantized constant per output
    channel or per tensor, or `edge.dequantize_per_channel_group` of integer
    constants, possibly transposed by a permute -- becomes
    `edge.weight_only_linear`; an `edge.embedding` of such a table becomes
    `edge.weight_only_embedding`. Weights are packed as the kernels read
    them (runtime/kernels/portable/WeightPacking.h): 4 bits when every value
    fits -8..7 (unsigned 0..15 storage is shifted with its zero points) and
    columns and groups are whole 32-column blocks, else 8 bits. Ops reading
    one weight share its packed copy.
  }];
  let dependentDialects = ["::etch::edge::EdgeDialect"];
}

def FuseWeightOnlyLinears
    : Pass<"etch-fuse-weight-only-linears", "mlir::func::FuncOp"> {
  let summary = "Stack sibling weight-only linears into one";
  let description = [{
    `edge.weight_only_linear` ops at the function's top level that read the
    same input with the same bits, group size and operand forms (zero
    points, bias), each from constants no other op reads -- an attention
    block's q/k/v projections, an MLP's gate and up -- become one op over
    their tables stacked along the output features, followed by one
    `edge.slice` of the last dim per former result. Results are bit for bit
    the same (every output row is the same dot product); a decode step
    streams one longer table and dispatches once instead of once per
    projection.
  }];
  let dependentDialects = ["::etch::edge::EdgeDialect"];
}

def Codegen : Pass<"etch-codegen", "mlir::ModuleOp"> {
  let summary = "Compile every edge.delegate to its target's blob";
  let description = [{
    Asks each delegate's target to compile its body and attaches the result
    as `blob` (a dense_resource of i8) and `specs`. `target-options` are
    settings of the targets' code generators, `<target>:<name>=<value>`
    (Target::options() lists each target's); a setting no target takes
    fails the pass before anything is compiled.
  }];
  let options = [
    ListOption<"targetOptions", "target-options", "std::string",
               "Code generator settings, <target>:<name>=<value>">,
  ];
  let dependentDialects = ["::etch::edge::EdgeDialect"];
}

#endif // ETCH_TRANSFORMS_PASSES_TD
