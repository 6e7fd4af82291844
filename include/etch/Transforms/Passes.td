//===- Passes.td - etch Edge-dialect passes ----------------*- tablegen -*-===//
#ifndef ETCH_TRANSFORMS_PASSES_TD
#define ETCH_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FoldBatchNorm : Pass<"etch-fold-batch-norm", "mlir::func::FuncOp"> {
  let summary = "Fold inference batch_norm into the preceding convolution";
  let description = [{
    Rewrites `batch_norm(convolution(x, W, b))` into `convolution(x, W', b')`
    with `W' = W * s`, `b' = (b - mean) * s + beta`, `s = gamma / sqrt(var +
    eps)` per output channel, when the convolution is not transposed, has no
    other user, and W, b and the batch-norm parameters are constants. The
    folded weights are new constants; the old ones are left for DCE.
  }];
  let dependentDialects = ["::etch::edge::EdgeDialect"];
}

#endif // ETCH_TRANSFORMS_PASSES_TD
