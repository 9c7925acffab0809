// Host dispatch: validation, backend choice, and thread splitting. The
// arithmetic lives in rng/ (scalar) and host/simd/ (vector instances of the
// same templates, compiled per ISA by host/simd_*.cpp); nothing here changes a
// value. Every backend is a loop over the registry's rows (visit_row).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

#include "simd/params_api.h"
#include "simd/probe.h"
#include "parallel.h"
#include "xrng.h"

namespace xrng {
namespace {

// The vector backends of this build (host/CMakeLists.txt defines XRNG_HAVE_<ISA>
// for each ISA it compiles), worst first: each needs the CPU features of the
// ones before it.
#if defined(__x86_64__) || defined(__i386__)
bool cpu_has_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
}
bool cpu_has_avx512() {
  return cpu_has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
}
#endif
#if defined(XRNG_HAVE_NEON)
bool cpu_has_neon() { return true; }  // Advanced SIMD is part of the AArch64 base ISA
#endif

const std::vector<detail::SimdBackend> kBackends = {
#if defined(XRNG_HAVE_AVX2)
    {"avx2", detail::fill_avx2, detail::perm_avx2, detail::probe_avx2, cpu_has_avx2, detail::params_avx2},
#endif
#if defined(XRNG_HAVE_AVX512)
    {"avx512", detail::fill_avx512, detail::perm_avx512, detail::probe_avx512, cpu_has_avx512, detail::params_avx512},
#endif
#if defined(XRNG_HAVE_NEON)
    {"neon", detail::fill_neon, detail::perm_neon, detail::probe_neon, cpu_has_neon, detail::params_neon},
#endif
};

// The ISA: 0 for none (the scalar path), i + 1 for kBackends[i].
using Isa = int;
constexpr Isa kNone = 0;

Isa detect_isa() {
  Isa best = kNone;
  for (size_t i = 0; i < kBackends.size() && kBackends[i].cpu_has(); ++i) best = static_cast<Isa>(i + 1);
  return best;
}

const Isa kDetected = detect_isa();
std::atomic<int> g_isa{kDetected};

Isa current_isa() { return g_isa.load(std::memory_order_relaxed); }

// The ISA's vector backend tried first, then those below it (all run the
// same kernels: a row without a kernel in one has none in the others).
bool simd_fill(Isa isa, const Plan& plan, const Stream& s, uint64_t offset, uint64_t start, uint64_t count,
               void* out) {
  for (Isa i = isa; i > kNone; --i)
    if (kBackends[static_cast<size_t>(i - 1)].fill(plan, s, offset, start, count, out)) return true;
  return false;
}
bool simd_perm(Isa isa, const PermKey& k, uint64_t start, uint64_t count, DType t, void* out) {
  for (Isa i = isa; i > kNone; --i)
    if (kBackends[static_cast<size_t>(i - 1)].perm(k, start, count, t, out)) return true;
  return false;
}

// Element counts per thread chunk are multiples of this, so chunks start on
// group and Philox-block boundaries whatever the distribution.
constexpr uint64_t kChunkAlign = 1024;
template <class Body>
void parallel_ranges(uint64_t count, int threads, Body body) {
  detail::parallel_ranges(count, threads, kChunkAlign, body);
}

Isa backend_isa(Backend b) {
  if (b == Backend::scalar) return kNone;
  if (b == Backend::simd && current_isa() == kNone)
    throw Error(kBackends.empty() ? "backend cpu-simd: this build has no vector backend for its architecture (the "
                                    "scalar path is its only backend)"
                                  : "backend cpu-simd: this CPU has no " + std::string(kBackends[0].name) +
                                        " (the scalar path is its only backend)");
  return current_isa();
}

}  // namespace

namespace detail {
// The tensor-parameter draws' vector forms (host/simd/params.h) on the
// backend's ISA: false when the backend is scalar or the ISA has none (the
// caller then runs the scalar element functions: the same values).
bool simd_params(Backend b, ParamDraw which, const double* a, const double* p, uint64_t n, const Stream& s,
                 uint64_t word0, double* y, uint8_t* done) {
  for (Isa i = backend_isa(b); i > kNone; --i)
    if (kBackends[static_cast<size_t>(i - 1)].params(which, a, p, n, s, word0, y, done)) return true;
  return false;
}
}  // namespace detail

