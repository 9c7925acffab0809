// CPU-only checks of the CUDA backend; runs everywhere, GPU or not:
//   - request checks, which must throw before any CUDA call;
//   - launch arithmetic;
//   - device discovery that reports "no device" without failing;
//   - the kernels' chunk bodies (device/chunk.h, __host__ __device__), run on
//     the CPU over every chunk of a draw for every registry row, against the
//     core's scalar reference and the golden file.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "device/chunk.h"
#include "device/xrng_cuda.h"
#include "requests.h"

using namespace xrng;
using namespace xrng_gpu_test;
using xrng::cuda::LaunchConfig;

namespace {

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const xrng::Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("non-xrng exception: ") + e.what();
  }
  return "";
}

// A request check, not a CUDA error: without a GPU, any CUDA call made before
// the checks would have thrown "cuda: <call>: ..." instead.
void check_request_error(const std::string& msg, const std::string& expect) {
  INFO("message: ", msg);
  CHECK(msg.find(expect) != std::string::npos);
  CHECK(msg.find("cuda: cuda") == std::string::npos);
}

}  // namespace

TEST_CASE("launch_dims: automatic and explicit configurations") {
  using xrng::cuda::detail::launch_dims;
  auto d = launch_dims(1, {}, 132);
  CHECK(d.grid == 1);
  CHECK(d.block == 256);
  d = launch_dims(256 * 10 + 1, {}, 132);
  CHECK(d.grid == 11);
  d = launch_dims(uint64_t{1} << 40, {}, 132);
  CHECK(d.grid == 132 * 16);  // capped; the grid-stride loop covers the rest
  CHECK(d.block == 256);
  d = launch_dims(uint64_t{1} << 40, {}, 0);  // unknown SM count: still a valid grid
  CHECK(d.grid == 16);
  d = launch_dims(1000, LaunchConfig{7, 96}, 0);
  CHECK(d.grid == 7);
  CHECK(d.block == 96);
  d = launch_dims(1000000, LaunchConfig{0, 1024}, 10);
  CHECK(d.grid == 160);
  CHECK(d.block == 1024);
  CHECK_THROWS_AS(launch_dims(10, LaunchConfig{-1, 0}, 1), xrng::Error);
  CHECK_THROWS_AS(launch_dims(10, LaunchConfig{0, -5}, 1), xrng::Error);
  CHECK_THROWS_AS(launch_dims(10, LaunchConfig{0, 1025}, 1), xrng::Error);
}

TEST_CASE("chunk_words: a multiple of 4 (one Philox phase) and of K") {
  using xrng::cuda::detail::chunk_words;
  CHECK(chunk_words(1) == 16);
  CHECK(chunk_words(2) == 16);
  CHECK(chunk_words(4) == 16);
  CHECK(chunk_words(3) == 48);
  CHECK(chunk_words(12) == 48);
  CHECK(chunk_words(32) == 32);
}

TEST_CASE("chunk ranges cover exactly the groups of the requested elements, for every row") {
  int rows = 0;
  for_each_row([&]<class R>() {
    if constexpr (R::kind == Kind::permutation) {
      using xrng::cuda::detail::PermOp;
      for (PermOp op : {PermOp::at, PermOp::position, PermOp::shard}) {
        const uint64_t per = xrng::cuda::detail::perm_chunk_elems(op);
        for (uint64_t c : {uint64_t{1}, per, per + 1, uint64_t{1000}, uint64_t{1} << 40}) {
          const auto r = xrng::cuda::detail::perm_chunk_range(op, c);
          CHECK(r.first == 0);
          CHECK(r.count * per >= c);
          CHECK((r.count - 1) * per < c);
        }
      }
    } else {
      using S = xrng::cuda::detail::ChunkShape<R>;
      const uint64_t per = S::kElems;
      CHECK(S::kWords % 4 == 0);
      CHECK(S::kWords % R::kWords == 0);
      CHECK(per == S::kWords / R::kWords * R::kGroup);
      const uint64_t starts[] = {0, 1, per - 1, per, 12345, (uint64_t{1} << 40) + 3};
      const uint64_t counts[] = {1, 2, per > 1 ? per - 1 : 1, per, per + 1, 1000};
      for (uint64_t s : starts)
        for (uint64_t c : counts) {
          const auto r = xrng::cuda::detail::chunk_range<R>(s, c);
          // the first chunk holds element s, the last chunk element s + c - 1
          CHECK(r.first * per <= s);
          CHECK(s < (r.first + 1) * per);
          const uint64_t last = r.first + r.count - 1;
          CHECK(last * per <= s + c - 1);
          CHECK(s + c - 1 < (last + 1) * per);
        }
      // the very last element of the stream: no overflow
      const uint64_t top = std::numeric_limits<uint64_t>::max();
      const auto r = xrng::cuda::detail::chunk_range<R>(top - 4, 5);
      CHECK(r.first == (top - 4) / per);
      CHECK(r.count == top / per - (top - 4) / per + 1);
    }
    ++rows;
  });
  CHECK(rows == static_cast<int>(std::size(kRows)));
}

