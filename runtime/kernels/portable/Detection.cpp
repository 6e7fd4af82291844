// non_max_suppression: ONNX's greedy selection per batch and class.
//
// No working memory beyond the output: the boxes are visited best first by
// scanning for the next one in (score descending, index ascending) order,
// and a box is kept when no box kept before it overlaps it too much: the
// same choice as sorting and suppressing, in O(N^2) per class.
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <algorithm>
#include <cmath>

namespace etch::runtime::portable {
namespace {

struct Box {
  float yMin, xMin, yMax, xMax;
};

Box boxAt(const float *box, bool centerPoint) {
  if (centerPoint) {
    float halfWidth = box[2] / 2, halfHeight = box[3] / 2;
    return {box[1] - halfHeight, box[0] - halfWidth, box[1] + halfHeight,
            box[0] + halfWidth};
  }
  return {std::min(box[0], box[2]), std::min(box[1], box[3]),
          std::max(box[0], box[2]), std::max(box[1], box[3])};
}

/// Intersection over union above \p threshold; boxes without area never
/// suppress (onnxruntime's rule).
bool overlapsTooMuch(const Box &a, const Box &b, float threshold) {
  float xMin = std::max(a.xMin, b.xMin), xMax = std::min(a.xMax, b.xMax);
  float yMin = std::max(a.yMin, b.yMin), yMax = std::min(a.yMax, b.yMax);
  if (xMax <= xMin || yMax <= yMin)
    return false;
  float areaA = (a.xMax - a.xMin) * (a.yMax - a.yMin);
  float areaB = (b.xMax - b.xMin) * (b.yMax - b.yMin);
  if (areaA <= 0 || areaB <= 0)
    return false;
  float intersection = (xMax - xMin) * (yMax - yMin);
  float unionArea = areaA + areaB - intersection;
  return unionArea > 0 && intersection / unionArea > threshold;
}

/// Whether box i comes before box j: higher score, then lower index.
bool before(const float *scores, int64_t i, int64_t j) {
  return scores[i] > scores[j] || (scores[i] == scores[j] && i < j);
}

} // namespace

Error validateNonMaxSuppression(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 2, 2, 1));
  const TensorView &boxes = *call.inputs[0], &scores = *call.inputs[1];
  ET_CHECK_OK(checkType(call, &boxes, "boxes", ScalarType::Float32));
  ET_CHECK_OK(checkType(call, &scores, "scores", ScalarType::Float32));
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", ScalarType::Int64));
  if (boxes.rank() != 3 || boxes.size(2) != 4 || scores.rank() != 3 ||
      scores.size(0) != boxes.size(0) || scores.size(2) != boxes.size(1))
    return kernelError(call, Error::InvalidShape,
                       "needs boxes [B, N, 4] and scores [B, C, N]");
  int64_t maxOut = call.intAttr("max_output_boxes_per_class", 0);
  if (maxOut < 0)
    return kernelError(call, Error::InvalidProgram,
                       "max_output_boxes_per_class is negative");
  // Planned for every class keeping as many as it may; run() sets the count.
  int64_t bound[2] = {
      scores.size(0) * scores.size(1) * std::min(maxOut, scores.size(2)), 3};
  return checkShape(call, call.outputs[0], "output", bound, 2);
}

void runNonMaxSuppression(const KernelCall &call) {
  const TensorView &boxes = *call.inputs[0], &scores = *call.inputs[1];
  TensorView &out = *call.outputs[0];
  int64_t batches = scores.size(0), classes = scores.size(1),
          count = scores.size(2);
  int64_t maxOut = call.intAttr("max_output_boxes_per_class", 0);
  float iouThreshold = static_cast<float>(call.doubleAttr("iou_threshold", 0));
  bool hasScoreThreshold = call.find("score_threshold") != nullptr;
  float scoreThreshold =
      static_cast<float>(call.doubleAttr("score_threshold", 0));
  bool centerPoint = call.boolAttr("center_point_box", false);
  int64_t *rows = out.data<int64_t>();
  int64_t kept = 0;
  for (int64_t b = 0; b < batches; ++b) {
    const float *batchBoxes = boxes.data<float>() + b * count * 4;
    for (int64_t c = 0; c < classes; ++c) {
      const float *classScores =
          scores.data<float>() + (b * classes + c) * count;
      int64_t first = kept, previous = -1;
      while (kept - first < maxOut) {
        // The next box in priority order after the previous one.
        int64_t next = -1;
        for (int64_t i = 0; i < count; ++i) {
          float score = classScores[i];
          if (std::isnan(score) ||
              (hasScoreThreshold && !(score > scoreThreshold)))
            continue;
          if (previous >= 0 && !before(classScores, previous, i))
            continue;
          if (next < 0 || before(classScores, i, next))
            next = i;
        }
        if (next < 0)
          break;
        previous = next;
        Box candidate = boxAt(batchBoxes + next * 4, centerPoint);
        bool suppressed = false;
        for (int64_t k = first; k < kept && !suppressed; ++k)
          suppressed = overlapsTooMuch(
              boxAt(batchBoxes + rows[k * 3 + 2] * 4, centerPoint), candidate,
              iouThreshold);
        if (suppressed)
          continue;
        rows[kept * 3] = b;
        rows[kept * 3 + 1] = c;
        rows[kept * 3 + 2] = next;
        ++kept;
      }
    }
  }
  int64_t shape[2] = {kept, 3};
  out.resize(shape, 2); // within the planned bound: never fails
}

} // namespace etch::runtime::portable
