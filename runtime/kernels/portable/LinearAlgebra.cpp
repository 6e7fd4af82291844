// convolution (direct and transposed; NCHW and NCDHW), addmm, linear, mm,
// bmm.
#include "runtime/core/WindowExtent.h"
#include "runtime/kernels/portable/KernelSupport.h"
#include "runtime/kernels/portable/Kernels.h"

#include <algorithm>
#include <cstring>

namespace etch::runtime::portable {

namespace {

/// One (input channel, kernel depth tap) contribution to one output depth
/// slice: the 2-D window sums over \p src (an H x W slice) into \p plane.
template <typename T>
void accumulateSlice(const ConvShape &s, const T *src, const T *kernel,
                     T *plane) {
  for (int64_t ky = 0; ky < s.kh; ++ky) {
    for (int64_t kx = 0; kx < s.kw; ++kx) {
      T k = kernel[ky * s.kw + kx];
      // Output columns whose input column lies inside the image.
      int64_t offset = kx * s.dw - s.pw;
      int64_t owLo = offset >= 0 ? 0 : (-offset + s.sw - 1) / s.sw;
      int64_t owHi = s.w - 1 - offset < 0
                         ? 0
                         : std::min(s.ow, (s.w - 1 - offset) / s.sw + 1);
      for (int64_t oy = 0; oy < s.oh; ++oy) {
        int64_t iy = oy * s.sh - s.ph + ky * s.dh;
        if (iy < 0 || iy >= s.h)
          continue;
        const T *row = src + iy * s.w + offset;
        T *dst = plane + oy * s.ow;
        if (s.sw == 1) {
          for (int64_t ox = owLo; ox < owHi; ++ox)
            dst[ox] += k * row[ox];
        } else {
          for (int64_t ox = owLo; ox < owHi; ++ox)
            dst[ox] += k * row[ox * s.sw];
        }
      }
    }
  }
}

template <typename T>
void convolutionPlanesOf(const ConvShape &s, const T *in, const T *weight,
                         const T *bias, T *out) {
  int64_t icPerGroup = s.c / s.groups, ocPerGroup = s.oc / s.groups;
  int64_t inSlice = s.h * s.w, outSlice = s.oh * s.ow, taps = s.kh * s.kw;
  for (int64_t index = 0; index < s.n * s.oc; ++index) {
    int64_t n = index / s.oc, oc = index % s.oc;
    T *volume = out + (n * s.oc + oc) * s.od * outSlice;
    std::fill(volume, volume + s.od * outSlice, bias ? bias[oc] : T(0));
    int64_t group = oc / ocPerGroup;
    for (int64_t icg = 0; icg < icPerGroup; ++icg) {
      int64_t ic = group * icPerGroup + icg;
      const T *src = in + (n * s.c + ic) * s.d * inSlice;
      const T *kernel = weight + (oc * icPerGroup + icg) * s.kd * taps;
      for (int64_t kz = 0; kz < s.kd; ++kz)
        for (int64_t oz = 0; oz < s.od; ++oz) {
          int64_t iz = oz * s.sd - s.pd + kz * s.dd;
          if (iz >= 0 && iz < s.d)
            accumulateSlice(s, src + iz * inSlice, kernel + kz * taps,
                            volume + oz * outSlice);
        }
    }
  }
}

template <typename T>
void convTransposed(const ConvShape &s, const T *in, const T *weight,
                    const T *bias, T *out) {
  int64_t icPerGroup = s.c / s.groups, ocPerGroup = s.oc / s.groups;
  int64_t outVolume = s.od * s.oh * s.ow, inVolume = s.d * s.h * s.w;
  int64_t taps = s.kd * s.kh * s.kw;
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t oc = 0; oc < s.oc; ++oc) {
      T *volume = out + (n * s.oc + oc) * outVolume;
      std::fill(volume, volume + outVolume, bias ? bias[oc] : T(0));
    }
    for (int64_t ic = 0; ic < s.c; ++ic) {
      int64_t group = ic / icPerGroup;
      const T *src = in + (n * s.c + ic) * inVolume;
      for (int64_t ocg = 0; ocg < ocPerGroup; ++ocg) {
        int64_t oc = group * ocPerGroup + ocg;
        T *volume = out + (n * s.oc + oc) * outVolume;
        const T *kernel = weight + (ic * ocPerGroup + ocg) * taps;
        for (int64_t iz = 0; iz < s.d; ++iz)
          for (int64_t iy = 0; iy < s.h; ++iy)
            for (int64_t ix = 0; ix < s.w; ++ix) {
              T x = src[(iz * s.h + iy) * s.w + ix];
              TapRange zs = tapsInside(iz, s.sd, s.pd, s.dd, s.kd, s.od);
              TapRange ys = tapsInside(iy, s.sh, s.ph, s.dh, s.kh, s.oh);
              TapRange xs = tapsInside(ix, s.sw, s.pw, s.dw, s.kw, s.ow);
              for (int64_t kz = zs.first; kz < zs.end; ++kz)
                for (int64_t ky = ys.first; ky < ys.end; ++ky) {
                  int64_t oz = iz * s.sd - s.pd + kz * s.dd;
                  int64_t oy = iy * s.sh - s.ph + ky * s.dh;
                  for (int64_t kx = xs.first; kx < xs.end; ++kx) {
                    int64_t ox = ix * s.sw - s.pw + kx * s.dw;
                    volume[(oz * s.oh + oy) * s.ow + ox] +=
                        x * kernel[(kz * s.kh + ky) * s.kw + kx];
                  }
                }
            }
      }
    }
  }
}

