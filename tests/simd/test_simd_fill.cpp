// A SIMD backend (the run's --backend, backends.h) against the scalar
// reference, bit for bit, over every element row of the registry (with its
// sample and edge parameters, row_cases.h) and every permutation row: odd word
// offsets, counter blocks that cross 2^32 and the end of the stream, every
// start phase, counts 0..100 and large ones, the streaming-store path, thread
// counts, and the golden vectors. Rows without a vector kernel take the
// dispatcher's fallback (their scalar element function on vector Philox
// words) and are compared the same way.
#include <doctest/doctest.h>

#include <cstring>
#include <set>
#include <vector>

#include "backends.h"
#include "golden/cases.h"
#include "row_cases.h"

using namespace xrng;
using xrng_test::backend;
using xrng_test::kSanitized;
using xrng_test::options;
using xrng_test::RowCase;

namespace {

const Key kKey(0x0123456789abcdefull, 0xfedcba9876543210ull);

bool valid(const Plan& p, uint64_t off, uint64_t start, uint64_t count) {
  try {
    check_counters(p, off, start, count);
    return true;
  } catch (const Error&) {
    return false;
  }
}

std::vector<unsigned char> reference(const Plan& p, uint64_t off, uint64_t start, uint64_t count) {
  std::vector<unsigned char> ref(count * dtype_size(p.dtype) + 1, 0xAB);
  detail::fill_scalar(p, kKey.stream(), off, start, count, ref.data());
  return ref;
}

// The run's backend for one request (one thread) against `ref`, the
// reference's elements; `shift` bytes of misalignment on the backend's
// buffer. True when equal and nothing past the end was written.
bool same_as(const std::vector<unsigned char>& ref, const Plan& p, uint64_t off, uint64_t start, uint64_t count,
             size_t shift = 0) {
  const size_t sz = dtype_size(p.dtype);
  std::vector<unsigned char> got(count * sz + shift + 1, 0xCD);
  fill(p, kKey, off, start, count, got.data() + shift, options(1));
  if (got[shift + count * sz] != 0xCD) return false;
  return std::memcmp(ref.data(), got.data() + shift, count * sz) == 0;
}
bool same_fill(const Plan& p, uint64_t off, uint64_t start, uint64_t count, size_t shift = 0) {
  return same_as(reference(p, off, start, count), p, off, start, count, shift);
}

const uint64_t kOffsets[] = {0,
                             1,
                             2,
                             3,
                             5,
                             6,
                             7,
                             (uint64_t{1} << 34) - 13,  // block index crosses 2^32 (counter word 1 carries)
                             (uint64_t{1} << 62) + 1,
                             ~uint64_t{0} - 300};  // the last words of the stream
const uint64_t kStarts[] = {0, 1, 2, 3, 5, 17};

// Bytes per call from which the vector kernels stream their stores
// (host/simd/fill.h, kStreamBytes: 4 MiB; 64 KiB in the sanitizer build and
// the emulated AArch64 one, CMake's XRNG_STREAM_BYTES), and a count of
// elements that is a quarter above it, plus an odd 77: the streaming sections
// below cover that path in every build.
#ifndef XRNG_STREAM_BYTES
#define XRNG_STREAM_BYTES (uint64_t{4} << 20)
#endif
uint64_t streamed_count(DType t) { return (uint64_t{XRNG_STREAM_BYTES} + uint64_t{XRNG_STREAM_BYTES} / 4) / dtype_size(t) + 77; }

std::string row_name(const RowInfo& r) { return std::string(dist_name(r.dist)) + "/" + dtype_name(r.dtype); }

}  // namespace

TEST_CASE("which element rows run a vector kernel") {
  // fill_avx2 / fill_avx512 return whether the row has a vector kernel, even
  // for count 0; rows without one run on the dispatcher's fallback. The
  // kernels below exist: losing one is a regression, not a quiet fallback.
  const std::set<std::string> must = {
      "bits/u32",         "bits/u64",         "uniform/f32",       "uniform/f64",     "uniform/f16",
      "uniform/bf16",     "normal/f32",       "normal/f64",        "normal/f16",      "normal/bf16",
      "bernoulli/u8",     "randint/i32",      "randint/i64",       "exponential/f32", "exponential/f16",
      "exponential/bf16", "log_normal/f32",   "log_normal/f64",    "log_normal/f16",  "log_normal/bf16",
      "cauchy/f32",       "cauchy/f16",       "cauchy/bf16"};
  std::string vector_rows, fallback_rows;
  for (const golden::RowPlan& rp : golden::row_plans()) {
    if (rp.plan.kind != Kind::element) continue;
    const bool vec = backend().fill(rp.plan, kKey.stream(), 0, 0, 0, nullptr);
    // rows of later stream versions are named "dist/dtype vN"; `must` lists v1 rows
    const std::string name = row_name(*rp.row) + (rp.row->version == 1 ? "" : " v" + std::to_string(rp.row->version));
    (vec ? vector_rows : fallback_rows) += name + " ";
    if (must.count(name)) CHECK_MESSAGE(vec, name << " lost its vector kernel");
  }
  for (const std::string& m : must) CHECK_MESSAGE(vector_rows.find(m + " ") != std::string::npos, m << " is not a row");
  MESSAGE(std::string(backend().name) << " vector kernels: " << vector_rows);
  MESSAGE(std::string(backend().name) << " scalar element function on vector words: " << fallback_rows);
}

