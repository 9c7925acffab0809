// Block draws of a global tensor (host/xrng.h fill_block, rng/block.h):
// every block equals the slice of the full draw it names, bit for bit, for
// every registry row (golden::row_plans(): each row in its own stream
// version), ranks 0..4, blocks whose edges split groups, odd starts, empty
// blocks, the scalar path, each SIMD ISA this CPU has and 1 / 2 threads;
// the tilings of a tensor put together are the full draw; a generator's
// block draw advances by the global tensor's words; bad blocks are refused
// with one line before anything is written. The reference is always the
// scalar range draw of the whole global tensor.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "golden/blocks.h"
#include "golden/sample_params.h"
#include "host/xrng.h"

using namespace xrng;

namespace {

struct Rng {  // splitmix64, fixed seeds
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }
};

std::string dims(const std::vector<uint64_t>& v) { return detail::dims_text(v); }
std::string describe(const Plan& p, const TensorBlock& b) {
  return std::string(dist_name(p.dist)) + "/" + dtype_name(p.dtype) + " v" + std::to_string(p.stream) + " shape " +
         dims(b.shape) + " start " + dims(b.start) + " size " + dims(b.size);
}

// The plan of row rp for a global tensor of `global` elements (a
// permutation's n is the tensor's element count).
Plan plan_for(const golden::RowPlan& rp, uint64_t global) {
  if (rp.plan.kind != Kind::permutation) return rp.plan;
  DrawParams q = rp.params;
  q.n = global;
  return make_plan(rp.row->dist, rp.row->dtype, q, rp.plan.stream);
}

// The backends a block is checked on: name, ISA forced (or "" for scalar), threads.
struct Config {
  std::string name;
  std::string isa;  // "" = Backend::scalar
  int threads;
};
// scalar, then every vector ISA of this build (avx2, avx512 on x86-64; neon on
// AArch64; xrng::detail::simd_backends), each on 1 and 2 threads. An ISA the
// CPU lacks is skipped by with_isa.
const std::vector<Config>& configs() {
  static const std::vector<Config> v = [] {
    std::vector<Config> c = {{"scalar", "", 1}, {"scalar x2", "", 2}};
    for (const detail::SimdBackend& b : detail::simd_backends()) {
      c.push_back({b.name, b.name, 1});
      c.push_back({std::string(b.name) + "x2", b.name, 2});
    }
    return c;
  }();
  return v;
}

// Runs f with the dispatcher forced to `isa`; false (and a note) when the CPU lacks it.
template <class F>
bool with_isa(const std::string& isa, F&& f) {
  const std::string was = simd_isa();
  if (isa.empty()) {
    f(FillOptions{Backend::scalar, 1});
    return true;
  }
  if (!set_simd_isa(isa)) return false;
  try {
    f(FillOptions{Backend::simd, 1});
  } catch (...) {
    set_simd_isa(was);
    throw;
  }
  set_simd_isa(was);
  return true;
}

// Checks one block of one plan on every config: fill_block (or
// transform_block) == the block's slice of the full scalar draw, and the
// block drawn in three parts (the (start, count) overload) == the whole.
// Returns the number of configs run.
int check_block_everywhere(const Plan& plan, const TensorBlock& b, uint64_t offset, int max_threads = 2,
                           int min_threads = 1) {
  const Key key(20261124, 3);
  const golden::BlockSlice want = golden::block_slice_reference(plan, key, offset, b);
  const uint64_t n = want.count;
  const size_t es = dtype_size(plan.dtype);
  int ran = 0;
  for (const Config& c : configs()) {
    if (c.threads > max_threads || c.threads < min_threads) continue;
    std::vector<unsigned char> got(n * es + 16, 0xA5);
    const bool ok = with_isa(c.isa, [&](FillOptions o) {
      o.threads = c.threads;
      if (plan.kind == Kind::transform) {
        std::vector<unsigned char> io = want.in;  // in place, too
        if (c.threads == 2) {
          transform_block(plan, key, offset, b, io.data(), io.data(), o);
          std::memcpy(got.data(), io.data(), n * es);
        } else {
          transform_block(plan, key, offset, b, want.in.data(), got.data(), o);
        }
      } else {
        fill_block(plan, key, offset, b, got.data(), o);
      }
    });
    if (!ok) continue;
    ++ran;
    INFO(describe(plan, b), " offset ", offset, " on ", c.name);
    CHECK(std::memcmp(got.data(), want.out.data(), n * es) == 0);
    for (size_t i = n * es; i < got.size(); ++i) REQUIRE(got[i] == 0xA5);  // nothing past the block
  }
  // in three parts: [0, a), [a, c), [c, n)
  if (n > 0) {
    Rng r{n * 31 + offset};
    const uint64_t a = r.below(n + 1), c2 = a + r.below(n - a + 1);
    std::vector<unsigned char> got(n * es + 16);
    for (auto [s, e] : {std::pair{uint64_t{0}, a}, std::pair{a, c2}, std::pair{c2, n}}) {
      if (plan.kind == Kind::transform)
        transform_block(plan, key, offset, b, s, e - s, want.in.data() + s * es, got.data() + s * es);
      else
        fill_block(plan, key, offset, b, s, e - s, got.data() + s * es);
    }
    INFO(describe(plan, b), " in parts at ", a, ", ", c2);
    CHECK(std::memcmp(got.data(), want.out.data(), n * es) == 0);
  }
  return ran;
}

