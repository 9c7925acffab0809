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
#include <stdexcept>
#include <string>
#include <vector>

#include "device/chunk.h"
#include "device/position.h"
#include "device/torch_cuda.h"
#include "device/xrng_cuda.h"
#include "host/xrng.h"
#include "requests.h"
#include "torch_cuda_reference.h"

using namespace xrng;
using namespace xrng_gpu_test;
using xrng::cuda::LaunchConfig;
using xrng::cuda::detail::Layout;

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

TEST_CASE("tile shapes: whole groups, whole Philox blocks, 16 bytes of output where the row allows") {
  int rows = 0, vector_rows = 0;
  for_each_row([&]<class R>() {
    if constexpr (R::kind != Kind::permutation) {
      using S = xrng::cuda::detail::TileShape<R>;
      INFO(row_name(R::dist, R::dtype));
      CHECK(S::kWords == 4 * S::kBlocks);
      CHECK(S::kWords % R::kWords == 0);
      CHECK(S::kElems == S::kWords / R::kWords * R::kGroup);
      CHECK(S::kSlotBlocks * 4 >= 3 + R::kWords * S::kSlotGroups);
      // every stream-v1 row has a tile of 16 bytes (dropout f64, one word per
      // element: 32); a future row without one still works (element stores),
      // it is only slower
      if (R::version == 1) CHECK((S::kBytes == 16 || (S::kBytes == 32 && S::kBlocks == 1)));
      vector_rows += S::kVector ? 1 : 0;
      ++rows;
    }
  });
  using xrng::cuda::detail::TileShape;
  CHECK(TileShape<Row<Dist::bits, DType::u32>>::kBlocks == 1);
  CHECK(TileShape<Row<Dist::normal, DType::f32>>::kBlocks == 1);
  CHECK(TileShape<Row<Dist::normal, DType::f64>>::kElems == 2);
  CHECK(TileShape<Row<Dist::normal, DType::f16>>::kBlocks == 2);
  CHECK(TileShape<Row<Dist::randint, DType::i32>>::kBlocks == 2);
  CHECK(TileShape<Row<Dist::randint, DType::i64>>::kBlocks == 2);
  CHECK(TileShape<Row<Dist::bernoulli, DType::u8>>::kBlocks == 4);
  CHECK(vector_rows > 0);
  CHECK(rows > 0);
}