TEST_CASE("simd fill equals scalar: every element row and parameter, offset, start phase, counts 0..100") {
  int failures = 0, cases = 0;
  for (const RowCase& c : xrng_test::row_cases(true, Kind::element)) {
    ++cases;
    // every offset and start phase, and the last elements a draw at offset 0
    // can reach (element indices near 2^64 where K == G) in every group phase
    const unsigned __int128 reach = ((static_cast<unsigned __int128>(1) << 64) / c.plan.words) * c.plan.group;
    std::vector<std::pair<uint64_t, uint64_t>> where;
    for (uint64_t off : kOffsets)
      for (uint64_t start : kStarts) where.push_back({off, start});
    for (uint64_t back : {101u, 102u, 103u, 104u}) where.push_back({0, static_cast<uint64_t>(reach - back)});
    for (auto [off, start] : where) {
      // counts 0..max from one start are prefixes of one reference; max is
      // 100 or what still fits below the end of the stream
      uint64_t max = 100;
      while (max > 0 && !valid(c.plan, off, start, max)) --max;
      if (!valid(c.plan, off, start, max)) continue;
      const std::vector<unsigned char> ref = reference(c.plan, off, start, max);
      for (uint64_t count = 0; count <= max; ++count)
        if (!same_as(ref, c.plan, off, start, count) && failures++ < 10)
          FAIL_CHECK(c.name << " offset=" << off << " start=" << start << " count=" << count);
    }
  }
  CHECK(failures == 0);
  MESSAGE(cases << " element draws (rows x parameters) compared");
}

TEST_CASE("simd fill equals scalar: large counts, misaligned outputs, streaming stores") {
  const uint64_t counts[] = {1000, 2047, 2049, 4097, 65543, (uint64_t{1} << 20) + 3};
  const RowInfo* last = nullptr;
  for (const RowCase& c : xrng_test::row_cases(false, Kind::element)) {
    const bool first_params = c.row != last;  // the row's first (typical) sample parameters
    last = c.row;
    for (uint64_t off : {uint64_t{0}, uint64_t{3}, (uint64_t{1} << 34) - 13})
      for (uint64_t start : {uint64_t{0}, uint64_t{1}})
        for (uint64_t count : counts) {
          // keep the run short: above 70000 elements once per row (and not
          // in the sanitizer build, whose streaming calls below are larger
          // than the tile and the vector width by far already)
          if (count > 70000 && (kSanitized || off != 0 || start != 0 || !first_params)) continue;
          CAPTURE(c.name);
          CAPTURE(off);
          CAPTURE(start);
          CAPTURE(count);
          CHECK(same_fill(c.plan, off, start, count, start));
        }
  }
  // Above kStreamBytes per call the vector kernels store with non-temporal writes
  // through an aligned staging tile: exercise it with aligned and odd
  // destinations, once per row that has a vector kernel (its first sample
  // parameters; the fallback rows have no such path).
  for (const golden::RowPlan& rp : golden::row_plans()) {
    if (rp.plan.kind != Kind::element || !backend().fill(rp.plan, kKey.stream(), 0, 0, 0, nullptr)) continue;
    const uint64_t count = streamed_count(rp.plan.dtype);
    const std::vector<unsigned char> ref = reference(rp.plan, 7, 1, count);
    for (size_t shift : {size_t{0}, size_t{1}, size_t{3}}) {
      CAPTURE(row_name(*rp.row));
      CAPTURE(shift);
      CHECK(same_as(ref, rp.plan, 7, 1, count, shift));
    }
  }
}