// A random block of a random shape of rank `rank`, at most ~`max_elems`
// global elements; now and then an extent or a size of 0 (an empty tensor or block).
TensorBlock random_block(Rng& r, size_t rank, uint64_t max_elems) {
  TensorBlock b;
  uint64_t left = max_elems;
  for (size_t d = 0; d < rank; ++d) {
    const uint64_t cap = std::max<uint64_t>(1, d + 1 == rank ? left : std::min<uint64_t>(left, 9));
    const uint64_t e = r.below(40) == 0 ? 0 : 1 + r.below(cap);
    b.shape.push_back(e);
    left = std::max<uint64_t>(1, left / std::max<uint64_t>(1, e));
    const uint64_t s = e == 0 ? 0 : r.below(e);
    b.start.push_back(s);
    b.size.push_back(e == 0 || r.below(30) == 0 ? 0 : 1 + r.below(e - s));
  }
  return b;
}

}  // namespace

TEST_CASE("BlockLayout: runs merge the dimensions the block covers whole") {
  auto L = BlockLayout::make(TensorBlock{{4, 6}, {1, 2}, {2, 3}});
  CHECK(L.global_count == 24);
  CHECK(L.count == 6);
  CHECK(L.run == 3);
  CHECK(L.runs == 2);
  CHECK(L.run_start(0) == 8);
  CHECK(L.run_start(1) == 14);
  L = BlockLayout::make(TensorBlock{{4, 6}, {1, 0}, {2, 6}});  // whole rows: one run
  CHECK(L.runs == 1);
  CHECK(L.run == 12);
  CHECK(L.run_start(0) == 6);
  L = BlockLayout::make(TensorBlock{{3, 4, 5}, {0, 1, 0}, {3, 2, 5}});  // Shard(1) of a 3-d tensor
  CHECK(L.run == 10);
  CHECK(L.runs == 3);
  CHECK(L.run_start(2) == 2 * 20 + 5);
  L = BlockLayout::make(TensorBlock{{}, {}, {}});  // 0-d: one element
  CHECK(L.global_count == 1);
  CHECK(L.count == 1);
  CHECK(L.run_start(0) == 0);
  L = BlockLayout::make(TensorBlock{{5, 0, 3}, {2, 0, 1}, {3, 0, 2}});  // empty global tensor
  CHECK(L.global_count == 0);
  CHECK(L.count == 0);
  // pieces of a sub-range cut at run boundaries
  L = BlockLayout::make(TensorBlock{{4, 6}, {1, 2}, {3, 3}});
  std::vector<std::array<uint64_t, 3>> pieces;
  L.for_each_piece(2, 5, [&](uint64_t j, uint64_t g, uint64_t m) { pieces.push_back({j, g, m}); });
  CHECK(pieces == std::vector<std::array<uint64_t, 3>>{{2, 10, 1}, {3, 14, 3}, {6, 20, 1}});
}

