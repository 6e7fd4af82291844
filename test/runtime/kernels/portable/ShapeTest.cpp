// Data movement kernels: every permutation of a rank-4 tensor, cat, slice,
// select, slice_scatter, expand, view, embedding.
#include "KernelTestSupport.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

using namespace etch::runtime;
using namespace etch::runtime::testing;

namespace {

TEST(PortableShape, EveryRank4Permutation) {
  OwnedTensor x = randomFloat({2, 3, 4, 5});
  std::vector<int64_t> perm = {0, 1, 2, 3};
  do {
    int64_t sizes[4] = {2, 3, 4, 5}, strides[4] = {60, 20, 5, 1};
    OwnedTensor out(ScalarType::Float32, {sizes[perm[0]], sizes[perm[1]],
                                          sizes[perm[2]], sizes[perm[3]]});
    Attributes dims;
    dims.ints("dims", perm);
    ASSERT_EQ(runKernel("edge.permute", {&x.view}, {&out.view}, dims),
              Error::Ok);
    std::vector<double> expected;
    for (int64_t a = 0; a < sizes[perm[0]]; ++a)
      for (int64_t b = 0; b < sizes[perm[1]]; ++b)
        for (int64_t c = 0; c < sizes[perm[2]]; ++c)
          for (int64_t d = 0; d < sizes[perm[3]]; ++d)
            expected.push_back(
                x.f()[a * strides[perm[0]] + b * strides[perm[1]] +
                      c * strides[perm[2]] + d * strides[perm[3]]]);
    expectClose(out, expected, 0, 0);
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(PortableShape, TransposeIsAPermute) {
  OwnedTensor x = randomFloat({3, 4}), out(ScalarType::Float32, {4, 3});
  Attributes dims;
  dims.i("dim0", 0).i("dim1", -1);
  ASSERT_EQ(runKernel("edge.transpose", {&x.view}, {&out.view}, dims),
            Error::Ok);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      EXPECT_EQ(out.f()[j * 3 + i], x.f()[i * 4 + j]);
}

// The memory plan places a cat's inputs in their slices of the result when
// the slices are contiguous: such an input is already in place (nothing to
// copy, and memcpy onto itself would be undefined); the others are copied.
TEST(PortableShape, CatInputsAlreadyInTheirSlices) {
  OwnedTensor out(ScalarType::Float32, {1, 5, 2});
  OwnedTensor b = randomFloat({1, 2, 2});
  TensorView first, third;
  int64_t firstSizes[] = {1, 2, 2}, thirdSizes[] = {1, 1, 2};
  first.reset(ScalarType::Float32, firstSizes, 3);
  first.setData(out.f());
  third.reset(ScalarType::Float32, thirdSizes, 3);
  third.setData(out.f() + 8);
  std::vector<float> expected = {1, 2, 3, 4, b.f()[0], b.f()[1],
                                 b.f()[2], b.f()[3], 9, 10};
  std::copy(expected.begin(), expected.begin() + 4, out.f());
  std::copy(expected.begin() + 8, expected.end(), out.f() + 8);
  Attributes dim1;
  dim1.i("dim", 1);
  ASSERT_EQ(runKernel("edge.cat", {&first, &b.view, &third}, {&out.view},
                      dim1),
            Error::Ok);
  expectClose(out, std::vector<double>(expected.begin(), expected.end()), 0,
              0);
}

TEST(PortableShape, CatSliceSelectExpand) {
  OwnedTensor a = randomFloat({2, 3, 2}), b = randomFloat({2, 1, 2});
  OwnedTensor cat(ScalarType::Float32, {2, 4, 2});
  Attributes dim1;
  dim1.i("dim", 1);
  ASSERT_EQ(runKernel("edge.cat", {&a.view, &b.view}, {&cat.view}, dim1),
            Error::Ok);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 2; ++k)
        EXPECT_EQ(cat.f()[(i * 4 + j) * 2 + k],
                  j < 3 ? a.f()[(i * 3 + j) * 2 + k] : b.f()[i * 2 + k]);

  OwnedTensor x = randomFloat({3, 10});
  OwnedTensor sliced(ScalarType::Float32, {3, 5});
  Attributes slice;
  slice.i("dim", 1).i("start", -9).i("end", 100).i("step", 2);
  ASSERT_EQ(runKernel("edge.slice", {&x.view}, {&sliced.view}, slice),
            Error::Ok);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j)
      EXPECT_EQ(sliced.f()[i * 5 + j], x.f()[i * 10 + 1 + 2 * j]);

  OwnedTensor selected(ScalarType::Float32, {3});
  Attributes select;
  select.i("dim", 1).i("index", -1);
  ASSERT_EQ(runKernel("edge.select", {&x.view}, {&selected.view}, select),
            Error::Ok);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(selected.f()[i], x.f()[i * 10 + 9]);

  OwnedTensor column = randomFloat({3, 1}),
              expanded(ScalarType::Float32, {2, 3, 4});
  Attributes size;
  size.ints("size", {2, -1, 4});
  ASSERT_EQ(runKernel("edge.expand", {&column.view}, {&expanded.view}, size),
            Error::Ok);
  for (int i = 0; i < 24; ++i)
    EXPECT_EQ(expanded.f()[i], column.f()[(i / 4) % 3]);
}

TEST(PortableShape, ViewCopiesAndChecksCount) {
  OwnedTensor x = randomFloat({2, 6}), out(ScalarType::Float32, {3, 4});
  ASSERT_EQ(runKernel("edge.view", {&x.view}, {&out.view},
                      Attributes().ints("size", {3, -1})),
            Error::Ok);
  EXPECT_TRUE(std::equal(x.f(), x.f() + 12, out.f()));
  OwnedTensor wrong(ScalarType::Float32, {5});
  EXPECT_EQ(runKernel("edge.view", {&x.view}, {&wrong.view},
                      Attributes().ints("size", {5})),
            Error::InvalidShape);
  // squeeze (listed dims, or every size-1 dim) and unsqueeze.
  OwnedTensor y = randomFloat({1, 3, 1}), squeezed(ScalarType::Float32, {3, 1}),
              all(ScalarType::Float32, {3}),
              unsqueezed(ScalarType::Float32, {1, 3, 1, 1});
  EXPECT_EQ(runKernel("edge.squeeze", {&y.view}, {&squeezed.view},
                      Attributes().ints("dim", {0})),
            Error::Ok);
  EXPECT_EQ(runKernel("edge.squeeze", {&y.view}, {&all.view}), Error::Ok);
  EXPECT_EQ(runKernel("edge.unsqueeze", {&y.view}, {&unsqueezed.view},
                      Attributes().i("dim", -1)),
            Error::Ok);
  // As the dialect infers (runtime/core/ViewShape.h): an empty dim list
  // squeezes nothing, and a rank-0 tensor takes dim 0 (both were refused).
  OwnedTensor same(ScalarType::Float32, {1, 3, 1});
  EXPECT_EQ(runKernel("edge.squeeze", {&y.view}, {&same.view},
                      Attributes().ints("dim", {})),
            Error::Ok);
  OwnedTensor scalar = randomFloat({}), scalarOut(ScalarType::Float32, {});
  EXPECT_EQ(runKernel("edge.squeeze", {&scalar.view}, {&scalarOut.view},
                      Attributes().ints("dim", {0})),
            Error::Ok);
  EXPECT_EQ(scalarOut.f()[0], scalar.f()[0]);
}

// While a method propagates new input shapes, validate sets each output's
// shape from the inputs, within the memory planned for it.
TEST(PortableShape, ValidateResizesOutputsWithinCapacity) {
  OwnedTensor x = randomFloat({8, 6}), out(ScalarType::Float32, {8, 6});
  int64_t smaller[] = {3, 6};
  ASSERT_TRUE(x.view.resize(smaller, 2));
  const KernelEntry *relu = portable::findPortableKernel("edge.relu");
  TensorView *in[] = {&x.view}, *outs[] = {&out.view};
  KernelCall call;
  call.inputs = Span<TensorView *>(in, 1);
  call.outputs = Span<TensorView *>(outs, 1);
  call.opName = "edge.relu";
  EXPECT_EQ(relu->validate(call), Error::InvalidShape); // checking: 3 != 8
  call.resizeOutputs = true;
  ASSERT_EQ(relu->validate(call), Error::Ok);
  EXPECT_EQ(out.view.size(0), 3);
  EXPECT_EQ(out.view.numel(), 18);
  // A shape beyond the planned capacity is refused.
  int64_t larger[] = {9, 6};
  EXPECT_FALSE(x.view.resize(larger, 2));
  OwnedTensor big = randomFloat({9, 6});
  in[0] = &big.view;
  EXPECT_EQ(relu->validate(call), Error::InvalidShape);
  EXPECT_EQ(out.view.size(0), 3);
}

TEST(PortableShape, EmbeddingWithOutOfRangeIndices) {
  OwnedTensor table = randomFloat({5, 3}), ids(ScalarType::Int64, {2, 2});
  int64_t values[] = {4, -1, 0, 9};
  std::memcpy(ids.i64(), values, sizeof(values));
  OwnedTensor out(ScalarType::Float32, {2, 2, 3});
  ASSERT_EQ(runKernel("edge.embedding", {&table.view, &ids.view}, {&out.view}),
            Error::Ok);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(out.f()[0 * 3 + c], table.f()[4 * 3 + c]);
    EXPECT_EQ(out.f()[1 * 3 + c], table.f()[4 * 3 + c]); // -1 wraps
    EXPECT_EQ(out.f()[2 * 3 + c], table.f()[0 * 3 + c]);
    EXPECT_EQ(out.f()[3 * 3 + c], 0.0f); // out of range: zeros, no read
  }
}

} // namespace

