//===- NpyFolders.h - Folders of .npy tensors: calibration, bundles -*- C++
//-*-===//
#ifndef ETCH_TOOLS_ETCOMPILE_NPYFOLDERS_H
#define ETCH_TOOLS_ETCOMPILE_NPYFOLDERS_H

#include "etch/Quantization/Quantize.h"
#include "etch/Serialize/ProgramWriter.h"

#include <string>
#include <vector>

namespace etch::tools {

/// Reads calibration samples from \p folder: each .npy file is one sample
/// of a one-input model; each subfolder is one sample whose .npy files, in
/// name order (input0.npy, input1.npy, ...), are the model's inputs. False
/// with \p error naming the file and the problem.
bool readCalibrationData(const std::string &folder,
                         std::vector<quantization::CalibrationSample> &samples,
                         std::string &error);

/// Reads --bundle test cases from \p folder: one subfolder per case (its
/// name the case's), holding input0.npy, input1.npy, ... and expected0.npy,
/// expected1.npy, ... (numbered from 0 without gaps). The cases' method is
/// left empty. False with \p error naming the file and the problem.
bool readBundleFolder(const std::string &folder,
                      std::vector<BundledCase> &cases, std::string &error);

} // namespace etch::tools

#endif
