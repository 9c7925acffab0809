// CPU-only checks of the CUDA backend's host logic; runs everywhere, GPU or
// not: request validation (which must throw before any CUDA call), launch
// arithmetic, and device discovery that reports "no device" without failing.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "device/chunk.h"
#include "device/xrng_cuda.h"
#if defined(XRNG_GPU_HAVE_GOLDEN)
#include "golden.h"
#endif

using namespace xrng;
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

// A validation error, not a CUDA one: without a GPU, any CUDA call made
// before validation would have thrown "cuda: <call>: ..." instead.
void check_validation_error(const std::string& msg, const std::string& expect) {
  INFO("message: ", msg);
  CHECK(msg.find(expect) != std::string::npos);
  CHECK(msg.find("cuda: ") == std::string::npos);
}

DrawParams prob(double p) {
  DrawParams q;
  q.p = p;
  return q;
}
DrawParams size_n(uint64_t n) {
  DrawParams q;
  q.n = n;
  return q;
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

TEST_CASE("fill_chunks: chunks cover exactly the groups of the requested elements") {
  using xrng::cuda::detail::fill_chunks;
  using xrng::cuda::detail::kChunkWords;
  const Dist dists[] = {Dist::bits,   Dist::bits,      Dist::uniform, Dist::uniform, Dist::normal,
                        Dist::normal, Dist::bernoulli, Dist::randint, Dist::randint};
  const DType types[] = {DType::u32, DType::u64, DType::f32, DType::f64, DType::f32,
                         DType::f64, DType::u8,  DType::i32, DType::i64};
  DrawParams q;
  q.ihigh = 10;
  for (int k = 0; k < 9; ++k) {
    const Plan p = make_plan(dists[k], types[k], q);
    const uint64_t per = (kChunkWords / p.words) * p.group;
    CHECK(kChunkWords % p.words == 0);
    const uint64_t starts[] = {0, 1, per - 1, per, 12345, (uint64_t{1} << 40) + 3};
    const uint64_t counts[] = {1, 2, per - 1, per, per + 1, 1000};
    for (uint64_t s : starts)
      for (uint64_t c : counts) {
        const auto r = fill_chunks(p, s, c);
        // the first chunk holds element s, the last chunk element s + c - 1
        CHECK(r.first * per <= s);
        CHECK(s < (r.first + 1) * per);
        const uint64_t last = r.first + r.count - 1;
        CHECK(last * per <= s + c - 1);
        CHECK(s + c - 1 < (last + 1) * per);
      }
    // the very last element of the stream: no overflow
    const uint64_t top = std::numeric_limits<uint64_t>::max();
    if (p.group == 1 && p.words == 1) {
      const auto r = fill_chunks(p, top - 4, 5);
      CHECK(r.first == (top - 4) / per);
      CHECK(r.count == top / per - (top - 4) / per + 1);
    }
  }
}

TEST_CASE("validation throws xrng::Error before any CUDA call") {
  const Key key(42, 7);
  char buf[64] = {};
  const Plan bits = make_plan(Dist::bits, DType::u32, {});
  const Plan drop = make_plan(Dist::dropout, DType::f32, prob(0.25));
  const Plan perm = make_plan(Dist::perm, DType::i64, size_n(100));

  check_validation_error(error_of([&] { cuda::fill(drop, key, 0, 0, 4, buf); }), "dropout needs an input buffer");
  Plan bad = bits;
  bad.dtype = DType::f32;  // no element function bits/f32
  check_validation_error(error_of([&] { cuda::fill(bad, key, 0, 0, 4, buf); }), "no element function");
  check_validation_error(error_of([&] { cuda::fill(bits, key, ~uint64_t{0}, 0, 2, buf); }), "counter overflow");
  check_validation_error(error_of([&] { cuda::fill(bits, key, 0, ~uint64_t{0}, 2, buf); }), "counter overflow");
  check_validation_error(error_of([&] { cuda::fill(bits, key, 0, 0, 4, nullptr); }), "null buffer");
  check_validation_error(error_of([&] {
                           cuda::fill(bits, key, 0, 0, 4, buf, 0, LaunchConfig{0, 2048});
                         }),
                         "LaunchConfig");
  check_validation_error(error_of([&] {
                           cuda::fill(bits, key, 0, 0, 4, buf, 0, LaunchConfig{-3, 0});
                         }),
                         "LaunchConfig");
  check_validation_error(error_of([&] { cuda::fill(perm, key, 0, 90, 20, buf); }), "exceed n");

  check_validation_error(error_of([&] { cuda::dropout(bits, key, 0, 0, 4, buf, buf); }), "Dist::dropout");
  check_validation_error(error_of([&] { cuda::dropout(drop, key, 0, 0, 4, nullptr, buf); }), "null buffer");
  check_validation_error(error_of([&] { cuda::dropout(drop, key, 0, 0, 4, buf, nullptr); }), "null buffer");
  check_validation_error(error_of([&] { cuda::dropout(drop, key, ~uint64_t{0} - 2, 0, 4, buf, buf); }),
                         "counter overflow");

  check_validation_error(error_of([&] { cuda::perm_shard(bits, key, 0, 0, 1, 0, 4, buf); }), "permutation");
  check_validation_error(error_of([&] { cuda::perm_shard(perm, key, 0, 3, 3, 0, 4, buf); }), "rank");
  check_validation_error(error_of([&] { cuda::perm_shard(perm, key, 0, 0, 0, 0, 4, buf); }), "rank");
  check_validation_error(error_of([&] { cuda::perm_shard(perm, key, ~uint64_t{0} - 3, 0, 1, 0, 4, buf); }),
                         "counter overflow");
  check_validation_error(error_of([&] { cuda::perm_inverse(bits, key, 0, 0, 4, buf); }), "permutation");
  check_validation_error(error_of([&] { cuda::perm_inverse(perm, key, 0, 99, 2, buf); }), "exceed n");

  // the synchronous helpers validate first too
  check_validation_error(error_of([&] { cuda::fill_to_host(bits, key, 0, 0, 4, nullptr); }), "null buffer");
  check_validation_error(error_of([&] { cuda::fill_to_host(bits, key, 0, 0, 4, buf, 0, 4096); }), "LaunchConfig");
  check_validation_error(error_of([&] { cuda::perm_shard_to_host(perm, key, 0, 5, 2, 0, 4, buf); }), "rank");
  check_validation_error(error_of([&] { cuda::dropout_to_host(drop, key, 0, 0, 4, nullptr, buf); }), "null buffer");
}

TEST_CASE("an empty request makes no CUDA call and needs no device") {
  const Key key(1);
  const Plan bits = make_plan(Dist::bits, DType::u32, {});
  const Plan drop = make_plan(Dist::dropout, DType::f16, prob(0.5));
  const Plan perm = make_plan(Dist::perm, DType::u32, size_n(10));
  CHECK(error_of([&] { cuda::fill(bits, key, 0, 0, 0, nullptr); }) == "");
  CHECK(error_of([&] { cuda::dropout(drop, key, 0, 0, 0, nullptr, nullptr); }) == "");
  CHECK(error_of([&] { cuda::perm_shard(perm, key, 0, 1, 4, 0, 0, nullptr); }) == "");
  CHECK(error_of([&] { cuda::perm_inverse(perm, key, 0, 10, 0, nullptr); }) == "");
  CHECK(error_of([&] { cuda::fill_to_host(bits, key, 0, 0, 0, nullptr); }) == "");
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
    uint32_t dev_like[8];
    const std::string msg2 = error_of([&] { cuda::fill(bits, Key(3), 0, 0, 8, dev_like); });
    INFO("message: ", msg2);
    CHECK(msg2.rfind("cuda: ", 0) == 0);
  }
}

