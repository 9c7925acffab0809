// torch's CPU generator as an xrng stream: at::mt19937 and the transforms of
// torch's CPU distribution kernels (ATen/core/DistributionsHelper.h,
// TransformationHelper.h, native/cpu/DistributionTemplates.h), reproduced bit
// for bit on any host. SPEC.md "torch CPU streams" defines them and names
// the torch version they were checked against.
//
// Unlike xrng's own streams this one is stateful by nature: torch's
// generator is a Mersenne Twister whose position is its 624-word state, and
// every draw consumes a data-dependent number of words in torch's order. A
// State is exactly torch's CPUGeneratorImpl state (to_torch_state /
// from_torch_state convert to and from torch.Generator.get_state()'s bytes).
//
// Five kernels, the builds of torch's CPU kernels: Kernel::x86 is torch's
// AVX2 build (what torch runs on every x86-64 CPU with AVX2, avx512
// included: the AVX-512 build registers no normal kernel; its normal_fill_16
// through avx_mathfun.h, its multiply-adds fused), Kernel::scalar torch's
// default build on x86-64 (x86 without AVX2 or with
// ATEN_CPU_CAPABILITY=default: NormalFill16 through glibc's logf/sinf/cosf,
// multiply-adds rounded twice; Kernel::scalar_intel the same on an Intel
// CPU, whose MKL differs, below), Kernel::arm torch's AArch64 wheels (SPEC.md
// 14.8: the scalar kernel's functions, the multiply-adds fused where x86's
// AVX2 build fuses them, no MKL, and from 2.3 on a float64 value converted
// to float16 in one rounding), and Kernel::arm_sve256 the same wheels on a
// 256-bit SVE CPU (a Graviton3: their SVE256 build), which differs from arm
// only in the float16 16-wide normal of 2.1 to 2.11, whose last step is one
// float16 fused multiply-add there (Legacy16::out). Kernel::x86_windows is
// the AVX2 build of torch's Windows wheels (SPEC.md 14.9): MSVC contracts
// nothing, so avx_mathfun.h's multiplies and adds are each rounded (only
// normal_fill_16_AVX2's explicit last fmadd stays fused), and so are
// uniform_'s, the float64 path's and cauchy_'s multiply-adds, as in the
// default build; its libm functions are glibc's here (Windows calls
// Microsoft's UCRT: unmeasured).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "rng/detail/math.h"
#include "rng/detail/torch_cpu_math.h"
#include "rng/detail/torch_cpu_math64.h"
#include "rng/detail/torch_cpu_mkl_ln64.h"

namespace xrng::torch_cpu {

enum class Kernel { x86, scalar, arm, arm_sve256, x86_windows, x86_intel, x86_intel_avx512, scalar_intel };
// Kernel::x86_intel and x86_intel_avx512 are Kernel::x86 on an Intel CPU with
// AVX2 and without AVX-512, or with AVX-512: every draw is x86's but torch
// 2.0 to 2.6's MKL bernoulli_ and exponential_ (mkl_bernoulli,
// mkl_exponential), whose uniform and logarithm Intel MKL picks by CPU
// (MklCpu). Kernel::scalar_intel is Kernel::scalar (torch's default build,
// which torch runs on a CPU without AVX2) on an Intel CPU with SSE4.2 or
// AVX and without AVX2 (Sandy Bridge, Ivy Bridge, the Pentium and Celeron
// parts without AVX2): scalar's draws but MKL's exponential_ logarithm.

// Whether kernel k is torch's AVX2 build on Linux (x86 on any x86-64 CPU).
inline bool is_x86_linux(Kernel k) {
  return k == Kernel::x86 || k == Kernel::x86_intel || k == Kernel::x86_intel_avx512;
}

// Whether kernel k is one of torch's AArch64 builds.
inline bool is_arm(Kernel k) { return k == Kernel::arm || k == Kernel::arm_sve256; }

// The kernel named "x86", "scalar", "arm", "arm-sve256", "x86-windows", "x86-intel",
// "x86-intel-avx512" or "scalar-intel" (xrng.torch_cpu's kernel=; the streams "torch-cpu-<name>") into
// `k`; false for another name. kKernelNames: those names, for errors.
inline constexpr const char* kKernelNames =
    "'x86', 'scalar', 'arm', 'arm-sve256', 'x86-windows', 'x86-intel', 'x86-intel-avx512' or 'scalar-intel'";
inline bool kernel_named(const char* name, Kernel& k) {
  if (std::strcmp(name, "x86") == 0) k = Kernel::x86;  // (the fast entries' per-call read: no string)
  else if (std::strcmp(name, "scalar") == 0) k = Kernel::scalar;
  else if (std::strcmp(name, "arm") == 0) k = Kernel::arm;
  else if (std::strcmp(name, "arm-sve256") == 0) k = Kernel::arm_sve256;
  else if (std::strcmp(name, "x86-windows") == 0) k = Kernel::x86_windows;
  else if (std::strcmp(name, "x86-intel") == 0) k = Kernel::x86_intel;
  else if (std::strcmp(name, "x86-intel-avx512") == 0) k = Kernel::x86_intel_avx512;
  else if (std::strcmp(name, "scalar-intel") == 0) k = Kernel::scalar_intel;
  else return false;
  return true;
}

// Whether kernel k fuses the multiply-adds of uniform_(from, to), the
// normals' radius c std + mean and cauchy_'s median + sigma tan: torch's
// AVX2 build on Linux (GCC contracts them) and its AArch64 builds; not its
// default build (scalar, scalar_intel), nor its Windows wheels (MSVC does not contract).
inline bool fuses(Kernel k) { return k != Kernel::scalar && k != Kernel::scalar_intel && k != Kernel::x86_windows; }

// Which torch releases' CPU draws a stream gives, where they differ (SPEC.md
// 14.7): the 16-wide normal (randn / normal_ of 16 or more contiguous
// elements), in float16 and bfloat16 the uniforms (rand, uniform_), the
// scalar-p bernoulli_ (so dropout) and randint's ranges in [2^28, 2^32).
// Every other draw is the same in all of them (SPEC.md 14.6 lists what else
// differs per release, which no Release reproduces).
// - r2_13: torch 2.13 and later (the float32 uniform, rounded; the float32
//   16-wide normal of `Kernel`, rounded; its last multiply-add fused on
//   both kernels).
// - r2_12: torch 2.12: as r2_13, but the default build (kernel scalar) does
//   not fuse the 16-wide normal's last multiply-add (float32, float64), and
//   the float16/bfloat16 16-wide normal is the scalar kernel's on both
//   kernels, with mean and std cast to the 16-bit type first (fused on x86).
// - r2_7: torch 2.7 to 2.11 (11- and 8-bit uniforms; the 16-wide normal with
//   every step rounded to the 16-bit type, glibc's logf, sinf and cosf: the
//   same on every CPU; uniform16_legacy, normal_fill16_legacy); float32 and
//   float64 as r2_12.
// - r2_3: torch 2.3 to 2.6: as r2_7, and the scalar-p bernoulli_ of the
//   x86-64 wheels (Intel MKL's MCG31 generator, MklBernoulli) and a 32-bit
//   word for every randint range below 2^32 (randint_wide).
// - r2_1: torch 2.1 and 2.2: as r2_3 but, the AArch64 kernels only, a float64 value
//   converted to float16 through float (two roundings; f16_direct).
// - r2_0: torch 2.0: as r2_1 but float16's 16-wide normal, whose logarithm,
//   sine, cosine and last two steps are float's.
// - r1_13: torch 1.13: as r2_0 but bernoulli_ as r2_13 (measured on an AMD
//   CPU; on an Intel one 1.13 takes MKL's path, r2_0's), and the float64
//   element-wise normal and exponential_ take log(1 - u) where later
//   releases take log1p(-u) (normal_f64_value, exponential_value).
// The numbers are the Python and mode interfaces' (kReleaseCount of them),
// newest first: a larger number is an older release.
enum class Release { r2_13 = 0, r2_12 = 1, r2_7 = 2, r2_3 = 3, r2_1 = 4, r2_0 = 5, r1_13 = 6 };
inline constexpr int kReleaseCount = 7;

// Whether release r is older than `than`.
inline bool older(Release r, Release than) { return static_cast<int>(r) > static_cast<int>(than); }

// Whether the 16-wide normal's last step, radius c std + mean, is one fused
// multiply-add: torch's AVX2 and AArch64 builds always, its x86-64 default
// build from 2.13 on.
inline bool fuses_normal(Kernel k, Release r) { return fuses(k) || r == Release::r2_13; }

// Whether r's float16/bfloat16 uniforms and 16-wide normal are 1.13 to 2.11's
// (uniform16_legacy, normal16_legacy).
inline bool legacy16(Release r) { return older(r, Release::r2_12); }

// Whether r's float16 16-wide normal takes its logarithm, sine, cosine and
// last two steps in float (torch 1.13 and 2.0; 2.1 to 2.11 round every step).
inline bool f16_normal_in_float(Release r) { return older(r, Release::r2_1); }

// Whether the scalar-p bernoulli_ of kernel k in release r is MKL's
// (MklBernoulli): torch 2.0 to 2.6's x86-64 wheels (their AArch64 wheels
// have no MKL).
inline bool mkl_bernoulli(Release r, Kernel k) {
  return !is_arm(k) && (r == Release::r2_3 || r == Release::r2_1 || r == Release::r2_0);
}
// Whether exponential_ of kernel k in release r is MKL's (MklExponential):
// the same wheels (1.13's exponential_ drew 14.2's values, with log(1 - u),
// on the AMD host of SPEC.md 14.6; not measured with MKL told the CPU is
// Intel's).
inline bool mkl_exponential(Release r, Kernel k) { return mkl_bernoulli(r, k); }

// Which of Intel MKL's kernel sets torch 2.0 to 2.6's MKL draws (MklBernoulli,
// MklExponential) run on kernel k's CPU: MKL picks them by CPU (its
// dispatch, read from torch's static MKL: mkl_vsl_kernel_{ex,h8,e9,l9,z0}_*):
// generic on a CPU that is not Intel's, e9 (AVX; 2.5 and 2.6's MKL has none
// and runs h8, SSE4.2, there too: the same values) on an Intel one without
// AVX2, l9 on an Intel one with AVX2 and without AVX-512, z0 on an Intel one
// with AVX-512. They differ in the float uniform (MklBernoulli::uniform_intel:
// l9 and z0), the logarithm (mkl_ln) and the exponential's last step (fused
// in l9 and z0: MklExponential::value_f32).
enum class MklCpu { generic, l9, z0, e9 };
inline MklCpu mkl_cpu_of(Kernel k) {
  return k == Kernel::x86_intel          ? MklCpu::l9
         : k == Kernel::x86_intel_avx512 ? MklCpu::z0
         : k == Kernel::scalar_intel     ? MklCpu::e9
                                         : MklCpu::generic;
}
// Whether kernel set c has FMA (l9, z0): the float uniform float(x) 2^-31 and a - ln beta one fused step.
constexpr bool mkl_fma_set(MklCpu c) { return c == MklCpu::l9 || c == MklCpu::z0; }
// Whether release r's float64 exponential_ (lambda finite) on kernel k is refused as not reproduced: MKL's
// on an Intel CPU, whose reduced-accuracy logarithm (dLn_L9EPnnn, dLn_Z0EPnnn) is not modelled (with the generic
// one, mkl_ln_f64, 86 % of float64 values differ from the l9 kernel's: SPEC.md 14.7).
inline bool mkl_exponential_f64_refused(Release r, Kernel k) {
  return mkl_exponential(r, k) && mkl_cpu_of(k) != MklCpu::generic;
}
inline constexpr const char* kMklF64Refused =
    "torch 2.0 to 2.6's float64 exponential_ on an Intel CPU (MKL's reduced-accuracy vdLn) is not reproduced";

// Whether kernel k in release r converts a float64 value (the element-wise
// draws: normal, exponential_, cauchy_, log_normal_) to float16 in one
// rounding: torch's AArch64 builds from 2.3 on (c10::Half's constructor from
// float16_t, hardware fcvt); every other build through float (two).
inline bool f16_direct(Kernel k, Release r) { return is_arm(k) && !older(r, Release::r2_3); }

// The smallest randint / random_(from, to) range that takes a 64-bit word
// (two draws) in release r: 2^28 from 2.7 on, 2^32 before.
inline uint64_t randint_wide(Release r) { return older(r, Release::r2_7) ? uint64_t{1} << 32 : uint64_t{1} << 28; }

// The Release of torch release "MAJOR.MINOR" or "MAJOR.MINOR.PATCH" (a
// local suffix such as "+cu121" ignored): r1_13 for 1.13, r2_0 for 2.0,
// r2_1 for 2.1 and 2.2, r2_3 for 2.3 to 2.6, r2_7 for 2.7 to 2.11, r2_12 for 2.12, r2_13 from
// 2.13 on. std::invalid_argument for another form or a release before 1.13
// (not measured: SPEC.md 14.6).
inline Release release_of(const std::string& version) {
  const std::string v = version.substr(0, version.find('+'));
  long part[3] = {0, 0, 0};
  int parts = 0;
  bool ok = true;
  for (size_t i = 0; ok && i <= v.size();) {  // dot-separated runs of 1 to 6 digits
    size_t j = i;
    while (j < v.size() && v[j] >= '0' && v[j] <= '9') ++j;
    ok = j > i && j - i <= 6 && parts < 3 && (j == v.size() || v[j] == '.');
    if (ok) part[parts++] = std::stol(v.substr(i, j - i));
    i = j + 1;
  }
  if (!ok || parts < 2)
    throw std::invalid_argument("torch release must be MAJOR.MINOR or MAJOR.MINOR.PATCH, got '" + version + "'");
  const long mm = part[0] * 1000 + part[1];
  if (mm < 1013)
    throw std::invalid_argument("torch release " + version + ": the torch CPU streams are checked from 1.13 on");
  return mm < 2000   ? Release::r1_13
         : mm == 2000 ? Release::r2_0
         : mm <= 2002 ? Release::r2_1
         : mm <= 2006 ? Release::r2_3
         : mm <= 2011 ? Release::r2_7
         : mm == 2012 ? Release::r2_12
                      : Release::r2_13;
}

// at::mt19937 (ATen/core/MT19937RNGEngine.h): MT19937 with torch's
// seeding (init_genrand on the low 32 bits of the seed) and its lazy
// regeneration (left_ counts down to 1 before the next 624-word refill).
struct MT19937 {
  static constexpr int N = 624, M = 397;
  uint64_t seed = 0;
  int32_t left = 1;
  uint32_t next = 0;
  std::array<uint32_t, N> state;  // own words (every constructor but Unseeded's writes all of them)
  // The N words the engine runs on: `state`, or an array bound by bind()
  // (the mode runs on torch's generator's own array in place). A copy of
  // the engine copies these words into its own `state`, never the binding.
  uint32_t* words = state.data();
  // Whether a refill (the 624-word regeneration) has run since construction
  // or bind(): until one has, the words are those the engine was loaded
  // with, and a caller that copied them in need not copy them back. Not part
  // of torch's state.
  bool refilled = false;