/// out[M,N] (+)= a[M,K] @ b[K,N] with row-major b (inner loop over N).
template <typename T>
void matmulAccumulate(const T *a, const T *b, T *out, int64_t m, int64_t k,
                      int64_t n, T alpha) {
  for (int64_t i = 0; i < m; ++i) {
    T *row = out + i * n;
    for (int64_t p = 0; p < k; ++p) {
      T scale = alpha * a[i * k + p];
      const T *brow = b + p * n;
      for (int64_t j = 0; j < n; ++j)
        row[j] += scale * brow[j];
    }
  }
}

Error checkFloatInputs(const KernelCall &call) {
  for (size_t i = 0; i < call.inputs.size(); ++i)
    if (call.inputs[i] && call.inputs[i]->scalarType() != ScalarType::Float32)
      return kernelError(call, Error::NotSupported,
                         "input #%zu is %s; the portable kernel takes float32",
                         i, scalarTypeName(call.inputs[i]->scalarType()));
  return checkType(call, call.outputs[0], "output", ScalarType::Float32);
}

/// Products (mm, bmm, convolution) also compute in float64 (ONNX models
/// do): every operand of one floating type.
Error checkProductTypes(const KernelCall &call) {
  ScalarType type = call.inputs[0]->scalarType();
  if (type != ScalarType::Float64)
    return checkFloatInputs(call);
  for (size_t i = 1; i < call.inputs.size(); ++i)
    ET_CHECK_OK(checkType(call, call.inputs[i], "input", type));
  return checkType(call, call.outputs[0], "output", type);
}

Error checkRank(const KernelCall &call, const TensorView *tensor,
                const char *what, int rank) {
  if (tensor->rank() != rank)
    return kernelError(call, Error::InvalidShape,
                       "%s must have rank %d, got %d", what, rank,
                       tensor->rank());
  return Error::Ok;
}

} // namespace

Error validateConvolution(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 2, 3, 1));
  ET_CHECK_OK(checkProductTypes(call));
  return checkConvolutionShapes(call);
}

Error validateConvolution3d(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 2, 3, 1));
  ET_CHECK_OK(checkProductTypes(call));
  return checkConvolutionShapes(call, 3);
}

