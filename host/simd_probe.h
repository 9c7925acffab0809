// Test access to the per-word transforms of the SIMD backends.
//
// The exhaustive tests push every 32-bit word through the vector code of each
// transform and compare it with the scalar reference; these entry points run
// exactly the vector bodies the fill kernels use (host/simd_impl.h), on
// caller-supplied words instead of Philox output.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../rng/plan.h"

namespace xrng::detail {

enum class Probe : int {
  radius32,      // out: double[n], math::box_muller_radius<32>(w)
  sincos32,      // out: double[2n], (cos, sin) of math::sincos_turns<32>(w), interleaved
  uniform_f32,   // out: float[n], dist::uniform_f32(w, plan.uniform)
  uniform_f16,   // out: uint16_t[n], dist::uniform_f16(w, plan.uniform)
  uniform_bf16,  // out: uint16_t[n], dist::uniform_bf16(w, plan.uniform)
  f32_to_f16,    // out: uint16_t[n], math::f32_to_f16_bits(bits w as float)
  f32_to_bf16,   // out: uint16_t[n], math::f32_to_bf16_bits(bits w as float)
};

// Applies the vector transform `which` to in[0..n); returns false if the ISA
// was not compiled in. Only call the avx512 entry on a CPU that has it.
bool probe_avx2(Probe which, const Plan& plan, const uint32_t* in, size_t n, void* out);
bool probe_avx512(Probe which, const Plan& plan, const uint32_t* in, size_t n, void* out);

}  // namespace xrng::detail
