//===- TorchOpHandlers.cpp - The table of ATen op handlers ----------------===//
#include "TorchImporter.h"

namespace etch::torch_import {

const TorchOpHandlers &torchOpHandlers() {
  static const TorchOpHandlers handlers = [] {
    TorchOpHandlers table;
    addShapeHandlers(table);
    addCompositeHandlers(table);
    addValueHandlers(table);
    addMathHandlers(table);
    addFactoryHandlers(table);
    addReduceHandlers(table);
    addProductHandlers(table);
    addQuantHandlers(table);
    return table;
  }();
  return handlers;
}

} // namespace etch::torch_import
