// xrng CUDA backend, the part a program without CUDA headers can use: the
// CLI (`xrng`, `xrng verify`) and tests compile against this header alone.
// Every function computes on the GPU through the kernels of xrng_cuda.h and
// copies the result back; values equal the CPU backends' bit for bit.
#pragma once

#include <cstdint>
#include <string>

#include "../host/xrng.h"

namespace xrng::cuda {

// A usable CUDA device is present (false, not an error, when the driver or
// device is missing).
bool available();
// The current device's name, e.g. "NVIDIA H100 80GB HBM3"; "" if none.
std::string device_name();

// Computes on the GPU and copies back (synchronous); throws xrng::Error on
// failure. host_out has room for `count` elements of plan.dtype. grid/block 0:
// automatic launch configuration (values never depend on it).
void fill_to_host(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, void* host_out,
                  int grid = 0, int block = 0);
void perm_shard_to_host(const Plan& plan, const Key& key, uint64_t offset, uint64_t rank, uint64_t world,
                        uint64_t start, uint64_t count, void* host_out);
void dropout_to_host(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count,
                     const void* host_in, void* host_out);

}  // namespace xrng::cuda