namespace {

TEST(PortableConversion, CompareWhereCastPad) {
  OwnedTensor x = randomFloat({2, 3}), threshold(ScalarType::Float32, {});
  threshold.f()[0] = 0.0f;
  OwnedTensor mask(ScalarType::Bool, {2, 3}),
      picked(ScalarType::Float32, {2, 3});
  ASSERT_EQ(runKernel("edge.gt", {&x.view, &threshold.view}, {&mask.view}),
            Error::Ok);
  OwnedTensor zero(ScalarType::Float32, {1});
  ASSERT_EQ(runKernel("edge.where", {&mask.view, &x.view, &zero.view},
                      {&picked.view}),
            Error::Ok);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(mask.view.data<uint8_t>()[i], x.f()[i] > 0);
    EXPECT_EQ(picked.f()[i], x.f()[i] > 0 ? x.f()[i] : 0.0f);
  }
  OwnedTensor scaled(ScalarType::Float32, {3}), ints(ScalarType::Int64, {3});
  float values[] = {2.7f, -2.7f, 0.2f};
  std::memcpy(scaled.f(), values, sizeof(values));
  ASSERT_EQ(runKernel("edge.to_copy", {&scaled.view}, {&ints.view}), Error::Ok);
  EXPECT_EQ(ints.i64()[0], 2); // toward zero, as ATen
  EXPECT_EQ(ints.i64()[1], -2);
  EXPECT_EQ(ints.i64()[2], 0);
  // float16 and bfloat16 round to nearest even; NaN and infinities survive.
  OwnedTensor wide(ScalarType::Float32, {5}), half(ScalarType::Float16, {5}),
      brain(ScalarType::BFloat16, {5}), back(ScalarType::Float64, {5});
  float specials[] = {1.0f + 1.0f / 4096, 1.0f + 3.0f / 4096, 65504.0f,
                      -INFINITY, NAN};
  std::memcpy(wide.f(), specials, sizeof(specials));
  ASSERT_EQ(runKernel("edge.to_copy", {&wide.view}, {&half.view}), Error::Ok);
  uint16_t halfBits[] = {0x3c00, 0x3c01, 0x7bff, 0xfc00};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(half.view.data<uint16_t>()[i], halfBits[i]) << i;
  ASSERT_EQ(runKernel("edge.to_copy", {&half.view}, {&back.view}), Error::Ok);
  EXPECT_EQ(back.view.data<double>()[2], 65504.0);
  EXPECT_TRUE(std::isnan(back.view.data<double>()[4]));
  ASSERT_EQ(runKernel("edge.to_copy", {&wide.view}, {&brain.view}), Error::Ok);
  uint16_t brainBits[] = {0x3f80, 0x3f80, 0x4780, 0xff80};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(brain.view.data<uint16_t>()[i], brainBits[i]) << i;
  ASSERT_EQ(runKernel("edge.to_copy", {&brain.view}, {&back.view}), Error::Ok);
  EXPECT_EQ(back.view.data<double>()[0], 1.0);
  EXPECT_EQ(back.view.data<double>()[3], -INFINITY);
  EXPECT_TRUE(std::isnan(back.view.data<double>()[4]));
  OwnedTensor padded(ScalarType::Float32, {3, 6});
  Attributes pad;
  pad.ints("pad", {1, 2, 0, 1}).d("value", -1.0);
  ASSERT_EQ(runKernel("edge.constant_pad_nd", {&x.view}, {&padded.view}, pad),
            Error::Ok);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 6; ++c) {
      bool inside = r < 2 && c >= 1 && c < 4;
      EXPECT_EQ(padded.f()[r * 6 + c], inside ? x.f()[r * 3 + c - 1] : -1.0f);
    }
}

} // namespace

