// CPU side of the exhaustive proofs: the hash of a transform over all 2^32
// inputs, split over threads (the hash is a sum, so the split cannot change it).
//
// This file is compiled twice: plainly, and (on x86-64) with -mfma so that
// std::fma is one instruction instead of a library call. fma is correctly
// rounded either way, so both builds give the same values; the FMA build is
// used when the CPU has FMA, only because it is 2-4x faster.
#include "exhaustive_cpu.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "exhaustive.h"

namespace xrng_test {
namespace XRNG_EXH_NS {

namespace {
template <class T>
uint64_t hash_all_threads(const T& t, unsigned threads) {
  const uint64_t total = uint64_t{1} << 32;
  threads = std::max(2u, threads);
  std::vector<uint64_t> part(threads, 0);
  std::vector<std::thread> pool;
  const uint64_t per = (total + threads - 1) / threads;
  for (unsigned i = 0; i < threads; ++i) {
    const uint64_t b = per * i, e = std::min(total, b + per);
    pool.emplace_back([&t, &part, i, b, e] { part[i] = b < e ? hash_range(t, b, e) : 0; });
  }
  uint64_t h = 0;
  for (unsigned i = 0; i < threads; ++i) {
    pool[i].join();
    h += part[i];
  }
  return h;
}
}  // namespace

uint64_t cpu_hash(Transform which, const xrng::Plan& p, unsigned threads) {
  switch (which) {
    case Transform::radius:
      return hash_all_threads(RadiusT{}, threads);
    case Transform::sincos:
      return hash_all_threads(SincosT{}, threads);
    case Transform::uniform_f32:
      return hash_all_threads(UniformF32T{p.uniform}, threads);
    case Transform::uniform_f16:
      return hash_all_threads(UniformF16T{p.uniform}, threads);
    case Transform::uniform_bf16:
      return hash_all_threads(UniformBF16T{p.uniform}, threads);
    case Transform::f16_round:
      return hash_all_threads(F16RoundT{}, threads);
    case Transform::bf16_round:
      return hash_all_threads(BF16RoundT{}, threads);
    case Transform::exponential_f32:
      return hash_all_threads(ExponentialF32T{p}, threads);
    case Transform::cauchy_f32:
      return hash_all_threads(CauchyF32T{p}, threads);
    case Transform::v2_radius:
      return hash_all_threads(RadiusV2T{}, threads);
    case Transform::v2_sincos:
      return hash_all_threads(SincosV2T{}, threads);
    case Transform::v2_exp:
      return hash_all_threads(ExpV2T{}, threads);
    case Transform::v2_exponential_f32:
      return hash_all_threads(ExponentialF32V2T{p}, threads);
    case Transform::v2_cauchy_f32:
      return hash_all_threads(CauchyF32V2T{p}, threads);
  }
  return 0;
}

}  // namespace XRNG_EXH_NS
}  // namespace xrng_test
