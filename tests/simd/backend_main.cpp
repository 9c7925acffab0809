// The runner of the per-backend test programs (backends.h):
//
//   <program> --backend=scalar|avx2|avx512 [doctest options]   (x86-64)
//   <program> --backend=scalar|neon [doctest options]          (AArch64)
//
// runs every test case against that host backend, with the dispatcher set to
// its ISA. When this CPU cannot run the backend (or XRNG_FORCE_NO_AVX512 /
// XRNG_FORCE_NO_AVX2 / XRNG_FORCE_NO_NEON says so) it prints why and exits with 77, the
// SKIP_RETURN_CODE of the ctest tests, so that ctest reports them as Skipped.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "backends.h"

namespace {
const xrng_test::HostBackend* g_backend = nullptr;
}  // namespace

const xrng_test::HostBackend& xrng_test::backend() { return *g_backend; }

int main(int argc, char** argv) {
  const std::string detected = xrng::simd_isa();  // before anything forces the dispatcher
  std::string name;
  std::vector<const char*> args;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--backend=", 0) == 0)
      name = a.substr(10);
    else
      args.push_back(argv[i]);
  }
  std::string names;
  for (const xrng_test::HostBackend& b : xrng_test::host_backends()) {
    if (!names.empty()) names += '|';  // (not "|" + string: GCC 12 -Wrestrict false positive)
    names += b.name;
    if (name == b.name) g_backend = &b;
  }
  if (g_backend == nullptr) {
    std::fprintf(stderr, "usage: %s --backend=%s [doctest options] (got '%s')\n", argv[0], names.c_str(),
                 name.c_str());
    return 2;
  }
  const std::string why = xrng_test::unavailable(*g_backend, detected);
  if (!why.empty()) {
    std::printf("SKIPPED: backend %s not run: %s\n", name.c_str(), why.c_str());
    return 77;
  }
  if (!xrng::set_simd_isa(g_backend->isa)) {
    std::fprintf(stderr, "backend %s: xrng::set_simd_isa(\"%s\") refused (detected ISA: %s)\n", name.c_str(),
                 g_backend->isa, detected.c_str());
    return 1;
  }
  std::printf("backend %s (dispatcher ISA %s, detected %s)\n", name.c_str(), xrng::simd_isa(), detected.c_str());
  doctest::Context ctx(static_cast<int>(args.size()), args.data());
  return ctx.run();
}
