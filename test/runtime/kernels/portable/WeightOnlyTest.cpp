// The weight-only kernels against double-precision references computed
// from the unpacked values: dequantize_per_channel_group (torch's formula,
// zero points of any integer type), weight_only_linear and
// weight_only_embedding at 8 and 4 bits, with and without zero points and
// bias, per channel and per group; and what validation refuses.
#include "KernelTestSupport.h"

#include "runtime/kernels/portable/WeightPacking.h"

namespace etch::runtime::testing {
namespace {

namespace packing = weight_packing;

/// A quantized table [rows, columns] in the kernels' packed form, with the
/// values it holds for references.
struct PackedTable {
  int bits;
  int64_t rows, columns, group;
  std::vector<int> values; // -8..7 or -128..127
  OwnedTensor weight, scales;
  std::optional<OwnedTensor> zeroPoints;

  PackedTable(int bits, int64_t rows, int64_t columns, int64_t group,
              bool withZeroPoints)
      : bits(bits), rows(rows), columns(columns), group(group),
        weight(bits == 4 ? ScalarType::UInt8 : ScalarType::Int8,
               {rows, packing::rowBytes(bits, columns)}),
        scales(randomFloat({rows, columns / group}, 0.01f, 0.1f)) {
    int low = bits == 4 ? -8 : -128, high = bits == 4 ? 7 : 127;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < columns; ++c) {
        int value = static_cast<int>(randomInt(low, high));
        values.push_back(value);
        uint8_t *row = weight.view.data<uint8_t>() +
                       r * packing::rowBytes(bits, columns);
        if (bits == 4)
          packing::setInt4(row, c, value);
        else
          row[c] = static_cast<uint8_t>(value);
      }
    if (withZeroPoints) {
      zeroPoints.emplace(ScalarType::Int8,
                         std::vector<int64_t>{rows, columns / group});
      for (int64_t i = 0; i < zeroPoints->numel(); ++i)
        zeroPoints->view.data<int8_t>()[i] =
            static_cast<int8_t>(randomInt(-3, 3));
    }
  }
  double at(int64_t r, int64_t c) const {
    int64_t g = r * (columns / group) + c / group;
    int zero = zeroPoints ? zeroPoints->view.data<int8_t>()[g] : 0;
    return static_cast<double>(
        static_cast<float>(values[r * columns + c] - zero) *
        scales.view.data<float>()[g]);
  }
  TensorView *zeroView() { return zeroPoints ? &zeroPoints->view : nullptr; }
  Attributes attributes() const {
    Attributes a;
    a.i("bits", bits).i("group_size", group);
    return a;
  }
};

TEST(WeightPacking, NibblesRoundTripInBlockOrder) {
  uint8_t row[32] = {};
  for (int k = 0; k < 64; ++k)
    packing::setInt4(row, k, (k % 16) - 8);
  for (int k = 0; k < 64; ++k)
    EXPECT_EQ(packing::int4At(row, k), (k % 16) - 8) << k;
  // Column 1 is the low nibble of byte 1, column 17 its high nibble.
  EXPECT_EQ(row[1] & 0xF, (1 % 16));
  EXPECT_EQ(row[1] >> 4, (17 % 16));
}

TEST(WeightOnlyLinear, MatchesTheDequantizedProduct) {
  struct Case {
    int bits;
    int64_t rows, columns, group, inputs;
    bool zeroPoints, bias;
  };
  for (Case c : {Case{8, 5, 64, 64, 3, false, false},
                 {8, 7, 40, 8, 2, true, true},
                 {4, 6, 64, 32, 1, false, true},
                 {4, 3, 128, 64, 4, true, false},
                 {4, 9, 96, 96, 5, false, false}}) {
    PackedTable table(c.bits, c.rows, c.columns, c.group, c.zeroPoints);
    OwnedTensor x = randomFloat({c.inputs, c.columns});
    OwnedTensor bias = randomFloat({c.rows});
    OwnedTensor out(ScalarType::Float32, {c.inputs, c.rows});
    ASSERT_EQ(runKernel("edge.weight_only_linear",
                        {&x.view, &table.weight.view, &table.scales.view,
                         table.zeroView(), c.bias ? &bias.view : nullptr},
                        {&out.view}, table.attributes()),
              Error::Ok);
    std::vector<double> expected;
    for (int64_t i = 0; i < c.inputs; ++i)
      for (int64_t n = 0; n < c.rows; ++n) {
        double sum = c.bias ? bias.f()[n] : 0.0;
        for (int64_t k = 0; k < c.columns; ++k)
          sum += double(x.f()[i * c.columns + k]) * table.at(n, k);
        expected.push_back(sum);
      }
    expectClose(out, expected);
  }
}

TEST(WeightOnlyEmbedding, DequantizesThePickedRows) {
  for (int bits : {8, 4}) {
    PackedTable table(bits, 10, 64, 32, bits == 8);
    OwnedTensor ids(ScalarType::Int64, {2, 3});
    int64_t picked[] = {0, 9, -1, 4, 12, 4}; // -1: the last row; 12: none
    std::memcpy(ids.i64(), picked, sizeof picked);
    OwnedTensor out(ScalarType::Float32, {2, 3, 64});
    ASSERT_EQ(runKernel("edge.weight_only_embedding",
                        {&table.weight.view, &table.scales.view, &ids.view,
                         table.zeroView()},
                        {&out.view}, table.attributes()),
              Error::Ok);
    std::vector<double> expected;
    for (int64_t id : picked) {
      int64_t row = id < 0 ? id + 10 : id;
      for (int64_t k = 0; k < 64; ++k)
        expected.push_back(row >= 0 && row < 10 ? table.at(row, k) : 0.0);
    }
    expectClose(out, expected, 0, 0);
  }
}

TEST(DequantizePerChannelGroup, IsTorchsFormula) {
  OwnedTensor q(ScalarType::Int8, {3, 8});
  for (int64_t i = 0; i < 24; ++i)
    q.view.data<int8_t>()[i] = static_cast<int8_t>(randomInt(-8, 7));
  OwnedTensor scales = randomFloat({3, 2}, 0.1f, 1.0f);
  OwnedTensor zeros(ScalarType::Int64, {3, 2});
  for (int64_t i = 0; i < 6; ++i)
    zeros.i64()[i] = randomInt(-2, 2);
  OwnedTensor out(ScalarType::Float32, {3, 8});
  Attributes attributes;
  attributes.i("group_size", 4).i("quant_min", -8).i("quant_max", 7);
  ASSERT_EQ(runKernel("edge.dequantize_per_channel_group",
                      {&q.view, &scales.view, &zeros.view}, {&out.view},
                      attributes),
            Error::Ok);
  std::vector<double> expected;
  for (int64_t i = 0; i < 24; ++i) {
    int64_t g = (i / 8) * 2 + (i % 8) / 4;
    expected.push_back(static_cast<float>(q.view.data<int8_t>()[i] -
                                          zeros.i64()[g]) *
                       scales.f()[g]);
  }
  expectClose(out, expected, 0, 0);
}

TEST(WeightOnlyLinear, RefusesTablesThatDoNotFit) {
  PackedTable table(4, 4, 64, 32, false);
  OwnedTensor x = randomFloat({1, 64}), out(ScalarType::Float32, {1, 4});
  Attributes badBits;
  badBits.i("bits", 2).i("group_size", 32);
  EXPECT_EQ(runKernel("edge.weight_only_linear",
                      {&x.view, &table.weight.view, &table.scales.view,
                       nullptr, nullptr},
                      {&out.view}, badBits),
            Error::InvalidProgram);
  Attributes badGroup; // not a whole 32-column block
  badGroup.i("bits", 4).i("group_size", 16);
  EXPECT_EQ(runKernel("edge.weight_only_linear",
                      {&x.view, &table.weight.view, &table.scales.view,
                       nullptr, nullptr},
                      {&out.view}, badGroup),
            Error::InvalidProgram);
  OwnedTensor narrow = randomFloat({1, 32});
  EXPECT_EQ(runKernel("edge.weight_only_linear",
                      {&narrow.view, &table.weight.view, &table.scales.view,
                       nullptr, nullptr},
                      {&out.view}, table.attributes()),
            Error::InvalidShape);
  OwnedTensor wrongScales = randomFloat({4, 3});
  EXPECT_EQ(runKernel("edge.weight_only_linear",
                      {&x.view, &table.weight.view, &wrongScales.view,
                       nullptr, nullptr},
                      {&out.view}, table.attributes()),
            Error::InvalidShape);
}

} // namespace
} // namespace etch::runtime::testing
