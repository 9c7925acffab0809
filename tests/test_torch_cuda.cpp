// The torch CUDA streams (rng/torch_cuda.h) without a GPU: torch's launch
// arithmetic (grid, increment, element -> thread / curand4 call / lane), the
// property that below one wave the values do not depend on the GPU, the
// 32-bit-indexing split, cuRAND's conversions at their edges, and the
// libdevice ports against correctly rounded logs (at most 1 ulp, libdevice's
// documented bound: catches a wrong constant, not a wrong last bit). What
// only a GPU can show is in tests/gpu/run.sh (test_torch_cuda_gpu.py).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <type_traits>
#include <vector>

#include "rng/stream.h"
#include "rng/torch_cuda.h"
#include "tools/sha256.h"

namespace tg = xrng::torch_cuda;

TEST_CASE("torch_cuda: calc_execution_policy") {
  const tg::Device h100{132, 2048}, t4{40, 1024}, l4{58, 1536};
  auto L = tg::launch(1, 4, h100);
  CHECK(L.grid == 1);
  CHECK(L.counter_offset == 4);
  const uint64_t wave = 256ull * 132 * 8 * 4;  // one wave of curand4 values on an H100 SXM
  L = tg::launch(wave, 4, h100);
  CHECK(L.grid == 1056);
  CHECK(L.counter_offset == 4);
  L = tg::launch(wave + 1, 4, h100);
  CHECK(L.grid == 1056);
  CHECK(L.counter_offset == 8);
  CHECK(tg::launch(wave / 2 + 1, 2, h100).counter_offset == 8);  // double2: unroll 2
  CHECK(tg::launch(1000, 4, t4).grid == 4);
  CHECK(tg::launch(1ull << 20, 4, t4).grid == 160);  // 40 SMs x 1024 / 256
  CHECK(tg::launch(1ull << 20, 4, t4).counter_offset == 4 * 7);  // ceil(2^20 / (160*256*4)) = 7
  CHECK(tg::launch(1ull << 20, 4, l4).grid == 348);  // 58 x 1536 / 256
  CHECK_THROWS(tg::launch(0, 4, h100));
  // philox_cuda_state rounds the increment up to a multiple of 4
  tg::State s{1, 0};
  CHECK(tg::philox_cuda_state(s, 10) == 0);
  CHECK(s.offset == 12);
}

TEST_CASE("torch_cuda: element -> (thread, round, lane) is the grid-stride loop") {
  const tg::Device d{3, 512};  // grid cap 6 blocks: 1536 threads
  for (uint32_t unroll : {2u, 4u}) {
    for (uint64_t n : {1ull, 255ull, 1536ull * unroll, 1536ull * unroll + 1, 100000ull}) {
      const auto L = tg::launch(n, unroll, d);
      std::set<std::tuple<uint64_t, uint64_t, uint32_t>> seen;
      for (uint64_t i = 0; i < n; ++i) {
        const auto sl = tg::slot(L, i);
        REQUIRE(sl.thread < L.threads());
        REQUIRE(sl.round < L.rounds());
        REQUIRE(sl.lane < unroll);
        // the kernel: linear_index = thread + round * S * unroll, li = linear_index + S * lane
        REQUIRE(sl.thread + sl.round * L.threads() * unroll + L.threads() * sl.lane == i);
        seen.insert({sl.thread, sl.round, sl.lane});
      }
      CHECK(seen.size() == n);
      // for_each visits every element once, with the words of its slot
      tg::State s{42, 8};
      std::vector<int> hits(n, 0);
      tg::for_each(s, n, 4, unroll, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
        ++hits[i];
        const auto sl = tg::slot(L, i);
        CHECK(lane == sl.lane);
        const auto ref = xrng::stream_block(xrng::Stream{42, sl.thread}, 2 + sl.round);
        CHECK(std::memcmp(&ref, &w, sizeof w) == 0);
      });
      CHECK(s.offset == 8 + L.counter_offset);
      for (int h : hits) REQUIRE(h == 1);
    }
  }
}

TEST_CASE("torch_cuda: curand4 is the raw stream at (seed, subseq = thread, word offset + 4 round)") {
  const xrng::Stream st{0x0123456789abcdefull, 77};
  const auto w = tg::curand4(st.seed, 40, 77, 3);
  for (int k = 0; k < 4; ++k) CHECK(w.v[k] == xrng::stream_word(st, 40 + 12 + k));
}

TEST_CASE("torch_cuda: below one wave the values are the same on every GPU") {
  const tg::Device devs[] = {{40, 1024}, {58, 1536}, {80, 2048}, {108, 2048}, {132, 2048}, {1, 256}};
  // A wave is 256 * grid cap threads (not times unroll: up to it torch's grid
  // is ceil(n / 256) blocks, so element i is lane 0 of thread i's first
  // call on every GPU); {1, 256} has a wave of 256, {40, 1024} of 40960.
  for (uint32_t unroll : {2u, 4u}) {
    for (uint64_t n : {1ull, 77ull, 256ull, 40960ull}) {
      std::vector<std::vector<uint32_t>> vals;
      std::vector<uint64_t> offs;
      for (const auto& d : devs) {
        if (n > 256ull * (d.sm_count * (d.threads_per_sm / 256))) continue;
        tg::State s{5, 16};
        std::vector<uint32_t> v(n);
        tg::for_each(s, n, 4, unroll, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
          v[i] = w.v[lane] ^ (unroll == 2 ? w.v[2 * lane + 1] * 3u : 0u);
        });
        vals.push_back(v);
        offs.push_back(s.offset);
      }
      REQUIRE(vals.size() >= 2);
      for (size_t k = 1; k < vals.size(); ++k) {
        CHECK(vals[k] == vals[0]);
        CHECK(offs[k] == 20);  // one curand4 call each
      }
    }
  }
  // above a wave they differ (torch's CUDA randn changes with the SM count),
  // even while one call per thread covers the tensor on both GPUs
  const uint64_t n = 256ull * 160 * 4;
  std::vector<uint32_t> a(n), b(n);
  tg::State s1{5, 0}, s2{5, 0};
  tg::for_each(s1, n, 4, 4, tg::Device{40, 1024}, [&](uint64_t i, const xrng::u32x4& w, uint32_t l) { a[i] = w.v[l]; });
  tg::for_each(s2, n, 4, 4, tg::Device{132, 2048}, [&](uint64_t i, const xrng::u32x4& w, uint32_t l) { b[i] = w.v[l]; });
  CHECK(a != b);
  CHECK(s1.offset == 4);
  CHECK(s2.offset == 4);
}

