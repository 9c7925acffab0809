// xrng for LibTorch: draws that return or fill torch tensors on any device.
//
// Element i of a tensor (its row-major logical index, whatever its strides)
// is element i of the xrng draw, so a tensor equals `xrng gen --start 0
// --count numel` for the same key, offset and parameters. This layer adds no
// arithmetic: values come from the host backend (host/xrng.h) or, for CUDA
// tensors, from the CUDA backend (device/xrng_cuda.h); everything here is
// choosing a path, allocating and copying.
//
// Paths, by the tensor's device:
//   CPU     host SIMD + threads, written straight into the tensor (through a
//           contiguous temporary when the tensor is strided);
//   CUDA    the CUDA kernels on the current stream when this library was built
//           with them, else host-then-transfer;
//   other   (privateuse1 / NPU, MPS, XPU, ...) generated on the host into
//           pinned memory when the device can pin (plain memory otherwise)
//           and copied, non-blocking and double-buffered in chunks.
// Path::host_transfer forces the last path for CUDA tensors too; the values
// are the same bit for bit whichever path runs.
//
// Every error is an xrng::Error (a std::invalid_argument), thrown before
// anything is written and before the generator moves.
//
// Source layout (bindings/): this header and xrng_torch.cpp (the public
// functions); detail/dtypes.{h,cpp} (torch dtype <-> xrng dtype, from the
// registry); detail/paths.{h,cpp} (CPU, CUDA and host-then-transfer paths);
// state.cpp (the generator's serialised state); python.cpp (the _C module).
#pragma once

#include <ATen/ATen.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "../host/xrng.h"

