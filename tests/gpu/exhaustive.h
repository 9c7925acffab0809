// The per-word transforms of stream v1, evaluated over all 2^32 inputs and
// hashed, on the CPU (here) and on the GPU (test_cuda.cu): equal hashes mean
// the GPU build of the core computes every one of those values bit for bit
// as the CPU does.
//
// Hash of a transform T with k outputs per input x (each a bit pattern v_j(x),
// zero-extended to 64 bits):
//   H = sum over x < 2^32, j < k of term(k*x + j, v_j(x))   (mod 2^64)
//   term(i, v) = mix(mix(i + 0x9e3779b97f4a7c15) ^ v),  mix = splitmix64's finaliser.
// The sum is order-independent, so any split over threads or GPU blocks gives
// the same H, and every (position, value) pair enters it through a bijective
// mixer, so a changed value changes H except with probability ~2^-64.
#pragma once

#include "rng/detail/rows.h"

namespace xrng_test {

XRNG_HD XRNG_INLINE uint64_t mix64(uint64_t z) {
  z ^= z >> 30;
  z *= 0xbf58476d1ce4e5b9ull;
  z ^= z >> 27;
  z *= 0x94d049bb133111ebull;
  z ^= z >> 31;
  return z;
}
XRNG_HD XRNG_INLINE uint64_t hash_term(uint64_t i, uint64_t v) { return mix64(mix64(i + 0x9e3779b97f4a7c15ull) ^ v); }

// ---- the transforms ----------------------------------------------------------------------
// Box-Muller radius sqrt(-2 log((a + 1/2) 2^-32)) of the f32/f16/bf16 normals.
struct RadiusT {
  static constexpr int kOut = 1;
  static constexpr const char* kName = "box_muller_radius<32>";
  XRNG_HD void operator()(uint32_t x, uint64_t* v) const {
    v[0] = xrng::math::as_u64(xrng::math::box_muller_radius<32, double, uint64_t>(x));
  }
};
// cos and sin of 2 pi b 2^-32.
struct SincosT {
  static constexpr int kOut = 2;
  static constexpr const char* kName = "sincos_turns<32>";
  XRNG_HD void operator()(uint32_t x, uint64_t* v) const {
    double c, s;
    xrng::math::sincos_turns<32, double, uint64_t>(x, &c, &s);
    v[0] = xrng::math::as_u64(c);
    v[1] = xrng::math::as_u64(s);
  }
};
// Uniform word transforms with prepared parameters (unit or affine).
struct UniformF32T {
  static constexpr int kOut = 1;
  static constexpr const char* kName = "uniform_f32";
  xrng::UniformParams p;
  XRNG_HD void operator()(uint32_t x, uint64_t* v) const { v[0] = xrng::math::as_u32(xrng::dist::uniform_f32(x, p)); }
};
struct UniformF16T {
  static constexpr int kOut = 1;
  static constexpr const char* kName = "uniform_f16";
  xrng::UniformParams p;
  XRNG_HD void operator()(uint32_t x, uint64_t* v) const { v[0] = xrng::dist::uniform_f16(x, p); }
};
struct UniformBF16T {
  static constexpr int kOut = 1;
  static constexpr const char* kName = "uniform_bf16";
  xrng::UniformParams p;
  XRNG_HD void operator()(uint32_t x, uint64_t* v) const { v[0] = xrng::dist::uniform_bf16(x, p); }
};
// One-word element rows of the registry, through the row's own element
// function (Row<...>::eval, the function every backend's fill uses) with
// prepared parameters: exponential f32 (-log(u) / rate) and Cauchy f32
// (median + sigma tan(pi (u - 1/2))). Their f16 / bf16 rows are the f32
// value rounded by f32_to_f16_bits / f32_to_bf16_bits, proven below.
struct ExponentialF32T {
  static constexpr int kOut = 1;
  static constexpr const char* kName = "exponential_f32";
  xrng::Plan p;
  XRNG_HD void operator()(uint32_t x, uint64_t* v) const {
    float o;
    xrng::Row<xrng::Dist::exponential, xrng::DType::f32>::eval(&x, p, &o);
    v[0] = xrng::math::as_u32(o);
  }
};
struct CauchyF32T {
  static constexpr int kOut = 1;
  static constexpr const char* kName = "cauchy_f32";
  xrng::Plan p;
  XRNG_HD void operator()(uint32_t x, uint64_t* v) const {
    float o;
    xrng::Row<xrng::Dist::cauchy, xrng::DType::f32>::eval(&x, p, &o);
    v[0] = xrng::math::as_u32(o);
  }
};
// Rounding of every binary32 bit pattern (NaNs, infinities, subnormals included).
struct F16RoundT {
  static constexpr int kOut = 1;
  static constexpr const char* kName = "f32_to_f16_bits";
  XRNG_HD void operator()(uint32_t x, uint64_t* v) const { v[0] = xrng::math::f32_to_f16_bits(xrng::math::as_f32(x)); }
};
struct BF16RoundT {
  static constexpr int kOut = 1;
  static constexpr const char* kName = "f32_to_bf16_bits";
  XRNG_HD void operator()(uint32_t x, uint64_t* v) const { v[0] = xrng::math::f32_to_bf16_bits(xrng::math::as_f32(x)); }
};

// ---- stream v2 (binary32, rng/detail/math32.h) ----------------------------------------------
// The normal's radius and (cos, sin), e^x of every binary32 bit pattern (the
// log-normal's exp), and the exponential and Cauchy f32 rows of version 2
// through Row<..., 2>::eval.
struct RadiusV2T {
  static constexpr int kOut = 1;
  static constexpr const char* kName = "v2 math32::radius";
  XRNG_HD void operator()(uint32_t x, uint64_t* v) const {
    v[0] = xrng::math::as_u32(xrng::math32::radius<float, uint32_t>(x));
  }
};
struct SincosV2T {
  static constexpr int kOut = 2;
  static constexpr const char* kName = "v2 math32::sincos_turns";
  XRNG_HD void operator()(uint32_t x, uint64_t* v) const {
    float c, s;
    xrng::math32::sincos_turns<float, uint32_t>(x, &c, &s);
    v[0] = xrng::math::as_u32(c);
    v[1] = xrng::math::as_u32(s);
  }
};
struct ExpV2T {
  static constexpr int kOut = 1;
  static constexpr const char* kName = "v2 math32::exp_";
  XRNG_HD void operator()(uint32_t x, uint64_t* v) const {
    v[0] = xrng::math::as_u32(xrng::math32::exp_<float, uint32_t>(xrng::math::as_f32(x)));
  }
};
struct ExponentialF32V2T {
  static constexpr int kOut = 1;
  static constexpr const char* kName = "v2 exponential_f32";
  xrng::Plan p;
  XRNG_HD void operator()(uint32_t x, uint64_t* v) const {
    float o;
    xrng::Row<xrng::Dist::exponential, xrng::DType::f32, 2>::eval(&x, p, &o);
    v[0] = xrng::math::as_u32(o);
  }
};
struct CauchyF32V2T {
  static constexpr int kOut = 1;
  static constexpr const char* kName = "v2 cauchy_f32";
  xrng::Plan p;
  XRNG_HD void operator()(uint32_t x, uint64_t* v) const {
    float o;
    xrng::Row<xrng::Dist::cauchy, xrng::DType::f32, 2>::eval(&x, p, &o);
    v[0] = xrng::math::as_u32(o);
  }
};

// Hash of inputs [begin, end) (end <= 2^32).
template <class T>
XRNG_HD uint64_t hash_range(const T& t, uint64_t begin, uint64_t end) {
  uint64_t h = 0;
  for (uint64_t x = begin; x < end; ++x) {
    uint64_t v[T::kOut];
    t(static_cast<uint32_t>(x), v);
    for (int j = 0; j < T::kOut; ++j) h += hash_term(x * T::kOut + j, v[j]);
  }
  return h;
}

}  // namespace xrng_test