namespace {
char* at(void* out, uint64_t i, DType t) { return static_cast<char*>(out) + i * static_cast<uint64_t>(dtype_size(t)); }

void require_buffer(const void* p, uint64_t count, const char* what) {
  if (count != 0 && p == nullptr) throw Error(std::string(what) + ": null buffer");
}

// Words [first, first + n) of stream s into w (first + n <= 2^64), from the
// vector Philox of `isa` (the bits u32 kernel), or the scalar engine.
void stream_words_into(Isa isa, const Stream& s, uint64_t first, uint64_t n, uint32_t* w) {
  static const Plan bits = make_plan(Dist::bits, DType::u32, DrawParams{});
  if (!simd_fill(isa, bits, s, first, 0, n, w)) detail::fill_scalar(bits, s, first, 0, n, w);
}

// Elements [start, start + count) of element row R, count >= 1: the row's
// scalar element function (rng/detail/rows.h) on words from
// stream_words_into, a tile of groups at a time. This is how a SIMD backend
// evaluates a row that has no vector kernel (host/simd/kernels.h, Kernel's
// primary template): the same element function as the reference, so the same
// values, with the Philox words computed in vectors (the reference computes a
// whole block for every group). The element function runs here, in baseline
// code, never in the AVX-compiled objects (see host/simd/isa.h).
template <class R>
void fill_from_words(Isa isa, const Plan& plan, const Stream& s, uint64_t offset, uint64_t start, uint64_t count,
                     typename R::out_t* out) {
  constexpr uint64_t G = R::kGroup, K = R::kWords;
  constexpr uint64_t kTileGroups = 512;
  uint32_t w[kTileGroups * K];
  typename R::out_t v[kTileGroups * G];
  const uint64_t last = start + (count - 1);  // inclusive: start + count may be 2^64
  const uint64_t g_last = last / G;
  for (uint64_t g = start / G;;) {
    const uint64_t n = std::min(kTileGroups - 1, g_last - g) + 1;
    // check_counters: every word of the draw, up to offset + K * (g_last + 1) - 1, is below 2^64
    stream_words_into(isa, s, offset + K * g, n * K, w);
    for (uint64_t j = 0; j < n; ++j) R::eval(w + j * K, plan, v + j * G);
    // the tile's elements [g*G, (g+n)*G - 1] within [start, last]; (g+n)*G
    // may be 2^64, so the end is formed modulo 2^64 (minus 1: 2^64 - 1)
    const uint64_t e0 = std::max(g * G, start), e1 = std::min((g + n) * G - 1, last);
    std::memcpy(out + (e0 - start), v + (e0 - g * G), (e1 - e0 + 1) * sizeof(v[0]));
    if (g + (n - 1) == g_last) break;  // not a loop condition: g_last may be 2^64 - 1
    g += n;
  }
}

// Elements [start, start + count) of an element draw on one thread: the
// row's vector kernel where the ISA has one, else the row's element function
// on vector words; the scalar reference when isa is none.
void fill_range(Isa isa, const Plan& plan, const Stream& s, uint64_t offset, uint64_t start, uint64_t count,
                void* out) {
  if (count == 0) return;
  if (isa == kNone) return detail::fill_scalar(plan, s, offset, start, count, out);
  if (simd_fill(isa, plan, s, offset, start, count, out)) return;
  visit_row(plan, [&]<class R>() {
    if constexpr (R::kind == Kind::element)
      fill_from_words<R>(isa, plan, s, offset, start, count, static_cast<typename R::out_t*>(out));
  });
}

// Calls body.template operator()<R>() with the plan's permutation row.
template <class Body>
void with_perm_row(const Plan& plan, Body&& body) {
  visit_row(plan, [&]<class R>() {
    if constexpr (R::kind == Kind::permutation) body.template operator()<R>();
  });
}

}  // namespace

const char* simd_isa() {
  const Isa i = current_isa();
  return i == kNone ? "none" : kBackends[static_cast<size_t>(i - 1)].name;
}

std::vector<std::string> simd_isas() {
  std::vector<std::string> v = {"none"};
  for (Isa i = 1; i <= kDetected; ++i) v.push_back(kBackends[static_cast<size_t>(i - 1)].name);
  return v;
}

bool set_simd_isa(const std::string& name) {
  for (Isa i = kNone; i <= kDetected; ++i)
    if (name == (i == kNone ? "none" : kBackends[static_cast<size_t>(i - 1)].name)) {
      g_isa.store(i);
      return true;
    }
  return false;
}

namespace detail {
const std::vector<SimdBackend>& simd_backends() { return kBackends; }
}  // namespace detail

