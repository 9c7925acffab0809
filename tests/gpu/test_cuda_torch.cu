// GPU proof of xrng's kernels for the torch CUDA stream (device/torch_cuda.h):
// every draw and dtype the kernels fill, compared bit for bit with the host
// model (rng/torch_cuda.h, run here on the CPU the way the torch bindings run
// it: bindings/torch_cuda_ops.cpp), for sizes below and above one launch
// wave on three GPU profiles, and a draw above 2^31 elements (TensorIterator's
// split, sampled on the host). Without a usable GPU it prints why and exits
// 77 (ctest: skipped, never passed).
#define DOCTEST_CONFIG_IMPLEMENT
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "device/torch_cuda.h"
#include "torch_cuda_reference.h"

namespace tg = xrng::torch_cuda;
namespace tk = xrng::cuda::torch_cuda;
using tk::Draw;
using tk::Out;
using namespace xrng_gpu_test::torch_cuda_ref;

namespace {

int g_cases_run = 0;

void cu(cudaError_t e, const char* what) {
  if (e != cudaSuccess) FAIL(what << ": " << cudaGetErrorString(e));
}

std::vector<uint8_t> device_draw(const tk::Args& a, tg::State& s, tg::Device d, uint64_t n) {
  const uint32_t es = tk::out_size(a.out);
  void* dev = nullptr;
  cu(cudaMalloc(&dev, n * es + 1), "cudaMalloc");
  tk::draw(a, s, d, n, dev);
  std::vector<uint8_t> out(n * es);
  cu(cudaMemcpy(out.data(), dev, n * es, cudaMemcpyDeviceToHost), "cudaMemcpy");
  cu(cudaFree(dev), "cudaFree");
  return out;
}

}  // namespace

