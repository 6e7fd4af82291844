// Edge op records for kernel-list.test: each way a record names its kernel.
include "EdgeBase.td"

def Test_PoolOp : Edge_AtenOp<"max_pool2d_like", "aten::max_pool2d_like">;
def Test_ExpOp : Edge_UnaryFloatOp<"exp_like", "aten::exp_like">;
def Test_ViewOp : Edge_AtenOp<"view_like", "aten::view_like"> {
  let portableKernel = "Reshape";
}
def Test_NonzeroOp : Edge_AtenOp<"nonzero_like", "aten::nonzero_like",
    [DeclareOpInterfaceMethods<Edge_DataDependentShapeOpInterface>]>;
def Test_ConstantOp : Edge_Op<"constant_like"> {
  let hasPortableKernel = 0;
}
