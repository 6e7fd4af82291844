// The optimized kernels an LLM decode step runs, against their portable
// twins: weight_only_linear on every path this CPU has (float inputs: within
// float rounding, int8 tables on AVX2's int16 halves too; int8 inputs for
// int4 tables on AVX-512 VNNI and AVX2: within the input quantization's
// error, and equal to that arithmetic done in double; int8 sums at their
// extremes; Inf and NaN carried), the
// few-row GEMVs on every ISA, attention with boolean, float and causal masks
// and grouped heads, broadcast arithmetic (bitwise), trailing reductions,
// slice-wise index_put (bitwise), x ** 2; and the thread pool.
#include "../portable/KernelTestSupport.h"

#include "runtime/kernels/optimized/CpuFeatures.h"
#include "runtime/kernels/optimized/Gemv.h"
#include "runtime/kernels/optimized/ThreadPool.h"
#include "runtime/kernels/optimized/WeightOnly.h"
#include "runtime/kernels/portable/WeightPacking.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

namespace etch::runtime::testing {
namespace {

/// Max |actual - expected| over max |expected|.
double relativeError(const OwnedTensor &actual, const OwnedTensor &expected) {
  double scale = 1e-30, error = 0;
  for (int64_t i = 0; i < expected.numel(); ++i) {
    double want = expected.view.data<float>()[i];
    scale = std::max(scale, std::fabs(want));
    error = std::max(error, std::fabs(actual.view.data<float>()[i] - want));
  }
  return error / scale;
}

/// What the int8-input path computes (WeightOnlyInt8Inputs.cpp), in
/// double: each input quantized per 32-column block (round to nearest
/// even of x * 127 / max|x|), exact integer dot products, scaled.
void int8InputReference(const uint8_t *weights, const float *scales,
                        const float *bias, const float *x, int64_t rows,
                        int64_t columns, int64_t group, int64_t inputs,
                        float *out) {
  std::vector<int> q(columns);
  std::vector<double> step(columns / 32);
  for (int64_t i = 0; i < inputs; ++i) {
    const float *row = x + i * columns;
    for (int64_t b = 0; b < columns / 32; ++b) {
      float largest = 0;
      for (int64_t k = 32 * b; k < 32 * b + 32; ++k)
        largest = std::max(largest, std::fabs(row[k]));
      float inverse = largest > 0 ? 127.0f / largest : 0.0f;
      for (int64_t k = 32 * b; k < 32 * b + 32; ++k)
        q[k] = static_cast<int>(std::nearbyint(row[k] * inverse));
      step[b] = largest / 127.0f;
    }
    for (int64_t n = 0; n < rows; ++n) {
      const uint8_t *packed = weights + n * columns / 2;
      double total = 0;
      for (int64_t b = 0; b < columns / 32; ++b) {
        int64_t dot = 0;
        for (int64_t k = 32 * b; k < 32 * b + 32; ++k)
          dot += int64_t(weight_packing::int4At(packed, k)) * q[k];
        total += double(dot) * step[b] *
                 scales[n * (columns / group) + 32 * b / group];
      }
      out[i * rows + n] = static_cast<float>(total + bias[n]);
    }
  }
}

struct WeightOnlyCase {
  int bits;
  int64_t rows, columns, group, inputs;
  bool zeroPoints;
};

class WeightOnlyPathTest : public ::testing::TestWithParam<const char *> {};

TEST_P(WeightOnlyPathTest, MatchesThePortableKernel) {
  const char *path = GetParam();
  if (!optimized::cpuHasIsa(path))
    GTEST_SKIP() << "this CPU has no " << path;
  for (WeightOnlyCase c : {WeightOnlyCase{4, 37, 256, 32, 1, false},
                           {4, 16, 384, 64, 2, false},
                           {4, 20, 512, 128, 3, false},
                           {4, 9, 96, 32, 1, false},
                           {4, 12, 128, 32, 4, true},
                           {8, 33, 192, 192, 1, false},
                           {8, 10, 128, 64, 2, true},
                           {4, 70, 256, 32, 7, false},
                           {8, 21, 64, 64, 5, false},
                           {4, 19, 256, 32, 21, false},
                           // Prefill tiles (two weight rows) with groups
                           // of 64 and 128, an odd row count, input tails.
                           {4, 13, 256, 64, 9, false},
                           {4, 22, 512, 128, 6, false},
                           {4, 8, 128, 32, 18, true},
                           // Prefill panels (VNNI: 16 weight rows, tiles
                           // of up to 8 inputs; AVX2: 8 rows, 4 inputs):
                           // part panels, groups of 32 to 384, whole and
                           // ragged input tiles.
                           {4, 45, 1408, 32, 16, false},
                           {4, 17, 384, 384, 8, false},
                           {4, 16, 128, 64, 4, false},
                           {4, 3, 256, 32, 12, false},
                           {8, 17, 128, 128, 33, false},
                           {8, 6, 4160, 4160, 1, false},
                           {8, 5, 4096, 1024, 1, true}}) {
    std::vector<int64_t> packed = {c.rows,
                                   weight_packing::rowBytes(c.bits, c.columns)};
    OwnedTensor weight(c.bits == 4 ? ScalarType::UInt8 : ScalarType::Int8,
                       packed);
    for (size_t i = 0; i < weight.view.nbytes(); ++i)
      weight.storage[i] = static_cast<uint8_t>(randomInt(0, 255));
    OwnedTensor scales =
        randomFloat({c.rows, c.columns / c.group}, -0.1f, 0.1f);
    OwnedTensor zeros(ScalarType::Int8, {c.rows, c.columns / c.group});
    for (int64_t i = 0; i < zeros.numel(); ++i)
      zeros.view.data<int8_t>()[i] = static_cast<int8_t>(randomInt(-4, 4));
    OwnedTensor bias = randomFloat({c.rows});
    OwnedTensor x = randomFloat({c.inputs, c.columns});
    Attributes attributes;
    attributes.i("bits", c.bits).i("group_size", c.group);
    std::vector<TensorView *> inputs = {&x.view, &weight.view, &scales.view,
                                        c.zeroPoints ? &zeros.view : nullptr,
                                        &bias.view};
    OwnedTensor fast(ScalarType::Float32, {c.inputs, c.rows});
    OwnedTensor reference(ScalarType::Float32, {c.inputs, c.rows});
    ASSERT_EQ(runKernel("edge.weight_only_linear", inputs, {&reference.view},
                        attributes),
              Error::Ok);
    KernelCall call;
    std::vector<TensorView *> outputs = {&fast.view};
    call.inputs = Span<TensorView *>(inputs.data(), inputs.size());
    call.outputs = Span<TensorView *>(outputs.data(), 1);
    call.attributes = attributes.span();
    ASSERT_TRUE(optimized::weight_only::runWith(path, call));
    // Float inputs: float rounding. int4 on int8 inputs (AVX-512 VNNI,
    // AVX2): each input is off by up to half its block's step, max|x| /
    // 254, and the result is that arithmetic's to float rounding.
    bool int8Inputs = (std::strcmp(path, "avx512vnni") == 0 ||
                       std::strcmp(path, "avx2") == 0) &&
                      c.bits == 4 && !c.zeroPoints && c.columns % 128 == 0;
    double tolerance = int8Inputs ? 2e-2 : 1e-5;
    EXPECT_LT(relativeError(fast, reference), tolerance)
        << path << " bits " << c.bits << " rows " << c.rows << " columns "
        << c.columns << " group " << c.group << " inputs " << c.inputs;
    // int8 tables on AVX2 meet a single input row as two int16 halves
    // (taken here, not left to the float kernels): float rounding too.
    if (std::strcmp(path, "avx2") == 0 && c.bits == 8 && c.inputs == 1) {
      OwnedTensor halves(ScalarType::Float32, {c.inputs, c.rows});
      ASSERT_TRUE(optimized::weight_only::int8WithInt16Inputs(
          path, optimized::weight_only::weightsOf(call), c.inputs, x.f(),
          halves.f()));
      EXPECT_LT(relativeError(halves, reference), 1e-5)
          << "int16 halves: rows " << c.rows << " columns " << c.columns
          << " group " << c.group << " inputs " << c.inputs;
    }
    if (int8Inputs) {
      OwnedTensor exact(ScalarType::Float32, {c.inputs, c.rows});
      int8InputReference(weight.storage.data(), scales.f(), bias.f(), x.f(),
                         c.rows, c.columns, c.group, c.inputs, exact.f());
      EXPECT_LT(relativeError(fast, exact), 1e-5)
          << path << " against the int8-input arithmetic: rows " << c.rows
          << " columns " << c.columns << " group " << c.group << " inputs "
          << c.inputs;
    }
  }
}

/// weight_only_linear of an int8 table through \p path into \p y.
void runInt8WeightOnly(const char *path, OwnedTensor &weight,
                       OwnedTensor &scales, OwnedTensor &x, OwnedTensor &y) {
  Attributes attributes;
  attributes.i("bits", 8).i("group_size", weight.view.size(1));
  std::vector<TensorView *> inputs = {&x.view, &weight.view, &scales.view,
                                      nullptr, nullptr};
  std::vector<TensorView *> outputs = {&y.view};
  KernelCall call;
  call.inputs = Span<TensorView *>(inputs.data(), inputs.size());
  call.outputs = Span<TensorView *>(outputs.data(), 1);
  call.attributes = attributes.span();
  ASSERT_TRUE(optimized::weight_only::runWith(path, call));
}

TEST_P(WeightOnlyPathTest, LongInt8RowsAtTheExtremesDoNotOverflow) {
  // Every product at its largest, -128 * +-32767, over 8192 columns: the
  // int16 path's int32 sums must be flushed to float before they wrap.
  const char *path = GetParam();
  if (!optimized::cpuHasIsa(path))
    GTEST_SKIP() << "this CPU has no " << path;
  constexpr int64_t kRows = 3, kColumns = 8192;
  OwnedTensor weight(ScalarType::Int8, {kRows, kColumns});
  std::fill(weight.storage.begin(), weight.storage.end(), uint8_t(0x80));
  OwnedTensor scales = randomFloat({kRows, 1}, 0.5f, 1.0f);
  for (int inputs : {1, 2, 4}) {
    OwnedTensor x = randomFloat({inputs, kColumns});
    for (int i = 0; i < inputs; ++i)
      std::fill(x.f() + i * kColumns, x.f() + (i + 1) * kColumns,
                i % 2 ? -2.0f : 3.0f);
    OwnedTensor y(ScalarType::Float32, {inputs, kRows});
    runInt8WeightOnly(path, weight, scales, x, y);
    for (int i = 0; i < inputs; ++i)
      for (int64_t n = 0; n < kRows; ++n) {
        double want = -128.0 * kColumns * (i % 2 ? -2.0 : 3.0) * scales.f()[n];
        EXPECT_NEAR(y.f()[i * kRows + n], want, 1e-5 * std::fabs(want))
            << path << " input " << i << " row " << n;
      }
  }
}

TEST_P(WeightOnlyPathTest, Int8RowsCarryInfinityAndNaN) {
  // An input the int16 halves cannot scale runs on the float kernels: the
  // outputs are Inf or NaN, as the portable kernel's are.
  const char *path = GetParam();
  if (!optimized::cpuHasIsa(path))
    GTEST_SKIP() << "this CPU has no " << path;
  OwnedTensor weight(ScalarType::Int8, {5, 64});
  for (size_t i = 0; i < weight.view.nbytes(); ++i)
    weight.storage[i] = static_cast<uint8_t>(randomInt(1, 100));
  OwnedTensor scales = randomFloat({5, 1}, 0.5f, 1.0f);
  for (float special : {INFINITY, NAN}) {
    OwnedTensor x = randomFloat({1, 64});
    x.f()[7] = special;
    OwnedTensor y(ScalarType::Float32, {1, 5});
    EXPECT_FALSE(optimized::weight_only::int8WithInt16Inputs(
        path,
        optimized::weight_only::Weights{8, 5, 64, 64, 1, 64,
                                        weight.storage.data(), scales.f(),
                                        nullptr, nullptr},
        1, x.f(), y.f()))
        << path << ": a non-finite input must leave the int16 path";
    runInt8WeightOnly(path, weight, scales, x, y);
    for (int64_t n = 0; n < 5; ++n) {
      EXPECT_EQ(std::isnan(y.f()[n]), std::isnan(special))
          << path << " row " << n;
      EXPECT_FALSE(std::isfinite(y.f()[n])) << path << " row " << n;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Optimized, WeightOnlyPathTest,
                         ::testing::Values("avx512vnni", "avx512", "avx2",
                                           "scalar"));

class GemvIsaTest : public ::testing::TestWithParam<const char *> {};

TEST_P(GemvIsaTest, RowsAndColumnsMatchADoubleReference) {
  const char *isa = GetParam();
  // Up to 4 rows: decoding; more: prefill's 4 x 4 blocks and their edges.
  for (int64_t m : {1, 2, 3, 4, 5, 8, 11})
    for (auto [n, k] : {std::pair<int64_t, int64_t>{1, 1},
                        {7, 15},
                        {33, 64},
                        {100, 129},
                        {5, 300}}) {
      OwnedTensor x = randomFloat({m, k}), rows = randomFloat({n, k}),
                  columns = randomFloat({k, n});
      OwnedTensor y1(ScalarType::Float32, {m, n}),
          y2(ScalarType::Float32, {m, n});
      if (!optimized::gemvRowsAccumulateWith(isa, m, n, k, x.f(), k, rows.f(),
                                             y1.f(), n))
        GTEST_SKIP() << "this CPU has no " << isa;
      ASSERT_TRUE(optimized::gemvColumnsAccumulateWith(
          isa, m, n, k, x.f(), k, columns.f(), n, y2.f(), n));
      std::vector<double> e1, e2;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double a = 0, b = 0;
          for (int64_t p = 0; p < k; ++p) {
            a += double(x.f()[i * k + p]) * rows.f()[j * k + p];
            b += double(x.f()[i * k + p]) * columns.f()[p * n + j];
          }
          e1.push_back(a);
          e2.push_back(b);
        }
      expectClose(y1, e1, 1e-5, 1e-4);
      expectClose(y2, e2, 1e-5, 1e-4);
    }
}

INSTANTIATE_TEST_SUITE_P(Optimized, GemvIsaTest,
                         ::testing::Values("avx512", "avx2", "scalar"));

/// The registry's kernel and the portable one on the same inputs agree
/// within \p tolerance (0: bitwise).
void checkRegistered(const char *op, std::vector<TensorView *> inputs,
                     std::vector<int64_t> outShape, double tolerance,
                     const Attributes &attributes = Attributes(),
                     ScalarType type = ScalarType::Float32) {
  OwnedTensor fast(type, outShape), reference(type, outShape);
  ASSERT_EQ(runRegisteredKernel(op, inputs, {&fast.view}, attributes),
            Error::Ok);
  ASSERT_EQ(runKernel(op, inputs, {&reference.view}, attributes), Error::Ok);
  if (tolerance == 0)
    EXPECT_EQ(std::memcmp(fast.view.data(), reference.view.data(),
                          fast.view.nbytes()),
              0)
        << op;
  else
    EXPECT_LT(relativeError(fast, reference), tolerance) << op;
}

TEST(DecodeKernels, AttentionMatchesPortable) {
  // A decode step over a static cache: one query, a mask that keeps the
  // first positions only; grouped heads.
  OwnedTensor q = randomFloat({1, 8, 1, 64}), k = randomFloat({1, 2, 40, 64}),
              v = randomFloat({1, 2, 40, 32});
  OwnedTensor keep(ScalarType::Bool, {1, 1, 1, 40});
  for (int j = 0; j < 40; ++j)
    keep.view.data<uint8_t>()[j] = j < 13;
  Attributes gqa;
  gqa.b("enable_gqa", true);
  checkRegistered("edge.scaled_dot_product_attention",
                  {&q.view, &k.view, &v.view, &keep.view}, {1, 8, 1, 32}, 1e-5,
                  gqa);
  // Prefill: several queries, an additive mask with -inf, a scale.
  OwnedTensor q2 = randomFloat({2, 3, 5, 16}), k2 = randomFloat({2, 3, 7, 16}),
              v2 = randomFloat({2, 3, 7, 16}), add = randomFloat({5, 7});
  add.f()[3] = -INFINITY;
  Attributes scaled;
  scaled.d("scale", 0.3);
  checkRegistered("edge.scaled_dot_product_attention",
                  {&q2.view, &k2.view, &v2.view, &add.view}, {2, 3, 5, 16},
                  1e-5, scaled);
  Attributes causal;
  causal.b("is_causal", true);
  checkRegistered("edge.scaled_dot_product_attention",
                  {&q2.view, &k2.view, &v2.view, nullptr}, {2, 3, 5, 16}, 1e-5,
                  causal);
  // A boolean mask per query row with holes and masked tails of different
  // lengths (prefill over a static cache): each row stops at its last kept
  // key.
  OwnedTensor q3 = randomFloat({1, 2, 5, 16}), k3 = randomFloat({1, 2, 12, 16}),
              v3 = randomFloat({1, 2, 12, 8});
  OwnedTensor rows(ScalarType::Bool, {1, 1, 5, 12});
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 12; ++j)
      rows.view.data<uint8_t>()[i * 12 + j] = j <= 2 * i + 1 && j != 1;
  checkRegistered("edge.scaled_dot_product_attention",
                  {&q3.view, &k3.view, &v3.view, &rows.view}, {1, 2, 5, 8},
                  1e-5);
  // Every position masked: zeros, as the portable kernel.
  std::memset(keep.view.data(), 0, 40);
  checkRegistered("edge.scaled_dot_product_attention",
                  {&q.view, &k.view, &v.view, &keep.view}, {1, 8, 1, 32}, 0,
                  gqa);
}

TEST(DecodeKernels, BroadcastArithmeticIsBitwiseEqual) {
  struct Case {
    std::vector<int64_t> a, b, out;
  };
  for (const Case &c : std::vector<Case>{{{1, 1, 512}, {512}, {1, 1, 512}},
                                         {{2, 3, 4}, {3, 1}, {2, 3, 4}},
                                         {{2, 3, 4}, {}, {2, 3, 4}},
                                         {{4, 1, 5}, {1, 6, 1}, {4, 6, 5}},
                                         {{1}, {7}, {7}},
                                         {{5, 1}, {1, 1}, {5, 1}}}) {
    OwnedTensor a = randomFloat(c.a), b = randomFloat(c.b, 0.5f, 2.0f);
    Attributes alpha;
    alpha.d("alpha", -0.75);
    for (const char *op : {"edge.add", "edge.sub", "edge.mul", "edge.div"})
      checkRegistered(op, {&a.view, &b.view}, c.out, 0,
                      std::strcmp(op, "edge.add") == 0 ? alpha : Attributes());
  }
  OwnedTensor x = randomFloat({3, 17}), two(ScalarType::Float32, {});
  two.f()[0] = 2.0f;
  checkRegistered("edge.pow", {&x.view, &two.view}, {3, 17}, 0);
}

TEST(DecodeKernels, TrailingReductionsMatchPortable) {
  OwnedTensor x = randomFloat({3, 5, 37});
  Attributes last, lastTwo, first, all;
  last.ints("dim", {-1}).b("keepdim", true);
  lastTwo.ints("dim", {1, 2});
  first.ints("dim", {0}); // not trailing: the portable kernel
  // Sums in another order: a few float roundings of the summands apart
  // (relative to the largest result; the whole-tensor sum cancels most).
  for (const char *op : {"edge.mean", "edge.sum"}) {
    checkRegistered(op, {&x.view}, {3, 5, 1}, 1e-5, last);
    checkRegistered(op, {&x.view}, {3}, 1e-5, lastTwo);
    checkRegistered(op, {&x.view}, {5, 37}, 0, first);
    checkRegistered(op, {&x.view}, {}, 5e-5, all);
  }
}

TEST(DecodeKernels, IndexPutWritesWholeSlices) {
  // A KV-cache update: 2 positions of [1, 4, 10, 8] written along dim 2,
  // one index negative, one outside (writes nothing).
  OwnedTensor cache = randomFloat({1, 4, 10, 8}),
              rows = randomFloat({1, 4, 3, 8});
  OwnedTensor at(ScalarType::Int64, {3});
  int64_t positions[] = {2, -1, 10};
  std::memcpy(at.i64(), positions, sizeof positions);
  Attributes dim2;
  dim2.ints("indexed_dims", {2});
  checkRegistered("edge.index_put", {&cache.view, &rows.view, &at.view},
                  {1, 4, 10, 8}, 0, dim2);
  // Broadcast values and accumulate take the portable path.
  OwnedTensor one = randomFloat({8});
  Attributes accumulate;
  accumulate.ints("indexed_dims", {2}).b("accumulate", true);
  checkRegistered("edge.index_put", {&cache.view, &one.view, &at.view},
                  {1, 4, 10, 8}, 0, accumulate);
}

/// A lender that runs the chunks itself, in order, and counts its jobs.
struct RecordingLender {
  int jobs = 0;
  int64_t lastChunk = 0;
  static void parallelize(void *impl, int64_t count, int64_t chunk,
                          optimized::ThreadPool::Task task,
                          const void *context) {
    auto *self = static_cast<RecordingLender *>(impl);
    ++self->jobs;
    self->lastChunk = chunk;
    for (int64_t begin = 0; begin < count; begin += chunk)
      task(context, begin, std::min(begin + chunk, count));
  }
};

TEST(ThreadPool, ALentPoolTakesTheJobsUntilGivenBack) {
  optimized::ThreadPool &pool = optimized::ThreadPool::shared();
  RecordingLender lender, other;
  pool.borrow({&lender, 2, RecordingLender::parallelize});
  pool.resize(3); // remembered while lent: the lender's threads run jobs
  EXPECT_EQ(pool.threads(), 1u);
  EXPECT_EQ(pool.concurrency(), 2u);
  std::vector<std::atomic<int>> hits(100);
  auto count = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      hits[i].fetch_add(1);
  };
  pool.parallelFor(100, 7, count);
  EXPECT_EQ(lender.jobs, 1);
  EXPECT_GE(lender.lastChunk, 7);
  pool.parallelFor(5, 10, count); // one chunk: runs on the caller
  EXPECT_EQ(lender.jobs, 1);
  pool.giveBack(&other); // not the lender: nothing changes
  pool.parallelFor(100, 7, count);
  EXPECT_EQ(lender.jobs, 2);
  pool.giveBack(&lender);
  EXPECT_EQ(pool.threads(), 3u);
  EXPECT_EQ(pool.concurrency(), 3u);
  pool.parallelFor(100, 7, count);
  EXPECT_EQ(lender.jobs, 2);
  for (int64_t i = 0; i < 100; ++i)
    ASSERT_EQ(hits[i].load(), i < 5 ? 4 : 3) << i;
}

TEST(ThreadPool, AnObserverSeesEveryChunkOnItsThread) {
  optimized::ThreadPool &pool = optimized::ThreadPool::shared();
  pool.resize(3);
  // Chunks per thread as the tasks count them and as the observer does.
  struct Counts {
    std::mutex mutex;
    std::map<std::thread::id, int> chunks;
    bool ordered = true;
    void add() {
      std::lock_guard<std::mutex> lock(mutex);
      ++chunks[std::this_thread::get_id()];
    }
  } ran, seen;
  optimized::ThreadPool::ChunkObserver observer{
      [](void *context, uint64_t start, uint64_t end) {
        auto &seen = *static_cast<Counts *>(context);
        seen.add();
        seen.ordered &= start <= end;
      },
      &seen};
  pool.setChunkObserver(&observer);
  std::atomic<int64_t> covered{0};
  pool.parallelFor(4096, 1, [&](int64_t begin, int64_t end) {
    covered.fetch_add(end - begin);
    ran.add();
  });
  pool.setChunkObserver(nullptr);
  EXPECT_EQ(covered.load(), 4096);
  EXPECT_GT(ran.chunks.size(), 0u);
  EXPECT_EQ(seen.chunks, ran.chunks); // every chunk once, on its thread
  EXPECT_TRUE(seen.ordered);
  // Cleared: jobs run unobserved again.
  std::map<std::thread::id, int> before = seen.chunks;
  pool.parallelFor(64, 1, [](int64_t, int64_t) {});
  EXPECT_EQ(seen.chunks, before);
  pool.resize(1);
}

TEST(ThreadPool, EveryIndexRunsOnce) {
  optimized::ThreadPool &pool = optimized::ThreadPool::shared();
  pool.resize(3);
  for (int64_t count : {1, 2, 7, 64, 1000})
    for (int64_t grain : {1, 5, 2000}) {
      std::vector<std::atomic<int>> hits(count);
      pool.parallelFor(count, grain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i)
          hits[i].fetch_add(1);
      });
      for (int64_t i = 0; i < count; ++i)
        ASSERT_EQ(hits[i].load(), 1) << "count " << count << " index " << i;
    }
  // A job started while another runs (another thread's method) runs whole
  // on its caller.
  std::atomic<int> inner{0};
  pool.parallelFor(2, 1, [&](int64_t, int64_t) {
    pool.parallelFor(10, 1, [&](int64_t begin, int64_t end) {
      inner.fetch_add(static_cast<int>(end - begin));
    });
  });
  EXPECT_EQ(inner.load(), 20);
  pool.resize(1);
  EXPECT_EQ(pool.threads(), 1u);
}

} // namespace
} // namespace etch::runtime::testing
