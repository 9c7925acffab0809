// xrng::cuda::multinomial (SPEC.md section 10): the element functions of
// rng/multinomial.h in three kernels on one stream. The values are the
// host's (host/multinomial.cpp), bit for bit: every sample is a pure
// function of its words and its row's weights, and the order of the race is
// a strict total order, so the per-row insertion here selects what the
// host's partial sort selects.
#include <string>
#include <vector>

#include "../rng/multinomial.h"
#include "../rng/multinomial.h"
#include "detail.cuh"
#include "xrng_cuda.h"

namespace xrng::cuda {
namespace {

struct RowInfo {
  double scale;
  double total;
};

constexpr unsigned kThreads = 256;

unsigned blocks_for(uint64_t n) {
  const uint64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65535u * 16u ? b : 65535u * 16u);  // grid-stride beyond
}

// One thread per row (the cumulative sum is sequential by definition).
__global__ void check_rows(const double* w, uint64_t rows, uint64_t k, bool replacement, uint8_t* status,
                           RowInfo* info, double* c) {
  for (uint64_t r = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; r < rows; r += uint64_t(gridDim.x) * blockDim.x) {
    RowInfo ri{1.0, 0.0};
    const auto st = categorical::check_row(w + r * k, k, &ri.scale, &ri.total);
    status[r] = static_cast<uint8_t>(st);
    info[r] = ri;
    if (st == categorical::RowStatus::ok && replacement) categorical::cumulative(w + r * k, k, ri.scale, c + r * k);
  }
}

// One thread per sample, element e = r ns + j.
__global__ void sample_with(const double* c, const RowInfo* info, uint64_t rows, uint64_t k, uint64_t ns, Stream s,
                            uint64_t offset, int64_t* out) {
  const uint64_t n = rows * ns;
  for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < n; e += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t r = e / ns;
    uint32_t wd[2];
    stream_words(s, offset + categorical::kWordsWith * e, 2, wd);
    out[e] = categorical::sample_with(c + r * k, k, info[r].total, wd[0], wd[1]);
  }
}

// One thread per row: the ns first race entries by insertion into a sorted
// list (scratch: ns entries per row).
__global__ void sample_without(const double* w, uint64_t rows, uint64_t k, uint64_t ns, Stream s, uint64_t offset,
                               categorical::RaceEntry* list, int64_t* out) {
  for (uint64_t r = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; r < rows; r += uint64_t(gridDim.x) * blockDim.x) {
    categorical::race_row_insertion(w + r * k, k, ns, s, offset + categorical::kWordsWithout * r * k, list + r * ns,
                                    out + r * ns);
  }
}

}  // namespace

void multinomial(const double* dev_weights, uint64_t rows, uint64_t k, uint64_t num_samples, bool replacement,
                 const Key& key, uint64_t offset, int64_t* dev_out, cudaStream_t stream) {
  check_multinomial_shape(rows, k, num_samples, replacement, offset);
  if (rows == 0) return;
  if (dev_weights == nullptr || dev_out == nullptr) throw Error("cuda multinomial: null buffer");
  detail::require_device_memory(dev_weights, "multinomial weights");
  detail::require_device_memory(dev_out, "multinomial output");
  detail::DeviceBuffer status(rows), info(rows * sizeof(RowInfo));
  detail::DeviceBuffer cum(replacement ? rows * k * sizeof(double) : 0);
  detail::DeviceBuffer list(replacement ? 0 : rows * num_samples * sizeof(categorical::RaceEntry));
  auto* st = static_cast<uint8_t*>(status.get());
  auto* ri = static_cast<RowInfo*>(info.get());
  check_rows<<<blocks_for(rows), kThreads, 0, stream>>>(dev_weights, rows, k, replacement, st, ri,
                                                        static_cast<double*>(cum.get()));
  detail::check(cudaGetLastError(), "multinomial check_rows launch");
  // The rows are checked before anything is written (one synchronisation, as
  // torch's own multinomial checks its input).
  std::vector<uint8_t> host_status(rows);
  detail::check(cudaMemcpyAsync(host_status.data(), st, rows, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
  detail::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  for (uint64_t r = 0; r < rows; ++r)
    if (host_status[r] != 0) throw Error(multinomial_row_error(static_cast<categorical::RowStatus>(host_status[r]), r));
  const Stream s = key.stream();
  if (replacement) {
    sample_with<<<blocks_for(rows * num_samples), kThreads, 0, stream>>>(static_cast<const double*>(cum.get()), ri,
                                                                         rows, k, num_samples, s, offset, dev_out);
  } else {
    sample_without<<<blocks_for(rows), kThreads, 0, stream>>>(dev_weights, rows, k, num_samples, s, offset,
                                                              static_cast<categorical::RaceEntry*>(list.get()),
                                                              dev_out);
  }
  detail::check(cudaGetLastError(), "multinomial launch");
  // The scratch buffers are freed when this returns: wait for the kernel.
  detail::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

}  // namespace xrng::cuda
