// xrng::cuda::fill: the element kernel for every element row of the registry
// and the materialising permutation kernel for every permutation row.
#include "direct.h"
#include "kernels.cuh"

namespace xrng::cuda {

namespace {
// pos: a position in device memory the kernel reads (key and offset are then unused), or nullptr.
void fill_checked(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, void* dev_out,
                  cudaStream_t stream, const LaunchConfig& cfg, const int64_t* pos = nullptr) {
  const Stream s = key.stream();
  visit_row(plan, [&]<class R>() {
    if constexpr (R::kind == Kind::element) {
      detail::launch_fill<R>(plan, s, offset, start, count, dev_out, stream, cfg, pos);
    } else if constexpr (R::kind == Kind::permutation) {
      // The permutation's key (its round keys are stream words) is derived once, here
      // (with a position pointer, by the kernel from the words it reads).
      detail::launch_perm<R, detail::PermOp::at>(plan, perm_key(s, offset, plan.n), detail::PermArgs{start, count},
                                                 dev_out, stream, cfg, pos);
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

void detail::fill_at(const Plan& plan, const int64_t* dev_pos, uint64_t start, uint64_t count, void* dev_out,
                     cudaStream_t stream, LaunchConfig cfg) {
  // the checks that do not need the position (the draw's words from offset 0); the kernel checks the rest
  detail::check_fill(plan, 0, start, count, dev_out, cfg);
  require_buffer(dev_pos, 1, "fill position");
  if (count == 0) return;
  fill_checked(plan, Key(), 0, start, count, dev_out, stream, cfg, dev_pos);
}

namespace detail {
namespace {
__global__ void take_kernel(int64_t* state, int64_t* before, int stream, uint64_t words) {
  const PositionStatus st = take_words(state, before, stream, words);
  if (st != PositionStatus::ok) {
    if (st == PositionStatus::stream)
      printf("xrng::take_: the generator state holds stream version %lld, the draw was planned for stream %d\n",
             static_cast<long long>(before[3]), stream);
    else
      printf("xrng::take_: generator exhausted: the draw would wrap the 64-bit word offset (offset %llu, %llu "
             "words)\n",
             static_cast<unsigned long long>(before[2]), static_cast<unsigned long long>(words));
    device_error(st == PositionStatus::stream
                     ? "xrng::take_: the generator state holds another stream version than the draw was planned for"
                     : "xrng::take_: generator exhausted: the draw would wrap the 64-bit word offset");
  }
}
}  // namespace

void take_at(int64_t* dev_state, int64_t* dev_before, int stream, uint64_t words, cudaStream_t cuda_stream) {
  require_buffer(dev_state, 1, "take state");
  require_buffer(dev_before, 1, "take position");
  take_kernel<<<1, 1, 0, cuda_stream>>>(dev_state, dev_before, stream, words);
  check(cudaGetLastError(), "take kernel launch");
}
}  // namespace detail

}  // namespace xrng::cuda
