// host/torch_cpu.cpp's MklExponential loops (8 AVX2 lanes for float, with
// each kernel's uniform and logarithm: x86's generic one, x86-intel's and
// x86-intel-avx512's; 4 lanes with glibc's log vectorised for float64, where
// the CPU has them) against the header's element functions over the whole
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
  {
    MklExponential g64(1u), r64(1u);
    long long bad64 = 0, total = 0;
    for (int64_t done = 0; done < Mcg31::kM - 1; done += N) {
      const int64_t n = std::min<int64_t>(N, Mcg31::kM - 1 - done);
      mkl_exponential_f64(g64, n, beta, d.data());
      for (int64_t i = 0; i < n; ++i) {
        const double w = r64.next_f64(beta);
        bad64 += std::memcmp(&w, &d[i], 8) != 0;
      }
      total += n;
    }
    std::printf("host loop vs header, the whole period: %lld elements, float64 %lld differ\n", total, bad64);
    failed |= bad64 != 0;
  }
  for (Kernel k : {Kernel::x86, Kernel::x86_intel, Kernel::x86_intel_avx512}) {
    MklExponential g32(1u, k), r32(1u, k);
    long long bad32 = 0, total = 0;
    for (int64_t done = 0; done < Mcg31::kM - 1; done += N) {
      const int64_t n = std::min<int64_t>(N, Mcg31::kM - 1 - done);
      mkl_exponential_f32(g32, n, beta_f, f.data());
      for (int64_t i = 0; i < n; ++i) {
        const float v = r32.next_f32(beta_f);
        bad32 += std::memcmp(&v, &f[i], 4) != 0;
      }
      total += n;
    }
    std::printf("host loop vs header, kernel %s, the whole period: %lld elements, float %lld differ\n",
                k == Kernel::x86 ? "x86" : k == Kernel::x86_intel ? "x86-intel" : "x86-intel-avx512", total, bad32);
    failed |= bad32 != 0;
  }
  return failed;
}