TEST_CASE("request checks throw xrng::Error before any CUDA call") {
  const Key key(42, 7);
  alignas(16) char buf[64] = {};
  const Plan bits = make_plan(Dist::bits, DType::u32, {});
  const Plan drop = make_plan(Dist::dropout, DType::f32, DrawParams::probability(0.25));
  const Plan perm = make_plan(Dist::perm, DType::i64, DrawParams::perm_size(100));

  check_request_error(error_of([&] { cuda::fill(drop, key, 0, 0, 4, buf); }), "transforms an input");
  Plan bad = bits;
  bad.dtype = DType::f32;  // no registry row bits/f32
  check_request_error(error_of([&] { cuda::fill(bad, key, 0, 0, 4, buf); }), "no registry row");
  check_request_error(error_of([&] { cuda::fill(bits, key, ~uint64_t{0}, 0, 2, buf); }), "counter overflow");
  check_request_error(error_of([&] { cuda::fill(bits, key, 0, ~uint64_t{0}, 2, buf); }), "counter overflow");
  check_request_error(error_of([&] { cuda::fill(bits, key, 0, 0, 4, nullptr); }), "null buffer");
  check_request_error(error_of([&] { cuda::fill(bits, key, 0, 0, 4, buf, 0, LaunchConfig{0, 2048}); }),
                      "LaunchConfig");
  check_request_error(error_of([&] { cuda::fill(bits, key, 0, 0, 4, buf, 0, LaunchConfig{-3, 0}); }),
                      "LaunchConfig");
  check_request_error(error_of([&] { cuda::fill(perm, key, 0, 90, 20, buf); }), "exceed n");

  check_request_error(error_of([&] { cuda::transform(bits, key, 0, 0, 4, buf, buf); }), "draws no input transform");
  check_request_error(error_of([&] { cuda::dropout(bits, key, 0, 0, 4, buf, buf); }), "Dist::dropout");
  check_request_error(error_of([&] { cuda::dropout(drop, key, 0, 0, 4, nullptr, buf); }), "null buffer");
  check_request_error(error_of([&] { cuda::dropout(drop, key, 0, 0, 4, buf, nullptr); }), "null buffer");
  check_request_error(error_of([&] { cuda::dropout(drop, key, ~uint64_t{0} - 2, 0, 4, buf, buf); }),
                      "counter overflow");

  check_request_error(error_of([&] { cuda::perm_shard(bits, key, 0, 0, 1, 0, 4, buf); }), "permutation");
  check_request_error(error_of([&] { cuda::perm_shard(perm, key, 0, 3, 3, 0, 4, buf); }), "rank");
  check_request_error(error_of([&] { cuda::perm_shard(perm, key, 0, 0, 0, 0, 4, buf); }), "rank");
  check_request_error(error_of([&] { cuda::perm_shard(perm, key, ~uint64_t{0} - 3, 0, 1, 0, 4, buf); }),
                      "counter overflow");
  check_request_error(error_of([&] { cuda::perm_inverse(bits, key, 0, 0, 4, buf); }), "permutation");
  check_request_error(error_of([&] { cuda::perm_inverse(perm, key, 0, 99, 2, buf); }), "exceed n");

  // the synchronous helpers check first too (nothing is allocated for a bad request)
  check_request_error(error_of([&] { cuda::fill_to_host(bits, key, 0, 0, 4, nullptr); }), "null buffer");
  check_request_error(error_of([&] { cuda::fill_to_host(bits, key, 0, 0, 4, buf, LaunchConfig{0, 4096}); }),
                      "LaunchConfig");
  check_request_error(error_of([&] { cuda::fill_to_host(drop, key, 0, 0, 4, buf); }), "transforms an input");
  check_request_error(error_of([&] { cuda::transform_to_host(perm, key, 0, 0, 4, buf, buf); }), "draws no input");
  check_request_error(error_of([&] { cuda::dropout_to_host(drop, key, 0, 0, 4, nullptr, buf); }), "null buffer");
  check_request_error(error_of([&] { cuda::dropout_to_host(bits, key, 0, 0, 4, buf, buf); }), "Dist::dropout");
  check_request_error(error_of([&] { cuda::perm_shard_to_host(perm, key, 0, 5, 2, 0, 4, buf); }), "rank");
  check_request_error(error_of([&] { cuda::perm_inverse_to_host(perm, key, 0, 99, 2, buf); }), "exceed n");
  check_request_error(error_of([&] { cuda::perm_inverse_to_host(drop, key, 0, 0, 2, buf); }), "permutation");
}

