// xrng::cuda::gamma and xrng::cuda::dirichlet (SPEC.md section 11): the
// element functions of rng/gamma.h, one thread per element (dirichlet: per
// row, the row's variates computed twice, for the sum and for the quotients,
// instead of kept in scratch memory). Every value is a pure function of its
// words and its alpha, so the values are the host's (host/gamma.cpp) bit for
// bit; the sum of a row is the same left-to-right binary64 sum.
#include <string>

#include "../rng/binomial.h"
#include "../rng/gamma.h"
#include "../rng/poisson.h"
#include "detail.cuh"
#include "xrng_cuda.h"

namespace xrng::cuda {
namespace {

static_assert(poissond::kWords == gammad::kWords && binomiald::kWords == gammad::kWords,
              "check() counts 64 words per element for all");

constexpr unsigned kThreads = 256;

unsigned blocks_for(uint64_t n) {
  const uint64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65535u * 16u ? b : 65535u * 16u);  // grid-stride beyond
}

// The first element whose alpha is refused (atomicMin over the indices).
__global__ void first_bad(const double* alpha, uint64_t n, unsigned long long* bad) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x)
    if (!gammad::alpha_ok(alpha[i])) atomicMin(bad, static_cast<unsigned long long>(i));
}

__global__ void gamma_kernel(const double* alpha, uint64_t n, Stream s, uint64_t offset, DType dt, void* out) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x)
    gammad::store(dt, out, i, gammad::variate_at(alpha[i], s, offset + gammad::kWords * i), false);
}

__global__ void dirichlet_kernel(const double* alpha, uint64_t rows, uint64_t k, Stream s, uint64_t offset, DType dt,
                                 void* out) {
  for (uint64_t r = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; r < rows; r += uint64_t(gridDim.x) * blockDim.x) {
    double sum = 0.0;
    for (uint64_t i = 0; i < k; ++i) {
      const uint64_t el = r * k + i;
      sum = sum + gammad::variate_at(alpha[el], s, offset + gammad::kWords * el);
    }
    for (uint64_t i = 0; i < k; ++i) {
      const uint64_t el = r * k + i;
      gammad::store(dt, out, el, gammad::variate_at(alpha[el], s, offset + gammad::kWords * el) / sum, true);
    }
  }
}

__global__ void first_bad_rate_kernel(const double* rate, uint64_t n, unsigned long long* bad) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x)
    if (!poissond::rate_ok(rate[i])) atomicMin(bad, static_cast<unsigned long long>(i));
}

__global__ void poisson_kernel(const double* rate, uint64_t n, Stream s, uint64_t offset, DType dt, void* out) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x) {
    const double k = poissond::count_at(rate[i], s, offset + poissond::kWords * i);
    poissond::store_count(dt, out, i, k);
  }
}

__global__ void first_bad_binomial(const double* count, const double* prob, uint64_t n, unsigned long long* bad) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x)
    if (!binomiald::params_ok(count[i], prob[i])) atomicMin(bad, static_cast<unsigned long long>(i));
}

__global__ void binomial_kernel(const double* count, const double* prob, uint64_t n, Stream s, uint64_t offset,
                                DType dt, void* out) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x) {
    const double k = binomiald::count_at(count[i], prob[i], s, offset + binomiald::kWords * i);
    poissond::store_count(dt, out, i, k);
  }
}