// ---- the kernels' chunk bodies, run on the CPU -------------------------------------------
// The CUDA kernels are grid-stride loops around detail::fill_chunk /
// dropout_chunk / shard_chunk (device/chunk.h). Running those functions here
// over every chunk of a draw, in a scrambled order, checks the chunk
// arithmetic (unaligned offsets and starts, heads, tails, 16-byte vector
// stores, the last words of the stream) against the scalar reference on a
// machine without a GPU. The GPU tests then check the compiled kernels.
namespace {

struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }
};

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
  unsigned char* region(size_t mis) const { return p + kGuard + mis; }
  // region equals want, and nothing outside it was touched
  bool check(size_t mis, const std::vector<unsigned char>& want) const {
    if (std::memcmp(region(mis), want.data(), want.size()) != 0) return false;
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

std::vector<Plan> plans_under_test() {
  std::vector<Plan> v;
  auto add = [&](Dist d, DType t, DrawParams q) { v.push_back(make_plan(d, t, q)); };
  DrawParams q;
  add(Dist::bits, DType::u32, q);
  add(Dist::bits, DType::u64, q);
  q.low = -2.5;
  q.high = 7.25;
  q.mean = 3.0;
  q.std = 0.5;
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16}) {
    add(Dist::uniform, t, q);
    add(Dist::normal, t, q);
  }
  q.p = 0.3;
  add(Dist::bernoulli, DType::u8, q);
  q.ilow = -1000;
  q.ihigh = 77777;
  add(Dist::randint, DType::i32, q);
  q.ilow = INT64_MIN;
  q.ihigh = 12345;
  add(Dist::randint, DType::i64, q);
  return v;
}

}  // namespace