TEST_CASE("blocks == slices of the full draw: every registry row, ranks 0..4, every backend") {
  Rng r{0x5eed};
  int checked = 0, split_groups = 0, empty = 0, configs_missing = 0;
  for (const golden::RowPlan& rp : golden::row_plans()) {
    for (size_t rank = 0; rank <= 4; ++rank) {
      for (int k = 0; k < (rank == 0 ? 1 : 10); ++k) {
        const TensorBlock b = random_block(r, rank, 700);
        const BlockLayout L = BlockLayout::make(b);
        if (rp.plan.kind == Kind::permutation && L.global_count == 0) continue;  // no permutation of 0 elements
        const Plan p = plan_for(rp, L.global_count);
        const uint64_t offset = r.below(2) ? r.below(8) : 1000000007ull + r.below(4);
        const int ran = check_block_everywhere(p, b, offset);
        configs_missing += static_cast<int>(configs().size()) - 1 - ran;  // the x2 of a missing ISA too
        ++checked;
        empty += L.count == 0;
        if (p.group > 1)
          for (uint64_t i = 0; i < L.runs; ++i) split_groups += L.run_start(i) % p.group != 0;
      }
    }
  }
  MESSAGE(checked, " blocks checked, ", split_groups, " runs starting inside a group, ", empty, " empty");
  CHECK(split_groups > 100);
  CHECK(empty > 10);
  if (configs_missing > 0) MESSAGE("this CPU lacks some of this build's ISAs: those configs were skipped");
}

TEST_CASE("blocks whose edges split groups: every start phase of every row with groups or multi-word elements") {
  // Global shape [3, W]: the block [1, s .. s + z) for every s and z in 0..5,
  // so runs start and end at every phase of a group (G = 2) and of the
  // words (K = 1, 2, 4), at odd word offsets.
  int n = 0;
  for (const golden::RowPlan& rp : golden::row_plans()) {
    if (rp.plan.group == 1 && rp.plan.words == 1) continue;
    for (uint64_t w : {uint64_t{7}, uint64_t{11}})
      for (uint64_t s = 0; s < 6; ++s)
        for (uint64_t z = 0; z + s <= w && z < 6; ++z) {
          const TensorBlock b{{3, w}, {1, s}, {2, z}};
          check_block_everywhere(plan_for(rp, 3 * w), b, 3 + s, 1);
          ++n;
        }
  }
  MESSAGE(n, " split-group blocks");
  CHECK(n > 300);
}

TEST_CASE("large blocks on two threads split inside runs and across them") {
  // Blocks of more than 2^16 elements: the host splits them across 2 threads
  // (the 2-thread configs only; the 1-thread ones ran above).
  for (const golden::RowPlan& rp : golden::row_plans()) {
    const Plan& p = rp.plan;
    const bool pick = (p.dist == Dist::normal && (p.dtype == DType::f32 || p.dtype == DType::f64)) ||
                      (p.dist == Dist::dropout && p.dtype == DType::f16) || (p.dist == Dist::bits && p.dtype == DType::u64);
    if (!pick) continue;
    check_block_everywhere(p, TensorBlock{{160, 600}, {20, 3}, {130, 551}}, 5, 2, 2);  // 130 runs of 551
    check_block_everywhere(p, TensorBlock{{2, 70001}, {1, 1}, {1, 70000}}, 2, 2, 2);   // one long run
    // a part of a block (the (start, count) overload) on 2 threads, as the CLI draws it in chunks
    const TensorBlock b{{160, 600}, {20, 3}, {130, 551}};
    const Key key(20261124, 3);
    const golden::BlockSlice want = golden::block_slice_reference(p, key, 5, b);
    const size_t es = dtype_size(p.dtype);
    const uint64_t s0 = 1234, n = 70001;
    std::vector<unsigned char> got(n * es);
    if (p.kind == Kind::transform)
      transform_block(p, key, 5, b, s0, n, want.in.data() + s0 * es, got.data(), FillOptions{Backend::automatic, 2});
    else
      fill_block(p, key, 5, b, s0, n, got.data(), FillOptions{Backend::automatic, 2});
    INFO(describe(p, b), " elements [1234, 71235) on 2 threads");
    CHECK(std::memcmp(got.data(), want.out.data() + s0 * es, n * es) == 0);
  }
}

