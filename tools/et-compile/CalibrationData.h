//===- CalibrationData.h - Read --calibration-data folders ------*- C++ -*-===//
#ifndef ETCH_TOOLS_ETCOMPILE_CALIBRATIONDATA_H
#define ETCH_TOOLS_ETCOMPILE_CALIBRATIONDATA_H

#include "etch/Quantization/Quantize.h"

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

} // namespace etch::tools

#endif
