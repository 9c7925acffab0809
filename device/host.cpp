// The synchronous, CUDA-free face of the backend (xrng_cuda_host.h): device
// discovery and compute-then-copy helpers over the asynchronous API of
// xrng_cuda.h. Every value is computed by the kernels; nothing here computes.
#include <cstddef>
#include <limits>

#include "detail.cuh"
#include "xrng_cuda.h"

namespace xrng::cuda {
using detail::DeviceBuffer;
using detail::bytes_of;
namespace {


void copy_in(const DeviceBuffer& dev, const void* host_in, uint64_t bytes) {
  detail::check(cudaMemcpy(dev.get(), host_in, static_cast<size_t>(bytes), cudaMemcpyHostToDevice),
                "cudaMemcpy host to device");
}
void copy_back(void* host_out, const DeviceBuffer& dev, uint64_t bytes) {
  // Synchronous on the legacy default stream: waits for the kernel and
  // reports its execution errors.
  detail::check(cudaMemcpy(host_out, dev.get(), static_cast<size_t>(bytes), cudaMemcpyDeviceToHost),
                "cudaMemcpy device to host");
}

}  // namespace

bool available() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return n > 0;
}

std::string device_name() {
  if (!available()) return "";
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return "";
  }
  return prop.name;
}

// Each helper checks the request first (the checks of the asynchronous call,
// which runs them again, cheaply), so that an invalid request allocates nothing.
void fill_to_host(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, void* host_out,
                  LaunchConfig cfg) {
  detail::check_fill(plan, offset, start, count, host_out, cfg);
  if (count == 0) return;
  const uint64_t bytes = bytes_of(plan, count);
  DeviceBuffer out(bytes);
  fill(plan, key, offset, start, count, out.get(), 0, cfg);
  copy_back(host_out, out, bytes);
}

void transform_to_host(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count,
                       const void* host_in, void* host_out, LaunchConfig cfg) {
  detail::check_transform(plan, offset, start, count, host_in, host_out, cfg);
  if (count == 0) return;
  const uint64_t bytes = bytes_of(plan, count);
  DeviceBuffer in(bytes), out(bytes);
  copy_in(in, host_in, bytes);
  transform(plan, key, offset, start, count, in.get(), out.get(), 0, cfg);
  copy_back(host_out, out, bytes);
}

void dropout_to_host(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count,
                     const void* host_in, void* host_out, LaunchConfig cfg) {
  if (plan.dist != Dist::dropout) throw Error("dropout: the plan must be made with Dist::dropout");
  transform_to_host(plan, key, offset, start, count, host_in, host_out, cfg);
}

void perm_shard_to_host(const Plan& plan, const Key& key, uint64_t offset, uint64_t rank, uint64_t world,
                        uint64_t start, uint64_t count, void* host_out, LaunchConfig cfg) {
  detail::check_shard(plan, offset, rank, world, count, host_out, cfg);
  if (count == 0) return;
  const uint64_t bytes = bytes_of(plan, count);
  DeviceBuffer out(bytes);
  perm_shard(plan, key, offset, rank, world, start, count, out.get(), 0, cfg);
  copy_back(host_out, out, bytes);
}

void perm_inverse_to_host(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count,
                          void* host_out, LaunchConfig cfg) {
  detail::check_inverse(plan, offset, start, count, host_out, cfg);
  if (count == 0) return;
  const uint64_t bytes = bytes_of(plan, count);
  DeviceBuffer out(bytes);
  perm_inverse(plan, key, offset, start, count, out.get(), 0, cfg);
  copy_back(host_out, out, bytes);
}

}  // namespace xrng::cuda
