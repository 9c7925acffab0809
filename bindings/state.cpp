// The serialised state of a Generator: Generator::save_state / load_state
// (host/xrng.h, SPEC.md section 7), 32 bytes, little endian,
//   "XRNG" | stream version (u32) | seed (u64) | subseq (u64) | offset (u64).
// The stream version is the generator's own: restoring a state restores the
// stream it drew, so a v1 state keeps drawing v1 (and a state of a version
// this library does not produce is refused, not silently replayed in another).
// A v1 state's bytes are those of every earlier release
// (tests/python/test_state.py pins both versions' bytes).
#include <cstring>
#include <string>

#include "detail/dtypes.h"
#include "detail/paths.h"
#include "xrng_torch.h"

namespace xrng::torch_api {

std::array<uint8_t, kStateBytes> state_bytes(const Generator& gen) { return gen.save_state(); }

void set_state_bytes(Generator& gen, const uint8_t* b, size_t n) {
  try {
    gen = Generator::load_state(b, n);
  } catch (const Error& e) {
    // the message of every release: "Generator.set_state: ..."
    const std::string m = e.what();
    const std::string prefix = "Generator state: ";
    throw Error("Generator.set_state: " + (m.rfind(prefix, 0) == 0 ? m.substr(prefix.size()) : m));
  }
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
