// Placeholder until the AVX2 kernels land: declines every plan, so the
// dispatcher runs the scalar reference.
#include "xrng.h"
namespace xrng::detail {
bool fill_avx2(const Plan&, const Stream&, uint64_t, uint64_t, uint64_t, void*) { return false; }
bool perm_avx2(const PermKey&, uint64_t, uint64_t, DType, void*) { return false; }
}  // namespace xrng::detail
