// The serialised state of a Generator (xrng_torch.h): 32 bytes, little endian,
//   "XRNG" | stream version (u32) | seed (u64) | subseq (u64) | offset (u64).
// The stream version is part of it so that a checkpoint written under one
// stream version is refused, not silently replayed, under another. The bytes
// are those of every earlier release (tests/python/test_state.py).
#include <cstring>
#include <string>

#include "detail/dtypes.h"
#include "detail/paths.h"
#include "xrng_torch.h"

namespace xrng::torch_api {
namespace {

constexpr char kMagic[4] = {'X', 'R', 'N', 'G'};

void put_le(uint8_t* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t get_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace

std::array<uint8_t, kStateBytes> state_bytes(const Generator& gen) {
  std::array<uint8_t, kStateBytes> b{};
  std::memcpy(b.data(), kMagic, 4);
  put_le(b.data() + 4, static_cast<uint32_t>(kStreamVersion), 4);
  put_le(b.data() + 8, gen.key().seed, 8);
  put_le(b.data() + 16, gen.key().subseq, 8);
  put_le(b.data() + 24, gen.offset(), 8);
  return b;
}

void set_state_bytes(Generator& gen, const uint8_t* b, size_t n) {
  if (n != kStateBytes || b == nullptr || std::memcmp(b, kMagic, 4) != 0)
    throw Error("Generator.set_state: not an xrng generator state (expected " + std::to_string(kStateBytes) +
                " bytes starting with 'XRNG', got " + std::to_string(n) + " bytes)");
  const uint64_t v = get_le(b + 4, 4);
  if (v != static_cast<uint64_t>(kStreamVersion))
    throw Error("Generator.set_state: the state is for stream version " + std::to_string(v) + ", this is version " +
                std::to_string(kStreamVersion));
  gen = Generator(Key(get_le(b + 8, 8), get_le(b + 16, 8)), get_le(b + 24, 8));
}

at::Tensor get_state(const Generator& gen) {
  const auto b = state_bytes(gen);
  at::Tensor t = at::empty({static_cast<int64_t>(kStateBytes)}, at::TensorOptions().dtype(at::kByte));
  std::memcpy(t.data_ptr(), b.data(), kStateBytes);
  return t;
}

void set_state(Generator& gen, const at::Tensor& state) {
  detail::check_writable(state, "Generator.set_state");
  if (state.scalar_type() != at::kByte || state.dim() != 1)
    throw Error("Generator.set_state: expected a 1-D torch.uint8 tensor (got " +
                detail::torch_name(state.scalar_type()) + " with " + std::to_string(state.dim()) +
                " dimensions)");
  const at::Tensor c = state.to(at::kCPU).contiguous();
  set_state_bytes(gen, c.data_ptr<uint8_t>(), static_cast<size_t>(c.numel()));
}

}  // namespace xrng::torch_api