TEST_CASE("kernel chunk bodies on the CPU: fill equals the scalar reference") {
  Rng r{0xc0ffee};
  int n = 0;
  for (const Plan& p : plans_under_test()) {
    const int es = dtype_size(p.dtype);
    for (int k = 0; k < 40; ++k) {
      const uint64_t counts[] = {1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1000};
      const uint64_t count = k < 14 ? counts[k] : 1 + r.below(3000);
      const uint64_t start = r.below(2) ? r.below(70) : r.next() >> 24;
      uint64_t off = r.below(3) == 0 ? r.below(16) : r.next() >> 2;
      if (k == 39) {  // a draw ending exactly at word 2^64
        const uint64_t groups = (start + count + p.group - 1) / p.group;
        off = uint64_t{0} - groups * p.words;
      }
      const size_t mis = r.below(2) ? 0 : es * (1 + r.below(7));
      const Stream s{r.next(), r.below(2) ? r.next() : 0};
      check_counters(p, off, start, count);
      std::vector<unsigned char> want(count * es);
      xrng::detail::fill_scalar(p, s, off, start, count, want.data());
      HostBuf b(count * es + mis);
      void* out = b.region(mis);
      const auto cr = cuda::detail::fill_chunks(p, start, count);
      const std::vector<uint64_t> order = scrambled(cr.count, r);
      dispatch_group(p, [&]<Dist D, DType T>() {
        using O = typename Group<D, T>::out_t;
        const bool vec = cuda::detail::chunks_aligned<O>(out, start);
        for (uint64_t i : order)
          cuda::detail::fill_chunk<D, T>(p, s, off, start, count, cr.first + i, static_cast<O*>(out), vec);
      });
      INFO(dist_name(p.dist), "/", dtype_name(p.dtype), " offset=", off, " start=", start, " count=", count,
           " misalign=", mis);
      CHECK(b.check(mis, want));
      ++n;
    }
  }
  MESSAGE(n, " emulated fills compared");
}

