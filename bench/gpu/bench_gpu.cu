// GPU throughput of xrng's CUDA backend against the device's write bandwidth
// and cuRAND's host API (Philox4_32_10), in one run.
//
//   bench_gpu [--log2n 28] [--reps 20] [--warmup 3] [--no-check]
//
// Each row: median of `reps` timed runs (CUDA events on one stream, after
// `warmup` untimed runs) of one call filling n elements of a buffer far larger
// than L2. GB/s counts bytes written (dropout: read + written). "%write" is
// GB/s over the plain store kernel's GB/s; "vs cuRAND" is cuRAND's time over
// ours for the same distribution and size (> 1: xrng is faster). Every xrng
// output is then compared in full with the CPU backend (--no-check skips it).
#include <cuda_runtime.h>
#include <curand.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "device/xrng_cuda.h"

namespace {

void cu(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "bench_gpu: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}
void cr(curandStatus_t s, const char* what) {
  if (s != CURAND_STATUS_SUCCESS) {
    std::fprintf(stderr, "bench_gpu: %s: curand status %d\n", what, static_cast<int>(s));
    std::exit(2);
  }
}

struct Opts {
  int log2n = 28;
  int reps = 20;
  int warmup = 3;
  bool check = true;
};

// Median time of f() in milliseconds.
double time_ms(const Opts& o, const std::function<void()>& f) {
  cudaEvent_t a, b;
  cu(cudaEventCreate(&a), "event");
  cu(cudaEventCreate(&b), "event");
  for (int i = 0; i < o.warmup; ++i) f();
  cu(cudaDeviceSynchronize(), "warm-up");
  std::vector<float> t;
  for (int i = 0; i < o.reps; ++i) {
    cu(cudaEventRecord(a, 0), "record");
    f();
    cu(cudaEventRecord(b, 0), "record");
    cu(cudaEventSynchronize(b), "sync");
    float ms = 0;
    cu(cudaEventElapsedTime(&ms, a, b), "elapsed");
    t.push_back(ms);
  }
  cu(cudaGetLastError(), "timed runs");
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  const size_t m = t.size() / 2;
  return t.size() % 2 ? t[m] : 0.5 * (t[m - 1] + t[m]);
}

__global__ void store_kernel(float4* out, uint64_t n4) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
    const float f = static_cast<float>(i & 0xffff);
    out[i] = make_float4(f, f + 1.0f, f + 2.0f, f + 3.0f);
  }
}

struct Row {
  std::string name;
  uint64_t elems = 0;
  double bytes = 0;
  double ms = 0;
  std::string vs;     // ratio vs cuRAND
  std::string check;  // full comparison with the CPU
};
std::vector<Row> rows;
double g_write_gbs = 0;

void print_rows() {
  std::printf("\n%-26s %12s %10s %10s %9s %8s %7s %9s  %s\n", "benchmark", "elements", "MB", "ms(med)", "Gelem/s",
              "GB/s", "%write", "vsCURAND", "check");
  for (const Row& r : rows) {
    const double gbs = r.bytes / (r.ms * 1e6);
    std::printf("%-26s %12llu %10.1f %10.4f %9.2f %8.1f %6.1f%% %9s  %s\n", r.name.c_str(),
                static_cast<unsigned long long>(r.elems), r.bytes / 1e6, r.ms, r.elems / (r.ms * 1e6), gbs,
                g_write_gbs > 0 ? 100.0 * gbs / g_write_gbs : 0.0, r.vs.c_str(), r.check.c_str());
  }
}

// Full comparison of a device buffer with the CPU backend (all threads).
std::string compare_with_cpu(const xrng::Plan& p, const xrng::Key& key, uint64_t off, uint64_t n, const void* dev) {
  const size_t bytes = n * static_cast<size_t>(xrng::dtype_size(p.dtype));
  std::vector<unsigned char> g(bytes), c(bytes);
  cu(cudaMemcpy(g.data(), dev, bytes, cudaMemcpyDeviceToHost), "download");
  xrng::FillOptions opt;
  opt.threads = 0;
  xrng::fill(p, key, off, 0, n, c.data(), opt);
  return g == c ? "equal to CPU" : "DIFFERS FROM CPU";
}

}  // namespace

