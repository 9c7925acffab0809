// Proves rng/torch_cpu.h's copies of Intel MKL's draws (mkl_ln_f32,
// mkl_ln_f32_l9, mkl_ln_f32_z0, MklExponential, MklBernoulli) against MKL
// itself (PyPI's `mkl` 2023.1, whose kernels are the code torch 2.0 to 2.6's
// x86-64 wheels link statically), SPEC.md 14.7. Run by check_mkl.sh (not in
// CI: it downloads MKL), twice: as the CPU is, and with MKL told the CPU is
// Intel's (`intel`: check_mkl.sh preloads a mkl_serv_intel_cpu_true that
// says so, and MKL then runs its l9 kernels on a CPU with AVX2, its z0 ones
// with AVX-512: what an Intel CPU runs, as their float code has only exactly
// specified instructions). On a CPU that is not Intel's MKL runs its generic
// kernels otherwise.
//   1. mkl_ln_f32 against mkl_vml_kernel_sLn_EXHAynn (loaded from
//      libmkl_vml_def) on every positive normal float, and against vsLn (what
//      MKL runs here) on the same; mkl_ln_f32_l9 against sLn_L9LAynn
//      (libmkl_vml_avx2; needs AVX2 and FMA) and mkl_ln_f32_z0 against
//      sLn_Z0LAynn (libmkl_vml_avx512; needs AVX-512, else SKIPPED) likewise;
//   2. MklExponential (kernel x86, or, `intel`, x86-intel / x86-intel-avx512
//      as the CPU has AVX-512) against vsRngExponential / vdRngExponential on
//      the MCG31 stream over its whole period (every x_i in [1, 2^31 - 2], so
//      every input exponential_ can see), lambda 1.5 and 1: float equal
//      everywhere, float64 (mkl_ln_f64) equal where MKL runs its generic
//      kernel and this CPU's rcpps is the one mkl_ln_f64's steps were
//      measured on (ln64_period.cpp checks that); with `intel`, counted
//      only (the l9 / z0 vdLn, refused by the streams);
//   3. MklBernoulli against viRngBernoulli at its threshold: for 4000
//      probabilities, the x on each side of limit_of(p) as the first element;
//   4. prints the known answers tests/test_torch_cpu.cpp holds.
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
int viRngBernoulli(int, void*, int, int*, double);
int vslDeleteStream(void**);
int vsRngExponential(int, void*, int, float*, float, float);
int vdRngExponential(int, void*, int, double*, double, double);
void vmsLn(int, const float*, float*, long long);
}

namespace tc = xrng::torch_cpu;
using Kernel = void (*)(int, const float*, float*);

static uint32_t bits(float x) { return tc::detail::f2u(x); }

// MKL's kernel `sym` from `lib` in MKL_LIB_DIR (exits if absent).
static Kernel kernel(const char* dir, const char* lib, const char* sym) {
  const std::string path = std::string(dir) + "/" + lib;
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  Kernel k = h ? reinterpret_cast<Kernel>(dlsym(h, sym)) : nullptr;
  if (!k) {
    std::fprintf(stderr, "mkl_check: %s: no %s\n", path.c_str(), sym);
    std::exit(2);
  }
  return k;
}

// Every positive normal float through `model` and MKL's kernel `k`: the count that differ.
template <class Model>
static uint64_t ln_differ(Kernel k, Model model) {
  const int N = 1 << 20;
  std::vector<float> a(N), g(N);
  uint64_t bad = 0;
  for (uint32_t b0 = 0x00800000u; b0 < 0x7f800000u; b0 += N) {
    for (int i = 0; i < N; ++i) a[i] = tc::detail::u2f(b0 + i);
    k(N, a.data(), g.data());
    for (int i = 0; i < N; ++i) bad += bits(model(a[i])) != bits(g[i]);
  }
  return bad;
}

