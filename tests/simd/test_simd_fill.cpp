// The vector fill and permutation kernels against the scalar reference, bit
// for bit: every dist/dtype, odd word offsets, counter blocks that cross 2^32
// and the end of the stream, every start phase, counts 0..100 and large ones,
// the streaming-store path, thread counts, and the golden vectors.
#include <cstring>
#include <vector>

#include "golden_cases.h"
#include "simd_test_util.h"

using namespace xrng;
using simd_test::for_each_isa;
using simd_test::Isa;

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

// Compares isa.fill with detail::fill_scalar for one request; `shift` bytes
// of misalignment on the vector side's buffer. Returns true when equal.
bool same_fill(const Isa& isa, const Plan& p, uint64_t off, uint64_t start, uint64_t count, size_t shift = 0) {
  const size_t sz = dtype_size(p.dtype);
  std::vector<unsigned char> ref(count * sz + 1, 0xAB), got(count * sz + shift + 1, 0xCD);
  detail::fill_scalar(p, kKey.stream(), off, start, count, ref.data());
  REQUIRE(isa.fill(p, kKey.stream(), off, start, count, got.data() + shift));  // vectorised, never declined
  // the byte past the end must be untouched
  if (got[shift + count * sz] != 0xCD) return false;
  return std::memcmp(ref.data(), got.data() + shift, count * sz) == 0;
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

}  // namespace

TEST_CASE("simd fill equals scalar: every plan, offset, start phase, counts 0..100") {
  for_each_isa([&](const Isa& isa) {
    int failures = 0;
    for (const auto& pc : simd_test::plan_cases()) {
      for (uint64_t off : kOffsets)
        for (uint64_t start : kStarts)
          for (uint64_t count = 0; count <= 100; ++count) {
            if (!valid(pc.plan, off, start, count)) continue;
            if (!same_fill(isa, pc.plan, off, start, count) && failures++ < 10)
              FAIL_CHECK(pc.name << " offset=" << off << " start=" << start << " count=" << count);
          }
    }
    CHECK(failures == 0);
  });
}

TEST_CASE("simd fill equals scalar: large counts, misaligned outputs, streaming stores") {
  const uint64_t counts[] = {1000, 2047, 2049, 4097, 65543, (uint64_t{1} << 20) + 3};
  for_each_isa([&](const Isa& isa) {
    for (const auto& pc : simd_test::plan_cases())
      for (uint64_t off : {uint64_t{0}, uint64_t{3}, (uint64_t{1} << 34) - 13})
        for (uint64_t start : {uint64_t{0}, uint64_t{1}})
          for (uint64_t count : counts) {
            if (count > 70000 && (off != 0 || start != 0)) continue;  // keep the run short
            CAPTURE(pc.name);
            CAPTURE(off);
            CAPTURE(start);
            CAPTURE(count);
            CHECK(same_fill(isa, pc.plan, off, start, count, start));
          }
    // Above 4 MiB per call the kernels store with non-temporal writes through
    // an aligned staging tile: exercise it with aligned and odd destinations.
    for (const auto& pc : simd_test::plan_cases()) {
      if (pc.name.find("(0,1)") == std::string::npos && pc.name.find("[0,1)") == std::string::npos &&
          pc.plan.dist != Dist::bits && pc.plan.dist != Dist::bernoulli)
        continue;
      const uint64_t count = ((uint64_t{5} << 20) / dtype_size(pc.plan.dtype)) + 77;
      for (size_t shift : {size_t{0}, size_t{1}, size_t{3}}) {
        CAPTURE(pc.name);
        CAPTURE(shift);
        CHECK(same_fill(isa, pc.plan, 7, 1, count, shift));
      }
    }
  });
}

TEST_CASE("simd fill: thread count and call splitting do not change values") {
  for_each_isa([&](const Isa&) {
    for (const auto& pc : simd_test::plan_cases()) {
      const uint64_t count = 300007;
      const size_t sz = dtype_size(pc.plan.dtype);
      std::vector<unsigned char> ref(count * sz);
      detail::fill_scalar(pc.plan, kKey.stream(), 5, 3, count, ref.data());
      for (int threads : {1, 2, 3, 7}) {
        std::vector<unsigned char> got(count * sz);
        fill(pc.plan, kKey, 5, 3, count, got.data(), FillOptions{Backend::simd, threads});
        CAPTURE(pc.name);
        CAPTURE(threads);
        CHECK(std::memcmp(ref.data(), got.data(), ref.size()) == 0);
      }
      // three calls covering the same elements
      std::vector<unsigned char> got(count * sz);
      const uint64_t a = 12345, b = 200001;
      fill(pc.plan, kKey, 5, 3, a, got.data(), FillOptions{Backend::simd, 1});
      fill(pc.plan, kKey, 5, 3 + a, b - a, got.data() + a * sz, FillOptions{Backend::simd, 2});
      fill(pc.plan, kKey, 5, 3 + b, count - b, got.data() + b * sz, FillOptions{Backend::simd, 3});
      CAPTURE(pc.name);
      CHECK(std::memcmp(ref.data(), got.data(), ref.size()) == 0);
    }
  });
}