TEST_CASE("the core's plan and counter checks decide, for every row") {
  // The backend adds no rule of its own on plans: for every row, a request
  // the core's check_counters refuses is refused with the core's message.
  for (const golden::RowPlan& rp : golden::row_plans()) {
    const Plan& p = rp.plan;
    alignas(16) char buf[64] = {};
    std::string core, ours;
    if (p.kind == Kind::permutation) {
      core = error_of([&] { check_counters(p, 0, p.n, 1); });
      ours = error_of([&] { cuda::perm_inverse(p, Key(1), 0, p.n, 1, buf); });
      CHECK(error_of([&] { check_counters(p, ~uint64_t{0}, 0, 0); }) ==
            error_of([&] { cuda::perm_shard(p, Key(1), ~uint64_t{0}, 0, 1, 0, 1, buf); }));
    } else if (p.kind == Kind::transform) {
      core = error_of([&] { check_counters(p, ~uint64_t{0} - 2, 0, 4); });
      ours = error_of([&] { cuda::transform(p, Key(1), ~uint64_t{0} - 2, 0, 4, buf, buf); });
    } else {
      core = error_of([&] { check_counters(p, ~uint64_t{0} - 2, 0, 4); });
      ours = error_of([&] { cuda::fill(p, Key(1), ~uint64_t{0} - 2, 0, 4, buf); });
    }
    INFO(row_name(p));
    CHECK(!core.empty());
    CHECK(ours == core);
  }
}

TEST_CASE("an empty request makes no CUDA call and needs no device") {
  const Key key(1);
  for (const golden::RowPlan& rp : golden::row_plans()) {
    const Plan& p = rp.plan;
    INFO(row_name(p));
    if (p.kind == Kind::transform) {
      CHECK(error_of([&] { cuda::transform(p, key, 0, 0, 0, nullptr, nullptr); }) == "");
      CHECK(error_of([&] { cuda::transform_to_host(p, key, 0, 0, 0, nullptr, nullptr); }) == "");
    } else {
      CHECK(error_of([&] { cuda::fill(p, key, 0, 0, 0, nullptr); }) == "");
      CHECK(error_of([&] { cuda::fill_to_host(p, key, 0, 0, 0, nullptr); }) == "");
    }
    if (p.kind == Kind::permutation) {
      CHECK(error_of([&] { cuda::perm_shard(p, key, 0, 1, 4, 0, 0, nullptr); }) == "");
      CHECK(error_of([&] { cuda::perm_inverse(p, key, 0, p.n, 0, nullptr); }) == "");
      CHECK(error_of([&] { cuda::perm_shard_to_host(p, key, 0, 1, 4, 0, 0, nullptr); }) == "");
      CHECK(error_of([&] { cuda::perm_inverse_to_host(p, key, 0, 0, 0, nullptr); }) == "");
    }
  }
}

TEST_CASE("device discovery never fails; without a device, work throws xrng::Error") {
  const bool have = cuda::available();
  const std::string name = cuda::device_name();
  std::printf("cuda::available() = %s, device_name() = \"%s\"\n", have ? "true" : "false", name.c_str());
  CHECK(have == !name.empty());
  if (!have) {
    const Plan bits = make_plan(Dist::bits, DType::u32, {});
    uint32_t out[8] = {};
    const std::string msg = error_of([&] { cuda::fill_to_host(bits, Key(3), 0, 0, 8, out); });
    INFO("message: ", msg);
    CHECK(msg.rfind("cuda: ", 0) == 0);  // a CUDA error, reported as xrng::Error
    const std::string msg2 = error_of([&] { cuda::fill(bits, Key(3), 0, 0, 8, out); });
    INFO("message: ", msg2);
    CHECK(msg2.rfind("cuda: ", 0) == 0);
    const Plan perm = make_plan(Dist::perm, DType::i64, DrawParams::perm_size(10));
    int64_t pos[4] = {};
    const std::string msg3 = error_of([&] { cuda::perm_inverse_to_host(perm, Key(3), 0, 0, 4, pos); });
    INFO("message: ", msg3);
    CHECK(msg3.rfind("cuda: ", 0) == 0);
  }
}

