// The torch-cpu stream's word loop (rng/torch_cpu.h): 2^20 float32 uniforms
// drawn by MT19937::generate (runs between refills, vectorised) against one
// engine call per word, the same values (checked). Header-only, not built by
// CMake; by hand, from the repository root:
//   g++ -O3 -mavx2 -mfma -ffp-contract=off -std=c++17 -I. bench/torch_cpu_words.cpp -o /tmp/words && /tmp/words
// Not a test: timing only (docs/torch-cpu-speed.md, seventh session).
#include "rng/torch_cpu.h"
#include <chrono>
#include <cstdio>
#include <vector>
namespace tc = xrng::torch_cpu;
int main() {
  const int64_t n = 1 << 20;
  std::vector<float> a(n), b(n);
  for (int rep = 0; rep < 3; ++rep) {
    tc::State s1(1), s2(1);
    auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < 20; ++k) tc::uniforms_f32(s1, a.data(), n);
    auto t1 = std::chrono::steady_clock::now();
    for (int k = 0; k < 20; ++k) for (int64_t i = 0; i < n; ++i) b[i] = tc::uniform_f32(s2.random());
    auto t2 = std::chrono::steady_clock::now();
    std::printf("generate %.3f ms, loop %.3f ms per 2^20, equal %d\n",
                std::chrono::duration<double, std::milli>(t1 - t0).count() / 20,
                std::chrono::duration<double, std::milli>(t2 - t1).count() / 20, a == b);
  }
}