Error checkConvolutionShapes(const KernelCall &call, int spatial) {
  const TensorView &in = *call.inputs[0], &weight = *call.inputs[1];
  int rank = spatial + 2;
  ET_CHECK_OK(checkRank(call, &in, "input", rank));
  ET_CHECK_OK(checkRank(call, &weight, "weight", rank));
  ET_CHECK_OK(checkRank(call, call.outputs[0], "output", rank));
  for (const char *name : {"stride", "padding", "dilation"})
    if (call.intsAttr(name).size() != static_cast<size_t>(spatial))
      return kernelError(call, Error::InvalidProgram,
                         "attribute %s must have %d entries", name, spatial);
  Span<const int64_t> outputPadding = call.intsAttr("output_padding");
  if (!outputPadding.empty() &&
      outputPadding.size() != static_cast<size_t>(spatial))
    return kernelError(call, Error::InvalidProgram,
                       "attribute output_padding must have %d entries",
                       spatial);
  Span<const int64_t> stride = call.intsAttr("stride");
  Span<const int64_t> padding = call.intsAttr("padding");
  Span<const int64_t> dilation = call.intsAttr("dilation");
  int64_t groups = call.intAttr("groups", 1);
  bool transposed = call.boolAttr("transposed", false);
  int64_t channels = in.size(1);
  for (int i = 0; i < spatial; ++i)
    if (stride[i] < 1 || dilation[i] < 1 || padding[i] < 0)
      return kernelError(call, Error::InvalidProgram,
                         "invalid stride/padding/dilation/groups");
  int64_t outChannels = transposed ? weight.size(1) * groups : weight.size(0);
  if (groups < 1 || channels % groups || outChannels % groups)
    return kernelError(call, Error::InvalidProgram,
                       "invalid stride/padding/dilation/groups");
  int64_t expected[kMaxRank] = {in.size(0), outChannels};
  int64_t weightShape[kMaxRank] = {transposed ? channels : outChannels,
                                   transposed ? outChannels / groups
                                              : channels / groups};
  for (int i = 0; i < spatial; ++i) {
    int64_t kernel = weight.size(2 + i);
    weightShape[2 + i] = kernel;
    expected[2 + i] =
        transposed
            ? transposedWindowExtent(
                  in.size(2 + i), kernel, stride[i], padding[i], dilation[i],
                  outputPadding.empty() ? 0 : outputPadding[i])
            : windowExtent(in.size(2 + i), kernel, stride[i], padding[i],
                           dilation[i], false);
    if (expected[2 + i] < 1)
      return kernelError(call, Error::InvalidProgram,
                         "the convolution window does not fit the input");
  }
  ET_CHECK_OK(checkShape(call, &weight, "weight", weightShape, rank));
  if (const TensorView *bias = call.input(2)) {
    int64_t biasShape[1] = {outChannels};
    ET_CHECK_OK(checkShape(call, bias, "bias", biasShape, 1));
  }
  return checkShape(call, call.outputs[0], "output", expected, rank);
}

void runConvolution(const KernelCall &call) {
  ConvShape s = convShape(call);
  const TensorView *bias = call.input(2);
  // float32, or float64 where ONNX's integer convolutions compute exactly.
  visitFloatType(call.inputs[0]->scalarType(), [&](auto *type) {
    using T = std::remove_pointer_t<decltype(type)>;
    const T *biasData = bias ? bias->data<T>() : nullptr;
    if (s.transposed)
      convTransposed(s, call.inputs[0]->data<T>(), call.inputs[1]->data<T>(),
                     biasData, call.outputs[0]->data<T>());
    else
      convolutionPlanesOf(s, call.inputs[0]->data<T>(),
                          call.inputs[1]->data<T>(), biasData,
                          call.outputs[0]->data<T>());
  });
}

void runConvolution3d(const KernelCall &call) { runConvolution(call); }