TEST_CASE("torch_cuda: the 32-bit indexing split (TensorIterator, bytes)") {
  CHECK(tg::can_use_32bit_indexing(536870912ull, 4));  // 2^29 floats: max offset 2^31 - 3
  CHECK_FALSE(tg::can_use_32bit_indexing(536870913ull, 4));
  CHECK(tg::can_use_32bit_indexing(2147483647ull, 1));
  CHECK_FALSE(tg::can_use_32bit_indexing(2147483648ull, 1));
  const tg::Device d{132, 2048};
  const uint64_t n = 3000000000ull;  // float32: 12 GB, split into 8 pieces of 375,000,000
  tg::State s{0, 0};
  std::vector<tg::Piece> ps;
  tg::pieces(s, n, 4, 4, d, [&](const tg::Piece& p) { ps.push_back(p); });
  REQUIRE(ps.size() == 8);
  uint64_t begin = 0, off = tg::launch(n, 4, d).counter_offset;  // the whole tensor's increment first
  for (const auto& p : ps) {
    CHECK(p.begin == begin);
    CHECK(p.launch.numel == 375000000ull);
    CHECK(p.offset == off);
    begin += p.launch.numel;
    off += p.launch.counter_offset;
  }
  CHECK(begin == n);
  CHECK(s.offset == off);
  // an odd split: floor(n/2) first
  tg::State s2{0, 0};
  std::vector<uint64_t> sizes;
  tg::pieces(s2, 1073741825ull, 2, 4, d, [&](const tg::Piece& p) { sizes.push_back(p.launch.numel); });
  CHECK(sizes == std::vector<uint64_t>{536870912ull, 536870913ull});
}

TEST_CASE("torch_cuda: cuRAND's uniforms at their edges") {
  CHECK(tg::curand_uniform(0) == 0x1p-33f);
  CHECK(tg::curand_uniform(0xffffffffu) == 1.0f);
  CHECK(tg::curand_uniform(0x80000000u) == 0.5f);
  CHECK(2.3283064e-10f == 0x1p-32f);  // CURAND_2POW32_INV is 2^-32 exactly
  CHECK(1.1102230246251565e-16 == 0x1p-53);
  CHECK(tg::curand_uniform_double_hq(0, 0) == 0x1p-54);
  CHECK(tg::curand_uniform_double_hq(0xffffffffu, 0xffffffffu) ==
        static_cast<double>(0xffffffffull ^ (0xffffffffull << 21)) * 0x1p-53 + 0x1p-54);
  CHECK(tg::random64(xrng::u32x4{{1, 2, 3, 4}}, 1) == ((3ull << 32) | 4));
}

TEST_CASE("torch_cuda: dropout's vector size and slots") {
  CHECK(tg::dropout_vec(1024, 4) == 4);
  CHECK(tg::dropout_vec(1026, 4) == 2);
  CHECK(tg::dropout_vec(1027, 4) == 1);
  CHECK(tg::dropout_vec(1024, 2) == 8);
  CHECK(tg::dropout_vec(1024, 8) == 2);
  CHECK(tg::dropout_vec(1024, 4, 8) == 2);  // an input 8 bytes aligned
  const tg::Device d{2, 256};              // 512 threads
  const auto L = tg::dropout_launch(8 * 512 * 3, d);
  // vec 8: thread t, iteration k covers elements (t + 512 k) 8 .. +8, two curand4 calls
  auto sl = tg::dropout_slot(L, 8, (5 + 512 * 2) * 8 + 6);
  CHECK(sl.thread == 5);
  CHECK(sl.round == 2 * 2 + 1);
  CHECK(sl.lane == 2);
  sl = tg::dropout_slot(L, 2, (7 + 512) * 2 + 1);  // vec 2: .x .y of a fresh call per iteration
  CHECK(sl.thread == 7);
  CHECK(sl.round == 1);
  CHECK(sl.lane == 1);
}

namespace {
int64_t ulp_dist_f(float a, float b) {
  int32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  return std::llabs(static_cast<int64_t>(x) - y);
}
int64_t ulp_dist_d(double a, double b) {
  int64_t x, y;
  std::memcpy(&x, &a, 8);
  std::memcpy(&y, &b, 8);
  return x > y ? x - y : y - x;
}
}  // namespace

