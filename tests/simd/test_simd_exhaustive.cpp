// Every one of the 2^32 words through each per-word transform of a vector
// backend (the run's --backend, backends.h), compared bit for bit with the
// scalar reference: the Box-Muller radius and sincos_turns at 32 bits (the two
// halves of every f32/f16/bf16 normal), the uniform f32/f16/bf16 element
// functions (with parameters that take the exact fast path, the general path,
// and the round-to-high correction), the exponential and Cauchy f32 element
// functions (with each sample parameter set of golden/sample_params.h), and
// f32 -> f16 (F16C) / f32 -> bf16 rounding of all 2^32 float bit patterns
// (NaNs, infinities and subnormals included). Stream v2 (binary32,
// math32.h): the radius and sincos of the normal, e^x of all 2^32 float bit
// patterns (log_normal), and the Cauchy f32 row's kernel (Kernel<..., 2>)
// with its second sample parameter set (tan is the same for every parameter
// set; the affine step is covered by test_simd_fill on every sample set).
// The exponential's ln u is the radius's math32::log_unit_word (swept here
// through the radius: the whole revised ln u of SPEC.md 9.2, from the word)
// followed by one product; its row kernel, and the log_normal's pair path,
// are compared with the scalar reference by test_simd_fill. (CI time: each 2^32 sweep
// costs a scalar evaluation per word.)
//
// Label "exhaustive": runs on two threads. The transforms are frozen once
// their stream version is (test_golden pins their values), so by default the
// sweep takes a fixed sample: the first and last 8 chunks of 2^16 words (the
// extremes of u) and one chunk in 32 of the rest, spread by a multiplicative
// hash (2^27 words per transform, about a minute in all on 2 cores).
// XRNG_EXHAUSTIVE_FULL=1 in the environment sweeps every word (about 13
// minutes per ISA on 2 cores): due whenever a transform or a kernel changes.
//
// XRNG_SWEEP_STRIDE=S (S >= 1) sweeps the strided sample of the words instead:
// w = k * S for k = 0, 1, ..., floor((2^32 - 1) / S) (S = 1: all of them).
// The ctest test test_simd_sampled_<isa> (label unit) runs it with S = 4099, a
// prime, so the sample's low bits take every value and the words reach both
// ends of the range (1,047,809 words per transform); scripts/test_arm64.sh
// runs it under qemu-aarch64.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include "backends.h"
#include "golden/sample_params.h"
#include "rng/detail/distributions_v2.h"

using namespace xrng;
using detail::Probe;