TEST_CASE("kernel chunk bodies on the CPU: dropout and perm_shard equal the host") {
  Rng r{0xd00d};
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16})
    for (double pr : {0.0, 0.2, 1.0}) {
      DrawParams q;
      q.p = pr;
      const Plan p = make_plan(Dist::dropout, t, q);
      const int es = dtype_size(t);
      for (int k = 0; k < 12; ++k) {
        const uint64_t count = 1 + r.below(k < 6 ? 40 : 3000);
        const uint64_t start = r.below(2) ? r.below(40) : r.next() >> 20;
        const uint64_t off = r.below(2) ? r.below(8) : r.next() >> 3;
        const size_t mis = r.below(2) ? 0 : es * (1 + r.below(7));
        const Key key(r.next());
        std::vector<unsigned char> in(count * es);
        for (auto& x : in) x = static_cast<unsigned char>(r.next() & 0x3f);  // finite values
        std::vector<unsigned char> want(count * es);
        xrng::dropout(p, key, off, start, count, in.data(), want.data(), FillOptions{Backend::scalar, 1});
        HostBuf bin(count * es + mis), bout(count * es + mis);
        std::memcpy(bin.region(mis), in.data(), in.size());
        const bool in_place = k % 2;
        unsigned char* src = bin.region(mis);
        unsigned char* dst = in_place ? bin.region(mis) : bout.region(mis);
        const auto cr = cuda::detail::dropout_chunks(start, count);
        auto run = [&]<DType T>() {
          using V = typename cuda::detail::DropoutOp<T>::V;
          const bool vec = cuda::detail::chunks_aligned<V>(src, start) && cuda::detail::chunks_aligned<V>(dst, start);
          for (uint64_t i : scrambled(cr.count, r))
            cuda::detail::dropout_chunk<T>(p.bernoulli, key.stream(), off, start, count, cr.first + i,
                                           reinterpret_cast<const V*>(src), reinterpret_cast<V*>(dst), vec);
        };
        switch (t) {
          case DType::f32:
            run.template operator()<DType::f32>();
            break;
          case DType::f64:
            run.template operator()<DType::f64>();
            break;
          case DType::f16:
            run.template operator()<DType::f16>();
            break;
          default:
            run.template operator()<DType::bf16>();
            break;
        }
        INFO("dropout ", dtype_name(t), " p=", pr, " offset=", off, " start=", start, " count=", count,
             in_place ? " in place" : "");
        CHECK((in_place ? bin : bout).check(mis, want));
      }
    }
  for (uint64_t nn : {uint64_t{1}, uint64_t{5}, uint64_t{1000}, uint64_t{1} << 33, uint64_t{1} << 63}) {
    DrawParams q;
    q.n = nn;
    const Plan p = make_plan(Dist::perm, DType::u64, q);
    for (int k = 0; k < 8; ++k) {
      const Key key(r.next());
      const uint64_t off = r.below(100);
      const uint64_t world = 1 + (k < 4 ? r.below(9) : r.next() >> r.below(64));
      const uint64_t rank = r.below(world), count = 1 + r.below(500);
      const uint64_t start = k % 2 ? r.below(30) : r.next() >> 8;
      std::vector<uint64_t> want(count), got(count, 0);
      xrng::perm_shard(p, key, off, rank, world, start, count, want.data(), FillOptions{Backend::scalar, 1});
      const PermKey pk = perm_key(key.stream(), off, nn);
      const uint64_t p0 = perm_shard_position(nn, rank, world, start);
      const uint64_t chunks = (count + cuda::detail::kShardChunk - 1) / cuda::detail::kShardChunk;
      for (uint64_t i : scrambled(chunks, r)) cuda::detail::shard_chunk<uint64_t>(pk, world, p0, count, i, got.data());
      INFO("perm_shard n=", nn, " rank=", rank, " world=", world, " start=", start, " count=", count);
      CHECK(got == want);
    }
  }
}