Error validateLinalgDet(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 1, 1, 3));
  const TensorView &a = *call.inputs[0];
  ScalarType type = a.scalarType();
  if (type != ScalarType::Float64)
    ET_CHECK_OK(checkType(call, &a, "A", ScalarType::Float32));
  int r = a.rank();
  if (r < 2 || a.size(r - 1) != a.size(r - 2))
    return kernelError(call, Error::InvalidShape, "A must be [..., n, n]");
  ET_CHECK_OK(checkType(call, call.outputs[0], "result", type));
  ET_CHECK_OK(checkType(call, call.outputs[1], "LU", type));
  ET_CHECK_OK(checkType(call, call.outputs[2], "pivots", ScalarType::Int32));
  ET_CHECK_OK(checkShape(call, call.outputs[0], "result", a.sizes(), r - 2));
  ET_CHECK_OK(checkShape(call, call.outputs[1], "LU", a.sizes(), r));
  return checkShape(call, call.outputs[2], "pivots", a.sizes(), r - 1);
}

/// Gaussian elimination with partial pivoting in LU (a copy of A), one
/// matrix at a time; the determinant is the diagonal's product, its sign
/// flipped per row swap.
void runLinalgDet(const KernelCall &call) {
  const TensorView &a = *call.inputs[0];
  int64_t n = a.size(a.rank() - 1);
  int64_t matrices = n ? a.numel() / (n * n) : call.outputs[0]->numel();
  int32_t *pivots = call.outputs[2]->data<int32_t>();
  visitFloatType(a.scalarType(), [&](auto *type) {
    using T = std::remove_pointer_t<decltype(type)>;
    T *lu = call.outputs[1]->data<T>();
    T *det = call.outputs[0]->data<T>();
    std::copy(a.data<T>(), a.data<T>() + a.numel(), lu);
    for (int64_t m = 0; m < matrices; ++m) {
      T *mat = lu + m * n * n;
      int32_t *pivot = pivots + m * n;
      T product = 1;
      for (int64_t k = 0; k < n; ++k) {
        int64_t best = k;
        for (int64_t i = k + 1; i < n; ++i)
          if (std::abs(mat[i * n + k]) > std::abs(mat[best * n + k]))
            best = i;
        pivot[k] = static_cast<int32_t>(best + 1);
        if (best != k) {
          std::swap_ranges(mat + k * n, mat + k * n + n, mat + best * n);
          product = -product;
        }
        T diagonal = mat[k * n + k];
        product *= diagonal;
        if (diagonal == 0)
          continue; // singular: the product is 0 already
        for (int64_t i = k + 1; i < n; ++i) {
          T factor = mat[i * n + k] / diagonal;
          mat[i * n + k] = factor;
          for (int64_t j = k + 1; j < n; ++j)
            mat[i * n + j] -= factor * mat[k * n + j];
        }
      }
      det[m] = product;
    }
  });
}

/// \p a (named \p aName) times mat2 \p b: both 2-D, the contraction sizes
/// agree, and the output is [a rows, b columns].
static Error checkMatrixProduct(const KernelCall &call, const TensorView &a,
                                const char *aName, const TensorView &b) {
  ET_CHECK_OK(checkRank(call, &a, aName, 2));
  ET_CHECK_OK(checkRank(call, &b, "mat2", 2));
  if (a.size(1) != b.size(0))
    return kernelError(call, Error::InvalidShape, "contraction sizes differ");
  int64_t expected[2] = {a.size(0), b.size(1)};
  return checkShape(call, call.outputs[0], "output", expected, 2);
}

Error validateMm(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 2, 2, 1));
  ET_CHECK_OK(checkProductTypes(call));
  return checkMatrixProduct(call, *call.inputs[0], "self", *call.inputs[1]);
}

