// The host backends the tests run against, one per test run.
//
// A test program built with backend_main.cpp (tests/simd/CMakeLists.txt,
// xrng_add_backend_test) runs every test case against the one backend named
// on its command line, `--backend=scalar|avx2|avx512` (x86-64) or
// `--backend=scalar|neon` (AArch64), and CMake registers one ctest test per
// (program, backend) of the build: test_simd_avx2, test_simd_avx512,
// test_simd_neon, test_invariance_scalar, ... A backend this CPU cannot run makes the program
// exit with 77, which those ctest tests declare as their skip code: ctest then
// reports "Skipped", never "Passed" for code that did not run.
#pragma once

#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "host/simd/probe.h"
#include "host/xrng.h"

namespace xrng_test {

using FillFn = bool (*)(const xrng::Plan&, const xrng::Stream&, uint64_t, uint64_t, uint64_t, void*);
using PermFn = bool (*)(const xrng::PermKey&, uint64_t, uint64_t, xrng::DType, void*);
using ProbeFn = bool (*)(xrng::detail::Probe, const xrng::Plan&, const uint32_t*, size_t, void*);

struct HostBackend {
  const char* name;       // the --backend= name and the ctest suffix
  const char* isa;        // what xrng::set_simd_isa is set to for the run
  xrng::Backend backend;  // FillOptions::backend of the run
  // The ISA's entry points (host/xrng.h, host/simd/probe.h); null for scalar.
  FillFn fill;
  PermFn perm;
  ProbeFn probe;
};

// scalar, then the vector backends this build has (xrng::detail::simd_backends:
// avx2 and avx512 on x86-64, neon on AArch64), in the dispatcher's order.
inline const std::vector<HostBackend>& host_backends() {
  static const std::vector<HostBackend> v = [] {
    std::vector<HostBackend> r = {{"scalar", "none", xrng::Backend::scalar, nullptr, nullptr, nullptr}};
    for (const xrng::detail::SimdBackend& b : xrng::detail::simd_backends())
      r.push_back({b.name, b.name, xrng::Backend::simd, b.fill, b.perm, b.probe});
    return r;
  }();
  return v;
}

// The sanitizer build (XRNG_TEST_SANITIZED, tests/CMakeLists.txt): the cases
// whose size is what they test run at the smallest sizes that take the same
// paths there; the optimised build runs them in full.
#ifdef XRNG_TEST_SANITIZED
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// True when the environment variable is set to anything but "" or "0".
inline bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

// Why backend b cannot run here ("" when it can). `detected` is the ISA the
// dispatcher picked at start-up (xrng::simd_isa() before any set_simd_isa).
// XRNG_FORCE_NO_<ISA>=1 (XRNG_FORCE_NO_AVX512, XRNG_FORCE_NO_AVX2,
// XRNG_FORCE_NO_NEON) makes the tests treat the CPU as lacking that ISA, and
// the ones after it, which need it (AVX-512 needs AVX2): the skip path is then
// testable on a machine that has them.
inline std::string unavailable(const HostBackend& b, const std::string& detected) {
  const std::string name = b.name;
  if (name == "scalar") return "";
  bool cpu = detected == name;  // the CPU runs b: b is the detected ISA or one below it
  for (const xrng::detail::SimdBackend& s : xrng::detail::simd_backends()) {
    std::string flag = "XRNG_FORCE_NO_";
    for (const char* c = s.name; *c; ++c) flag += static_cast<char>(std::toupper(static_cast<unsigned char>(*c)));
    if (env_flag(flag.c_str())) return flag + " is set";
    if (s.name == name) break;
  }
  for (const std::string& i : xrng::simd_isas()) cpu = cpu || i == name;
  if (!cpu) {
    if (name == "avx2") return "this CPU has no AVX2+FMA+F16C";
    if (name == "avx512") return "this CPU has no AVX-512 (F, BW, DQ, VL)";
    return "this CPU has no " + name;
  }
  return "";
}

// The backend of this run, selected by backend_main.cpp before any test case.
const HostBackend& backend();

// FillOptions of the run's backend with `threads` threads.
inline xrng::FillOptions options(int threads) { return xrng::FillOptions{backend().backend, threads}; }

}  // namespace xrng_test
