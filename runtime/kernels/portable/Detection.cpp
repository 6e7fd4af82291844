// non_max_suppression (ONNX's greedy selection per batch and class) and
// roi_align.
//
// non_max_suppression needs no working memory beyond its output: the boxes
// are visited best first by scanning for the next one in (score descending,
// index ascending) order, and a box is kept when no box kept before it
// overlaps it too much: the same choice as sorting and suppressing, in
// O(N^2) per class.
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

namespace etch::runtime::portable {
namespace {

/// One bilinear sample: four corner offsets in a plane and their weights;
/// all weights 0 beyond one pixel outside the image (ONNX's and
/// torchvision's rule).
struct Sample {
  int64_t offset[4];
  float weight[4];
};

Sample sampleAt(float y, float x, int64_t height, int64_t width) {
  Sample s{{0, 0, 0, 0}, {0, 0, 0, 0}};
  if (y < -1.0f || y > height || x < -1.0f || x > width)
    return s;
  y = std::max(y, 0.0f);
  x = std::max(x, 0.0f);
  int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1, x1;
  if (y0 >= height - 1) {
    y0 = y1 = height - 1;
    y = static_cast<float>(y0);
  } else {
    y1 = y0 + 1;
  }
  if (x0 >= width - 1) {
    x0 = x1 = width - 1;
    x = static_cast<float>(x0);
  } else {
    x1 = x0 + 1;
  }
  float ly = y - y0, lx = x - x0, hy = 1 - ly, hx = 1 - lx;
  s = {{y0 * width + x0, y0 * width + x1, y1 * width + x0, y1 * width + x1},
       {hy * hx, hy * lx, ly * hx, ly * lx}};
  return s;
}

/// A region's extent along one axis, in input pixels.
struct RegionAxis {
  float start, bin;
  int64_t grid;
};

RegionAxis regionAxis(float first, float last, float scale, bool aligned,
                      int64_t bins, int64_t samplingRatio) {
  float offset = aligned ? 0.5f : 0.0f;
  float start = first * scale - offset, extent = last * scale - offset - start;
  if (!aligned)
    extent = std::max(extent, 1.0f);
  float bin = extent / bins;
  int64_t grid = samplingRatio > 0
                     ? samplingRatio
                     : static_cast<int64_t>(std::ceil(extent / bins));
  return {start, bin, grid};
}

} // namespace

Error validateRoiAlign(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 3, 3, 1));
  const TensorView &in = *call.inputs[0], &rois = *call.inputs[1],
                   &batch = *call.inputs[2];
  ET_CHECK_OK(checkType(call, &in, "input", ScalarType::Float32));
  ET_CHECK_OK(checkType(call, &rois, "rois", ScalarType::Float32));
  ET_CHECK_OK(checkType(call, &batch, "batch_indices", ScalarType::Int64));
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", ScalarType::Float32));
  int64_t height = call.intAttr("output_height", 0),
          width = call.intAttr("output_width", 0);
  if (in.rank() != 4 || rois.rank() != 2 || rois.size(1) != 4 ||
      batch.rank() != 1 || batch.size(0) != rois.size(0) || height < 1 ||
      width < 1 || call.intAttr("sampling_ratio", 0) < 0)
    return kernelError(call, Error::InvalidShape,
                       "needs NCHW input, rois [R, 4], R batch indices and "
                       "a positive output size");
  int64_t expected[4] = {rois.size(0), in.size(1), height, width};
  return checkShape(call, call.outputs[0], "output", expected, 4);
}

void runRoiAlign(const KernelCall &call) {
  const TensorView &in = *call.inputs[0];
  const float *rois = call.inputs[1]->data<float>();
  const int64_t *batch = call.inputs[2]->data<int64_t>();
  float *out = call.outputs[0]->data<float>();
  int64_t regions = call.inputs[1]->size(0), channels = in.size(1),
          height = in.size(2), width = in.size(3);
  int64_t binsY = call.intAttr("output_height", 1),
          binsX = call.intAttr("output_width", 1);
  int64_t samplingRatio = call.intAttr("sampling_ratio", 0);
  float scale = static_cast<float>(call.doubleAttr("spatial_scale", 1.0));
  bool aligned = call.boolAttr("aligned", true);
  bool takeMax = call.boolAttr("max", false);
  int64_t plane = height * width;
  for (int64_t r = 0; r < regions; ++r) {
    const float *roi = rois + r * 4;
    RegionAxis ys =
        regionAxis(roi[1], roi[3], scale, aligned, binsY, samplingRatio);
    RegionAxis xs =
        regionAxis(roi[0], roi[2], scale, aligned, binsX, samplingRatio);
    float count = static_cast<float>(std::max<int64_t>(ys.grid * xs.grid, 1));
    // An index outside the batch reads nothing: zeros, never out of bounds.
    int64_t image = batch[r];
    bool inside = image >= 0 && image < in.size(0);
    for (int64_t c = 0; c < channels; ++c) {
      const float *src =
          inside ? in.data<float>() + (image * channels + c) * plane : nullptr;
      for (int64_t by = 0; by < binsY; ++by)
        for (int64_t bx = 0; bx < binsX; ++bx) {
          float sum = 0, best = 0;
          bool first = true;
          for (int64_t iy = 0; inside && iy < ys.grid; ++iy) {
            float y = ys.start + by * ys.bin + (iy + 0.5f) * ys.bin / ys.grid;
            for (int64_t ix = 0; ix < xs.grid; ++ix) {
              float x = xs.start + bx * xs.bin + (ix + 0.5f) * xs.bin / xs.grid;
              Sample s = sampleAt(y, x, height, width);
              if (!takeMax) {
                for (int k = 0; k < 4; ++k)
                  sum += s.weight[k] * src[s.offset[k]];
                continue;
              }
              float value = s.weight[0] * src[s.offset[0]];
              for (int k = 1; k < 4; ++k)
                value = std::max(value, s.weight[k] * src[s.offset[k]]);
              best = first ? value : std::max(best, value);
              first = false;
            }
          }
          *out++ = takeMax ? best : sum / count;
        }
    }
  }
}

} // namespace etch::runtime::portable