int main(int argc, char** argv) {
  const bool intel = argc == 3 && std::strcmp(argv[2], "intel") == 0;
  if (argc != 2 && !intel) {
    std::fprintf(stderr, "usage: mkl_check MKL_LIB_DIR [intel]\n");
    return 2;
  }
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  if (intel && !avx2) {
    std::printf("intel: SKIPPED (no AVX2 and FMA: MKL's Intel kernels do not run here)\n");
    return 0;
  }
  // the kernel whose draws MKL gives here
  const tc::Kernel kern = !intel ? tc::Kernel::x86 : avx512 ? tc::Kernel::x86_intel_avx512 : tc::Kernel::x86_intel;
  std::printf("MKL as %s: rng/torch_cpu.h kernel %s\n", intel ? "on an Intel CPU" : "this CPU is",
              kern == tc::Kernel::x86 ? "x86" : avx512 ? "x86-intel-avx512" : "x86-intel");
  int failed = 0;
  float one = 1.0f, o;
  vmsLn(1, &one, &o, 2);  // (loads MKL's libraries)
  Kernel generic = kernel(argv[1], "libmkl_vml_def.so.2", "mkl_vml_kernel_sLn_EXHAynn");
  if (intel) {  // the Intel logarithms (the generic one and vsLn: the run without `intel`)
    if (avx2) {
      const uint64_t bad = ln_differ(kernel(argv[1], "libmkl_vml_avx2.so.2", "mkl_vml_kernel_sLn_L9LAynn"),
                                     [](float x) { return tc::mkl_ln_f32_l9(x); });
      std::printf("mkl_ln_f32_l9: every positive normal float: %" PRIu64 " differ from sLn_L9LAynn\n", bad);
      failed |= bad != 0;
    }
    if (avx512) {
      const uint64_t bad = ln_differ(kernel(argv[1], "libmkl_vml_avx512.so.2", "mkl_vml_kernel_sLn_Z0LAynn"),
                                     [](float x) { return tc::mkl_ln_f32_z0(x); });
      std::printf("mkl_ln_f32_z0: every positive normal float: %" PRIu64 " differ from sLn_Z0LAynn\n", bad);
      failed |= bad != 0;
    } else {
      std::printf("mkl_ln_f32_z0: SKIPPED (no AVX-512 here)\n");
    }
  }

  // 1. the logarithm, every positive normal float
  const int N = 1 << 20;
  std::vector<uint32_t> kat;  // inputs where MKL's ln is not the correctly rounded one
  if (!intel) {
    std::vector<float> a(N), g(N), v(N);
    uint64_t bad_generic = 0, bad_vsln = 0, total = 0;
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
  }

  // 2. exponential over the MCG31 period (seed word 1: x_0 = 1, then every x_i in [1, 2^31 - 2])
  std::vector<float> f(N);
  std::vector<double> d(N);
  for (double lambda : {1.5, 1.0}) {
    void* sf;
    void* sd;
    vslNewStream(&sf, 0x100000, 1);
    vslNewStream(&sd, 0x100000, 1);
    tc::MklExponential ef(1u, kern), ed(1u, kern);
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
                " differ, float64 %" PRIu64 " differ%s\n", lambda, n_total, bad_f, bad_d,
                intel ? " (Intel's vdLn: refused, not reproduced)" : "");
    failed |= bad_f != 0 || (!intel && bad_d != 0);
  }

  // 3. bernoulli at its threshold: p = k / 2000 and 2000 others, x_0 = limit - 1 (1) and limit (0)
  {
    uint64_t bad = 0, probes = 0, moved = 0;
    uint64_t z = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 4000; ++i) {
      z = z * 6364136223846793005ull + 1442695040888963407ull;
      const double p = i < 2000 ? (i + 1) / 2001.0 : static_cast<double>(z >> 11) * 0x1p-53;
      const uint32_t lim = tc::MklBernoulli::limit_of(p, kern);
      moved += lim != tc::MklBernoulli::limit_of(p);
      for (uint32_t x : {lim - 1, lim}) {
        if (x < 1 || x >= tc::Mcg31::kM) continue;
        void* sb;
        int b = -1;
        vslNewStream(&sb, 0x100000, x);  // (x_0 = x)
        viRngBernoulli(0, sb, 1, &b, p);
        vslDeleteStream(&sb);
        bad += b != (x < lim ? 1 : 0);
        ++probes;
      }
    }
    std::printf("bernoulli threshold: %" PRIu64 " probes, %" PRIu64 " differ (%" PRIu64
                " of the 4000 thresholds are not the generic kernel's)\n", probes, bad, moved);
    failed |= bad != 0;
  }
  if (intel) {
    std::printf("%s\n", failed ? "FAILED" : "all equal");
    return failed;
  }

  // 4. known answers for tests/test_torch_cpu.cpp (MKL's generic kernel)
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
