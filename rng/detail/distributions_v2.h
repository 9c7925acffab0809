// Element functions of stream v2 (SPEC.md, "Stream v2"): the rows whose f32,
// f16 and bf16 values need a transcendental (normal, log_normal, exponential,
// cauchy) computed in binary32 only, by the algorithms of math32.h. Every
// other row, and every f64 row, keeps its v1 element function
// (distributions.h). f16 / bf16 rows round the f32 value (dist::to_f16 /
// dist::to_bf16), as in v1.
//
// The parameters are the binary32 fields of the Params structs, prepared once
// at plan time (plan.h, DistDef<...>::prepare; the rule is in SPEC.md):
// location and scale rounded to binary32 and clamped to the finite range,
// the scale (and 1 / rate) set to 0 below the bound under which the affine
// step could produce a subnormal, the location likewise, so that no
// intermediate or result of the affine step is subnormal for any word.
//
// The cores are templates over the lane types of math32.h (F: binary32,
// I: uint32); host/simd instantiates them with vector lanes.
#pragma once

#include <cstdint>

#include "distributions.h"
#include "math32.h"

namespace xrng {
namespace dist {
namespace v2 {

// ---- normal: Box-Muller pair from words (a, b) -------------------------------------
// z0 = mean + std (r cos), z1 = mean + std (r sin), r = math32::radius(a),
// (cos, sin) = math32::sincos_turns(b), every operation in binary32.
template <class F, class I>
XRNG_HD XRNG_INLINE void normal_pair_core(I a, I b, F mean, F std, F* z0, F* z1) {
  const F r = math32::radius<F, I>(a);
  F c, s;
  math32::sincos_turns<F, I>(b, &c, &s);
  *z0 = mean + std * (r * c);
  *z1 = mean + std * (r * s);
}

// ---- log_normal: e^(mean + std z) of the same words as the normal pair -------------------------
template <class F, class I>
XRNG_HD XRNG_INLINE void log_normal_core(I a, I b, F mean, F std, F* y0, F* y1) {
  math32::log_normal_pair<F, I>(a, b, mean, std, y0, y1);
}

// ---- exponential: -ln(u) * (1 / rate) -------------------------------------------------
// Evaluated as ln u * (-0 - inv_rate): the same value ((0 - x) y = x (-0 - y)
// exactly for x < 0: -0 - y negates y exactly, +0 included, so 0 * ... keeps
// its +0), with the negation on the loop-invariant parameter instead of on
// every element.
template <class F, class I>
XRNG_HD XRNG_INLINE F exponential_core(I w, F inv_rate) {
  return math32::log_unit_word<F, I>(w) * (F(-0.0f) - inv_rate);
}

// ---- Cauchy: median + sigma tan(pi (u - 1/2)) -------------------------------------------
template <class F, class I>
XRNG_HD XRNG_INLINE F cauchy_core(I w, F median, F sigma) {
  return median + sigma * math32::tan_centered<F, I>(w);
}

// ---- the scalar element functions of the v2 rows ------------------------------------------
XRNG_HD XRNG_INLINE void normal_f32(uint32_t w0, uint32_t w1, const NormalParams& p, float out[2]) {
  normal_pair_core<float, uint32_t>(w0, w1, p.mean32, p.std32, &out[0], &out[1]);
}
// e^(mean + std z) of the normal pair's z of the same words, z and the
// affine step carried as unevaluated pairs (math32::log_normal_pair).
XRNG_HD XRNG_INLINE void log_normal_f32(uint32_t w0, uint32_t w1, const NormalParams& p, float out[2]) {
  log_normal_core<float, uint32_t>(w0, w1, p.mean32, p.std32, &out[0], &out[1]);
}
XRNG_HD XRNG_INLINE float exponential_f32(uint32_t w, const ExponentialParams& p) {
  return exponential_core<float, uint32_t>(w, p.inv_rate32);
}
XRNG_HD XRNG_INLINE float cauchy_f32(uint32_t w, const CauchyParams& p) {
  return cauchy_core<float, uint32_t>(w, p.median32, p.sigma32);
}

}  // namespace v2
}  // namespace dist
}  // namespace xrng
