// The LibTorch C++ API of xrng (bindings/xrng_torch.h) in a C++ program.
//
// Draws a few tensors the way a training program would (a Generator advancing
// draw by draw, stateless draws at explicit offsets, in-place fills of a
// strided tensor, state save/restore) and prints one line per draw:
//   <name> <SHA-256 of the tensor's bytes, row-major> <generator offset after>
// tests/python/test_examples.py checks every line against the Python package
// and, through it, against `xrng gen`.
//
// Built with the Python package (target xrng_torch_example in bindings/CMakeLists.txt).
#include <cstdio>
#include <string>

#include "bindings/xrng_torch.h"
#include "tools/sha256.h"

namespace xt = xrng::torch_api;

namespace {

std::string sha256(const at::Tensor& t) {
  const at::Tensor c = t.to(at::kCPU).contiguous();
  xrng::tools::Sha256 h;
  h.update(c.data_ptr(), c.numel() * c.element_size());
  return h.hex();
}

void show(const char* name, const at::Tensor& t, const xt::Generator& g) {
  std::printf("%s %s %llu\n", name, sha256(t).c_str(), static_cast<unsigned long long>(g.offset()));
}

}  // namespace

int main() {
  try {
    xt::Generator g(2024, 1);
    show("randn", xt::randn({64, 33}, g), g);
    show("rand_f64", xt::rand({100}, g, at::TensorOptions().dtype(at::kDouble), -2.0, 2.0), g);
    show("randn_bf16", xt::randn({7, 9}, g, at::TensorOptions().dtype(at::kBFloat16), 0.5, 2.0), g);
    show("randint", xt::randint(-50, 50, {1000}, g), g);
    show("randint_i8", xt::randint(-50, 50, {1000}, g, at::TensorOptions().dtype(at::kChar)), g);
    show("bernoulli", xt::bernoulli({500}, 0.25, g), g);
    show("randperm", xt::randperm(1000, g), g);
    show("dropout", xt::dropout(at::ones({300}), 0.2, g), g);

    // In-place fill of a strided tensor: element i in row-major order is draw element i.
    at::Tensor s = at::zeros({6, 8}).t();
    xt::Generator gs(7);
    xt::normal_(s, gs);
    show("strided_normal", s, gs);

    // Save the state, draw, restore, draw again: the same values.
    const at::Tensor state = xt::get_state(g);
    const at::Tensor a = xt::randn_like(at::empty({5, 5}), g);
    xt::set_state(g, state);
    const at::Tensor b = xt::randn_like(at::empty({5, 5}), g);
    std::printf("restore %s\n", a.equal(b) ? "same" : "DIFFERENT");

    // Errors are exceptions (xrng::Error, a std::invalid_argument), not crashes.
    try {
      xt::bernoulli({3}, 1.5, g);
      std::printf("bad_p accepted\n");
    } catch (const xrng::Error& e) {
      std::printf("bad_p rejected: %s\n", e.what());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "torch_api: %s\n", e.what());
    return 1;
  }
}
