// The XNNPACK delegate's step plan (targets/xnnpack/runtime/Stages.h), the
// nodes etch's GEMM kernels take (GemmSteps.h) and the blob checks of its
// Concatenate node, on blobs built here.
#include "targets/xnnpack/runtime/Stages.h"
#include "targets/xnnpack/runtime/BlobValidator.h"
#include "targets/xnnpack/runtime/GemmSteps.h"
#include "targets/xnnpack/schema/BlobFormat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

namespace etch::xnnpack {
namespace {

class BlobBuilder {
public:
  uint32_t tensor(std::vector<uint64_t> dims, int input = -1, int output = -1,
                  Datatype datatype = Datatype::Fp32) {
    auto record = std::make_unique<TensorT>();
    record->dims = std::move(dims);
    record->input = input;
    record->output = output;
    record->datatype = datatype;
    if (datatype == Datatype::Qint8)
      record->scale = 0.5f;
    blob.tensors.push_back(std::move(record));
    return blob.tensors.size() - 1;
  }
  void clamp(uint32_t in, uint32_t out) {
    auto node = std::make_unique<NodeT>();
    node->kind = NodeKind::Clamp;
    node->inputs = {in};
    node->outputs = {out};
    node->output_min = -1;
    node->output_max = 1;
    blob.nodes.push_back(std::move(node));
  }
  /// A constant f32 tensor (its bytes are not needed by the plan).
  uint32_t constant(std::vector<uint64_t> dims) {
    uint32_t index = tensor(dims);
    uint64_t count = 1;
    for (uint64_t d : dims)
      count *= d;
    blob.tensors[index]->data_size = count * 4;
    return index;
  }
  void fullyConnected(uint32_t in, uint32_t filter, uint32_t bias,
                      uint32_t out) {
    auto node = std::make_unique<NodeT>();
    node->kind = NodeKind::FullyConnected;
    node->inputs = {in, filter, bias};
    node->outputs = {out};
    node->output_min = -INFINITY;
    node->output_max = INFINITY;
    blob.nodes.push_back(std::move(node));
  }
  void sigmoid(uint32_t in, uint32_t out) {
    auto node = std::make_unique<NodeT>();
    node->kind = NodeKind::Sigmoid;
    node->inputs = {in};
    node->outputs = {out};
    node->output_min = -INFINITY;
    node->output_max = INFINITY;
    blob.nodes.push_back(std::move(node));
  }
  void multiply(uint32_t a, uint32_t b, uint32_t out,
                float outputMax = INFINITY) {
    auto node = std::make_unique<NodeT>();
    node->kind = NodeKind::Multiply;
    node->inputs = {a, b};
    node->outputs = {out};
    node->output_min = -INFINITY;
    node->output_max = outputMax;
    blob.nodes.push_back(std::move(node));
  }
  void concatenate(std::vector<uint32_t> inputs, uint32_t out, uint32_t axis) {
    auto node = std::make_unique<NodeT>();
    node->kind = NodeKind::Concatenate;
    node->inputs = std::move(inputs);
    node->outputs = {out};
    ConcatenateParamsT params;
    params.axis = axis;
    node->params.Set(std::move(params));
    blob.nodes.push_back(std::move(node));
  }
  const Blob &finish() {
    blob.version = kBlobVersion;
    builder.Finish(Blob::Pack(builder, &blob));
    return *GetBlob(builder.GetBufferPointer());
  }
  std::vector<Dims> dims() const {
    std::vector<Dims> result;
    for (const auto &tensor : blob.tensors)
      result.push_back(tensor->dims);
    return result;
  }

private:
  BlobT blob;
  flatbuffers::FlatBufferBuilder builder;
};

// A fire module: two branches, their concatenation, then a node that reads
// it; and a second concatenation that runs after the first's values died.
TEST(XnnpackStages, CutsAtConcatenationsAndReusesDeadValues) {
  BlobBuilder b;
  uint32_t in = b.tensor({1, 2, 2, 3}, /*input=*/0);
  uint32_t left = b.tensor({1, 2, 2, 3}), right = b.tensor({1, 2, 2, 3});
  uint32_t joined = b.tensor({1, 2, 2, 6}), squeezed = b.tensor({1, 2, 2, 6});
  uint32_t doubled = b.tensor({1, 2, 2, 12});
  uint32_t out = b.tensor({1, 2, 2, 12}, -1, /*output=*/0);
  b.clamp(in, left);
  b.clamp(in, right);
  b.concatenate({left, right}, joined, 3);
  b.clamp(joined, squeezed);
  b.concatenate({squeezed, squeezed}, doubled, 3);
  b.clamp(doubled, out);
  const Blob &blob = b.finish();
  ASSERT_EQ(validateBlob(blob), "");

  StagePlan plan = planStages(blob, b.dims());
  ASSERT_EQ(plan.steps.size(), 5u);
  EXPECT_EQ(plan.steps[0].kind, StepKind::Xnnpack);
  EXPECT_EQ(plan.steps[0].first, 0u);
  EXPECT_EQ(plan.steps[0].end, 2u);
  EXPECT_EQ(plan.steps[1].kind, StepKind::Concatenation);
  EXPECT_EQ(plan.steps[1].first, 2u);
  EXPECT_EQ(plan.steps[2].kind, StepKind::Xnnpack);
  EXPECT_EQ(plan.steps[3].kind, StepKind::Concatenation);
  EXPECT_EQ(plan.steps[4].first, 5u);

  // Borders keep their own memory; every value a concatenation touches is
  // in the delegate buffer, 64-byte aligned, with XNNPACK's read slack.
  EXPECT_EQ(plan.offsets[in], -1);
  EXPECT_EQ(plan.offsets[out], -1);
  for (uint32_t t : {left, right, joined, squeezed, doubled}) {
    ASSERT_GE(plan.offsets[t], 0) << "tensor " << t;
    EXPECT_EQ(plan.offsets[t] % 64, 0);
  }
  // left/right live in steps 0-1, joined 1-2, squeezed 2-3, doubled 3-4:
  // values alive together never overlap, and squeezed reuses the bytes of
  // left or right, dead by then.
  auto bytes = [](uint64_t floats) { return (floats * 4 + 16 + 63) / 64 * 64; };
  struct Placed {
    uint32_t tensor;
    size_t first, last;
    uint64_t size;
  };
  std::vector<Placed> placed = {{left, 0, 1, bytes(12)},
                                {right, 0, 1, bytes(12)},
                                {joined, 1, 2, bytes(24)},
                                {squeezed, 2, 3, bytes(24)},
                                {doubled, 3, 4, bytes(48)}};
  uint64_t sum = 0;
  for (const Placed &a : placed) {
    sum += a.size;
    EXPECT_LE(uint64_t(plan.offsets[a.tensor]) + a.size, plan.bytes);
    for (const Placed &b : placed) {
      if (&a == &b || a.last < b.first || b.last < a.first)
        continue;
      int64_t aStart = plan.offsets[a.tensor], bStart = plan.offsets[b.tensor];
      EXPECT_TRUE(aStart + int64_t(a.size) <= bStart ||
                  bStart + int64_t(b.size) <= aStart)
          << "tensors " << a.tensor << " and " << b.tensor << " overlap";
    }
  }
  EXPECT_LT(plan.bytes, sum);
}

// A blob with no concatenation is one runtime, every value XNNPACK's own.
TEST(XnnpackStages, NoConcatenationIsOneRuntime) {
  BlobBuilder b;
  uint32_t in = b.tensor({4}, 0), mid = b.tensor({4}),
           out = b.tensor({4}, -1, 0);
  b.clamp(in, mid);
  b.clamp(mid, out);
  const Blob &blob = b.finish();
  ASSERT_EQ(validateBlob(blob), "");
  StagePlan plan = planStages(blob, b.dims());
  ASSERT_EQ(plan.steps.size(), 1u);
  EXPECT_EQ(plan.steps[0].end, 2u);
  EXPECT_EQ(plan.offsets[mid], -1);
  EXPECT_EQ(plan.bytes, 0u);
}

// A node on etch's GEMM kernels is a step of its own between XNNPACK
// runtimes, and the values it reads and writes live in the delegate buffer.
TEST(XnnpackStages, GemmNodesAreStepsOfTheirOwn) {
  BlobBuilder b;
  uint32_t in = b.tensor({12, 128}, 0), mid = b.tensor({12, 128}),
           product = b.tensor({12, 20}), out = b.tensor({12, 20}, -1, 0);
  b.clamp(in, mid);
  b.fullyConnected(mid, b.constant({20, 128}), b.constant({20}), product);
  b.clamp(product, out);
  const Blob &blob = b.finish();
  ASSERT_EQ(validateBlob(blob), "");
  std::vector<Dims> dims = b.dims();
  std::optional<runtime::optimized::ConvGeometry> geometry =
      gemmGeometry(blob, *blob.nodes()->Get(1), dims);
  ASSERT_TRUE(geometry);
  EXPECT_EQ(geometry->height * geometry->width, 12);
  EXPECT_EQ(geometry->inChannels, 128);
  EXPECT_EQ(geometry->outChannels, 20);
  EXPECT_FALSE(gemmGeometry(blob, *blob.nodes()->Get(0), dims)); // a clamp
  StagePlan plan = planStages(blob, dims, {false, true, false});
  ASSERT_EQ(plan.steps.size(), 3u);
  EXPECT_EQ(plan.steps[0].kind, StepKind::Xnnpack);
  EXPECT_EQ(plan.steps[1].kind, StepKind::Gemm);
  EXPECT_EQ(plan.steps[1].first, 1u);
  EXPECT_EQ(plan.steps[2].kind, StepKind::Xnnpack);
  EXPECT_GE(plan.offsets[mid], 0);
  EXPECT_GE(plan.offsets[product], 0);
  EXPECT_EQ(plan.offsets[in], -1); // borders keep their own memory
}

// silu(x) = x * sigmoid(x), as etch's compiler writes it (and with the
// product's operands swapped), is one step whose sigmoid is never stored;
// x and the product live in the delegate buffer between XNNPACK runtimes.
TEST(XnnpackStages, SiluPairsAreOnePass) {
  BlobBuilder b;
  uint32_t in = b.tensor({1, 4, 4, 8}, 0), x = b.tensor({1, 4, 4, 8});
  uint32_t gate = b.tensor({1, 4, 4, 8}), y = b.tensor({1, 4, 4, 8});
  uint32_t gate2 = b.tensor({1, 4, 4, 8}), z = b.tensor({1, 4, 4, 8});
  uint32_t out = b.tensor({1, 4, 4, 8}, -1, 0);
  b.clamp(in, x);
  b.sigmoid(x, gate);
  b.multiply(x, gate, y);
  b.sigmoid(y, gate2);
  b.multiply(gate2, y, z);
  b.clamp(z, out);
  const Blob &blob = b.finish();
  ASSERT_EQ(validateBlob(blob), "");
  std::vector<Dims> dims = b.dims();
  EXPECT_TRUE(isSiluPair(blob, dims, 1));
  EXPECT_TRUE(isSiluPair(blob, dims, 3));
  EXPECT_FALSE(isSiluPair(blob, dims, 0));
  EXPECT_FALSE(isSiluPair(blob, dims, 2)); // a multiply, then a sigmoid

  StagePlan plan = planStages(blob, dims, {}, /*fuseSilu=*/true);
  ASSERT_EQ(plan.steps.size(), 4u);
  EXPECT_EQ(plan.steps[0].kind, StepKind::Xnnpack);
  EXPECT_EQ(plan.steps[1].kind, StepKind::Silu);
  EXPECT_EQ(plan.steps[1].first, 1u);
  EXPECT_EQ(plan.steps[1].end, 3u);
  EXPECT_EQ(plan.steps[2].kind, StepKind::Silu);
  EXPECT_EQ(plan.steps[2].first, 3u);
  EXPECT_EQ(plan.steps[3].kind, StepKind::Xnnpack);
  EXPECT_EQ(plan.steps[3].first, 5u);
  for (uint32_t t : {x, y, z})
    EXPECT_GE(plan.offsets[t], 0) << "tensor " << t;
  // x dies at the first SiLU and y at the second: both write in place.
  EXPECT_EQ(plan.offsets[y], plan.offsets[x]);
  EXPECT_EQ(plan.offsets[z], plan.offsets[x]);
  EXPECT_EQ(plan.offsets[gate], -1);
  EXPECT_EQ(plan.offsets[gate2], -1);

  // Without fusion the pairs stay XNNPACK nodes: one runtime.
  EXPECT_EQ(planStages(blob, dims).steps.size(), 1u);
}

// A SiLU whose input is read again later writes elsewhere.
TEST(XnnpackStages, SiluKeepsAnInputReadLater) {
  BlobBuilder b;
  uint32_t in = b.tensor({64}, 0), x = b.tensor({64}), gate = b.tensor({64});
  uint32_t y = b.tensor({64}), sum = b.tensor({64}),
           out = b.tensor({64}, -1, 0);
  b.clamp(in, x);
  b.sigmoid(x, gate);
  b.multiply(x, gate, y);
  b.multiply(x, y, sum); // x read after the SiLU (not a SiLU: y is no sigmoid)
  b.clamp(sum, out);
  const Blob &blob = b.finish();
  ASSERT_EQ(validateBlob(blob), "");
  StagePlan plan = planStages(blob, b.dims(), {}, /*fuseSilu=*/true);
  ASSERT_EQ(plan.steps.size(), 3u);
  EXPECT_EQ(plan.steps[1].kind, StepKind::Silu);
  ASSERT_GE(plan.offsets[x], 0);
  ASSERT_GE(plan.offsets[y], 0);
  uint64_t bytes = (64 * 4 + 16 + 63) / 64 * 64;
  EXPECT_TRUE(uint64_t(std::abs(plan.offsets[x] - plan.offsets[y])) >= bytes);
}

// A sigmoid read by another node, a clamped product, a product of another
// value or a broadcast: two XNNPACK nodes, as written.
TEST(XnnpackStages, OtherSigmoidProductsStayOnXnnpack) {
  BlobBuilder b;
  uint32_t x = b.tensor({2, 8}, 0), gate = b.tensor({2, 8});
  uint32_t y = b.tensor({2, 8}), y2 = b.tensor({2, 8}, -1, 0);
  b.sigmoid(x, gate);
  b.multiply(x, gate, y);
  b.clamp(gate, y2); // the sigmoid read again
  uint32_t u = b.tensor({2, 8}), gate3 = b.tensor({2, 8}),
           v = b.tensor({2, 8}, -1, 1);
  b.sigmoid(u, gate3);
  b.multiply(u, gate3, v, /*outputMax=*/6.0f); // clamped
  uint32_t w = b.tensor({2, 8}), gate4 = b.tensor({2, 8}),
           other = b.tensor({2, 8}, 1), p = b.tensor({2, 8}, -1, 2);
  b.sigmoid(w, gate4);
  b.multiply(other, gate4, p); // not x * sigmoid(x)
  uint32_t row = b.tensor({1, 8}, 2), gate5 = b.tensor({1, 8}),
           wide = b.tensor({2, 8}, 3), q = b.tensor({2, 8}, -1, 3);
  b.sigmoid(row, gate5);
  b.multiply(wide, gate5, q); // a broadcast
  const Blob &blob = b.finish();
  std::vector<Dims> dims = b.dims();
  for (uint32_t n : {0u, 3u, 5u, 7u})
    EXPECT_FALSE(isSiluPair(blob, dims, n)) << "node " << n;
  StagePlan plan = planStages(blob, dims, {}, /*fuseSilu=*/true);
  for (const StepPlan &step : plan.steps)
    EXPECT_NE(step.kind, StepKind::Silu);
}

// What stays on XNNPACK: fewer output rows than a tile, weights computed
// at run time, a reduction shallower than kMinGemmDepth.
TEST(XnnpackStages, GemmLeavesSmallShallowAndDynamicProductsToXnnpack) {
  auto fullyConnected = [](int64_t rows, int64_t depth, bool constantWeights) {
    BlobBuilder b;
    uint32_t in = b.tensor({uint64_t(rows), uint64_t(depth)}, 0),
             weights = constantWeights ? b.constant({20, uint64_t(depth)})
                                       : b.tensor({20, uint64_t(depth)}, 1),
             out = b.tensor({uint64_t(rows), 20}, -1, 0);
    b.fullyConnected(in, weights, b.constant({20}), out);
    const Blob &blob = b.finish();
    EXPECT_EQ(validateBlob(blob), "");
    return gemmGeometry(blob, *blob.nodes()->Get(0), b.dims()).has_value();
  };
  EXPECT_TRUE(fullyConnected(12, kMinGemmDepth, true));
  EXPECT_FALSE(fullyConnected(1, kMinGemmDepth, true));
  EXPECT_FALSE(fullyConnected(12, kMinGemmDepth, false));
  EXPECT_FALSE(fullyConnected(12, kMinGemmDepth - 1, true));
}

TEST(XnnpackStages, ConcatenationShapeErrors) {
  {
    BlobBuilder b;
    uint32_t x = b.tensor({1, 2, 2, 3}, 0), y = b.tensor({1, 2, 3, 3}, 1);
    b.concatenate({x, y}, b.tensor({1, 2, 2, 6}, -1, 0), 3);
    EXPECT_EQ(validateBlob(b.finish()),
              "node 0 (Concatenate): inputs differ in a dim other than the "
              "axis");
  }
  {
    BlobBuilder b;
    uint32_t x = b.tensor({1, 2, 2, 3}, 0), y = b.tensor({2, 3}, 1);
    b.concatenate({x, y}, b.tensor({1, 2, 2, 6}, -1, 0), 3);
    EXPECT_EQ(validateBlob(b.finish()),
              "node 0 (Concatenate): inputs differ in rank");
  }
  {
    BlobBuilder b;
    uint32_t x = b.tensor({1, 2, 2, 3}, 0);
    b.concatenate({x}, b.tensor({1, 2, 2, 3}, -1, 0), 4);
    EXPECT_EQ(validateBlob(b.finish()),
              "node 0 (Concatenate): needs inputs with the concatenation axis");
  }
  {
    BlobBuilder b;
    uint32_t x = b.tensor({1, 2, 2, 3}, 0), y = b.tensor({1, 2, 2, 3}, 1);
    b.concatenate({x, y}, b.tensor({1, 2, 2, 5}, -1, 0), 3);
    EXPECT_EQ(validateBlob(b.finish()),
              "node 0 (Concatenate): output shape does not follow from the "
              "input");
  }
  {
    BlobBuilder b;
    uint32_t x = b.tensor({1, 2, 2, 3}, 0, -1, Datatype::Qint8);
    b.concatenate({x}, b.tensor({1, 2, 2, 3}, -1, 0, Datatype::Qint8), 3);
    EXPECT_EQ(validateBlob(b.finish()),
              "node 0 (Concatenate): concatenates other than fp32");
  }
}

} // namespace
} // namespace etch::xnnpack
