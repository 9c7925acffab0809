// xrng::cuda::perm_shard and perm_inverse: the permutation kernel for every
// permutation row of the registry (materialising is in fill.cu).
#include "direct.h"
#include "kernels.cuh"

namespace xrng::cuda {

namespace {
void perm_shard_checked(const Plan& plan, const Key& key, uint64_t offset, uint64_t rank, uint64_t world,
                        uint64_t start, uint64_t count, void* dev_out, cudaStream_t stream, const LaunchConfig& cfg,
                        const int64_t* pos = nullptr) {
  const PermKey k = perm_key(key.stream(), offset, plan.n);
  visit_row(plan, [&]<class R>() {
    if constexpr (R::kind == Kind::permutation)
      detail::launch_perm<R, detail::PermOp::shard>(plan, k, detail::PermArgs{start, count, rank, world}, dev_out,
                                                    stream, cfg, pos);
  });
}
}  // namespace

void perm_shard(const Plan& plan, const Key& key, uint64_t offset, uint64_t rank, uint64_t world, uint64_t start,
                uint64_t count, void* dev_out, cudaStream_t stream, LaunchConfig cfg) {
  detail::check_shard(plan, offset, rank, world, count, dev_out, cfg);
  if (count == 0) return;
  detail::require_device_memory(dev_out, "perm_shard output");
  perm_shard_checked(plan, key, offset, rank, world, start, count, dev_out, stream, cfg);
}

void detail::perm_shard_device(const Plan& plan, const Key& key, uint64_t offset, uint64_t rank, uint64_t world,
                               uint64_t start, uint64_t count, void* dev_out, cudaStream_t stream, LaunchConfig cfg) {
  detail::check_shard(plan, offset, rank, world, count, dev_out, cfg);
  if (count == 0) return;
  perm_shard_checked(plan, key, offset, rank, world, start, count, dev_out, stream, cfg);
}

void detail::perm_shard_at(const Plan& plan, const int64_t* dev_pos, uint64_t rank, uint64_t world,
                           uint64_t start, uint64_t count, void* dev_out, cudaStream_t stream, LaunchConfig cfg) {
  detail::check_shard(plan, 0, rank, world, count, dev_out, cfg);
  require_buffer(dev_pos, 1, "perm_shard position");
  if (count == 0) return;
  perm_shard_checked(plan, Key(), 0, rank, world, start, count, dev_out, stream, cfg, dev_pos);
}

void perm_inverse(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, void* dev_out,
                  cudaStream_t stream, LaunchConfig cfg) {
  detail::check_inverse(plan, offset, start, count, dev_out, cfg);
  if (count == 0) return;
  detail::require_device_memory(dev_out, "perm_inverse output");
  const PermKey k = perm_key(key.stream(), offset, plan.n);
  visit_row(plan, [&]<class R>() {
    if constexpr (R::kind == Kind::permutation)
      detail::launch_perm<R, detail::PermOp::position>(plan, k, detail::PermArgs{start, count}, dev_out, stream, cfg);
  });
}

}  // namespace xrng::cuda
