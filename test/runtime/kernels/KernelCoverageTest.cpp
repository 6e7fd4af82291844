// Every Edge op the serializer can emit has a portable kernel registered
// under its op name: the runtime's operator table and the dialect agree.
#include "edge/EdgeDialect.h"
#include "runtime/kernels/KernelCall.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

TEST(KernelCoverage, EveryEdgeOpHasAKernel) {
  mlir::MLIRContext context;
  context.loadDialect<etch::edge::EdgeDialect>();
  int checked = 0;
  for (mlir::RegisteredOperationName name : context.getRegisteredOperations()) {
    llvm::StringRef op = name.getStringRef();
    // Constants and mutable buffers are data, custom ops have no kernel by
    // definition, and delegates run on their target's backend.
    if (!op.starts_with("edge.") || op == "edge.constant" ||
        op == "edge.buffer" ||
        op == "edge.custom" || op == "edge.delegate" ||
        op == "edge.delegate_return")
      continue;
    EXPECT_NE(etch::runtime::findKernel(op.str().c_str()), nullptr)
        << op.str() << " has no portable kernel";
    ++checked;
  }
  EXPECT_GE(checked, 37);
  for (const etch::runtime::KernelEntry &entry :
       etch::runtime::registeredKernels())
    EXPECT_TRUE(mlir::RegisteredOperationName::lookup(entry.name, &context))
        << entry.name << " is registered as a kernel but is not an Edge op";
}
