// Host loops of the torch CPU streams (rng/torch_cpu.h, SPEC.md section 14):
// the same values as the header's draws, compiled with and without FMA
// instructions on x86-64 (std::fma is one instruction or a libm call: the
// same correctly rounded result either way).
#pragma once

#include <cstdint>

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
// normal included). Throws std::invalid_argument for another dtype, before
// drawing.
void randn(State& s, int64_t n, double mean, double std, Kernel k, DType dtype, void* out, bool contiguous = true);

// torch.rand / uniform_(0, 1) into n contiguous elements of dtype f32, f64,
// f16 or bf16. Throws std::invalid_argument for another dtype.
void rand(State& s, int64_t n, DType dtype, void* out);

// uniform_(from, to) (from <= to, both finite) into n elements of dtype
// f32, f64, f16 or bf16, in torch's order: uniform_f32_ab / uniform_f64_ab,
// cast to the dtype, a value equal to `to` cast replaced by `from` cast.
// [0, 1) equals rand(). Throws std::invalid_argument before drawing.
void uniform(State& s, int64_t n, double from, double to, Kernel k, DType dtype, void* out);

// exponential_(lambda) (lambda > 0) into n elements of dtype f32, f64, f16
// or bf16, in torch's order (exponential_value cast to the dtype). Throws
// std::invalid_argument before drawing.
void exponential(State& s, int64_t n, double lambda, DType dtype, void* out);

// cauchy_(median, sigma) (sigma > 0) into n elements of dtype f32, f64, f16
// or bf16, in torch's order (cauchy_value, fused per `k`, cast to the
// dtype). Throws std::invalid_argument before drawing.
void cauchy(State& s, int64_t n, double median, double sigma, Kernel k, DType dtype, void* out);

// log_normal_value, geometric_value (0 < p < 1) and cauchy_value (fused
// per `k`) for n elements in torch's order, as float64 (the caller casts to
// the dtype as torch does). No checks: the caller's.
void log_normal_f64(State& s, int64_t n, double mean, double std, Kernel k, double* out);
void geometric_f64(State& s, int64_t n, double p, double* out);
void cauchy_f64(State& s, int64_t n, double median, double sigma, Kernel k, double* out);

// The 16-wide normal transform (normal_fill16) on `nblocks` consecutive
// blocks of 16 uniforms, in place, as the host runs it: for Kernel::x86 on
// an AVX2+FMA CPU, 8-lane AVX2 code (fill16_is_simd tells), else the
// header's scalar code; the same values either way.
void fill16_blocks(float* data, int64_t nblocks, float mean, float std, Kernel k);
bool fill16_is_simd(Kernel k);


// ---- whole draws of torch's discrete and log-normal CPU draws (torch.manual_seed(S) then the call) ----
// Each throws std::invalid_argument before drawing for a bad parameter or dtype.

// torch.randint(low, high, (n,), dtype) (low < high, the range within the
// dtype) into n elements of dtype i64 or i32: randint_value per element.
void randint(State& s, int64_t n, int64_t low, int64_t high, DType dtype, void* out);

// log_normal_(mean, std) (std > 0) into n elements of dtype f32, f64, f16
// or bf16: log_normal_value per element (its kernel-dependent fusion), cast.
void log_normal(State& s, int64_t n, double mean, double std, Kernel k, DType dtype, void* out);

// geometric_(p) (0 < p < 1) into n elements of dtype f32, f64, f16, bf16
// or i64: geometric_value per element, cast.
void geometric(State& s, int64_t n, double p, DType dtype, void* out);

// bernoulli_(p) with a scalar p in [0, 1] into n elements of dtype f32,
// f64, f16, bf16, i64, i32 or bool (u8, 0/1): bernoulli_value (a float64
// uniform against p) per element.
void bernoulli(State& s, int64_t n, double p, DType dtype, void* out);

// torch.randperm(n) (int64) into n elements: the randperm template.
void randperm(State& s, int64_t n, int64_t* out);

}  // namespace xrng::torch_cpu
