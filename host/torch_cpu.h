// Host loops of the torch CPU streams (rng/torch_cpu.h, SPEC.md section 14):
// the same values as the header's draws, compiled with and without FMA
// instructions on x86-64 (std::fma is one instruction or a libm call: the
// same correctly rounded result either way).
#pragma once

#include <cstdint>

#include "../rng/registry.h"
#include "../rng/torch_cpu.h"

namespace xrng::torch_cpu {

// torch.randn / normal_(mean, std) into n >= 16 contiguous elements of dtype
// f32, f16 or bf16 (16-bit types as raw bits); advances `s` as torch does.
// Throws std::invalid_argument for n < 16 or another dtype, before drawing.
void randn(State& s, int64_t n, float mean, float std, Kernel k, DType dtype, void* out);

// torch.rand / uniform_(0, 1) into n contiguous elements of dtype f32, f64,
// f16 or bf16. Throws std::invalid_argument for another dtype.
void rand(State& s, int64_t n, DType dtype, void* out);

// The 16-wide normal transform (normal_fill16) on `nblocks` consecutive
// blocks of 16 uniforms, in place, as the host runs it: for Kernel::x86 on
// an AVX2+FMA CPU, 8-lane AVX2 code (fill16_is_simd tells), else the
// header's scalar code; the same values either way.
void fill16_blocks(float* data, int64_t nblocks, float mean, float std, Kernel k);
bool fill16_is_simd(Kernel k);

}  // namespace xrng::torch_cpu
