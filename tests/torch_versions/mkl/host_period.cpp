// host/torch_cpu.cpp's MklExponential loops (8 AVX2 lanes for float, 4 with
// glibc's log vectorised for float64, where the CPU has them) against the
// header's element functions over the whole MCG31 period (every x_i in
// [1, 2^31 - 2]), lambda 1.5. Built and run by check_mkl.sh (about 90 s);
// includes the .cpp to reach its internal loops.
#include "host/torch_cpu.cpp"

#include <cstdio>
#include <vector>

using namespace xrng::torch_cpu;

int main() {
  const int64_t N = 1 << 22;
  std::vector<double> d(N);
  std::vector<float> f(N);
  MklExponential g64(1u), r64(1u), g32(1u), r32(1u);
  const double beta = 1.0 / 1.5;
  const float beta_f = static_cast<float>(beta);
  long long bad64 = 0, bad32 = 0, total = 0;
  for (int64_t done = 0; done < Mcg31::kM - 1; done += N) {
    const int64_t n = std::min<int64_t>(N, Mcg31::kM - 1 - done);
    mkl_exponential_f64(g64, n, beta, d.data());
    mkl_exponential_f32(g32, n, beta_f, f.data());
    for (int64_t i = 0; i < n; ++i) {
      const double w = r64.next_f64(beta);
      const float v = r32.next_f32(beta_f);
      bad64 += std::memcmp(&w, &d[i], 8) != 0;
      bad32 += std::memcmp(&v, &f[i], 4) != 0;
    }
    total += n;
  }
  std::printf("host loops vs header, the whole period: %lld elements, float %lld differ, float64 %lld differ\n",
              total, bad32, bad64);
  return bad32 != 0 || bad64 != 0;
}
