// NEON (AArch64 Advanced SIMD) instance of the vector backend (host/simd/):
// the same kernels as AVX2 / AVX-512 at 128 bits (2 x 64-bit, 4 x 32-bit
// lanes). Advanced SIMD is part of the AArch64 base ISA: no extra compiler
// flag, no run-time check. Exports exactly the four entry points below
// (test_simd_symbols), like the x86 instances.
#define XRNG_SIMD_BYTES 16
#include "simd/fill.h"
#include "simd/params.h"
#include "simd/perm.h"
#include "simd/probe_impl.h"
#include "xrng.h"  // the declarations of the entry points

namespace xrng::detail {
bool fill_neon(const Plan& plan, const Stream& s, uint64_t offset, uint64_t start, uint64_t count, void* out) {
  return fill_impl(plan, s, offset, start, count, out);
}
bool perm_neon(const PermKey& k, uint64_t start, uint64_t count, DType t, void* out) {
  return perm_impl(k, start, count, t, out);
}
bool probe_neon(Probe which, const Plan& plan, const uint32_t* in, size_t n, void* out) {
  return probe_impl(which, plan, in, n, out);
}
bool params_neon(ParamDraw which, const double* a, const double* b, uint64_t n, const Stream& s, uint64_t word0,
                double* y, uint8_t* done) {
  return params_impl(which, a, b, n, s, word0, y, done);
}
}  // namespace xrng::detail
