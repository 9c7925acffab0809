// Proves rng/torch_cpu.h's copies of Intel MKL's draws (mkl_ln_f32,
// MklExponential) against MKL itself (PyPI's `mkl` 2023.1, the MKL torch 2.0
// to 2.6's x86-64 wheels link statically), SPEC.md 14.7. Run by check_mkl.sh
// (not in CI: it downloads MKL). On a CPU that is not Intel's MKL runs its
// generic kernels, which these copies are; the program says which it runs.
//   1. mkl_ln_f32 against mkl_vml_kernel_sLn_EXHAynn (loaded from
//      libmkl_vml_def) on every positive normal float, and against vsLn (what
//      this CPU runs) on the same;
//   2. MklExponential against vsRngExponential / vdRngExponential on the MCG31
//      stream over its whole period (every x_i in [1, 2^31 - 2], so every input
//      exponential_ can see), lambda 1.5 and 1: float equal everywhere, float64
//      counted (glibc's log stands in for MKL's vdLn);
//   3. prints the known answers tests/test_torch_cpu.cpp holds.
#include <dlfcn.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "rng/torch_cpu.h"

extern "C" {
int vslNewStream(void**, int, unsigned);
int vslDeleteStream(void**);
int vsRngExponential(int, void*, int, float*, float, float);
int vdRngExponential(int, void*, int, double*, double, double);
void vmsLn(int, const float*, float*, long long);
}

namespace tc = xrng::torch_cpu;
using Kernel = void (*)(int, const float*, float*);

static uint32_t bits(float x) { return tc::detail::f2u(x); }

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: mkl_check MKL_LIB_DIR\n");
    return 2;
  }
  int failed = 0;
  float one = 1.0f, o;
  vmsLn(1, &one, &o, 2);  // (loads MKL's libraries)
  const std::string def = std::string(argv[1]) + "/libmkl_vml_def.so.2";
  void* h = dlopen(def.c_str(), RTLD_NOW | RTLD_GLOBAL);
  Kernel generic = h ? reinterpret_cast<Kernel>(dlsym(h, "mkl_vml_kernel_sLn_EXHAynn")) : nullptr;
  if (!generic) {
    std::fprintf(stderr, "mkl_check: %s: no mkl_vml_kernel_sLn_EXHAynn\n", def.c_str());
    return 2;
  }

  // 1. the logarithm, every positive normal float
  const int N = 1 << 20;
  std::vector<float> a(N), g(N), v(N);
  uint64_t bad_generic = 0, bad_vsln = 0, total = 0;
  std::vector<uint32_t> kat;  // inputs where MKL's ln is not the correctly rounded one
  for (uint32_t b0 = 0x00800000u; b0 < 0x7f800000u; b0 += N) {
    for (int i = 0; i < N; ++i) a[i] = tc::detail::u2f(b0 + i);
    generic(N, a.data(), g.data());
    vmsLn(N, a.data(), v.data(), 2);
    for (int i = 0; i < N; ++i) {
      const float m = tc::mkl_ln_f32(a[i]);
      bad_generic += bits(m) != bits(g[i]);
      bad_vsln += bits(m) != bits(v[i]);
      if (kat.size() < 24 && b0 >= 0x30000000u && b0 < 0x3f800000u && (i & 0xffff) == 0x1234 &&
          bits(m) != bits(static_cast<float>(std::log(static_cast<double>(a[i])))))
        kat.push_back(b0 + i);
      ++total;
    }
  }
  std::printf("mkl_ln_f32: %" PRIu64 " positive normal floats: %" PRIu64 " differ from sLn_EXHAynn, %" PRIu64
              " from this CPU's vsLn\n", total, bad_generic, bad_vsln);
  failed |= bad_generic != 0;

  // 2. exponential over the MCG31 period (seed word 1: x_0 = 1, then every x_i in [1, 2^31 - 2])
  std::vector<float> f(N);
  std::vector<double> d(N);
  for (double lambda : {1.5, 1.0}) {
    void* sf;
    void* sd;
    vslNewStream(&sf, 0x100000, 1);
    vslNewStream(&sd, 0x100000, 1);
    tc::MklExponential ef(1u), ed(1u);
    const float beta_f = static_cast<float>(1.0 / lambda);
    uint64_t bad_f = 0, bad_d = 0, n_total = 0;
    for (uint64_t done = 0; done < tc::Mcg31::kM - 1; done += N) {
      const int n = static_cast<int>(std::min<uint64_t>(N, tc::Mcg31::kM - 1 - done));
      vsRngExponential(0, sf, n, f.data(), std::numeric_limits<float>::min(), beta_f);
      vdRngExponential(0, sd, n, d.data(), std::numeric_limits<double>::min(), 1.0 / lambda);
      for (int i = 0; i < n; ++i) {
        const float mf = ef.next_f32(beta_f);
        const double md = ed.next_f64(1.0 / lambda);
        bad_f += bits(mf) != bits(f[i]);
        bad_d += std::memcmp(&md, &d[i], 8) != 0;
      }
      n_total += n;
    }
    vslDeleteStream(&sf);
    vslDeleteStream(&sd);
    std::printf("exponential lambda %g: %" PRIu64 " elements (the whole period): float %" PRIu64
                " differ, float64 %" PRIu64 " differ\n", lambda, n_total, bad_f, bad_d);
    failed |= bad_f != 0;
  }

  // 3. known answers for tests/test_torch_cpu.cpp (MKL's generic kernel)
  std::printf("known answers, mkl_ln_f32 (input bits, MKL's sLn bits):\n");
  for (uint32_t b : kat) {
    float x = tc::detail::u2f(b), r;
    generic(1, &x, &r);
    std::printf("  {0x%08xu, 0x%08xu},\n", b, bits(r));
  }
  std::printf("known answers, vsRngExponential seed word 123456789, lambda 1.5 (bits):\n ");
  void* s;
  vslNewStream(&s, 0x100000, 123456789u);
  vsRngExponential(0, s, 8, f.data(), std::numeric_limits<float>::min(), static_cast<float>(1.0 / 1.5));
  vslDeleteStream(&s);
  for (int i = 0; i < 8; ++i) std::printf(" 0x%08xu,", bits(f[i]));
  std::printf("\n%s\n", failed ? "FAILED" : "all equal");
  return failed;
}