TEST_CASE("kernel chunk bodies on the CPU: elements up to 2^64 - 1") {
  // The chunk arithmetic must not wrap when start + count == 2^64.
  const Plan p = make_plan(Dist::bits, DType::u32, {});
  const uint64_t start = ~uint64_t{0} - 40, count = 41;
  check_counters(p, 0, start, count);
  const Stream s{10, 0};
  for (bool vec : {false, true}) {
    HostBuf b(count * 4 + 12);
    const size_t mis = (start * 4) % 16 + (vec ? 0 : 4);  // vec: element 0 of the draw on 16 bytes
    uint32_t* out = reinterpret_cast<uint32_t*>(b.region(mis));
    REQUIRE(cuda::detail::chunks_aligned<uint32_t>(out, start) == vec);
    const auto cr = cuda::detail::fill_chunks(p, start, count);
    for (uint64_t i = 0; i < cr.count; ++i)
      cuda::detail::fill_chunk<Dist::bits, DType::u32>(p, s, 0, start, count, cr.first + i, out, vec);
    std::vector<unsigned char> want(count * 4);
    for (uint64_t i = 0; i < count; ++i) {
      const uint32_t w = stream_word(s, start + i);
      std::memcpy(&want[i * 4], &w, 4);
    }
    CHECK(b.check(mis, want));
  }
}

#if defined(XRNG_GPU_HAVE_GOLDEN)
// The golden vectors through the kernels' chunk bodies, on the CPU: every
// fill (except perm, whose kernel is a plain loop over perm_at), dropout and
// perm_shard case of tests/data/golden_v1.txt.
TEST_CASE("kernel chunk bodies on the CPU reproduce the golden file") {
  const std::vector<xrng_test::GoldenCase> cases = xrng_test::read_golden(xrng_test::golden_path());
  REQUIRE(!cases.empty());
  int checked = 0;
  for (const auto& c : cases) {
    const Plan p = c.plan();
    const Stream s = Key(c.seed, c.subseq).stream();
    const int es = dtype_size(c.dtype);
    HostBuf b(c.count * es);
    void* out = b.region(0);
    if (c.op == "fill" && p.dist != Dist::perm) {
      if (c.count == 0) continue;
      const auto cr = cuda::detail::fill_chunks(p, c.start, c.count);
      dispatch_group(p, [&]<Dist D, DType T>() {
        using O = typename Group<D, T>::out_t;
        const bool vec = cuda::detail::chunks_aligned<O>(out, c.start);
        for (uint64_t i = 0; i < cr.count; ++i)
          cuda::detail::fill_chunk<D, T>(p, s, c.offset, c.start, c.count, cr.first + i, static_cast<O*>(out), vec);
      });
    } else if (c.op == "dropout") {
      if (c.count == 0) continue;
      const std::vector<unsigned char> in = xrng_test::from_bits(c.dtype, c.in);
      const auto cr = cuda::detail::dropout_chunks(c.start, c.count);
      auto run = [&]<DType T>() {
        using V = typename cuda::detail::DropoutOp<T>::V;
        for (uint64_t i = 0; i < cr.count; ++i)
          cuda::detail::dropout_chunk<T>(p.bernoulli, s, c.offset, c.start, c.count, cr.first + i,
                                         reinterpret_cast<const V*>(in.data()), static_cast<V*>(out), false);
      };
      switch (c.dtype) {
        case DType::f32:
          run.template operator()<DType::f32>();
          break;
        case DType::f64:
          run.template operator()<DType::f64>();
          break;
        case DType::f16:
          run.template operator()<DType::f16>();
          break;
        default:
          run.template operator()<DType::bf16>();
          break;
      }
    } else if (c.op == "perm_shard" && p.dtype == DType::i64) {
      const PermKey k = perm_key(s, c.offset, p.n);
      const uint64_t p0 = perm_shard_position(p.n, c.rank, c.world, c.start);
      const uint64_t chunks = (c.count + cuda::detail::kShardChunk - 1) / cuda::detail::kShardChunk;
      for (uint64_t i = 0; i < chunks; ++i)
        cuda::detail::shard_chunk<int64_t>(k, c.world, p0, c.count, i, static_cast<int64_t*>(out));
    } else {
      continue;
    }
    CHECK_MESSAGE(xrng_test::to_bits(c.dtype, out, c.count) == c.out, c.name());
    ++checked;
  }
  MESSAGE(checked, " golden cases reproduced by the chunk bodies");
  CHECK(checked > 0);
}
#endif
