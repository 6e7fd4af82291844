// A record whose kernel name is no C++ function suffix.
include "EdgeBase.td"

def Test_BadOp : Edge_AtenOp<"bad", "aten::bad"> {
  let portableKernel = "bad_kernel";
}
