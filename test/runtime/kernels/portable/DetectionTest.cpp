// non_max_suppression against sorting and greedy suppression in doubles,
// over random boxes in both box formats, with and without a score
// threshold and an output limit; roi_align against the bilinear sampling
// written out in doubles.
#include "KernelTestSupport.h"

#include <algorithm>
#include <numeric>

using namespace etch::runtime;
using namespace etch::runtime::testing;

namespace {

struct Corners {
  double yMin, xMin, yMax, xMax;
};

Corners corners(const float *box, bool center) {
  if (center)
    return {box[1] - box[3] / 2.0, box[0] - box[2] / 2.0, box[1] + box[3] / 2.0,
            box[0] + box[2] / 2.0};
  return {std::min(box[0], box[2]) * 1.0, std::min(box[1], box[3]) * 1.0,
          std::max(box[0], box[2]) * 1.0, std::max(box[1], box[3]) * 1.0};
}

double iou(const Corners &a, const Corners &b) {
  double w = std::min(a.xMax, b.xMax) - std::max(a.xMin, b.xMin);
  double h = std::min(a.yMax, b.yMax) - std::max(a.yMin, b.yMin);
  if (w <= 0 || h <= 0)
    return 0;
  double areaA = (a.xMax - a.xMin) * (a.yMax - a.yMin);
  double areaB = (b.xMax - b.xMin) * (b.yMax - b.yMin);
  return w * h / (areaA + areaB - w * h);
}

TEST(PortableDetection, NonMaxSuppressionAgainstSortAndSuppress) {
  for (int trial = 0; trial < 40; ++trial) {
    int64_t batches = randomInt(1, 2), classes = randomInt(1, 3),
            count = randomInt(1, 30), maxOut = randomInt(0, 12);
    bool center = trial % 2, thresholded = trial % 3 != 0;
    double iouThreshold = 0.1 * randomInt(0, 8), scoreThreshold = 0.3;
    OwnedTensor boxes = randomFloat({batches, count, 4}, 0, 10);
    OwnedTensor scores = randomFloat({batches, classes, count}, 0, 1);
    int64_t bound = batches * classes * std::min(maxOut, count);
    OwnedTensor out(ScalarType::Int64, {bound, 3});
    Attributes attributes;
    attributes.i("max_output_boxes_per_class", maxOut)
        .d("iou_threshold", iouThreshold)
        .b("center_point_box", center);
    if (thresholded)
      attributes.d("score_threshold", scoreThreshold);
    ASSERT_EQ(runKernel("edge.non_max_suppression", {&boxes.view, &scores.view},
                        {&out.view}, attributes),
              Error::Ok);

    std::vector<int64_t> expected;
    for (int64_t b = 0; b < batches; ++b)
      for (int64_t c = 0; c < classes; ++c) {
        const float *s = scores.f() + (b * classes + c) * count;
        std::vector<int64_t> order(count);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](int64_t i, int64_t j) { return s[i] > s[j]; });
        std::vector<int64_t> kept;
        for (int64_t i : order) {
          if (static_cast<int64_t>(kept.size()) == maxOut)
            break;
          if (thresholded && !(s[i] > scoreThreshold))
            continue;
          Corners box = corners(boxes.f() + (b * count + i) * 4, center);
          bool suppressed =
              std::any_of(kept.begin(), kept.end(), [&](int64_t k) {
                return iou(corners(boxes.f() + (b * count + k) * 4, center),
                           box) > iouThreshold;
              });
          if (!suppressed)
            kept.push_back(i);
        }
        for (int64_t i : kept)
          expected.insert(expected.end(), {b, c, i});
      }
    ASSERT_EQ(out.view.size(0) * 3, static_cast<int64_t>(expected.size()))
        << "trial " << trial;
    EXPECT_TRUE(
        std::equal(expected.begin(), expected.end(), out.view.data<int64_t>()))
        << "trial " << trial;
  }
}

TEST(PortableDetection, NonMaxSuppressionRefusesMismatchedScores) {
  OwnedTensor boxes = randomFloat({1, 5, 4});
  OwnedTensor scores = randomFloat({1, 2, 4});
  OwnedTensor out(ScalarType::Int64, {8, 3});
  Attributes attributes;
  attributes.i("max_output_boxes_per_class", 4).d("iou_threshold", 0.5);
  EXPECT_EQ(runKernel("edge.non_max_suppression", {&boxes.view, &scores.view},
                      {&out.view}, attributes),
            Error::InvalidShape);
}