namespace {
bool same_perm(const Isa& isa, uint64_t n, uint64_t start, uint64_t count, DType t, uint64_t off = 11) {
  const Plan p = make_plan(Dist::perm, t, [&] {
    DrawParams q;
    q.n = n;
    return q;
  }());
  const size_t sz = dtype_size(t);
  std::vector<unsigned char> ref(count * sz + 1, 0xAB), got(count * sz + 1, 0xCD);
  detail::fill_scalar(p, kKey.stream(), off, start, count, ref.data());
  const PermKey k = perm_key(kKey.stream(), off, n);
  REQUIRE(isa.perm(k, start, count, t, got.data()));
  return got[count * sz] == 0xCD && std::memcmp(ref.data(), got.data(), count * sz) == 0;
}
}  // namespace

TEST_CASE("simd permutation equals scalar: n = 1..1000, every output type") {
  for_each_isa([&](const Isa& isa) {
    int failures = 0;
    for (uint64_t n = 1; n <= 1000; ++n)
      for (DType t : {DType::i64, DType::u64, DType::i32, DType::u32})
        if (!same_perm(isa, n, 0, n, t) && failures++ < 10) FAIL_CHECK("n=" << n << " dtype=" << dtype_name(t));
    // windows of a permutation
    for (uint64_t n : {uint64_t{97}, uint64_t{1000}, uint64_t{4099}})
      for (uint64_t start : {uint64_t{1}, uint64_t{7}, uint64_t{50}})
        for (uint64_t count : {uint64_t{0}, uint64_t{1}, uint64_t{9}, uint64_t{40}})
          if (!same_perm(isa, n, start, count, DType::i64) && failures++ < 10)
            FAIL_CHECK("n=" << n << " start=" << start << " count=" << count);
    CHECK(failures == 0);
  });
}

TEST_CASE("simd permutation equals scalar: large and huge n") {
  for_each_isa([&](const Isa& isa) {
    // sizes just above powers of 4 walk most (domain up to 4n)
    for (uint64_t n : {uint64_t{1} << 20, (uint64_t{1} << 20) + 1, uint64_t{3000017}}) {
      CAPTURE(n);
      CHECK(same_perm(isa, n, 0, n, DType::i64));
      CHECK(same_perm(isa, n, 0, n, DType::i32));
    }
    const uint64_t huge[] = {(uint64_t{1} << 32) - 1, uint64_t{1} << 32, (uint64_t{1} << 32) + 1,
                             (uint64_t{1} << 40) - 5, (uint64_t{1} << 62) + 3, uint64_t{1} << 63,
                             (uint64_t{1} << 63) - 1};
    for (uint64_t n : huge)
      for (DType t : {DType::i64, DType::u64, DType::u32, DType::i32}) {
        if ((t == DType::u32 && n - 1 > UINT32_MAX) || (t == DType::i32 && n - 1 > INT32_MAX)) continue;
        for (uint64_t start : {uint64_t{0}, n / 3, n - 5000}) {
          CAPTURE(n);
          CAPTURE(start);
          CAPTURE(dtype_name(t));
          CHECK(same_perm(isa, n, start, 5000, t));
        }
      }
    // the public API, threads 1, 2, 3, 7
    const uint64_t n = 1000003;
    const std::vector<int64_t> ref = randperm(kKey, 9, n, FillOptions{Backend::scalar, 1});
    for (int threads : {1, 2, 3, 7}) {
      CAPTURE(threads);
      CHECK(randperm(kKey, 9, n, FillOptions{Backend::simd, threads}) == ref);
    }
  });
}

TEST_CASE("simd backend reproduces every golden vector") {
  const std::vector<xrng_test::GoldenCase> cases = xrng_test::read_golden(xrng_test::golden_path());
  REQUIRE(cases.size() > 0);
  for_each_isa([&](const Isa&) {
    int failures = 0;
    for (const auto& c : cases)
      for (int threads : {1, 2}) {
        const std::vector<uint64_t> got = xrng_test::run_host(c, FillOptions{Backend::simd, threads});
        if (got != c.out && failures++ < 10) FAIL_CHECK(c.name() << " threads=" << threads);
      }
    CHECK(failures == 0);
    MESSAGE(cases.size() << " golden cases checked");
  });
}
