// xrng CUDA backend: fill device buffers with the values of the CPU backends,
// bit for bit, for every row of the registry (rng/registry.h).
//
// Every function is asynchronous on `stream`, takes its parameters by value
// (the offset too, so a captured CUDA graph replays with the offset it was
// captured with; capture a new graph, or use a kernel parameter update, for a
// new offset) and computes elements [start, start + count) of the draw at
// word `offset` of Key `key`'s stream; dev_out[0] receives element `start`.
//
// Errors: an invalid request throws xrng::Error before any CUDA call (the
// plan comes from make_plan, and check_counters bounds the stream words, as
// for the host API; the backend adds only its own checks: the entry point
// fits the plan's kind, buffers are non-null, the LaunchConfig is in range).
// Then buffers must be memory the current device can access (device,
// managed or mapped pinned memory; pageable host memory is refused with an
// xrng::Error), and a failed launch throws xrng::Error with CUDA's message.
// count == 0 makes no CUDA call at all.
#pragma once

#include <cuda_runtime_api.h>

#include "xrng_cuda_host.h"

namespace xrng::cuda {

// Element draws (bits, uniform, normal, bernoulli, randint, exponential,
// geometric, log_normal, cauchy: every dtype of the registry) and
// permutations (elements [start, start + count) of the permutation). A
// transform plan (dropout) throws: use transform.
void fill(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, void* dev_out,
          cudaStream_t stream = 0, LaunchConfig cfg = {});

// Transform draws: dev_out[i] = f(words of element start + i, dev_in[i]).
// dev_in == dev_out is allowed. Other plans throw.
void transform(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, const void* dev_in,
               void* dev_out, cudaStream_t stream = 0, LaunchConfig cfg = {});

// Dropout (plan from make_plan(Dist::dropout, dtype, DrawParams::probability(p))):
// dev_out[i] is +0 where element start + i is dropped, else dev_in[i] / (1 - p)
// as the host computes it. transform, for dropout plans only.
void dropout(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, const void* dev_in,
             void* dev_out, cudaStream_t stream = 0, LaunchConfig cfg = {});

// Shard `rank` of `world` of a permutation: element j in [start, start + count)
// is perm((rank + j * world) mod n) (DistributedSampler's layout, padding included).
void perm_shard(const Plan& plan, const Key& key, uint64_t offset, uint64_t rank, uint64_t world, uint64_t start,
                uint64_t count, void* dev_out, cudaStream_t stream = 0, LaunchConfig cfg = {});

// Inverse permutation: dev_out[i] = position of value start + i.
void perm_inverse(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, void* dev_out,
                  cudaStream_t stream = 0, LaunchConfig cfg = {});

// Block draws of a global tensor (rng/block.h): block elements [start,
// start + count) (row-major over block.size; dev_out[0] receives block
// element start) of the draw over the global tensor block.shape, equal to
// those elements of the full draw and to the host's fill_block. The block is
// validated by the core (check_block: ranks, bounds, the global draw's
// counters) before any CUDA call; then each contiguous run of the block is
// one launch of the range kernel of fill (at the run's global start index),
// all on `stream`, in order. A block of many short runs costs a launch per
// run: prefer blocks whose runs are long (shards of a leading dimension are
// one run).
void fill_block(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block, uint64_t start,
                uint64_t count, void* dev_out, cudaStream_t stream = 0, LaunchConfig cfg = {});
// Transform draws (dropout) of block elements [start, start + count): the
// mask of the global tensor. dev_in == dev_out is allowed.
void transform_block(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block, uint64_t start,
                     uint64_t count, const void* dev_in, void* dev_out, cudaStream_t stream = 0,
                     LaunchConfig cfg = {});

// Categorical sampling (SPEC.md section 10; host: xrng::multinomial in
// host/xrng.h): dev_out[rows, num_samples] (int64) from dev_weights[rows, k]
// (binary64, row-major, device memory), the host's values bit for bit. The
// shape and counters are checked before any CUDA call; the rows' weights on
// the device, before anything is written (this synchronises `stream` once,
// and again at the end, when its scratch memory is freed).
void multinomial(const double* dev_weights, uint64_t rows, uint64_t k, uint64_t num_samples, bool replacement,
                 const Key& key, uint64_t offset, int64_t* dev_out, cudaStream_t stream = 0);

// The gamma family (SPEC.md section 11; host: xrng::gamma and xrng::dirichlet
// in host/xrng.h): dev_out[n] (dt: f64, f32, f16 or bf16) from dev_alpha[n]
// (binary64, device memory), the host's values bit for bit. The alphas are
// checked on the device before anything is written (one synchronisation of
// `stream`); the draw itself is asynchronous.
void gamma(const double* dev_alpha, uint64_t n, const Key& key, uint64_t offset, DType dt, void* dev_out,
           cudaStream_t stream = 0);
void dirichlet(const double* dev_alpha, uint64_t rows, uint64_t k, const Key& key, uint64_t offset, DType dt,
               void* dev_out, cudaStream_t stream = 0);
// Binomial counts (SPEC.md section 13; host: xrng::binomial), likewise.
void binomial(const double* dev_count, const double* dev_prob, uint64_t n, const Key& key, uint64_t offset, DType dt,
              void* dev_out, cudaStream_t stream = 0);
// Poisson counts (SPEC.md section 12; host: xrng::poisson), likewise.
void poisson(const double* dev_rate, uint64_t n, const Key& key, uint64_t offset, DType dt, void* dev_out,
             cudaStream_t stream = 0);

}  // namespace xrng::cuda