  // Unseeded (the scalars zero, `state` left unwritten): for a state about to
  // be overwritten whole from torch's (from_torch_state, the mode's generator
  // reads), which skips the 624-step seeding of the constructor below and the
  // zeroing of the array.
  struct Unseeded {};
  explicit MT19937(Unseeded) {}

  explicit MT19937(uint64_t s = 5489) {
    seed = s;
    state[0] = static_cast<uint32_t>(s & 0xffffffffu);
    for (int j = 1; j < N; ++j)
      state[j] = 1812433253u * (state[j - 1] ^ (state[j - 1] >> 30)) + static_cast<uint32_t>(j);
    left = 1;
    next = 0;
  }

  MT19937(const MT19937& o) : seed(o.seed), left(o.left), next(o.next), refilled(o.refilled) {
    std::copy(o.words, o.words + N, state.begin());
  }
  MT19937& operator=(const MT19937& o) {
    if (this != &o) {
      seed = o.seed;
      left = o.left;
      next = o.next;
      refilled = o.refilled;
      std::copy(o.words, o.words + N, state.begin());  // (o.words may be this->words: a bound array)
      words = state.data();
    }
    return *this;
  }

  // Runs on `w` (N words, which the caller keeps alive and unmoved while the
  // engine is used) in place of `state`: no copy in or out.
  void bind(uint32_t* w) {
    words = w;
    refilled = false;
  }

  uint32_t operator()() {
    if (--left == 0) refill();
    return temper(words[next++]);
  }

  // out[i] = f(the i-th of the next n words), i < n: n calls of operator(),
  // drawn in runs between refills (the left - 1 words before the next refill
  // need no check each: a loop the compiler vectorizes for a simple f).
  template <class T, class F>
  void generate(T* out, int64_t n, F f) {
    int64_t i = 0;
    while (i < n) {
      const int64_t run = left <= 1 ? 0 : (left - 1 < n - i ? left - 1 : n - i);  // (left < 1: one call at a time)
      const uint32_t* w = words + next;
      for (int64_t j = 0; j < run; ++j) out[i + j] = f(temper(w[j]));
      next += static_cast<int>(run);
      left -= static_cast<int>(run);
      i += run;
      if (i < n) out[i++] = f((*this)());  // left == 1: the refill
    }
  }
  // out[i] = f(the i-th of the next n 64-bit words, two words each, the
  // first the high half: random64's), i < n: as generate, a pair that
  // straddles a refill drawn by two calls.
  template <class T, class F>
  void generate64(T* out, int64_t n, F f) {
    int64_t i = 0;
    while (i < n) {
      const int64_t pairs = left <= 2 ? 0 : (left - 1) / 2;
      const int64_t run = pairs < n - i ? pairs : n - i;
      const uint32_t* w = words + next;
      for (int64_t j = 0; j < run; ++j)
        out[i + j] = f((static_cast<uint64_t>(temper(w[2 * j])) << 32) | temper(w[2 * j + 1]));
      next += static_cast<int>(2 * run);
      left -= static_cast<int>(2 * run);
      i += run;
      if (i < n) {
        const uint32_t hi = (*this)(), lo = (*this)();
        out[i++] = f((static_cast<uint64_t>(hi) << 32) | lo);
      }
    }
  }

 private:
  static uint32_t temper(uint32_t y) {
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
  }
  static uint32_t twist(uint32_t u, uint32_t v) {
    const uint32_t mixed = (u & 0x80000000u) | (v & 0x7fffffffu);
    return (mixed >> 1) ^ ((v & 1u) ? 0x9908b0dfu : 0u);
  }
  void refill() {
    refilled = true;
    left = N;
    next = 0;
    uint32_t* st = words;
    for (int j = 0; j < N - M; ++j) st[j] = st[j + M] ^ twist(st[j], st[j + 1]);
    for (int j = N - M; j < N - 1; ++j) st[j] = st[j + M - N] ^ twist(st[j], st[j + 1]);
    st[N - 1] = st[M - 1] ^ twist(st[N - 1], st[0]);
  }
};

// torch's CPUGeneratorImpl: the engine and the two cached normals.
struct State {
  MT19937 mt;
  bool has_next_float_normal = false;
  float next_float_normal = 0.0f;
  bool has_next_double_normal = false;
  double next_double_normal = 0.0;

