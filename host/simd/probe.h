// Test access to the per-word transforms of the vector backends.
//
// The exhaustive tests push every 32-bit word through the vector code of each
// transform and compare it with the scalar reference; these entry points run
// exactly the vector bodies the fill kernels use (host/simd/kernels.h), on
// caller-supplied words instead of Philox output. This header is the baseline
// side of the interface (no ISA code): the bodies are in probe_impl.h,
// compiled once per ISA.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../rng/plan.h"

namespace xrng::detail {

enum class Probe : int {
  radius32,         // out: double[n], math::box_muller_radius<32>(w)
  sincos32,         // out: double[2n], (cos, sin) of math::sincos_turns<32>(w), interleaved
  uniform_f32,      // out: float[n], dist::uniform_f32(w, plan.uniform)
  uniform_f16,      // out: uint16_t[n], dist::uniform_f16(w, plan.uniform)
  uniform_bf16,     // out: uint16_t[n], dist::uniform_bf16(w, plan.uniform)
  f32_to_f16,       // out: uint16_t[n], math::f32_to_f16_bits(bits w as float)
  f32_to_bf16,      // out: uint16_t[n], math::f32_to_bf16_bits(bits w as float)
  exponential_f32,  // out: float[n], dist::exponential_f32(w, plan.exponential)
  cauchy_f32,       // out: float[n], dist::cauchy_f32(w, plan.cauchy)
  // stream v2 (binary32, math32.h):
  v2_radius,          // out: float[n], math32::radius(w)
  v2_sincos,          // out: float[2n], (cos, sin) of math32::sincos_turns(w), interleaved (by sincos_turns_v2)
  v2_neg_log,         // out: float[n], math32::neg_log(w)
  v2_tan,             // out: float[n], math32::tan_centered(w)
  v2_exp,             // out: float[n], math32::exp_(bits w as float)
  v2_exponential_f32,  // out: float[n], dist::v2::exponential_f32(w, plan.exponential) (the row's kernel)
  v2_cauchy_f32,       // out: float[n], dist::v2::cauchy_f32(w, plan.cauchy)
  v2_normal_f32,       // in: 2n words (n pairs); out: float[2n], dist::v2::normal_f32(w[2i], w[2i+1], plan.normal)
  v2_log_normal_f32,   // as v2_normal_f32, dist::v2::log_normal_f32
};

// Applies the vector transform `which` to in[0..n) (plan: a plan of the
// transform's row, for its parameters); returns false for a probe the ISA's
// build does not know. Only call the avx512 entry on a CPU that has AVX-512.
// Each is defined where its ISA is compiled (x86-64: avx2, avx512; AArch64:
// neon); xrng::detail::simd_backends() lists them with their names.
bool probe_avx2(Probe which, const Plan& plan, const uint32_t* in, size_t n, void* out);
bool probe_avx512(Probe which, const Plan& plan, const uint32_t* in, size_t n, void* out);
bool probe_neon(Probe which, const Plan& plan, const uint32_t* in, size_t n, void* out);

}  // namespace xrng::detail