namespace detail {
void fill_scalar(const Plan& plan, const Stream& s, uint64_t offset, uint64_t start, uint64_t count, void* out) {
  visit_row(plan, [&]<class R>() {
    if constexpr (R::kind == Kind::element) {
      reference_fill<R>(plan, s, offset, start, count, static_cast<typename R::out_t*>(out));
    } else if constexpr (R::kind == Kind::permutation) {
      reference_perm<R>(perm_key(s, offset, plan.n), start, count, static_cast<typename R::out_t*>(out));
    } else {
      throw Error(std::string(dist_name(R::dist)) + " transforms an input: use xrng::transform");
    }
  });
}
}  // namespace detail

void fill(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, void* out,
          const FillOptions& opt) {
  check_threads(opt.threads);
  if (plan.kind == Kind::transform)
    throw Error(std::string(dist_name(plan.dist)) + " transforms an input: use xrng::transform (xrng::dropout)");
  check_counters(plan, offset, start, count);
  require_buffer(out, count, "fill");
  if (count == 0) return;
  const Isa isa = backend_isa(opt.backend);
  const Stream s = key.stream();
  if (plan.kind == Kind::permutation) {
    const PermKey k = perm_key(s, offset, plan.n);
    parallel_ranges(count, opt.threads, [&](uint64_t b, uint64_t e) {
      void* o = at(out, b, plan.dtype);
      const bool done = simd_perm(isa, k, start + b, e - b, plan.dtype, o);
      if (!done) with_perm_row(plan, [&]<class R>() {
        reference_perm<R>(k, start + b, e - b, static_cast<typename R::out_t*>(o));
      });
    });
    return;
  }
  parallel_ranges(count, opt.threads, [&](uint64_t b, uint64_t e) {
    fill_range(isa, plan, s, offset, start + b, e - b, at(out, b, plan.dtype));
  });
}

void transform(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, const void* in,
               void* out, const FillOptions& opt) {
  check_threads(opt.threads);
  if (plan.kind != Kind::transform)
    throw Error(std::string("transform: ") + dist_name(plan.dist) + " draws no input transform (use xrng::fill)");
  check_counters(plan, offset, start, count);
  require_buffer(in, count, "transform input");
  require_buffer(out, count, "transform output");
  if (count == 0) return;
  const Isa isa = backend_isa(opt.backend);
  const Stream s = key.stream();
  // Transforms are memory bound: the words come from the SIMD bits kernel
  // when available, the element function is a plain loop over them.
  visit_row(plan, [&]<class R>() {
    if constexpr (R::kind == Kind::transform) {
      static_assert(R::kGroup == 1 && R::kWords == 1, "a transform consumes one word per element");
      using T = typename R::out_t;
      parallel_ranges(count, opt.threads, [&](uint64_t b, uint64_t e) {
        constexpr uint64_t kTile = 4096;
        uint32_t w[kTile];
        const T* x = static_cast<const T*>(in) + b;
        T* y = static_cast<T*>(out) + b;
        for (uint64_t t = b; t < e; t += kTile) {
          const uint64_t m = std::min(kTile, e - t);
          stream_words_into(isa, s, offset + (start + t), m, w);
          for (uint64_t i = 0; i < m; ++i) y[t - b + i] = R::eval(&w[i], x[t - b + i], plan);
        }
      });
    }
  });
}

void dropout(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, const void* in,
             void* out, const FillOptions& opt) {
  if (plan.dist != Dist::dropout) throw Error("dropout: the plan must be made with Dist::dropout");
  transform(plan, key, offset, start, count, in, out, opt);
}

void perm_shard(const Plan& plan, const Key& key, uint64_t offset, uint64_t rank, uint64_t world, uint64_t start,
                uint64_t count, void* out, const FillOptions& opt) {
  check_threads(opt.threads);
  if (plan.kind != Kind::permutation) throw Error("perm_shard: the plan must be a permutation");
  if (world == 0 || rank >= world)
    throw Error("perm_shard: need 0 <= rank < world (got rank " + std::to_string(rank) + ", world " +
                std::to_string(world) + ")");
  check_counters(plan, offset, 0, 0);
  require_buffer(out, count, "perm_shard");
  if (count == 0) return;
  backend_isa(opt.backend);
  const PermKey k = perm_key(key.stream(), offset, plan.n);
  with_perm_row(plan, [&]<class R>() {
    auto* o = static_cast<typename R::out_t*>(out);
    parallel_ranges(count, opt.threads, [&](uint64_t b, uint64_t e) {
      R::shard(k, rank, world, start + b, e - b, o + b);
    });
  });
}