  explicit State(uint64_t seed = 67280421310721ull) : mt(seed) {}  // torch's default_rng_seed_val
  explicit State(MT19937::Unseeded u) : mt(u) {}                    // to be overwritten whole
  uint32_t random() { return mt(); }
  // random64: the first word is the high half (detail::make64BitsFrom32Bits).
  uint64_t random64() {
    const uint32_t hi = mt(), lo = mt();
    return (static_cast<uint64_t>(hi) << 32) | lo;
  }
};

// Size in bytes of torch.Generator().get_state() on CPU (CPUGeneratorImplState).
inline constexpr size_t kTorchStateBytes = 5056;

// Writes `s` in torch's CPU state layout (bytes accepted by
// torch.Generator.set_state). Little-endian hosts only, as torch's own.
inline void to_torch_state(const State& s, uint8_t* out) {
  std::memset(out + 5016, 0, kTorchStateBytes - 5016);  // (bytes 0..5016 are all written below)
  auto put = [&](size_t off, const void* v, size_t n) { std::memcpy(out + off, v, n); };
  const int64_t seed = static_cast<int64_t>(s.mt.seed);
  const int32_t left = s.mt.left, seeded = 1;
  const uint64_t next = s.mt.next;
  put(0, &seed, 8);
  put(8, &left, 4);
  put(12, &seeded, 4);
  put(16, &next, 8);
  const uint32_t* words = s.mt.words;  // (read once: the byte stores below may alias the pointer)
  for (int j = 0; j < MT19937::N; ++j) {
    const uint64_t w = words[j];
    put(24 + 8 * j, &w, 8);
  }
  const double ny = s.has_next_double_normal ? s.next_double_normal : 0.0;
  const int32_t nvalid = s.has_next_double_normal ? 1 : 0;
  put(5024, &ny, 8);     // legacy normal_y
  put(5040, &nvalid, 4);  // legacy normal_is_valid
  put(5048, &s.next_float_normal, 4);
  out[5052] = s.has_next_float_normal ? 1 : 0;
}

// Reads torch's CPU state layout; throws on a state torch itself would refuse.
inline State from_torch_state(const uint8_t* in, size_t n) {
  if (n != kTorchStateBytes)
    throw std::invalid_argument("torch CPU generator state must be 5056 bytes, got " + std::to_string(n));
  auto get = [&](size_t off, void* v, size_t k) { std::memcpy(v, in + off, k); };
  State s{MT19937::Unseeded{}};
  int64_t seed;
  int32_t left, nvalid;
  uint64_t next;
  get(0, &seed, 8);
  get(8, &left, 4);
  get(16, &next, 8);
  if (left < 1 || left > MT19937::N || next > static_cast<uint64_t>(MT19937::N))
    throw std::invalid_argument("torch CPU generator state is not valid (left/next out of range)");
  s.mt.seed = static_cast<uint64_t>(seed);
  s.mt.left = left;
  s.mt.next = static_cast<uint32_t>(next);
  for (int j = 0; j < MT19937::N; ++j) {
    uint64_t w;
    get(24 + 8 * j, &w, 8);
    s.mt.state[j] = static_cast<uint32_t>(w);
  }
  get(5024, &s.next_double_normal, 8);
  get(5040, &nvalid, 4);
  s.has_next_double_normal = nvalid != 0;
  get(5048, &s.next_float_normal, 4);
  s.has_next_float_normal = in[5052] != 0;
  return s;
}

// ---- element transforms -------------------------------------------------------------------------

// uniform_real_distribution<float>(0, 1): the low 24 bits times 2^-24.
inline float uniform_f32(uint32_t w) { return static_cast<float>(w & 0xffffffu) * 0x1p-24f; }
// out[0..n) = n float32 uniforms, one word each (MT19937::generate).
inline void uniforms_f32(State& s, float* out, int64_t n) { s.mt.generate(out, n, uniform_f32); }
// uniform_real_distribution<double>(0, 1): the low 53 bits of random64 times 2^-53.
inline double uniform_f64(uint64_t w) { return static_cast<double>(w & ((1ull << 53) - 1)) * 0x1p-53; }
// out[0..n) = n float64 uniforms, two words each (MT19937::generate64).
inline void uniforms_f64(State& s, double* out, int64_t n) { s.mt.generate64(out, n, uniform_f64); }

// NormalFill16: data[0..8) and data[8..16) are 16 uniforms in [0, 1); on
// return, 16 normals (u1 = 1 - data[j], u2 = data[j + 8]: radius cos theta
// into j, radius sin theta into j + 8, each fma(., std, mean), or, `fused`
// false (fuses_normal: kernel scalar before 2.13), . * std + mean; the x86
// kernels always fuse here: normal_fill_16_AVX2's explicit fmadd).
inline void normal_fill16(float* data, float mean, float std, Kernel k, bool fused = true) {
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j];
    const float u2 = data[j + 8];
    float radius, s, c;
    if (is_x86_linux(k)) {  // (arm: glibc's, as scalar)
      radius = std::sqrt(-2.0f * detail::x86_log(u1));
      const float theta = static_cast<float>(2.0 * 3.14159265358979323846) * u2;
      detail::x86_sincos(theta, &s, &c);
      fused = true;
    } else if (k == Kernel::x86_windows) {  // avx_mathfun unfused; the last step's _mm256_fmadd_ps kept
      radius = std::sqrt(-2.0f * detail::x86_log<false>(u1));
      const float theta = static_cast<float>(2.0 * 3.14159265358979323846) * u2;
      detail::x86_sincos<false>(theta, &s, &c);
      fused = true;
    } else {
      radius = std::sqrt(-2.0f * detail::glibc_logf(u1));
      // theta = 2.0f * pi<double> * u2 in binary64, rounded to float.
      const float theta = static_cast<float>(2.0 * 3.14159265358979323846 * static_cast<double>(u2));
      s = detail::glibc_sinf(theta);
      c = detail::glibc_cosf(theta);
    }
    data[j] = fused ? std::fma(radius * c, std, mean) : radius * c * std + mean;
    data[j + 8] = fused ? std::fma(radius * s, std, mean) : radius * s * std + mean;
  }
}

// NormalFill16<double> (torch's scalar template, every kernel: the AVX2
// specialisation is float's only): 16 float64 uniforms in, 16 normals out,
// through glibc's binary64 log and sincos; the last step fused as
// normal_fill16's (`fused`: fuses_normal).
inline void normal_fill16_f64(double* data, double mean, double std, bool fused = true) {
  for (int j = 0; j < 8; ++j) {
    const double u1 = 1.0 - data[j];
    const double u2 = data[j + 8];
    const double radius = std::sqrt(-2.0 * detail::glibc_log(u1));
    const double theta = 2.0 * 3.14159265358979323846 * u2;  // 2.0f * pi<double>, folded
    double s, c;
    detail::glibc_sincos(theta, &s, &c);
    data[j] = fused ? std::fma(radius * c, std, mean) : radius * c * std + mean;
    data[j + 8] = fused ? std::fma(radius * s, std, mean) : radius * s * std + mean;
  }
}

// at::normal_distribution<double>(mean, std) on the CPU generator (what
// torch's normal kernel runs for fewer than 16 elements or a non-contiguous
// output, any dtype): the cached second normal if there is one, else two
// float64 uniforms u1, u2 (4 words), r = sqrt(-2 log1p(-u2)), theta =
// 2 pi u1, r sin(theta) cached, r cos(theta) returned; then ret * std +
// mean, which torch's AVX2 and AArch64 builds (kernels x86, arm) fuse and its
// x86-64 default build (kernel scalar) does not. The caller casts the double
// to the dtype (f16_direct).
// Release r1_13 (torch 1.13): r = sqrt(-2 log(1 - u2)) (1 - u2 exact).
inline double normal_f64_value(State& s, double mean, double std, Kernel k, Release rel = Release::r2_13) {
  double ret;
  if (s.has_next_double_normal) {
    ret = s.next_double_normal;
    s.has_next_double_normal = false;
  } else {
    const double u1 = uniform_f64(s.random64());
    const double u2 = uniform_f64(s.random64());
    const double r =
        std::sqrt(-2.0 * (rel == Release::r1_13 ? detail::glibc_log(1.0 - u2) : detail::glibc_log1p(-u2)));
    const double theta = 2.0 * 3.14159265358979323846 * u1;
    double sn, cs;
    detail::glibc_sincos(theta, &sn, &cs);
    s.next_double_normal = r * sn;
    s.has_next_double_normal = true;
    ret = r * cs;
  }
  return fuses(k) ? std::fma(ret, std, mean) : ret * std + mean;
}

// exponential_(lambda) on CPU (at::exponential_distribution<double>, every
// CPU: torch 2.15 has no MKL path for it): a float64 uniform u (2 words),
// (-1 / lambda) log1p(-u). The caller casts the double to the dtype.
// Release r1_13 (torch 1.13): (-1 / lambda) log(1 - u) (1 - u exact).
inline double exponential_value(State& s, double lambda, Release rel = Release::r2_13) {
  const double u = uniform_f64(s.random64());
  return -1.0 / lambda * (rel == Release::r1_13 ? detail::glibc_log(1.0 - u) : detail::glibc_log1p(-u));
}

// log_normal_(mean, std) on CPU (at::lognormal_distribution<double>, every
// CPU): exp of normal_f64_value(mean, std) (its words, its cached second
// normal, its kernel-dependent fusion); the caller casts to the dtype.
inline double log_normal_value(State& s, double mean, double std, Kernel k, Release rel = Release::r2_13) {
  return detail::glibc_exp(normal_f64_value(s, mean, std, k, rel));
}

// geometric_(p), 0 < p < 1, on CPU (at::geometric_distribution<double>,
// every CPU): a float64 uniform u (2 words), ceil(log(u) / log1p(-p)) in
// binary64; the caller casts to the dtype (u = 0, probability 2^-53, gives
// +inf, which an integer dtype cannot hold: torch's cast is undefined there).
inline double geometric_value(State& s, double p) {
  const double u = uniform_f64(s.random64());
  return std::ceil(detail::glibc_log(u) / detail::glibc_log1p(-p));
}