TEST_SUITE("torch_cuda") {
TEST_CASE("every draw and dtype == the host model, below and above one wave, three GPU profiles") {
  ++g_cases_run;
  const tg::Device profiles[] = {{132, 2048}, {40, 1024}, {3, 512}};
  const std::vector<tk::Args> draws = all_draws();
  for (const tg::Device d : profiles) {
    const uint64_t wave = 256ull * d.sm_count * (d.threads_per_sm / 256);
    for (const tk::Args& a : draws) {
      const uint64_t per_round = wave * tk::unroll_of(a);
      for (uint64_t n : {uint64_t{1}, uint64_t{1001}, per_round - 1, per_round + 1, 3 * per_round + 4097}) {
        tg::State sh{0x1234abcdull + n, 8}, sd = sh;
        const auto want = host_draw(a, sh, d, n);
        const auto got = device_draw(a, sd, d, n);
        INFO("draw ", static_cast<int>(a.draw), " dtype ", out_name(a.out), " a ", a.a, " b ", a.b, " sm ", d.sm_count,
             " n ", n, " first mismatch at element ", first_mismatch(want, got, tk::out_size(a.out)));
        CHECK(sd.offset == sh.offset);
        CHECK(got == want);
      }
    }
  }
}

TEST_CASE("a draw above 2^31 elements: TensorIterator's split, each piece its own launch (sampled)") {
  ++g_cases_run;
  const tg::Device d{132, 2048};
  const uint64_t n = (1ull << 31) + 4099;
  const tk::Args a{Draw::randint, Out::u8, 0, 0, 0, 256};
  tg::State sd{99, 0}, sh = sd;
  const auto got = device_draw(a, sd, d, n);
  // the host value of sampled elements (and each piece's first and last 4096), at their slots
  std::vector<uint8_t> want(1);
  uint64_t checked = 0, bad = 0;
  tg::pieces(sh, n, 1, tk::unroll_of(a), d, [&](const tg::Piece& p) {
    const tg::Launch& L = p.launch;
    auto check = [&](uint64_t li) {
      const tg::Slot sl = tg::slot(L, li);
      host_value(a, tg::curand4(sh.seed, p.offset, sl.thread, sl.round), sl.lane, want, 0);
      ++checked;
      if (want[0] != got[p.begin + li]) ++bad;
    };
    for (uint64_t li = 0; li < 4096 && li < L.numel; ++li) check(li);
    for (uint64_t li = L.numel > 4096 ? L.numel - 4096 : 0; li < L.numel; ++li) check(li);
    for (uint64_t li = 4096; li + 4096 < L.numel; li += 997) check(li);
  });
  CHECK(sd.offset == sh.offset);
  CHECK(checked > 2000000);
  CHECK(bad == 0);
}

TEST_CASE("bernoulli_(tensor p) == the host model") {
  ++g_cases_run;
  for (Out o : {Out::f32, Out::f64, Out::f16, Out::b8, Out::i64, Out::u8}) {
    for (uint64_t n : {uint64_t{1}, uint64_t{7}, uint64_t{1000003}}) {
      const bool f64 = o == Out::f64;
      std::vector<double> pd(n);
      std::vector<float> pf(n);
      for (uint64_t i = 0; i < n; ++i) {
        pd[i] = static_cast<double>((i * 2654435761ull) % 1000) / 999.0;
        pf[i] = static_cast<float>(pd[i]);
      }
      tg::State sh{5, 4}, sd = sh;
      const uint32_t es = tk::out_size(o);
      std::vector<uint8_t> want(n * es), got(n * es);
      tg::bernoulli_tensor(sh, n, [&](uint64_t i, float u) {
        store_float(o, want, i, (f64 ? static_cast<double>(u) <= pd[i] : u <= pf[i]) ? 1.0f : 0.0f);
      });
      void *dp = nullptr, *dout = nullptr;
      cu(cudaMalloc(&dp, n * 8), "cudaMalloc");
      cu(cudaMalloc(&dout, n * es), "cudaMalloc");
      if (f64)
        cu(cudaMemcpy(dp, pd.data(), n * 8, cudaMemcpyHostToDevice), "cudaMemcpy");
      else
        cu(cudaMemcpy(dp, pf.data(), n * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
      tk::bernoulli_tensor(sd, n, dp, f64, o, dout);
      cu(cudaMemcpy(got.data(), dout, n * es, cudaMemcpyDeviceToHost), "cudaMemcpy");
      cudaFree(dp);
      cudaFree(dout);
      INFO("dtype ", out_name(o), " n ", n);
      CHECK(sd.offset == sh.offset);
      CHECK(got == want);
    }
  }
}

TEST_CASE("dropout == the host model (every float dtype, vector widths 1, 2, 4, 8)") {
  ++g_cases_run;
  for (const tg::Device d : {tg::Device{132, 2048}, tg::Device{3, 512}}) {
    for (Out o : {Out::f32, Out::f64, Out::f16, Out::bf16}) {
      for (uint32_t vec : {1u, 2u, 4u, 8u}) {
        for (uint64_t n : {uint64_t{8}, uint64_t{4096}, uint64_t{3000008}}) {
          const uint32_t es = tk::out_size(o);
          std::vector<uint8_t> in(n * es), want(n * es), got(n * es), wmask(n), gmask(n);
          for (uint64_t i = 0; i < n; ++i) store_float(o, in, i, static_cast<float>(i % 1000) * 0.25f - 100.0f);
          const double p = 0.3;
          tg::State sh{11, 12}, sd = sh;
          // the host model (bindings/torch_cuda_ops.cpp cuda_dropout)
          const tg::Launch L = tg::dropout_launch(n, d);
          const uint64_t off = tg::philox_cuda_state(sh, L.counter_offset);
          const double p1m = 1.0 - p;
          for (uint64_t i = 0; i < n; ++i) {
            const tg::Slot sl = tg::dropout_slot(L, vec, i);
            const float u = tg::curand_uniform(tg::curand4(sh.seed, off, sl.thread, sl.round).v[sl.lane]);
            if (o == Out::f64) {
              double x;
              std::memcpy(&x, in.data() + 8 * i, 8);
              const double pa = p1m, scale = 1.0 / pa;
              const float keep = static_cast<double>(u) < pa ? 1.0f : 0.0f;
              put(want, i, static_cast<double>(x * keep) * scale);
              wmask[i] = keep != 0.0f;
            } else {
              float x;
              if (o == Out::f32) std::memcpy(&x, in.data() + 4 * i, 4);
              else {
                uint16_t h;
                std::memcpy(&h, in.data() + 2 * i, 2);
                x = o == Out::f16 ? xrng::math::f16_bits_to_f32(h) : xrng::math::bf16_bits_to_f32(h);
              }
              const float pa = static_cast<float>(p1m), scale = static_cast<float>(1.0 / pa);
              const float keep = u < pa ? 1.0f : 0.0f;
              store_float(o, want, i, (x * keep) * scale);
              wmask[i] = keep != 0.0f;
            }
          }
          void *din = nullptr, *dout = nullptr;
          bool* dmask = nullptr;
          cu(cudaMalloc(&din, n * es), "cudaMalloc");
          cu(cudaMalloc(&dout, n * es), "cudaMalloc");
          cu(cudaMalloc(&dmask, n), "cudaMalloc");
          cu(cudaMemcpy(din, in.data(), n * es, cudaMemcpyHostToDevice), "cudaMemcpy");
          tk::dropout(sd, d, n, vec, p, o, din, dout, dmask);
          cu(cudaMemcpy(got.data(), dout, n * es, cudaMemcpyDeviceToHost), "cudaMemcpy");
          cu(cudaMemcpy(gmask.data(), dmask, n, cudaMemcpyDeviceToHost), "cudaMemcpy");
          cudaFree(din);
          cudaFree(dout);
          cudaFree(dmask);
          INFO("dtype ", out_name(o), " vec ", vec, " n ", n, " sm ", d.sm_count);
          CHECK(sd.offset == sh.offset);
          CHECK(got == want);
          CHECK(gmask == wmask);
        }
      }
    }
  }
}
}  // TEST_SUITE("torch_cuda")

int main(int argc, char** argv) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    std::printf("SKIPPED: no usable CUDA device (cudaGetDeviceCount: %s, %d devices); the GPU proofs did not run\n",
                e == cudaSuccess ? "ok" : cudaGetErrorString(e), n);
    return 77;
  }
  doctest::Context ctx;
  ctx.applyCommandLine(argc, argv);
  const int rc = ctx.run();
  if (ctx.shouldExit()) return rc;
  if (g_cases_run == 0) {
    std::printf("FAILED: the test filter selected no test case\n");
    return 1;
  }
  return rc;
}