// ---- the kernels' chunk bodies, run on the CPU -------------------------------------------
// The CUDA kernels are grid-stride loops around detail::fill_chunk /
// transform_chunk / perm_chunk (device/chunk.h). Running those functions here
// over every chunk of a request, in a scrambled order, checks the chunk
// arithmetic (unaligned offsets and starts, heads, tails, 16-byte vector
// loads and stores, the last words of the stream) against the core's scalar
// reference on a machine without a GPU. The GPU tests then check the
// compiled kernels.
namespace {

// A 64-byte aligned, poisoned buffer; the region under test starts `mis` bytes in.
struct HostBuf {
  static constexpr size_t kGuard = 64;
  unsigned char* p;
  size_t bytes;
  explicit HostBuf(size_t n) : bytes((n + 2 * kGuard + 63) / 64 * 64) {
    p = static_cast<unsigned char*>(std::aligned_alloc(64, bytes));
    std::memset(p, 0xA5, bytes);
  }
  ~HostBuf() { std::free(p); }
  HostBuf(const HostBuf&) = delete;
  HostBuf& operator=(const HostBuf&) = delete;
  unsigned char* region(size_t mis) const { return p + kGuard + mis; }
  // region equals want, and nothing outside it was touched
  bool check(size_t mis, const std::vector<unsigned char>& want) const {
    if (!want.empty() && std::memcmp(region(mis), want.data(), want.size()) != 0) return false;
    for (size_t i = 0; i < bytes; ++i)
      if ((p + i < region(mis) || p + i >= region(mis) + want.size()) && p[i] != 0xA5) return false;
    return true;
  }
};

std::vector<uint64_t> scrambled(uint64_t n, Rng& r) {
  std::vector<uint64_t> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = i;
  for (uint64_t i = n; i > 1; --i) std::swap(v[i - 1], v[r.below(i)]);
  return v;
}

// What a launch of the request's kernel does, with the chunks taken in the
// order `order_rng` gives: out (and, for transforms, in) as the kernel sees them.
void emulate_kernel(const Request& q, const unsigned char* in, unsigned char* out, Rng& order_rng) {
  namespace d = xrng::cuda::detail;
  const Stream s = q.key.stream();
  const bool known = visit_row(q.plan, [&]<class R>() {
    using O = typename R::out_t;
    if constexpr (R::kind == Kind::element) {
      REQUIRE(q.op == Op::fill);
      const auto cr = d::chunk_range<R>(q.start, q.count);
      const bool vec = d::vector_chunks<R>(out, q.start);
      for (uint64_t i : scrambled(cr.count, order_rng))
        d::fill_chunk<R>(q.plan, s, q.offset, q.start, q.count, cr.first + i, reinterpret_cast<O*>(out), vec);
    } else if constexpr (R::kind == Kind::transform) {
      REQUIRE(q.op == Op::transform);
      const auto cr = d::chunk_range<R>(q.start, q.count);
      const bool vec = d::vector_chunks<R>(in, q.start) && d::vector_chunks<R>(out, q.start);
      for (uint64_t i : scrambled(cr.count, order_rng))
        d::transform_chunk<R>(q.plan, s, q.offset, q.start, q.count, cr.first + i, reinterpret_cast<const O*>(in),
                              reinterpret_cast<O*>(out), vec);
    } else {
      const PermKey k = perm_key(s, q.offset, q.plan.n);
      const d::PermArgs a{q.start, q.count, q.rank, q.world};
      auto run = [&]<d::PermOp op>() {
        for (uint64_t i : scrambled(d::perm_chunk_range(op, q.count).count, order_rng))
          d::perm_chunk<R, op>(k, a, i, reinterpret_cast<O*>(out));
      };
      switch (q.op) {
        case Op::fill: run.template operator()<d::PermOp::at>(); break;
        case Op::perm_inverse: run.template operator()<d::PermOp::position>(); break;
        case Op::perm_shard: run.template operator()<d::PermOp::shard>(); break;
        case Op::transform: FAIL("permutations transform nothing"); break;
      }
    }
  });
  REQUIRE(known);
}

// Runs a request through the chunk bodies (misaligned by `mis` bytes, in
// place for transforms when asked) and compares with the reference.
bool chunk_bodies_match(const Request& q, size_t mis, bool in_place, Rng& r) {
  const std::vector<unsigned char> want = reference(q);
  HostBuf bin(q.bytes() + mis), bout(q.bytes() + mis);
  if (q.op == Op::transform && q.count) std::memcpy(bin.region(mis), q.in.data(), q.bytes());
  unsigned char* out = in_place ? bin.region(mis) : bout.region(mis);
  emulate_kernel(q, bin.region(mis), out, r);
  return (in_place ? bin : bout).check(mis, want);
}

}  // namespace

