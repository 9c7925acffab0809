// CPU throughput of xrng into a caller buffer: f32 uniform, f32 normal (stream
// v2, the default, and stream v1), the other f32 rows stream v2 redefines
// (exponential, log_normal, cauchy), bernoulli u8 and a materialised i64 permutation; scalar reference vs the
// SIMD backend; 1 and 2 threads; 2^20 and 2^24 elements. block: fill_block
// of shards of a 4096 x 4096 normal against fill of the same count.
//
//   bench_cpu --benchmark_counters_tabular=true
//
// The "t/elem" counter is wall time per element (UseRealTime: threads are
// spawned inside the call).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "host/xrng.h"

namespace {

xrng::Plan plan_of(const char* what, uint64_t n) {
  xrng::DrawParams q;
  q.n = n;
  q.p = 0.3;
  const std::string w = what;
  if (w == "uniform") return xrng::make_plan(xrng::Dist::uniform, xrng::DType::f32, q);
  if (w == "normal") return xrng::make_plan(xrng::Dist::normal, xrng::DType::f32, q, 2);
  if (w == "normal_v1") return xrng::make_plan(xrng::Dist::normal, xrng::DType::f32, q, 1);
  if (w == "exponential") return xrng::make_plan(xrng::Dist::exponential, xrng::DType::f32, q, 2);
  if (w == "log_normal") return xrng::make_plan(xrng::Dist::log_normal, xrng::DType::f32, q, 2);
  if (w == "cauchy") return xrng::make_plan(xrng::Dist::cauchy, xrng::DType::f32, q, 2);
  if (w == "bernoulli") return xrng::make_plan(xrng::Dist::bernoulli, xrng::DType::u8, q);
  return xrng::make_plan(xrng::Dist::perm, xrng::DType::i64, q);
}

// args: log2(n), threads, simd (0/1)
void run(benchmark::State& st, const char* what) {
  const uint64_t n = uint64_t{1} << st.range(0);
  const int threads = static_cast<int>(st.range(1));
  const bool simd = st.range(2) != 0;
  if (simd && std::string(xrng::simd_isa()) == "none") {
    st.SkipWithError("no SIMD ISA on this CPU");
    return;
  }
  const xrng::Plan p = plan_of(what, n);
  std::vector<unsigned char> buf(n * xrng::dtype_size(p.dtype));
  const xrng::FillOptions opt{simd ? xrng::Backend::simd : xrng::Backend::scalar, threads};
  const xrng::Key key(42);
  xrng::fill(p, key, 0, 0, n, buf.data(), opt);  // touch the pages once
  for (auto _ : st) {
    xrng::fill(p, key, 0, 0, n, buf.data(), opt);
    benchmark::DoNotOptimize(buf.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * n));
  // per-iteration-invariant rate of n elements, inverted: seconds per element
  st.counters["t/elem"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                                                          benchmark::Counter::kInvert);
  st.SetLabel(simd ? xrng::simd_isa() : "scalar");
}

void args(benchmark::internal::Benchmark* b) {
  for (int lg : {20, 24})
    for (int threads : {1, 2})
      for (int simd : {0, 1}) b->Args({lg, threads, simd});
  b->ArgNames({"log2n", "threads", "simd"})->UseRealTime()->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK_CAPTURE(run, uniform_f32, "uniform")->Apply(args);
BENCHMARK_CAPTURE(run, normal_f32, "normal")->Apply(args);
BENCHMARK_CAPTURE(run, normal_f32_v1, "normal_v1")->Apply(args);
BENCHMARK_CAPTURE(run, exponential_f32_v2, "exponential")->Apply(args);
BENCHMARK_CAPTURE(run, log_normal_f32_v2, "log_normal")->Apply(args);
BENCHMARK_CAPTURE(run, cauchy_f32_v2, "cauchy")->Apply(args);
BENCHMARK_CAPTURE(run, bernoulli_u8, "bernoulli")->Apply(args);
BENCHMARK_CAPTURE(run, randperm_i64, "perm")->Apply(args);

// Block draws (fill_block) of a 4096 x 4096 f32 normal, the shard of rank 1
// of 2: Shard(0) (one run of 2^23 elements), Shard(1) (4096 runs of 2048),
// and a Shard(1) of 1024 ranks (4096 runs of 4), against fill of the same
// element count ("block" arg 0). args: shard kind, threads, simd (0/1).
void block(benchmark::State& st) {
  const int kind = static_cast<int>(st.range(0));
  const int threads = static_cast<int>(st.range(1));
  const bool simd = st.range(2) != 0;
  if (simd && std::string(xrng::simd_isa()) == "none") {
    st.SkipWithError("no SIMD ISA on this CPU");
    return;
  }
  const xrng::Plan p = xrng::make_plan(xrng::Dist::normal, xrng::DType::f32, {});
  const uint64_t n = 4096;
  xrng::TensorBlock b;
  switch (kind) {
    case 1: b = {{n, n}, {n / 2, 0}, {n / 2, n}}; break;     // Shard(0), rank 1 of 2
    case 2: b = {{n, n}, {0, n / 2}, {n, n / 2}}; break;     // Shard(1), rank 1 of 2
    case 3: b = {{n, n}, {0, 4}, {n, 4}}; break;             // Shard(1), rank 1 of 1024
    default: b = {{n * n / 2}, {0}, {n * n / 2}}; break;     // a plain range of 2^23 elements
  }
  const uint64_t count = xrng::BlockLayout::make(b).count;
  std::vector<float> buf(count);
  const xrng::FillOptions opt{simd ? xrng::Backend::simd : xrng::Backend::scalar, threads};
  const xrng::Key key(42);
  xrng::fill_block(p, key, 0, b, buf.data(), opt);
  for (auto _ : st) {
    if (kind == 0)
      xrng::fill(p, key, 0, 0, count, buf.data(), opt);
    else
      xrng::fill_block(p, key, 0, b, buf.data(), opt);
    benchmark::DoNotOptimize(buf.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * count));
  st.counters["t/elem"] = benchmark::Counter(static_cast<double>(count), benchmark::Counter::kIsIterationInvariantRate |
                                                                              benchmark::Counter::kInvert);
  static const char* const kNames[] = {"fill range", "Shard(0) 1/2", "Shard(1) 1/2", "Shard(1) 1/1024"};
  st.SetLabel(std::string(kNames[kind]) + (simd ? std::string(" ") + xrng::simd_isa() : " scalar"));
}
BENCHMARK(block)
    ->ArgsProduct({{0, 1, 2, 3}, {1, 2}, {1}})
    ->ArgNames({"shard", "threads", "simd"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