void perm_inverse(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, void* out,
                  const FillOptions& opt) {
  check_threads(opt.threads);
  if (plan.kind != Kind::permutation) throw Error("perm_inverse: the plan must be a permutation");
  check_counters(plan, offset, start, count);
  require_buffer(out, count, "perm_inverse");
  if (count == 0) return;
  backend_isa(opt.backend);
  const PermKey k = perm_key(key.stream(), offset, plan.n);
  with_perm_row(plan, [&]<class R>() {
    auto* o = static_cast<typename R::out_t*>(out);
    parallel_ranges(count, opt.threads, [&](uint64_t b, uint64_t e) {
      for (uint64_t i = b; i < e; ++i) o[i] = R::position(k, start + i);
    });
  });
}

// ---- typed conveniences ----------------------------------------------------------------
namespace {
void typed(Dist d, DType t, const DrawParams& q, const Key& key, uint64_t offset, void* out, uint64_t n,
           const FillOptions& opt, int stream) {
  fill(make_plan(d, t, q, stream), key, offset, 0, n, out, opt);
}
}  // namespace

void bits(const Key& k, uint64_t o, uint32_t* out, size_t n, const FillOptions& opt, int stream) {
  typed(Dist::bits, DType::u32, {}, k, o, out, n, opt, stream);
}
void bits(const Key& k, uint64_t o, uint64_t* out, size_t n, const FillOptions& opt, int stream) {
  typed(Dist::bits, DType::u64, {}, k, o, out, n, opt, stream);
}
void uniform(const Key& k, uint64_t o, float* out, size_t n, double lo, double hi, const FillOptions& opt, int stream) {
  typed(Dist::uniform, DType::f32, DrawParams::range(lo, hi), k, o, out, n, opt, stream);
}
void uniform(const Key& k, uint64_t o, double* out, size_t n, double lo, double hi,
             const FillOptions& opt, int stream) {
  typed(Dist::uniform, DType::f64, DrawParams::range(lo, hi), k, o, out, n, opt, stream);
}
void normal(const Key& k, uint64_t o, float* out, size_t n, double mean, double std,
            const FillOptions& opt, int stream) {
  typed(Dist::normal, DType::f32, DrawParams::moments(mean, std), k, o, out, n, opt, stream);
}
void normal(const Key& k, uint64_t o, double* out, size_t n, double mean, double std,
            const FillOptions& opt, int stream) {
  typed(Dist::normal, DType::f64, DrawParams::moments(mean, std), k, o, out, n, opt, stream);
}
void bernoulli(const Key& k, uint64_t o, uint8_t* out, size_t n, double p, const FillOptions& opt, int stream) {
  typed(Dist::bernoulli, DType::u8, DrawParams::probability(p), k, o, out, n, opt, stream);
}
void randint(const Key& k, uint64_t o, int32_t* out, size_t n, int64_t lo, int64_t hi,
             const FillOptions& opt, int stream) {
  typed(Dist::randint, DType::i32, DrawParams::int_range(lo, hi), k, o, out, n, opt, stream);
}
void randint(const Key& k, uint64_t o, int64_t* out, size_t n, int64_t lo, int64_t hi,
             const FillOptions& opt, int stream) {
  typed(Dist::randint, DType::i64, DrawParams::int_range(lo, hi), k, o, out, n, opt, stream);
}
void randperm(const Key& k, uint64_t o, int64_t* out, uint64_t n, const FillOptions& opt, int stream) {
  typed(Dist::perm, DType::i64, DrawParams::perm_size(n), k, o, out, n, opt, stream);
}
std::vector<int64_t> randperm(const Key& k, uint64_t o, uint64_t n, const FillOptions& opt, int stream) {
  make_plan(Dist::perm, DType::i64, DrawParams::perm_size(n), stream);  // validate n and stream before allocating
  std::vector<int64_t> v;
  try {
    if (n > v.max_size()) throw std::bad_alloc();
    v.resize(n);
  } catch (const std::bad_alloc&) {
    throw Error("randperm: n = " + std::to_string(n) +
                " is too large to materialise; use perm_element or a slice (xrng::fill with start/count)");
  }
  randperm(k, o, v.data(), n, opt, stream);
  return v;
}
uint64_t perm_element(const Key& k, uint64_t o, uint64_t n, uint64_t i) {
  const Plan p = make_plan(Dist::perm, DType::u64, DrawParams::perm_size(n));
  check_counters(p, o, 0, 0);
  if (i >= n) throw Error("perm_element: index " + std::to_string(i) + " >= n = " + std::to_string(n));
  return perm_at(perm_key(k.stream(), o, n), i);
}
uint64_t perm_position(const Key& k, uint64_t o, uint64_t n, uint64_t v) {
  const Plan p = make_plan(Dist::perm, DType::u64, DrawParams::perm_size(n));
  check_counters(p, o, 0, 0);
  if (v >= n) throw Error("perm_position: value " + std::to_string(v) + " >= n = " + std::to_string(n));
  return perm_inverse(perm_key(k.stream(), o, n), v);
}