void runMm(const KernelCall &call) {
  const TensorView &a = *call.inputs[0], &b = *call.inputs[1];
  TensorView &out = *call.outputs[0];
  std::memset(out.data(), 0, out.nbytes());
  visitFloatType(a.scalarType(), [&](auto *type) {
    using T = std::remove_pointer_t<decltype(type)>;
    matmulAccumulate(a.data<T>(), b.data<T>(), out.data<T>(), a.size(0),
                     a.size(1), b.size(1), T(1));
  });
}

Error validateBmm(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 2, 2, 1));
  ET_CHECK_OK(checkProductTypes(call));
  const TensorView &a = *call.inputs[0], &b = *call.inputs[1];
  ET_CHECK_OK(checkRank(call, &a, "self", 3));
  ET_CHECK_OK(checkRank(call, &b, "mat2", 3));
  if (a.size(0) != b.size(0) || a.size(2) != b.size(1))
    return kernelError(call, Error::InvalidShape,
                       "batch or contraction sizes differ");
  int64_t expected[3] = {a.size(0), a.size(1), b.size(2)};
  return checkShape(call, call.outputs[0], "output", expected, 3);
}

void runBmm(const KernelCall &call) {
  const TensorView &a = *call.inputs[0], &b = *call.inputs[1];
  TensorView &out = *call.outputs[0];
  std::memset(out.data(), 0, out.nbytes());
  int64_t m = a.size(1), k = a.size(2), n = b.size(2);
  visitFloatType(a.scalarType(), [&](auto *type) {
    using T = std::remove_pointer_t<decltype(type)>;
    for (int64_t batch = 0; batch < a.size(0); ++batch)
      matmulAccumulate(a.data<T>() + batch * m * k, b.data<T>() + batch * k * n,
                       out.data<T>() + batch * m * n, m, k, n, T(1));
  });
}

Error validateGroupedMm(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 3, 3, 1));
  const TensorView &input = *call.inputs[0], &weight = *call.inputs[1],
                   &offs = *call.inputs[2];
  ET_CHECK_OK(checkFloatType(call, input, "input"));
  ScalarType type = input.scalarType();
  ET_CHECK_OK(checkType(call, &weight, "weight", type));
  if (offs.scalarType() != ScalarType::Int32 &&
      offs.scalarType() != ScalarType::Int64)
    return kernelError(call, Error::InvalidType,
                       "offs is %s, expected int32 or int64",
                       scalarTypeName(offs.scalarType()));
  ET_CHECK_OK(checkRank(call, &input, "input", 2));
  ET_CHECK_OK(checkRank(call, &weight, "weight", 3));
  ET_CHECK_OK(checkRank(call, &offs, "offs", 1));
  if (input.size(1) != weight.size(1) || weight.size(0) != offs.size(0))
    return kernelError(call, Error::InvalidShape,
                       "input [S, K], weight [G, K, N] and offs [G] disagree");
  ET_CHECK_OK(checkType(call, call.outputs[0], "output", type));
  int64_t expected[2] = {input.size(0), weight.size(2)};
  return checkShape(call, call.outputs[0], "output", expected, 2);
}

void runGroupedMm(const KernelCall &call) {
  const TensorView &input = *call.inputs[0], &weight = *call.inputs[1],
                   &offs = *call.inputs[2];
  TensorView &out = *call.outputs[0];
  std::memset(out.data(), 0, out.nbytes());
  int64_t rows = input.size(0), k = input.size(1), n = weight.size(2);
  // Counts are data: each group's rows are cut to [previous end, rows).
  auto end = [&](int64_t g) {
    int64_t value = offs.scalarType() == ScalarType::Int32
                        ? offs.data<int32_t>()[g]
                        : offs.data<int64_t>()[g];
    return std::clamp<int64_t>(value, 0, rows);
  };
  visitFloatType(input.scalarType(), [&](auto *type) {
    using T = std::remove_pointer_t<decltype(type)>;
    int64_t start = 0;
    for (int64_t g = 0; g < weight.size(0); ++g) {
      int64_t stop = std::max(start, end(g));
      matmulAccumulate(input.data<T>() + start * k,
                       weight.data<T>() + g * k * n, out.data<T>() + start * n,
                       stop - start, k, n, T(1));
      start = stop;
    }
  });
}

