//===- conv_kernels_bench.cpp - f32 convolutions against the FMA peak -----===//
//
//   etch-conv-kernels-bench [--threads N] [--rounds R] [--layers a,b,...]
//   etch-conv-kernels-bench peak avx2|avx512   # GFLOP/s of one core
//
// Measures this CPU's f32 FMA peak (independent FMA chains in registers,
// per core, for the ISA etch runs under ETCH_CPU_ISA), then times every
// convolution and linear layer shape of the table below with etch's
// PackedConvolution and with XNNPACK's convolution operator on the same
// NHWC data, alternating them over R rounds (median), and prints GFLOP/s,
// the fraction of the peak (times the threads used) and etch / XNNPACK.
// XNNPACK's view of the ISA follows ETCH_CPU_ISA as its delegate's does
// (the capped cpuinfo view). Figures, not a test.
//
//===----------------------------------------------------------------------===//
#include "runtime/kernels/optimized/CpuFeatures.h"
#include "runtime/kernels/optimized/PackedConvolution.h"
#include "runtime/kernels/optimized/ThreadPool.h"
#include "runtime/platform/Platform.h"

#include <cpuinfo.h>
#include <immintrin.h>
#include <pthreadpool.h>
#include <xnnpack.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace etch::runtime;
using optimized::ConvGeometry;
using optimized::PackedConvolution;

