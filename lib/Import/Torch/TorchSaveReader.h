//===- TorchSaveReader.h - Tensors from torch.save zip files ----*- C++ -*-===//
//
// torch.save writes a zip with `<root>/data.pkl` (a pickle whose tensors
// reference storages by key) and `<root>/data/<key>` (raw storage bytes).
// This reader implements the pickle subset torch.save emits for a tensor or
// a (nested) dict of tensors: no arbitrary objects are constructed.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_LIB_IMPORT_TORCH_TORCHSAVEREADER_H
#define ETCH_LIB_IMPORT_TORCH_TORCHSAVEREADER_H

#include "TensorData.h"

#include <map>
#include <optional>
#include <string>

namespace etch::torch_import {

/// Reads every tensor of a torch.save archive given as bytes. A dict maps
/// its keys to tensors; a single saved tensor is returned under key "".
std::optional<std::map<std::string, TensorData>>
readTorchSave(std::string zipBytes, std::string &error);

} // namespace etch::torch_import

#endif // ETCH_LIB_IMPORT_TORCH_TORCHSAVEREADER_H