// cauchy_(median, sigma) on CPU (at::cauchy_distribution<double>, every CPU,
// every dtype): a float64 uniform u (2 words), x = (u - 1/2) pi (both steps
// exact but the product's rounding; u = 0 gives -pi/2 rounded, whose tan is
// -1.633e16), then median + sigma tan(x) with glibc's tan, fused by torch's
// AVX2 build (kernel x86: vfmadd132sd after the call to tan) and its AArch64
// builds (kernel arm), a product and a sum in its x86-64 default build
// (kernel scalar). The caller casts to the dtype.
inline double cauchy_value(State& s, double median, double sigma, Kernel k) {
  const double u = uniform_f64(s.random64());
  const double t = detail::glibc_tan((u - 0.5) * 3.14159265358979323846);
  return fuses(k) ? std::fma(t, sigma, median) : t * sigma + median;
}

// uniform_(from, to): x the [0, 1) uniform of the opmath type (float:
// 1 word, double: 2), x (to - from) + from, fused by torch's AVX2 build
// and AArch64 builds (kernels x86, arm), not by its x86-64 default build
// (kernel scalar). [0, 1) gives x
// either way.
inline float uniform_f32_ab(uint32_t w, float from, float to, Kernel k) {
  const float x = uniform_f32(w);
  return fuses(k) ? std::fma(x, to - from, from) : x * (to - from) + from;
}
inline double uniform_f64_ab(uint64_t w, double from, double to, Kernel k) {
  const double x = uniform_f64(w);
  return fuses(k) ? std::fma(x, to - from, from) : x * (to - from) + from;
}

// ---- draws (torch's order of words) ---------------------------------------------------------

// torch.rand / uniform_(0, 1) in float32: n words.
inline void rand_f32(State& s, int64_t n, float* out) {
  s.mt.generate(out, n, [](uint32_t w) {
    const float v = uniform_f32(w);
    return v == 1.0f ? 0.0f : v;
  });
}
// torch.rand in float64: 2n words.
inline void rand_f64(State& s, int64_t n, double* out) {
  s.mt.generate64(out, n, [](uint64_t w) {
    const double v = uniform_f64(w);
    return v == 1.0 ? 0.0 : v;
  });
}
// torch.rand in float16/bfloat16: the float32 uniform, rounded by `cast`
// (float -> the 16-bit type, nearest-even), 1 mapped to 0.
template <class T, class Cast>
inline void rand_f16(State& s, int64_t n, T* out, Cast cast, T one, T zero) {
  for (int64_t i = 0; i < n; ++i) {
    const T v = cast(uniform_f32(s.random()));
    out[i] = v == one ? zero : v;
  }
}

// normal_fill for a contiguous float32 output of n >= 16 elements: n
// uniforms, a 16-wide transform per full block; when n % 16 != 0 the last 16
// elements are redrawn (16 more words) and transformed again. `fill16(p)`
// transforms the 16 floats at p (normal_fill16, or a host SIMD equivalent of
// it, bit for bit).
template <class Fill16>
inline void normal_f32_with(State& s, int64_t n, float* out, Fill16 fill16) {
  if (n < 16) throw std::invalid_argument("torch_cpu::normal_f32: n < 16 takes torch's float64 path");
  uniforms_f32(s, out, n);
  for (int64_t i = 0; i < n - 15; i += 16) fill16(out + i);
  if (n % 16 != 0) {
    float* tail = out + n - 16;
    uniforms_f32(s, tail, 16);
    fill16(tail);
  }
}
inline void normal_f32(State& s, int64_t n, float mean, float std, Kernel k, float* out, bool fused = true) {
  normal_f32_with(s, n, out, [=](float* d) { normal_fill16(d, mean, std, k, fused); });
}

// normal_fill for a contiguous float64 output of n >= 16 elements: as
// float32's with float64 uniforms (2 words each) and normal_fill16_f64.
inline void normal_f64(State& s, int64_t n, double mean, double std, double* out, bool fused = true) {
  if (n < 16) throw std::invalid_argument("torch_cpu::normal_f64: n < 16 takes torch's element-wise path");
  uniforms_f64(s, out, n);
  for (int64_t i = 0; i < n - 15; i += 16) normal_fill16_f64(out + i, mean, std, fused);
  if (n % 16 != 0) {
    double* tail = out + n - 16;
    uniforms_f64(s, tail, 16);
    normal_fill16_f64(tail, mean, std, fused);
  }
}

// normal_fill for float16/bfloat16 (n >= 16, contiguous): float32 blocks of
// 16 drawn and transformed one at a time, then the tail block of 16 at n - 16;
// the n % 16 uniforms the float32 path draws and discards are never drawn.
template <class Fill16, class Store>
inline void normal_f32_blocks_with(State& s, int64_t n, Fill16 fill16, Store store) {
  if (n < 16) throw std::invalid_argument("torch_cpu::normal: n < 16 takes torch's float64 path");
  float buf[16];
  for (int64_t i = 0; i < n - 15; i += 16) {
    uniforms_f32(s, buf, 16);
    fill16(buf);
    for (int j = 0; j < 16; ++j) store(i + j, buf[j]);
  }
  if (n % 16 != 0) {
    uniforms_f32(s, buf, 16);
    fill16(buf);
    for (int j = 0; j < 16; ++j) store(n - 16 + j, buf[j]);
  }
}
template <class Store>
inline void normal_f32_blocks(State& s, int64_t n, float mean, float std, Kernel k, Store store) {
  normal_f32_blocks_with(s, n, [=](float* d) { normal_fill16(d, mean, std, k); }, store);
}

// ---- torch 1.13 to 2.11: the float16 and bfloat16 draws (legacy16: Release r2_7 to r1_13) ---------
// Those releases drew a 16-bit uniform_real_distribution<scalar_t> with
// std::numeric_limits<scalar_t>::digits bits (11 for float16, 8 for
// bfloat16) and ran torch's NormalFill16 template on the 16-bit type itself,
// where c10's Half and BFloat16 operators and (BFloat16-math.h) std::log,
// sqrt, sin and cos round each result to the type (float16 from 2.1 on,
// bfloat16 in every one of them). Values are carried here as floats that
// the 16-bit type holds exactly.

// The float nearest-even rounded to float16 (bf16: bfloat16): its bits, a
// 16-bit value as a float, and the rounded float (bits16 of round16(x) is
// bits16 of x, NaNs included).
inline uint16_t bits16(float x, bool bf16) { return bf16 ? math::f32_to_bf16_bits(x) : math::f32_to_f16_bits(x); }
inline float unbits16(uint16_t b, bool bf16) { return bf16 ? math::bf16_bits_to_f32(b) : math::f16_bits_to_f32(b); }
inline float round16(float x, bool bf16) { return unbits16(bits16(x, bf16), bf16); }

// A float64 argument (a normal's mean and std, uniform_'s bounds) cast to the
// 16-bit type, torch's static_cast<scalar_t>(double), as a float: once on the
// AArch64 kernels from 2.3 on in float16 (f16_direct: c10::Half's float16_t
// constructor), else through float (two roundings).
inline float param16(double v, bool bf16, Kernel k, Release r) {
  return !bf16 && f16_direct(k, r) ? math::f16_bits_to_f32(math::f64_to_f16_bits(v))
                                   : round16(static_cast<float>(v), bf16);
}

// uniform_real_distribution<Half | BFloat16>(0, 1): the low 11 (bf16: 8) bits
// of one word times 2^-11 (2^-8), exact in the type.
inline float uniform16_legacy(uint32_t w, bool bf16) {
  return bf16 ? static_cast<float>(w & 0xffu) * 0x1p-8f : static_cast<float>(w & 0x7ffu) * 0x1p-11f;
}

// The bits of uniform16_legacy(i, bf16) by i < 2^11 (bf16: 2^8), built once.
inline const uint16_t* uniform16_legacy_bits(bool bf16) {
  struct Bits {
    uint16_t v[2048];
    explicit Bits(bool b) {
      for (uint32_t i = 0; i < (b ? 256u : 2048u); ++i) v[i] = bits16(uniform16_legacy(i, b), b);
    }
  };
  static const Bits f16(false), b16(true);
  return bf16 ? b16.v : f16.v;
}

// uniform_(from, to) into float16/bfloat16 (from, to already cast to the
// type, as torch's kernel casts them): x (to - from) + from, the difference
// rounded to the type (its operator-; `diff` = round16(to - from), a
// function of the call alone), the product and sum in float (x and the
// difference have at most 11 significant bits each: the product is exact,
// so a fused multiply-add gives the same), rounded to the type. No value
// equal to `to` is replaced (those releases had no such step).
inline uint16_t uniform16_legacy_ab(uint32_t w, float from, float diff, bool bf16) {
  return bits16(uniform16_legacy(w, bf16) * diff + from, bf16);
}