namespace {

struct Transform {
  std::string name;
  Probe probe;
  Plan plan;
  size_t out_bytes;  // bytes written per word
  std::function<void(const Plan&, const uint32_t*, size_t, unsigned char*)> scalar;
};

Plan uniform_plan(DType t, double lo, double hi) {
  DrawParams q;
  q.low = lo;
  q.high = hi;
  return make_plan(Dist::uniform, t, q);
}

std::vector<Transform> transforms() {
  std::vector<Transform> v;
  v.push_back({"box_muller_radius<32>", Probe::radius32, Plan{}, 8,
               [](const Plan&, const uint32_t* w, size_t n, unsigned char* o) {
                 for (size_t i = 0; i < n; ++i) {
                   const double r = math::box_muller_radius<32, double, uint64_t>(w[i]);
                   std::memcpy(o + 8 * i, &r, 8);
                 }
               }});
  v.push_back({"sincos_turns<32>", Probe::sincos32, Plan{}, 16,
               [](const Plan&, const uint32_t* w, size_t n, unsigned char* o) {
                 for (size_t i = 0; i < n; ++i) {
                   double cs[2];
                   math::sincos_turns<32, double, uint64_t>(w[i], &cs[0], &cs[1]);
                   std::memcpy(o + 16 * i, cs, 16);
                 }
               }});
  const std::pair<double, double> ranges[] = {{0.0, 1.0}, {-3.0, 7.5}, {1.0, 1.0078125}};
  for (auto [lo, hi] : ranges) {
    char rb[64];
    std::snprintf(rb, sizeof rb, "[%g,%g)", lo, hi);  // (snprintf: GCC 12 -Wrestrict false positive on string +)
    const std::string r = rb;
    v.push_back({"uniform_f32 " + r, Probe::uniform_f32, uniform_plan(DType::f32, lo, hi), 4,
                 [](const Plan& p, const uint32_t* w, size_t n, unsigned char* o) {
                   for (size_t i = 0; i < n; ++i) {
                     const float x = dist::uniform_f32(w[i], p.uniform);
                     std::memcpy(o + 4 * i, &x, 4);
                   }
                 }});
    v.push_back({"uniform_f16 " + r, Probe::uniform_f16, uniform_plan(DType::f16, lo, hi), 2,
                 [](const Plan& p, const uint32_t* w, size_t n, unsigned char* o) {
                   for (size_t i = 0; i < n; ++i) {
                     const uint16_t x = dist::uniform_f16(w[i], p.uniform);
                     std::memcpy(o + 2 * i, &x, 2);
                   }
                 }});
    v.push_back({"uniform_bf16 " + r, Probe::uniform_bf16, uniform_plan(DType::bf16, lo, hi), 2,
                 [](const Plan& p, const uint32_t* w, size_t n, unsigned char* o) {
                   for (size_t i = 0; i < n; ++i) {
                     const uint16_t x = dist::uniform_bf16(w[i], p.uniform);
                     std::memcpy(o + 2 * i, &x, 2);
                   }
                 }});
  }
  for (const DrawParams& q : golden::sample_params(Dist::exponential)) {
    char name[64];
    std::snprintf(name, sizeof name, "exponential_f32 rate=%g", q.rate);
    v.push_back({name, Probe::exponential_f32, make_plan(Dist::exponential, DType::f32, q), 4,
                 [](const Plan& p, const uint32_t* w, size_t n, unsigned char* o) {
                   for (size_t i = 0; i < n; ++i) {
                     const float x = dist::exponential_f32(w[i], p.exponential);
                     std::memcpy(o + 4 * i, &x, 4);
                   }
                 }});
  }
  for (const DrawParams& q : golden::sample_params(Dist::cauchy)) {
    char name[64];
    std::snprintf(name, sizeof name, "cauchy_f32 median=%g sigma=%g", q.median, q.sigma);
    v.push_back({name, Probe::cauchy_f32, make_plan(Dist::cauchy, DType::f32, q), 4,
                 [](const Plan& p, const uint32_t* w, size_t n, unsigned char* o) {
                   for (size_t i = 0; i < n; ++i) {
                     const float x = dist::cauchy_f32(w[i], p.cauchy);
                     std::memcpy(o + 4 * i, &x, 4);
                   }
                 }});
  }
  // ---- stream v2 ----
  v.push_back({"v2 math32::radius", Probe::v2_radius, Plan{}, 4,
               [](const Plan&, const uint32_t* w, size_t n, unsigned char* o) {
                 for (size_t i = 0; i < n; ++i) {
                   const float r = math32::radius<float, uint32_t>(w[i]);
                   std::memcpy(o + 4 * i, &r, 4);
                 }
               }});
  v.push_back({"v2 math32::sincos_turns", Probe::v2_sincos, Plan{}, 8,
               [](const Plan&, const uint32_t* w, size_t n, unsigned char* o) {
                 for (size_t i = 0; i < n; ++i) {
                   float cs[2];
                   math32::sincos_turns<float, uint32_t>(w[i], &cs[0], &cs[1]);
                   std::memcpy(o + 8 * i, cs, 8);
                 }
               }});
  v.push_back({"v2 math32::exp_ (all float bit patterns)", Probe::v2_exp, Plan{}, 4,
               [](const Plan&, const uint32_t* w, size_t n, unsigned char* o) {
                 for (size_t i = 0; i < n; ++i) {
                   const float y = math32::exp_<float, uint32_t>(math::as_f32(w[i]));
                   std::memcpy(o + 4 * i, &y, 4);
                 }
               }});
  {
    const DrawParams q = golden::sample_params(Dist::cauchy).back();
    char name[64];
    std::snprintf(name, sizeof name, "v2 cauchy_f32 median=%g sigma=%g", q.median, q.sigma);
    v.push_back({name, Probe::v2_cauchy_f32, make_plan(Dist::cauchy, DType::f32, q), 4,
                 [](const Plan& p, const uint32_t* w, size_t n, unsigned char* o) {
                   for (size_t i = 0; i < n; ++i) {
                     const float x = dist::v2::cauchy_f32(w[i], p.cauchy);
                     std::memcpy(o + 4 * i, &x, 4);
                   }
                 }});
  }
  v.push_back({"f32_to_f16_bits (F16C)", Probe::f32_to_f16, Plan{}, 2,
               [](const Plan&, const uint32_t* w, size_t n, unsigned char* o) {
                 for (size_t i = 0; i < n; ++i) {
                   const uint16_t x = math::f32_to_f16_bits(math::as_f32(w[i]));
                   std::memcpy(o + 2 * i, &x, 2);
                 }
               }});
  v.push_back({"f32_to_bf16_bits", Probe::f32_to_bf16, Plan{}, 2,
               [](const Plan&, const uint32_t* w, size_t n, unsigned char* o) {
                 for (size_t i = 0; i < n; ++i) {
                   const uint16_t x = math::f32_to_bf16_bits(math::as_f32(w[i]));
                   std::memcpy(o + 2 * i, &x, 2);
                 }
               }});
  return v;
}

struct Sweep {
  uint64_t mismatches = 0;
  uint64_t first = 0;  // first mismatching word
  uint64_t words = 0;  // words compared
};

// The mode of the sweep. XRNG_SWEEP_STRIDE=S: the words k * S; else every
// word (XRNG_EXHAUSTIVE_FULL=1) or the fixed sample of chunks.
bool full_sweep() {
  const char* e = std::getenv("XRNG_EXHAUSTIVE_FULL");
  return e != nullptr && e[0] != '\0' && e[0] != '0';
}
// XRNG_SWEEP_STRIDE, or 0 when unset.
uint64_t sweep_stride() {
  const char* v = std::getenv("XRNG_SWEEP_STRIDE");
  if (v == nullptr || *v == '\0') return 0;
  const unsigned long long s = std::strtoull(v, nullptr, 10);
  REQUIRE_MESSAGE(s >= 1, "XRNG_SWEEP_STRIDE must be a positive integer");
  return s;
}
// Number of words in the sweep of stride s: k * s for k <= (2^32 - 1) / s.
uint64_t sweep_words(uint64_t s) { return ((uint64_t{1} << 32) - 1) / s + 1; }

constexpr uint64_t kChunk = 1u << 16;
constexpr uint64_t kChunks = (uint64_t{1} << 32) / kChunk;

// Whether the sampled sweep takes chunk k (of kChunks).
bool sampled(uint64_t k) {
  if (k < 8 || k >= kChunks - 8) return true;
  return ((k * 0x9E3779B1u) & 0xffffffffu) >> 27 == 0;  // 1 in 32, spread over the range
}

// The words k * stride for k < sweep_words(stride) (stride 1: all 2^32 words;
// unless `full`, only the sampled chunks of k), two threads, chunks of 2^16
// (odd chunk sizes also hit the probes' partial-vector tails: the last chunk
// of each thread is 2^16 - 3).
Sweep sweep(xrng_test::ProbeFn probe, const Transform& t, bool full, uint64_t stride) {
  constexpr unsigned kThreads = 2;
  std::atomic<uint64_t> mismatches{0}, first{~uint64_t{0}}, words{0};
  auto worker = [&](uint64_t begin, uint64_t end) {
    std::vector<uint32_t> in(kChunk);
    std::vector<unsigned char> ref(kChunk * t.out_bytes), got(kChunk * t.out_bytes);
    for (uint64_t c = begin; c < end; c += kChunk) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, end - c));
      // a chunk straddles two sample units (the thread split is unaligned): its first word's unit decides
      if (!full && !sampled(c / kChunk)) continue;
      for (size_t i = 0; i < n; ++i) in[i] = static_cast<uint32_t>((c + i) * stride);
      t.scalar(t.plan, in.data(), n, ref.data());
      if (!probe(t.probe, t.plan, in.data(), n, got.data())) {
        mismatches += n;
        return;
      }
      words += n;
      if (std::memcmp(ref.data(), got.data(), n * t.out_bytes) != 0) {
        for (size_t i = 0; i < n; ++i)
          if (std::memcmp(ref.data() + i * t.out_bytes, got.data() + i * t.out_bytes, t.out_bytes) != 0) {
            ++mismatches;
            uint64_t f = first.load();
            const uint64_t word = (c + i) * stride;
            while (word < f && !first.compare_exchange_weak(f, word)) {
            }
          }
      }
    }
  };
  const uint64_t total = sweep_words(stride), per = total / kThreads;
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < kThreads; ++i) {
    // the split point is not a multiple of the vector width: partial tails
    const uint64_t b = i == 0 ? 0 : per * i - 3, e = i + 1 == kThreads ? total : per * (i + 1) - 3;
    pool.emplace_back(worker, b, e);
  }
  for (auto& th : pool) th.join();
  return Sweep{mismatches.load(), first.load(), words.load()};
}

}  // namespace

