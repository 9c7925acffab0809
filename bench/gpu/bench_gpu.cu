// GPU throughput of xrng's CUDA backend against the device's write bandwidth
// and cuRAND's host API (Philox4_32_10), in one run.
//
//   bench_gpu [--log2n 28] [--reps 20] [--warmup 3] [--no-check]
//
// Each row: median of `reps` timed runs (CUDA events on one stream, after
// `warmup` untimed runs) of one call filling n elements, the runs alternating
// between two output buffers (each far larger than L2). Besides one row per
// registry row, the layout's other paths: bits and uniform at word offset 3
// (each lane takes a block from the next lane), and uniform / normal written
// from an unaligned start (slot shift r != 0; normal: inside a pair). GB/s counts bytes written (transform rows such as dropout: read +
// written). "%write" is GB/s over the plain store kernel's GB/s; "vs cuRAND" is cuRAND's time over
// ours for the same distribution and size (> 1: xrng is faster). There is one
// xrng row per registry row (rng/registry.h), and every xrng output is then
// compared in full with the CPU backend (--no-check skips it).
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
#include "golden/sample_params.h"
#include "host/xrng.h"

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

// Median time of f(i), run i, in milliseconds.
double time_ms(const Opts& o, const std::function<void(int)>& f) {
  cudaEvent_t a, b;
  cu(cudaEventCreate(&a), "event");
  cu(cudaEventCreate(&b), "event");
  for (int i = 0; i < o.warmup; ++i) f(i);
  cu(cudaDeviceSynchronize(), "warm-up");
  std::vector<float> t;
  for (int i = 0; i < o.reps; ++i) {
    cu(cudaEventRecord(a, 0), "record");
    f(i);
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

// Full comparison of a device buffer with the CPU backend (all threads):
// fill, or transform of `in` (host memory) for transform rows.
std::string compare_with_cpu(const xrng::Plan& p, const xrng::Key& key, uint64_t off, uint64_t n, const void* dev,
                             const void* in) {
  const size_t bytes = n * static_cast<size_t>(xrng::dtype_size(p.dtype));
  std::vector<unsigned char> g(bytes), c(bytes);
  cu(cudaMemcpy(g.data(), dev, bytes, cudaMemcpyDeviceToHost), "download");
  xrng::FillOptions opt;
  opt.threads = 0;
  if (p.kind == xrng::Kind::transform)
    xrng::transform(p, key, off, 0, n, in, c.data(), opt);
  else
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
    else if (a == "--quick")  // a build check: small n, few runs
      o.log2n = 20, o.reps = 4, o.warmup = 1;
    else {
      std::fprintf(stderr, "usage: bench_gpu [--log2n 28] [--reps 20] [--warmup 3] [--no-check] [--quick]\n");
      return 2;
    }
  }
  if (o.reps < 2) o.reps = 2;  // both output buffers are written
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

  // 8 bytes per element: room for the widest dtype (f64, i64, u64); two
  // output buffers (runs alternate) and a transform input.
  void* outs[2] = {nullptr, nullptr};
  void* buf2 = nullptr;
  cu(cudaMalloc(&outs[0], n * 8), "cudaMalloc");
  cu(cudaMalloc(&outs[1], n * 8), "cudaMalloc");
  cu(cudaMalloc(&buf2, n * 8), "cudaMalloc");
  void* const buf = outs[0];  // the buffer the checks read: runs 1, 3, ... write it (reps >= 2)

  // ---- write bandwidth -------------------------------------------------------------
  {
    Row r{"cudaMemset (write)", n, 4.0 * n};
    r.ms = time_ms(o, [&](int i) { cu(cudaMemsetAsync(outs[i % 2], 0x5a, n * 4, 0), "memset"); });
    rows.push_back(r);
    Row s{"store kernel f32x4 (write)", n, 4.0 * n};
    const uint64_t n4 = n / 4;
    const unsigned grid = static_cast<unsigned>(std::min<uint64_t>((n4 + 255) / 256, prop.multiProcessorCount * 16ull));
    s.ms = time_ms(o, [&](int i) { store_kernel<<<grid, 256>>>(static_cast<float4*>(outs[i % 2]), n4); });
    g_write_gbs = s.bytes / (s.ms * 1e6);
    rows.push_back(s);
  }

  // ---- cuRAND host API (Philox4_32_10) -------------------------------------------------
  curandGenerator_t gen;
  cr(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10), "create generator");
  cr(curandSetPseudoRandomGeneratorSeed(gen, 1234), "seed");
  const double curand_uniform_ms =
      time_ms(o, [&](int i) { cr(curandGenerateUniform(gen, static_cast<float*>(outs[i % 2]), n), "uniform"); });
  const double curand_normal_ms =
      time_ms(o, [&](int i) {
        cr(curandGenerateNormal(gen, static_cast<float*>(outs[i % 2]), n, 0.0f, 1.0f), "normal");
      });
  rows.push_back(Row{"curand uniform f32", n, 4.0 * n, curand_uniform_ms, "1.00", ""});
  rows.push_back(Row{"curand normal f32", n, 4.0 * n, curand_normal_ms, "1.00", ""});
  curandDestroyGenerator(gen);

  // ---- xrng: every row of the registry -------------------------------------------------
  // One row per registry row (golden::row_plans: the distribution's typical
  // parameters; permutations of n = the element count). A row added to the
  // registry is benchmarked with no edit here.
  const xrng::Key key(2026, 11);
  const uint64_t off = 12;
  // cuRAND's host API has these two; the ratio column compares them.
  auto curand_ms_of = [&](xrng::Dist d, xrng::DType t) {
    if (t != xrng::DType::f32) return 0.0;
    return d == xrng::Dist::uniform ? curand_uniform_ms : d == xrng::Dist::normal ? curand_normal_ms : 0.0;
  };
  std::vector<unsigned char> in_host;
  for (const xrng::golden::RowPlan& rp : xrng::golden::row_plans()) {
    xrng::DrawParams q = rp.params;
    if (rp.plan.kind == xrng::Kind::permutation) q.n = n;
    const xrng::Plan p = xrng::make_plan(rp.row->dist, rp.row->dtype, q, rp.row->version);
    const size_t es = static_cast<size_t>(xrng::dtype_size(p.dtype));
    const size_t bytes = n * es;
    std::string name = std::string("xrng ") + xrng::dist_name(p.dist) + " " + xrng::dtype_name(p.dtype);
    // a row that a later stream version redefines is named with its version
    // ("xrng normal f32 v1"); the plain name is the default stream's row
    if (rp.row->version != xrng::kStreamVersion) {
      int same = 0;
      for (const xrng::golden::RowPlan& other : xrng::golden::row_plans())
        same += other.row->dist == rp.row->dist && other.row->dtype == rp.row->dtype;
      if (same > 1) name += " v" + std::to_string(rp.row->version);
    }
    cu(cudaMemset(buf, 0xff, bytes), "poison");
    Row r{name, n, static_cast<double>(bytes)};
    if (p.kind == xrng::Kind::transform) {
      // The input: n normal values of the row's dtype (ordinary finite values), or
      // raw stream bits where normal has no such dtype.
      const bool normal_in = xrng::dtype_supported(xrng::Dist::normal, p.dtype);
      const xrng::Plan src = normal_in ? xrng::make_plan(xrng::Dist::normal, p.dtype, {})
                                       : xrng::make_plan(xrng::Dist::bits, xrng::DType::u32, {});
      xrng::cuda::fill(src, xrng::Key(1), 0, 0, normal_in ? n : (bytes + 3) / 4, buf2);
      r.bytes = 2.0 * bytes;  // read + written
      r.ms = time_ms(o, [&](int i) { xrng::cuda::transform(p, key, off, 0, n, buf2, outs[(i + 1) % 2]); });
      if (o.check) {
        in_host.resize(bytes);
        cu(cudaMemcpy(in_host.data(), buf2, bytes, cudaMemcpyDeviceToHost), "download");
        r.check = compare_with_cpu(p, key, off, n, buf, in_host.data());
      }
    } else {
      r.ms = time_ms(o, [&](int i) { xrng::cuda::fill(p, key, off, 0, n, outs[(i + 1) % 2]); });
      if (o.check) r.check = compare_with_cpu(p, key, off, n, buf, nullptr);
    }
    if (!o.check) r.check = "not checked";
    const double cms = curand_ms_of(p.dist, p.dtype);
    if (cms > 0) {
      char v[32];
      std::snprintf(v, sizeof v, "%.2f", cms / r.ms);
      r.vs = v;
    }
    rows.push_back(r);
  }
  // ---- the layout's other paths: a word offset of 3, an unaligned start ---------------
  struct Variant {
    const char* name;
    xrng::Dist d;
    xrng::DType t;
    uint64_t offset, start;
  };
  const Variant variants[] = {
      {"xrng bits u32 @offset 3", xrng::Dist::bits, xrng::DType::u32, 3, 0},
      {"xrng uniform f32 @offset 3", xrng::Dist::uniform, xrng::DType::f32, 3, 0},
      {"xrng uniform f32 start 1", xrng::Dist::uniform, xrng::DType::f32, 12, 1},
      {"xrng normal f32 start 1", xrng::Dist::normal, xrng::DType::f32, 12, 1},
  };
  for (const Variant& v : variants) {
    const xrng::Plan p = xrng::make_plan(v.d, v.t, {});
    const size_t bytes = n * static_cast<size_t>(xrng::dtype_size(p.dtype));
    cu(cudaMemset(buf, 0xff, bytes), "poison");
    Row r{v.name, n, static_cast<double>(bytes)};
    r.ms = time_ms(o, [&](int i) { xrng::cuda::fill(p, key, v.offset, v.start, n, outs[(i + 1) % 2]); });
    if (o.check) {
      std::vector<unsigned char> g(bytes), c(bytes);
      cu(cudaMemcpy(g.data(), buf, bytes, cudaMemcpyDeviceToHost), "download");
      xrng::FillOptions opt;
      opt.threads = 0;
      xrng::fill(p, key, v.offset, v.start, n, c.data(), opt);
      r.check = g == c ? "equal to CPU" : "DIFFERS FROM CPU";
    } else {
      r.check = "not checked";
    }
    rows.push_back(r);
  }
  cudaFree(outs[0]);
  cudaFree(outs[1]);
  cudaFree(buf2);
  print_rows();
  bool ok = true;
  for (const Row& r : rows) ok = ok && r.check.find("DIFFERS") == std::string::npos;
  return ok ? 0 : 1;
}