// Checks dtype, counters and (one synchronisation) the alphas on the device.
void check(const char* what, const double* dev_alpha, uint64_t n, uint64_t offset, DType dt, const void* dev_out,
           cudaStream_t stream, bool rates = false) {
  if (dt != DType::f64 && dt != DType::f32 && dt != DType::f16 && dt != DType::bf16)
    throw Error(std::string(what) + ": the output dtype must be float64, float32, float16 or bfloat16");
  check_gamma_count(n, offset);
  if (n == 0) return;
  if (dev_alpha == nullptr || dev_out == nullptr) throw Error(std::string("cuda ") + what + ": null buffer");
  detail::require_device_memory(dev_alpha, "gamma alpha");
  detail::require_device_memory(dev_out, "gamma output");
  detail::DeviceBuffer bad(sizeof(unsigned long long));
  auto* b = static_cast<unsigned long long*>(bad.get());
  unsigned long long none = ~0ull, host_bad = 0;
  detail::check(cudaMemcpyAsync(b, &none, sizeof none, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
  if (rates)
    first_bad_rate_kernel<<<blocks_for(n), kThreads, 0, stream>>>(dev_alpha, n, b);
  else
    first_bad<<<blocks_for(n), kThreads, 0, stream>>>(dev_alpha, n, b);
  detail::check(cudaGetLastError(), "gamma check launch");
  detail::check(cudaMemcpyAsync(&host_bad, b, sizeof host_bad, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
  detail::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  if (host_bad != none) {
    double a = 0.0;
    detail::check(cudaMemcpy(&a, dev_alpha + host_bad, sizeof a, cudaMemcpyDeviceToHost), "cudaMemcpy");
    throw Error(rates ? poisson_rate_error(host_bad, a) : gamma_alpha_error(what, host_bad, a));
  }
}

}  // namespace

void binomial(const double* dev_count, const double* dev_prob, uint64_t n, const Key& key, uint64_t offset, DType dt,
              void* dev_out, cudaStream_t stream) {
  if (dt != DType::f64 && dt != DType::f32 && dt != DType::f16 && dt != DType::bf16)
    throw Error("binomial: the output dtype must be float64, float32, float16 or bfloat16");
  check_gamma_count(n, offset);  // 64 words per element, as gamma's
  if (n == 0) return;
  if (dev_count == nullptr || dev_prob == nullptr || dev_out == nullptr) throw Error("cuda binomial: null buffer");
  detail::require_device_memory(dev_count, "binomial count");
  detail::require_device_memory(dev_prob, "binomial prob");
  detail::require_device_memory(dev_out, "binomial output");
  detail::DeviceBuffer bad(sizeof(unsigned long long));
  auto* b = static_cast<unsigned long long*>(bad.get());
  unsigned long long none = ~0ull, host_bad = 0;
  detail::check(cudaMemcpyAsync(b, &none, sizeof none, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
  first_bad_binomial<<<blocks_for(n), kThreads, 0, stream>>>(dev_count, dev_prob, n, b);
  detail::check(cudaGetLastError(), "binomial check launch");
  detail::check(cudaMemcpyAsync(&host_bad, b, sizeof host_bad, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
  detail::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  if (host_bad != none) {
    double c = 0.0, p = 0.0;
    detail::check(cudaMemcpy(&c, dev_count + host_bad, sizeof c, cudaMemcpyDeviceToHost), "cudaMemcpy");
    detail::check(cudaMemcpy(&p, dev_prob + host_bad, sizeof p, cudaMemcpyDeviceToHost), "cudaMemcpy");
    throw Error(binomial_param_error(host_bad, c, p));
  }
  binomial_kernel<<<blocks_for(n), kThreads, 0, stream>>>(dev_count, dev_prob, n, key.stream(), offset, dt, dev_out);
  detail::check(cudaGetLastError(), "binomial launch");
}

void poisson(const double* dev_rate, uint64_t n, const Key& key, uint64_t offset, DType dt, void* dev_out,
             cudaStream_t stream) {
  check("poisson", dev_rate, n, offset, dt, dev_out, stream, true);  // 64 words per element, as gamma's
  if (n == 0) return;
  poisson_kernel<<<blocks_for(n), kThreads, 0, stream>>>(dev_rate, n, key.stream(), offset, dt, dev_out);
  detail::check(cudaGetLastError(), "poisson launch");
}

void gamma(const double* dev_alpha, uint64_t n, const Key& key, uint64_t offset, DType dt, void* dev_out,
           cudaStream_t stream) {
  check("gamma", dev_alpha, n, offset, dt, dev_out, stream);
  if (n == 0) return;
  gamma_kernel<<<blocks_for(n), kThreads, 0, stream>>>(dev_alpha, n, key.stream(), offset, dt, dev_out);
  detail::check(cudaGetLastError(), "gamma launch");
}

void dirichlet(const double* dev_alpha, uint64_t rows, uint64_t k, const Key& key, uint64_t offset, DType dt,
               void* dev_out, cudaStream_t stream) {
  if (k == 0 && rows != 0) throw Error("dirichlet: the concentration has no categories (k = 0)");
  if (k != 0 && rows > UINT64_MAX / k) throw Error("dirichlet: the draw needs more than 2^64 stream words");
  check("dirichlet", dev_alpha, rows * k, offset, dt, dev_out, stream);
  if (rows == 0) return;
  dirichlet_kernel<<<blocks_for(rows), kThreads, 0, stream>>>(dev_alpha, rows, k, key.stream(), offset, dt, dev_out);
  detail::check(cudaGetLastError(), "dirichlet launch");
}

}  // namespace xrng::cuda
