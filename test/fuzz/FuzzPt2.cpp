//===- FuzzPt2.cpp - Fuzz the torch.export (.pt2) importer ----------------===//
//
// Input: a list of zip entries (StoredZip.h) packed into a valid zip, with
// nested torch.save zips re-packed too, so mutations reach the JSON, the
// pickles and the weights instead of failing the CRC check; then compiled.
//
//===----------------------------------------------------------------------===//
#include "FuzzCompile.h"
#include "FuzzSupport.h"
#include "StoredZip.h"

#include "etch/Import/Import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  etch::fuzz::ZipEntries entries = etch::fuzz::parseEntryList(data, size);
  etch::fuzz::repackNestedZips(entries);
  std::string zip = etch::fuzz::writeStoredZip(entries);
  etch::fuzz::compileForFuzzing([&](mlir::MLIRContext *context) {
    return etch::importTorchExportFromBytes("fuzz.pt2", zip, context);
  });
  return 0;
}
