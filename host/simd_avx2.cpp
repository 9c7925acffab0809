// AVX2 + FMA + F16C instance of the vector backend (host/simd/). Compiled
// with -mavx2 -mfma -mf16c; called only after the dispatcher has checked the
// CPU. Exports exactly the four entry points below (test_simd_symbols).
#define XRNG_SIMD_BYTES 32
#include "simd/fill.h"
#include "simd/params.h"
#include "simd/perm.h"
#include "simd/probe_impl.h"
#include "xrng.h"  // the declarations of the entry points

namespace xrng::detail {
bool fill_avx2(const Plan& plan, const Stream& s, uint64_t offset, uint64_t start, uint64_t count, void* out) {
  return fill_impl(plan, s, offset, start, count, out);
}
bool perm_avx2(const PermKey& k, uint64_t start, uint64_t count, DType t, void* out) {
  return perm_impl(k, start, count, t, out);
}
bool probe_avx2(Probe which, const Plan& plan, const uint32_t* in, size_t n, void* out) {
  return probe_impl(which, plan, in, n, out);
}
bool params_avx2(ParamDraw which, const double* a, const double* b, uint64_t n, const Stream& s, uint64_t word0,
                double* y, uint8_t* done) {
  return params_impl(which, a, b, n, s, word0, y, done);
}
}  // namespace xrng::detail