/// Bilinear value at (y, x) of an H x W plane, 0 beyond one pixel outside.
double bilinear(const float *plane, int64_t h, int64_t w, double y, double x,
                bool takeMax) {
  if (y < -1 || y > h || x < -1 || x > w)
    return 0;
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x);
  int64_t y1 = std::min(y0 + 1, h - 1), x1 = std::min(x0 + 1, w - 1);
  if (y0 >= h - 1)
    y = y0 = h - 1;
  if (x0 >= w - 1)
    x = x0 = w - 1;
  double ly = y - y0, lx = x - x0;
  double terms[4] = {(1 - ly) * (1 - lx) * plane[y0 * w + x0],
                     (1 - ly) * lx * plane[y0 * w + x1],
                     ly * (1 - lx) * plane[y1 * w + x0],
                     ly * lx * plane[y1 * w + x1]};
  return takeMax ? *std::max_element(terms, terms + 4)
                 : terms[0] + terms[1] + terms[2] + terms[3];
}

TEST(PortableDetection, RoiAlignAgainstReference) {
  for (int trial = 0; trial < 24; ++trial) {
    int64_t n = 2, c = 3, h = randomInt(4, 9), w = randomInt(4, 9);
    int64_t regions = randomInt(1, 6), binsY = randomInt(1, 3),
            binsX = randomInt(1, 3), ratio = randomInt(0, 2);
    bool aligned = trial % 2, takeMax = trial % 3 == 0;
    double scale = trial % 4 < 2 ? 1.0 : 0.5;
    OwnedTensor x = randomFloat({n, c, h, w});
    OwnedTensor rois(ScalarType::Float32, {regions, 4});
    OwnedTensor batch(ScalarType::Int64, {regions});
    for (int64_t r = 0; r < regions; ++r) {
      // Corners that may reach outside the (scaled) image, drawn from a
      // continuum: a sample exactly on the edge of the image (where float
      // contraction decides) is then unlikely.
      auto uniform = [](double low, double high) {
        return static_cast<float>(
            std::uniform_real_distribution<double>(low, high)(rng()));
      };
      float x1 = uniform(-2, 1.4 * w), y1 = uniform(-2, 1.4 * h);
      float *roi = rois.f() + r * 4;
      roi[0] = x1;
      roi[1] = y1;
      roi[2] = x1 + (trial % 5 == 0 ? 0.0f : uniform(0, 7));
      roi[3] = y1 + uniform(0, 6);
      batch.view.data<int64_t>()[r] = randomInt(0, n - 1);
    }
    OwnedTensor out(ScalarType::Float32, {regions, c, binsY, binsX});
    Attributes attributes;
    attributes.i("output_height", binsY)
        .i("output_width", binsX)
        .i("sampling_ratio", ratio)
        .d("spatial_scale", scale)
        .b("aligned", aligned)
        .b("max", takeMax);
    ASSERT_EQ(runKernel("edge.roi_align", {&x.view, &rois.view, &batch.view},
                        {&out.view}, attributes),
              Error::Ok);
    std::vector<double> expected;
    for (int64_t r = 0; r < regions; ++r) {
      const float *roi = rois.f() + r * 4;
      // Region geometry in float as torchvision and onnxruntime compute it
      // (a grid from ceil() depends on it); the sums in double.
      float offset = aligned ? 0.5f : 0.0f, fscale = static_cast<float>(scale);
      float x0 = roi[0] * fscale - offset, y0 = roi[1] * fscale - offset;
      float rw = roi[2] * fscale - offset - x0,
            rh = roi[3] * fscale - offset - y0;
      if (!aligned) {
        rw = std::max(rw, 1.0f);
        rh = std::max(rh, 1.0f);
      }
      float binH = rh / binsY, binW = rw / binsX;
      int64_t gridH =
          ratio ? ratio : static_cast<int64_t>(std::ceil(rh / binsY));
      int64_t gridW =
          ratio ? ratio : static_cast<int64_t>(std::ceil(rw / binsX));
      int64_t image = batch.view.data<int64_t>()[r];
      for (int64_t ch = 0; ch < c; ++ch) {
        const float *plane = x.f() + (image * c + ch) * h * w;
        for (int64_t by = 0; by < binsY; ++by)
          for (int64_t bx = 0; bx < binsX; ++bx) {
            double sum = 0, best = 0;
            bool first = true;
            for (int64_t iy = 0; iy < gridH; ++iy)
              for (int64_t ix = 0; ix < gridW; ++ix) {
                double v = bilinear(
                    plane, h, w, y0 + by * binH + (iy + 0.5) * binH / gridH,
                    x0 + bx * binW + (ix + 0.5) * binW / gridW, takeMax);
                sum += v;
                best = first ? v : std::max(best, v);
                first = false;
              }
            expected.push_back(
                takeMax ? best : sum / std::max<int64_t>(gridH * gridW, 1));
          }
      }
    }
    expectClose(out, expected, 1e-4, 1e-4);
  }
}

} // namespace
