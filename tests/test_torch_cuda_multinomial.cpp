// torch's CUDA multinomial with replacement (rng/torch_cuda_multinomial.h)
// without a GPU: the launch and its philox increment, the thread index's
// 32-bit wrap, get_log_num_threads_x_inner_scan's unsigned arithmetic,
// renormRows' shuffle-tree order (a case where it differs from the
// left-to-right sum, worked by hand), the one-row order-freedom test, the
// sampling layout against hand-written thresholds, and the refusals.
// tests/python/test_torch_cuda_multinomial.py compares the whole draw with
// a second, numpy model and (on a GPU) with torch.
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "rng/torch_cuda_multinomial.h"

namespace tg = xrng::torch_cuda;
namespace mn = xrng::torch_cuda::mn;

TEST_CASE("torch_cuda multinomial: launch and increment") {
  auto L = tg::multinomial_launch(1, 2);
  CHECK(L.gx == 1);
  CHECK(L.gy == 1);
  CHECK(L.increment == 4);
  L = tg::multinomial_launch(3, 129);
  CHECK(L.gx == 2);
  CHECK(L.gy == 3);
  CHECK(L.increment == 4);
  L = tg::multinomial_launch(65536, 5);
  CHECK(L.gy == 65535);
  CHECK(L.increment == 8);
  L = tg::multinomial_launch(2 * 65535 + 1, 5);
  CHECK(L.increment == 12);
}

TEST_CASE("torch_cuda multinomial: thread index") {
  CHECK(mn::sample_subseq(0, 7, 1, 1) == 7);
  CHECK(mn::sample_subseq(2, 5, 3, 2) == 2 * 2 * 128 + 5);
  CHECK(mn::sample_subseq(65535 + 2, 5, 65535, 2) == 2 * 2 * 128 + 5);  // row 65537: block row 2, second call
  // 20000 * 1000 * 128 = 2,560,000,000 >= 2^31: an int holds it negative, curand_init sign-extends it
  CHECK(mn::sample_subseq(20000, 0, 65535, 1000) == uint64_t(0) - uint64_t(4294967296ull - 2560000000ull));
}

TEST_CASE("torch_cuda multinomial: scan width, uint32 arithmetic") {
  CHECK(mn::scan_log_threads_x(2, 3) == 5);        // lx 2, ly 1: (9 + 1) / 2
  CHECK(mn::scan_log_threads_x(2, 32) == 6);       // (9 + 4) / 2
  CHECK(mn::scan_log_threads_x(1000, 1000) == 4);  // 9 / 2, clamped up
  CHECK(mn::scan_log_threads_x(8, 1) == 4);        // (9 - 3) / 2 = 3 -> 4
  CHECK(mn::scan_log_threads_x(2, 1u << 24) == 9); // 32 / 2 -> 9
  CHECK(mn::scan_log_threads_x(65537, 16) == 9);   // 9 + 4 - 17 < 0 wraps: huge -> 9
  CHECK(mn::scan_log_threads_x(4096, 2) == 9);     // 9 + 1 - 12 wraps
  CHECK(mn::scan_log_threads_x(1024, 2) == 0 + 4); // 9 + 1 - 10 = 0 -> 4
  CHECK(mn::renorm_block(1) == 32);
  CHECK(mn::renorm_block(33) == 64);
  CHECK(mn::renorm_block(5000) == 1024);
}

TEST_CASE("torch_cuda multinomial: renormRows' shuffle tree, not the sequential sum") {
  // lanes: 1, then 31 x 2^-24. Left to right every 1 + 2^-24 rounds back to 1.
  // The tree: off 16 -> lane 0 = 1 (tie to even), lanes 1..15 = 2^-23; off 8 ->
  // 1 + 2^-23, lanes 1..7 = 2^-22; off 4 -> 1 + 3 2^-23; off 2 -> 1 + 7 2^-23,
  // lane 1 = 2^-20; off 1 -> 1 + 15 2^-23.
  std::vector<float> w(32, 0x1p-24f);
  w[0] = 1.0f;
  CHECK(mn::renorm_sum(tg::Type::f32, w.data(), 32) == 1.0f + 15 * 0x1p-23f);
  float seq = 0;
  for (float v : w) seq += v;
  CHECK(seq == 1.0f);
  // two warps (k = 64): the second warp's sum joins lane 0 at offset 1 of the second fold
  std::vector<float> w2(64, 0.0f);
  w2[0] = 1.0f;
  w2[32] = 3.0f;
  CHECK(mn::renorm_sum(tg::Type::f32, w2.data(), 64) == 4.0f);
  // columns beyond the block: thread t sums t, t + 1024, ... (k = 2048: 1 + 1 per thread)
  std::vector<double> w3(2048, 1.0);
  CHECK(mn::renorm_sum(tg::Type::f64, w3.data(), 2048) == 2048.0);
}

