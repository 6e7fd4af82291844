//===- llm_kernels_bench.cpp - Decode-shaped products, us per call --------===//
//
//   etch-llm-kernels-bench [--threads N] [--rows M] [--iterations I]
//                          [--copies C]
//
// Times linear (f32) and weight_only_linear (int8 per channel, int4 group
// 32) through the kernel registry at the reference Llama's shapes (hidden
// 512, MLP 1408, vocab 32000) with M input rows (1: decoding), and prints
// microseconds per call and the weight bytes streamed per second. With C
// copies of each weight (used in turn) they come from memory, not from
// the caches, as in a real decode step. Figures, not a test: compare side
// by side in one run.
//
//===----------------------------------------------------------------------===//
#include "runtime/kernels/KernelCall.h"
#include "runtime/kernels/portable/WeightPacking.h"
#include "runtime/platform/Platform.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace etch::runtime;

namespace {

struct Buffer {
  TensorView view;
  std::vector<uint8_t> bytes;
  Buffer(ScalarType type, std::vector<int64_t> sizes) {
    view.reset(type, sizes.data(), static_cast<int>(sizes.size()));
    bytes.resize(view.nbytes() + 64);
    view.setData(bytes.data());
  }
};

struct Attribute {
  NamedAttribute entries[2];
  Attribute(int64_t bits, int64_t group) {
    entries[0] = {"bits", {}};
    entries[0].value.kind = AttributeValue::Kind::Int;
    entries[0].value.intValue = bits;
    entries[1] = {"group_size", {}};
    entries[1].value.kind = AttributeValue::Kind::Int;
    entries[1].value.intValue = group;
  }
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

/// Median microseconds of \p iterations runs of \p op after validating it;
/// input \p rotating (the weight) takes each of \p copies in turn.
double timeKernel(const char *op, std::vector<TensorView *> inputs,
                  TensorView *output, Span<const NamedAttribute> attributes,
                  int iterations, size_t rotating,
                  const std::vector<Buffer> &copies) {
  const KernelEntry *entry = findKernel(op);
  KernelCall call;
  call.inputs = Span<TensorView *>(inputs.data(), inputs.size());
  call.outputs = Span<TensorView *>(&output, 1);
  call.attributes = attributes;
  call.opName = op;
  if (!entry || entry->validate(call) != Error::Ok) {
    std::fprintf(stderr, "%s does not validate\n", op);
    std::exit(1);
  }
  std::vector<double> times;
  for (int i = 0; i < iterations; ++i) {
    inputs[rotating]->setData(
        const_cast<uint8_t *>(copies[i % copies.size()].bytes.data()));
    uint64_t start = nowNanoseconds();
    entry->run(call);
    times.push_back((nowNanoseconds() - start) / 1e3);
  }
  return median(times);
}

/// \p copies buffers of \p type and \p sizes with random contents.
std::vector<Buffer> randomCopies(ScalarType type, std::vector<int64_t> sizes,
                                 int copies, std::mt19937 &generator) {
  std::vector<Buffer> buffers;
  for (int c = 0; c < copies; ++c) {
    buffers.emplace_back(type, sizes);
    Buffer &buffer = buffers.back();
    if (type == ScalarType::Float32) {
      std::uniform_real_distribution<float> real(-1, 1);
      for (int64_t i = 0; i < buffer.view.numel(); ++i)
        buffer.view.data<float>()[i] = real(generator);
    } else {
      for (size_t i = 0; i < buffer.view.nbytes(); ++i)
        buffer.view.data<uint8_t>()[i] = generator() & 0xFF;
    }
  }
  return buffers;
}

} // namespace

int main(int argc, char **argv) {
  int64_t rows = 1;
  int iterations = 200, copies = 1;
  size_t threads = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--threads") == 0)
      threads = static_cast<size_t>(std::atoi(argv[i + 1]));
    else if (std::strcmp(argv[i], "--rows") == 0)
      rows = std::atoll(argv[i + 1]);
    else if (std::strcmp(argv[i], "--iterations") == 0)
      iterations = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--copies") == 0)
      copies = std::max(1, std::atoi(argv[i + 1]));
  }
  prepareKernels(threads);
  std::mt19937 generator(7);
  std::uniform_real_distribution<float> real(-1, 1);
  std::printf("%-8s %-14s %10s %10s\n", "kind", "shape [N, K]", "us", "GB/s");
  // The projections, then q/k/v and gate/up as etch-fuse-weight-only-linears
  // stacks them.
  const int64_t shapes[][2] = {{512, 512},   {1408, 512}, {512, 1408},
                               {32000, 512}, {1536, 512}, {2816, 512}};
  for (const auto &shape : shapes) {
    int64_t n = shape[0], k = shape[1];
    Buffer input(ScalarType::Float32, {rows, k});
    for (int64_t i = 0; i < rows * k; ++i)
      input.view.data<float>()[i] = real(generator);
    Buffer output(ScalarType::Float32, {rows, n});
    char label[32];
    std::snprintf(label, sizeof(label), "[%lld, %lld]",
                  static_cast<long long>(n), static_cast<long long>(k));
    // Enough copies that each pass reads memory, not the caches.
    int count = std::max<int64_t>(1, copies * 32 * 512 * 1024 / (n * k * 4));
    {
      std::vector<Buffer> weights =
          randomCopies(ScalarType::Float32, {n, k}, count, generator);
      double us = timeKernel("edge.linear",
                             {&input.view, &weights.front().view},
                             &output.view, {}, iterations, 1, weights);
      std::printf("%-8s %-14s %10.2f %10.1f\n", "f32", label, us,
                  n * k * 4 / us / 1e3);
    }
    for (int bits : {8, 4}) {
      int64_t group = bits == 8 ? k : 32;
      std::vector<Buffer> weights = randomCopies(
          bits == 4 ? ScalarType::UInt8 : ScalarType::Int8,
          {n, weight_packing::rowBytes(bits, k)}, count, generator);
      Buffer scales(ScalarType::Float32, {n, k / group});
      for (int64_t i = 0; i < n * (k / group); ++i)
        scales.view.data<float>()[i] = 0.01f;
      Attribute attributes(bits, group);
      double us = timeKernel(
          "edge.weight_only_linear",
          {&input.view, &weights.front().view, &scales.view, nullptr, nullptr},
          &output.view, Span<const NamedAttribute>(attributes.entries, 2),
          iterations, 1, weights);
      double bytes = weights.front().view.nbytes() + scales.view.nbytes();
      std::printf("%-8s %-14s %10.2f %10.1f\n", bits == 8 ? "int8" : "int4",
                  label, us, bytes / us / 1e3);
    }
  }
  return 0;
}
