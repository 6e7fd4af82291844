//===- CalibrationData.cpp - Read --calibration-data folders --------------===//
#include "CalibrationData.h"

#include "tools/et-run/Npy.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace etch::tools {
namespace {

/// Entries of \p folder in name order: .npy files and subfolders.
bool listFolder(const std::string &folder, std::vector<std::string> &files,
                std::vector<std::string> &folders, std::string &error) {
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
    error = folder + ": cannot read the calibration folder: " + code.message();
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

} // namespace etch::tools
