//===- LibDevice.cpp - libdevice functions for emulated kernels -----------===//
//
// The `__nv_*` functions of CUDA's libdevice that MLIR 22's GPU-to-NVVM
// lowering (`populateLibDeviceConversionPatterns`, MathToNVVM.cpp) can call
// with float or double operands, each defined as the C library function of
// the same meaning, so that kernels compiled for the host by
// `kiln-gpu-emulate-kernels` link and run. The `__nv_fast_*` variants (used
// for `afn` fast-math) are the precise C functions too: the emulator checks
// kernels' logic and numerics, not the GPU's approximation errors (see
// docs/GPUEmulator.md). The predicates return an int, as in libdevice; 0 or
// 1 also reads correctly as the i1 that MLIR declares them with.
//
//===----------------------------------------------------------------------===//

#include <math.h>
#include <stdint.h>

/// `__nv_<name>f(float)` and `__nv_<name>(double)` as <name>f and <name>.
#define KILN_NV_UNARY(name)                                                    \
  extern "C" float __nv_##name##f(float x) { return name##f(x); }              \
  extern "C" double __nv_##name(double x) { return name(x); }

/// The two-operand functions, likewise.
#define KILN_NV_BINARY(name)                                                   \
  extern "C" float __nv_##name##f(float x, float y) { return name##f(x, y); }  \
  extern "C" double __nv_##name(double x, double y) { return name(x, y); }

/// `__nv_fast_<name>f`, the approximate f32 variant, as the precise one.
#define KILN_NV_FAST_UNARY(name)                                               \
  extern "C" float __nv_fast_##name##f(float x) { return name##f(x); }

KILN_NV_UNARY(acos)
KILN_NV_UNARY(acosh)
KILN_NV_UNARY(asin)
KILN_NV_UNARY(asinh)
KILN_NV_UNARY(atan)
KILN_NV_UNARY(atanh)
KILN_NV_UNARY(cbrt)
KILN_NV_UNARY(ceil)
KILN_NV_UNARY(cos)
KILN_NV_UNARY(cosh)
KILN_NV_UNARY(erf)
KILN_NV_UNARY(erfc)
KILN_NV_UNARY(exp)
KILN_NV_UNARY(exp2)
KILN_NV_UNARY(expm1)
KILN_NV_UNARY(fabs)
KILN_NV_UNARY(floor)
KILN_NV_UNARY(log)
KILN_NV_UNARY(log10)
KILN_NV_UNARY(log1p)
KILN_NV_UNARY(log2)
KILN_NV_UNARY(round)
KILN_NV_UNARY(rint)
KILN_NV_UNARY(sin)
KILN_NV_UNARY(sinh)
KILN_NV_UNARY(sqrt)
KILN_NV_UNARY(tan)
KILN_NV_UNARY(tanh)

KILN_NV_BINARY(atan2)
KILN_NV_BINARY(copysign)
KILN_NV_BINARY(fmod)
KILN_NV_BINARY(fmax)
KILN_NV_BINARY(fmin)
KILN_NV_BINARY(pow)

KILN_NV_FAST_UNARY(cos)
KILN_NV_FAST_UNARY(exp)
KILN_NV_FAST_UNARY(log)
KILN_NV_FAST_UNARY(log10)
KILN_NV_FAST_UNARY(log2)
KILN_NV_FAST_UNARY(sin)
KILN_NV_FAST_UNARY(tan)

extern "C" float __nv_fast_powf(float x, float y) { return powf(x, y); }

extern "C" float __nv_fmaf(float x, float y, float z) { return fmaf(x, y, z); }
extern "C" double __nv_fma(double x, double y, double z) {
  return fma(x, y, z);
}

extern "C" float __nv_rsqrtf(float x) { return 1.0f / sqrtf(x); }
extern "C" double __nv_rsqrt(double x) { return 1.0 / sqrt(x); }

extern "C" float __nv_powif(float x, int32_t n) { return powf(x, float(n)); }
extern "C" double __nv_powi(double x, int32_t n) { return pow(x, double(n)); }

extern "C" int32_t __nv_abs(int32_t x) {
  // INT_MIN stays INT_MIN, as on the GPU, without C's overflow.
  return x < 0 ? int32_t(0u - uint32_t(x)) : x;
}

extern "C" int32_t __nv_finitef(float x) { return isfinite(x) ? 1 : 0; }
extern "C" int32_t __nv_isfinited(double x) { return isfinite(x) ? 1 : 0; }
extern "C" int32_t __nv_isinff(float x) { return isinf(x) ? 1 : 0; }
extern "C" int32_t __nv_isinfd(double x) { return isinf(x) ? 1 : 0; }
extern "C" int32_t __nv_isnanf(float x) { return isnan(x) ? 1 : 0; }
extern "C" int32_t __nv_isnand(double x) { return isnan(x) ? 1 : 0; }

extern "C" void __nv_sincosf(float x, float *sine, float *cosine) {
  *sine = sinf(x);
  *cosine = cosf(x);
}
extern "C" void __nv_fast_sincosf(float x, float *sine, float *cosine) {
  __nv_sincosf(x, sine, cosine);
}
extern "C" void __nv_sincos(double x, double *sine, double *cosine) {
  *sine = sin(x);
  *cosine = cos(x);
}
