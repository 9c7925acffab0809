// Host loops of the torch CPU streams (rng/torch_cpu.h, SPEC.md section 14):
// the same values as the header's draws, compiled with and without FMA
// instructions on x86-64 (std::fma is one instruction or a libm call: the
// same correctly rounded result either way).
#pragma once

#include <cstdint>
#include <limits>

#include "../rng/detail/torch_random.h"
#include "../rng/registry.h"
#include "../rng/torch_cpu.h"

namespace xrng::torch_cpu {

// torch.randn / normal_(mean, std) into n elements of dtype f32, f64, f16
// or bf16 (16-bit types as raw bits), laid out in torch's TensorIterator
// order; advances `s` as torch does. `contiguous`: whether torch's output
// tensor is contiguous. n >= 16 contiguous takes torch's normal_fill (the
// 16-wide transform; float32 and the 16-bit types through `k`'s kernel,
// float64 through NormalFill16<double>), anything else torch's element-wise
// at::normal_distribution<double> (normal_f64_value, the cached second
// normal included). `r`: which torch releases' 16-wide normal (Release:
// fuses_normal, normal16_legacy, 2.12's 16-bit one) and element-wise one
// (1.13's log(1 - u2), normal_f64_value; float16 in one rounding where
// f16_direct). Throws std::invalid_argument for another dtype, before drawing.
void randn(State& s, int64_t n, double mean, double std, Kernel k, DType dtype, void* out, bool contiguous = true,
           Release r = Release::r2_13);

// torch.rand / uniform_(0, 1) into n contiguous elements of dtype f32, f64,
// f16 or bf16 (`r`: which releases' 16-bit uniforms). Throws
// std::invalid_argument for another dtype.
void rand(State& s, int64_t n, DType dtype, void* out, Release r = Release::r2_13);

// uniform_(from, to) (from <= to, both finite) into n elements of dtype
// f32, f64, f16 or bf16, in torch's order: uniform_f32_ab / uniform_f64_ab,
// cast to the dtype, a value equal to `to` cast replaced by `from` cast.
// [0, 1) equals rand(). Release r2_1 and r1_13 (f16 and bf16 only):
// uniform16_legacy_ab. Throws std::invalid_argument before drawing.
void uniform(State& s, int64_t n, double from, double to, Kernel k, DType dtype, void* out,
             Release r = Release::r2_13);

// exponential_(lambda) (lambda > 0) into n elements of dtype f32, f64, f16
// or bf16, in torch's order (exponential_value cast to the dtype; `r`: 1.13's
// log(1 - u); `k` and `r`: float16 in one rounding where f16_direct; where
// mkl_exponential and lambda is finite, MklExponential's values, its word
// taken for n = 0 too). Throws std::invalid_argument before drawing (a bad
// dtype or lambda, and f64 where mkl_exponential_f64_refused).
void exponential(State& s, int64_t n, double lambda, DType dtype, void* out, Release r = Release::r2_13,
                 Kernel k = Kernel::x86);

// cauchy_(median, sigma) (sigma > 0) into n elements of dtype f32, f64, f16
// or bf16, in torch's order (cauchy_value, fused per `k`, cast to the
// dtype: float16 in one rounding where f16_direct). Throws
// std::invalid_argument before drawing.
void cauchy(State& s, int64_t n, double median, double sigma, Kernel k, DType dtype, void* out,
            Release r = Release::r2_13);

// log_normal_value, geometric_value (0 < p < 1) and cauchy_value (fused
// per `k`) for n elements in torch's order, as float64 (the caller casts to
// the dtype as torch does, f16_direct included; `r`: 1.13's log(1 - u2) in
// the normal). No checks: the caller's.
void log_normal_f64(State& s, int64_t n, double mean, double std, Kernel k, double* out, Release r = Release::r2_13);
void geometric_f64(State& s, int64_t n, double p, double* out);
void cauchy_f64(State& s, int64_t n, double median, double sigma, Kernel k, double* out);

// The 16-wide normal transform (normal_fill16) on `nblocks` consecutive
// blocks of 16 uniforms, in place, as the host runs it: for the x86 kernels
// (x86, x86_windows) on an AVX2+FMA CPU, 8-lane AVX2 code (fill16_is_simd tells), else the
// header's scalar code; the same values either way.
void fill16_blocks(float* data, int64_t nblocks, float mean, float std, Kernel k);
bool fill16_is_simd(Kernel k);


// ---- whole draws of torch's discrete and log-normal CPU draws (torch.manual_seed(S) then the call) ----
// Each throws std::invalid_argument before drawing for a bad parameter or dtype.

// torch.randint(low, high, (n,), dtype) (low < high, the range within the
// dtype) into n elements of dtype i64 or i32: randint_value per element
// (`r`: which releases' ranges take a 64-bit word, randint_wide).
void randint(State& s, int64_t n, int64_t low, int64_t high, DType dtype, void* out, Release r = Release::r2_13);

// log_normal_(mean, std) (std > 0) into n elements of dtype f32, f64, f16
// or bf16: log_normal_value per element (its kernel-dependent fusion), cast.
void log_normal(State& s, int64_t n, double mean, double std, Kernel k, DType dtype, void* out,
                Release r = Release::r2_13);

// geometric_(p) (0 < p < 1) into n elements of dtype f32, f64, f16, bf16
// or i64: geometric_value per element, cast.
void geometric(State& s, int64_t n, double p, DType dtype, void* out);

// MklBernoulli g's next n elements as bytes 0 / 1 (8 AVX2 lanes where the CPU has AVX2; the same values as
// g.next() n times, and g left where they leave it).
void mkl_bernoulli_u8(MklBernoulli& g, int64_t n, uint8_t* out);
// ... as store(i, bit) for i in [0, n): mkl_bernoulli_u8 a chunk at a time.
template <class Store>
void mkl_bernoulli_fill(MklBernoulli& g, int64_t n, Store&& store) {
  constexpr int64_t kChunk = 4096;
  uint8_t buf[kChunk];
  for (int64_t i = 0; i < n; i += kChunk) {
    const int64_t m = n - i < kChunk ? n - i : kChunk;
    mkl_bernoulli_u8(g, m, buf);
    for (int64_t j = 0; j < m; ++j) store(i + j, buf[j] != 0);
  }
}

// bernoulli_(p) with a scalar p in [0, 1] into n elements of dtype f32,
// f64, f16, bf16, i64, i32 or bool (u8, 0/1): bernoulli_value (a float64
// uniform against p) per element; where mkl_bernoulli (torch 2.0 to 2.6's
// x86-64 wheels: kernels x86 and scalar), MklBernoulli (one word, for n = 0
// too).
void bernoulli(State& s, int64_t n, double p, DType dtype, void* out, Release r = Release::r2_13,
               Kernel k = Kernel::x86);

// torch.randperm(n) (int64) into n elements: the randperm template.
void randperm(State& s, int64_t n, int64_t* out);

// torch.nn.functional.dropout(input, p, training=True) on CPU (torch 2.15
// at::native::_dropout: CPU tensors never take the fused native_dropout):
// noise = empty_like(input).bernoulli_(1 - p) (bernoulli_value per element,
// 2 words each), noise.div_(1 - p) (1 / (1 - p) in the opmath type, float64
// for float64 and float otherwise, rounded to the dtype), out = input * noise
// in the dtype (f16 / bf16: the float product rounded once). n elements of
// dtype f32, f64, f16 or bf16 (16-bit types as raw bits), in and out
// contiguous (they may be the same memory: dropout's inplace=True);
// `mask`, when given, receives 1 for a kept element, 0 for a dropped one.
// p = 0 copies and p = 1 multiplies by zero, neither drawing (torch's). `r`
// and `kernel`: where mkl_bernoulli the noise is MklBernoulli's (one word).
// Throws std::invalid_argument before drawing for p outside [0, 1] or
// another dtype.
void dropout(State& s, int64_t n, double p, DType dtype, const void* in, void* out, uint8_t* mask = nullptr,
             Release r = Release::r2_13, Kernel kernel = Kernel::x86);

// ---- random_ and randint into any integer element type (torch's Tensor.random_ on CPU) ----
// T is int64_t, int32_t, int16_t, int8_t, uint8_t, bool, uint16_t, uint32_t or
// uint64_t (torch's int64 ... uint64); n contiguous elements in torch's order.
// Each throws std::invalid_argument before drawing where torch refuses.

// torch.randint(low, high, (n,), dtype) / random_(low, high): [low, high)
// within T (uint64: high - 1 <= INT64_MAX), randint_value per element
// (`r`: randint_wide).
template <class T>
void randint(State& s, int64_t n, int64_t low, int64_t high, T* out, Release r = Release::r2_13) {
  const uint64_t range = torch_random::from_to_range<T>(low, high, "torch_cpu randint");
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(randint_value(s, range, low, randint_wide(r)));
}

// random_() without a range: [0, max(T)] ({0, 1} for bool): a word (two for
// int64: random64) mod max + 1. Not for uint16/32/64 (torch has none).
template <class T>
void random(State& s, int64_t n, T* out) {
  const uint64_t mod = torch_random::modulus<T>("torch_cpu random_");
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(random_value(s, mod, torch_random::random_wide<T>));
}

// random_(from, None): from = INT64_MIN is the full 64-bit range (int64
// only: random_full_64_bits_range_kernel, one random64 per element, its bits
// as the value); any other `from` within T draws [from, max(T)] as
// random_(from, max + 1) would (a 32-bit word below a range of 2^28, or of
// 2^32 before torch 2.7: randint_wide; a random64 from it up). uint64 has
// no random_(from, None) in torch.
template <class T>
void random_from(State& s, int64_t n, int64_t from, T* out, Release r = Release::r2_13) {
  if (from == std::numeric_limits<int64_t>::min()) {
    torch_random::check_full_range<T>("torch_cpu random_");
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(static_cast<int64_t>(s.random64()));
    return;
  }
  const uint64_t range = torch_random::from_range<T>(from, "torch_cpu random_");
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(randint_value(s, range, from, randint_wide(r)));
}

}  // namespace xrng::torch_cpu
