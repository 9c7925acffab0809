// Positions read from memory at run time: the counter logic of draws that a
// CUDA graph replays (bindings: a Generator whose state tensor lives on the
// GPU). CUDA-free, __host__ __device__: the CUDA kernels run it on the
// device, and the host (the bindings' CPU path, tests/gpu/test_cuda_host.cpp)
// runs the very same functions, so the CPU tests prove the arithmetic.
//
// A position is 4 int64 words in memory, [seed, subseq, offset, stream]
// (u64 values by their bit pattern), the layout of the bindings' position
// and state tensors (bindings/ops.h). Where the position is known on the
// host at launch, the launch takes (key, offset) by value (xrng_cuda.h); a
// launch given a position *pointer* instead reads it when the kernel runs:
// a captured CUDA graph then draws, on each replay, at whatever the
// position holds at that moment. What the host must know at launch (the
// kernel, the plan: dist, dtype, parameters, stream version; the shape)
// never depends on the position's words, so a replay may change them.
//
// take_words is the advance of a generator state by a draw's words (the
// operator xrng::take_): a copy of the state before, then offset += words,
// refused (nothing written) when the offset would pass 2^64 - 1, the rule
// of xrng::Generator (host/fill.cpp, reserve). check_position is a draw's
// check of a position read at run time: the stream version the launch was
// planned for and the words the draw touches below 2^64 (check_counters).
#pragma once

#include <cstdint>

#include "../rng/config.h"
#include "../rng/keys.h"

namespace xrng::cuda {

// Why a position read at run time cannot be used (0: it can).
enum class PositionStatus : uint32_t {
  ok = 0,
  stream = 1,     // its stream version is not the one the launch was planned for
  exhausted = 2,  // the draw's words would pass word 2^64 - 1 (take) or 2^64 (draw)
};

// The position's fields (u64 by bit pattern).
struct RunPosition {
  Key key;
  uint64_t offset = 0;
  int64_t stream = 0;
};

XRNG_HD XRNG_INLINE RunPosition load_position(const int64_t* pos) {
  RunPosition p;
  p.key = Key(static_cast<uint64_t>(pos[0]), static_cast<uint64_t>(pos[1]));
  p.offset = static_cast<uint64_t>(pos[2]);
  p.stream = pos[3];
  return p;
}

// A draw planned for stream version `stream` whose last word is word
// `last` past the position's offset (the words of elements [0, end) of its
// plan, minus one, modulo 2^64: plan_words(p, end) - 1, so a draw of all
// 2^64 words is last = 2^64 - 1): ok when the position holds that version
// and the last word is at most word 2^64 - 1 (check_counters' rule for a
// stateless draw).
XRNG_HD XRNG_INLINE PositionStatus check_position(const RunPosition& p, int stream, uint64_t last) {
  if (p.stream != stream) return PositionStatus::stream;
  if (last > ~p.offset) return PositionStatus::exhausted;
  return PositionStatus::ok;
}

// Advances the generator state `state` by `words` for a draw planned for
// stream version `stream`: writes the state before to `before` (4 words)
// and offset + words to state[2]. Refused, state unchanged, before still
// written, when the state holds another stream version or words > ~offset
// (the offset would pass 2^64 - 1: the generator is exhausted).
XRNG_HD XRNG_INLINE PositionStatus take_words(int64_t* state, int64_t* before, int stream, uint64_t words) {
  for (int i = 0; i < 4; ++i) before[i] = state[i];
  const RunPosition p = load_position(before);
  if (p.stream != stream) return PositionStatus::stream;
  if (words > ~p.offset) return PositionStatus::exhausted;
  state[2] = static_cast<int64_t>(p.offset + words);
  return PositionStatus::ok;
}

}  // namespace xrng::cuda
