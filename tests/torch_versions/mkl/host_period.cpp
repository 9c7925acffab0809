// host/torch_cpu.cpp's MklExponential loops (8 AVX2 lanes for float, with
// each kernel's uniform and logarithm: x86's generic one, x86-intel's,
// x86-intel-avx512's and scalar-intel's; 4 lanes of mkl_ln_f64 for float64,
// where the CPU has them) against the header's element functions over the whole
// MCG31 period (every x_i in [1, 2^31 - 2]), lambda 1.5. Built and run by
// check_mkl.sh (about 3 minutes); includes the .cpp to reach its internal
// loops.
#include "host/torch_cpu.cpp"

#include <cstdio>
#include <vector>

using namespace xrng::torch_cpu;

int main() {
  const int64_t N = 1 << 22;
  std::vector<double> d(N);
  std::vector<float> f(N);
  const double beta = 1.0 / 1.5;
  const float beta_f = static_cast<float>(beta);
  int failed = 0;
  // kernel k's loop (f64: the float64 one, the same on every kernel) against the header over the period
  for (int run = 0; run < 5; ++run) {
    const bool f64 = run == 0;
    const Kernel k = run <= 1    ? Kernel::x86
                     : run == 2 ? Kernel::x86_intel
                     : run == 3 ? Kernel::x86_intel_avx512
                                : Kernel::scalar_intel;
    MklExponential g(1u, k), ref(1u, k);
    long long bad = 0, total = 0;
    for (int64_t done = 0; done < Mcg31::kM - 1; done += N) {
      const int64_t n = std::min<int64_t>(N, Mcg31::kM - 1 - done);
      if (f64) mkl_exponential_f64(g, n, beta, d.data());
      else mkl_exponential_f32(g, n, beta_f, f.data());
      for (int64_t i = 0; i < n; ++i) {
        if (f64) {
          const double w = ref.next_f64(beta);
          bad += std::memcmp(&w, &d[i], 8) != 0;
        } else {
          const float v = ref.next_f32(beta_f);
          bad += std::memcmp(&v, &f[i], 4) != 0;
        }
      }
      total += n;
    }
    std::printf("host loop vs header, %s, the whole period: %lld elements, %lld differ\n",
                f64                           ? "float64"
                : k == Kernel::x86            ? "float x86"
                : k == Kernel::x86_intel      ? "float x86-intel"
                : k == Kernel::scalar_intel   ? "float scalar-intel"
                                              : "float x86-intel-avx512",
                total, bad);
    failed |= bad != 0;
  }
  return failed;
}
