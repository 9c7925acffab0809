// GPU proofs of the CUDA backend. Every value the GPU computes is compared
// with the CPU: the core's scalar reference (requests.h), the golden file,
// exhaustive 2^32 sweeps of the per-word transforms, and cuRAND itself. The
// requests come from the registry (every row, every op of its kind, the
// sample parameters of its distribution and the golden file's parameter sets),
// so a new row is tested here without a test edit.
//
// Without a usable GPU the program prints why and exits with 77, which ctest
// reports as SKIPPED (SKIP_RETURN_CODE): it never passes without testing.
#define DOCTEST_CONFIG_IMPLEMENT
#include <cuda_runtime.h>
#include <curand_kernel.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "device/direct.h"
#include "device/xrng_cuda.h"
#include "rng/gamma.h"
#include "rng/multinomial.h"
#include "exhaustive.h"
#include "exhaustive_cpu.h"
#include "golden/blocks.h"
#include "requests.h"

using namespace xrng;
using namespace xrng_gpu_test;
using xrng::cuda::LaunchConfig;

namespace {

int g_cases_run = 0;  // main fails if a filter left no test case to run

void cu(cudaError_t e, const char* what) {
  if (e != cudaSuccess) FAIL(what, ": ", cudaGetErrorString(e));
}

std::string hex64(uint64_t x) {
  char b[24];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(x));
  return b;
}

