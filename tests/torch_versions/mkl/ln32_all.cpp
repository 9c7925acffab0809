// Runs one of MKL's single-precision logarithm kernels natively from LIB (a
// torch x86-64 wheel's libtorch_cpu.so, which carries and exports its static
// MKL's kernels, or PyPI mkl's libmkl_vml_*.so.2) on every positive normal
// float and compares it with rng/torch_cpu.h's copy MODEL: generic
// (mkl_ln_f32), l9 (mkl_ln_f32_l9) or e9 (mkl_ln_f32_e9; the kernels
// sLn_E9LAynn and sLn_E7LAynn of torch 2.0.1 to 2.4.1, sLn_H8LAynn of 2.5.1
// on). The CPU must have the kernel's ISA. Run by check_mkl.sh.
//   g++ -std=c++17 -O2 -ffp-contract=off -I. tests/torch_versions/mkl/ln32_all.cpp -ldl -o ln32_all
//   ./ln32_all LIB mkl_vml_kernel_sLn_H8LAynn e9
#include <dlfcn.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

#include "rng/torch_cpu.h"

namespace tc = xrng::torch_cpu;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: ln32_all LIB SYMBOL generic|l9|e9\n");
    return 2;
  }
  const std::string model = argv[3];
  float (*ln)(float) = model == "generic" ? tc::mkl_ln_f32 : model == "l9" ? tc::mkl_ln_f32_l9
                       : model == "e9"    ? tc::mkl_ln_f32_e9 : nullptr;
  void* h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  auto k = h ? reinterpret_cast<void (*)(int, const float*, float*)>(dlsym(h, argv[2])) : nullptr;
  if (!ln || !k) {
    std::fprintf(stderr, "ln32_all: %s\n", !ln ? "MODEL must be generic, l9 or e9" : dlerror());
    return 2;
  }
  const int N = 1 << 20;
  std::vector<float> a(N), g(N);
  uint64_t bad = 0, total = 0;
  for (uint32_t b0 = 0x00800000u; b0 < 0x7f800000u; b0 += N) {
    for (int i = 0; i < N; ++i) a[i] = tc::detail::u2f(b0 + i);
    k(N, a.data(), g.data());
    for (int i = 0; i < N; ++i) bad += tc::detail::f2u(ln(a[i])) != tc::detail::f2u(g[i]);
    total += N;
  }
  std::printf("%s of %s: %" PRIu64 " positive normal floats, %" PRIu64 " differ from mkl_ln_f32%s\n", argv[2],
              argv[1], total, bad, model == "generic" ? "" : ("_" + model).c_str());
  return bad != 0;
}
