// xrng's torch operators (ops.cpp): the C++ entries that call through the
// dispatcher, so C++ callers get the dispatch Python and torch.compile get
// (autograd, FakeTensor, Meta, any backend). A position tensor is 4 int64
// elements [seed, subseq, offset, stream] (u64 values by bit pattern): where
// a draw starts; a Generator's state tensor has the same layout.
#pragma once

#include <ATen/ATen.h>

#include <string>

#include "xrng_torch.h"

namespace xrng::torch_api {

struct DrawPosition {
  Key key;
  uint64_t offset = 0;
  int stream = kStreamVersion;
};

// A new CPU position tensor [seed, subseq, offset, stream].
at::Tensor position_tensor(const Key& key, uint64_t offset, int stream = kStreamVersion);
// The real / integer parameters of `dist` from DrawParams, in the registry's
// order (the operators' `reals` and `ints` arguments).
void split_params(Dist dist, const DrawParams& q, std::vector<double>& reals, std::vector<int64_t>& ints);

// The position a position tensor holds (any device); xrng::Error naming
// `what` unless it is an int64 tensor of 4 elements with a known stream.
DrawPosition read_position(const at::Tensor& pos, const char* what);
// The operators' `reals` / `ints` back to DrawParams, by the registry's
// parameter order and kinds (split_params' inverse; missing trailing
// parameters keep their defaults, extra ones are an xrng::Error).
DrawParams params_of(Dist d, c10::ArrayRef<double> reals, c10::ArrayRef<int64_t> ints);

// The stateless kernels behind the operators (no dispatcher): the work of
// draw_, dropout_out and perm_shard_out at (key, offset).
at::Tensor& draw_direct(at::Tensor& out, Dist dist, const DrawParams& params, const Key& key, uint64_t offset,
                        const RunOptions& run, int stream);
at::Tensor& dropout_direct(at::Tensor& out, const at::Tensor& in, double p, const Key& key, uint64_t offset,
                           const RunOptions& run);
at::Tensor& perm_shard_direct(at::Tensor& out, uint64_t n, const Key& key, uint64_t offset, uint64_t rank,
                              uint64_t world, uint64_t start, const RunOptions& run);

// The same draws at a position tensor on the output's GPU
// (detail::device_position: CUDA kernels built, position and output on one
// GPU): the kernels read [seed, subseq, offset, stream] when they run,
// nothing reads it on the host, so a CUDA graph replay draws at what the
// position holds then. Planned for the newest stream version (the kernels
// check that the position holds it; the host cannot, without a sync).
at::Tensor& draw_at_device(at::Tensor& out, Dist dist, const DrawParams& params, const at::Tensor& position);
at::Tensor& dropout_at_device(at::Tensor& out, const at::Tensor& in, double p, const at::Tensor& position);
at::Tensor& perm_shard_at_device(at::Tensor& out, uint64_t n, const at::Tensor& position, uint64_t rank,
                                 uint64_t world, uint64_t start);

// The work of xrng::take_ without the dispatcher: advances `state` past a
// draw of `numel` elements and returns the position before. `scratch`: the
// returned position may be the thread's reused scratch tensor (an eager
// caller that does not keep it).
at::Tensor take_direct(at::Tensor& state, Dist d, const DrawParams& q, at::ScalarType dtype, int64_t numel,
                       bool scratch = true);

// take_direct's advance, returning the position as values (no tensor).
DrawPosition take_position(at::Tensor& state, Dist d, const DrawParams& q, at::ScalarType dtype, int64_t numel);

namespace ops {
// xrng::take_: the position a draw of `numel` elements of (dist, dtype,
// params) starts at; advances `state` (a position tensor) past it.
at::Tensor take_(at::Tensor& state, const std::string& dist, c10::ArrayRef<double> reals,
                 c10::ArrayRef<int64_t> ints, at::ScalarType dtype, int64_t numel);
// xrng::draw: a new tensor of `size`, `dtype` on `device` with the draw at `position`.
at::Tensor draw(at::IntArrayRef size, const std::string& dist, c10::ArrayRef<double> reals,
                c10::ArrayRef<int64_t> ints, const at::Tensor& position, at::ScalarType dtype, c10::Device device);
// xrng::draw_: fills `out` (any strides) with the draw at `position`.
at::Tensor& draw_(at::Tensor& out, const std::string& dist, c10::ArrayRef<double> reals,
                  c10::ArrayRef<int64_t> ints, const at::Tensor& position);
// xrng::dropout: dropout of `in` with the Bernoulli(p) mask at `position`; differentiable
// (the backward regenerates the mask).
at::Tensor dropout(const at::Tensor& in, double p, const at::Tensor& position);
// xrng::perm_shard: elements [start, start + count) of shard rank/world of the
// permutation of [0, n) at `position`.
at::Tensor perm_shard(int64_t n, const at::Tensor& position, int64_t rank, int64_t world, int64_t start,
                      int64_t count, at::ScalarType dtype, c10::Device device);
}  // namespace ops

}  // namespace xrng::torch_api