TEST_CASE("torch_cuda: libdevice logf / log ports within 1 ulp of the correctly rounded log") {
  int64_t worst = 0;
  for (uint32_t x = 0; x < 0xffffff00u; x += 4099) {  // cuRAND's uniforms
    const float u = tg::curand_uniform(x);
    worst = std::max(worst, ulp_dist_f(tg::nv_logf(u), static_cast<float>(std::log(static_cast<double>(u)))));
  }
  CHECK(worst <= 1);
  CHECK(tg::nv_logf(1.0f) == 0.0f);
  CHECK(tg::nv_logf(0.0f) == -HUGE_VALF);
  CHECK(std::isnan(tg::nv_logf(-1.0f)));
  CHECK(tg::nv_logf(0x1p-140f) == doctest::Approx(std::log(0x1p-140)).epsilon(1e-6));  // the subnormal branch
  worst = 0;
  for (uint64_t k = 1; k < (1ull << 53); k += 0x1234567891ull) {
    const double u = static_cast<double>(k) * 0x1p-53 + 0x1p-54;
    worst = std::max(worst, ulp_dist_d(tg::nv_log(u), std::log(u)));
  }
  CHECK(worst <= 1);
  CHECK(tg::nv_log(1.0) == 0.0);
  CHECK(tg::nv_log(0x1p-1070) == doctest::Approx(std::log(0x1p-1070)));
}

TEST_CASE("torch_cuda: libdevice sincospi port") {
  double s, c;
  tg::nv_sincospi(0.5, &s, &c);
  CHECK(s == 1.0);
  CHECK(c == 0.0);
  CHECK_FALSE(std::signbit(c));
  tg::nv_sincospi(1.0, &s, &c);
  CHECK(s == 0.0);
  CHECK(c == -1.0);
  tg::nv_sincospi(2.0, &s, &c);
  CHECK(s == 0.0);
  CHECK(c == 1.0);
  tg::nv_sincospi(0.25, &s, &c);
  CHECK(ulp_dist_d(s, std::sqrt(0.5)) <= 1);
  CHECK(ulp_dist_d(c, std::sqrt(0.5)) <= 1);
  // the normal's angles v = z 2^-52 + 2^-53 in (0, 2): within 1 ulp of sin/cos(pi v) in long double,
  // away from the zeros (where an absolute comparison is the meaningful one)
  const long double pi = 3.141592653589793238462643383279502884L;
  int64_t worst = 0;
  double worst_abs = 0;
  for (uint64_t k = 1; k < (1ull << 53); k += 0x2468ace13579bull) {
    const double v = static_cast<double>(k) * 0x1p-52 + 0x1p-53;
    tg::nv_sincospi(v, &s, &c);
    const double rs = static_cast<double>(std::sin(pi * static_cast<long double>(v)));
    const double rc = static_cast<double>(std::cos(pi * static_cast<long double>(v)));
    worst_abs = std::max({worst_abs, std::fabs(s - rs), std::fabs(c - rc)});
    if (std::fabs(rs) > 1e-3) worst = std::max(worst, ulp_dist_d(s, rs));
    if (std::fabs(rc) > 1e-3) worst = std::max(worst, ulp_dist_d(c, rc));
  }
  CHECK(worst <= 2);
  CHECK(worst_abs < 1e-15);
}

TEST_CASE("torch_cuda: libdevice exp / log1p / tan ports and the modelled fast intrinsics near their functions") {
  // Not proofs of equality with the GPU (no GPU here): a wrong constant or
  // step in the ports would show as a large error. libdevice documents exp,
  // log1p at 1 ulp and tan at 2 ulp; the references are long double.
  int64_t worst_exp = 0, worst_tan = 0, worst_l1p = 0;
  for (uint64_t k = 1; k < (1ull << 53); k += 0x1234567891ull) {
    const double u = static_cast<double>(k) * 0x1p-53;
    const double x = (u - 0.5) * 1400.0;  // [-700, 700]
    worst_exp = std::max(worst_exp, ulp_dist_d(tg::nv_exp(x), static_cast<double>(std::exp(static_cast<long double>(x)))));
    const double t = (u - 0.5) * 3.141592653589793;  // cauchy_'s domain
    worst_tan = std::max(worst_tan, ulp_dist_d(tg::nv_tan(t), static_cast<double>(std::tan(static_cast<long double>(t)))));
    const double a = -u;  // geometric_'s -p
    if (u < 1.0)
      worst_l1p = std::max(worst_l1p, ulp_dist_d(tg::nv_log1p(a), static_cast<double>(std::log1p(static_cast<long double>(a)))));
  }
  CHECK(worst_exp <= 1);
  CHECK(worst_tan <= 2);
  CHECK(worst_l1p <= 1);
  CHECK(tg::nv_exp(0.0) == 1.0);
  CHECK(tg::nv_exp(710.0) == HUGE_VAL);
  CHECK(tg::nv_exp(-746.0) == 0.0);
  CHECK(tg::nv_exp(-740.0) == doctest::Approx(std::exp(-740.0)).epsilon(1e-12));  // the two-step scaling
  CHECK(tg::nv_tan(0.0) == 0.0);
  CHECK(std::isnan(tg::nv_tan(3e9)));  // the Payne-Hanek range is not ported
  CHECK(tg::nv_log1p(-0.5) == doctest::Approx(std::log(0.5)).epsilon(1e-15));
  // the float models: within a few ulp of the exact functions
  int64_t worst_tf = 0, worst_ef = 0, worst_lf = 0;
  for (uint32_t w = 0; w < 0xffffff00u; w += 40961) {
    const float u = tg::curand_uniform(w);
    const float x = (u - 0.5f) * 3.14159274f;
    if (std::fabs(x) < 1.5f)
      worst_tf = std::max(worst_tf, ulp_dist_f(tg::fast_tanf(x), static_cast<float>(std::tan(static_cast<double>(x)))));
    const float e = (u - 0.5f) * 160.0f;
    worst_ef = std::max(worst_ef, ulp_dist_f(tg::fast_expf(e), static_cast<float>(std::exp(static_cast<double>(e)))));
    worst_lf = std::max(worst_lf, ulp_dist_f(tg::fast_logf(u), static_cast<float>(std::log(static_cast<double>(u)))));
  }
  CHECK(worst_tf <= 64);  // the turns t = RZ(x / 2 pi) lose up to an ulp: tan's condition 1 / (sin cos) up to ~30 here
  CHECK(worst_ef <= 64);  // __expf's error grows with |x| (the rounded product x log2 e)
  CHECK(worst_lf <= 4);
  CHECK(tg::fast_expf(-100.0f) == doctest::Approx(std::exp(-100.0)).epsilon(1e-5));  // the halved, squared branch
  // cauchy f32 clips u to [2^-23, 1 - 2^-23]: finite at u = 1 (curand's largest uniform)
  CHECK(std::isfinite(tg::cauchy_f32(1.0f, 0.0f, 1.0f)));
  CHECK(tg::cauchy_f32(1.0f, 0.0f, 1.0f) > 1e6f);
  // geometric: ceil of a positive quotient; u = 1 gives 0 (log 1 = 0)
  CHECK(tg::geometric_f32(1.0f, tg::geometric_f32_log_q(0.3)) == 0.0f);
  CHECK(tg::geometric_f64(1.0, tg::nv_log1p(-0.3)) == 0.0);
}

