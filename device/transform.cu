// xrng::cuda::transform and dropout: the transform kernel for every transform
// row of the registry.
#include "direct.h"
#include "kernels.cuh"

namespace xrng::cuda {

namespace {
void transform_checked(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count,
                       const void* dev_in, void* dev_out, cudaStream_t stream, const LaunchConfig& cfg,
                       const int64_t* pos = nullptr) {
  const Stream s = key.stream();
  visit_row(plan, [&]<class R>() {
    if constexpr (R::kind == Kind::transform)
      detail::launch_transform<R>(plan, s, offset, start, count, dev_in, dev_out, stream, cfg, pos);
  });
}
}  // namespace

void transform(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, const void* dev_in,
               void* dev_out, cudaStream_t stream, LaunchConfig cfg) {
  detail::check_transform(plan, offset, start, count, dev_in, dev_out, cfg);
  if (count == 0) return;
  detail::require_device_memory(dev_in, "transform input");
  detail::require_device_memory(dev_out, "transform output");
  transform_checked(plan, key, offset, start, count, dev_in, dev_out, stream, cfg);
}

void detail::transform_device(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count,
                              const void* dev_in, void* dev_out, cudaStream_t stream, LaunchConfig cfg) {
  detail::check_transform(plan, offset, start, count, dev_in, dev_out, cfg);
  if (count == 0) return;
  transform_checked(plan, key, offset, start, count, dev_in, dev_out, stream, cfg);
}

void detail::transform_at(const Plan& plan, const int64_t* dev_pos, uint64_t start, uint64_t count,
                          const void* dev_in, void* dev_out, cudaStream_t stream, LaunchConfig cfg) {
  detail::check_transform(plan, 0, start, count, dev_in, dev_out, cfg);
  require_buffer(dev_pos, 1, "transform position");
  if (count == 0) return;
  transform_checked(plan, Key(), 0, start, count, dev_in, dev_out, stream, cfg, dev_pos);
}

void dropout(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, const void* dev_in,
             void* dev_out, cudaStream_t stream, LaunchConfig cfg) {
  if (plan.dist != Dist::dropout) throw Error("dropout: the plan must be made with Dist::dropout");
  transform(plan, key, offset, start, count, dev_in, dev_out, stream, cfg);
}

}  // namespace xrng::cuda