Error validateAddmm(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 3, 3, 1));
  ET_CHECK_OK(checkFloatInputs(call));
  ET_CHECK_OK(
      checkMatrixProduct(call, *call.inputs[1], "mat1", *call.inputs[2]));
  int64_t strides[kMaxRank];
  if (!broadcastStrides(*call.inputs[0], *call.outputs[0], strides))
    return kernelError(call, Error::InvalidShape,
                       "self does not broadcast to the output");
  return Error::Ok;
}

void runAddmm(const KernelCall &call) {
  const TensorView &bias = *call.inputs[0], &a = *call.inputs[1],
                   &b = *call.inputs[2];
  TensorView &out = *call.outputs[0];
  float beta = static_cast<float>(call.doubleAttr("beta", 1.0));
  float alpha = static_cast<float>(call.doubleAttr("alpha", 1.0));
  int64_t m = a.size(0), n = b.size(1);
  int64_t strides[kMaxRank];
  broadcastStrides(bias, out, strides);
  float *dst = out.data<float>();
  const float *src = bias.data<float>();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      dst[i * n + j] = beta * src[i * strides[0] + j * strides[1]];
  matmulAccumulate(a.data<float>(), b.data<float>(), dst, m, a.size(1), n,
                   alpha);
}

Error validateLinear(const KernelCall &call) {
  ET_CHECK_OK(checkArity(call, 2, 3, 1));
  ET_CHECK_OK(checkFloatInputs(call));
  return checkLinearShapes(call);
}

Error checkLinearShapes(const KernelCall &call) {
  const TensorView &in = *call.inputs[0], &weight = *call.inputs[1];
  const TensorView &out = *call.outputs[0];
  ET_CHECK_OK(checkRank(call, &weight, "weight", 2));
  if (in.rank() < 1 || in.size(in.rank() - 1) != weight.size(1))
    return kernelError(call, Error::InvalidShape,
                       "input features differ from weight dim 1");
  int64_t expected[kMaxRank];
  for (int d = 0; d < in.rank() - 1; ++d)
    expected[d] = in.size(d);
  expected[in.rank() - 1] = weight.size(0);
  if (const TensorView *bias = call.input(2)) {
    int64_t biasShape[1] = {weight.size(0)};
    ET_CHECK_OK(checkShape(call, bias, "bias", biasShape, 1));
  }
  return checkShape(call, &out, "output", expected, in.rank());
}

void runLinear(const KernelCall &call) {
  const TensorView &in = *call.inputs[0], &weight = *call.inputs[1];
  const TensorView *bias = call.input(2);
  int64_t k = weight.size(1), n = weight.size(0);
  int64_t rows = k ? in.numel() / k : 0;
  const float *x = in.data<float>(), *w = weight.data<float>();
  const float *b = bias ? bias->data<float>() : nullptr;
  float *out = call.outputs[0]->data<float>();
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = x + r * k;
    for (int64_t j = 0; j < n; ++j) {
      const float *wj = w + j * k;
      // Four partial sums let the compiler keep several FMAs in flight.
      float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      int64_t p = 0;
      for (; p + 4 <= k; p += 4) {
        s0 += xr[p] * wj[p];
        s1 += xr[p + 1] * wj[p + 1];
        s2 += xr[p + 2] * wj[p + 2];
        s3 += xr[p + 3] * wj[p + 3];
      }
      for (; p < k; ++p)
        s0 += xr[p] * wj[p];
      out[r * n + j] = (s0 + s1) + (s2 + s3) + (b ? b[j] : 0.0f);
    }
  }
}

} // namespace etch::runtime::portable