TEST_CASE("the tiles of a tensor put together are the full draw") {
  const Plan p = make_plan(Dist::normal, DType::f64, DrawParams::moments(1, 2));  // K = 4, G = 2
  const Key key(7, 1);
  const std::vector<uint64_t> shape{5, 7, 3};
  std::vector<double> full(5 * 7 * 3), tiled(full.size(), -1.0);
  fill(p, key, 9, 0, full.size(), full.data());
  // 2 x 3 x 2 uneven tiles
  const std::vector<std::vector<uint64_t>> cuts{{0, 3, 5}, {0, 2, 5, 7}, {0, 1, 3}};
  for (size_t a = 0; a + 1 < cuts[0].size(); ++a)
    for (size_t b = 0; b + 1 < cuts[1].size(); ++b)
      for (size_t c = 0; c + 1 < cuts[2].size(); ++c) {
        const TensorBlock t{shape,
                            {cuts[0][a], cuts[1][b], cuts[2][c]},
                            {cuts[0][a + 1] - cuts[0][a], cuts[1][b + 1] - cuts[1][b], cuts[2][c + 1] - cuts[2][c]}};
        const BlockLayout L = BlockLayout::make(t);
        std::vector<double> part(L.count);
        fill_block(p, key, 9, t, part.data());
        size_t j = 0;
        for (uint64_t i0 = 0; i0 < t.size[0]; ++i0)
          for (uint64_t i1 = 0; i1 < t.size[1]; ++i1)
            for (uint64_t i2 = 0; i2 < t.size[2]; ++i2)
              tiled[((t.start[0] + i0) * 7 + t.start[1] + i1) * 3 + t.start[2] + i2] = part[j++];
      }
  CHECK(std::memcmp(tiled.data(), full.data(), full.size() * sizeof(double)) == 0);
}

TEST_CASE("Generator::draw_block advances by the global tensor's words") {
  for (int stream : {1, 2}) {
    Generator g(99, 2, 5, stream), whole(99, 2, 5, stream);
    const Plan p = g.plan(Dist::normal, DType::f32);
    const TensorBlock b{{6, 7}, {2, 1}, {3, 5}};  // 42 elements: 21 pairs, 42 words
    std::vector<float> part(15), full(42);
    g.draw_block(p, b, part.data());
    whole.draw(p, 42, full.data());
    CHECK(g.offset() == 5 + 42);
    CHECK(g == whole);  // aligned: later draws are the unsharded program's
    for (uint64_t i = 0; i < 3; ++i)
      for (uint64_t j = 0; j < 5; ++j) CHECK(part[i * 5 + j] == full[(2 + i) * 7 + 1 + j]);
    // odd global count: the last pair is drawn whole (43 elements: 22 pairs)
    Generator g2(1, 0, 0, stream);
    std::vector<float> one(1);
    g2.draw_block(p, TensorBlock{{43}, {42}, {1}}, one.data());
    CHECK(g2.offset() == 44);
    // a permutation advances by its key's words
    Generator g3(1, 0, 0, stream);
    const Plan pp = g3.plan(Dist::perm, DType::i64, DrawParams::perm_size(12));
    std::vector<int64_t> pv(4);
    g3.draw_block(pp, TensorBlock{{3, 4}, {1, 0}, {1, 4}}, pv.data());
    CHECK(g3.offset() == pp.words);
    // an empty block still advances by the global tensor
    Generator g4(1, 0, 0, stream);
    g4.draw_block(p, TensorBlock{{10, 10}, {3, 3}, {0, 4}}, nullptr);
    CHECK(g4.offset() == 100);
  }
  Generator v1(0, 0, 0, 1);
  const Plan p2 = make_plan(Dist::normal, DType::f32, {}, 2);
  float x;
  CHECK_THROWS_WITH_AS(v1.draw_block(p2, TensorBlock{{1}, {0}, {1}}, &x), doctest::Contains("stream v2"), Error);
  Generator end(0, 0, ~uint64_t{0} - 9);
  CHECK_THROWS_AS(end.draw_block(end.plan(Dist::bits, DType::u32), TensorBlock{{2, 5}, {0, 0}, {1, 1}}, &x), Error);
  CHECK(end.offset() == ~uint64_t{0} - 9);
}