TEST_CASE("torch_cuda: bernoulli with a tensor p: thread i / 4, lane i % 4, offset + 12, on any GPU") {
  tg::State s{42, 8};
  std::vector<float> u(11);
  tg::bernoulli_tensor(s, 11, [&](uint64_t i, float v) { u[i] = v; });
  CHECK(s.offset == 20);
  for (uint64_t i = 0; i < 11; ++i) {
    const xrng::u32x4 w = xrng::stream_block(xrng::Stream{42, i / 4}, 8 / 4);
    CHECK(u[i] == tg::curand_uniform(w.v[i % 4]));
  }
}

TEST_CASE("torch_cuda: randperm (keys, stable sort by masked keys, islands)") {
  CHECK(tg::randperm_bits(1) == 3);
  CHECK(tg::randperm_bits(1000) == 23);
  CHECK(tg::randperm_bits(30000) == 32);
  CHECK(tg::randperm_bits(31000) == 33);
  const tg::Device d{4, 1024};
  for (uint64_t n : {1ull, 2ull, 37ull, 5000ull, 40000ull}) {
    tg::State s{9, 12};
    std::vector<uint32_t> out(n, 0xffffffffu);
    tg::randperm(s, d, n, [&](uint64_t i, uint32_t v) { out[i] = v; });
    std::vector<uint32_t> sorted = out;
    std::sort(sorted.begin(), sorted.end());
    for (uint64_t i = 0; i < n; ++i) REQUIRE(sorted[i] == i);
    // the keys' draw (unroll 2), then philox_cuda_state(n) for the islands
    CHECK(s.offset == 12 + tg::launch(n, 2, d).counter_offset + (n + 3) / 4 * 4);
  }
}

// ---- xrng's CUDA kernels (device/torch_cuda.cu): their index arithmetic on the host ----------
// The kernels run one work item per (thread, curand4 call) of torch's launch
// (item g: thread g mod S, call g / S) and write the elements
// tg::element_of names; each launch is one piece of tg::pieces. These check
// that this covers every element of every piece exactly once, with the
// (thread, round, lane) the host model's slot() gives it, for many sizes
// and GPU profiles; the values are then the XRNG_HD element functions the
// host runs (tests/gpu compares the kernels' output with the host bit for bit).
namespace {
// Every item of launch L: each element below L.numel once, at its slot.
void check_items(const tg::Launch& L) {
  const uint64_t S = L.threads();
  std::vector<uint8_t> hits(L.numel, 0);
  uint64_t wrong_slot = 0;  // (plain counters: a REQUIRE per element costs seconds)
  for (uint64_t g = 0; g < S * L.rounds(); ++g) {
    const uint64_t t = g % S, r = g / S;
    if (tg::element_of(L, t, r, 0) >= L.numel) continue;
    for (uint32_t lane = 0; lane < L.unroll; ++lane) {
      const uint64_t li = tg::element_of(L, t, r, lane);
      if (li >= L.numel) continue;
      ++hits[li];
      const tg::Slot sl = tg::slot(L, li);
      wrong_slot += sl.thread != t || sl.round != r || sl.lane != lane;
    }
  }
  CHECK(wrong_slot == 0);
  CHECK(std::count(hits.begin(), hits.end(), uint8_t{1}) == static_cast<std::ptrdiff_t>(L.numel));
}
// Sampled, for launches too large to enumerate: slot and element_of are inverse.
void check_items_sampled(const tg::Launch& L, uint64_t seed) {
  uint64_t x = seed;
  for (int k = 0; k < 20000; ++k) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t i = (x >> 11) % L.numel;
    const tg::Slot sl = tg::slot(L, i);
    REQUIRE(sl.thread < L.threads());
    REQUIRE(sl.round < L.rounds());
    REQUIRE(tg::element_of(L, sl.thread, sl.round, sl.lane) == i);
  }
  // the last element is in the last round; the element after it is past every item
  const tg::Slot last = tg::slot(L, L.numel - 1);
  CHECK(last.round == L.rounds() - 1);
}
}  // namespace

TEST_CASE("torch_cuda kernels: work items cover every element once, at the host's slot") {
  const tg::Device profiles[] = {{3, 512}, {40, 1024}, {58, 1536}, {132, 2048}, {148, 2048}};
  for (const tg::Device d : profiles) {
    const uint64_t wave = 256ull * d.sm_count * (d.threads_per_sm / 256);
    for (uint32_t unroll : {2u, 4u}) {
      const uint64_t per_round = wave * unroll;
      for (uint64_t n : {uint64_t{1}, uint64_t{3}, uint64_t{255}, uint64_t{257}, wave - 1, wave, wave + 1,
                         per_round - 1, per_round, per_round + 1, 2 * per_round + 17, 3 * per_round + wave / 3}) {
        INFO("sm ", d.sm_count, " tps ", d.threads_per_sm, " unroll ", unroll, " n ", n);
        check_items(tg::launch(n, unroll, d));
      }
    }
  }
}