namespace xrng::torch_api {

enum class Path {
  automatic,      // by the tensor's device (see above)
  host_transfer,  // generate on the host and copy, whatever the device
};

struct RunOptions {
  Path path = Path::automatic;
  int threads = 0;  // host threads; 0: at::get_num_threads(). Never changes a value.
};

// The generator of the LibTorch API is the core's (host/xrng.h): a key, a
// word offset and the stream version it draws (Generator(seed, subseq,
// offset, stream); every draw with it is in that version), nothing else. Every draw below starts at gen.offset() and
// advances it by the words the draw consumes (plan_words), so draws from a
// Generator equal draws at explicit offsets. gen.split(i) / gen.fold_in(data)
// derive generators on child keys. A Generator may be shared by threads: each
// draw reserves its word range atomically before writing (Generator::reserve),
// so concurrent draws get disjoint ranges and the final offset is the sum of
// the words drawn.
using Generator = xrng::Generator;

// ---- generator state (state.cpp) ------------------------------------------------------
// Generator::save_state (host/xrng.h): 32 bytes, little endian: "XRNG", the
// generator's stream version (u32), seed, subseq, offset (u64 each). The same
// bytes as Python's Generator.get_state().
inline constexpr size_t kStateBytes = Generator::kStateBytes;
std::array<uint8_t, kStateBytes> state_bytes(const Generator& gen);
// Restores `gen` from state_bytes(), its stream version included (a v1 state
// keeps drawing v1). Throws xrng::Error on a malformed state or one of a
// stream version this library does not produce; gen is unchanged then.
void set_state_bytes(Generator& gen, const uint8_t* bytes, size_t n);
// The state as a CPU uint8 tensor of kStateBytes elements (torch.save-able).
at::Tensor get_state(const Generator& gen);
// Restores `gen` from a 1-D uint8 tensor of get_state() (any device).
void set_state(Generator& gen, const at::Tensor& state);

// ---- dtypes (detail/dtypes.cpp) ---------------------------------------------------------
// The xrng output type that a draw of `dist` into a tensor of type `t` uses:
// the registry row (rng/registry.h) stored exactly as `t` when there is one
// (bool tensors store u8 masks); else, for int16/int8/uint8 tensors and a
// distribution bounded by integer parameters (randint's [ilow, ihigh)), its
// i32 row, converted by a copy after checking that the range fits. Throws
// xrng::Error when the pair has no draw.
DType draw_dtype(Dist dist, at::ScalarType t);
// The torch type an xrng dtype is stored as (f16/bf16: Half/BFloat16).
at::ScalarType scalar_type_of(DType t);

// ---- the generic entry points ------------------------------------------------------------
// Each comes in two forms: with a Generator, which the draw starts from and
// advances (an error if that would move its offset to 2^64 or beyond: the
// generator would be exhausted), and stateless, at word `offset` of `key`'s
// stream, which advances nothing and may end exactly at word 2^64 (like
// xrng::fill and `xrng gen --offset`).

// Fills `out` (any device, any strides) with elements [0, out.numel()) of the
// draw `plan`. plan.dtype must be draw_dtype(plan.dist, out.scalar_type()); a
// permutation plan fills a tensor of exactly plan.n elements; a transform
// plan (dropout) needs an input: use dropout_out. Returns out.
at::Tensor& fill_(at::Tensor& out, const Plan& plan, Generator& gen, const RunOptions& run = {});
at::Tensor& fill_(at::Tensor& out, const Plan& plan, const Key& key, uint64_t offset, const RunOptions& run = {});
// Fills `out` with a draw of `dist` (any element or permutation distribution
// of the registry) whose parameters are `params` (fields a distribution does
// not read are ignored), in the type draw_dtype(dist, out.scalar_type()):
// make_plan, then fill_. The stream version (SPEC.md section 7) is the
// generator's (gen.stream()), or for the stateless form `stream` (the newest
// by default; 1 reproduces the values of the releases before stream 2).
at::Tensor& draw_(at::Tensor& out, Dist dist, const DrawParams& params, Generator& gen, const RunOptions& run = {});
at::Tensor& draw_(at::Tensor& out, Dist dist, const DrawParams& params, const Key& key, uint64_t offset,
                  const RunOptions& run = {}, int stream = kStreamVersion);
// out = dropout(in) with the draw's Bernoulli(p) mask; in and out have the same
// shape, dtype and device (out may be in). Consumes in.numel() words.
at::Tensor& dropout_out(at::Tensor& out, const at::Tensor& in, double p, Generator& gen, const RunOptions& run = {});
at::Tensor& dropout_out(at::Tensor& out, const at::Tensor& in, double p, const Key& key, uint64_t offset,
                        const RunOptions& run = {});
// Shard `rank` of `world` of a permutation of [0, n): its elements
// [start, start + out.numel()) (see xrng::perm_shard), into an int64, int32,
// uint64 or uint32 `out`. Stateless: the permutation is named by (key, offset).
at::Tensor& perm_shard_out(at::Tensor& out, uint64_t n, const Key& key, uint64_t offset, uint64_t rank,
                           uint64_t world, uint64_t start, const RunOptions& run = {});

// ---- factories (torch-like) ----------------------------------------------------------
// A new tensor of `size` (opt: dtype, device; dtype defaults below) filled by
// the in-place function of the same distribution. Default dtypes: float32
// (rand, randn), int64 (randint, randperm), bool (bernoulli).
at::Tensor rand(at::IntArrayRef size, Generator& gen, at::TensorOptions opt = {}, double low = 0.0,
                double high = 1.0, const RunOptions& run = {});
at::Tensor randn(at::IntArrayRef size, Generator& gen, at::TensorOptions opt = {}, double mean = 0.0,
                 double std = 1.0, const RunOptions& run = {});
at::Tensor randint(int64_t low, int64_t high, at::IntArrayRef size, Generator& gen, at::TensorOptions opt = {},
                   const RunOptions& run = {});
at::Tensor bernoulli(at::IntArrayRef size, double p, Generator& gen, at::TensorOptions opt = {},
                     const RunOptions& run = {});
// A permutation of [0, n), n >= 1 (12 words of key, whatever n).
at::Tensor randperm(int64_t n, Generator& gen, at::TensorOptions opt = {}, const RunOptions& run = {});
// A new tensor: dropout of `in` (same shape, dtype and device).
at::Tensor dropout(const at::Tensor& in, double p, Generator& gen, const RunOptions& run = {});

// *_like: same size, dtype and device as `like` unless opt says otherwise.
at::Tensor rand_like(const at::Tensor& like, Generator& gen, at::TensorOptions opt = {}, double low = 0.0,
                     double high = 1.0, const RunOptions& run = {});
at::Tensor randn_like(const at::Tensor& like, Generator& gen, at::TensorOptions opt = {}, double mean = 0.0,
                      double std = 1.0, const RunOptions& run = {});
at::Tensor randint_like(const at::Tensor& like, int64_t low, int64_t high, Generator& gen,
                        at::TensorOptions opt = {}, const RunOptions& run = {});
at::Tensor bernoulli_like(const at::Tensor& like, double p, Generator& gen, at::TensorOptions opt = {},
                          const RunOptions& run = {});

// ---- in-place fills of existing tensors (contiguous or strided, any device) ---------------
// Each is draw_(t, <dist>, <params>, gen, run); the dtypes a tensor may have
// are the distribution's rows in rng/registry.h (see draw_dtype). For a
// stateless draw, call draw_ with a key and an offset.
at::Tensor& uniform_(at::Tensor& t, Generator& gen, double low = 0.0, double high = 1.0, const RunOptions& run = {});
at::Tensor& normal_(at::Tensor& t, Generator& gen, double mean = 0.0, double std = 1.0, const RunOptions& run = {});
at::Tensor& randint_(at::Tensor& t, int64_t low, int64_t high, Generator& gen, const RunOptions& run = {});
at::Tensor& bernoulli_(at::Tensor& t, double p, Generator& gen, const RunOptions& run = {});
// Raw stream bits into a uint32 (one word each) or uint64 (two words) tensor.
at::Tensor& bits_(at::Tensor& t, Generator& gen, const RunOptions& run = {});
// -log(u) / rate (torch's `lambd` is the rate); float tensors.
at::Tensor& exponential_(at::Tensor& t, Generator& gen, double rate = 1.0, const RunOptions& run = {});
// Trials up to the first success (>= 1), p in (0, 1]; float, int32 or int64 tensors.
at::Tensor& geometric_(at::Tensor& t, double p, Generator& gen, const RunOptions& run = {});
// exp(N(mean, std)); torch's defaults mean 1, std 2. Float tensors.
at::Tensor& log_normal_(at::Tensor& t, Generator& gen, double mean = 1.0, double std = 2.0,
                        const RunOptions& run = {});
// median + sigma tan(pi (u - 1/2)); float tensors.
at::Tensor& cauchy_(at::Tensor& t, Generator& gen, double median = 0.0, double sigma = 1.0,
                    const RunOptions& run = {});
at::Tensor& dropout_(at::Tensor& t, double p, Generator& gen, const RunOptions& run = {});

// Whether CUDA tensors take the CUDA kernels (built with them) on the automatic path.
bool has_cuda_kernels();

}  // namespace xrng::torch_api