// NormalFill16<Half | BFloat16> of those releases, in three parts: for
// j in 0..7, u1 = 1 - data[j] and u2 = data[j + 8] (uniform16_legacy values);
// theta = 2.0f * pi<double> * u2 in binary64, to float, to the type.
// - 2.1 to 2.11 (and bfloat16 in 1.13 and 2.0): every step rounded to the type (c10's
//   operators and BFloat16-math.h's std::log, sqrt, sin, cos): radius =
//   sqrt(-2 log(u1)), c = cos(theta), s = sin(theta), then
//   ((radius c) std) + mean and ((radius s) std) + mean; in float16 on
//   kernel arm_sve256 the last two steps are one float16 fused multiply-add
//   (torch's SVE256 build compiles c10::Half's operators to the CPU's
//   float16 arithmetic, and GCC contracts them: math::f16_fma_bits).
// - 1.13 and 2.0 float16 (f16_normal_in_float): log, the sqrt's argument, sin and cos in float, the
//   radius rounded to the type; radius c std + mean in float (fused on
//   kernel x86, torch's AVX2 build, as GCC contracts it), rounded once.
// glibc's logf, sinf and cosf (detail::glibc_*), on every CPU.
struct Legacy16 {
  bool bf16, all16;  // all16: every step rounded to the type (not 1.13 and 2.0's float16)
  Legacy16(bool bf16_, Release r) : bf16(bf16_), all16(bf16_ || !f16_normal_in_float(r)) {}
  // the radius of u1 = 1 - u
  float radius(float u) const {
    const float u1 = round16(1.0f - u, bf16);
    if (!all16) return round16(std::sqrt(-2.0f * detail::glibc_logf(u1)), bf16);
    const float lg = round16(detail::glibc_logf(u1), bf16);
    return round16(std::sqrt(round16(-2.0f * lg, bf16)), bf16);
  }
  float theta(float u) const {
    return round16(static_cast<float>(2.0 * 3.14159265358979323846 * static_cast<double>(u)), bf16);
  }
  float cos(float u) const { return all16 ? round16(detail::glibc_cosf(theta(u)), bf16) : detail::glibc_cosf(theta(u)); }
  float sin(float u) const { return all16 ? round16(detail::glibc_sinf(theta(u)), bf16) : detail::glibc_sinf(theta(u)); }
  // the element's bits from the radius and cos (or sin); m and sd: mean and std cast to the type
  uint16_t out(float radius, float cs, float m, float sd, Kernel k) const {
    if (all16 && !bf16 && k == Kernel::arm_sve256) return math::f16_fma_bits(round16(radius * cs, false), sd, m);
    if (all16) return bits16(round16(round16(radius * cs, bf16) * sd, bf16) + m, bf16);
    const float rc = radius * cs;
    return bits16(fuses(k) ? std::fma(rc, sd, m) : rc * sd + m, bf16);
  }
};

// normal_fill_16 on 16 uniforms at data (uniform16_legacy values), in place.
inline void normal_fill16_legacy(float* data, float mean, float std, bool bf16, Release r, Kernel k) {
  const Legacy16 f(bf16, r);
  const float m = round16(mean, bf16), sd = round16(std, bf16);  // (scalar_t mean, std)
  for (int j = 0; j < 8; ++j) {
    const float radius = f.radius(data[j]), u2 = data[j + 8];
    data[j] = unbits16(f.out(radius, f.cos(u2), m, sd, k), bf16);
    data[j + 8] = unbits16(f.out(radius, f.sin(u2), m, sd, k), bf16);
  }
}

// Legacy16's radius, cos and sin of each of the 2^11 (bfloat16: 2^8)
// uniforms, by the uniform's bits (w & 2047, w & 255): a table of the pure
// functions above, built once per variant on first use.
struct Legacy16Table {
  float radius[2048], cos[2048], sin[2048];
  explicit Legacy16Table(const Legacy16& f) {
    const uint32_t n = f.bf16 ? 256u : 2048u;
    for (uint32_t i = 0; i < n; ++i) {
      const float u = uniform16_legacy(i, f.bf16);
      radius[i] = f.radius(u);
      cos[i] = f.cos(u);
      sin[i] = f.sin(u);
    }
  }
};
inline const Legacy16Table& legacy16_table(bool bf16, Release r) {
  static const Legacy16Table f16_r2_1(Legacy16(false, Release::r2_1)), f16_r1_13(Legacy16(false, Release::r1_13)),
      b16(Legacy16(true, Release::r2_1));
  return bf16 ? b16 : f16_normal_in_float(r) ? f16_r1_13 : f16_r2_1;
}

// torch.randn / normal_ of n >= 16 contiguous float16/bfloat16 elements in
// those releases (torch's normal_fill<scalar_t>): n words as 16-bit
// uniforms, normal_fill16_legacy per full block of 16, and when n % 16 != 0
// the last 16 redrawn (16 more words, after the n % 16 drawn and
// overwritten) and transformed; `store(i, bits)` receives element i. (Through
// legacy16_table: the same values, the three functions looked up by the
// uniforms' bits.)
template <class Store>
inline void normal16_legacy(State& s, int64_t n, float mean, float std, bool bf16, Release r, Kernel k, Store store) {
  if (n < 16) throw std::invalid_argument("torch_cpu::normal: n < 16 takes torch's float64 path");
  const Legacy16 f(bf16, r);
  const Legacy16Table& t = legacy16_table(bf16, r);
  const float m = round16(mean, bf16), sd = round16(std, bf16);
  const uint32_t mask = bf16 ? 0xffu : 0x7ffu;
  uint32_t w[16];
  auto block = [&](int64_t at) {
    s.mt.generate(w, 16, [mask](uint32_t x) { return x & mask; });
    for (int j = 0; j < 8; ++j) {
      const float radius = t.radius[w[j]];
      store(at + j, f.out(radius, t.cos[w[j + 8]], m, sd, k));
      store(at + j + 8, f.out(radius, t.sin[w[j + 8]], m, sd, k));
    }
  };
  const int64_t full = n - n % 16;
  for (int64_t i = 0; i < full; i += 16) block(i);
  if (n % 16 != 0) {
    s.mt.generate(w, n % 16, [](uint32_t x) { return x; });  // (drawn, overwritten)
    block(n - 16);
  }
}

// random_(from, to) / randint(low, high): range = high - low; a 64-bit word
// (two draws) when range >= `wide` (randint_wide: 2^28, or 2^32 before
// torch 2.7), else one; (w % range) + low.
// (One word: a 32-bit remainder, the same value as the 64-bit one and
// several times cheaper on x86, where 64-bit division is slow.)
inline int64_t randint_value(State& s, uint64_t range, int64_t low, uint64_t wide = uint64_t{1} << 28) {
  if (range >= wide) return static_cast<int64_t>(s.random64() % range + static_cast<uint64_t>(low));
  const uint32_t r = s.random() % static_cast<uint32_t>(range);
  return static_cast<int64_t>(static_cast<uint64_t>(r) + static_cast<uint64_t>(low));
}

// random_() without a range on CPU (torch 2.15 ATen/native/cpu/DistributionTemplates.h
// random_kernel, ATen/core/DistributionsHelper.h uniform_int_distribution,
// TransformationHelper.h uniform_int): w mod `modulus` (random_modulus), w a
// 64-bit word (random64, two draws) for float64 and int64, one word for
// every other dtype; the caller casts to the dtype (every value is exact in
// it). bool's `w & 1` is w mod 2.
inline uint64_t random_value(State& s, uint64_t modulus, bool wide) {
  return (wide ? s.random64() : static_cast<uint64_t>(s.random())) % modulus;
}

// random_(from, to) into a floating dtype with `digits` significand bits
// moves the bounds inward first (torch's update_from / update_to,
// ATen/native/DistributionTemplates.h) so no value rounds outside [from, to):
// `round_trip(v)` is int64 -> dtype -> int64 as torch casts.
template <class RoundTrip>
inline int64_t update_from(int64_t from, int digits, RoundTrip round_trip) {
  const int64_t from_plus_1 = round_trip(from + 1);
  if (from_plus_1 < from) {
    int64_t f = from + 1 < 0 ? -(from + 1) : from + 1;
    int n = 0;
    while (f >>= 1) ++n;
    from = from_plus_1 + (int64_t{1} << (n - digits + 1));
  }
  return from;
}
template <class RoundTrip>
inline int64_t update_to(int64_t to, int digits, RoundTrip round_trip) {
  const int64_t to_minus_1 = round_trip(to - 1);
  if (to_minus_1 >= to) {
    int64_t t = to - 1 < 0 ? -(to - 1) : to - 1;
    int n = 0;
    while (t >>= 1) ++n;
    to = to_minus_1 - (int64_t{1} << (n - digits + 1));
  }
  return to;
}

// bernoulli_(p) with a scalar p (every CPU, Intel's included: torch 2.15's
// wheel has no MKL bernoulli path, SPEC.md section 14.2): a float64 uniform
// (random64) < p.
inline bool bernoulli_value(State& s, double p) { return uniform_f64(s.random64()) < p; }
// Intel MKL's MCG31m1 generator (VSL_BRNG_MCG31), as torch 2.0 to 2.6's
// x86-64 wheels use it (MklBernoulli, MklExponential): seeded with a 32-bit
// word w, x_0 = w mod (2^31 - 1) (1 if that is 0), x_{i+1} = 1132489760 x_i
// mod (2^31 - 1). torch seeds one stream per call and skips each thread's
// chunk ahead, so element i of a call is x_i whatever the threads.
struct Mcg31 {
  static constexpr uint32_t kM = 0x7fffffffu, kA = 1132489760u;
  // a b mod (2^31 - 1) for a, b in [1, 2^31 - 2]: the 62-bit product's two
  // 31-bit halves summed (2^31 = 1 mod m), less m once if that reaches m (the
  // sum is below 2 m, and the product of nonzero residues of a prime is never
  // 0 mod it).
  static uint32_t mul(uint32_t a, uint32_t b) {
    const uint64_t p = static_cast<uint64_t>(a) * b;
    const uint32_t r = static_cast<uint32_t>((p & kM) + (p >> 31));
    return r >= kM ? r - kM : r;
  }
  // kA^k mod m.
  static uint32_t power(uint64_t k) {
    uint32_t r = 1, f = kA;
    for (; k != 0; k >>= 1, f = mul(f, f))
      if (k & 1) r = mul(r, f);
    return r;
  }
  // x_0 of the stream seeded with `word`.
  static uint32_t start(uint32_t word) {
    const uint32_t x = word % kM;
    return x == 0 ? 1 : x;
  }
};

// bernoulli_(p) with a scalar p in torch 2.0 to 2.6's x86-64 wheels
// (mkl_bernoulli; those wheels are built with Intel MKL, and their
// bernoulli_scalar_cpu_ calls it on every x86 CPU and capability): one
// 32-bit word, seed = random(), taken before anything else (for no
// elements too); element i (in the tensor's row-major order: torch draws a
// non-contiguous output into a contiguous int32 tensor and copies) is MKL's
// viRngBernoulli (ICDF) on the Mcg31 stream seeded with it: the element is 1
// exactly when x_i / (2^31 - 1) and p, each rounded to the nearest float,
// compare u < p. The quotient rounds to
// 1.0f for the x_i above about 2^31 (1 - 2^-25), so p = 1 gives 0 there
// (about one element in 2^25): those releases' values, kept. As x_i / (2^31
// - 1) grows with x_i, the element is x_i < limit, limit found once per call
// (SPEC.md 14.7; measured against torch 2.0.1, tests/torch_versions).
struct MklBernoulli : Mcg31 {
  uint32_t x = 1;      // x_i of the next element
  uint32_t limit = 0;  // the element is x_i < limit