TEST_CASE("torch_cuda kernels: the launches above 2^31 elements or bytes (TensorIterator's split)") {
  const tg::Device h100{132, 2048}, t4{40, 1024};
  for (const tg::Device d : {h100, t4}) {
    for (uint32_t esize : {1u, 2u, 4u, 8u}) {
      for (uint64_t n : {(1ull << 31) / esize + 1, (1ull << 31) + 3, 3ull << 31}) {
        const uint32_t unroll = esize == 8 ? 2u : 4u;
        tg::State s{7, 16};
        uint64_t next = 0, pieces = 0, offset = 16;
        const tg::Launch top = tg::launch(n, unroll, d);
        offset += top.counter_offset;  // the whole tensor's increment, taken first
        tg::pieces(s, n, esize, unroll, d, [&](const tg::Piece& p) {
          INFO("esize ", esize, " n ", n, " piece ", pieces);
          REQUIRE(p.begin == next);  // contiguous, in order
          REQUIRE(tg::can_use_32bit_indexing(p.launch.numel, esize));
          if (!tg::can_use_32bit_indexing(n, esize)) {
            REQUIRE(p.offset == offset);  // each piece takes its own increment after the whole's
            offset += p.launch.counter_offset;
          }
          check_items_sampled(p.launch, n + pieces);
          next += p.launch.numel;
          ++pieces;
        });
        CHECK(next == n);
        CHECK(pieces >= 1);
        if (!tg::can_use_32bit_indexing(n, esize)) CHECK(s.offset == offset);
      }
    }
  }
}

TEST_CASE("torch_cuda kernels: dropout's element -> (thread, call, lane) for each vector width") {
  // The dropout kernel computes each element's uniform at tg::dropout_slot
  // (the host's mapping); here: distinct elements never share a lane, and
  // vec 1 is the grid-stride loop.
  for (const tg::Device d : {tg::Device{2, 256}, tg::Device{132, 2048}}) {
    for (uint64_t n : {8ull, 4096ull, 8ull * 512 * 3 + 8, 1ull << 20}) {
      const tg::Launch L = tg::dropout_launch(n, d);
      for (uint32_t vec : {1u, 2u, 4u, 8u}) {
        if (n % vec) continue;
        // (thread, call, lane) -> a flat index: calls per thread at most 2 ceil(n / (S vec)) + 2
        const uint64_t S = L.threads(), calls = 2 * ((n + S * vec - 1) / (S * vec)) + 2;
        std::vector<uint8_t> seen(S * calls * 4, 0);
        uint64_t bad = 0;
        for (uint64_t i = 0; i < n; ++i) {
          const tg::Slot sl = tg::dropout_slot(L, vec, i);
          if (sl.thread >= S || sl.lane >= 4 || sl.round >= calls) {
            ++bad;
            continue;
          }
          if (vec == 1) bad += tg::element_of(L, sl.thread, sl.round, sl.lane) != i;
          bad += seen[(sl.round * S + sl.thread) * 4 + sl.lane]++ != 0;  // never shared
        }
        CHECK(bad == 0);
      }
    }
  }
}

// exponential_'s float log: MUFU.LG2 modelled as the correctly rounded log2.
// The host model computed it as float(std::log2(double(u))) (this host's
// libm); the kernels and the host now both run tg::mufu_lg2 (xrng's port of
// glibc's log, times log2 e, in binary64, rounded to float). Equal on every
// value curand_uniform can give (about 8e7 distinct floats from the 2^32
// words) on this host; the unit run takes every 61st word.
TEST_CASE("torch_cuda: exponential's modelled log2 equals float(log2) on cuRAND's uniforms") {
#if defined(XRNG_TORCH_CUDA_EXHAUSTIVE)
  const uint64_t step = 1;
#else
  const uint64_t step = 61;
#endif
  uint64_t bad = 0, checked = 0;
  float prev = -1.0f;
  for (uint64_t x = 0; x < (1ull << 32); x += step) {
    const float u = tg::curand_uniform(static_cast<uint32_t>(x));
    if (u == prev || u >= 1.0f - 0x1p-24f) continue;
    prev = u;
    ++checked;
    if (static_cast<float>(std::log2(static_cast<double>(u))) != tg::mufu_lg2(u)) ++bad;
  }
  CHECK(checked > 1000000);
  CHECK(bad == 0);
}

