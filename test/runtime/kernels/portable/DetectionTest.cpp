// non_max_suppression against sorting and greedy suppression in doubles,
// over random boxes in both box formats, with and without a score
// threshold and an output limit.
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

} // namespace
