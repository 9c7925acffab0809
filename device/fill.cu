// xrng::cuda::fill: the element kernel for every element row of the registry
// and the materialising permutation kernel for every permutation row.
#include "direct.h"
#include "kernels.cuh"

namespace xrng::cuda {

namespace {
void fill_checked(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, void* dev_out,
                  cudaStream_t stream, const LaunchConfig& cfg) {
  const Stream s = key.stream();
  visit_row(plan, [&]<class R>() {
    if constexpr (R::kind == Kind::element) {
      detail::launch_fill<R>(plan, s, offset, start, count, dev_out, stream, cfg);
    } else if constexpr (R::kind == Kind::permutation) {
      // The permutation's key (its round keys are stream words) is derived once, here.
      detail::launch_perm<R, detail::PermOp::at>(perm_key(s, offset, plan.n), detail::PermArgs{start, count}, dev_out,
                                                 stream, cfg);
    }
    // transform rows: refused by check_fill
  });
}
}  // namespace

void fill(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, void* dev_out,
          cudaStream_t stream, LaunchConfig cfg) {
  detail::check_fill(plan, offset, start, count, dev_out, cfg);
  if (count == 0) return;
  detail::require_device_memory(dev_out, "fill output");
  fill_checked(plan, key, offset, start, count, dev_out, stream, cfg);
}

void detail::fill_device(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count,
                         void* dev_out, cudaStream_t stream, LaunchConfig cfg) {
  detail::check_fill(plan, offset, start, count, dev_out, cfg);
  if (count == 0) return;
  fill_checked(plan, key, offset, start, count, dev_out, stream, cfg);
}

}  // namespace xrng::cuda
