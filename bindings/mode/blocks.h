// DTensor shard blocks of the reproducible mode: the region a DTensor RNG
// tracker opens on a thread (block_begin / block_end of mode.h, in
// blocks.cpp), read by the draws (draws.cpp).
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace xrng::torch_api::mode::detail {

// A DTensor shard's draw (the mode's DTensor RNG tracker, python/xrng/_dispatch.py):
// while set on this thread, a fill of a tensor of the shard's local shape is
// the block [start, start + local) of the draw over the global shape, and
// takes the words of the global draw, so every rank's shard is the
// unsharded tensor's block and all ranks' streams stay together.
struct BlockContext {
  bool active = false;
  std::vector<int64_t> global, start, local;
  std::optional<at::Generator> gen;  // the program's generator (DTensor hands it to its tracker)
};
extern thread_local BlockContext t_block;  // (blocks.cpp)

bool in_block(const at::Tensor& t);

}  // namespace xrng::torch_api::mode::detail
