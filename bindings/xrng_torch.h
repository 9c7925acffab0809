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
#pragma once

#include <ATen/ATen.h>

#include <array>
#include <cstdint>
#include <optional>

#include "../host/xrng.h"

namespace xrng::torch_api {

enum class Path { automatic, host_transfer };

struct RunOptions {
  Path path = Path::automatic;
  int threads = 0;  // host threads; 0: at::get_num_threads()
};

// A stateful generator: a key and a word offset, nothing else. Every draw
// starts at offset() and advances it by the words the draw consumes
// (plan_words), so draws from a Generator equal draws at explicit offsets.
class Generator {
 public:
  static constexpr size_t kStateBytes = 32;
  explicit Generator(uint64_t seed = 0, uint64_t subseq = 0, uint64_t offset = 0) : g_(seed, subseq, offset) {}
  Generator(const Key& key, uint64_t offset) : g_(key, offset) {}

  uint64_t seed() const { return g_.key().seed; }
  uint64_t subseq() const { return g_.key().subseq; }
  uint64_t offset() const { return g_.offset(); }
  const Key& key() const { return g_.key(); }
  void set_offset(uint64_t w) { g_.set_offset(w); }
  // Moves the offset past a draw of `count` elements of `plan` without drawing.
  void skip(const Plan& plan, uint64_t count) { g_.skip(plan, count); }

  // Serialised state: a CPU uint8 tensor of kStateBytes bytes, little endian:
  // "XRNG", stream version (u32), seed, subseq, offset (u64 each).
  at::Tensor get_state() const;
  std::array<uint8_t, kStateBytes> state_bytes() const;
  // Throws xrng::Error on a malformed state or another stream version.
  void set_state(const at::Tensor& state);
  void set_state_bytes(const uint8_t* bytes, size_t n);

  // Sub-streams on derived keys, starting at offset 0 (Key::split / fold_in).
  Generator fork(uint64_t i) const { return Generator(g_.key().split(i), 0); }
  Generator fold_in(uint64_t data) const { return Generator(g_.key().fold_in(data), 0); }

  xrng::Generator& core() { return g_; }

 private:
  xrng::Generator g_;
};

// ---- the generic entry points ----------------------------------------------------------
// The xrng output type that a (distribution, tensor dtype) pair draws in
// (randint into int16/int8/uint8 draws i32 and casts). Throws xrng::Error when
// the pair has no draw.
DType draw_dtype(Dist dist, at::ScalarType t);

// Fills `out` (any device, any strides) with elements [0, out.numel()) of the
// draw `plan` (plan.dtype must be draw_dtype(plan.dist, out.scalar_type())) and
// advances `gen`. Returns out.
at::Tensor& fill_(at::Tensor& out, const Plan& plan, Generator& gen, const RunOptions& run = {});
// out = dropout(in) with the draw's Bernoulli(p) mask; in and out have the same
// shape, dtype and device (out may be in). Advances gen by in.numel() words.
at::Tensor& dropout_out(at::Tensor& out, const at::Tensor& in, double p, Generator& gen, const RunOptions& run = {});
// Shard `rank` of `world` of a permutation of [0, n): its elements
// [start, start + out.numel()) (see xrng::perm_shard), into int64/int32 `out`.
// Does not advance anything: the permutation is named by (key, offset).
at::Tensor& perm_shard_out(at::Tensor& out, uint64_t n, const Key& key, uint64_t offset, uint64_t rank,
                           uint64_t world, uint64_t start, const RunOptions& run = {});

// ---- factories (torch-like) ----------------------------------------------------------
// Default dtypes: float32 (rand, randn), int64 (randint, randperm), bool (bernoulli).
at::Tensor rand(at::IntArrayRef size, Generator& gen, at::TensorOptions opt = {}, double low = 0.0,
                double high = 1.0, const RunOptions& run = {});
at::Tensor randn(at::IntArrayRef size, Generator& gen, at::TensorOptions opt = {}, double mean = 0.0,
                 double std = 1.0, const RunOptions& run = {});
at::Tensor randint(int64_t low, int64_t high, at::IntArrayRef size, Generator& gen, at::TensorOptions opt = {},
                   const RunOptions& run = {});
at::Tensor bernoulli(at::IntArrayRef size, double p, Generator& gen, at::TensorOptions opt = {},
                     const RunOptions& run = {});
at::Tensor randperm(int64_t n, Generator& gen, at::TensorOptions opt = {}, const RunOptions& run = {});
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

// ---- in-place fills of existing tensors (contiguous or strided) ----------------------
at::Tensor& uniform_(at::Tensor& t, Generator& gen, double low = 0.0, double high = 1.0, const RunOptions& run = {});
at::Tensor& normal_(at::Tensor& t, Generator& gen, double mean = 0.0, double std = 1.0, const RunOptions& run = {});
at::Tensor& randint_(at::Tensor& t, int64_t low, int64_t high, Generator& gen, const RunOptions& run = {});
at::Tensor& bernoulli_(at::Tensor& t, double p, Generator& gen, const RunOptions& run = {});
at::Tensor& dropout_(at::Tensor& t, double p, Generator& gen, const RunOptions& run = {});

// Whether CUDA tensors take the CUDA kernels (built with them) on the automatic path.
bool has_cuda_kernels();

}  // namespace xrng::torch_api