TEST_CASE("bad blocks: one line, before anything is written") {
  const Plan p = make_plan(Dist::uniform, DType::f32, {});
  const Key key(1, 2);
  std::vector<float> out(64, 7.0f);
  auto message = [&](const TensorBlock& b, const Plan& pl = make_plan(Dist::uniform, DType::f32, {}),
                     uint64_t offset = 0) -> std::string {
    try {
      fill_block(pl, key, offset, b, out.data());
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  CHECK(message({{4, 6}, {1}, {2, 3}}).find("one entry per dimension") != std::string::npos);
  CHECK(message({{4, 6}, {1, 2}, {2}}).find("one entry per dimension") != std::string::npos);
  CHECK(message({{4, 6}, {1, 4}, {2, 3}}).find("dimension 1: start 4 + size 3 exceeds the global extent 6") !=
        std::string::npos);
  CHECK(message({{4, 6}, {5, 0}, {0, 3}}).find("dimension 0") != std::string::npos);
  CHECK(message({{4, 6}, {0, 0}, {~uint64_t{0}, 1}}).find("exceeds") != std::string::npos);
  CHECK(message({{1ull << 32, 1ull << 32}, {0, 0}, {1, 1}}).find("2^64 elements or more") != std::string::npos);
  CHECK(message({{1ull << 40, 1ull << 20, 0}, {0, 0, 0}, {1, 1, 0}}).empty());  // 0 elements: no overflow
  // counters of the whole global draw: 2^63 f64 normals need exactly 2^64
  // words (allowed), 3 * 2^62 of them 1.5 * 2^64 (refused, even for a block
  // of one element at the start)
  const Plan n64 = make_plan(Dist::normal, DType::f64, {});
  CHECK(message({{1ull << 62, 2}, {0, 0}, {1, 1}}, n64).empty());
  CHECK(message({{1ull << 62, 3}, {0, 0}, {1, 1}}, n64).find("counter overflow") != std::string::npos);
  out.assign(64, 7.0f);
  CHECK(message({{10}, {0}, {1}}, p, ~uint64_t{0} - 5).find("counter overflow") != std::string::npos);
  // the plan's kind
  const Plan drop = make_plan(Dist::dropout, DType::f32, DrawParams::probability(0.5));
  CHECK(message({{4}, {0}, {4}}, drop).find("transform_block") != std::string::npos);
  CHECK_THROWS_WITH_AS(transform_block(p, key, 0, TensorBlock{{4}, {0}, {4}}, out.data(), out.data()),
                       doctest::Contains("fill_block"), Error);
  CHECK_THROWS_WITH_AS(dropout_block(make_plan(Dist::dropout, DType::f32, DrawParams::probability(0.5)), key, 0,
                                     TensorBlock{{4}, {0}, {4}}, nullptr, out.data()),
                       doctest::Contains("null buffer"), Error);
  const Plan perm = make_plan(Dist::perm, DType::i64, DrawParams::perm_size(10));
  CHECK(message({{3, 4}, {0, 0}, {1, 1}}, perm).find("12 elements, the permutation n = 10") != std::string::npos);
  CHECK_THROWS_WITH_AS(fill_block(p, key, 0, TensorBlock{{4}, {0}, {4}}, nullptr), doctest::Contains("null buffer"),
                       Error);
  CHECK_THROWS_WITH_AS(fill_block(p, key, 0, TensorBlock{{4, 4}, {0, 0}, {2, 2}}, 3, 2, out.data()),
                       doctest::Contains("exceed the block's 4 elements"), Error);
  FillOptions bad;
  bad.threads = -1;
  CHECK_THROWS_AS(fill_block(p, key, 0, TensorBlock{{4}, {0}, {4}}, out.data(), bad), Error);
  for (float v : out) CHECK(v == 7.0f);  // nothing written
  for (const std::string& m : {message({{1ull << 32, 1ull << 32}, {0, 0}, {1, 1}}), message({{4}, {9}, {0}})})
    CHECK(m.find('\n') == std::string::npos);
}

TEST_CASE("golden block cases: the committed file, and each case == the slice of the full draw") {
  const std::vector<golden::BlockCase> file = golden::read_block_golden(golden::block_golden_path());
  const std::vector<golden::BlockCase> made = golden::block_requests();
  REQUIRE(file.size() == made.size());
  int per_stream[3] = {};
  for (size_t i = 0; i < file.size(); ++i) {
    const golden::BlockCase& c = file[i];
    INFO(c.name());
    // the file's requests are the program's (regenerate: cmake --build build --target golden_blocks)
    CHECK(golden::format_block(c, false) == golden::format_block(made[i], false));
    // the slice of the full scalar draw
    CHECK(golden::block_case_from_full(c) == c.base.out);
    // every host backend
    for (const Config& cfg : configs()) {
      with_isa(cfg.isa, [&](FillOptions o) {
        o.threads = cfg.threads;
        CHECK(golden::run_block_host(c, o) == c.base.out);
      });
    }
    ++per_stream[c.base.stream];
  }
  CHECK(per_stream[1] > 20);
  CHECK(per_stream[2] == per_stream[1]);
  CHECK(golden::block_golden_text() == golden::read_text(golden::block_golden_path()));
}