namespace etch::runtime::testing {
namespace {

OwnedTensor sizeValue(int64_t value) {
  OwnedTensor t(ScalarType::Int64, {});
  t.i64()[0] = value;
  return t;
}

// Dynamic shapes: sizes come from 0-d int64 inputs where the size list holds
// kSizeFromInput.
TEST(PortableDynamic, SizesFromInputs) {
  OwnedTensor x = randomFloat({3, 8});
  OwnedTensor rows = sizeValue(0);
  ASSERT_EQ(runKernel("edge.sym_size", {&x.view}, {&rows.view},
                      Attributes().i("dim", 0)),
            Error::Ok);
  EXPECT_EQ(rows.i64()[0], 3);
  OwnedTensor six = sizeValue(6);
  OwnedTensor viewed(ScalarType::Float32, {6, 4});
  ASSERT_EQ(runKernel("edge.view", {&x.view, &six.view}, {&viewed.view},
                      Attributes().ints("size", {kSizeFromInput, 4})),
            Error::Ok);
  EXPECT_TRUE(std::equal(x.f(), x.f() + 24, viewed.f()));
  OwnedTensor row = randomFloat({1, 8}), expanded(ScalarType::Float32, {3, 8});
  ASSERT_EQ(runKernel("edge.expand", {&row.view, &rows.view}, {&expanded.view},
                      Attributes().ints("size", {kSizeFromInput, 8})),
            Error::Ok);
  EXPECT_EQ(expanded.f()[2 * 8 + 5], row.f()[5]);
  OwnedTensor end = sizeValue(5), sliced(ScalarType::Float32, {3, 5});
  ASSERT_EQ(runKernel("edge.slice", {&x.view, &end.view}, {&sliced.view},
                      Attributes().i("dim", 1)),
            Error::Ok);
  EXPECT_EQ(sliced.f()[1 * 5 + 4], x.f()[1 * 8 + 4]);
  OwnedTensor ones(ScalarType::Bool, {1, 3});
  ASSERT_EQ(runKernel("edge.full", {&rows.view}, {&ones.view},
                      Attributes()
                          .ints("size", {1, kSizeFromInput})
                          .d("fill_value", 1)
                          .i("dtype", static_cast<int64_t>(ScalarType::Bool))),
            Error::Ok);
  EXPECT_EQ(ones.view.data<uint8_t>()[2], 1);
  OwnedTensor range(ScalarType::Int64, {3});
  ASSERT_EQ(runKernel("edge.arange", {&rows.view}, {&range.view},
                      Attributes().d("step", 1).i(
                          "dtype", static_cast<int64_t>(ScalarType::Int64))),
            Error::Ok);
  EXPECT_EQ(range.i64()[2], 2);
  // A size list whose dynamic entries have no inputs is a load error.
  EXPECT_EQ(runKernel("edge.view", {&x.view}, {&viewed.view},
                      Attributes().ints("size", {kSizeFromInput, 4})),
            Error::InvalidProgram);
}

TEST(PortableDynamic, RemainderHasTheSignOfTheDivisor) {
  OwnedTensor a(ScalarType::Int64, {4}), b(ScalarType::Int64, {4}),
      out(ScalarType::Int64, {4});
  int64_t av[] = {7, -7, 7, INT64_MIN}, bv[] = {3, 3, -3, -1};
  std::memcpy(a.i64(), av, sizeof(av));
  std::memcpy(b.i64(), bv, sizeof(bv));
  ASSERT_EQ(runKernel("edge.remainder", {&a.view, &b.view}, {&out.view}),
            Error::Ok);
  int64_t expected[] = {1, 2, -2, 0};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(out.i64()[i], expected[i]) << i;
  OwnedTensor x = randomFloat({3}, -5, 5), y(ScalarType::Float32, {}),
              r(ScalarType::Float32, {3});
  y.f()[0] = -2;
  ASSERT_EQ(runKernel("edge.remainder", {&x.view, &y.view}, {&r.view}),
            Error::Ok);
  std::vector<double> reference;
  for (int i = 0; i < 3; ++i)
    reference.push_back(x.f()[i] - std::floor(x.f()[i] / -2.0) * -2.0);
  expectClose(r, reference);
}

TEST(PortableDynamic, FmodHasTheSignOfTheDividend) {
  OwnedTensor a(ScalarType::Int64, {4}), b(ScalarType::Int64, {4}),
      out(ScalarType::Int64, {4});
  int64_t av[] = {7, -7, 7, INT64_MIN}, bv[] = {3, 3, -3, -1};
  std::memcpy(a.i64(), av, sizeof(av));
  std::memcpy(b.i64(), bv, sizeof(bv));
  ASSERT_EQ(runKernel("edge.fmod", {&a.view, &b.view}, {&out.view}),
            Error::Ok);
  int64_t expected[] = {1, -1, 1, 0};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(out.i64()[i], expected[i]) << i;
  OwnedTensor x = randomFloat({5}, -5, 5), y(ScalarType::Float32, {}),
              r(ScalarType::Float32, {5});
  y.f()[0] = -2;
  ASSERT_EQ(runKernel("edge.fmod", {&x.view, &y.view}, {&r.view}), Error::Ok);
  std::vector<double> reference;
  for (int i = 0; i < 5; ++i)
    reference.push_back(x.f()[i] - std::trunc(x.f()[i] / -2.0) * -2.0);
  expectClose(r, reference);
}

TEST(PortableShape, SliceScatterWritesTheSliceOnly) {
  // self [3, 5]; src replaces columns 1 and 3 (start -4, step 2).
  OwnedTensor self = randomFloat({3, 5}), src = randomFloat({3, 2});
  OwnedTensor out(ScalarType::Float32, {3, 5});
  Attributes attrs;
  attrs.i("dim", 1).i("start", -4).i("end", 4).i("step", 2);
  ASSERT_EQ(runKernel("edge.slice_scatter", {&self.view, &src.view},
                      {&out.view}, attrs),
            Error::Ok);
  std::vector<double> expected;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j)
      expected.push_back(j == 1 || j == 3 ? src.f()[i * 2 + (j - 1) / 2]
                                          : self.f()[i * 5 + j]);
  expectClose(out, expected, 0, 0);
  // A src that is not the slice's shape is refused.
  OwnedTensor wrong = randomFloat({3, 3});
  EXPECT_EQ(runKernel("edge.slice_scatter", {&self.view, &wrong.view},
                      {&out.view}, attrs),
            Error::InvalidShape);
}

TEST(PortableShape, SliceStepPastTheExtentTakesOneElement) {
  // A step near INT64_MAX (a fuzzer's find) must not overflow stride * step.
  OwnedTensor self = randomFloat({2, 5}), src = randomFloat({2, 1});
  OwnedTensor out(ScalarType::Float32, {2, 5}), sliced(ScalarType::Float32, {2, 1});
  Attributes attrs;
  attrs.i("dim", 1).i("start", 3).i("end", 5).i("step", INT64_MAX - 7);
  ASSERT_EQ(runKernel("edge.slice_scatter", {&self.view, &src.view},
                      {&out.view}, attrs),
            Error::Ok);
  ASSERT_EQ(runKernel("edge.slice", {&self.view}, {&sliced.view}, attrs),
            Error::Ok);
  std::vector<double> expected, expectedSlice;
  for (int i = 0; i < 2; ++i) {
    expectedSlice.push_back(self.f()[i * 5 + 3]);
    for (int j = 0; j < 5; ++j)
      expected.push_back(j == 3 ? src.f()[i] : self.f()[i * 5 + j]);
  }
  expectClose(out, expected, 0, 0);
  expectClose(sliced, expectedSlice, 0, 0);
}

TEST(PortableShape, IndexPutWritesOrAddsAtIndexedPositions) {
  // self [2, 5, 3]; rows 4 and 1 of dim 1 take values [2, 2, 3].
  OwnedTensor self = randomFloat({2, 5, 3}), values = randomFloat({2, 2, 3});
  OwnedTensor at(ScalarType::Int64, {2}), out(ScalarType::Float32, {2, 5, 3});
  at.i64()[0] = 4;
  at.i64()[1] = -4; // row 1
  Attributes attrs;
  attrs.ints("indexed_dims", {1});
  ASSERT_EQ(runKernel("edge.index_put", {&self.view, &values.view, &at.view},
                      {&out.view}, attrs),
            Error::Ok);
  auto expectedAt = [&](bool accumulate) {
    std::vector<double> expected(self.f(), self.f() + self.numel());
    for (int b = 0; b < 2; ++b)
      for (int k = 0; k < 2; ++k)
        for (int c = 0; c < 3; ++c) {
          int row = k == 0 ? 4 : 1;
          double value = values.f()[(b * 2 + k) * 3 + c];
          double &slot = expected[(b * 5 + row) * 3 + c];
          slot = accumulate ? slot + value : value;
        }
    return expected;
  };
  expectClose(out, expectedAt(false), 0, 0);
  attrs.b("accumulate", true);
  ASSERT_EQ(runKernel("edge.index_put", {&self.view, &values.view, &at.view},
                      {&out.view}, attrs),
            Error::Ok);
  expectClose(out, expectedAt(true), 1e-6, 1e-6);
  // Values that do not broadcast to the indexed shape are refused.
  OwnedTensor wrong = randomFloat({2, 3, 3});
  EXPECT_EQ(runKernel("edge.index_put", {&self.view, &wrong.view, &at.view},
                      {&out.view}, attrs),
            Error::InvalidShape);
}

} // namespace
} // namespace etch::runtime::testing