TEST_CASE("simd fill equals scalar: fused kernels, every block phase and step boundary") {
  // Rows with a fused kernel (host/simd/fused.h: Philox and the transform in
  // registers, on whole blocks) switch between it and the word window at the
  // first group that starts a block and at the last whole step: every word
  // offset mod 4, start phases, counts around the step (P registers of N64
  // blocks: at most 128 values on AVX-512) and the staging tile (2048
  // values), blocks crossing 2^32 (a step across the multiple, or steps
  // ending right at it: the fused normal's segments of equal high halves),
  // and calls above the streaming threshold.
  const uint64_t offs[] = {0, 1, 2, 3, 4, 6, (uint64_t{1} << 34) - 16, (uint64_t{1} << 34) - 14, (uint64_t{1} << 34) - 13,
                           (uint64_t{1} << 34) - 4 * 96, (uint64_t{1} << 34) - 4 * 101, (uint64_t{3} << 34) - 4 * 101 + 2};
  const uint64_t counts[] = {126, 127, 128, 129, 130, 255, 256, 257, 259, 2046, 2048, 2049, 2050, 4099, 6147, 20000};
  const RowInfo* last = nullptr;
  int failures = 0;
  for (const RowCase& c : xrng_test::row_cases(false, Kind::element)) {
    const bool first_params = c.row != last;
    last = c.row;
    if (!first_params || c.row->version != 2) continue;  // the fused rows are stream-v2 rows
    for (uint64_t off : offs)
      for (uint64_t start : {uint64_t{0}, uint64_t{1}, uint64_t{2}, uint64_t{3}})
        for (uint64_t count : counts)
          if (!same_fill(c.plan, off, start, count, start % 2) && failures++ < 10)
            FAIL_CHECK(c.name << " offset=" << off << " start=" << start << " count=" << count);
    // above the streaming threshold (the fused kernel stores as it goes, the
    // window around it streams through the tile), aligned and odd destinations
    const uint64_t big = streamed_count(c.plan.dtype);
    for (uint64_t off : {uint64_t{0}, uint64_t{2}})
      for (uint64_t start : {uint64_t{0}, uint64_t{1}}) {
        const std::vector<unsigned char> ref = reference(c.plan, off, start, big);
        for (size_t shift : {size_t{0}, size_t{1}, size_t{4}, size_t{16}, size_t{32}, size_t{48}})
          if (!same_as(ref, c.plan, off, start, big, shift) && failures++ < 10)
            FAIL_CHECK(c.name << " streaming, offset=" << off << " start=" << start << " shift=" << shift);
      }
  }
  CHECK(failures == 0);
}

TEST_CASE("simd fill: thread count and call splitting do not change values") {
  // host/parallel.h splits a call into at most count / 2^15 parts: 300007
  // elements give 7 threads 7 parts; the sanitizer build's 98311 give 3 (7
  // runs as 3), the same split code
  const uint64_t count = kSanitized ? 3 * (uint64_t{1} << 15) + 7 : 300007;
  for (const RowCase& c : xrng_test::row_cases(false, Kind::element)) {
    const size_t sz = dtype_size(c.plan.dtype);
    const std::vector<unsigned char> ref = reference(c.plan, 5, 3, count);
    for (int threads : {1, 2, 3, 7}) {
      std::vector<unsigned char> got(count * sz);
      fill(c.plan, kKey, 5, 3, count, got.data(), options(threads));
      CAPTURE(c.name);
      CAPTURE(threads);
      CHECK(std::memcmp(ref.data(), got.data(), count * sz) == 0);
    }
    // three calls covering the same elements
    std::vector<unsigned char> got(count * sz);
    const uint64_t a = 12345, b = kSanitized ? 65541 : 200001;
    fill(c.plan, kKey, 5, 3, a, got.data(), options(1));
    fill(c.plan, kKey, 5, 3 + a, b - a, got.data() + a * sz, options(2));
    fill(c.plan, kKey, 5, 3 + b, count - b, got.data() + b * sz, options(3));
    CAPTURE(c.name);
    CHECK(std::memcmp(ref.data(), got.data(), count * sz) == 0);
  }
}

