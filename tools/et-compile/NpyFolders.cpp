//===- NpyFolders.cpp - Folders of .npy tensors: calibration, bundles ----===//
#include "NpyFolders.h"

#include "tools/et-run/Npy.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <tuple>

namespace etch::tools {
namespace {

/// Entries of \p folder in name order: .npy files and subfolders.
bool listFolder(const std::string &folder, std::vector<std::string> &files,
                std::vector<std::string> &folders, std::string &error,
                const char *what = "calibration folder") {
  std::error_code code;
  for (llvm::sys::fs::directory_iterator it(folder, code), end;
       it != end && !code; it.increment(code)) {
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(it->path(), status))
      continue;
    if (llvm::sys::fs::is_directory(status))
      folders.push_back(it->path());
    else if (llvm::sys::path::extension(it->path()) == ".npy")
      files.push_back(it->path());
  }
  if (code) {
    error = folder + ": cannot read the " + what + ": " + code.message();
    return false;
  }
  llvm::sort(files);
  llvm::sort(folders);
  return true;
}

bool readTensor(const std::string &path, quantization::HostTensor &tensor,
                std::string &error) {
  NpyArray array;
  if (!readNpy(path, array, error)) {
    error = path + ": " + error;
    return false;
  }
  tensor.type = array.type;
  tensor.shape = std::move(array.shape);
  tensor.data = std::move(array.data);
  tensor.origin = path;
  return true;
}

} // namespace

bool readCalibrationData(const std::string &folder,
                         std::vector<quantization::CalibrationSample> &samples,
                         std::string &error) {
  std::vector<std::string> files, folders;
  if (!listFolder(folder, files, folders, error))
    return false;
  for (const std::string &file : files) {
    quantization::HostTensor tensor;
    if (!readTensor(file, tensor, error))
      return false;
    samples.push_back({std::move(tensor)});
  }
  for (const std::string &sampleFolder : folders) {
    std::vector<std::string> inputs, nested;
    if (!listFolder(sampleFolder, inputs, nested, error))
      return false;
    quantization::CalibrationSample sample;
    for (const std::string &file : inputs) {
      sample.emplace_back();
      if (!readTensor(file, sample.back(), error))
        return false;
    }
    if (!sample.empty())
      samples.push_back(std::move(sample));
  }
  if (samples.empty()) {
    error = folder + ": no calibration samples (.npy files, or one folder of "
                     ".npy inputs per sample)";
    return false;
  }
  return true;
}

bool readBundleFolder(const std::string &folder,
                      std::vector<BundledCase> &cases, std::string &error) {
  std::vector<std::string> files, folders;
  if (!llvm::sys::fs::is_directory(folder)) {
    error = folder + ": --bundle needs a folder of case folders";
    return false;
  }
  if (!listFolder(folder, files, folders, error, "bundle folder"))
    return false;
  for (const std::string &caseFolder : folders) {
    std::vector<std::string> tensors, nested;
    if (!listFolder(caseFolder, tensors, nested, error, "bundle case"))
      return false;
    BundledCase bundled;
    bundled.name = llvm::sys::path::filename(caseFolder).str();
    // inputN.npy / expectedN.npy, placed by N; a gap is an error below.
    std::vector<std::string> inputs, expected;
    for (const std::string &path : tensors) {
      llvm::StringRef stem = llvm::sys::path::stem(path);
      std::vector<std::string> *list = stem.consume_front("input") ? &inputs
                                       : stem.consume_front("expected")
                                           ? &expected
                                           : nullptr;
      unsigned index = 0;
      if (!list || stem.getAsInteger(10, index) || index > 4096) {
        error = path + ": a bundle case holds inputN.npy and expectedN.npy "
                       "files only";
        return false;
      }
      if (list->size() <= index)
        list->resize(index + 1);
      (*list)[index] = path;
    }
    for (auto [paths, tensorList, kind] :
         {std::make_tuple(&inputs, &bundled.inputs, "input"),
          std::make_tuple(&expected, &bundled.expected, "expected")}) {
      for (auto [index, path] : llvm::enumerate(*paths)) {
        if (path.empty()) {
          error = caseFolder + ": " + kind + std::to_string(index) +
                  ".npy is missing (files are numbered from 0)";
          return false;
        }
        NpyArray array;
        if (!readNpy(path, array, error)) {
          error = path + ": " + error;
          return false;
        }
        tensorList->push_back(
            {array.type, std::move(array.shape),
             std::string(array.data.begin(), array.data.end()), path});
      }
    }
    if (bundled.inputs.empty() && bundled.expected.empty())
      continue; // not a case folder
    if (bundled.expected.empty()) {
      error = caseFolder + ": a bundle case needs expected0.npy, ...";
      return false;
    }
    cases.push_back(std::move(bundled));
  }
  if (cases.empty()) {
    error = folder + ": no bundle cases (one folder per case, holding "
                     "input0.npy... and expected0.npy...)";
    return false;
  }
  return true;
}

} // namespace etch::tools
