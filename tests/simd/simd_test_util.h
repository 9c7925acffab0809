// Shared helpers of the SIMD tests: which vector ISAs this CPU runs, and the
// plans (every dist/dtype of the fill kernels, with edge-case parameters).
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "host/simd_probe.h"
#include "host/xrng.h"

namespace simd_test {

using FillFn = bool (*)(const xrng::Plan&, const xrng::Stream&, uint64_t, uint64_t, uint64_t, void*);
using PermFn = bool (*)(const xrng::PermKey&, uint64_t, uint64_t, xrng::DType, void*);
using ProbeFn = bool (*)(xrng::detail::Probe, const xrng::Plan&, const uint32_t*, size_t, void*);

struct Isa {
  const char* name;
  FillFn fill;
  PermFn perm;
  ProbeFn probe;
};

// The vector ISAs of the build; run() skips (visibly) those this CPU lacks.
inline const std::vector<Isa>& isas() {
  static const std::vector<Isa> v = {
      {"avx2", xrng::detail::fill_avx2, xrng::detail::perm_avx2, xrng::detail::probe_avx2},
      {"avx512", xrng::detail::fill_avx512, xrng::detail::perm_avx512, xrng::detail::probe_avx512},
  };
  return v;
}

// The ISA the dispatcher picked at start-up (the best one this CPU has).
inline const std::string& detected_isa() {
  static const std::string d = xrng::simd_isa();
  return d;
}

inline bool cpu_has(const char* isa) {
  const std::string best = detected_isa();
  if (std::string(isa) == "avx2") return best == "avx2" || best == "avx512";
  return best == "avx512";
}

// Calls body(isa) for every ISA this CPU supports, with the dispatcher forced
// to it; prints why an ISA is skipped. Restores the detected ISA afterwards.
template <class Body>
void for_each_isa(Body body) {
  int ran = 0;
  for (const Isa& isa : isas()) {
    if (!cpu_has(isa.name)) {
      MESSAGE("SKIPPED: this CPU does not support " << std::string(isa.name) << " (its kernels are compiled but not run here)");
      continue;
    }
    REQUIRE(xrng::set_simd_isa(isa.name));
    const std::string isa_name = isa.name;
    CAPTURE(isa_name);
    body(isa);
    ++ran;
  }
  REQUIRE(xrng::set_simd_isa(detected_isa()));
  if (ran == 0) WARN_MESSAGE(false, "no SIMD ISA available on this CPU: nothing vectorised was tested");
}

struct PlanCase {
  std::string name;
  xrng::Plan plan;
};

inline std::vector<PlanCase> plan_cases() {
  using xrng::Dist;
  using xrng::DType;
  std::vector<PlanCase> v;
  auto add = [&](Dist d, DType t, xrng::DrawParams q, std::string what) {
    v.push_back({std::string(xrng::dist_name(d)) + "/" + xrng::dtype_name(t) + " " + what, xrng::make_plan(d, t, q)});
  };
  auto uni = [](double lo, double hi) {
    xrng::DrawParams q;
    q.low = lo;
    q.high = hi;
    return q;
  };
  auto nor = [](double m, double s) {
    xrng::DrawParams q;
    q.mean = m;
    q.std = s;
    return q;
  };
  auto ber = [](double p) {
    xrng::DrawParams q;
    q.p = p;
    return q;
  };
  auto ri = [](int64_t lo, int64_t hi) {
    xrng::DrawParams q;
    q.ilow = lo;
    q.ihigh = hi;
    return q;
  };
  add(Dist::bits, DType::u32, {}, "");
  add(Dist::bits, DType::u64, {}, "");
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16}) {
    add(Dist::uniform, t, uni(0, 1), "[0,1)");
    add(Dist::uniform, t, uni(-3, 7.5), "[-3,7.5)");
    add(Dist::uniform, t, uni(-0.0, 1), "[-0,1)");
    add(Dist::uniform, t, uni(1, 1.0078125), "[1,1+2^-7) (rounds to high)");
    add(Dist::uniform, t, uni(-60000, 60000), "[-6e4,6e4)");
    add(Dist::normal, t, nor(0, 1), "(0,1)");
    add(Dist::normal, t, nor(3.5, 0.25), "(3.5,0.25)");
    add(Dist::normal, t, nor(-1, 0), "(-1,0)");
    add(Dist::normal, t, nor(0, 3e4), "(0,3e4) (f16 overflow)");
  }
  add(Dist::uniform, DType::f64, uni(-1e300, 1e300), "[-1e300,1e300)");
  add(Dist::uniform, DType::f32, uni(0, 3e38), "[0,3e38)");
  for (double p : {0.0, 1.0, 0.3, 0.5, 1e-10, 1.0 - 1e-12}) add(Dist::bernoulli, DType::u8, ber(p), "p=" + std::to_string(p));
  add(Dist::randint, DType::i32, ri(0, 10), "[0,10)");
  add(Dist::randint, DType::i32, ri(-5, 7), "[-5,7)");
  add(Dist::randint, DType::i32, ri(INT32_MIN, int64_t{INT32_MAX} + 1), "full i32");
  add(Dist::randint, DType::i32, ri(-1, 0), "[-1,0)");
  add(Dist::randint, DType::i64, ri(0, 10), "[0,10)");
  add(Dist::randint, DType::i64, ri(-1000, 1000000007), "[-1000,1e9+7)");
  add(Dist::randint, DType::i64, ri(INT64_MIN, INT64_MAX), "full i64");
  add(Dist::randint, DType::i64, ri(0, (int64_t{1} << 62) + 3), "[0,2^62+3)");
  add(Dist::randint, DType::i64, ri(INT64_MIN, INT64_MIN + 3), "[min,min+3)");
  return v;
}

}  // namespace simd_test
