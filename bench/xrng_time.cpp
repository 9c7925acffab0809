// Timing helper of bench/compare.py: ns per element of xrng's CPU fills and
// of the C++ standard library's mt19937 distributions, printed as JSON.
//
//   xrng_time [--n N] [--threads T] [--reps R] [--isa ISA] [--ops a,b,...] [--no-scalar] [--cpu-time]
//
// The f32 normal is timed in both stream versions (op "normal_f32" is the
// default stream, v2; "normal_f32_v1" the binary64 transform of stream 1), and
// the other rows stream 2 redefines (exponential, log_normal, cauchy f32) in
// v2 as "*_v2". --isa caps the SIMD backend (xrng::set_simd_isa), e.g.
// `--isa avx2` to time AVX2 on an AVX-512 machine, `--isa none` for the
// scalar path (ISAs: avx2, avx512 on x86-64; neon on AArch64).
// --ops times only the named ops (e.g. normal_f32,exponential_f32_v2) and
// --no-scalar only the SIMD backend: short runs for before/after comparisons
// on a busy machine; --cpu-time (one thread) reads the thread's CPU time
// instead of the wall clock, so that time the thread spends descheduled by
// other jobs is not counted.
// Each figure is the median wall time of R repetitions of one call filling
// an N-element caller buffer (pages touched beforehand).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <time.h>

#include "host/xrng.h"

namespace {

bool g_cpu_time = false;  // --cpu-time: this thread's CPU time instead of wall time

double now_ns() {
  if (g_cpu_time) {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
  }
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <class F>
double median_ns(int reps, uint64_t n, F f) {
  std::vector<double> t;
  f();  // warm-up
  for (int r = 0; r < reps; ++r) {
    const double a = now_ns();
    f();
    const double b = now_ns();
    t.push_back((b - a) / static_cast<double>(n));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t n = uint64_t{1} << 24;
  int threads = 1, reps = 5;
  std::string isa, ops;
  bool scalar = true;
  for (int i = 1; i < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--no-scalar" || a == "--cpu-time") {
      (a == "--no-scalar" ? scalar : g_cpu_time) = a == "--cpu-time";
      --i;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "xrng_time: %s needs a value\n", a.c_str());
      return 2;
    }
    if (a == "--n") n = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--threads") threads = std::atoi(argv[i + 1]);
    else if (a == "--reps") reps = std::atoi(argv[i + 1]);
    else if (a == "--isa") isa = argv[i + 1];
    else if (a == "--ops") ops = "," + std::string(argv[i + 1]) + ",";
    else {
      std::fprintf(stderr, "usage: xrng_time [--n N] [--threads T] [--reps R] [--isa ISA] [--ops a,b] [--no-scalar] [--cpu-time]\n");
      return 2;
    }
  }
  if (g_cpu_time && threads != 1) {
    std::fprintf(stderr, "xrng_time: --cpu-time needs --threads 1 (the fill runs on the calling thread)\n");
    return 2;
  }
  if (!isa.empty() && !xrng::set_simd_isa(isa)) {
    std::string have;
    for (const std::string& i : xrng::simd_isas()) have += " " + i;
    std::fprintf(stderr, "xrng_time: ISA '%s' is not available here (this build and CPU:%s)\n", isa.c_str(),
                 have.c_str());
    return 2;
  }
  std::vector<float> f(n);
  std::vector<uint8_t> b(n);
  std::vector<int64_t> perm(n);
  std::memset(f.data(), 0, n * sizeof(float));
  std::memset(b.data(), 0, n);
  std::memset(perm.data(), 0, n * sizeof(int64_t));
  const xrng::Key key(42);
  const bool have_simd = std::string(xrng::simd_isa()) != "none";

  std::printf("{\"n\": %llu, \"threads\": %d, \"isa\": \"%s\", \"results\": [\n", static_cast<unsigned long long>(n),
              threads, xrng::simd_isa());
  bool first = true;
  auto want = [&](const std::string& op) { return ops.empty() || ops.find("," + op + ",") != std::string::npos; };
  auto time = [&](auto f) { return median_ns(reps, n, f); };
  auto emit = [&](const char* lib, const char* op, const char* variant, double ns) {
    std::printf("%s  {\"lib\": \"%s\", \"op\": \"%s\", \"variant\": \"%s\", \"ns_per_elem\": %.4f}", first ? "" : ",\n",
                lib, op, variant, ns);
    first = false;
  };
  for (const xrng::Backend be : {xrng::Backend::scalar, xrng::Backend::simd}) {
    if (be == xrng::Backend::simd && !have_simd) continue;
    if (be == xrng::Backend::scalar && !scalar) continue;
    const xrng::FillOptions opt{be, threads};
    const char* v = be == xrng::Backend::simd ? xrng::simd_isa() : "scalar";
    if (want("uniform_f32"))
      emit("xrng", "uniform_f32", v, time([&] { xrng::uniform(key, 0, f.data(), n, 0.0, 1.0, opt); }));
    if (want("normal_f32"))
      emit("xrng", "normal_f32", v, time([&] { xrng::normal(key, 0, f.data(), n, 0.0, 1.0, opt, 2); }));
    if (want("normal_f32_v1"))
      emit("xrng", "normal_f32_v1", v, time([&] { xrng::normal(key, 0, f.data(), n, 0.0, 1.0, opt, 1); }));
    for (const xrng::Dist d : {xrng::Dist::exponential, xrng::Dist::log_normal, xrng::Dist::cauchy}) {
      const xrng::Plan p = xrng::make_plan(d, xrng::DType::f32, xrng::DrawParams{}, 2);
      const std::string op = std::string(xrng::dist_name(d)) + "_f32_v2";
      if (want(op)) emit("xrng", op.c_str(), v, median_ns(reps, n, [&] { xrng::fill(p, key, 0, 0, n, f.data(), opt); }));
    }
    if (want("bernoulli_u8"))
      emit("xrng", "bernoulli_u8", v, time([&] { xrng::bernoulli(key, 0, b.data(), n, 0.3, opt); }));
    if (want("randperm_i64"))
      emit("xrng", "randperm_i64", v, time([&] { xrng::randperm(key, 0, perm.data(), n, opt); }));
  }
  // The C++ standard library, one thread (mt19937 is sequential).
  if (threads == 1 && ops.empty()) {
    std::mt19937 g(42);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::normal_distribution<float> z(0.0f, 1.0f);
    std::bernoulli_distribution ber(0.3);
    emit("std::mt19937", "uniform_f32", "uniform_real_distribution<float>", median_ns(reps, n, [&] {
           for (uint64_t i = 0; i < n; ++i) f[i] = u(g);
         }));
    emit("std::mt19937", "normal_f32", "normal_distribution<float>", median_ns(reps, n, [&] {
           for (uint64_t i = 0; i < n; ++i) f[i] = z(g);
         }));
    emit("std::mt19937", "bernoulli_u8", "bernoulli_distribution", median_ns(reps, n, [&] {
           for (uint64_t i = 0; i < n; ++i) b[i] = ber(g);
         }));
    emit("std::mt19937", "randperm_i64", "iota + std::shuffle", median_ns(reps, n, [&] {
           for (uint64_t i = 0; i < n; ++i) perm[i] = static_cast<int64_t>(i);
           std::shuffle(perm.begin(), perm.end(), g);
         }));
  }
  std::printf("\n]}\n");
  return 0;
}