namespace {

double seconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// 12 independent FMA chains (FMA latency 4-5 cycles x 2 ports) in the
/// registers R ("ymm" or "zmm"): inline assembly, so no compiler keeps them
/// in memory.
// clang-format off
#define ETCH_FMA(R, N) "vfmadd231ps %%" R "0, %%" R "1, %%" R N "\n"
#define ETCH_PEAK_LOOP(R)                                                      \
  "vxorps %%" R "0, %%" R "0, %%" R "0\n"                                      \
  "vxorps %%" R "1, %%" R "1, %%" R "1\n"                                      \
  "1:\n"                                                                       \
  ETCH_FMA(R, "2") ETCH_FMA(R, "3") ETCH_FMA(R, "4") ETCH_FMA(R, "5")          \
  ETCH_FMA(R, "6") ETCH_FMA(R, "7") ETCH_FMA(R, "8") ETCH_FMA(R, "9")          \
  ETCH_FMA(R, "10") ETCH_FMA(R, "11") ETCH_FMA(R, "12") ETCH_FMA(R, "13")      \
  "dec %0\n"                                                                   \
  "jnz 1b\n"                                                                   \
  "vzeroupper\n"
// clang-format on
#define ETCH_PEAK_CLOBBERS                                                     \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",      \
      "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "cc"

__attribute__((target("avx2,fma"))) void peakAvx2(int64_t iterations) {
  __asm__ volatile(ETCH_PEAK_LOOP("ymm")
                   : "+r"(iterations)
                   :
                   : ETCH_PEAK_CLOBBERS);
}

__attribute__((target("avx512f"))) void peakAvx512(int64_t iterations) {
  __asm__ volatile(ETCH_PEAK_LOOP("zmm")
                   : "+r"(iterations)
                   :
                   : ETCH_PEAK_CLOBBERS);
}

/// GFLOP/s of one core at \p isa: the best of a few timed bursts.
double peakGflops(const char *isa) {
  bool wide = std::strcmp(isa, "avx512") == 0;
  int lanes = wide ? 16 : 8;
  const int64_t iterations = 20'000'000;
  double best = 0;
  for (int burst = 0; burst < 5; ++burst) {
    double start = seconds();
    wide ? peakAvx512(iterations) : peakAvx2(iterations);
    double elapsed = seconds() - start;
    best = std::max(best, 12.0 * lanes * 2 * iterations / elapsed / 1e9);
  }
  return best;
}

struct Layer {
  const char *name;
  int64_t size, in, out, kernel, stride, pad, groups;
  int64_t rows = 0; // fully connected: rows x in -> rows x out
};

// resnet18's convolutions, a resnet50 bottleneck, mobilenet_v2's stem and
// pointwise layers, efficientnet_b0's shallow expansions, regnet's grouped
// 3x3, convnext_tiny's linears, a classifier.
const Layer kLayers[] = {
    {"resnet18.conv1", 224, 3, 64, 7, 2, 3, 1},
    {"resnet18.layer1", 56, 64, 64, 3, 1, 1, 1},
    {"resnet18.layer2.0", 56, 64, 128, 3, 2, 1, 1},
    {"resnet18.layer2", 28, 128, 128, 3, 1, 1, 1},
    {"resnet18.layer2.ds", 56, 64, 128, 1, 2, 0, 1},
    {"resnet18.layer3", 14, 256, 256, 3, 1, 1, 1},
    {"resnet18.layer4", 7, 512, 512, 3, 1, 1, 1},
    {"resnet50.expand", 56, 64, 256, 1, 1, 0, 1},
    {"resnet50.reduce", 56, 256, 64, 1, 1, 0, 1},
    {"mobilenet_v2.stem", 224, 3, 32, 3, 2, 1, 1},
    {"mobilenet_v2.project16", 112, 32, 16, 1, 1, 0, 1},
    {"mobilenet_v2.expand16", 112, 16, 96, 1, 1, 0, 1},
    {"mobilenet_v2.expand24", 56, 24, 144, 1, 1, 0, 1},
    {"mobilenet_v2.pw", 28, 32, 192, 1, 1, 0, 1},
    {"efficientnet_b0.expand40", 28, 40, 240, 1, 1, 0, 1},
    {"efficientnet_b0.expand80", 14, 80, 480, 1, 1, 0, 1},
    {"efficientnet_b0.expand112", 14, 112, 672, 1, 1, 0, 1},
    {"mobilenet_v2.project", 14, 384, 64, 1, 1, 0, 1},
    {"regnet.grouped", 28, 64, 64, 3, 1, 1, 4},
    {"convnext.fc1", 0, 96, 384, 1, 1, 0, 1, 3136},
    {"convnext.fc2", 0, 384, 96, 1, 1, 0, 1, 3136},
    {"classifier", 0, 512, 1000, 1, 1, 0, 1, 1},
};

ConvGeometry geometryOf(const Layer &l) {
  if (l.rows)
    return ConvGeometry::fullyConnected(l.rows, l.in, l.out);
  ConvGeometry g;
  g.height = g.width = l.size;
  g.inChannels = l.in;
  g.outChannels = l.out;
  g.kernelHeight = g.kernelWidth = l.kernel;
  g.strideHeight = g.strideWidth = l.stride;
  g.padTop = g.padLeft = l.pad;
  g.groups = l.groups;
  g.outHeight = g.outWidth = (l.size + 2 * l.pad - l.kernel) / l.stride + 1;
  return g;
}

/// cpuinfo's view capped as the XNNPACK delegate caps it (ETCH_CPU_ISA).
void initializeXnnpack() {
  using optimized::isaAllowed;
  if (cpuinfo_initialize()) {
    if (!isaAllowed("avx512"))
      cpuinfo_isa.avx512f = cpuinfo_isa.avx512bw = cpuinfo_isa.avx512dq =
          cpuinfo_isa.avx512vl = cpuinfo_isa.avx512cd = cpuinfo_isa.avx512vnni =
              false;
    if (!isaAllowed("avx2"))
      cpuinfo_isa.avx = cpuinfo_isa.avx2 = cpuinfo_isa.fma3 = false;
  }
  xnn_initialize(nullptr);
}

/// The kernel pool's jobs on XNNPACK's pthreadpool, as the XNNPACK
/// delegate lends it (two pools spinning on the same cores would slow both).
struct KernelJob {
  optimized::ThreadPool::Task task;
  const void *context;
};

void lendPool(pthreadpool_t pool) {
  auto parallelize = [](void *impl, int64_t count, int64_t chunk,
                        optimized::ThreadPool::Task task,
                        const void *context) {
    KernelJob job{task, context};
    pthreadpool_parallelize_1d_tile_1d(
        static_cast<pthreadpool_t>(impl),
        [](void *j, size_t start, size_t tile) {
          auto *k = static_cast<const KernelJob *>(j);
          k->task(k->context, static_cast<int64_t>(start),
                  static_cast<int64_t>(start + tile));
        },
        &job, static_cast<size_t>(count), static_cast<size_t>(chunk), 0);
  };
  optimized::ThreadPool::shared().borrow(
      {pool, pthreadpool_get_threads_count(pool), parallelize});
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 3 && std::strcmp(argv[1], "peak") == 0) {
    const char *isa = argv[2];
    bool known =
        std::strcmp(isa, "avx2") == 0 || std::strcmp(isa, "avx512") == 0;
    if (!known || !optimized::cpuHasIsa(isa)) {
      std::fprintf(stderr, "%s: this CPU (under ETCH_CPU_ISA) has no %s\n",
                   argv[0], isa);
      return 1;
    }
    std::printf("%.1f\n", peakGflops(isa));
    return 0;
  }
  int threads = 1, rounds = 5;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--threads")
      threads = std::atoi(argv[i + 1]);
    else if (flag == "--rounds")
      rounds = std::atoi(argv[i + 1]);
    else if (flag == "--layers")
      only = "," + std::string(argv[i + 1]) + ",";
    else {
      std::fprintf(stderr,
                   "usage: %s [--threads N] [--rounds R] "
                   "[--layers a,b]\n",
                   argv[0]);
      return 2;
    }
  }
  optimized::ThreadPool::shared().resize(threads);
  initializeXnnpack();
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  if (pool)
    lendPool(pool);
  const char *isa = optimized::widestIsa();
  bool wide =
      std::strcmp(isa, "avx512") == 0 || std::strcmp(isa, "avx512vnni") == 0;
  double peak = std::strcmp(isa, "scalar") == 0
                    ? 0
                    : peakGflops(wide ? "avx512" : "avx2");
  std::printf("ISA %s (etch micro-kernel %s); FMA peak %.1f GFLOP/s per core; "
              "%d thread(s); median of %d alternating rounds\n",
              isa, PackedConvolution::isa(), peak, threads, rounds);
  std::printf("| layer | etch ms | GFLOP/s | of peak | XNNPACK ms | GFLOP/s | "
              "of peak | etch/XNNPACK |\n|---|---|---|---|---|---|---|---|\n");
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  double etchTotal = 0, xnnTotal = 0;
  for (const Layer &layer : kLayers) {
    if (!only.empty() &&
        only.find("," + std::string(layer.name) + ",") == std::string::npos)
      continue;
    ConvGeometry g = geometryOf(layer);
    int64_t pixels = g.batch * g.outHeight * g.outWidth;
    std::vector<float> in(g.batch * g.height * g.width * g.inChannels);
    std::vector<float> weights(g.outChannels * g.kernelHeight * g.kernelWidth *
                               g.inChannels / g.groups);
    std::vector<float> bias(g.outChannels), etchOut(pixels * g.outChannels),
        xnnOut(etchOut.size() + 16);
    for (float &v : in)
      v = normal(rng);
    for (float &v : weights)
      v = 0.1f * normal(rng);
    for (float &v : bias)
      v = normal(rng);
    PlatformBlock storage =
        allocatePlatformBlock(PackedConvolution::packedBytes(g), 64);
    PackedConvolution conv(g, weights.data(), bias.data(),
                           reinterpret_cast<float *>(storage.get()));
    xnn_operator_t op = nullptr;
    if (layer.rows) {
      xnn_create_fully_connected_nc_f32(
          g.inChannels, g.outChannels, g.inChannels, g.outChannels,
          weights.data(), bias.data(), 0.0f, INFINITY, 0, &op);
      xnn_setup_fully_connected_nc_f32(op, layer.rows, in.data(), xnnOut.data(),
                                       pool);
    } else {
      xnn_create_convolution2d_nhwc_f32(
          g.padTop, g.padLeft, g.padTop, g.padLeft, g.kernelHeight,
          g.kernelWidth, g.strideHeight, g.strideWidth, 1, 1, g.groups,
          g.inChannels / g.groups, g.outChannels / g.groups, g.inChannels,
          g.outChannels, weights.data(), bias.data(), 0.0f, INFINITY, 0, &op);
      xnn_setup_convolution2d_nhwc_f32(op, 1, g.height, g.width, in.data(),
                                       xnnOut.data(), pool);
    }
    double flops = 2.0 * pixels * g.outChannels * g.kernelHeight *
                   g.kernelWidth * g.inChannels / g.groups;
    int repeats = std::max(1, static_cast<int>(2e8 / flops));
    std::vector<double> etchTimes, xnnTimes;
    for (int round = 0; round < rounds; ++round) {
      double start = seconds();
      for (int r = 0; r < repeats; ++r)
        conv.run(in.data(), etchOut.data(), 0.0f, INFINITY);
      etchTimes.push_back((seconds() - start) / repeats);
      start = seconds();
      for (int r = 0; r < repeats; ++r)
        xnn_run_operator(op, pool);
      xnnTimes.push_back((seconds() - start) / repeats);
    }
    double worst = 0;
    for (size_t i = 0; i < etchOut.size(); ++i)
      worst = std::max(worst, std::fabs(double(etchOut[i]) - xnnOut[i]) /
                                  (1.0 + std::fabs(double(xnnOut[i]))));
    double e = median(etchTimes), x = median(xnnTimes);
    etchTotal += e;
    xnnTotal += x;
    auto share = [&](double t) {
      return peak > 0 ? flops / t / 1e9 / (peak * threads) : 0.0;
    };
    std::printf("| %s | %.3f | %.1f | %.2f | %.3f | %.1f | %.2f | %.2f |%s\n",
                layer.name, e * 1e3, flops / e / 1e9, share(e), x * 1e3,
                flops / x / 1e9, share(x), e / x,
                worst > 1e-4 ? " OUTPUTS DIFFER" : "");
    xnn_delete_operator(op);
  }
  std::printf("all layers: etch %.2f ms, XNNPACK %.2f ms, etch/XNNPACK %.2f\n",
              etchTotal * 1e3, xnnTotal * 1e3, etchTotal / xnnTotal);
  if (pool) {
    optimized::ThreadPool::shared().giveBack(pool);
    pthreadpool_destroy(pool);
  }
  return 0;
}
