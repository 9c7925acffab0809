// Internal to the CUDA backend: CUDA error handling and the device queries a
// launch makes. Not installed, not part of the API. Plain host code (no
// kernels), so host.cpp can include it too.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <string>

#include "launch.h"

namespace xrng::cuda::detail {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // clear a non-sticky error so the next call starts clean
    throw Error(std::string("cuda: ") + what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
  }
}

// A device allocation freed on every path out of a helper (host.cpp, block.cpp).
class DeviceBuffer {
 public:
  explicit DeviceBuffer(uint64_t bytes) {
    if (bytes > std::numeric_limits<size_t>::max()) throw Error("cuda: buffer too large");
    check(cudaMalloc(&p_, static_cast<size_t>(bytes == 0 ? 1 : bytes)), "cudaMalloc");
  }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

// Bytes of `count` elements of the plan's dtype; xrng::Error on overflow.
inline uint64_t bytes_of(const Plan& p, uint64_t count) {
  const uint64_t sz = static_cast<uint64_t>(dtype_size(p.dtype));
  if (count > std::numeric_limits<uint64_t>::max() / sz) throw Error("cuda: buffer size overflows");
  return count * sz;
}

// Puts this thread in relaxed stream-capture mode for its lifetime. Queries
// such as cudaPointerGetAttributes count as "potentially unsafe" while a
// stream is being captured in global or thread-local mode (they would
// invalidate the capture); they do not touch any stream, so relaxing the
// mode around them is safe, and lets a draw be captured into a CUDA graph.
// (PyTorch guards its pointer queries the same way.)
class RelaxedCapture {
 public:
  RelaxedCapture() { check(cudaThreadExchangeStreamCaptureMode(&mode_), "cudaThreadExchangeStreamCaptureMode"); }
  ~RelaxedCapture() { (void)cudaThreadExchangeStreamCaptureMode(&mode_); }
  RelaxedCapture(const RelaxedCapture&) = delete;
  RelaxedCapture& operator=(const RelaxedCapture&) = delete;

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
};

// A kernel may only be given memory the current device can dereference at
// that address: device or managed memory, or pinned host memory mapped at the
// same address. Pageable host memory would make the kernel fault, which
// leaves the whole CUDA context unusable; it is refused here instead, with a
// message (the *_to_host helpers are the API for host buffers).
inline void require_device_memory(const void* p, const char* what) {
  cudaPointerAttributes a{};
  {
    const RelaxedCapture relaxed;
    check(cudaPointerGetAttributes(&a, p), "cudaPointerGetAttributes");
  }
  if (a.type == cudaMemoryTypeUnregistered || a.devicePointer != p)
    throw Error(std::string("cuda ") + what +
                ": not memory the current device can access (pageable host memory? use cudaMalloc, or the "
                "xrng::cuda::*_to_host helpers for host buffers)");
}

// The current device's multiprocessor count, asked once per device: a
// launch of a small tensor should cost a kernel launch, not device queries.
inline int sm_count() {
  constexpr int kDevices = 64;
  static std::atomic<int> known[kDevices] = {};
  int dev = 0, n = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  if (dev >= 0 && dev < kDevices && (n = known[dev].load(std::memory_order_relaxed)) > 0) return n;
  check(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute");
  if (dev >= 0 && dev < kDevices) known[dev].store(n, std::memory_order_relaxed);
  return n;
}

// The multiprocessor count is only asked for when the grid is automatic.
inline Dims dims_for(uint64_t items, const LaunchConfig& cfg) {
  return launch_dims(items, cfg, cfg.grid > 0 ? 0 : sm_count());
}

}  // namespace xrng::cuda::detail