// ---- Generator ---------------------------------------------------------------------------
namespace {
void check_generator_stream(const Plan& plan, int stream, const char* what) {
  if (plan.stream != stream)
    throw Error(std::string(what) + ": the plan is of stream v" + std::to_string(plan.stream) +
                ", the generator draws stream v" + std::to_string(stream) +
                " (build the plan with gen.plan(...) or make_plan(..., gen.stream()))");
}
}  // namespace

Generator::Range Generator::reserve(const Plan& plan, uint64_t count, const char* what) {
  std::lock_guard<std::mutex> lock(mu_);
  check_generator_stream(plan, stream_, what);
  const uint64_t used = check_counters(plan, offset_, 0, plan.kind == Kind::permutation ? plan.n : count);
  if (used > ~offset_) throw Error("generator exhausted: the draw would wrap the 64-bit word offset");
  const Range r{key_, offset_, used};
  offset_ += used;
  return r;
}
Generator::Range Generator::reserve_words(uint64_t words) {
  std::lock_guard<std::mutex> lock(mu_);
  if (words > ~offset_) throw Error("generator exhausted: the draw would wrap the 64-bit word offset");
  const Range r{key_, offset_, words};
  offset_ += words;
  return r;
}
bool Generator::release(const Range& r) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!(key_ == r.key) || offset_ != r.offset + r.words) return false;
  offset_ = r.offset;
  return true;
}
void Generator::draw(const Plan& plan, uint64_t count, void* out, const FillOptions& opt) {
  const Range r = reserve(plan, count, "Generator.draw");
  try {
    fill(plan, r.key, r.offset, 0, count, out, opt);
  } catch (...) {
    release(r);  // fill checks before writing: nothing was written
    throw;
  }
}
void Generator::skip(const Plan& plan, uint64_t count) { reserve(plan, count, "Generator.skip"); }
void Generator::normal(float* out, size_t n, double mean, double std, const FillOptions& opt) {
  draw(plan(Dist::normal, DType::f32, DrawParams::moments(mean, std)), n, out, opt);
}
void Generator::uniform(float* out, size_t n, double low, double high, const FillOptions& opt) {
  draw(plan(Dist::uniform, DType::f32, DrawParams::range(low, high)), n, out, opt);
}

// ---- Generator state ----------------------------------------------------------------------
namespace {
constexpr char kStateMagic[4] = {'X', 'R', 'N', 'G'};
void put_le(uint8_t* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t get_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}
}  // namespace

std::array<uint8_t, Generator::kStateBytes> Generator::save_state() const {
  const State s = snapshot();
  std::array<uint8_t, kStateBytes> b{};
  std::memcpy(b.data(), kStateMagic, 4);
  put_le(b.data() + 4, static_cast<uint32_t>(s.stream), 4);
  put_le(b.data() + 8, s.key.seed, 8);
  put_le(b.data() + 16, s.key.subseq, 8);
  put_le(b.data() + 24, s.offset, 8);
  return b;
}

Generator Generator::load_state(const void* bytes, size_t n) {
  const uint8_t* b = static_cast<const uint8_t*>(bytes);
  if (n != kStateBytes || b == nullptr || std::memcmp(b, kStateMagic, 4) != 0)
    throw Error("Generator state: not an xrng generator state (expected " + std::to_string(kStateBytes) +
                " bytes starting with 'XRNG', got " + std::to_string(n) + " bytes)");
  const uint64_t v = get_le(b + 4, 4);
  if (v < static_cast<uint64_t>(kOldestStreamVersion) || v > static_cast<uint64_t>(kStreamVersion))
    throw Error("Generator state: the state is of stream version " + std::to_string(v) +
                ", which this library does not produce (versions " + std::to_string(kOldestStreamVersion) + ".." +
                std::to_string(kStreamVersion) + ")");
  return Generator(Key(get_le(b + 8, 8), get_le(b + 16, 8)), get_le(b + 24, 8)).with_stream(static_cast<int>(v));
}

}  // namespace xrng
