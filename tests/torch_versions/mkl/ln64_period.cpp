// Proves rng/torch_cpu.h's mkl_ln_f64 (MKL's generic double-precision
// logarithm, mkl_vml_kernel_dLn_EXHAynn) against the kernel itself, loaded
// from LIB (PyPI mkl's libmkl_vml_def.so.2, or a torch x86-64 wheel's
// libtorch_cpu.so, which exports its static MKL's kernels), on every float64
// uniform of torch 2.0 to 2.6's exponential_ (u = x / (2^31 - 1), x in
// [1, 2^31 - 2]), and counts how many differ from glibc's log (what stood in
// before, detail::glibc_log). Also checks this CPU's rcpps against the steps
// the model holds (kMklRcpSteps, measured on an AMD EPYC of family 25): where
// they differ, the kernel's values are this CPU's and the model's that one's,
// so a difference in values is reported, not failed. Run by check_mkl.sh.
//   g++ -std=c++17 -O2 -ffp-contract=off -I. tests/torch_versions/mkl/ln64_period.cpp -ldl -o ln64_period
//   MKL_THREADING_LAYER=SEQUENTIAL ./ln64_period LIB
#include <dlfcn.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "rcpps.h"
#include "rng/torch_cpu.h"

namespace tc = xrng::torch_cpu;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ln64_period LIB\n");
    return 2;
  }
  // PyPI's MKL: libmkl_rt beside LIB loads the layers libmkl_vml_def needs (its first vmdLn call)
  std::string rt = argv[1];
  rt = rt.substr(0, rt.find_last_of('/') + 1) + "libmkl_rt.so.2";
  if (void* hr = dlopen(rt.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
    double one = 1.0, o;
    if (auto vmd = reinterpret_cast<void (*)(int, const double*, double*, long long)>(dlsym(hr, "vmdLn")))
      vmd(1, &one, &o, 2);
  }
  void* h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  auto k = h ? reinterpret_cast<void (*)(int, const double*, double*)>(dlsym(h, "mkl_vml_kernel_dLn_EXHAynn"))
             : nullptr;
  if (!k) {
    std::fprintf(stderr, "ln64_period: %s: no mkl_vml_kernel_dLn_EXHAynn (%s)\n", argv[1], dlerror());
    return 2;
  }
  // this CPU's rcpps, rounded as the kernel rounds it, against the steps
  uint64_t rcp_moved = 0;
  for (uint32_t m = 0; m <= (1u << 23); ++m) rcp_moved += host_rcp_R(m) != tc::kMklRcpR[m >> 10];
  const uint32_t kM = 0x7fffffffu;
  const int N = 1 << 20;
  std::vector<double> u(N), g(N);
  uint64_t bad = 0, glibc = 0, total = 0;
  for (uint64_t x0 = 1; x0 < kM; x0 += N) {
    const int n = static_cast<int>(std::min<uint64_t>(N, kM - x0));
    for (int i = 0; i < n; ++i) u[i] = static_cast<double>(x0 + i) * (1.0 / kM);
    k(n, u.data(), g.data());
    for (int i = 0; i < n; ++i) {
      const double m = tc::mkl_ln_f64(u[i]), l = tc::detail::glibc_log(u[i]);
      bad += std::memcmp(&m, &g[i], 8) != 0;
      glibc += std::memcmp(&l, &g[i], 8) != 0;
    }
    total += n;
  }
  std::printf("mkl_ln_f64: %" PRIu64 " float64 uniforms x / (2^31 - 1): %" PRIu64
              " differ from %s's dLn_EXHAynn (glibc's log: %" PRIu64 "); this CPU's rcpps moves R at %" PRIu64
              " of 2^23 + 1 mantissas\n", total, bad, argv[1], glibc, rcp_moved);
  if (rcp_moved != 0) {
    std::printf("SKIPPED the verdict: this CPU's rcpps is not the one the steps were measured on\n");
    return 0;
  }
  return bad != 0;
}