TEST_CASE("exhaustive: the 2^32 words (all, the fixed sample, or a strided one) through each per-word transform, SIMD == scalar") {
  const xrng_test::HostBackend& b = xrng_test::backend();
  const bool simd = b.probe != nullptr;
  REQUIRE_MESSAGE(simd, "the exhaustive test compares a SIMD backend with the scalar reference");
  // XRNG_EXHAUSTIVE_ONLY=substring: only the transforms whose name contains it (local runs).
  const char* only = std::getenv("XRNG_EXHAUSTIVE_ONLY");
  const uint64_t stride = sweep_stride();
  const bool full = full_sweep() || stride != 0;  // a strided sweep takes all of its words
  uint64_t expected = 0;  // words the sampled sweep must cover: its chunks, counted independently
  for (uint64_t k = 0; k < kChunks; ++k) expected += sampled(k) ? kChunk : 0;
  for (const Transform& t : transforms()) {
    if (only != nullptr && t.name.find(only) == std::string::npos) continue;
    const Sweep s = sweep(b.probe, t, full, stride == 0 ? 1 : stride);
    CAPTURE(t.name);
    if (full) {
      CHECK(s.words == sweep_words(stride == 0 ? 1 : stride));
    } else {
      // the two threads' unaligned starts shift chunk boundaries by 3 words
      CHECK(s.words + 2 * kChunk >= expected);
      CHECK(s.words <= expected + 2 * kChunk);
    }
    CHECK_MESSAGE(s.mismatches == 0, s.mismatches << " mismatching words, first " << s.first);
    const std::string mode = stride != 0 ? "stride " + std::to_string(stride) : full ? "all" : "fixed sample";
    MESSAGE(std::string(b.name) << " " << t.name << ": " << s.words << " words (" << mode << "), " << s.mismatches
                                << " mismatches");
  }
}