TEST_CASE("torch_cuda: whole draws log_normal, geometric, bernoulli are the element functions over for_each") {
  // The values of the bindings' loops (bindings/torch_cuda_ops.cpp) for every dtype, offsets included; the
  // Python tests compare them with xrng.torch_cuda's fills through the CLI.
  const tg::Device d{3, 256};
  const uint64_t n = 5000;  // above one wave of 3 x 256 threads
  for (const tg::Type t : {tg::Type::f32, tg::Type::f64, tg::Type::f16, tg::Type::bf16}) {
    const uint32_t es = tg::type_size(t), unroll = t == tg::Type::f64 ? 2 : 4;
    std::vector<unsigned char> got(n * es), want(n * es);
    auto store = [&](uint64_t i, double v) { tg::detail::store(t, want.data(), i, v); };
    for (int which = 0; which < 3; ++which) {
      tg::State a{11, 4}, b{11, 4};
      if (which == 0) {
        tg::log_normal(a, d, n, t, 0.1, 0.3, got.data());
        tg::for_each(b, n, es, unroll, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
          store(i, t == tg::Type::f64 ? tg::log_normal_f64(w, lane, 0.1, 0.3)
                                      : tg::log_normal_f32(w, lane, 0.1f, 0.3f));
        });
      } else if (which == 1) {
        tg::geometric(a, d, n, t, 0.3, got.data());
        tg::for_each(b, n, es, unroll, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
          store(i, t == tg::Type::f64 ? tg::geometric_f64(tg::uniform2_double(w, lane), tg::nv_log1p(-0.3))
                                      : tg::geometric_f32(tg::curand_uniform(w.v[lane]), tg::geometric_f32_log_q(0.3)));
        });
      } else {
        tg::bernoulli(a, d, n, t, 0.3, got.data());
        tg::for_each(b, n, es, unroll, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
          store(i, (t == tg::Type::f64 ? tg::uniform2_double(w, lane) < 0.3
                                       : tg::curand_uniform(w.v[lane]) < 0.3f) ? 1.0 : 0.0);
        });
      }
      CHECK(a.offset == b.offset);
      CHECK(a.offset > 4);
      CHECK(std::memcmp(got.data(), want.data(), got.size()) == 0);
    }
  }
  tg::State s{1, 0};
  float x = 0;
  CHECK_THROWS_AS(tg::log_normal(s, d, 1, tg::Type::f32, 0.0, 0.0, &x), std::invalid_argument);
  CHECK_THROWS_AS(tg::geometric(s, d, 1, tg::Type::f32, 1.0, &x), std::invalid_argument);
  CHECK_THROWS_AS(tg::bernoulli(s, d, 1, tg::Type::f32, 1.5, &x), std::invalid_argument);
  CHECK(s.offset == 0);
}

TEST_CASE("torch_cuda: whole draw randint is uniform_int_from_to over for_each (32- and 64-bit words)") {
  const tg::Device d{3, 256};
  const uint64_t n = 5000;
  for (const auto& [lo, hi] : {std::pair<int64_t, int64_t>{-5, 1000}, std::pair<int64_t, int64_t>{0, int64_t{1} << 40}}) {
    const uint64_t range = static_cast<uint64_t>(hi - lo);
    tg::State a{11, 4}, b{11, 4};
    std::vector<int64_t> got(n), want(n);
    tg::randint(a, d, n, lo, hi, got.data());
    const bool wide = range >= (1ull << 28);
    tg::for_each(b, n, 8, wide ? 2 : 4, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
      want[i] = tg::uniform_int_from_to(wide ? tg::random64(w, lane) : w.v[lane], range, lo);
    });
    CHECK(a.offset == b.offset);
    CHECK(got == want);
    for (int64_t v : got) CHECK((v >= lo && v < hi));
  }
  tg::State s{1, 0};
  int64_t x = 0;
  CHECK_THROWS_AS(tg::randint(s, d, 1, 3, 3, &x), std::invalid_argument);
}

namespace {
// The words the model reads for element i of a launch of `unroll`: the 32-bit word of its lane
// (unroll 4), or random64 of its ulonglong2 component (unroll 2).
// (arrays of T as unique_ptr<T[]>: std::vector<bool> has no data())
template <class T, class F>
std::unique_ptr<T[]> over_for_each(tg::State& s, tg::Device d, uint64_t n, uint32_t unroll, F value) {
  std::unique_ptr<T[]> want(new T[n]);
  tg::for_each(s, n, sizeof(T), unroll, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
    want[i] = value(unroll == 2 ? tg::random64(w, lane) : uint64_t{w.v[lane]});
  });
  return want;
}
}  // namespace