namespace {
// The permutation rows of the registry (one per index dtype).
std::vector<DType> perm_dtypes() {
  std::vector<DType> v;
  for (const RowInfo& r : kRows)
    if (dist_kind(r.dist) == Kind::permutation && r.version == 1) v.push_back(r.dtype);
  return v;
}
bool perm_fits(DType t, uint64_t n) {
  return !((t == DType::u32 && n - 1 > UINT32_MAX) || (t == DType::i32 && n - 1 > INT32_MAX));
}
// The run's permutation kernel, called directly (it never declines a
// permutation row), against the scalar reference.
bool same_perm(uint64_t n, uint64_t start, uint64_t count, DType t, uint64_t off = 11) {
  const Plan p = make_plan(Dist::perm, t, DrawParams::perm_size(n));
  const size_t sz = dtype_size(t);
  std::vector<unsigned char> ref(count * sz + 1, 0xAB), got(count * sz + 1, 0xCD);
  detail::fill_scalar(p, kKey.stream(), off, start, count, ref.data());
  const PermKey k = perm_key(kKey.stream(), off, n);
  REQUIRE(backend().perm(k, start, count, t, got.data()));
  return got[count * sz] == 0xCD && std::memcmp(ref.data(), got.data(), count * sz) == 0;
}
}  // namespace

TEST_CASE("simd permutation equals scalar: n = 1..1000, every permutation row") {
  const std::vector<DType> dtypes = perm_dtypes();
  REQUIRE(dtypes.size() > 0);
  int failures = 0;
  for (uint64_t n = 1; n <= 1000; ++n)
    for (DType t : dtypes)
      if (!same_perm(n, 0, n, t) && failures++ < 10) FAIL_CHECK("n=" << n << " dtype=" << dtype_name(t));
  // windows of a permutation
  for (uint64_t n : {uint64_t{97}, uint64_t{1000}, uint64_t{4099}})
    for (uint64_t start : {uint64_t{1}, uint64_t{7}, uint64_t{50}})
      for (uint64_t count : {uint64_t{0}, uint64_t{1}, uint64_t{9}, uint64_t{40}})
        for (DType t : dtypes)
          if (!same_perm(n, start, count, t) && failures++ < 10)
            FAIL_CHECK("n=" << n << " start=" << start << " count=" << count << " dtype=" << dtype_name(t));
  CHECK(failures == 0);
}

TEST_CASE("simd permutation equals scalar: large and huge n") {
  const std::vector<DType> dtypes = perm_dtypes();
  // sizes just above powers of 4 walk most (domain up to 4n); the sanitizer
  // build's are smaller, with the same shapes
  const std::vector<uint64_t> large = kSanitized ? std::vector<uint64_t>{uint64_t{1} << 16, (uint64_t{1} << 16) + 1, 300017}
                                                 : std::vector<uint64_t>{uint64_t{1} << 20, (uint64_t{1} << 20) + 1, 3000017};
  for (uint64_t n : large)
    for (DType t : dtypes) {
      CAPTURE(n);
      CAPTURE(dtype_name(t));
      CHECK(same_perm(n, 0, n, t));
    }
  const uint64_t huge[] = {(uint64_t{1} << 32) - 1, uint64_t{1} << 32, (uint64_t{1} << 32) + 1,
                           (uint64_t{1} << 40) - 5, (uint64_t{1} << 62) + 3, uint64_t{1} << 63,
                           (uint64_t{1} << 63) - 1};
  for (uint64_t n : huge)
    for (DType t : dtypes) {
      if (!perm_fits(t, n)) continue;
      for (uint64_t start : {uint64_t{0}, n / 3, n - 5000}) {
        CAPTURE(n);
        CAPTURE(start);
        CAPTURE(dtype_name(t));
        CHECK(same_perm(n, start, 5000, t));
      }
    }
  // the public API, threads 1, 2, 3, 7
  const uint64_t n = kSanitized ? 100003 : 1000003;
  const std::vector<int64_t> ref = randperm(kKey, 9, n, FillOptions{Backend::scalar, 1});
  for (int threads : {1, 2, 3, 7}) {
    CAPTURE(threads);
    CHECK(randperm(kKey, 9, n, options(threads)) == ref);
  }
}

TEST_CASE("simd backend reproduces every golden vector (both stream versions)") {
  std::vector<golden::GoldenCase> cases = golden::read_golden(golden::golden_path(1));
  const std::vector<golden::GoldenCase> v2 = golden::read_golden(golden::golden_path(2));
  cases.insert(cases.end(), v2.begin(), v2.end());
  REQUIRE(cases.size() > 0);
  int failures = 0;
  for (const auto& c : cases)
    for (int threads : {1, 2}) {
      const std::vector<uint64_t> got = golden::run_host(c, options(threads));
      if (got != c.out && failures++ < 10) FAIL_CHECK(c.name() << " threads=" << threads);
    }
  CHECK(failures == 0);
  MESSAGE(cases.size() << " golden cases checked");
}