int main(int argc, char** argv) {
  Opts o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--log2n" && i + 1 < argc)
      o.log2n = std::atoi(argv[++i]);
    else if (a == "--reps" && i + 1 < argc)
      o.reps = std::atoi(argv[++i]);
    else if (a == "--warmup" && i + 1 < argc)
      o.warmup = std::atoi(argv[++i]);
    else if (a == "--no-check")
      o.check = false;
    else {
      std::fprintf(stderr, "usage: bench_gpu [--log2n 28] [--reps 20] [--warmup 3] [--no-check]\n");
      return 2;
    }
  }
  if (!xrng::cuda::available()) {
    std::printf("SKIPPED: no usable CUDA device\n");
    return 77;
  }
  const uint64_t n = uint64_t{1} << o.log2n;
  int dev = 0;
  cudaDeviceProp prop{};
  cu(cudaGetDevice(&dev), "device");
  cu(cudaGetDeviceProperties(&prop, dev), "properties");
  std::printf("device: %s, %d SMs, L2 %d MB; n = 2^%d; median of %d runs after %d warm-up\n", prop.name,
              prop.multiProcessorCount, prop.l2CacheSize >> 20, o.log2n, o.reps, o.warmup);

  // 8 bytes per element: room for the i64 permutation and f64 outputs.
  void* buf = nullptr;
  void* buf2 = nullptr;
  cu(cudaMalloc(&buf, n * 8), "cudaMalloc");
  cu(cudaMalloc(&buf2, n * 4), "cudaMalloc");

  // ---- write bandwidth -------------------------------------------------------------
  {
    Row r{"cudaMemset (write)", n, 4.0 * n};
    r.ms = time_ms(o, [&] { cu(cudaMemsetAsync(buf, 0x5a, n * 4, 0), "memset"); });
    rows.push_back(r);
    Row s{"store kernel f32x4 (write)", n, 4.0 * n};
    const uint64_t n4 = n / 4;
    const unsigned grid = static_cast<unsigned>(std::min<uint64_t>((n4 + 255) / 256, prop.multiProcessorCount * 16ull));
    s.ms = time_ms(o, [&] { store_kernel<<<grid, 256>>>(static_cast<float4*>(buf), n4); });
    g_write_gbs = s.bytes / (s.ms * 1e6);
    rows.push_back(s);
  }

  // ---- cuRAND host API (Philox4_32_10) -------------------------------------------------
  curandGenerator_t gen;
  cr(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10), "create generator");
  cr(curandSetPseudoRandomGeneratorSeed(gen, 1234), "seed");
  const double curand_uniform_ms =
      time_ms(o, [&] { cr(curandGenerateUniform(gen, static_cast<float*>(buf), n), "uniform"); });
  const double curand_normal_ms =
      time_ms(o, [&] { cr(curandGenerateNormal(gen, static_cast<float*>(buf), n, 0.0f, 1.0f), "normal"); });
  rows.push_back(Row{"curand uniform f32", n, 4.0 * n, curand_uniform_ms, "1.00", ""});
  rows.push_back(Row{"curand normal f32", n, 4.0 * n, curand_normal_ms, "1.00", ""});
  curandDestroyGenerator(gen);

  // ---- xrng ------------------------------------------------------------------------------
  const xrng::Key key(2026, 11);
  const uint64_t off = 12;
  auto bench_fill = [&](const char* name, xrng::Dist d, xrng::DType t, xrng::DrawParams q, uint64_t count,
                        double curand_ms) {
    const xrng::Plan p = xrng::make_plan(d, t, q);
    const double bytes = static_cast<double>(count) * xrng::dtype_size(t);
    cu(cudaMemset(buf, 0xff, static_cast<size_t>(bytes)), "poison");
    Row r{name, count, bytes};
    r.ms = time_ms(o, [&] { xrng::cuda::fill(p, key, off, 0, count, buf); });
    char v[32];
    if (curand_ms > 0) {
      std::snprintf(v, sizeof v, "%.2f", curand_ms / r.ms);
      r.vs = v;
    }
    r.check = o.check ? compare_with_cpu(p, key, off, count, buf) : "not checked";
    rows.push_back(r);
  };
  xrng::DrawParams q;
  bench_fill("xrng bits u32", xrng::Dist::bits, xrng::DType::u32, q, n, 0);
  bench_fill("xrng uniform f32", xrng::Dist::uniform, xrng::DType::f32, q, n, curand_uniform_ms);
  bench_fill("xrng normal f32", xrng::Dist::normal, xrng::DType::f32, q, n, curand_normal_ms);
  bench_fill("xrng normal f16", xrng::Dist::normal, xrng::DType::f16, q, n, 0);
  bench_fill("xrng normal bf16", xrng::Dist::normal, xrng::DType::bf16, q, n, 0);
  bench_fill("xrng normal f64", xrng::Dist::normal, xrng::DType::f64, q, n, 0);
  xrng::DrawParams pb;
  pb.p = 0.1;
  bench_fill("xrng bernoulli u8 p=0.1", xrng::Dist::bernoulli, xrng::DType::u8, pb, n, 0);
  xrng::DrawParams pn;
  pn.n = n;
  bench_fill("xrng randperm i64 (2^n)", xrng::Dist::perm, xrng::DType::i64, pn, n, 0);

  // dropout f32: reads n floats, writes n floats
  {
    const xrng::Plan p = xrng::make_plan(xrng::Dist::dropout, xrng::DType::f32, pb);
    xrng::cuda::fill(xrng::make_plan(xrng::Dist::normal, xrng::DType::f32, {}), xrng::Key(1), 0, 0, n, buf2);
    Row r{"xrng dropout f32 p=0.1", n, 8.0 * n};
    r.ms = time_ms(o, [&] { xrng::cuda::dropout(p, key, off, 0, n, buf2, buf); });
    if (o.check) {
      std::vector<float> in(n), g(n), c(n);
      cu(cudaMemcpy(in.data(), buf2, n * 4, cudaMemcpyDeviceToHost), "download");
      cu(cudaMemcpy(g.data(), buf, n * 4, cudaMemcpyDeviceToHost), "download");
      xrng::FillOptions opt;
      opt.threads = 0;
      xrng::dropout(p, key, off, 0, n, in.data(), c.data(), opt);
      r.check = std::memcmp(g.data(), c.data(), n * 4) == 0 ? "equal to CPU" : "DIFFERS FROM CPU";
    } else {
      r.check = "not checked";
    }
    rows.push_back(r);
  }
  cudaFree(buf);
  cudaFree(buf2);
  print_rows();
  bool ok = true;
  for (const Row& r : rows) ok = ok && r.check.find("DIFFERS") == std::string::npos;
  return ok ? 0 : 1;
}