TEST_CASE("torch_cuda: whole draws randint, random_, random_(from, None) in every integer type") {
  const tg::Device d{3, 256};
  const uint64_t n = 5000;  // above one wave of 3 x 256 threads
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  auto run = [&](auto zero, int64_t lo, int64_t hi_or_none, int which) {
    using T = decltype(zero);
    tg::State a{11, 4}, b{11, 4};
    std::unique_ptr<T[]> got(new T[n]), want;
    if (which == 0) {  // randint(lo, hi): [lo, hi)
      tg::randint(a, d, n, lo, hi_or_none, got.get());
      const uint64_t range = static_cast<uint64_t>(hi_or_none) - static_cast<uint64_t>(lo);
      want = over_for_each<T>(b, d, n, range >= (1ull << 28) ? 2 : 4, [&](uint64_t w) {
        return static_cast<T>(static_cast<int64_t>(w % range + static_cast<uint64_t>(lo)));
      });
    } else if (which == 1) {  // random_(): mod max + 1 (bool: & 1), int64 on 64-bit words
      tg::random(a, d, n, got.get());
      const bool wide = std::is_same_v<T, int64_t>;
      want = over_for_each<T>(b, d, n, wide ? 2 : 4, [&](uint64_t w) {
        if constexpr (std::is_same_v<T, bool>) return static_cast<T>(w & 1);
        else return static_cast<T>(w % (static_cast<uint64_t>(std::numeric_limits<T>::max()) + 1));
      });
    } else if (lo == kMin) {  // random_(-2**63, None): random64's bits
      tg::random_from(a, d, n, lo, got.get());
      want = over_for_each<T>(b, d, n, 2, [&](uint64_t w) { return static_cast<T>(static_cast<int64_t>(w)); });
    } else {  // random_(lo, None): [lo, max]
      tg::random_from(a, d, n, lo, got.get());
      const uint64_t range = static_cast<uint64_t>(std::numeric_limits<T>::max()) - static_cast<uint64_t>(lo) + 1;
      want = over_for_each<T>(b, d, n, range >= (1ull << 28) ? 2 : 4, [&](uint64_t w) {
        return static_cast<T>(static_cast<int64_t>(w % range + static_cast<uint64_t>(lo)));
      });
    }
    CHECK(a.offset == b.offset);
    CHECK(a.offset > 4);
    CHECK(std::equal(got.get(), got.get() + n, want.get()));
    return std::vector<int64_t>(got.get(), got.get() + n);
  };
  run(int64_t{}, -5, 1000, 0);
  run(int32_t{}, -5, 1000, 0);
  run(int16_t{}, -300, 300, 0);
  run(int8_t{}, -5, 9, 0);
  run(uint8_t{}, 0, 256, 0);
  run(bool{}, 0, 2, 0);
  run(uint16_t{}, 3, 60000, 0);
  run(uint32_t{}, 0, 4294967295, 0);
  run(uint64_t{}, 5, std::numeric_limits<int64_t>::max(), 0);
  run(int64_t{}, 0, 0, 1);
  run(int32_t{}, 0, 0, 1);
  run(int16_t{}, 0, 0, 1);
  run(int8_t{}, 0, 0, 1);
  run(uint8_t{}, 0, 0, 1);
  run(bool{}, 0, 0, 1);
  const auto full = run(int64_t{}, kMin, 0, 2);
  CHECK(std::count_if(full.begin(), full.end(), [](int64_t v) { return v < 0; }) > 2000);  // both halves
  run(int64_t{}, -5, 0, 2);
  run(int32_t{}, -5, 0, 2);
  run(int16_t{}, -5, 0, 2);
  run(int8_t{}, -5, 0, 2);
  run(uint8_t{}, 3, 0, 2);
  run(bool{}, 0, 0, 2);
  run(uint16_t{}, 3, 0, 2);
  run(uint32_t{}, 3, 0, 2);
  // torch's refusals, before the offset moves
  tg::State s{1, 0};
  int32_t i32 = 0;
  uint64_t u64 = 0;
  bool b8 = false;
  uint16_t u16 = 0;
  CHECK_THROWS_AS(tg::random_from(s, d, 1, kMin, &i32), std::invalid_argument);
  CHECK_THROWS_AS(tg::random_from(s, d, 1, 0, &u64), std::invalid_argument);
  CHECK_THROWS_AS(tg::random_from(s, d, 1, 2, &b8), std::invalid_argument);
  CHECK_THROWS_AS(tg::random(s, d, 1, &u16), std::invalid_argument);
  CHECK_THROWS_AS(tg::randint(s, d, 1, 0, 3, &b8), std::invalid_argument);
  CHECK_THROWS_AS(tg::randint(s, d, 1, -1, 3, &u16), std::invalid_argument);
  CHECK(s.offset == 0);
}

TEST_CASE("torch_cuda: whole draw dropout is dropout_slot's uniform against 1 - p, scaled") {
  const tg::Device d{3, 256};
  for (const tg::Type t : {tg::Type::f32, tg::Type::f64, tg::Type::f16, tg::Type::bf16}) {
    for (const uint64_t n : {uint64_t{5000}, uint64_t{5002}, uint64_t{4099}}) {  // vec 4 or 8, 2, 1
      const uint32_t es = tg::type_size(t);
      std::vector<uint8_t> x(n * es), y(n * es), y2(n * es), mask(n);
      for (uint64_t i = 0; i < n; ++i) tg::detail::store(t, x.data(), i, static_cast<double>(static_cast<int>(i % 200) - 100));
      tg::State a{11, 4}, b{11, 4};
      tg::dropout(a, d, n, t, 0.3, x.data(), y.data(), mask.data());
      const uint32_t vec = tg::dropout_vec(n, es);
      const tg::Launch L = tg::dropout_launch(n, d);
      const uint64_t off = tg::philox_cuda_state(b, L.counter_offset);
      CHECK(a.offset == b.offset);
      uint64_t kept = 0;
      for (uint64_t i = 0; i < n; ++i) {
        const tg::Slot sl = tg::dropout_slot(L, vec, i);
        const float u = tg::curand_uniform(tg::curand4(11, off, sl.thread, sl.round).v[sl.lane]);
        const bool keep = t == tg::Type::f64 ? tg::dropout_keep_f64(u, 0.7) : tg::dropout_keep_f32(u, 0.7f);
        CHECK(mask[i] == keep);
        kept += keep;
      }
      CHECK((kept > n * 6 / 10 && kept < n * 8 / 10));
      tg::State c{11, 4};
      y2 = x;
      tg::dropout(c, d, n, t, 0.3, y2.data(), y2.data());  // in place: the same values
      CHECK(y2 == y);
    }
  }
  tg::State s{1, 0};
  float f[2] = {1.0f, -2.0f}, g[2];
  uint8_t m[2];
  tg::dropout(s, d, 2, tg::Type::f32, 1.0, f, g, m);  // p = 1: times zero, no draw
  CHECK((g[0] == 0.0f && std::signbit(g[1]) && m[0] == 0 && s.offset == 0));
  tg::dropout(s, d, 2, tg::Type::f32, 0.0, f, g, m);  // p = 0: the input, no draw
  CHECK((g[1] == -2.0f && m[1] == 1 && s.offset == 0));
  CHECK_THROWS_AS(tg::dropout(s, d, 2, tg::Type::f32, -0.5, f, g), std::invalid_argument);
  CHECK_THROWS_AS(tg::dropout(s, d, 2, tg::Type::f32, 0.5, f, g, nullptr, 3), std::invalid_argument);
  CHECK(s.offset == 0);
}

