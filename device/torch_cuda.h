// xrng's CUDA kernels for the torch CUDA stream (rng/torch_cuda.h, SPEC.md
// section 15): a CUDA buffer filled on the GPU with the values the host model
// gives, bit for bit. Every element value is computed by the XRNG_HD element
// functions of rng/torch_cuda.h (the very code the host runs); the host keeps
// the orchestration: torch's launch arithmetic, the generator offsets and
// TensorIterator's 32-bit split (tg::pieces), then one kernel launch per
// piece. randperm stays on the host (its stable sort and island shuffles).
//
// Each function checks its arguments as the host draws do (throwing
// std::invalid_argument before any CUDA call), advances the State exactly as
// torch's philox_cuda_state does, and launches asynchronously on `stream`;
// buffers are device memory of the current device (the torch bindings pass
// CUDA tensors' data). A failed launch throws xrng::Error with CUDA's message.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "rng/torch_cuda.h"
#include "torch_cuda_ops.h"

namespace xrng::cuda::torch_cuda {

namespace tg = xrng::torch_cuda;

// (unroll_of(a), out_size(o): torch_cuda_ops.h.)

// dev_out[0, n) = the draw at state `s` on a GPU `d` (n elements of a
// contiguous tensor, row-major); `s` advances as on torch's GPU.
void draw(const Args& a, tg::State& s, tg::Device d, uint64_t n, void* dev_out, cudaStream_t stream = 0);

// One launch of a draw: elements [p.begin, p.begin + p.launch.numel) of
// dev_out (the whole tensor's pointer), at curand_init offset p.offset.
void launch_piece(const Args& a, uint64_t seed, const tg::Piece& p, void* dev_out, cudaStream_t stream = 0);

// bernoulli_(p) with a tensor p (tg::bernoulli_tensor): dev_p[0, n) float32
// (float64 when p_f64, for a float64 output), each already checked to lie in
// [0, 1] by the caller; dev_out[i] = (u_i <= p_i).
void bernoulli_tensor(tg::State& s, uint64_t n, const void* dev_p, bool p_f64, Out out, void* dev_out,
                      cudaStream_t stream = 0);

// native_dropout's output and mask for a contiguous input of a float dtype
// `t` (f32, f64, f16, bf16) with drop probability p in (0, 1) and torch's
// vector size `vec` (1, 2, 4 or 8; tg::dropout_vec): dev_out[i] =
// T(in[i] * keep * scale), dev_mask[i] = keep, as the host model
// (bindings/torch_cuda_ops.cpp cuda_dropout) computes them.
void dropout(tg::State& s, tg::Device d, uint64_t n, uint32_t vec, double p, Out t, const void* dev_in,
             void* dev_out, bool* dev_mask, cudaStream_t stream = 0);

}  // namespace xrng::cuda::torch_cuda
