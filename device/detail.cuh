// Internal to the CUDA backend: error handling, launch sizing and the chunk
// helpers every kernel shares. Not installed, not part of the API.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "chunk.h"
#include "launch.h"

namespace xrng::cuda::detail {

// ---- host side -----------------------------------------------------------------------
inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // clear a non-sticky error so the next call starts clean
    throw Error(std::string("cuda: ") + what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
  }
}

inline int sm_count() {
  int dev = 0, n = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute");
  return n;
}

// The multiprocessor count is only asked for when the grid is automatic.
inline Dims dims_for(uint64_t items, const LaunchConfig& cfg) {
  return launch_dims(items, cfg, cfg.grid > 0 ? 0 : sm_count());
}

}  // namespace xrng::cuda::detail