TEST_CASE("the words where an angle's reduction wraps (4b mod 2^32 rounds to 2^31 in binary32), SIMD == scalar") {
  // The vector angle reductions take r - trunc(float(r)) of r = 4b mod 2^32
  // as an int32 (host/simd/kernels.h); for r in [2^31 - 64, 2^31) float(r)
  // is 2^31, out of int32's range, and the difference wraps (isa.h's
  // sub_wrap). 128 words around each of the four such windows, and around
  // 0 and 2^32 - 1, through every transform: the sampled sweeps above need
  // not reach them, and the sanitizer build (label unit) runs this.
  const xrng_test::HostBackend& b = xrng_test::backend();
  const bool simd = b.probe != nullptr;
  REQUIRE(simd);
  std::vector<uint32_t> in;
  for (uint64_t k = 0; k < 4; ++k)
    for (int d = -64; d < 64; ++d) in.push_back(static_cast<uint32_t>((k << 30) + (uint64_t{1} << 29) + d));
  for (int d = 0; d < 64; ++d) {
    in.push_back(static_cast<uint32_t>(d));
    in.push_back(static_cast<uint32_t>(~uint32_t{0} - d));
  }
  for (const Transform& t : transforms()) {
    CAPTURE(t.name);
    std::vector<unsigned char> ref(in.size() * t.out_bytes), got(in.size() * t.out_bytes);
    t.scalar(t.plan, in.data(), in.size(), ref.data());
    REQUIRE(b.probe(t.probe, t.plan, in.data(), in.size(), got.data()));
    size_t bad = 0;
    for (size_t i = 0; i < in.size(); ++i)
      bad += std::memcmp(ref.data() + i * t.out_bytes, got.data() + i * t.out_bytes, t.out_bytes) != 0;
    CHECK_MESSAGE(bad == 0, bad << " of " << in.size() << " words differ");
  }
}
