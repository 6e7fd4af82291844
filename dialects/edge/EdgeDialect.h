//===- EdgeDialect.h - Edge dialect and its ops -----------------*- C++ -*-===//
#ifndef ETCH_DIALECT_EDGE_EDGEDIALECT_H
#define ETCH_DIALECT_EDGE_EDGEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "edge/EdgeTypeUtils.h"
#include "edge/QuantTypes.h"

#include "edge/EdgeDialect.h.inc"
#include "edge/EdgeInterfaces.h.inc"

#define GET_OP_CLASSES
#include "edge/EdgeOps.h.inc"

#endif // ETCH_DIALECT_EDGE_EDGEDIALECT_H