TEST_CASE("kernel chunk bodies on the CPU equal the scalar reference, every row and op") {
  Rng r{0xc0ffee};
  int n = 0;
  int rows_seen[std::size(kRows)] = {};
  for (const Plan& p : plans_under_test()) {
    const int es = dtype_size(p.dtype);
    for (Op op : ops_of(p)) {
      for (int k = 0; k < 24; ++k) {
        Request q = random_request(r, op, p, 3000);
        const size_t mis = r.below(2) ? 0 : es * (1 + r.below(7));
        const bool in_place = op == Op::transform && r.below(2);
        INFO(q.describe(), " misalign=", mis, in_place ? " in place" : "");
        CHECK(chunk_bodies_match(q, mis, in_place, r));
        ++n;
      }
      if (p.kind != Kind::permutation) {
        // the last words of the stream: a draw ending exactly at word 2^64
        const Request q = request_at_stream_end(r, op, p, r.below(40), 1 + r.below(80));
        INFO(q.describe(), " (ends at word 2^64)");
        CHECK(chunk_bodies_match(q, 0, false, r));
        ++n;
      }
    }
    for (size_t i = 0; i < std::size(kRows); ++i)
      if (kRows[i].dist == p.dist && kRows[i].dtype == p.dtype && kRows[i].version == p.version) ++rows_seen[i];
  }
  for (size_t i = 0; i < std::size(kRows); ++i) {
    INFO("row ", row_name(kRows[i].dist, kRows[i].dtype));
    // every row, with at least its distribution's sample parameter sets
    CHECK(rows_seen[i] >= static_cast<int>(golden::sample_params(kRows[i].dist).size()));
  }
  MESSAGE(n, " requests emulated through the chunk bodies");
}

TEST_CASE("kernel chunk bodies on the CPU: elements up to 2^64 - 1, every one-word row") {
  // The chunk arithmetic must not wrap when start + count == 2^64 (only rows
  // of one word per element reach element 2^64 - 1 of a stream).
  Rng r{0xe1e};
  int n = 0;
  for (const golden::RowPlan& rp : golden::row_plans()) {
    const Plan& p = rp.plan;
    if (p.kind == Kind::permutation || p.group != 1 || p.words != 1) continue;
    for (bool aligned : {false, true}) {
      Request q;
      q.op = p.kind == Kind::transform ? Op::transform : Op::fill;
      q.plan = p;
      q.key = Key(10);
      q.start = ~uint64_t{0} - 40;
      q.count = 41;
      q.offset = 0;
      if (q.op == Op::transform) fill_input(q, r);
      const size_t es = static_cast<size_t>(dtype_size(p.dtype));
      // aligned: element 0 of the draw on 16 bytes, so the vector path runs
      const size_t mis = (q.start * es) % 16 + (aligned ? 0 : es);
      INFO(q.describe(), aligned ? " (vector stores)" : " (element stores)");
      HostBuf probe(q.bytes() + mis);
      visit_row(p, [&]<class R>() {
        if constexpr (R::kind != Kind::permutation)
          CHECK(xrng::cuda::detail::vector_chunks<R>(probe.region(mis), q.start) == aligned);
      });
      CHECK(chunk_bodies_match(q, mis, false, r));
      ++n;
    }
  }
  CHECK(n > 0);
}

// The golden vectors through the kernels' chunk bodies, on the CPU: every
// case of tests/data/golden_v1.txt and golden_v2.txt (fill, transform,
// perm_shard, perm_inverse).
TEST_CASE("kernel chunk bodies on the CPU reproduce the golden file") {
  const auto& cases = golden_cases();
  REQUIRE(!cases.empty());
  Rng r{0x901d};
  int checked = 0;
  for (const auto& c : cases) {
    const Request q = from_golden(c);
    HostBuf bin(q.bytes()), bout(q.bytes());
    if (q.op == Op::transform && q.count) std::memcpy(bin.region(0), q.in.data(), q.bytes());
    emulate_kernel(q, bin.region(0), bout.region(0), r);
    CHECK_MESSAGE(golden::to_bits(c.dtype, bout.region(0), c.count) == c.out, c.name());
    ++checked;
  }
  MESSAGE(checked, " golden cases reproduced by the chunk bodies");
  CHECK(checked == static_cast<int>(cases.size()));
}
