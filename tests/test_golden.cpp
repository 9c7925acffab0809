// Golden vectors of stream v1 (tests/data/golden_v1.txt): the scalar
// reference and the automatic (SIMD) backend with 1 and 3 threads must
// reproduce every case bit for bit, and the committed file must be exactly
// what tools/make_golden.cpp writes today.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "golden_cases.h"

using xrng_test::GoldenCase;

namespace {

const std::vector<GoldenCase>& cases() {
  static const std::vector<GoldenCase> c = xrng_test::read_golden(xrng_test::golden_path());
  return c;
}

// Compares one case; reports the first differing element.
void check_case(const GoldenCase& c, const std::vector<uint64_t>& got, const char* backend) {
  INFO(backend, " ", c.name());
  REQUIRE(got.size() == c.out.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != c.out[i]) {
      FAIL_CHECK("element ", i, ": got 0x", std::hex, got[i], " expected 0x", c.out[i]);
      return;
    }
  }
}

}  // namespace

TEST_CASE("golden file covers every distribution and dtype") {
  const auto& cs = cases();
  REQUIRE(cs.size() > 300);
  std::set<std::string> seen;
  for (const GoldenCase& c : cs) seen.insert(c.op + "/" + xrng::dist_name(c.dist) + "/" + xrng::dtype_name(c.dtype));
  for (const char* want :
       {"fill/bits/u32", "fill/bits/u64", "fill/uniform/f32", "fill/uniform/f64", "fill/uniform/f16",
        "fill/uniform/bf16", "fill/normal/f32", "fill/normal/f64", "fill/normal/f16", "fill/normal/bf16",
        "fill/bernoulli/u8", "dropout/dropout/f32", "dropout/dropout/f64", "dropout/dropout/f16",
        "dropout/dropout/bf16", "fill/randint/i32", "fill/randint/i64", "fill/perm/i64", "perm_shard/perm/i64",
        "perm_inverse/perm/i64"})
    CHECK_MESSAGE(seen.count(want) == 1, want);
}

TEST_CASE("golden: scalar reference") {
  for (const GoldenCase& c : cases()) check_case(c, xrng_test::run_reference(c), "fill_scalar");
}

TEST_CASE("golden: host backends and thread counts") {
  struct B {
    xrng::Backend b;
    int threads;
    const char* name;
  };
  for (const B& b : {B{xrng::Backend::scalar, 1, "scalar/1"}, B{xrng::Backend::scalar, 3, "scalar/3"},
                     B{xrng::Backend::automatic, 1, "automatic/1"}, B{xrng::Backend::automatic, 3, "automatic/3"}}) {
    MESSAGE("backend ", std::string(b.name), " (simd isa: ", std::string(xrng::simd_isa()), ")");
    for (const GoldenCase& c : cases()) check_case(c, xrng_test::run_host(c, {b.b, b.threads}), b.name);
  }
}

TEST_CASE("golden: the committed file is what tools/make_golden.cpp writes") {
  std::ifstream f(xrng_test::golden_path(), std::ios::binary);
  REQUIRE(f);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string committed = ss.str();
  const std::string regenerated = xrng_test::golden_file_text();
  if (committed != regenerated) {
    // Point at the first differing line.
    std::istringstream a(committed), b(regenerated);
    std::string la, lb;
    int line = 0;
    while (true) {
      ++line;
      const bool ga = static_cast<bool>(std::getline(a, la)), gb = static_cast<bool>(std::getline(b, lb));
      if (!ga && !gb) break;
      if (!ga || !gb || la != lb) {
        FAIL("golden_v1.txt differs from make_golden at line ", line, "\n committed:   ", la.substr(0, 200),
             "\n regenerated: ", lb.substr(0, 200));
      }
    }
  }
  CHECK(committed == regenerated);
}

TEST_CASE("golden format round-trips") {
  for (const GoldenCase& c : cases()) {
    const GoldenCase d = xrng_test::parse_golden(xrng_test::format_golden(c), c.line);
    CHECK(d.out == c.out);
    CHECK(d.in == c.in);
    CHECK(xrng_test::format_golden(d) == xrng_test::format_golden(c));
  }
  CHECK_THROWS(xrng_test::parse_golden("op=fill dist=bits dtype=u32 seed=0x0 subseq=0x0 offset=0x0 start=0 count=2 out=1"));
  CHECK_THROWS(xrng_test::parse_golden("op=fill dist=bits dtype=u32 bogus=1 count=0 out="));
  CHECK_THROWS(xrng_test::parse_golden("op=fill dist=nope dtype=u32 count=0 out="));
}