  // MKL's uniform of x, rounded to float, on a CPU that is not Intel's
  // (its generic kernels) and on an Intel one without AVX2 (its e9 and h8
  // engines, read: x times the double 1 / (2^31 - 1), then to float):
  // (double) x / (2^31 - 1) to float (the same float as x times the double
  // 1 / (2^31 - 1), for every x).
  static float uniform(uint32_t x) { return static_cast<float>(static_cast<double>(x) / static_cast<double>(kM)); }
  // ... on an Intel CPU with AVX2 (MKL's l9 and z0 engines: x converted to
  // float, then one multiply-add with the scale 1 / (2^31 - 1) rounded to
  // float, 2^-31, and 0: exact), which is below uniform(x) for some x.
  static float uniform_intel(uint32_t x) { return static_cast<float>(static_cast<int32_t>(x)) * 0x1p-31f; }
  // The uniform kernel k's CPU computes (mkl_cpu_of(k): l9 and z0 Intel's, the others generic).
  static float uniform(uint32_t x, Kernel k) { return mkl_fma_set(mkl_cpu_of(k)) ? uniform_intel(x) : uniform(x); }
  // The smallest x in [0, 2^31 - 1] with uniform(x, k) >= float(p) (p in [0, 1]).
  static uint32_t limit_of(double p, Kernel k = Kernel::x86) {
    const float pf = static_cast<float>(p);
    uint32_t lo = 0, hi = kM;  // uniform(kM, k) = 1 >= pf
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (uniform(mid, k) >= pf) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
  // Draws the seed word from `s`; kernel k's CPU's uniform.
  MklBernoulli(State& s, double p, Kernel k = Kernel::x86) : x(start(s.random())), limit(limit_of(p, k)) {}
  bool next() {
    const bool b = x < limit;
    x = mul(x, kA);
    return b;
  }
  // Skips k elements (x times kA^k): element `k` of the call from its start.
  void skip(uint64_t k) { x = mul(x, power(k)); }
  // The next n elements, store(i, bit) for i in [0, n): next() n times, in
  // 16 interleaved lanes (lane j steps by kA^16), so the multiplications are
  // independent and vectorise.
  template <class Store>
  void fill(int64_t n, Store&& store) {
    constexpr int kLanes = 16;
    int64_t i = 0;
    if (n >= 4 * kLanes) {
      uint32_t lane[kLanes];
      lane[0] = x;
      for (int j = 1; j < kLanes; ++j) lane[j] = mul(lane[j - 1], kA);
      const uint32_t step = power(kLanes), lim = limit;
      for (; i + kLanes <= n; i += kLanes) {
        for (int j = 0; j < kLanes; ++j) store(i + j, lane[j] < lim);
        for (int j = 0; j < kLanes; ++j) lane[j] = mul(lane[j], step);
      }
      x = lane[0];
    }
    for (; i < n; ++i) store(i, next());
  }
};

// Intel MKL's single-precision natural logarithm (VML's vsLn) as its
// generic kernel computes it (mkl_vml_kernel_sLn_EXHAynn, the one MKL runs on
// a CPU that is not Intel's; every accuracy mode calls it), for a positive
// normal x: x = 2^k m with m in [2/3, 4/3), r = m - 1 (exact), ln x =
// k ln2_hi + (k ln2_lo + (r + (r p(r)) r)), p a degree-8 polynomial in Horner
// form, every product and sum rounded to float (the kernel is SSE2, no FMA).
// Proven equal to that kernel (MKL 2023.1, PyPI's `mkl`) on all 2^31 - 2^24
// positive normal floats (SPEC.md 14.7). Intel CPUs run other kernels:
// mkl_ln_f32_l9, mkl_ln_f32_z0.
// Its constants (binary32 bits): the polynomial's coefficients c_0 .. c_8,
// and ln 2 in two parts (hi with 12 trailing zero bits, so k hi is exact).
inline constexpr uint32_t kMklLnC[9] = {0xbf000000u, 0x3eaaaa83u, 0xbe7fff78u, 0x3e4ce814u, 0xbe2acee6u,
                                        0x3e0f6b8cu, 0xbdf9889eu, 0x3e0f335du, 0xbe0402c8u};
inline constexpr uint32_t kMklLn2Hi = 0x3f317200u, kMklLn2Lo = 0x35bfbe8eu, kMklLnOffset = 0x3f2aaaabu;
// The reduction: x = 2^k (1 + r), 1 + r in [2/3, 4/3), r exact (k by an arithmetic shift: floor).
inline void mkl_ln_reduce(float x, float& k, float& r) {
  const int32_t t = static_cast<int32_t>(detail::f2u(x) - kMklLnOffset);
  k = static_cast<float>(t >> 23);
  r = detail::u2f((static_cast<uint32_t>(t) & 0x7fffffu) + kMklLnOffset) - 1.0f;
}
inline float mkl_ln_f32(float x) {
  float k, r;
  mkl_ln_reduce(x, k, r);
  float p = detail::u2f(kMklLnC[8]);
  for (int i = 7; i >= 0; --i) p = p * r + detail::u2f(kMklLnC[i]);
  const float q = (r * p) * r + r;
  return k * detail::u2f(kMklLn2Hi) + (k * detail::u2f(kMklLn2Lo) + q);
}

// MKL's single-precision logarithm as VSL calls it on an Intel CPU with AVX2
// and without AVX-512 (mkl_vml_kernel_sLn_L9LAynn, AVX2 and FMA): the
// reduction of mkl_ln_f32 (x = 2^k m, m in [2/3, 4/3), r = m - 1), then
// ln x = k ln2 + (r + (r p(r)) r), p a degree-6 polynomial in Horner form,
// every step but r p one fused multiply-add. Proven equal to that kernel on
// all 2^31 - 2^24 positive normal floats (SPEC.md 14.7): MKL 2023.1's (the
// same code as torch 2.0.1's to 2.4.1's static MKL) and the recompiled ones
// in torch 2.5.1's and 2.6.0's libtorch_cpu.so. Its constants: c_0 .. c_6 and ln 2 (binary32 bits).
inline constexpr uint32_t kMklLnL9C[7] = {0xbf000000u, 0x3eaaaee7u, 0xbe80061du, 0x3e4afb81u,
                                          0xbe289358u, 0x3e2db86bu, 0xbe1b6a22u};
inline constexpr uint32_t kMklLnLn2 = 0x3f317218u;
inline float mkl_ln_f32_l9(float x) {
  float k, r;
  mkl_ln_reduce(x, k, r);
  float p = std::fma(detail::u2f(kMklLnL9C[6]), r, detail::u2f(kMklLnL9C[5]));
  for (int i = 4; i >= 0; --i) p = std::fma(p, r, detail::u2f(kMklLnL9C[i]));
  return std::fma(k, detail::u2f(kMklLnLn2), std::fma(r * p, r, r));
}

// MKL's single-precision logarithm as VSL calls it on an Intel CPU with
// AVX-512 (mkl_vml_kernel_sLn_Z0LAynn): for a positive normal x = 2^e 1.f,
// m = vgetmantps(x, [3/4, 3/2)) (1.f, halved when f >= 1/2), k = e, plus 1
// when halved, r = m - 1 (exact), j = the top 4 bits of f (a table row: 8
// rows on [1, 3/2), 8 on [3/4, 1)), then
// ln x = (((T1_j r + T2_j) r + T3_j) r + T4_j) r + k ln2, each step a fused
// multiply-add but k ln2, a rounded product. Read from the machine code of
// MKL 2023.1 and of torch 2.0.1's, 2.3.1's and 2.6.0's static MKL (the same
// operations and tables), and proven equal to that machine code on all
// 2^31 - 2^24 positive normal floats by running it in an emulator
// (tests/torch_versions/mkl/emulate_ln.py: no AVX-512 CPU was at hand; SPEC.md
// 14.7; mkl_check and test_mkl_kernels.py run it natively where the CPU has
// AVX-512). Its tables (binary32 bits), row j in column j.
inline constexpr uint32_t kMklLnZ0T[4][16] = {
    {0xbe6831efu, 0xbe40408eu, 0xbe20ce25u, 0xbe07bb45u, 0xbde70571u, 0xbdc611f1u, 0xbdaaf886u, 0xbd947e78u,
     0xbf15ee8du, 0xbf040bd7u, 0xbee9b172u, 0xbecfb3f7u, 0xbeb95babu, 0xbea60c13u, 0xbe9546fbu, 0xbe86a5e0u},
    {0x3eaa36bbu, 0x3ea68b39u, 0x3ea0b403u, 0x3e99b179u, 0x3e922487u, 0x3e8a71e0u, 0x3e82d7c6u, 0x3e76f776u,
     0x3e4684feu, 0x3e758f3du, 0x3e8bea95u, 0x3e982131u, 0x3ea088c4u, 0x3ea5fc8du, 0x3ea9260bu, 0x3eaa88fau},
    {0xbefffe93u, 0xbeffc28bu, 0xbeff0773u, 0xbefdb76bu, 0xbefbd4fbu, 0xbef96e20u, 0xbef69561u, 0xbef35e29u,
     0xbf060f28u, 0xbf037ac6u, 0xbf01de22u, 0xbf00e8dau, 0xbf0061a0u, 0xbf001fa4u, 0xbf0005f1u, 0xbf00001bu},
    {0x3f800000u, 0x3f7fff55u, 0x3f7ffb64u, 0x3f7ff0dbu, 0x3f7fdcbcu, 0x3f7fbcb5u, 0x3f7f8f2cu, 0x3f7f532cu,
     0x3f7fa089u, 0x3f7fd0dcu, 0x3f7feac4u, 0x3f7ff79du, 0x3f7ffd4cu, 0x3f7fff62u, 0x3f7fffefu, 0x3f800000u}};
inline float mkl_ln_f32_z0(float x) {
  const uint32_t b = detail::f2u(x);
  const uint32_t half = (b >> 22) & 1u;  // f >= 1/2: m = 1.f / 2
  const unsigned j = (b >> 19) & 15u;
  const float r = detail::u2f((b & 0x7fffffu) | ((127u - half) << 23)) - 1.0f;
  const float k = static_cast<float>(static_cast<int32_t>(b >> 23) - 127 + static_cast<int32_t>(half));
  float p = std::fma(detail::u2f(kMklLnZ0T[0][j]), r, detail::u2f(kMklLnZ0T[1][j]));
  p = std::fma(p, r, detail::u2f(kMklLnZ0T[2][j]));
  p = std::fma(p, r, detail::u2f(kMklLnZ0T[3][j]));
  return std::fma(p, r, k * detail::u2f(kMklLnLn2));
}

// Intel MKL's double-precision natural logarithm as its generic kernel
// computes it (mkl_vml_kernel_dLn_EXHAynn: what torch 2.0 to 2.6's float64
// exponential_ calls on a CPU that is not Intel's), for a positive normal x
// with biased exponent E: ms = x's mantissa 1.f times 2^-10 (exact), R =
// rcpps(float(ms)) rounded to an integer in [512, 1024] (mkl_rcp_of), hi =
// ms with its low 26 bits cleared, lo = ms - hi, r = lo R + (hi R - 1)
// (both products exact, one rounding), and with {T_hi, T_lo} the table
// entry of R (-ln R - 1013 ln2) and ln2 in two parts (E ln2_hi exact):
// t = T_hi + E ln2_hi, s = r + t, ln x = s + ((r^2) ((c3 r + c2) +
// (c5 r + c4) r^2) + ((T_lo + E ln2_lo) + (r - (s - t)))), every binary64
// operation rounded (SSE2, no FMA). rcpps is the CPU's approximate
// reciprocal, implemented differently by each CPU design: R is the staircase
// kMklRcpSteps measured on an AMD EPYC of family 25 (Zen 3), so these are
// the values that CPU's MKL computes; proven equal to the kernel run there
// (MKL 2023.1's, and the static copies in torch 2.0.1's, 2.6.0's and
// 2.15.0's libtorch_cpu.so) on every float64 uniform of torch's
// exponential_ (x_i / (2^31 - 1), all 2^31 - 2 of them), SPEC.md 14.7.
// Another CPU's rcpps moves R at some mantissas; R moved by one changes
// about one value in 3,900 of those it touches (for R the rounded
// 1 / float(ms): 41,751 of the 2^31 - 2 uniforms differ, R at 160,904,021).
// The kernel's constants (binary64 bits): c2 .. c5, ln2 in two parts.
inline constexpr uint64_t kMklLn64C[4] = {0xbfdffffffffff81full, 0x3fd55555555543c5ull, 0xbfd0000148058ee1ull,
                                          0x3fc9999cacdb4d0aull};
inline constexpr uint64_t kMklLn64Ln2Hi = 0x3fe62e42fefa0000ull, kMklLn64Ln2Lo = 0x3d7cf79abc9e0000ull;
// R of f = 2^-10 (1 + M 2^-23), M = f's mantissa field (2^23 for f = 2^-9):
// a table of R by M / 1024 (the steps measured fall on multiples of 1024).
inline constexpr std::array<uint32_t, 8193> kMklRcpR = [] {
  std::array<uint32_t, 8193> t{};
  int step = 0;
  for (uint32_t i = 0; i <= 8192; ++i) {
    while (step < 512 && detail::kMklRcpSteps[step] <= (i << 10)) ++step;
    t[i] = 1024u - static_cast<uint32_t>(step);
  }
  return t;
}();
static_assert([] {
  for (uint32_t s : detail::kMklRcpSteps)
    if (s % 1024u != 0) return false;
  return true;
}(), "kMklRcpR: a step off a multiple of 1024 needs a finer table");
inline uint32_t mkl_rcp_of(double ms) {
  const uint32_t m = detail::f2u(static_cast<float>(ms)) - 0x3a800000u;  // in [0, 2^23]
  return kMklRcpR[m >> 10];
}
inline double mkl_ln_f64(double x) {
  const uint64_t b = detail::d2u(x);
  const double ms = detail::u2d((b & 0x000fffffffffffffull) | 0x3f50000000000000ull);
  const double e = static_cast<double>(static_cast<int32_t>(b >> 52));
  const uint32_t R = mkl_rcp_of(ms);
  const double rd = static_cast<double>(R);
  const double hi = detail::u2d(detail::d2u(ms) & 0xfffffffffc000000ull), lo = ms - hi;
  const double r = lo * rd + (hi * rd - 1.0);
  const double r2 = r * r;
  const double p = (detail::u2d(kMklLn64C[1]) * r + detail::u2d(kMklLn64C[0])) +
                   (detail::u2d(kMklLn64C[3]) * r + detail::u2d(kMklLn64C[2])) * r2;
  const double* T = detail::kMklLn64Tab[R - 512];
  const double t = T[0] + e * detail::u2d(kMklLn64Ln2Hi);
  const double sum = r + t;
  const double low = (T[1] + e * detail::u2d(kMklLn64Ln2Lo)) + (r - (sum - t));
  return sum + (r2 * p + low);
}

// MKL's single-precision logarithm as VSL calls it on an Intel CPU without
// AVX2 (mkl_vml_kernel_sLn_E9LAynn, AVX, and E7LAynn in torch 2.0.1 to
// 2.4.1; sLn_H8LAynn, SSE4.2, in 2.5.1 and later): mkl_ln_f32_l9's
// reduction and coefficients without FMA, ln x = ((r p(r)) r + r) + k ln2,
// p in Horner form (p = p r + c_i), every step rounded. Read from E9LAynn's
// machine code and proven equal to E9LAynn and E7LAynn (torch 2.0.1's
// static MKL) and H8LAynn (torch 2.6.0's and 2.15.0's), run natively, on
// all 2^31 - 2^24 positive normal floats (SPEC.md 14.7).
inline float mkl_ln_f32_e9(float x) {
  float k, r;
  mkl_ln_reduce(x, k, r);
  float p = detail::u2f(kMklLnL9C[6]);
  for (int i = 5; i >= 0; --i) p = p * r + detail::u2f(kMklLnL9C[i]);
  return ((p * r) * r + r) + k * detail::u2f(kMklLnLn2);
}

// The logarithm of kernel set c.
inline float mkl_ln(float x, MklCpu c) {
  return c == MklCpu::l9   ? mkl_ln_f32_l9(x)
         : c == MklCpu::z0 ? mkl_ln_f32_z0(x)
         : c == MklCpu::e9 ? mkl_ln_f32_e9(x)
                           : mkl_ln_f32(x);
}

// exponential_(lambda) in torch 2.0 to 2.6's x86-64 wheels (mkl_exponential:
// their exponential_kernel calls MKL's VSL on every x86 CPU and capability):
// one word, taken before anything else, seeds the Mcg31 stream: random()
// for float32, float16 and bfloat16, the low half of random64() for
// float64; element i (row-major, as MklBernoulli's: a non-contiguous or
// 16-bit output is drawn into a contiguous float or double tensor and
// copied) is vs/vdRngExponential (ICDF) with displacement a = FLT_MIN
// (DBL_MIN) and scale beta = 1 / lambda (rounded to float for the float
// call): u = x_i / (2^31 - 1) rounded to float (float: MklBernoulli's
// uniform of the kernel; double: x_i times the double 1 / (2^31 - 1)), then
// a - ln(u) beta, each step rounded (the Intel kernels fuse the last two).
// float: ln is mkl_ln(., mkl_cpu_of(kernel)), so every value is MKL's on that
// kernel's CPU (proven over all 2^31 - 2 x_i for the generic and l9 kernels,
// e9's logarithm over every positive float, SPEC.md 14.7); float64: ln is mkl_ln_f64, MKL's generic vdLn with the
// rcpps of the AMD CPU it was measured on (proven over all 2^31 - 2 x_i
// there; an Intel CPU takes a reduced-accuracy vdLn, not reproduced:
// mkl_exponential_f64_refused). float16 and bfloat16 round the float value.
struct MklExponential : Mcg31 {
  uint32_t x = 1;              // x_i of the next element
  MklCpu cpu = MklCpu::generic;  // the float call's kernel set

