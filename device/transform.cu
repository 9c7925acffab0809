// xrng::cuda::transform and dropout: the transform kernel for every transform
// row of the registry.
#include "kernels.cuh"
#include "xrng_cuda.h"

namespace xrng::cuda {

void transform(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, const void* dev_in,
               void* dev_out, cudaStream_t stream, LaunchConfig cfg) {
  detail::check_transform(plan, offset, start, count, dev_in, dev_out, cfg);
  if (count == 0) return;
  detail::require_device_memory(dev_in, "transform input");
  detail::require_device_memory(dev_out, "transform output");
  const Stream s = key.stream();
  visit_row(plan, [&]<class R>() {
    if constexpr (R::kind == Kind::transform)
      detail::launch_transform<R>(plan, s, offset, start, count, dev_in, dev_out, stream, cfg);
  });
}

void dropout(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, const void* dev_in,
             void* dev_out, cudaStream_t stream, LaunchConfig cfg) {
  if (plan.dist != Dist::dropout) throw Error("dropout: the plan must be made with Dist::dropout");
  transform(plan, key, offset, start, count, dev_in, dev_out, stream, cfg);
}

}  // namespace xrng::cuda
