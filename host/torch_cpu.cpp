// Host loops of the torch CPU streams: thin wrappers over rng/torch_cpu.h,
// compiled twice on x86-64 with GCC (target_clones, as host/gamma.cpp): the
// normal kernels' std::fma become FMA instructions where the CPU has them.
#include "torch_cpu.h"

#include <stdexcept>

#include "../rng/detail/math.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define XRNG_FMA_CLONES __attribute__((target_clones("fma", "default"), flatten))
#else
#define XRNG_FMA_CLONES
#endif

namespace xrng::torch_cpu {

namespace {
XRNG_FMA_CLONES void randn_f32(State& s, int64_t n, float mean, float std, Kernel k, float* out) {
  normal_f32(s, n, mean, std, k, out);
}
XRNG_FMA_CLONES void randn_f16(State& s, int64_t n, float mean, float std, Kernel k, uint16_t* out, bool bf16) {
  if (bf16)
    normal_f32_blocks(s, n, mean, std, k, [out](int64_t i, float v) { out[i] = math::f32_to_bf16_bits(v); });
  else
    normal_f32_blocks(s, n, mean, std, k, [out](int64_t i, float v) { out[i] = math::f32_to_f16_bits(v); });
}
}  // namespace

void randn(State& s, int64_t n, float mean, float std, Kernel k, DType dtype, void* out) {
  if (n < 16)
    throw std::invalid_argument("torch_cpu randn: fewer than 16 elements take torch's float64 path, not reproduced yet");
  switch (dtype) {
    case DType::f32:
      return randn_f32(s, n, mean, std, k, static_cast<float*>(out));
    case DType::f16:
      return randn_f16(s, n, mean, std, k, static_cast<uint16_t*>(out), false);
    case DType::bf16:
      return randn_f16(s, n, mean, std, k, static_cast<uint16_t*>(out), true);
    default:
      throw std::invalid_argument("torch_cpu randn: dtype must be float32, float16 or bfloat16 "
                                  "(float64 uses glibc's binary64 log/sin/cos, not reproduced yet)");
  }
}

void rand(State& s, int64_t n, DType dtype, void* out) {
  switch (dtype) {
    case DType::f32:
      return rand_f32(s, n, static_cast<float*>(out));
    case DType::f64:
      return rand_f64(s, n, static_cast<double*>(out));
    case DType::f16:
      return rand_f16(s, n, static_cast<uint16_t*>(out), [](float v) { return math::f32_to_f16_bits(v); },
                      uint16_t{0x3c00}, uint16_t{0});
    case DType::bf16:
      return rand_f16(s, n, static_cast<uint16_t*>(out), [](float v) { return math::f32_to_bf16_bits(v); },
                      uint16_t{0x3f80}, uint16_t{0});
    default:
      throw std::invalid_argument("torch_cpu rand: dtype must be float32, float64, float16 or bfloat16");
  }
}

}  // namespace xrng::torch_cpu
