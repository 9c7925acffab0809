// The host backends the tests run against, one per test run.
//
// A test program built with backend_main.cpp (tests/simd/CMakeLists.txt,
// xrng_add_backend_test) runs every test case against the one backend named
// on its command line, `--backend=scalar|avx2|avx512`, and CMake registers one
// ctest test per (program, backend): test_simd_avx2, test_simd_avx512,
// test_invariance_scalar, ... A backend this CPU cannot run makes the program
// exit with 77, which those ctest tests declare as their skip code: ctest then
// reports "Skipped", never "Passed" for code that did not run.
#pragma once

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

inline const std::vector<HostBackend>& host_backends() {
  static const std::vector<HostBackend> v = {
      {"scalar", "none", xrng::Backend::scalar, nullptr, nullptr, nullptr},
      {"avx2", "avx2", xrng::Backend::simd, xrng::detail::fill_avx2, xrng::detail::perm_avx2,
       xrng::detail::probe_avx2},
      {"avx512", "avx512", xrng::Backend::simd, xrng::detail::fill_avx512, xrng::detail::perm_avx512,
       xrng::detail::probe_avx512},
  };
  return v;
}

// True when the environment variable is set to anything but "" or "0".
inline bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

// Why backend b cannot run here ("" when it can). `detected` is the ISA the
// dispatcher picked at start-up (xrng::simd_isa() before any set_simd_isa).
// XRNG_FORCE_NO_AVX512=1 / XRNG_FORCE_NO_AVX2=1 make the tests treat the CPU
// as lacking that ISA (AVX-512 needs AVX2 too): the skip path is then testable
// on a machine that has both.
inline std::string unavailable(const HostBackend& b, const std::string& detected) {
  const std::string name = b.name;
  if (name == "scalar") return "";
  if (env_flag("XRNG_FORCE_NO_AVX2")) return "XRNG_FORCE_NO_AVX2 is set";
  if (name == "avx2") return detected == "avx2" || detected == "avx512" ? "" : "this CPU has no AVX2+FMA+F16C";
  if (env_flag("XRNG_FORCE_NO_AVX512")) return "XRNG_FORCE_NO_AVX512 is set";
  return detected == "avx512" ? "" : "this CPU has no AVX-512 (F, BW, DQ, VL)";
}

// The backend of this run, selected by backend_main.cpp before any test case.
const HostBackend& backend();

// FillOptions of the run's backend with `threads` threads.
inline xrng::FillOptions options(int threads) { return xrng::FillOptions{backend().backend, threads}; }

}  // namespace xrng_test
