// torch's own avx_mathfun.h (the header shipped in the installed wheel),
// compiled the way torch's AVX2 build compiles it: -mavx2 -mfma with GCC's
// default contraction (-ffp-contract=fast), so mul+add pairs fuse as they
// do in libtorch_cpu.so. The reference for test_torch_cpu's exhaustive
// comparison of xrng's scalar emulation (rng/detail/torch_cpu_math.h).
// Compiled a second time with -ffp-contract=off and XRNG_TORCH_REF_NS =
// xrng_torch_ref_msvc: the header as MSVC compiles it for torch's Windows
// wheels (no contraction: torch_cpu.dll's normal kernel has vmulps/vaddps
// throughout avx_mathfun's code and only the explicit last vfmadd; SPEC.md
// 14.9), the reference of kernel x86_windows.
#define CPU_CAPABILITY_AVX2 1
#include <immintrin.h>
#include <ATen/native/cpu/avx_mathfun.h>

#ifndef XRNG_TORCH_REF_NS
#define XRNG_TORCH_REF_NS xrng_torch_ref
#endif

namespace XRNG_TORCH_REF_NS {

// log256_ps and sincos256_ps on 8 lanes, then radius and output as
// NormalFill16<float> (AVX2) computes them: sqrt(-2 log(1 - a)), theta =
// two_pi * b, fmadd(radius*cos, std, mean) and fmadd(radius*sin, std, mean).
void normal_fill_16(float* data, float mean, float std) {
  const __m256 two_pi = _mm256_set1_ps(2.0f * 3.14159265358979323846);
  const __m256 one = _mm256_set1_ps(1.0f), minus_two = _mm256_set1_ps(-2.0f);
  const __m256 u1 = _mm256_sub_ps(one, _mm256_loadu_ps(data));
  const __m256 u2 = _mm256_loadu_ps(data + 8);
  const __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(minus_two, log256_ps(u1)));
  const __m256 theta = _mm256_mul_ps(two_pi, u2);
  __m256 s, c;
  sincos256_ps(theta, &s, &c);
  const __m256 n1 = _mm256_mul_ps(radius, c), n2 = _mm256_mul_ps(radius, s);
  _mm256_storeu_ps(data, _mm256_fmadd_ps(n1, _mm256_set1_ps(std), _mm256_set1_ps(mean)));
  _mm256_storeu_ps(data + 8, _mm256_fmadd_ps(n2, _mm256_set1_ps(std), _mm256_set1_ps(mean)));
}

void log8(const float* x, float* y) { _mm256_storeu_ps(y, log256_ps(_mm256_loadu_ps(x))); }
void sincos8(const float* x, float* s, float* c) {
  __m256 vs, vc;
  sincos256_ps(_mm256_loadu_ps(x), &vs, &vc);
  _mm256_storeu_ps(s, vs);
  _mm256_storeu_ps(c, vc);
}

}  // namespace XRNG_TORCH_REF_NS