TEST_CASE("torch_cuda: whole draws random_, randint into integer types and dropout equal xrng.torch_cuda's values") {
  // SHA-256 of the values python's xrng.torch_cuda(11, sm_count=3, threads_per_sm=256) with offset 4
  // gave (bindings/torch_cuda_ops.cpp's own loops, checked there against a model on the raw stream),
  // and the offset after each; bool as 0/1 bytes.
  const tg::Device d{3, 256};
  const uint64_t n = 5000;
  auto fp = [](const void* p, size_t bytes) {
    xrng::tools::Sha256 h;
    h.update(static_cast<const unsigned char*>(p), bytes);
    return h.hex();
  };
  auto check = [&](auto zero, auto draw, const char* want, uint64_t offset, const char* expr) {
    using T = decltype(zero);
    std::unique_ptr<T[]> v(new T[n]);
    tg::State s{11, 4};
    draw(s, v.get());
    std::vector<uint8_t> bytes(n * sizeof(T));
    std::memcpy(bytes.data(), v.get(), bytes.size());
    CHECK_MESSAGE(fp(bytes.data(), bytes.size()) == std::string(want), expr);
    CHECK_MESSAGE(s.offset == offset, expr);
  };
  check(int64_t{}, [&](tg::State& s, int64_t* o) { tg::random_from(s, d, n, std::numeric_limits<int64_t>::min(), o); },
        "cd1b384f448ecac5078f8a7b00e3aab0d19aeeac7d20ab566653c95d5bb3c186", 20, "int64 random_(-2**63, None)");
  check(int16_t{}, [&](tg::State& s, int16_t* o) { tg::random_from(s, d, n, -5, o); },
        "a49173009fd06d0f8bcfa557dca8be37500e179322325a11c70c5dcf4c896811", 12, "int16 random_(-5, None)");
  check(int64_t{}, [&](tg::State& s, int64_t* o) { tg::random_from(s, d, n, -5, o); },
        "7d3690d22d18b2adb7f522d19c6c7aad6435bee17a3980eca9e57a1d7323f498", 20, "int64 random_(-5, None)");
  check(bool{}, [&](tg::State& s, bool* o) { tg::random_from(s, d, n, 0, o); },
        "dcdcfd1d62031411f1de1b89333152aed0c3717941ff7d9ca036d7df098cd557", 12, "bool random_(0, None)");
  check(int8_t{}, [&](tg::State& s, int8_t* o) { tg::random(s, d, n, o); },
        "27a6d6487f9850d1f114e27c0ee7d6f3c7985669f770a813e0eb60b5c8cefba3", 12, "int8 random_()");
  check(int64_t{}, [&](tg::State& s, int64_t* o) { tg::random(s, d, n, o); },
        "c99598929f13d2304a5bc2bf33f795558ff6a372e8816b0bb11a933ab8fd4a08", 20, "int64 random_()");
  check(uint16_t{}, [&](tg::State& s, uint16_t* o) { tg::randint(s, d, n, 3, 60000, o); },
        "6b3b7b0184bf433dd006e888d74e6b3c6f376f18153196cdb2e121274de6e776", 12, "uint16 randint(3, 60000)");
  check(uint32_t{}, [&](tg::State& s, uint32_t* o) { tg::randint(s, d, n, 0, 4294967295, o); },
        "7e63674702820114a3aafad677b46c835301fe517337573c23959b34606f4f5e", 20, "uint32 randint(0, 2**32 - 1)");
  // xrng.dropout(((torch.arange(n) % 200) - 100).to(dtype), 0.3, generator=...)
  const struct {
    tg::Type t;
    uint64_t n;
    const char* want;
  } drops[] = {
      {tg::Type::f32, 5000, "63be5d6343aebe9cf6e9341949c9779f63469a85893e7b98d39889c9b3736cfb"},
      {tg::Type::f32, 5002, "dfcbf4a6cb22b58ad3ab9e9994651222b895ea63f23c876217ea9e42b7e9a660"},
      {tg::Type::f32, 4099, "ad928168de738537d0f7af4698b98c366ba06aca57796b27de075436b1c3e712"},
      {tg::Type::f64, 5000, "c85f38b3f33360f6697ed66cdbb473cc06d65afed6e0d28831d441d236dd0f37"},
      {tg::Type::f64, 5002, "941a8c90210d814d31a158ff4a07aad314ba81e5d94cca96b5edb6902a9b0138"},
      {tg::Type::f64, 4099, "edafe06bf8d7fdb032ac575126f0fa75ce540d8390a6274e504b0ec3ad9efa15"},
      {tg::Type::f16, 5000, "284814c8b3c80fa4e8667ad8e91b91c41f62e25096627b9441f36a5acb36994a"},
      {tg::Type::f16, 5002, "4b774ffac3113050a2198faab0cfe330ad365a00714acfbd0aadf4d73b66a20a"},
      {tg::Type::f16, 4099, "97b440701532e426e540a5ac3a4c4ec73850abb292149237f90bd60afe437882"},
      {tg::Type::bf16, 5000, "f0c487bff6f3e84c3e8d1d6258024378e6db8aa0e7ab471666d1237112d71815"},
      {tg::Type::bf16, 5002, "62166cf42dec9166f4164d0e33c62a504ea10318738ee2685888c04700e1e0d6"},
      {tg::Type::bf16, 4099, "715e89f78394d24fe0f18d03c758044815e8818a765c8fb31dd770c32f952fc7"},
  };
  for (const auto& c : drops) {
    const uint32_t es = tg::type_size(c.t);
    std::vector<uint8_t> x(c.n * es), y(c.n * es);
    for (uint64_t i = 0; i < c.n; ++i) tg::detail::store(c.t, x.data(), i, static_cast<double>(static_cast<int>(i % 200) - 100));
    tg::State s{11, 4};
    tg::dropout(s, d, c.n, c.t, 0.3, x.data(), y.data());
    CHECK_MESSAGE(fp(y.data(), y.size()) == std::string(c.want), "dropout n=" << c.n << " type " << int(c.t));
    CHECK(s.offset == 12);
  }
}