TEST_CASE("torch_cuda multinomial: Sklansky equals the exact prefix for exact inputs") {
  for (int64_t k : {1, 5, 32, 33, 100, 1025}) {
    for (uint32_t L : {4u, 5u, 9u}) {
      std::vector<double> x(k), out(k), buf;
      for (int64_t j = 0; j < k; ++j) x[j] = double((j * 7919) % 13);
      mn::scan_row_sklansky(tg::Type::f64, x.data(), k, L, out.data(), buf);
      double acc = 0;
      for (int64_t j = 0; j < k; ++j) {
        acc += x[j];
        CHECK(out[j] == acc);
      }
    }
  }
}

TEST_CASE("torch_cuda multinomial: order-free one-row sums") {
  const std::vector<float> a{0.25f, 0.5f, 0.25f}, b{0.1f, 0.2f, 0.7f};
  CHECK(mn::order_free_sums(tg::Type::f32, a.data(), 3));
  CHECK(!mn::order_free_sums(tg::Type::f32, b.data(), 3));
  std::vector<float> h(2048, 0x1p-11f);  // float16: 2048 x 2^-11 = 2^11 units of 2^-11, p = 11
  CHECK(mn::order_free_sums(tg::Type::f16, h.data(), 2048));
  h.push_back(0x1p-11f);
  CHECK(!mn::order_free_sums(tg::Type::f16, h.data(), 2049));
  CHECK(mn::order_free_sums(tg::Type::f32, h.data(), 2049));
}

TEST_CASE("torch_cuda multinomial: sampling layout against thresholds") {
  // one row {1, 2, 1} (exact): normalised 0.25, 0.5, 0.25, prefix 0.25, 0.75, 1;
  // sample j is word 0 of thread j's first call: <= 0.25 -> 0, <= 0.75 -> 1, else 2
  const std::vector<float> w{1.0f, 2.0f, 1.0f};
  tg::State s{4242, 12};
  const int64_t n = 300;
  std::vector<int64_t> out(n);
  tg::multinomial_replacement(s, tg::Type::f32, w.data(), 1, 3, n, out.data());
  CHECK(s.offset == 16);
  for (int64_t j = 0; j < n; ++j) {
    const float u = tg::curand_uniform(tg::curand4(4242, 12, static_cast<uint64_t>(j), 0).v[0]);
    CHECK(out[j] == (u <= 0.25f ? 0 : u <= 0.75f ? 1 : 2));
  }
  // two rows: row 1's sample j is thread 1 * gx * 128 + j (gx = 3 for n = 300)
  const std::vector<double> w2{1.0, 1.0, 0.0, 0.0, 1.0, 1.0};
  tg::State s2{4242, 0};
  std::vector<int64_t> out2(2 * n);
  tg::multinomial_replacement(s2, tg::Type::f64, w2.data(), 2, 3, n, out2.data());
  CHECK(s2.offset == 4);
  for (int64_t j = 0; j < n; ++j) {
    const double u0 = tg::curand_uniform(tg::curand4(4242, 0, static_cast<uint64_t>(j), 0).v[0]);
    const double u1 = tg::curand_uniform(tg::curand4(4242, 0, static_cast<uint64_t>(3 * 128 + j), 0).v[0]);
    CHECK(out2[j] == (u0 <= 0.5 ? 0 : 1));
    CHECK(out2[n + j] == (u1 <= 0.5 ? 1 : 2));  // category 0 is zero: never drawn
  }
}

TEST_CASE("torch_cuda multinomial: refusals leave the offset") {
  tg::State s{1, 8};
  std::vector<int64_t> out(10);
  const std::vector<float> neg{1.0f, -1.0f, 1.0f, 1.0f, 1.0f, 1.0f}, zero{0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1.0f};
  CHECK_THROWS_AS(tg::multinomial_replacement(s, tg::Type::f32, neg.data(), 2, 3, 5, out.data()),
                  std::invalid_argument);
  CHECK_THROWS_AS(tg::multinomial_replacement(s, tg::Type::f32, zero.data(), 2, 3, 5, out.data()),
                  std::invalid_argument);
  const std::vector<float> inexact{0.1f, 0.2f, 0.7f};
  CHECK_THROWS_AS(tg::multinomial_replacement(s, tg::Type::f32, inexact.data(), 1, 3, 5, out.data()),
                  tg::NotReproducedError);
  CHECK(s.offset == 8);
  const std::vector<float> two{0.1f, 0.9f};  // k = 2: one addition, any order
  tg::multinomial_replacement(s, tg::Type::f32, two.data(), 1, 2, 5, out.data());
  CHECK(s.offset == 12);
}