TEST_CASE("layouts cover exactly the requested elements, for every row, shift and offset") {
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
      using S = xrng::cuda::detail::TileShape<R>;
      const uint64_t E = S::kElems;
      const size_t es = sizeof(typename R::out_t);
      alignas(64) static unsigned char base[64];
      const uint64_t starts[] = {0, 1, E - 1, E, E + 1, 12345, (uint64_t{1} << 40) + 3};
      const uint64_t counts[] = {1, 2, E > 1 ? E - 1 : 1, E, E + 1, 1000};
      for (size_t mis = 0; mis < 16; mis += es)
        for (uint64_t off : {uint64_t{0}, uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{1} << 33})
          for (uint64_t s : starts)
            for (uint64_t c : counts) {
              const auto L = xrng::cuda::detail::make_layout<R>(off, s, c, base + mis, nullptr);
              INFO(row_name(R::dist, R::dtype), " mis=", mis, " offset=", off, " start=", s, " count=", c);
              // slot q holds elements q*E - r .. q*E - r + E - 1; the first slot holds
              // element s, the last slot element s + c - 1
              CHECK(L.shift < E);
              CHECK(L.vec == S::kVector);
              using u128 = unsigned __int128;
              const u128 r = L.shift, first = L.first, last = L.first + L.count - 1;
              CHECK(first * E <= s + r);
              CHECK(s + r < (first + 1) * E);
              CHECK(last * E <= s + c - 1 + r);
              CHECK(s + c - 1 + r < (last + 1) * E);
              // a slot of a vector layout is a 16-byte aligned span of the buffer
              if (L.vec) {
                const uintptr_t slot0 = reinterpret_cast<uintptr_t>(base + mis) + (L.first * E - L.shift - s) * es;
                CHECK(slot0 % 16 == 0);
              }
              CHECK(L.skip < R::kGroup);
              CHECK(L.blocks >= S::kBlocks);
              CHECK(L.blocks <= S::kSlotBlocks);
            }
      // the very last element of the stream: no overflow
      const uint64_t top = std::numeric_limits<uint64_t>::max();
      for (size_t mis = 0; mis < 16; mis += es) {
        const auto L = xrng::cuda::detail::make_layout<R>(0, top - 4, 5, base + mis, nullptr);
        CHECK(static_cast<unsigned __int128>(L.first + L.count - 1) * E <= static_cast<unsigned __int128>(top) + L.shift);
        CHECK(L.count >= 1);
        CHECK(L.count <= 5 / E + 2);
      }
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

// A launch configuration, as the kernels see it: grid x block threads.
struct Launch {
  unsigned grid = 1, block = 1;
};
Launch random_launch(uint64_t items, Rng& r) {
  const int blocks[] = {0, 32, 64, 96, 256, 1024, 1, 7, 33, 100};
  const int grids[] = {0, 0, 1, 2, 3, 17};
  const LaunchConfig cfg{grids[r.below(std::size(grids))], blocks[r.below(std::size(blocks))]};
  const auto d = xrng::cuda::detail::launch_dims(items, cfg, 1 + static_cast<int>(r.below(132)));
  return Launch{d.grid, d.block};
}

// The slot kernels (device/kernels.cuh, fill_kernel / transform_kernel) on the
// CPU: every warp step of the launch (block b, warp w, step k of the
// warp-uniform grid-stride loop), in a scrambled order; within a step, every
// lane computes its own blocks, then takes the next lane's as the shuffle
// gives them (the warp's last lane, possibly of a partial warp, computes
// them), then the lanes in range run the slot body.
template <class R>
void emulate_slots(const Layout& L, const Stream& s, Launch g, Rng& order_rng, auto&& body) {
  namespace d = xrng::cuda::detail;
  struct Step {
    uint64_t base;
    unsigned lanes;
  };
  std::vector<Step> steps;
  const uint64_t stride = uint64_t{g.grid} * g.block;
  for (uint64_t b = 0; b < g.grid; ++b)
    for (unsigned w0 = 0; w0 < g.block; w0 += 32)
      for (uint64_t base = b * g.block + w0; base < L.count; base += stride)
        steps.push_back({base, std::min(32u, g.block - w0)});
  struct Raw {
    d::SlotRaw<R> v;
  };
  std::vector<Raw> raw(32);
  for (uint64_t k : scrambled(steps.size(), order_rng)) {
    const Step& st = steps[k];
    for (unsigned lane = 0; lane < st.lanes; ++lane) {
      std::fill(std::begin(raw[lane].v), std::end(raw[lane].v), 0xdeadbeefu);  // no stale words
      d::own_blocks<R>(L, s, L.first + st.base + lane, raw[lane].v);
    }
    constexpr uint32_t B = d::TileShape<R>::kBlocks;
    if (L.blocks > B) {
      // __shfl_down_sync of the first 4 * extra_from_next words of raw; the
      // rest of `next` is what the kernel leaves unset (poison here)
      const uint32_t x = d::extra_from_next<R>(L);
      for (unsigned lane = 0; lane < st.lanes; ++lane) {
        uint32_t next[4 * B];
        for (uint32_t t = 0; t < 4 * B; ++t) next[t] = t < 4 * x && lane + 1 < st.lanes ? raw[lane + 1].v[t] : 0xbadf00du;
        d::extra_blocks<R>(L, s, L.first + st.base + lane, next, lane + 1 < st.lanes, raw[lane].v);
      }
    }
    for (unsigned lane = 0; lane < st.lanes; ++lane)
      if (st.base + lane < L.count) body(L.first + st.base + lane, raw[lane].v);
  }
}

// Launches at a position read at run time (device/position.h; the kernels'
// pos argument, what a CUDA graph replays): when set, emulate_kernel makes
// the launch as the host does for a position it cannot read (the layout at
// another offset, here a scrambled one, and no key), then does what the
// kernel does first when it runs (launch.h, place_at / perm_key_at) with the
// request's key and offset in a 4-word position buffer.
bool g_launch_at_position = false;

// What a launch of the request's kernel does, with the work taken in the
// order `order_rng` gives: out (and, for transforms, in) as the kernel sees them.
void emulate_kernel(const Request& q, const unsigned char* in, unsigned char* out, Rng& order_rng) {
  namespace d = xrng::cuda::detail;
  if (q.count == 0) return;  // the entry points launch nothing
  const bool at_pos = g_launch_at_position;
  const int64_t pos[4] = {static_cast<int64_t>(q.key.seed), static_cast<int64_t>(q.key.subseq),
                          static_cast<int64_t>(q.offset), q.plan.stream};
  const uint64_t captured_offset = at_pos ? q.offset * 0x9e3779b97f4a7c15ull + 12345 : q.offset;
  Stream s = at_pos ? Key(~q.key.seed).stream() : q.key.stream();
  // the kernel's first step at a run-time position; the layout L made at captured_offset
  auto place = [&]<class R>(Layout& L) {
    if (!at_pos) return;
    xrng::cuda::RunPosition r;
    REQUIRE(d::place_at<R>(pos, q.plan, s, L, r) == xrng::cuda::PositionStatus::ok);
    const Layout want = d::make_layout<R>(q.offset, q.start, q.count, out, in);
    CHECK((L.block0 == want.block0 && L.phase == want.phase && L.blocks == want.blocks));
  };
  const bool known = visit_row(q.plan, [&]<class R>() {
    using O = typename R::out_t;
    if constexpr (R::kind == Kind::element) {
      REQUIRE(q.op == Op::fill);
      Layout L = d::make_layout<R>(captured_offset, q.start, q.count, out, nullptr);
      place.template operator()<R>(L);
      emulate_slots<R>(L, s, random_launch(L.count, order_rng), order_rng, [&](uint64_t slot, const auto& raw) {
        d::fill_slot<R>(q.plan, L, slot, raw, reinterpret_cast<O*>(out));
      });
    } else if constexpr (R::kind == Kind::transform) {
      REQUIRE(q.op == Op::transform);
      Layout L = d::make_layout<R>(captured_offset, q.start, q.count, out, in);
      place.template operator()<R>(L);
      emulate_slots<R>(L, s, random_launch(L.count, order_rng), order_rng, [&](uint64_t slot, const auto& raw) {
        d::transform_slot<R>(q.plan, L, slot, raw, reinterpret_cast<const O*>(in), reinterpret_cast<O*>(out));
      });
    } else {
      PermKey k = perm_key(s, captured_offset, q.plan.n);
      if (at_pos) {
        xrng::cuda::RunPosition r;
        REQUIRE(d::perm_key_at(pos, q.plan, k, r) == xrng::cuda::PositionStatus::ok);
      }
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

// Runs a request through the chunk bodies (output misaligned by `mis` bytes
// from a 64-byte boundary, a transform's input by `mis_in`, or in place when
// asked) and compares with the reference; nothing outside the output may change.
bool chunk_bodies_match(const Request& q, size_t mis, bool in_place, Rng& r, size_t mis_in = SIZE_MAX) {
  if (mis_in == SIZE_MAX || in_place) mis_in = mis;
  const std::vector<unsigned char> want = reference(q);
  HostBuf bin(q.bytes() + mis_in), bout(q.bytes() + mis);
  if (q.op == Op::transform && q.count) std::memcpy(bin.region(mis_in), q.in.data(), q.bytes());
  unsigned char* out = in_place ? bin.region(mis) : bout.region(mis);
  const uint64_t misaligned = xrng::cuda::detail::misaligned_vector_accesses.load();
  emulate_kernel(q, bin.region(mis_in), out, r);
  if (xrng::cuda::detail::misaligned_vector_accesses.load() != misaligned) return false;  // a GPU would fault
  if (q.op == Op::transform && !in_place && q.count &&
      std::memcmp(bin.region(mis_in), q.in.data(), q.bytes()) != 0)
    return false;  // the input is read only
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

TEST_CASE("launches at a position read at run time (CUDA graphs) equal launches at (key, offset), every row") {
  // The kernels given a position pointer (device/position.h) read the key
  // and offset when they run: a captured CUDA graph replays one launch
  // (grid, layout made at capture) at the words the position holds on each
  // replay. Every row and op, random requests and draws ending at word 2^64.
  Rng r{0x9a9b};
  g_launch_at_position = true;
  int n = 0;
  for (const Plan& p : plans_under_test()) {
    const int es = dtype_size(p.dtype);
    for (Op op : ops_of(p)) {
      for (int k = 0; k < 6; ++k) {
        Request q = random_request(r, op, p, 3000);
        const size_t mis = r.below(2) ? 0 : es * (1 + r.below(7));
        INFO(q.describe(), " misalign=", mis, " (at a run-time position)");
        CHECK(chunk_bodies_match(q, mis, false, r));
        ++n;
      }
      if (p.kind != Kind::permutation) {
        const Request q = request_at_stream_end(r, op, p, r.below(40), 1 + r.below(80));
        INFO(q.describe(), " (ends at word 2^64, at a run-time position)");
        CHECK(chunk_bodies_match(q, 0, false, r));
        ++n;
      }
    }
  }
  g_launch_at_position = false;
  MESSAGE(n, " requests emulated at run-time positions");
}

TEST_CASE("run-time positions: a draw past word 2^64 or of another stream version is refused") {
  namespace d = xrng::cuda::detail;
  using xrng::cuda::PositionStatus;
  for (const golden::RowPlan& rp : golden::row_plans()) {
    const Plan& p = rp.plan;
    if (p.kind == Kind::permutation) continue;
    visit_row(p, [&]<class R>() {
      if constexpr (R::kind != Kind::permutation) {
        const uint64_t count = 3 * p.group + 1, words = plan_words(p, count);
        for (uint64_t back : {words + 5, words, words - 1, uint64_t{1}}) {
          // the draw's last word is 2^64 - back + words - 1: within the stream iff back >= words
          const int64_t pos[4] = {7, 9, static_cast<int64_t>(uint64_t{0} - back), p.stream};
          std::vector<unsigned char> buf(count * dtype_size(p.dtype) + 16);
          Layout L = d::make_layout<R>(0, 0, count, buf.data(), nullptr);
          Stream s{};
          xrng::cuda::RunPosition r;
          INFO(row_name(p), " offset 2^64 - ", back, " words ", words);
          CHECK(d::place_at<R>(pos, p, s, L, r) == (back >= words ? PositionStatus::ok : PositionStatus::exhausted));
          const int64_t other[4] = {7, 9, 0, p.stream == 1 ? 2 : 1};
          CHECK(d::place_at<R>(other, p, s, L, r) == PositionStatus::stream);
        }
      }
    });
  }
}

TEST_CASE("take_words: a generator state advanced in memory, as xrng::Generator advances") {
  using xrng::cuda::PositionStatus;
  using xrng::cuda::take_words;
  Rng r{0x7a4e};
  // a sequence of draws of every row: the state in memory follows Generator::skip
  for (int rep = 0; rep < 3; ++rep) {
    const uint64_t seed = r.next(), off0 = rep == 2 ? ~uint64_t{0} - 100000 : r.below(1000);
    int64_t state[4] = {static_cast<int64_t>(seed), 3, static_cast<int64_t>(off0), kStreamVersion};
    Generator g(Key(seed, 3), off0);
    for (const Plan& p : plans_under_test()) {
      if (p.version != kStreamVersion || p.stream != kStreamVersion) continue;
      const uint64_t count = p.kind == Kind::permutation ? p.n : 1 + r.below(700);
      int64_t before[4];
      const uint64_t words = check_counters(p, 0, 0, count);
      const uint64_t was = g.offset();
      g.skip(p, count);
      REQUIRE(take_words(state, before, kStreamVersion, words) == PositionStatus::ok);
      CHECK(static_cast<uint64_t>(before[2]) == was);
      CHECK(static_cast<uint64_t>(state[2]) == g.offset());
      CHECK((before[0] == state[0] && before[1] == state[1] && before[3] == state[3]));
    }
  }
  // the last word: a state may reach offset 2^64 - 1, never wrap; a refusal changes nothing
  int64_t state[4] = {1, 2, static_cast<int64_t>(~uint64_t{0} - 10), kStreamVersion};
  int64_t before[4] = {};
  CHECK(take_words(state, before, kStreamVersion, 11) == PositionStatus::exhausted);
  CHECK(static_cast<uint64_t>(state[2]) == ~uint64_t{0} - 10);
  CHECK(take_words(state, before, kStreamVersion, 10) == PositionStatus::ok);
  CHECK(static_cast<uint64_t>(state[2]) == ~uint64_t{0});
  CHECK(static_cast<uint64_t>(before[2]) == ~uint64_t{0} - 10);
  CHECK(take_words(state, before, kStreamVersion, 1) == PositionStatus::exhausted);
  CHECK(take_words(state, before, kStreamVersion, 0) == PositionStatus::ok);
  CHECK(static_cast<uint64_t>(state[2]) == ~uint64_t{0});
  state[3] = 1;
  CHECK(take_words(state, before, kStreamVersion, 1) == PositionStatus::stream);
  CHECK(static_cast<uint64_t>(state[2]) == ~uint64_t{0});
}

TEST_CASE("a captured sequence of takes and launches, replayed, equals the eager sequence of generator draws") {
  // A CUDA graph of several draws from one generator state in device memory
  // is, per draw, a take kernel (take_words) then a launch at the position
  // it wrote, each made once at capture (layouts at the capture's offset).
  // Replayed N times against the state, draw j of replay k must be draw
  // (k * draws + j) of an eager xrng::Generator sequence.
  namespace d = xrng::cuda::detail;
  Rng r{0x6a11};
  std::vector<Plan> plans;
  for (const Plan& p : plans_under_test())
    if (p.kind != Kind::permutation && p.stream == kStreamVersion && plans.size() < 64 && r.below(3) == 0)
      plans.push_back(p);
  REQUIRE(plans.size() >= 4);
  const uint64_t seed = r.next();
  int64_t state[4] = {static_cast<int64_t>(seed), 0, 5, kStreamVersion};
  Generator eager(Key(seed), 5);
  struct Captured {
    Request q;
    uint64_t words;
  };
  std::vector<Captured> graph;
  for (const Plan& p : plans) {
    Request q = random_request(r, p.kind == Kind::transform ? Op::transform : Op::fill, p, 500);
    q.start = 0;  // a draw of a whole tensor
    q.offset = 0;
    graph.push_back({q, check_counters(p, 0, 0, q.count)});
  }
  int checked = 0;
  for (int replay = 0; replay < 4; ++replay) {
    for (Captured& c : graph) {
      int64_t before[4];
      REQUIRE(xrng::cuda::take_words(state, before, kStreamVersion, c.words) == xrng::cuda::PositionStatus::ok);
      // the eager draw: its own generator step and the reference at that offset
      Request e = c.q;
      e.key = Key(seed);
      e.offset = eager.offset();
      eager.skip(e.plan, e.count);
      // the replayed launch: layout and key of the capture, position from `before`
      Request at = c.q;
      at.key = xrng::cuda::load_position(before).key;
      at.offset = xrng::cuda::load_position(before).offset;
      g_launch_at_position = true;  // emulate_kernel reads (key, offset) from a position buffer
      INFO("replay ", replay, " ", e.describe());
      CHECK((at.offset == e.offset && at.key == e.key));
      CHECK(chunk_bodies_match(at, 0, false, r));  // == reference at the eager (key, offset)
      g_launch_at_position = false;
      ++checked;
    }
  }
  CHECK(static_cast<uint64_t>(state[2]) == eager.offset());
  MESSAGE(checked, " replayed draws equal the eager sequence");
}

TEST_CASE("slot bodies on the CPU: every row x word offsets x starts x pointer shifts x counts") {
  // Systematic, for every element and transform row of the registry: word
  // offsets 0..7 (every Philox phase, twice) and one far offset; output
  // pointers misaligned by every multiple of the element size below 16 bytes
  // (every slot shift r); starts on and off slot boundaries; counts 0, 1,
  // around one and two slots, and long runs with heads and tails; transforms
  // also with the input at another misalignment (scalar loads, vector stores)
  // and in place. Every (start, count) pair of the lists is run for every row.
  namespace d = xrng::cuda::detail;
  Rng r{0x51075};
  int n = 0, rows = 0;
  for (const golden::RowPlan& rp : golden::row_plans()) {
    const Plan& p = rp.plan;
    if (p.kind == Kind::permutation) continue;
    uint64_t E = 0;
    visit_row(p, [&]<class R>() {
      if constexpr (R::kind != Kind::permutation) E = d::TileShape<R>::kElems;
    });
    REQUIRE(E > 0);
    const size_t es = static_cast<size_t>(dtype_size(p.dtype));
    const uint64_t starts[] = {0, 1, 2, 3, E - 1, E, E + 1, 1000003, (uint64_t{1} << 40) + 5};
    const uint64_t counts[] = {0, 1, 2, E - 1, E, E + 1, 2 * E + 1, 3 * E - 1, 37, 257, 1000, 4096 + E + 3};
    constexpr size_t kS = std::size(starts), kC = std::size(counts);
    size_t i = 0;
    std::vector<int> pairs(kS * kC, 0);
    const size_t per = std::max<size_t>(3, (kS * kC + (16 / es) * 9 - 1) / ((16 / es) * 9));
    for (size_t mis = 0; mis < 16; mis += es)
      for (uint64_t off = 0; off < 9; ++off)
        for (size_t j = 0; j < per; ++j, ++i) {
          Request q;
          q.op = p.kind == Kind::transform ? Op::transform : Op::fill;
          q.plan = p;
          q.key = Key(r.next(), r.below(2) ? r.next() : 0);
          q.offset = off < 8 ? off : (r.next() >> 3);
          const size_t pair = (i * 7) % (kS * kC);  // 7 is prime to kS * kC = 108: every pair in 108 steps
          q.start = starts[pair / kC];
          q.count = counts[pair % kC];
          ++pairs[pair];
          if (q.op == Op::transform) fill_input(q, r);
          const bool in_place = q.op == Op::transform && j % 3 == 1;
          const size_t mis_in = q.op == Op::transform && j % 3 == 2 ? (mis + es) % 16 : mis;
          INFO(q.describe(), " misalign=", mis, " input misalign=", mis_in, in_place ? " in place" : "");
          CHECK(chunk_bodies_match(q, mis, in_place, r, mis_in));
          ++n;
        }
    INFO(row_name(p));
    CHECK(std::count(pairs.begin(), pairs.end(), 0) == 0);  // every (start, count) pair ran
    ++rows;
  }
  MESSAGE(n, " requests over ", rows, " element and transform rows through the slot bodies");
  CHECK(rows > 0);
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
      // aligned: element 0 of the draw on 16 bytes (slot shift 0), else one element past
      const size_t mis = (q.start * es) % 16 + (aligned ? 0 : es);
      INFO(q.describe(), aligned ? " (shift 0)" : " (shift 1)");
      HostBuf probe(q.bytes() + mis);
      visit_row(p, [&]<class R>() {
        if constexpr (R::kind != Kind::permutation) {
          const Layout L = xrng::cuda::detail::make_layout<R>(0, q.start, q.count, probe.region(mis), nullptr);
          CHECK(L.vec);
          CHECK(L.shift == (aligned ? 0u : 1u));
        }
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

// ---- block draws (xrng::cuda::fill_block / transform_block, device/block.cpp) ------------------
// A block is one launch of the range kernel per contiguous run, at the run's
// global start, into the run's place in the output (so each launch sees its
// own pointer alignment, hence its own slot shift). Emulated here run by run
// through the chunk bodies, with the output misaligned, and compared with the
// block's slice of the core's scalar draw of the whole global tensor.
TEST_CASE("block draws: the per-run launches' chunk bodies equal the slice of the full draw, every row") {
  Rng r{0xb10c};
  int blocks = 0, runs = 0;
  for (const golden::RowPlan& rp : golden::row_plans()) {
    for (int k = 0; k < 16; ++k) {
      TensorBlock b;
      const size_t rank = 1 + r.below(4);
      for (size_t d = 0; d < rank; ++d) {
        const uint64_t e = 1 + r.below(d + 1 == rank ? 40 : 6);
        const uint64_t s = r.below(e);
        b.shape.push_back(e);
        b.start.push_back(s);
        b.size.push_back(r.below(12) == 0 ? 0 : 1 + r.below(e - s));
      }
      const BlockLayout L = BlockLayout::make(b);
      Plan p = rp.plan;
      if (p.kind == Kind::permutation) {
        DrawParams q = rp.params;
        q.n = L.global_count;
        p = make_plan(rp.row->dist, rp.row->dtype, q, rp.plan.stream);
      }
      // the whole global draw, by the core's scalar reference
      Request full;
      full.op = p.kind == Kind::transform ? Op::transform : Op::fill;
      full.plan = p;
      full.key = Key(31, 4);
      full.offset = r.below(2) ? r.below(9) : (uint64_t{1} << 40) + r.below(4);
      full.count = L.global_count;
      if (full.op == Op::transform) fill_input(full, r);
      const std::vector<unsigned char> want_full = reference(full);
      const size_t es = static_cast<size_t>(dtype_size(p.dtype));
      std::vector<unsigned char> want(L.count * es), in(L.count * es);
      L.for_each_piece(0, L.count, [&](uint64_t j, uint64_t g, uint64_t m) {
        std::memcpy(want.data() + j * es, want_full.data() + g * es, m * es);
        if (full.op == Op::transform) std::memcpy(in.data() + j * es, full.in.data() + g * es, m * es);
      });
      // the launches, run by run, into a misaligned block buffer
      const size_t mis = r.below(2) ? 0 : es * (1 + r.below(7));
      HostBuf bin(L.count * es + mis), bout(L.count * es + mis);
      if (L.count) std::memcpy(bin.region(mis), in.data(), in.size());
      L.for_each_piece(0, L.count, [&](uint64_t j, uint64_t g, uint64_t m) {
        Request q;
        q.op = full.op;
        q.plan = p;
        q.key = full.key;
        q.offset = full.offset;
        q.start = g;
        q.count = m;
        if (q.op == Op::transform) q.in.assign(in.begin() + j * es, in.begin() + (j + m) * es);
        emulate_kernel(q, bin.region(mis) + j * es, bout.region(mis) + j * es, r);
        ++runs;
      });
      INFO(row_name(p), " v", int(p.stream), " shape ", detail::dims_text(b.shape), " start ",
           detail::dims_text(b.start), " size ", detail::dims_text(b.size), " misalign ", mis);
      CHECK(bout.check(mis, want));
      ++blocks;
    }
  }
  MESSAGE(blocks, " blocks, ", runs, " runs emulated through the chunk bodies");
}

TEST_CASE("block draws: the core's checks throw before any CUDA call; an empty block makes none") {
  const Key key(1);
  const Plan p = make_plan(Dist::normal, DType::f32, {});
  const Plan drop = make_plan(Dist::dropout, DType::f32, DrawParams::probability(0.5));
  float buf[8];
  check_request_error(error_of([&] { cuda::fill_block_to_host(p, key, 0, TensorBlock{{4, 6}, {1}, {2, 3}}, buf); }),
                      "one entry per dimension");
  check_request_error(
      error_of([&] { cuda::fill_block_to_host(p, key, 0, TensorBlock{{4, 6}, {3, 0}, {2, 3}}, buf); }),
      "exceeds the global extent");
  check_request_error(
      error_of([&] { cuda::fill_block(p, key, ~uint64_t{0} - 4, TensorBlock{{4, 6}, {0, 0}, {1, 1}}, 0, 1, buf); }),
      "counter overflow");
  check_request_error(
      error_of([&] { cuda::fill_block_to_host(drop, key, 0, TensorBlock{{4}, {0}, {4}}, buf); }), "transform_block");
  check_request_error(
      error_of([&] { cuda::transform_block_to_host(p, key, 0, TensorBlock{{4}, {0}, {4}}, buf, buf); }),
      "fill_block");
  check_request_error(error_of([&] { cuda::fill_block(p, key, 0, TensorBlock{{4}, {0}, {4}}, 0, 4, nullptr); }),
                      "null buffer");
  check_request_error(
      error_of([&] { cuda::fill_block_to_host(p, key, 0, TensorBlock{{4}, {0}, {4}}, buf, LaunchConfig{0, 2000}); }),
      "LaunchConfig");
  CHECK(error_of([&] { cuda::fill_block(p, key, 0, TensorBlock{{4, 6}, {1, 1}, {0, 3}}, 0, 0, nullptr); }) == "");
  CHECK(error_of([&] { cuda::fill_block_to_host(p, key, 0, TensorBlock{{4, 6}, {1, 1}, {2, 0}}, nullptr); }) == "");
  CHECK(error_of([&] {
          cuda::transform_block_to_host(drop, key, 0, TensorBlock{{0, 6}, {0, 1}, {0, 3}}, nullptr, nullptr);
        }) == "");
}

// ---- the torch CUDA stream's kernels (device/torch_cuda.h): their host side -------------------
TEST_CASE("torch_cuda kernels: unroll and element sizes as the host bindings; refusals before any CUDA call") {
  namespace tk = xrng::cuda::torch_cuda;
  namespace tg = xrng::torch_cuda;
  using tk::Draw;
  using tk::Out;
  // unroll: 2 for a float64 output (double2 / curand_uniform2_double) and randint's 64-bit path
  CHECK(tk::unroll_of({Draw::uniform, Out::f64}) == 2);
  CHECK(tk::unroll_of({Draw::uniform, Out::f16}) == 4);
  CHECK(tk::unroll_of({Draw::normal, Out::f64}) == 2);
  CHECK(tk::unroll_of({Draw::geometric, Out::i64, 0.3}) == 4);  // accscalar float whatever the element size
  CHECK(tk::unroll_of({Draw::bernoulli, Out::f64, 0.3}) == 2);
  CHECK(tk::unroll_of({Draw::randint, Out::i64, 0, 0, 0, (1ull << 28) - 1}) == 4);
  CHECK(tk::unroll_of({Draw::randint, Out::i32, 0, 0, 0, 1ull << 28}) == 2);
  CHECK(tk::out_size(Out::f64) == 8);
  CHECK(tk::out_size(Out::bf16) == 2);
  CHECK(tk::out_size(Out::i32) == 4);
  CHECK(tk::out_size(Out::b8) == 1);
  // refused with std::invalid_argument before any CUDA call (and before the state moves)
  tg::State s{1, 8};
  const tg::Device d{132, 2048};
  void* fake = reinterpret_cast<void*>(uintptr_t{256});  // never dereferenced: every call below throws first
  CHECK_THROWS_AS(tk::draw({Draw::exponential, Out::f32, 0.0}, s, d, 10, fake), std::invalid_argument);
  CHECK_THROWS_AS(tk::draw({Draw::uniform, Out::i32}, s, d, 10, fake), std::invalid_argument);
  CHECK_THROWS_AS(tk::draw({Draw::geometric, Out::f32, 1.0}, s, d, 10, fake), std::invalid_argument);
  CHECK_THROWS_AS(tk::draw({Draw::bernoulli, Out::b8, 1.5}, s, d, 10, fake), std::invalid_argument);
  CHECK_THROWS_AS(tk::draw({Draw::randint, Out::i64, 0, 0, 0, 0}, s, d, 10, fake), std::invalid_argument);
  CHECK_THROWS_AS(tk::draw({Draw::cauchy, Out::f64, 0.0, -1.0}, s, d, 10, fake), std::invalid_argument);
  CHECK_THROWS_AS(tk::draw({Draw::uniform, Out::f32}, s, d, 10, nullptr), std::invalid_argument);
  CHECK_THROWS_AS(tk::dropout(s, d, 16, 3, 0.5, Out::f32, fake, fake, static_cast<bool*>(fake)), std::invalid_argument);
  CHECK_THROWS_AS(tk::dropout(s, d, 16, 4, 0.5, Out::i32, fake, fake, static_cast<bool*>(fake)), std::invalid_argument);
  CHECK_THROWS_AS(tk::bernoulli_tensor(s, 16, fake, true, Out::f32, fake), std::invalid_argument);
  CHECK(s.offset == 8);
  // n == 0: nothing drawn, no CUDA call, the offset unmoved (as the host draws)
  tk::draw({Draw::normal, Out::f32}, s, d, 0, fake);
  CHECK(s.offset == 8);
}

// The kernels' work items (device/torch_cuda_ops.h: work_item,
// bernoulli_tensor_item, dropout_element, the very XRNG_HD code the kernels
// run, and with_op's choice of operation) run here on the CPU over every
// item of every launch of tg::pieces, against the host model: every draw
// and dtype, below and above one wave, three GPU profiles. What this cannot
// show is the GPU compiling them to the same values (tests/gpu's cuda_torch).
TEST_CASE("torch_cuda kernels: their work items, run on the CPU, give the host model's values") {
  namespace tk = xrng::cuda::torch_cuda;
  namespace tg = xrng::torch_cuda;
  namespace ref = xrng_gpu_test::torch_cuda_ref;
  using tk::Out;
  for (const tg::Device d : {tg::Device{3, 512}, tg::Device{40, 1024}, tg::Device{8, 2048}}) {
    const uint64_t wave = 256ull * d.sm_count * (d.threads_per_sm / 256);
    for (const tk::Args& a : ref::all_draws()) {
      const uint64_t per_round = wave * tk::unroll_of(a);
      for (uint64_t n : {uint64_t{1}, uint64_t{1001}, per_round - 1, per_round + 1, 2 * per_round + 517}) {
        tg::State sh{0x5eedull + n, 8}, se = sh;
        const auto want = ref::host_draw(a, sh, d, n);
        const uint32_t es = tk::out_size(a.out);
        std::vector<uint8_t> got(n * es, 0xa5);
        tk::check_args(a);
        tg::pieces(se, n, es, tk::unroll_of(a), d, [&](const tg::Piece& p) {
          tk::with_op(a, [&](const auto& op) {
            for (uint64_t g = 0; g < p.launch.threads() * p.launch.rounds(); ++g)
              tk::ops::work_item(op, se.seed, p.offset, p.launch, got.data() + p.begin * es, g);
          });
        });
        INFO("draw ", static_cast<int>(a.draw), " dtype ", ref::out_name(a.out), " a ", a.a, " sm ", d.sm_count, " n ", n,
             " first mismatch at ", ref::first_mismatch(want, got, es));
        CHECK(se.offset == sh.offset);
        CHECK(got == want);
      }
    }
  }
  // bernoulli_(tensor p): thread t's item writes elements 4t .. 4t + 3
  for (Out o : {Out::f32, Out::f64, Out::f16, Out::b8, Out::i64}) {
    const uint64_t n = 10007;
    std::vector<double> pd(n);
    std::vector<float> pf(n);
    for (uint64_t i = 0; i < n; ++i) {
      pd[i] = static_cast<double>((i * 2654435761ull) % 1000) / 999.0;
      pf[i] = static_cast<float>(pd[i]);
    }
    tg::State sh{5, 4};
    const uint32_t es = tk::out_size(o);
    std::vector<uint8_t> want(n * es), got(n * es, 0xa5);
    tg::bernoulli_tensor(sh, n, [&](uint64_t i, float u) {
      ref::store_float(o, want, i, (o == Out::f64 ? static_cast<double>(u) <= pd[i] : u <= pf[i]) ? 1.0f : 0.0f);
    });
    const uint64_t off = 4;  // philox_cuda_state(10) from offset 4
    for (uint64_t t = 0; t < (n + 3) / 4; ++t) {
      switch (o) {
        case Out::f32: tk::ops::bernoulli_tensor_item<Out::f32, float>(5, off, n, pf.data(), got.data(), t); break;
        case Out::f64: tk::ops::bernoulli_tensor_item<Out::f64, double>(5, off, n, pd.data(), got.data(), t); break;
        case Out::f16: tk::ops::bernoulli_tensor_item<Out::f16, float>(5, off, n, pf.data(), got.data(), t); break;
        case Out::b8: tk::ops::bernoulli_tensor_item<Out::b8, float>(5, off, n, pf.data(), got.data(), t); break;
        default: tk::ops::bernoulli_tensor_item<Out::i64, float>(5, off, n, pf.data(), got.data(), t); break;
      }
    }
    INFO("bernoulli tensor dtype ", ref::out_name(o));
    CHECK(sh.offset == 16);
    CHECK(got == want);
  }
  // dropout (float32, vec 4 and 1; float16, vec 8): each element's item
  for (uint32_t vec : {1u, 4u}) {
    const uint64_t n = 3 * 1536 * 4 + 8;
    const tg::Device d{3, 512};
    const tg::Launch L = tg::dropout_launch(n, d);
    std::vector<float> in(n), want(n), got(n);
    std::vector<uint8_t> wmask(n);
    bool* gmask = new bool[n];
    for (uint64_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 1000) * 0.25f - 100.0f;
    const float pa = static_cast<float>(1.0 - 0.3), scale = static_cast<float>(1.0 / pa);
    for (uint64_t i = 0; i < n; ++i) {
      const tg::Slot sl = tg::dropout_slot(L, vec, i);
      const float u = tg::curand_uniform(tg::curand4(11, 12, sl.thread, sl.round).v[sl.lane]);
      const float keep = u < pa ? 1.0f : 0.0f;
      want[i] = (in[i] * keep) * scale;
      wmask[i] = keep != 0.0f;
      tk::ops::dropout_element<float>(11, 12, L, vec, pa, scale, in.data(), got.data(), gmask, i);
    }
    CHECK(std::memcmp(want.data(), got.data(), n * 4) == 0);
    bool masks_equal = true;
    for (uint64_t i = 0; i < n; ++i) masks_equal = masks_equal && (gmask[i] == (wmask[i] != 0));
    CHECK(masks_equal);
    delete[] gmask;
  }
}