  // Draws the seed word from `s` (f64: the float64 call's); kernel k's logarithm.
  MklExponential(State& s, bool f64, Kernel k = Kernel::x86)
      : x(start(f64 ? static_cast<uint32_t>(s.random64()) : s.random())), cpu(mkl_cpu_of(k)) {}
  // The stream seeded with `word`.
  explicit MklExponential(uint32_t word, Kernel k = Kernel::x86) : x(start(word)), cpu(mkl_cpu_of(k)) {}
  // The value of x (float call, scale beta, kernel set `c`: its logarithm; l9's and z0's uniform, and a -
  // ln beta one fused multiply-add, vfnmadd, where the generic and e9 sets round the product).
  static float value_f32(uint32_t x, float beta, MklCpu c = MklCpu::generic) {
    const float ln = mkl_ln(mkl_fma_set(c) ? MklBernoulli::uniform_intel(x) : MklBernoulli::uniform(x), c);
    return mkl_fma_set(c) ? std::fma(-ln, beta, std::numeric_limits<float>::min())
                          : std::numeric_limits<float>::min() - ln * beta;
  }
  float next_f32(float beta) {
    const float v = value_f32(x, beta, cpu);
    x = mul(x, kA);
    return v;
  }
  double next_f64(double beta) {
    const double u = static_cast<double>(x) * (1.0 / static_cast<double>(kM));
    x = mul(x, kA);
    return std::numeric_limits<double>::min() - mkl_ln_f64(u) * beta;
  }
};

// bernoulli_(p) with a float, half or bfloat16 tensor p (every CPU: torch's
// tensor-p kernel has no MKL path): a float32 uniform (1 word) < p as float.
inline bool bernoulli_f32_value(State& s, float p) { return uniform_f32(s.random()) < p; }

// The checks torch makes on a multinomial row (in its order, the first
// failing weight decides): 0 for a good row, else 1 (a weight < 0 or NaN),
// 2 (an infinite weight), 3 (the total in Acc is not > 0, i.e. every weight
// is 0: a sum of non-negative terms is at least its largest). One
// vectorisable pass; the ordered scan only for a bad row.
template <class Acc>
inline int multinomial_check_row(const Acc* w, int64_t k) {
  // On the bit patterns (integer lanes as wide as Acc, which the compiler
  // vectorises; the float comparisons stayed scalar in the bindings' build):
  // v in [0, max] is bits <= max's bits (+0, subnormals, normals) or -0.
  using U = std::conditional_t<sizeof(Acc) == 4, uint32_t, uint64_t>;
  static_assert(sizeof(U) == sizeof(Acc), "float or double");
  constexpr U sign = U{1} << (8 * sizeof(U) - 1);
  const Acc big = std::numeric_limits<Acc>::max();
  U max_bits, bad = 0, any = 0;
  std::memcpy(&max_bits, &big, sizeof big);
  for (int64_t j = 0; j < k; ++j) {
    U b;
    std::memcpy(&b, w + j, sizeof b);
    bad |= static_cast<U>(b > max_bits) & static_cast<U>(b != sign);
    any |= b;
  }
  if (bad == 0) return (any & ~sign) != 0 ? 0 : 3;  // (every weight +-0 or positive: any non-zero one?)
  for (int64_t j = 0; j < k; ++j) {
    if (!(w[j] >= 0)) return 1;
    if (!(w[j] <= std::numeric_limits<Acc>::max())) return 2;
  }
  return 0;  // (not reached)
}

// multinomial(weights, n, replacement=True) for n > 1 on CPU (torch's
// multinomial_with_replacement_apply), one row of k weights: their running
// sum in `Acc` (float for float32/float16/bfloat16 weights, double for
// float64), each divided by the total, the last set to 1; then per sample
// a float64 uniform u (2 words) and the first category whose normalised
// running sum is not below u (torch's binary search, comparisons in
// binary64). The row is drawn in two steps: multinomial_prefix (the running
// sums into `cum`, k elements of scratch, and torch's checks of the row in
// the same pass) and multinomial_sample. The caller checks first, as torch
// does per row: weights finite and >= 0, total > 0 (in Acc).
//
// Speed, the same values:
// - The running sum is one chain of dependent additions (torch's rounding
//   order, so it stays serial); the checks ride in its shadow (integer flags
//   on the bit patterns, multinomial_check_row's).
// - With a finite total the normalised sums are non-decreasing (a rounded
//   sum of non-negative terms never decreases, division by a positive total
//   is monotone, every sum <= the total so the last is 1 either way) and
//   u < 1, so "the first index not below u" is one index whatever order the
//   comparisons take: the samples are searched branch-free,
//   kMultinomialLanes of them in lockstep (their uniforms drawn in sample
//   order first).
// - Few samples of a long row (n probes per sample well under k): each probe
//   divides its own running sum by the total (the same correctly rounded
//   quotient torch stores; the last sum is the total, and total / total = 1,
//   torch's forced last bucket) instead of dividing all k.
// - A total that overflowed to infinity leaves NaNs (inf / inf) among the
//   normalised sums: then torch's own probe sequence, as it runs.
inline constexpr int kMultinomialLanes = 8;

// The running sums of w[0..k) into cum[0..k) in torch's order, and the code
// of multinomial_check_row(w, k) (0: a good row).
template <class Acc>
inline int multinomial_prefix(const Acc* w, int64_t k, Acc* cum) {
  using U = std::conditional_t<sizeof(Acc) == 4, uint32_t, uint64_t>;
  constexpr U sign = U{1} << (8 * sizeof(U) - 1);
  const Acc big = std::numeric_limits<Acc>::max();
  U max_bits, bad = 0, any = 0;
  std::memcpy(&max_bits, &big, sizeof big);
  Acc sum = 0;
  for (int64_t j = 0; j < k; ++j) {
    U b;
    std::memcpy(&b, w + j, sizeof b);
    bad |= static_cast<U>(b > max_bits) & static_cast<U>(b != sign);
    any |= b;
    sum += w[j];
    cum[j] = sum;
  }
  if (bad != 0) return multinomial_check_row(w, k);  // (its ordered scan names the first bad weight)
  return (any & ~sign) != 0 ? 0 : 3;
}

namespace detail {
// The first index in [0, k) whose value at(i) (a non-decreasing sequence
// with at(k - 1) >= every u) is not below u, for n samples: base + len
// brackets the answer; at(base + half) < u moves base up by half.
template <class At>
inline void multinomial_search(State& s, At at, int64_t k, int64_t n, int64_t* out) {
  constexpr int L = kMultinomialLanes;
  int64_t j = 0;
  for (; j + L <= n; j += L) {
    double u[L];
    int64_t base[L];
    for (int i = 0; i < L; ++i) {
      u[i] = uniform_f64(s.random64());
      base[i] = 0;
    }
    for (int64_t len = k; len > 1;) {
      const int64_t half = len / 2;
      for (int i = 0; i < L; ++i) base[i] += half & -static_cast<int64_t>(at(base[i] + half) < u[i]);
      len -= half;
    }
    for (int i = 0; i < L; ++i) out[j + i] = base[i] + static_cast<int64_t>(at(base[i]) < u[i]);
  }
  for (; j < n; ++j) {
    const double u = uniform_f64(s.random64());
    int64_t base = 0;
    for (int64_t len = k; len > 1;) {
      const int64_t half = len / 2;
      base += half & -static_cast<int64_t>(at(base + half) < u);
      len -= half;
    }
    out[j] = base + static_cast<int64_t>(at(base) < u);
  }
}
}  // namespace detail

// n samples of a checked row from its running sums (multinomial_prefix);
// `cum` may be overwritten with the normalised sums.
template <class Acc>
inline void multinomial_sample(State& s, Acc* cum, int64_t k, int64_t n, int64_t* out) {
  const Acc sum = cum[k - 1];
  if (sum <= std::numeric_limits<Acc>::max()) {
    int64_t probes = 1;  // per sample: ceil(log2 k) halvings and the last compare
    for (int64_t len = k; len > 1; len -= len / 2) ++probes;
    if (n * probes <= k / 4) {  // a quotient per probe (scalar) costs about 4 of the whole row's (vector)
      detail::multinomial_search(s, [cum, sum](int64_t i) { return static_cast<double>(cum[i] / sum); }, k, n, out);
      return;
    }
    for (int64_t j = 0; j < k; ++j) cum[j] /= sum;
    cum[k - 1] = 1;
    detail::multinomial_search(s, [cum](int64_t i) { return static_cast<double>(cum[i]); }, k, n, out);
    return;
  }
  for (int64_t j = 0; j < k; ++j) cum[j] /= sum;
  cum[k - 1] = 1;
  for (int64_t j = 0; j < n; ++j) {
    const double u = uniform_f64(s.random64());
    int64_t left = 0, right = k;
    while (right - left > 0) {
      const int64_t mid = left + (right - left) / 2;
      if (static_cast<double>(cum[mid]) < u)
        left = mid + 1;
      else
        right = mid;
    }
    out[j] = left;
  }
}

// One checked row: multinomial_prefix's sums, then multinomial_sample.
template <class Acc>
inline void multinomial_row(State& s, const Acc* w, int64_t k, int64_t n, Acc* cum, int64_t* out) {
  Acc sum = 0;
  for (int64_t j = 0; j < k; ++j) {
    sum += w[j];
    cum[j] = sum;
  }
  multinomial_sample(s, cum, k, n, out);
}

// `rows` rows of k weights, contiguous, into out[rows * n]: every row is
// checked before the first word is drawn (torch checks each row as it comes
// to it); returns 0, or the code of the first bad row (multinomial_check_row)
// with nothing drawn. `cum` is k elements of scratch.
template <class Acc>
inline int multinomial_rows(State& s, const Acc* w, int64_t rows, int64_t k, int64_t n, Acc* cum, int64_t* out) {
  if (rows == 1) {
    const int bad = multinomial_prefix(w, k, cum);
    if (bad == 0) multinomial_sample(s, cum, k, n, out);
    return bad;
  }
  for (int64_t r = 0; r < rows; ++r)
    if (const int bad = multinomial_check_row(w + r * k, k)) return bad;
  for (int64_t r = 0; r < rows; ++r) multinomial_row(s, w + r * k, k, n, cum, out + r * n);
  return 0;
}


// randperm(n) on CPU: the identity, then for n < 2^32 / 20 torch's
// Fisher-Yates from the front with z = random() mod (n - i) (n - 1 words);
// from 2^32 / 20 up, the "inside-out" variant with z = random64() mod (i + 1)
// (2n words). `out[i]` receives the value through `store(i, v)`, read back by
// `load(i)`.
template <class Load, class Store>
inline void randperm(State& s, int64_t n, Load load, Store store) {
  if (n < static_cast<int64_t>(0xffffffffu / 20)) {
    for (int64_t i = 0; i < n; ++i) store(i, i);
    for (int64_t i = 0; i < n - 1; ++i) {
      const int64_t z = static_cast<int64_t>(s.random() % static_cast<uint64_t>(n - i));
      const int64_t a = load(i), b = load(z + i);
      store(i, b);
      store(z + i, a);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    const int64_t z = static_cast<int64_t>(s.random64() % static_cast<uint64_t>(i + 1));
    store(i, load(z));
    store(z, i);
  }
}

}  // namespace xrng::torch_cpu