// A device buffer with guard bytes before and after the region under test,
// poisoned so unwritten elements and stray writes are both caught.
constexpr size_t kGuard = 64;
constexpr unsigned char kPoison = 0xA5;
struct DevBuf {
  unsigned char* p = nullptr;
  size_t bytes = 0;
  explicit DevBuf(size_t n) : bytes(n + 2 * kGuard + 16) {
    cu(cudaMalloc(&p, bytes), "cudaMalloc");
    cu(cudaMemset(p, kPoison, bytes), "cudaMemset");
  }
  ~DevBuf() { cudaFree(p); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  // the region under test, `mis` bytes past a 16-byte boundary
  unsigned char* region(size_t mis) const { return p + kGuard + mis; }
  std::vector<unsigned char> download() const {
    std::vector<unsigned char> h(bytes);
    cu(cudaMemcpy(h.data(), p, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    return h;
  }
};

// Compares the region [kGuard+mis, +n) with `want` and checks that every byte
// outside it still holds the poison.
void check_region(const std::vector<unsigned char>& got, size_t mis, const std::vector<unsigned char>& want, int esize,
                  const std::string& what) {
  const size_t b = kGuard + mis;
  size_t bad = want.size();
  for (size_t i = 0; i < want.size(); ++i)
    if (got[b + i] != want[i]) {
      bad = i;
      break;
    }
  if (bad != want.size()) {
    const size_t e = bad / esize;
    uint64_t g = 0, w = 0;
    std::memcpy(&g, &got[b + e * esize], esize);
    std::memcpy(&w, &want[e * esize], esize);
    FAIL_CHECK(what, ": element ", e, " GPU 0x", hex64(g), " CPU 0x", hex64(w));
  }
  size_t stray = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if ((i < b || i >= b + want.size()) && got[i] != kPoison) ++stray;
  if (stray) FAIL_CHECK(what, ": ", stray, " bytes written outside the output");
}

// ---- one request on the GPU ---------------------------------------------------------------
// Through the asynchronous API on device buffers, the output `mis` bytes past
// a 16-byte boundary (a transform in place when asked); compared with the
// reference, guard bytes included.
void gpu_vs_reference(const Request& q, size_t mis, bool in_place, LaunchConfig cfg, const std::string& what) {
  const std::vector<unsigned char> want = reference(q);
  DevBuf out(q.bytes() + mis);
  DevBuf in(q.op == Op::transform && !in_place ? q.bytes() + mis : 0);
  switch (q.op) {
    case Op::fill:
      cuda::fill(q.plan, q.key, q.offset, q.start, q.count, out.region(mis), 0, cfg);
      break;
    case Op::transform: {
      unsigned char* src = in_place ? out.region(mis) : in.region(mis);
      cu(cudaMemcpy(src, q.in.data(), q.bytes(), cudaMemcpyHostToDevice), "upload");
      cuda::transform(q.plan, q.key, q.offset, q.start, q.count, src, out.region(mis), 0, cfg);
      break;
    }
    case Op::perm_shard:
      cuda::perm_shard(q.plan, q.key, q.offset, q.rank, q.world, q.start, q.count, out.region(mis), 0, cfg);
      break;
    case Op::perm_inverse:
      cuda::perm_inverse(q.plan, q.key, q.offset, q.start, q.count, out.region(mis), 0, cfg);
      break;
  }
  cu(cudaDeviceSynchronize(), what.c_str());
  check_region(out.download(), mis, want, dtype_size(q.plan.dtype), what);
}

// Through the synchronous helpers of xrng_cuda_host.h (what the CLI uses).
std::vector<unsigned char> gpu_to_host(const Request& q, LaunchConfig cfg = {}) {
  std::vector<unsigned char> out(q.bytes() + 8);
  switch (q.op) {
    case Op::fill: cuda::fill_to_host(q.plan, q.key, q.offset, q.start, q.count, out.data(), cfg); break;
    case Op::transform:
      cuda::transform_to_host(q.plan, q.key, q.offset, q.start, q.count, q.in.data(), out.data(), cfg);
      break;
    case Op::perm_shard:
      cuda::perm_shard_to_host(q.plan, q.key, q.offset, q.rank, q.world, q.start, q.count, out.data(), cfg);
      break;
    case Op::perm_inverse:
      cuda::perm_inverse_to_host(q.plan, q.key, q.offset, q.start, q.count, out.data(), cfg);
      break;
  }
  out.resize(q.bytes());
  return out;
}

std::string with_cfg(const std::string& what, LaunchConfig cfg) {
  return what + " grid=" + std::to_string(cfg.grid) + " block=" + std::to_string(cfg.block);
}

}  // namespace

// ======================================================================================
TEST_SUITE("equivalence") {
  TEST_CASE("every registry row and op equals the core's scalar reference") {
    ++g_cases_run;
    Rng r{0x5eed0001};
    int n = 0;
    for (const Plan& p : plans_under_test()) {
      const int es = dtype_size(p.dtype);
      for (Op op : ops_of(p)) {
        for (int k = 0; k < 8; ++k) {
          const Request q = random_request(r, op, p, 70000);
          const size_t mis = r.below(3) == 0 ? es * (1 + r.below(7)) : 0;
          const bool in_place = op == Op::transform && r.below(2);
          gpu_vs_reference(q, mis, in_place, {},
                           q.describe() + " misalign=" + std::to_string(mis) + (in_place ? " in place" : ""));
          if (k == 0) CHECK_MESSAGE(gpu_to_host(q) == reference(q), q.describe(), " (synchronous helper)");
          ++n;
        }
        if (p.kind != Kind::permutation) {
          // the last words of the stream: a draw that ends exactly at word 2^64
          const Request q = request_at_stream_end(r, op, p, 5, 37);
          gpu_vs_reference(q, 0, false, {}, q.describe() + " (ends at word 2^64)");
          ++n;
        }
      }
    }
    MESSAGE(n, " requests compared");
  }

  TEST_CASE("the coalesced layout: every row x word offset x pointer shift x start / count, full and partial warps") {
    // The sweep cuda_host runs on the CPU (word offsets 0..7 and far, output
    // pointers at every multiple of the element size below 16 bytes, starts
    // on and off slot boundaries, counts with heads and tails, transform
    // inputs at another shift or in place), here through the kernels, with the
    // automatic launch and with blocks of 33 lanes (a partial last warp,
    // whose last lane computes the block the shuffle cannot give it).
    ++g_cases_run;
    Rng r{0x51075};
    int n = 0;
    for (const golden::RowPlan& rp : golden::row_plans()) {
      const Plan& p = rp.plan;
      if (p.kind == Kind::permutation) continue;
      const size_t es = static_cast<size_t>(dtype_size(p.dtype));
      const uint64_t starts[] = {0, 1, 2, 3, 15, 16, 17, 1000003};
      const uint64_t counts[] = {1, 2, 15, 16, 17, 33, 257, 4099, 70001};
      size_t i = 0;
      for (size_t mis = 0; mis < 16; mis += es)
        for (uint64_t off = 0; off < 9; ++off, ++i) {
          Request q;
          q.op = p.kind == Kind::transform ? Op::transform : Op::fill;
          q.plan = p;
          q.key = Key(r.next(), r.below(2) ? r.next() : 0);
          q.offset = off < 8 ? off : (r.next() >> 3);
          q.start = starts[(i * 5) % std::size(starts)];
          q.count = counts[(i * 7) % std::size(counts)];
          if (q.op == Op::transform) fill_input(q, r);
          const bool in_place = q.op == Op::transform && i % 2;
          for (LaunchConfig cfg : {LaunchConfig{}, LaunchConfig{3, 33}}) {
            gpu_vs_reference(q, mis, in_place, cfg,
                             with_cfg(q.describe() + " misalign=" + std::to_string(mis) + (in_place ? " in place" : ""),
                                      cfg));
            ++n;
          }
        }
    }
    MESSAGE(n, " layout requests compared");
  }

  TEST_CASE("a whole permutation is a permutation, and its inverse inverts it (n = 2^20 + 5)") {
    ++g_cases_run;
    for (const golden::RowPlan& rp : golden::row_plans()) {
      if (rp.plan.kind != Kind::permutation) continue;
      const uint64_t n = (1u << 20) + 5;
      Request q;
      q.plan = make_plan(rp.row->dist, rp.row->dtype, DrawParams::perm_size(n), rp.row->version);
      q.key = Key(77);
      q.offset = 3;
      q.count = n;
      q.op = Op::fill;
      const std::vector<unsigned char> fwd = gpu_to_host(q);
      q.op = Op::perm_inverse;
      const std::vector<unsigned char> inv = gpu_to_host(q);
      const std::vector<uint64_t> v = golden::to_bits(q.plan.dtype, fwd.data(), n);
      const std::vector<uint64_t> w = golden::to_bits(q.plan.dtype, inv.data(), n);
      std::vector<uint64_t> s = v;
      std::sort(s.begin(), s.end());
      bool perm_ok = true, inv_ok = true;
      for (uint64_t i = 0; i < n; ++i) {
        perm_ok = perm_ok && s[i] == i;
        inv_ok = inv_ok && v[i] < n && w[v[i]] == i;
      }
      CHECK_MESSAGE(perm_ok, row_name(q.plan));
      CHECK_MESSAGE(inv_ok, row_name(q.plan));
    }
  }
}  // TEST_SUITE("equivalence")

// ======================================================================================
// Cases where, when this was written, the CPU reference itself was at fault
// or not portable; kept apart (ctest cuda_edge) so that they cannot hide, and
// are not hidden by, the main equivalence results.
TEST_SUITE("edge") {
  // Elements up to 2^64 - 1 (a draw whose end, start + count, is 2^64): the
  // core's reference_fill once wrote nothing for such a draw (its loop bound
  // start + count wrapped to 0); the bits case is also checked against
  // stream_word directly.
  TEST_CASE("draws ending at element 2^64, every one-word row") {
    ++g_cases_run;
    Rng r{0xed9e};
    for (const golden::RowPlan& rp : golden::row_plans()) {
      const Plan& p = rp.plan;
      if (p.kind == Kind::permutation || p.group != 1 || p.words != 1) continue;
      Request q;
      q.op = p.kind == Kind::transform ? Op::transform : Op::fill;
      q.plan = p;
      q.key = Key(10);
      q.start = ~uint64_t{0} - 40;
      q.count = 41;
      if (q.op == Op::transform) fill_input(q, r);
      gpu_vs_reference(q, 0, false, {}, q.describe() + " (last element 2^64-1)");
    }
    const Plan bits = make_plan(Dist::bits, DType::u32, {});
    uint32_t got[41];
    const uint64_t s2 = ~uint64_t{0} - 40;
    cuda::fill_to_host(bits, Key(10), 0, s2, 41, got);
    int bad = 0;
    for (int i = 0; i < 41; ++i) bad += got[i] != stream_word(Stream{10, 0}, s2 + i);
    CHECK_MESSAGE(bad == 0, "GPU bits at elements 2^64-41 .. 2^64-1 differ from stream_word");
  }

  // A kept element of dropout is x * scale. For a NaN x, IEEE arithmetic
  // leaves the result's NaN bits to the implementation: x86 keeps the input's
  // payload (quieted) and sign, while the PTX ISA documents canonical NaN
  // results for binary32 arithmetic on NVIDIA GPUs (0x7fffffff). Bit-for-bit
  // equality with NaN inputs needs the core's transforms to canonicalise NaN
  // (rng/detail/distributions.h); this case shows whether they do.
  TEST_CASE("transforms of NaN inputs give the CPU's bits, every float transform row") {
    ++g_cases_run;
    int rows = 0;
    for (const golden::RowPlan& rp : golden::row_plans()) {
      const Plan& p = rp.plan;
      if (p.kind != Kind::transform || !dtype_is_float(p.dtype)) continue;
      Request q;
      q.op = Op::transform;
      q.plan = p;
      q.key = Key(3);
      q.count = 256;
      const int es = dtype_size(p.dtype);
      q.in.assign(q.bytes(), 0);
      for (uint64_t i = 0; i < q.count; ++i) {  // quiet and signalling NaNs of both signs, with payloads
        const uint64_t payload = 1 + i, sign = i & 1;
        uint64_t x = 0;
        switch (p.dtype) {
          case DType::f64: x = (uint64_t{0x7ff} << 52) | (payload << 40) | (sign << 63); break;
          case DType::f32: x = (uint64_t{0xff} << 23) | (payload << 12) | (sign << 31); break;
          case DType::f16: x = (uint64_t{0x1f} << 10) | (payload & 0x3ff) | (sign << 15) | ((payload & 0x3ff) == 0); break;
          case DType::bf16: x = (uint64_t{0xff} << 7) | (payload & 0x7f) | (sign << 15) | ((payload & 0x7f) == 0); break;
          case DType::u32:
          case DType::u64:
          case DType::i32:
          case DType::i64:
          case DType::u8:
            FAIL("not a float dtype");
        }
        std::memcpy(&q.in[i * es], &x, es);
      }
      CHECK_MESSAGE(gpu_to_host(q) == reference(q), q.describe(), ": kept NaN elements differ between GPU and CPU");
      ++rows;
    }
    CHECK(rows > 0);
  }
}  // TEST_SUITE("edge")

// ======================================================================================
TEST_SUITE("launch") {
  TEST_CASE("values do not depend on grid, block or splitting, every row and op") {
    ++g_cases_run;
    const LaunchConfig cfgs[] = {{0, 0}, {1, 32}, {3, 33}, {7, 96}, {1000, 1024}, {65535, 64}, {0, 1024}, {2, 0}};
    Rng r{0x5eed0004};
    for (const golden::RowPlan& rp : golden::row_plans()) {
      DrawParams params = rp.params;
      if (rp.plan.kind == Kind::permutation) params.n = 1000003;  // room for 100003 elements
      const Plan p = make_plan(rp.row->dist, rp.row->dtype, params, rp.row->version);
      for (Op op : ops_of(p)) {
        Request q = random_request(r, op, p, 1);
        q.count = 100003;
        if (op == Op::fill || op == Op::perm_inverse) q.start = r.below(p.kind == Kind::permutation ? p.n - q.count : 1000);
        if (op == Op::transform) fill_input(q, r);
        const std::vector<unsigned char> want = reference(q);
        for (const LaunchConfig& c : cfgs) CHECK_MESSAGE(gpu_to_host(q, c) == want, with_cfg(q.describe(), c));
        // the same elements in three calls at arbitrary split points
        const uint64_t a = 1 + r.below(q.count / 2), b = a + r.below(q.count - a);
        const uint64_t es = static_cast<uint64_t>(dtype_size(p.dtype));
        std::vector<unsigned char> split;
        for (auto [from, to, cfg] : {std::tuple{uint64_t{0}, a, LaunchConfig{5, 64}}, std::tuple{a, b, LaunchConfig{}},
                                     std::tuple{b, q.count, LaunchConfig{1, 1024}}}) {
          Request part = q;
          part.start = q.start + from;
          part.count = to - from;
          if (op == Op::transform) part.in.assign(q.in.begin() + from * es, q.in.begin() + to * es);
          const std::vector<unsigned char> got = gpu_to_host(part, cfg);
          split.insert(split.end(), got.begin(), got.end());
        }
        CHECK_MESSAGE(split == want, q.describe(), " split at ", a, ", ", b);
      }
    }
  }

  TEST_CASE("streams and CUDA graph capture: the offset is a by-value argument") {
    ++g_cases_run;
    const Plan p = make_plan(Dist::normal, DType::f32, {});
    const uint64_t count = 1 << 16;
    cudaStream_t s;
    cu(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
    DevBuf a(count * 4), b(count * 4);
    cudaGraph_t graph;
    cu(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "begin capture");
    cuda::fill(p, Key(8), 1000, 0, count, a.region(0), s);
    cuda::fill(p, Key(8), 1000 + count, 0, count, b.region(0), s);
    cu(cudaStreamEndCapture(s, &graph), "end capture");
    cudaGraphExec_t exec;
    cu(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
    for (int rep = 0; rep < 3; ++rep) {
      cu(cudaMemsetAsync(a.region(0), 0, count * 4, s), "memset");
      cu(cudaGraphLaunch(exec, s), "graph launch");
    }
    cu(cudaStreamSynchronize(s), "sync");
    Request q;
    q.plan = p;
    q.key = Key(8);
    q.offset = 1000;
    q.count = 2 * count;
    const std::vector<unsigned char> want = reference(q);
    std::vector<unsigned char> got(2 * count * 4);
    cu(cudaMemcpy(got.data(), a.region(0), count * 4, cudaMemcpyDeviceToHost), "download");
    cu(cudaMemcpy(got.data() + count * 4, b.region(0), count * 4, cudaMemcpyDeviceToHost), "download");
    CHECK(got == want);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(s);
  }

  TEST_CASE("launches at a position in device memory (CUDA graphs): every row and op equals the reference") {
    // detail::fill_at / transform_at / perm_shard_at read [seed, subseq,
    // offset, stream] from device memory when the kernel runs (device/position.h)
    ++g_cases_run;
    Rng r{0x5eed0a7};
    int64_t* pos = nullptr;
    cu(cudaMalloc(&pos, 4 * sizeof(int64_t)), "cudaMalloc");
    int n = 0;
    for (const Plan& p : plans_under_test()) {
      if (p.stream != kStreamVersion) continue;  // device positions draw the newest stream version
      const int es = dtype_size(p.dtype);
      for (Op op : ops_of(p)) {
        if (op == Op::perm_inverse) continue;  // no device-position entry
        for (int k = 0; k < 4; ++k) {
          const Request q = k == 3 && p.kind != Kind::permutation ? request_at_stream_end(r, op, p, 5, 37)
                                                                  : random_request(r, op, p, 70000);
          const size_t mis = r.below(3) == 0 ? es * (1 + r.below(7)) : 0;
          const int64_t h[4] = {static_cast<int64_t>(q.key.seed), static_cast<int64_t>(q.key.subseq),
                                static_cast<int64_t>(q.offset), kStreamVersion};
          cu(cudaMemcpy(pos, h, sizeof h, cudaMemcpyHostToDevice), "upload position");
          const std::vector<unsigned char> want = reference(q);
          DevBuf out(q.bytes() + mis), in(q.op == Op::transform ? q.bytes() + mis : 0);
          switch (q.op) {
            case Op::fill: cuda::detail::fill_at(q.plan, pos, q.start, q.count, out.region(mis), 0); break;
            case Op::transform:
              cu(cudaMemcpy(in.region(mis), q.in.data(), q.bytes(), cudaMemcpyHostToDevice), "upload");
              cuda::detail::transform_at(q.plan, pos, q.start, q.count, in.region(mis), out.region(mis), 0);
              break;
            case Op::perm_shard:
              cuda::detail::perm_shard_at(q.plan, pos, q.rank, q.world, q.start, q.count, out.region(mis), 0);
              break;
            case Op::perm_inverse: break;
          }
          cu(cudaDeviceSynchronize(), q.describe().c_str());
          check_region(out.download(), mis, want, es, q.describe() + " (device position)");
          ++n;
        }
      }
    }
    cudaFree(pos);
    MESSAGE(n, " requests at device positions compared");
  }

  TEST_CASE("a captured graph of takes and draws, replayed, equals the generator's sequence") {
    // take_at advances a state in device memory; fill_at / transform_at draw at
    // the position it wrote. Captured once, replayed 5 times: replay k's draws
    // are draws 3k .. 3k + 2 of the host sequence (offsets by check_counters).
    ++g_cases_run;
    const Plan pn = make_plan(Dist::normal, DType::f32, {});
    const Plan pb = make_plan(Dist::bits, DType::u64, {});
    const Plan pd = make_plan(Dist::dropout, DType::f32, DrawParams::probability(0.25));
    const uint64_t cn = 1001, cb = 77, cd = 4099;
    const uint64_t off0 = 12345;
    int64_t* st = nullptr;
    int64_t* before = nullptr;
    cu(cudaMalloc(&st, 4 * sizeof(int64_t)), "cudaMalloc");
    cu(cudaMalloc(&before, 3 * 4 * sizeof(int64_t)), "cudaMalloc");
    const int64_t h[4] = {99, 3, static_cast<int64_t>(off0), kStreamVersion};
    cu(cudaMemcpy(st, h, sizeof h, cudaMemcpyHostToDevice), "upload state");
    DevBuf a(cn * 4), b(cb * 8), c(cd * 4), x(cd * 4);
    Request qd;
    qd.op = Op::transform;
    qd.plan = pd;
    qd.count = cd;
    Rng r{0x9a};
    fill_input(qd, r);
    cu(cudaMemcpy(x.region(0), qd.in.data(), qd.bytes(), cudaMemcpyHostToDevice), "upload input");
    cudaStream_t s;
    cu(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
    cudaGraph_t graph;
    cu(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "begin capture");
    cuda::detail::take_at(st, before, kStreamVersion, check_counters(pn, 0, 0, cn), s);
    cuda::detail::fill_at(pn, before, 0, cn, a.region(0), s);
    cuda::detail::take_at(st, before + 4, kStreamVersion, check_counters(pb, 0, 0, cb), s);
    cuda::detail::fill_at(pb, before + 4, 0, cb, b.region(0), s);
    cuda::detail::take_at(st, before + 8, kStreamVersion, check_counters(pd, 0, 0, cd), s);
    cuda::detail::transform_at(pd, before + 8, 0, cd, x.region(0), c.region(0), s);
    cu(cudaStreamEndCapture(s, &graph), "end capture");
    cudaGraphExec_t exec;
    cu(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
    uint64_t off = off0;
    for (int rep = 0; rep < 5; ++rep) {
      cu(cudaGraphLaunch(exec, s), "graph launch");
      cu(cudaStreamSynchronize(s), "sync");
      Request qa, qb;
      qa.plan = pn, qa.key = Key(99, 3), qa.offset = off, qa.count = cn;
      off += check_counters(pn, 0, 0, cn);
      qb.plan = pb, qb.key = Key(99, 3), qb.offset = off, qb.count = cb;
      off += check_counters(pb, 0, 0, cb);
      qd.key = Key(99, 3), qd.offset = off;
      off += check_counters(pd, 0, 0, cd);
      const std::string what = "replay " + std::to_string(rep);
      check_region(a.download(), 0, reference(qa), 4, what + " normal");
      check_region(b.download(), 0, reference(qb), 8, what + " bits");
      check_region(c.download(), 0, reference(qd), 4, what + " dropout");
      int64_t now[4];
      cu(cudaMemcpy(now, st, sizeof now, cudaMemcpyDeviceToHost), "download state");
      CHECK(static_cast<uint64_t>(now[2]) == off);
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(s);
    cudaFree(st);
    cudaFree(before);
  }

  TEST_CASE("pageable host memory is refused with an xrng::Error, the context stays usable") {
    ++g_cases_run;
    const Plan p = make_plan(Dist::bits, DType::u32, {});
    std::vector<uint32_t> host(64);
    bool threw = false;
    try {
      cuda::fill(p, Key(1), 0, 0, 64, host.data());
    } catch (const xrng::Error& e) {
      threw = std::string(e.what()).find("not memory the current device can access") != std::string::npos;
    }
    CHECK(threw);
    Request q;
    q.plan = p;
    q.key = Key(1);
    q.count = 64;
    CHECK(gpu_to_host(q) == reference(q));
  }
}  // TEST_SUITE("launch")

// ======================================================================================
namespace {
template <class T>
__global__ void hash_kernel(const T t, unsigned long long* acc) {
  const uint64_t total = uint64_t{1} << 32;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  uint64_t h = 0;
  for (uint64_t x = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; x < total; x += stride)
    h += xrng_test::hash_range(t, x, x + 1);
  for (int o = 16; o > 0; o >>= 1) h += __shfl_down_sync(0xffffffffu, h, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(acc, static_cast<unsigned long long>(h));
}

template <class T>
uint64_t gpu_hash(const T& t) {
  unsigned long long* acc = nullptr;
  cu(cudaMalloc(&acc, sizeof *acc), "cudaMalloc");
  cu(cudaMemset(acc, 0, sizeof *acc), "cudaMemset");
  int dev = 0, sms = 0;
  cu(cudaGetDevice(&dev), "cudaGetDevice");
  cu(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "sm count");
  hash_kernel<T><<<sms * 8, 256>>>(t, acc);
  cu(cudaGetLastError(), "hash kernel launch");
  unsigned long long h = 0;
  cu(cudaMemcpy(&h, acc, sizeof h, cudaMemcpyDeviceToHost), "hash download");
  cudaFree(acc);
  return h;
}

unsigned cpu_threads() { return std::max(2u, std::thread::hardware_concurrency()); }

uint64_t cpu_hash(xrng_test::Transform w, const Plan& p) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("fma")) return xrng_test::fma::cpu_hash(w, p, cpu_threads());
#endif
  return xrng_test::generic::cpu_hash(w, p, cpu_threads());
}

template <class T>
void prove(const T& t, xrng_test::Transform w, const Plan& p, const std::string& label) {
  const uint64_t g = gpu_hash(t);
  const uint64_t c = cpu_hash(w, p);
  const std::string name = T::kName;
  MESSAGE(name, " ", label, ": GPU hash ", hex64(g), ", CPU hash ", hex64(c), " (2^32 inputs, ", cpu_threads(),
          " CPU threads)");
  CHECK_MESSAGE(g == c, name, " ", label, " differs between GPU and CPU");
}

// "[a, b)"-style label of a plan's sample parameters.
std::string params_label(Dist d, const DrawParams& q) {
  std::string s;
  for (const ParamInfo& pi : kParams)
    if (dist_has_param(d, pi.id) && pi.kind == ParamKind::real)
      s += (s.empty() ? "" : " ") + std::string(pi.name) + "=" + std::to_string(q.real(pi.id));
  return s;
}
}  // namespace

TEST_SUITE("exhaustive") {
  TEST_CASE("every 2^32 input of each per-word transform: GPU hash == CPU hash") {
    ++g_cases_run;
    using xrng_test::Transform;
    const Plan none{};
    prove(xrng_test::RadiusT{}, Transform::radius, none, "");
    prove(xrng_test::SincosT{}, Transform::sincos, none, "");
    for (const DrawParams& q : golden::sample_params(Dist::uniform)) {
      const std::string label = params_label(Dist::uniform, q);
      const Plan pf = make_plan(Dist::uniform, DType::f32, q);
      prove(xrng_test::UniformF32T{pf.uniform}, Transform::uniform_f32, pf, label);
      const Plan ph = make_plan(Dist::uniform, DType::f16, q);
      prove(xrng_test::UniformF16T{ph.uniform}, Transform::uniform_f16, ph, label);
      const Plan pb = make_plan(Dist::uniform, DType::bf16, q);
      prove(xrng_test::UniformBF16T{pb.uniform}, Transform::uniform_bf16, pb, label);
    }
    prove(xrng_test::F16RoundT{}, Transform::f16_round, none, "");
    prove(xrng_test::BF16RoundT{}, Transform::bf16_round, none, "");
    for (const DrawParams& q : golden::sample_params(Dist::exponential)) {
      const Plan p = make_plan(Dist::exponential, DType::f32, q);
      prove(xrng_test::ExponentialF32T{p}, Transform::exponential_f32, p, params_label(Dist::exponential, q));
    }
    for (const DrawParams& q : golden::sample_params(Dist::cauchy)) {
      const Plan p = make_plan(Dist::cauchy, DType::f32, q);
      prove(xrng_test::CauchyF32T{p}, Transform::cauchy_f32, p, params_label(Dist::cauchy, q));
    }
    // Stream v2 (binary32 transforms).
    prove(xrng_test::RadiusV2T{}, Transform::v2_radius, none, "");
    prove(xrng_test::SincosV2T{}, Transform::v2_sincos, none, "");
    prove(xrng_test::ExpV2T{}, Transform::v2_exp, none, "");
    for (const DrawParams& q : golden::sample_params(Dist::exponential)) {
      const Plan p = make_plan(Dist::exponential, DType::f32, q, 2);
      prove(xrng_test::ExponentialF32V2T{p}, Transform::v2_exponential_f32, p, params_label(Dist::exponential, q));
    }
    for (const DrawParams& q : golden::sample_params(Dist::cauchy)) {
      const Plan p = make_plan(Dist::cauchy, DType::f32, q, 2);
      prove(xrng_test::CauchyF32V2T{p}, Transform::v2_cauchy_f32, p, params_label(Dist::cauchy, q));
    }
  }
}  // TEST_SUITE("exhaustive")

// ======================================================================================
namespace {
__global__ void curand_kernel(const uint64_t* seed, const uint64_t* subseq, const uint64_t* offset, int n, int draws,
                              uint32_t* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandStatePhilox4_32_10_t st;
  curand_init(seed[i], subseq[i], offset[i], &st);
  for (int d = 0; d < draws; ++d) out[static_cast<size_t>(i) * draws + d] = curand(&st);
}
}  // namespace

TEST_SUITE("curand") {
  TEST_CASE("our bits equal curand_init(seed, subseq, offset) + curand()") {
    ++g_cases_run;
    constexpr int kN = 4096, kDraws = 9;  // 9 draws: every case crosses at least one Philox block
    Rng r{0x5eed0005};
    std::vector<uint64_t> seed(kN), sub(kN), off(kN);
    for (int i = 0; i < kN; ++i) {
      seed[i] = r.next();
      switch (i % 4) {
        case 0: sub[i] = r.below(16); break;
        case 1: sub[i] = r.next(); break;  // huge subsequences
        case 2: sub[i] = ~uint64_t{0} - r.below(4); break;
        default: sub[i] = uint64_t{1} << r.below(64); break;
      }
      switch (i % 5) {
        case 0: off[i] = r.below(64); break;  // every lane phase
        case 1: off[i] = r.next() >> r.below(64); break;
        case 2: off[i] = (r.next() >> 1) | 1; break;  // odd, huge
        case 3: off[i] = ~uint64_t{0} - kDraws - r.below(8); break;  // near the end of the stream
        default: off[i] = 4 * r.below(1u << 30) + 3; break;
      }
    }
    uint64_t *ds, *dq, *dof;
    uint32_t* dout;
    cu(cudaMalloc(&ds, kN * 8), "malloc");
    cu(cudaMalloc(&dq, kN * 8), "malloc");
    cu(cudaMalloc(&dof, kN * 8), "malloc");
    cu(cudaMalloc(&dout, kN * kDraws * 4), "malloc");
    cu(cudaMemcpy(ds, seed.data(), kN * 8, cudaMemcpyHostToDevice), "upload");
    cu(cudaMemcpy(dq, sub.data(), kN * 8, cudaMemcpyHostToDevice), "upload");
    cu(cudaMemcpy(dof, off.data(), kN * 8, cudaMemcpyHostToDevice), "upload");
    curand_kernel<<<(kN + 127) / 128, 128>>>(ds, dq, dof, kN, kDraws, dout);
    cu(cudaGetLastError(), "curand kernel");
    std::vector<uint32_t> want(kN * kDraws);
    cu(cudaMemcpy(want.data(), dout, want.size() * 4, cudaMemcpyDeviceToHost), "download");
    cudaFree(ds);
    cudaFree(dq);
    cudaFree(dof);
    cudaFree(dout);

    const Plan bits = make_plan(Dist::bits, DType::u32, {});
    int bad_gpu = 0, bad_host = 0;
    for (int i = 0; i < kN; ++i) {
      uint32_t got[kDraws];
      cuda::fill_to_host(bits, Key(seed[i], sub[i]), off[i], 0, kDraws, got);  // the xrng CUDA kernel
      for (int d = 0; d < kDraws; ++d) {
        const uint32_t w = want[static_cast<size_t>(i) * kDraws + d];
        if (got[d] != w && bad_gpu++ < 5)
          FAIL_CHECK("xrng GPU bits differ from cuRAND: seed=", seed[i], " subseq=", sub[i], " offset=", off[i],
                     " draw ", d);
        if (stream_word(Stream{seed[i], sub[i]}, off[i] + d) != w && bad_host++ < 5)
          FAIL_CHECK("xrng host stream_word differs from cuRAND: seed=", seed[i], " subseq=", sub[i],
                     " offset=", off[i], " draw ", d);
      }
    }
    CHECK(bad_gpu == 0);
    CHECK(bad_host == 0);
    MESSAGE(kN, " (seed, subseq, offset) triples x ", kDraws, " draws compared with cuRAND");
  }
}  // TEST_SUITE("curand")

// ======================================================================================
TEST_SUITE("golden") {
  TEST_CASE("every golden case of tests/data/golden_v1.txt and golden_v2.txt on the GPU") {
    ++g_cases_run;
    const auto& cases = golden_cases();
    REQUIRE(!cases.empty());
    int bad = 0;
    for (const auto& c : cases) {
      const std::vector<unsigned char> got = gpu_to_host(from_golden(c));
      if (golden::to_bits(c.dtype, got.data(), c.count) != c.out) {
        ++bad;
        FAIL_CHECK("golden ", c.name());
      }
    }
    CHECK(bad == 0);
    MESSAGE(cases.size(), " golden cases checked on the GPU");
  }
}  // TEST_SUITE("golden")

// ======================================================================================
// Block draws of a global tensor (xrng::cuda::fill_block / transform_block):
// one range launch per run. Every row, ranks 1..4, blocks whose edges split
// groups, misaligned device outputs with guard bytes, a stream, and the
// synchronous helpers; then every case of tests/data/golden_blocks.txt.
TEST_SUITE("block") {
  TEST_CASE("blocks == the slice of the core's full draw, every row, on a stream, misaligned") {
    ++g_cases_run;
    Rng r{0xb10c0001};
    cudaStream_t st = nullptr;
    cu(cudaStreamCreate(&st), "cudaStreamCreate");
    int n = 0;
    for (const golden::RowPlan& rp : golden::row_plans()) {
      for (int k = 0; k < 12; ++k) {
        TensorBlock b;
        const size_t rank = 1 + r.below(4);
        for (size_t d = 0; d < rank; ++d) {
          const uint64_t e = 1 + r.below(d + 1 == rank ? 3000 : 7);
          const uint64_t s0 = r.below(e);
          b.shape.push_back(e);
          b.start.push_back(s0);
          b.size.push_back(1 + r.below(e - s0));
        }
        const BlockLayout L = BlockLayout::make(b);
        Plan p = rp.plan;
        if (p.kind == Kind::permutation) {
          DrawParams q = rp.params;
          q.n = L.global_count;
          p = make_plan(rp.row->dist, rp.row->dtype, q, rp.plan.stream);
        }
        Request full;
        full.op = p.kind == Kind::transform ? Op::transform : Op::fill;
        full.plan = p;
        full.key = Key(77, 5);
        full.offset = r.below(9);
        full.count = L.global_count;
        if (full.op == Op::transform) fill_input(full, r);
        const std::vector<unsigned char> want_full = reference(full);
        const int es = dtype_size(p.dtype);
        std::vector<unsigned char> want(L.count * es), in(L.count * es);
        L.for_each_piece(0, L.count, [&](uint64_t j, uint64_t g, uint64_t m) {
          std::memcpy(want.data() + j * es, want_full.data() + g * es, m * es);
          if (full.op == Op::transform) std::memcpy(in.data() + j * es, full.in.data() + g * es, m * es);
        });
        const size_t mis = r.below(2) ? 0 : es * (1 + r.below(7));
        const std::string what = row_name(p) + " shape " + detail::dims_text(b.shape) + " start " +
                                 detail::dims_text(b.start) + " size " + detail::dims_text(b.size);
        DevBuf out(want.size() + mis), din(want.size() + mis);
        if (full.op == Op::transform) {
          cu(cudaMemcpy(din.region(mis), in.data(), in.size(), cudaMemcpyHostToDevice), "upload");
          cuda::transform_block(p, full.key, full.offset, b, 0, L.count, din.region(mis), out.region(mis), st);
        } else {
          cuda::fill_block(p, full.key, full.offset, b, 0, L.count, out.region(mis), st);
        }
        cu(cudaStreamSynchronize(st), what.c_str());
        check_region(out.download(), mis, want, es, what);
        std::vector<unsigned char> host(want.size() + 8);
        if (full.op == Op::transform)
          cuda::transform_block_to_host(p, full.key, full.offset, b, in.data(), host.data());
        else
          cuda::fill_block_to_host(p, full.key, full.offset, b, host.data());
        CHECK_MESSAGE(std::memcmp(host.data(), want.data(), want.size()) == 0, what, " (synchronous helper)");
        ++n;
      }
    }
    cu(cudaStreamDestroy(st), "cudaStreamDestroy");
    MESSAGE(n, " blocks compared");
  }

  TEST_CASE("every case of tests/data/golden_blocks.txt on the GPU") {
    ++g_cases_run;
    const auto cases = golden::parse_block_text(golden::read_text(std::string(XRNG_TEST_DATA_DIR) + "/golden_blocks.txt"));
    REQUIRE(!cases.empty());
    int bad = 0;
    for (const auto& c : cases) {
      std::vector<unsigned char> got(c.base.count * dtype_size(c.base.dtype) + 8);
      if (c.base.op == "dropout") {
        const auto in = golden::from_bits(c.base.dtype, c.base.in);
        cuda::transform_block_to_host(c.base.plan(), Key(c.base.seed, c.base.subseq), c.base.offset, c.block,
                                      in.data(), got.data());
      } else {
        cuda::fill_block_to_host(c.base.plan(), Key(c.base.seed, c.base.subseq), c.base.offset, c.block, got.data());
      }
      if (golden::to_bits(c.base.dtype, got.data(), c.base.count) != c.base.out) {
        ++bad;
        FAIL_CHECK("golden block ", c.name());
      }
    }
    CHECK(bad == 0);
    MESSAGE(cases.size(), " golden block cases checked on the GPU");
  }
}  // TEST_SUITE("block")

// ======================================================================================
// Categorical sampling (xrng::cuda::multinomial; SPEC.md section 10): every
// case of tests/data/golden_v2_multinomial.txt, and larger draws against a
// reference written here from the core's element functions (rng/multinomial.h):
// a plain loop, a full sort for the race.
namespace {
struct MnCase {
  uint64_t seed = 0, subseq = 0, offset = 0, rows = 0, k = 0, ns = 0;
  bool repl = false;
  std::vector<double> w;
  std::vector<int64_t> out;
};
std::vector<MnCase> multinomial_golden() {
  std::vector<MnCase> v;
  FILE* f = std::fopen(XRNG_TEST_DATA_DIR "/golden_v2_multinomial.txt", "r");
  if (f == nullptr) return v;
  std::string line;
  for (int ch; (ch = std::fgetc(f)) != EOF;) {
    if (ch != '\n') {
      line += static_cast<char>(ch);
      continue;
    }
    if (!line.empty() && line[0] != '#') {
      MnCase c;
      size_t p = 0;
      while (p < line.size()) {
        size_t e = line.find(' ', p);
        if (e == std::string::npos) e = line.size();
        const std::string tok = line.substr(p, e - p);
        p = e + 1;
        const size_t eq = tok.find('=');
        const std::string key = tok.substr(0, eq), val = tok.substr(eq + 1);
        auto list = [&](auto conv) {
          size_t q = 0;
          while (q <= val.size()) {
            size_t c2 = val.find(',', q);
            if (c2 == std::string::npos) c2 = val.size();
            conv(val.substr(q, c2 - q));
            q = c2 + 1;
          }
        };
        if (key == "seed") c.seed = std::strtoull(val.c_str(), nullptr, 16);
        if (key == "subseq") c.subseq = std::strtoull(val.c_str(), nullptr, 16);
        if (key == "offset") c.offset = std::strtoull(val.c_str(), nullptr, 16);
        if (key == "rows") c.rows = std::strtoull(val.c_str(), nullptr, 10);
        if (key == "k") c.k = std::strtoull(val.c_str(), nullptr, 10);
        if (key == "num_samples") c.ns = std::strtoull(val.c_str(), nullptr, 10);
        if (key == "replacement") c.repl = val == "1";
        if (key == "weights") list([&](const std::string& x) { c.w.push_back(std::strtod(x.c_str(), nullptr)); });
        if (key == "out") list([&](const std::string& x) { c.out.push_back(std::strtoll(x.c_str(), nullptr, 10)); });
      }
      v.push_back(std::move(c));
    }
    line.clear();
  }
  std::fclose(f);
  return v;
}
std::vector<int64_t> multinomial_reference(const MnCase& c) {
  std::vector<int64_t> out(c.rows * c.ns);
  const Stream s = Key(c.seed, c.subseq).stream();
  for (uint64_t r = 0; r < c.rows; ++r) {
    const double* w = c.w.data() + r * c.k;
    double scale = 1, total = 0;
    REQUIRE(categorical::check_row(w, c.k, &scale, &total) == categorical::RowStatus::ok);
    if (c.repl) {
      std::vector<double> cum(c.k);
      categorical::cumulative(w, c.k, scale, cum.data());
      for (uint64_t j = 0; j < c.ns; ++j) {
        uint32_t wd[2];
        stream_words(s, c.offset + 2 * (r * c.ns + j), 2, wd);
        out[r * c.ns + j] = categorical::sample_with(cum.data(), c.k, total, wd[0], wd[1]);
      }
    } else {
      std::vector<categorical::RaceEntry> e(c.k);
      for (uint64_t i = 0; i < c.k; ++i) {
        uint32_t wd[2];
        stream_words(s, c.offset + 2 * (r * c.k + i), 2, wd);
        e[i] = categorical::race_entry(w[i], static_cast<int64_t>(i), wd[0], wd[1]);
      }
      std::sort(e.begin(), e.end(), categorical::before);
      for (uint64_t j = 0; j < c.ns; ++j) out[r * c.ns + j] = e[j].index;
    }
  }
  return out;
}
std::vector<int64_t> multinomial_gpu(const MnCase& c) {
  double* dw = nullptr;
  int64_t* dout = nullptr;
  cu(cudaMalloc(&dw, c.w.size() * sizeof(double) + 8), "cudaMalloc");
  cu(cudaMalloc(&dout, c.rows * c.ns * sizeof(int64_t) + 8), "cudaMalloc");
  cu(cudaMemcpy(dw, c.w.data(), c.w.size() * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
  xrng::cuda::multinomial(dw, c.rows, c.k, c.ns, c.repl, Key(c.seed, c.subseq), c.offset, dout);
  std::vector<int64_t> out(c.rows * c.ns);
  cu(cudaMemcpy(out.data(), dout, out.size() * sizeof(int64_t), cudaMemcpyDeviceToHost), "cudaMemcpy");
  cudaFree(dw);
  cudaFree(dout);
  return out;
}
}  // namespace

TEST_SUITE("multinomial") {
  TEST_CASE("every case of tests/data/golden_v2_multinomial.txt on the GPU, and its reference") {
    ++g_cases_run;
    const auto cases = multinomial_golden();
    REQUIRE(cases.size() >= 16);
    for (const auto& c : cases) {
      CHECK(multinomial_reference(c) == c.out);
      CHECK(multinomial_gpu(c) == c.out);
    }
    MESSAGE(cases.size(), " golden multinomial cases checked on the GPU");
  }
  TEST_CASE("larger draws (many rows, k up to 5000, both kinds) == the core's reference") {
    ++g_cases_run;
    uint64_t x = 88172645463325252ull;
    auto next = [&] {  // xorshift64 for the weights (not stream values)
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      return x;
    };
    for (int t = 0; t < 12; ++t) {
      MnCase c;
      c.seed = 1000 + t;
      c.offset = 3 * t;
      c.repl = t % 2 == 0;
      c.rows = 1 + next() % 300;
      c.k = 1 + next() % (t < 6 ? 64 : 5000);
      c.ns = c.repl ? 1 + next() % 500 : 1 + next() % c.k;
      c.w.resize(c.rows * c.k);
      for (double& v : c.w) v = (next() % 7 == 0) ? 0.0 : static_cast<double>(next() >> 11) * 0x1p-53;
      for (uint64_t r = 0; r < c.rows; ++r) c.w[r * c.k] += 1e-3;  // no all-zero row
      CHECK_MESSAGE(multinomial_gpu(c) == multinomial_reference(c), "rows ", c.rows, " k ", c.k, " ns ", c.ns,
                    " replacement ", c.repl);
    }
  }
  TEST_CASE("refused rows throw before anything is written") {
    ++g_cases_run;
    MnCase c;
    c.rows = 2;
    c.k = 3;
    c.ns = 2;
    c.repl = true;
    c.w = {1, 2, 3, 0, -1, 0};
    CHECK_THROWS_WITH_AS(multinomial_gpu(c), doctest::Contains("row 1"), xrng::Error);
  }
}  // TEST_SUITE("multinomial")

// The gamma family, Poisson and binomial (xrng::cuda::gamma / dirichlet / poisson / binomial; SPEC.md
// sections 11-13): every
// case of tests/data/golden_v2_gamma.txt, and larger draws against the core's
// element functions (rng/gamma.h) evaluated on the host.
namespace {
struct GmCase {
  bool dir = false;
  bool poisson = false;
  bool binomial = false;
  std::vector<double> prob;
  uint64_t seed = 0, subseq = 0, offset = 0, rows = 1, k = 1;
  DType dt = DType::f64;
  std::vector<double> alpha;
  std::vector<uint64_t> out;
};

std::vector<GmCase> gamma_golden() {
  std::vector<GmCase> v;
  FILE* f = std::fopen(XRNG_TEST_DATA_DIR "/golden_v2_gamma.txt", "r");
  REQUIRE(f != nullptr);
  static char line[1 << 16];
  while (std::fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    GmCase c;
    char* save = nullptr;
    for (char* tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(nullptr, " \n", &save)) {
      char* eq = std::strchr(tok, '=');
      if (!eq) continue;
      *eq = 0;
      const std::string key = tok, val = eq + 1;
      if (key == "op") {
        c.dir = val == "dirichlet";
        c.poisson = val == "poisson";
        c.binomial = val == "binomial";
      }
      else if (key == "seed") c.seed = std::stoull(val, nullptr, 16);
      else if (key == "subseq") c.subseq = std::stoull(val, nullptr, 16);
      else if (key == "offset") c.offset = std::stoull(val, nullptr, 16);
      else if (key == "rows") c.rows = std::stoull(val);
      else if (key == "k") c.k = std::stoull(val);
      else if (key == "dtype") c.dt = val == "f64" ? DType::f64 : val == "f32" ? DType::f32 : val == "f16" ? DType::f16 : DType::bf16;
      else if (key == "alpha" || key == "out" || key == "prob") {
        size_t pos = 0;
        while (pos < val.size()) {
          size_t comma = val.find(',', pos);
          if (comma == std::string::npos) comma = val.size();
          const std::string item = val.substr(pos, comma - pos);
          if (key == "alpha") c.alpha.push_back(std::strtod(item.c_str(), nullptr));
          else if (key == "prob") c.prob.push_back(std::strtod(item.c_str(), nullptr));
          else c.out.push_back(std::stoull(item, nullptr, 16));
          pos = comma + 1;
        }
      }
    }
    v.push_back(std::move(c));
  }
  std::fclose(f);
  return v;
}

std::vector<uint64_t> gamma_gpu(const GmCase& c) {
  const uint64_t n = c.rows * c.k;
  const int sz = dtype_size(c.dt);
  double* da = nullptr;
  void* dout = nullptr;
  cu(cudaMalloc(&da, n * sizeof(double) + 8), "cudaMalloc");
  cu(cudaMalloc(&dout, n * sz + 8), "cudaMalloc");
  cu(cudaMemcpy(da, c.alpha.data(), n * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
  double* dp = nullptr;
  if (c.binomial) {
    cu(cudaMalloc(&dp, n * sizeof(double) + 8), "cudaMalloc");
    cu(cudaMemcpy(dp, c.prob.data(), n * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    xrng::cuda::binomial(da, dp, n, Key(c.seed, c.subseq), c.offset, c.dt, dout);
  } else if (c.poisson)
    xrng::cuda::poisson(da, n, Key(c.seed, c.subseq), c.offset, c.dt, dout);
  else if (c.dir)
    xrng::cuda::dirichlet(da, c.rows, c.k, Key(c.seed, c.subseq), c.offset, c.dt, dout);
  else
    xrng::cuda::gamma(da, n, Key(c.seed, c.subseq), c.offset, c.dt, dout);
  std::vector<unsigned char> buf(n * sz);
  cu(cudaMemcpy(buf.data(), dout, buf.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
  cudaFree(da);
  cudaFree(dout);
  if (dp) cudaFree(dp);
  std::vector<uint64_t> bits(n, 0);
  for (uint64_t i = 0; i < n; ++i) std::memcpy(&bits[i], buf.data() + i * sz, sz);
  return bits;
}
}  // namespace

TEST_SUITE("gamma") {
  TEST_CASE("every case of tests/data/golden_v2_gamma.txt on the GPU") {
    ++g_cases_run;
    const auto cases = gamma_golden();
    REQUIRE(cases.size() >= 10);
    for (const GmCase& c : cases) CHECK(gamma_gpu(c) == c.out);
    MESSAGE(cases.size(), " golden gamma cases checked on the GPU");
  }
  TEST_CASE("large draws equal the core's element functions on the host") {
    ++g_cases_run;
    GmCase c;
    c.seed = 12;
    c.offset = 5;
    c.k = 200000;
    for (uint64_t i = 0; i < c.k; ++i) c.alpha.push_back(1e-3 + static_cast<double>((i * 7919) % 5000) / 100.0);
    const auto got = gamma_gpu(c);
    const Stream st = Key(12, 0).stream();
    uint64_t bad = 0;
    for (uint64_t i = 0; i < c.k; ++i) {
      const double y = gammad::variate_at(c.alpha[i], st, 5 + 64 * i);
      uint64_t b;
      std::memcpy(&b, &y, 8);
      if (b != got[i]) ++bad;
    }
    CHECK(bad == 0);
    std::vector<double> bad_alpha = {1.0, -1.0};
    GmCase e;
    e.k = 2;
    e.alpha = bad_alpha;
    CHECK_THROWS_WITH_AS(gamma_gpu(e), doctest::Contains("alpha must be finite and > 0"), xrng::Error);
  }
}  // TEST_SUITE("gamma")

int main(int argc, char** argv) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0 || !xrng::cuda::available()) {
    std::printf("SKIPPED: no usable CUDA device (cudaGetDeviceCount: %s, %d devices); the GPU proofs did not run\n",
                e == cudaSuccess ? "ok" : cudaGetErrorString(e), n);
    return 77;
  }
  std::printf("device: %s\n", xrng::cuda::device_name().c_str());
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

