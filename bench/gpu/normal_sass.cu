// Instruction count of one normal pair on the GPU (SPEC.md, "Stream v2", op
// counts): a kernel per stream version that turns two words into one f32 pair
// with the core's element function, nothing else (no Philox, no indexing
// beyond a load and a store). Compiled for sm_90 to SASS and counted by
// bench/gpu/count_sass.sh:
//   nvcc -std=c++20 -arch=sm_90 --fmad=false -cubin -I. bench/gpu/normal_sass.cu -o normal_sass.cubin
//   cuobjdump -sass normal_sass.cubin
#include "rng/detail/distributions_v2.h"

__global__ void pair_v1(const uint2* __restrict__ w, float2* __restrict__ out, xrng::NormalParams p) {
  const uint2 x = w[threadIdx.x];
  float z[2];
  xrng::dist::normal_f32(x.x, x.y, p, z);
  out[threadIdx.x] = make_float2(z[0], z[1]);
}
__global__ void pair_v2(const uint2* __restrict__ w, float2* __restrict__ out, xrng::NormalParams p) {
  const uint2 x = w[threadIdx.x];
  float z[2];
  xrng::dist::v2::normal_f32(x.x, x.y, p, z);
  out[threadIdx.x] = make_float2(z[0], z[1]);
}
// The baseline: the same load and store around no transform.
__global__ void pair_none(const uint2* __restrict__ w, float2* __restrict__ out, xrng::NormalParams p) {
  const uint2 x = w[threadIdx.x];
  out[threadIdx.x] = make_float2(__uint_as_float(x.x) + p.mean32, __uint_as_float(x.y));
}
// Per-word v2 transforms, for reference.
__global__ void word_v2_exponential(const uint32_t* __restrict__ w, float* __restrict__ out, xrng::ExponentialParams p) {
  out[threadIdx.x] = xrng::dist::v2::exponential_f32(w[threadIdx.x], p);
}
__global__ void word_v2_cauchy(const uint32_t* __restrict__ w, float* __restrict__ out, xrng::CauchyParams p) {
  out[threadIdx.x] = xrng::dist::v2::cauchy_f32(w[threadIdx.x], p);
}
__global__ void pair_v2_log_normal(const uint2* __restrict__ w, float2* __restrict__ out, xrng::NormalParams p) {
  const uint2 x = w[threadIdx.x];
  float z[2];
  xrng::dist::v2::log_normal_f32(x.x, x.y, p, z);
  out[threadIdx.x] = make_float2(z[0], z[1]);
}
