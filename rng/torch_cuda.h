// torch's CUDA generator as an xrng stream: the values torch 2.15's CUDA
// distribution kernels give (Philox4x32-10 through cuRAND's device API,
// curand_init(seed, thread, offset)) on a GPU with a given number of SMs,
// computed on any host. SPEC.md "torch CUDA streams" defines them, names the
// torch version they were read from and says which parts are proven and
// which are modelled without a GPU to measure them.
//
// What makes this stream depend on the GPU is torch's launch arithmetic
// (ATen/native/cuda/DistributionTemplates.h, calc_execution_policy): a grid
// of min(ceil(n / 256), sm_count * (threads_per_sm / 256)) blocks of 256
// threads, each thread running curand_init(seed, its global index, offset)
// and a grid-stride loop that spreads the 4 (or 2) values of each curand4
// call over elements `stride` apart. Up to one wave (n <= 256 * the grid
// cap) the grid is ceil(n / 256) blocks and element i is the first value of
// thread i's first call: the same on every GPU. Above it, which words an
// element gets depends on the SM count.
//
// The element functions are XRNG_HD: xrng's CUDA kernels for this stream
// (device/torch_cuda.h, SPEC.md 15.5) run the same code on the GPU; the
// orchestration (launch, pieces, for_each, randperm) is host-only.
//
// Pure functions of (seed, philox offset, device, element): a State is
// torch's CUDAGeneratorImpl state, (seed, philox_offset_per_thread), and a
// draw advances its offset exactly as torch's philox_cuda_state does.
#pragma once

#include <cmath>
#include <cstdint>
#include <climits>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include <algorithm>

#include "rng/detail/math.h"
#include "rng/detail/math32.h"
#include "rng/detail/torch_cpu_math64.h"
#include "rng/detail/torch_random.h"
#include "rng/philox.h"
#include "rng/stream.h"

namespace xrng::torch_cuda {

// The launch parameters torch reads from cudaDeviceProp.
struct Device {
  uint32_t sm_count = 132;         // multiProcessorCount
  uint32_t threads_per_sm = 2048;  // maxThreadsPerMultiProcessor
};

// torch's CUDA generator state: CUDAGeneratorImpl's seed and
// philox_offset_per_thread (the offset of curand_init, in 32-bit words; a
// multiple of 4). get_state() holds these as 16 bytes: seed, then offset.
struct State {
  uint64_t seed = 67280421310721ull;  // torch's default_rng_seed_val
  uint64_t offset = 0;
};

inline constexpr uint32_t kBlock = 256;            // block_size_bound
inline constexpr uint64_t kCurandCallWords = 4;    // max_generator_offsets_per_curand_call
inline constexpr int64_t kInt32Max = 2147483647;  // TensorIterator's 32-bit indexing bound

// philox_cuda_state(increment): the offset before, then the offset moved by
// the increment rounded up to a multiple of 4.
inline uint64_t philox_cuda_state(State& s, uint64_t increment) {
  const uint64_t before = s.offset;
  s.offset += (increment + 3) / 4 * 4;
  return before;
}

// One kernel launch of distribution_elementwise_grid_stride_kernel.
struct Launch {
  uint64_t numel = 0;
  uint32_t grid = 0;     // blocks
  uint32_t unroll = 4;   // values per curand4 call: 4 (float4/uint4) or 2 (double2/ulonglong2)
  uint64_t counter_offset = 0;  // the increment handed to philox_cuda_state
  XRNG_HD uint64_t threads() const { return static_cast<uint64_t>(kBlock) * grid; }
  XRNG_HD uint64_t rounds() const { return counter_offset / kCurandCallWords; }  // curand4 calls per thread
};

// calc_execution_policy(numel, unroll).
inline Launch launch(uint64_t numel, uint32_t unroll, Device d) {
  if (numel == 0) throw std::invalid_argument("torch_cuda: a launch of 0 elements");
  if (d.sm_count == 0 || d.threads_per_sm < kBlock)
    throw std::invalid_argument("torch_cuda: sm_count must be >= 1 and threads_per_sm >= 256");
  Launch L;
  L.numel = numel;
  L.unroll = unroll;
  const uint32_t blocks = static_cast<uint32_t>((numel + kBlock - 1) / kBlock);  // dim3: unsigned int
  const uint32_t blocks_per_sm = d.threads_per_sm / kBlock;
  const uint32_t cap = d.sm_count * blocks_per_sm;
  L.grid = blocks < cap ? blocks : cap;
  L.counter_offset = ((numel - 1) / (static_cast<uint64_t>(kBlock) * L.grid * unroll) + 1) * kCurandCallWords;
  return L;
}

// Where element i of a launch takes its value from: thread `thread`
// (curand_init's subsequence), its curand4 call `round` (words offset + 4
// round .. + 3), value `lane` of that call (a float4/uint4 component, or a
// double2/ulonglong2 component built from words 2 lane, 2 lane + 1).
struct Slot {
  uint64_t thread, round;
  uint32_t lane;
};
XRNG_HD inline Slot slot(const Launch& L, uint64_t i) {
  const uint64_t S = L.threads();
  const uint64_t per_round = S * L.unroll;
  const uint64_t j = i % per_round;
  return Slot{j % S, i / per_round, static_cast<uint32_t>(j / S)};
}

// The inverse of slot: the element (launch index) that lane `lane` of call
// `round` of thread `thread` writes, when it is below L.numel (the
// grid-stride loop's index first + lane * S, first = round S unroll +
// thread). xrng's CUDA kernels run one work item per (thread, round),
// thread = item mod S, round = item / S, over L.threads() L.rounds() items.
XRNG_HD inline uint64_t element_of(const Launch& L, uint64_t thread, uint64_t round, uint32_t lane) {
  return (round * L.unroll + lane) * L.threads() + thread;
}

// The four words of curand4 call `round` of thread `thread` after
// curand_init(seed, thread, offset) (offset a multiple of 4): xrng's raw
// stream (seed, subseq = thread), words offset + 4 round .. + 3.
XRNG_HD inline u32x4 curand4(uint64_t seed, uint64_t offset, uint64_t thread, uint64_t round) {
  return stream_block(Stream{seed, thread}, offset / 4 + round);
}

// TensorIterator::can_use_32bit_indexing for a 1-D tensor of `numel`
// elements of `elem_size` bytes (coalesced contiguous output).
XRNG_HD inline bool can_use_32bit_indexing(uint64_t numel, uint32_t elem_size) {
  return numel <= static_cast<uint64_t>(kInt32Max) && 1 + (numel - 1) * elem_size <= static_cast<uint64_t>(kInt32Max);
}

// One launch of a draw: elements [begin, begin + launch.numel) of the
// tensor, curand_init offset `offset`.
struct Piece {
  uint64_t begin;
  uint64_t offset;
  Launch launch;
};

namespace detail {
template <class F>
void split_32bit(State& s, uint64_t begin, uint64_t n, uint32_t elem_size, uint32_t unroll, Device d, F& f) {
  if (can_use_32bit_indexing(n, elem_size)) {
    const Launch L = launch(n, unroll, d);
    const uint64_t off = philox_cuda_state(s, L.counter_offset);
    f(Piece{begin, off, L});
    return;
  }
  // TensorIterator::split(0): the first floor(n/2) elements, then the rest,
  // each split again until it fits (SplitUntil32Bit, depth first).
  const uint64_t h = n / 2;
  split_32bit(s, begin, h, elem_size, unroll, d, f);
  split_32bit(s, begin + h, n - h, elem_size, unroll, d, f);
}
}  // namespace detail

// distribution_nullary_kernel for a contiguous tensor of `numel` elements:
// the increment for the whole tensor is taken first; above the 32-bit
// indexing bound torch then launches once per piece of SplitUntil32Bit,
// each taking its own increment. f(piece) for each launch, in order.
template <class F>
void pieces(State& s, uint64_t numel, uint32_t elem_size, uint32_t unroll, Device d, F f) {
  if (numel == 0) return;
  const Launch top = launch(numel, unroll, d);
  const uint64_t off = philox_cuda_state(s, top.counter_offset);
  if (can_use_32bit_indexing(numel, elem_size)) {
    f(Piece{0, off, top});
    return;
  }
  detail::split_32bit(s, 0, numel, elem_size, unroll, d, f);
}

// Runs the grid-stride loop of every launch of a draw: emit(i, words, lane)
// for every element i (tensor index) with its curand4 words and lane.
template <class Emit>
void for_each(State& s, uint64_t numel, uint32_t elem_size, uint32_t unroll, Device d, Emit emit) {
  pieces(s, numel, elem_size, unroll, d, [&](const Piece& p) {
    const Launch& L = p.launch;
    const uint64_t S = L.threads();
    for (uint64_t r = 0; r < L.rounds(); ++r)
      for (uint64_t t = 0; t < S; ++t) {
        const uint64_t first = element_of(L, t, r, 0);
        if (first >= L.numel) break;
        const u32x4 w = curand4(s.seed, p.offset, t, r);
        for (uint32_t lane = 0; lane < L.unroll; ++lane) {
          const uint64_t li = element_of(L, t, r, lane);
          if (li < L.numel) emit(p.begin + li, w, lane);
        }
      }
  });
}

// ---- the operations of the element functions, the same on host and GPU -----------------
// Every element function below is XRNG_HD: xrng's CUDA kernels for this
// stream (device/torch_cuda.cu) run the very code the host runs. They use
// only correctly rounded IEEE operations (+ - * / and sqrt, which nvcc
// compiles as IEEE under --prec-div=true --prec-sqrt=true), explicit fused
// multiply-adds, exact operations (ceil, trunc, fabs, round to nearest even,
// conversions) and integer arithmetic: no libm, no contraction (--fmad=false,
// -ffp-contract=off).
namespace hd {
XRNG_HD XRNG_INLINE float fma_(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
XRNG_HD XRNG_INLINE double fma_(double a, double b, double c) { return math::fma_(a, b, c); }
XRNG_HD XRNG_INLINE float sqrt_(float a) { return math32::sqrt_(a); }
XRNG_HD XRNG_INLINE double sqrt_(double a) { return math::sqrt_(a); }
XRNG_HD XRNG_INLINE float ceil_(float a) {
#if defined(__CUDA_ARCH__)
  return ceilf(a);
#else
  return std::ceil(a);
#endif
}
XRNG_HD XRNG_INLINE double ceil_(double a) {
#if defined(__CUDA_ARCH__)
  return ::ceil(a);
#else
  return std::ceil(a);
#endif
}
XRNG_HD XRNG_INLINE float fabs_(float a) { return math::as_f32(math::as_u32(a) & 0x7fffffffu); }
XRNG_HD XRNG_INLINE double fabs_(double a) { return math::as_f64(math::as_u64(a) & 0x7fffffffffffffffull); }
// round to nearest, ties to even (the default rounding mode)
XRNG_HD XRNG_INLINE double rint_(double a) {
#if defined(__CUDA_ARCH__)
  return ::rint(a);
#else
  return std::nearbyint(a);
#endif
}
XRNG_HD XRNG_INLINE double trunc_(double a) {
#if defined(__CUDA_ARCH__)
  return ::trunc(a);
#else
  return std::trunc(a);
#endif
}
XRNG_HD XRNG_INLINE uint32_t hi_(double x) { return static_cast<uint32_t>(math::as_u64(x) >> 32); }
XRNG_HD XRNG_INLINE uint32_t lo_(double x) { return static_cast<uint32_t>(math::as_u64(x)); }
XRNG_HD XRNG_INLINE double make_(uint32_t l, uint32_t h) {
  return math::as_f64((static_cast<uint64_t>(h) << 32) | l);
}
}  // namespace hd

// ---- cuRAND's conversions (curand_uniform.h, curand_normal.h) -----------------------

// _curand_uniform: x * 2^-32 + 2^-33 in binary32, in (0, 1]. The product of
// float(x) (rounded to nearest) and 2^-32 is exact, so a fused or unfused
// multiply-add gives the same value.
XRNG_HD inline float curand_uniform(uint32_t x) { return static_cast<float>(x) * 0x1p-32f + 0x1p-33f; }

// _curand_uniform_double_hq: z = x ^ (y << 21) (53 bits), z 2^-53 + 2^-54.
XRNG_HD inline double curand_uniform_double_hq(uint32_t x, uint32_t y) {
  const uint64_t z = static_cast<uint64_t>(x) ^ (static_cast<uint64_t>(y) << 21);
  return static_cast<double>(z) * 0x1p-53 + 0x1p-54;
}

// The double2 / ulonglong2 component `lane` (0 or 1) of a curand4 call.
XRNG_HD inline double uniform2_double(const u32x4& w, uint32_t lane) {
  return curand_uniform_double_hq(w.v[2 * lane], w.v[2 * lane + 1]);
}
XRNG_HD inline uint64_t random64(const u32x4& w, uint32_t lane) {
  return (static_cast<uint64_t>(w.v[2 * lane]) << 32) | w.v[2 * lane + 1];
}

// ---- element values ----------------------------------------------------------------------

enum class Type { f32, f64, f16, bf16 };
XRNG_HD inline uint32_t type_size(Type t) { return t == Type::f64 ? 8u : t == Type::f32 ? 4u : 2u; }

// binary32 -> the 16-bit types, round to nearest even (c10::Half / c10::BFloat16).
XRNG_HD inline float round_to(Type t, float v) {
  if (t == Type::f16) return math::f16_bits_to_f32(math::f32_to_f16_bits(v));
  if (t == Type::bf16) return math::bf16_bits_to_f32(math::f32_to_bf16_bits(v));
  return v;
}

// uniform_kernel, float/half/bfloat16 (opmath float): from and to are first
// cast to the dtype, range = float(to - from) computed in the dtype, value =
// dtype(rand * range + from) with the multiply-add fused (FFMA), then a value
// equal to `to` becomes `from`.
struct UniformF32 {
  Type type;
  float from, to, range;
  XRNG_HD UniformF32(Type t, double a, double b) : type(t) {
    from = round_to(t, static_cast<float>(a));
    to = round_to(t, static_cast<float>(b));
    range = round_to(t, to - from);
  }
  XRNG_HD float operator()(float rand) const {
    const float v = round_to(type, hd::fma_(rand, range, from));
    return v == to ? from : v;
  }
};
// uniform_kernel, double: value = fma(rand, to - from, from); to -> from.
struct UniformF64 {
  double from, to, range;
  XRNG_HD UniformF64(double a, double b) : from(a), to(b), range(b - a) {}
  XRNG_HD double operator()(double rand) const {
    const double v = hd::fma_(rand, range, from);
    return v == to ? from : v;
  }
};

// random_from_to: (w mod range) + base as int64 (32-bit words when range <
// 2^28, else 64-bit words from random64).
XRNG_HD inline int64_t uniform_int_from_to(uint64_t w, uint64_t range, int64_t base) {
  return static_cast<int64_t>(w % range + static_cast<uint64_t>(base));
}

// random_() without a range on CUDA (torch 2.15 ATen/native/cuda/
// DistributionTemplates.h random_kernel, TransformationHelper.h uniform_int):
// float64 and int64 take a 64-bit word from a ulonglong2 (random64: unroll
// 2), every other dtype one 32-bit word from a uint4 (unroll 4); the value
// is w mod `modulus` (the dtype's: 2^digits + 1 for the floats, max + 1 for
// the integers, 2 for bool, whose w & 1 it equals), exact in the dtype.
XRNG_HD inline uint64_t random_value(uint64_t w, uint64_t modulus) { return w % modulus; }

// ---- the GPU's approximate instructions, modelled (UNMEASURED: SPEC.md section 15) ----------
// The MUFU values are not specified by NVIDIA; each model below is the exact
// function rounded to float (from binary64 values of xrng's ports of glibc's
// functions, never the host's libm), inside the instruction sequences the
// wheel's sm_90 SASS wraps around them (read, exact).

// __sincosf / sin.approx / cos.approx as the SASS runs them: t = v * float(1 /
// 2 pi) rounded toward zero (FMUL.RZ), then MUFU.SIN / MUFU.COS of t turns,
// modelled as sin / cos (2 pi t) rounded from binary64.
XRNG_HD inline void fast_sincosf(float v, float* sn, float* cs) {
  const double prod = static_cast<double>(v) * static_cast<double>(0x1.45f306p-3f);  // exact
  float t = static_cast<float>(prod);
  if (hd::fabs_(static_cast<double>(t)) > hd::fabs_(prod)) t = math::as_f32(math::as_u32(t) - 1u);  // nextafter(t, 0): t != 0 here
  const double turn = 6.283185307179586 * static_cast<double>(t);
  double sd, cd;  // xrng's port of glibc's sincos, never the host's libm
  xrng::torch_cpu::detail::glibc_sincos(turn, &sd, &cd);
  *sn = static_cast<float>(sd);
  *cs = static_cast<float>(cd);
}

// MUFU.LG2 of a positive normal float, modelled as log2 x rounded to float.
XRNG_HD inline float mufu_lg2(float x) {
  return static_cast<float>(xrng::torch_cpu::detail::glibc_log(static_cast<double>(x)) * 1.4426950408889634);
}
// __logf (torch's at::log / at::log1p of a float on CUDA) as the SASS runs it:
// an argument below 2^-126 is scaled by 2^24 first and 24 taken off the
// MUFU.LG2 result, then FMUL by float(ln 2).
XRNG_HD inline float fast_logf(float x) {
  const bool tiny = hd::fabs_(x) < 0x1p-126f;
  float l = mufu_lg2(tiny ? x * 0x1p24f : x);
  if (tiny) l = l - 24.0f;
  return l * 0.693147182f;
}
// MUFU.EX2, modelled as 2^t rounded to float.
XRNG_HD inline float mufu_ex2(float t) {
  return static_cast<float>(xrng::torch_cpu::detail::glibc_exp(static_cast<double>(t) * 0.6931471805599453));
}
// __expf (torch's at::exp of a float on CUDA) as the SASS runs it: t = x *
// float(log2 e) (FMUL); below -126 (or NaN) t is halved and the MUFU.EX2
// result squared.
XRNG_HD inline float fast_expf(float x) {
  float t = x * 1.44269502f;
  const bool low = !(t >= -126.0f);
  if (low) t = t * 0.5f;
  float r = mufu_ex2(t);
  if (low) r = r * r;
  return r;
}
// MUFU.RCP, modelled as the correctly rounded reciprocal.
XRNG_HD inline float mufu_rcp(float x) { return static_cast<float>(1.0 / static_cast<double>(x)); }
// __tanf (torch's at::tan of a float on CUDA; libdevice's __nv_fast_tanf:
// sin.approx / cos.approx, div.approx) as the SASS runs it: MUFU.SIN and
// MUFU.COS of the same turns, both scaled by 2^24 when |cos| < 2^-126,
// then MUFU.RCP of the cosine times the sine.
XRNG_HD inline float fast_tanf(float x) {
  float sn, cs;
  fast_sincosf(x, &sn, &cs);
  if (!(hd::fabs_(cs) >= 0x1p-126f)) {
    cs = cs * 0x1p24f;
    sn = sn * 0x1p24f;
  }
  return mufu_rcp(cs) * sn;
}

// rcp.approx.ftz.f64 (MUFU.RCP64H on the high word, the low word 0): modelled
// as 1 / (the high word) cut to its high word (see nv_log).
XRNG_HD inline double rcp64h_model(double g) {
  const double h = math::as_f64(math::as_u64(g) & 0xffffffff00000000ull);
  const double r = 1.0 / h;
  return math::as_f64(math::as_u64(r) & 0xffffffff00000000ull);
}

// libdevice's __nv_log (binary64 natural log), as in libdevice.10.bc and as
// the wheel's sm_90 SASS runs it (one contraction: u = fma(rr, f, q)). Its
// reciprocal starts from rcp.approx.ftz.f64 (MUFU.RCP64H, the hardware's
// approximation from the high word); modelled as 1 / (the high word) cut to
// its high word, then libdevice's two fused refinement steps, which leave
// an error near 2^-69 before rounding. UNMEASURED: see SPEC.md section 15.
XRNG_HD inline double nv_log(double a) {
  auto hi = [](double x) { return static_cast<int32_t>(hd::hi_(x)); };
  auto lo = [](double x) { return hd::lo_(x); };
  auto make = [](uint32_t l, uint32_t h) { return hd::make_(l, h); };
  int32_t ihi = hi(a);
  uint32_t ilo = lo(a);
  int32_t e = -1023;
  double x = a;
  if (ihi < 1048576) {
    x = a * 0x1p54;
    e = -1023 - 54;
    ihi = hi(x);
    ilo = lo(x);
  }
  if (ihi > 0 && ihi < 2146435072) {
    int32_t ee = e + (ihi >> 20);
    const uint32_t mhi = (static_cast<uint32_t>(ihi) & 0x800fffffu) | 0x3ff00000u;
    double m = make(ilo, mhi);
    if (static_cast<int32_t>(mhi) > 1073127582) {
      m = make(lo(m), static_cast<uint32_t>(hi(m)) - (1u << 20));
      ee += 1;
    }
    const double f = m - 1.0;
    const double g = m + 1.0;
    // rcp.approx.ftz.f64 (MUFU.RCP64H on the high word; the low word 0):
    // modelled as 1 / (g's high word), cut to its high word
    double r = 1.0 / make(0u, static_cast<uint32_t>(hi(g)));
    r = make(0u, static_cast<uint32_t>(hi(r)));
    const double t0 = hd::fma_(-g, r, 1.0);
    const double t1 = hd::fma_(t0, t0, t0);
    const double rr = hd::fma_(t1, r, r);
    const double q = f * rr;
    // libdevice writes q + q; nvcc's default contraction (seen in the wheel's
    // SASS: DMUL then DFMA) makes it fma(rr, f, q)
    const double u = hd::fma_(rr, f, q);
    const double v = u * u;
    double p = hd::fma_(0x1.1380b3ae80f1ep-20, v, 0x1.0ee258b7a8b04p-18);
    p = hd::fma_(p, v, 0x1.3b2669f02676fp-16);
    p = hd::fma_(p, v, 0x1.745cba9ab0956p-14);
    p = hd::fma_(p, v, 0x1.c71c72d1b5154p-12);
    p = hd::fma_(p, v, 0x1.24924923be72dp-9);
    p = hd::fma_(p, v, 0x1.999999999a3c4p-7);
    p = hd::fma_(p, v, 0x1.5555555555554p-4);
    const double s = 2.0 * (f - u);
    const double s2 = hd::fma_(-u, f, s);
    const double c = rr * s2;
    const double pv = p * v;
    const double tail = hd::fma_(pv, u, c);
    const double de = static_cast<double>(ee);  // the 2^52 + 2^31 trick gives exactly (double)ee
    const double hi1 = hd::fma_(de, 0x1.62e42fefa39efp-1, u);
    const double back = hd::fma_(-de, 0x1.62e42fefa39efp-1, hi1);
    const double d1 = back - u;
    const double d2 = tail - d1;
    const double lo1 = hd::fma_(de, 0x1.abc9e3b39803fp-56, d2);
    return hi1 + lo1;
  }
  const double inf = HUGE_VAL;
  if ((hi(x) & 0x7fffffff) == 0) return -inf;  // libdevice tests the high word only
  return hd::fma_(x, inf, inf);                // +inf, or NaN for a negative or NaN argument
}

// libdevice's __nv_exp (binary64 exp), as in libdevice.10.bc: every step an
// explicit fma or IEEE operation (no approximate instruction), so this is
// exact: x = k ln2 + r (k = round(x log2 e) by the 1.5 2^52 trick), a
// degree-11 polynomial, 2^k put into the exponent (in two halves near the
// overflow and underflow limits).
XRNG_HD inline double nv_exp(double a) {
  auto hi = [](double x) { return hd::hi_(x); };
  auto lo = [](double x) { return hd::lo_(x); };
  auto make = [](uint32_t l, uint32_t h) { return hd::make_(l, h); };
  const double t = hd::fma_(a, 0x1.71547652b82fep+0, 0x1.8p52);
  const int32_t k = static_cast<int32_t>(lo(t));
  const double kd = t + -0x1.8p52;
  double r = hd::fma_(kd, -0x1.62e42fefa39efp-1, a);
  r = hd::fma_(kd, -0x1.abc9e3b39803fp-56, r);
  double p = hd::fma_(0x1.ade1569ce2bdfp-26, r, 0x1.28af3fca213eap-22);
  p = hd::fma_(p, r, 0x1.71dee62401315p-19);
  p = hd::fma_(p, r, 0x1.a01997c89eb71p-16);
  p = hd::fma_(p, r, 0x1.a01a014761f65p-13);
  p = hd::fma_(p, r, 0x1.6c16c1852b7afp-10);
  p = hd::fma_(p, r, 0x1.1111111122322p-7);
  p = hd::fma_(p, r, 0x1.55555555502a1p-5);
  p = hd::fma_(p, r, 0x1.5555555555511p-3);
  p = hd::fma_(p, r, 0x1.000000000000bp-1);
  p = hd::fma_(p, r, 1.0);
  p = hd::fma_(p, r, 1.0);
  const uint32_t ahi = hi(a) & 0x7fffffffu;  // libdevice compares |hi| as floats: the same order
  if (ahi < 0x4086232bu) return make(lo(p), hi(p) + (static_cast<uint32_t>(k) << 20));
  double z = a < 0.0 ? 0.0 : a + HUGE_VAL;
  if (ahi < 0x40874800u) {
    const int32_t k1 = k / 2;  // sdiv: toward zero
    const double s1 = make(lo(p), hi(p) + (static_cast<uint32_t>(k1) << 20));
    const double s2 = make(0u, 1072693248u + (static_cast<uint32_t>(k - k1) << 20));
    z = s1 * s2;
  }
  return z;
}

// libdevice's __nv_log1p (binary64), as in libdevice.10.bc: for a in about
// (-0.4, 0.667) (libdevice compares a's high word as a float) the series in
// s = a - a (a / (a + 2)) (IEEE division, the product and the difference
// unfused as the wheel's sm_90 SASS has them); elsewhere __nv_log(1 + a)
// (nv_log: its reciprocal seed modelled).
XRNG_HD inline double nv_log1p(double a) {
  const float hf = math::as_f32(hd::hi_(a));
  const float lim_hi = math::as_f32(1071994197u), lim_lo = math::as_f32(0xbfd99999u);
  if (hf < lim_hi && hf > lim_lo) {
    const double q = a / (a + 2.0);
    const double m = -a * q;
    const double s = a + m;
    const double y = s * s;
    double p = hd::fma_(0x1.372fb2fbe14b5p-20, y, 0x1.087ffceb2dc44p-18);
    p = hd::fma_(p, y, 0x1.3b9ff890f468cp-16);
    p = hd::fma_(p, y, 0x1.7457efd51baf8p-14);
    p = hd::fma_(p, y, 0x1.c71c8de3ce825p-12);
    p = hd::fma_(p, y, 0x1.249248fa4661fp-9);
    p = hd::fma_(p, y, 0x1.99999999d70c4p-7);
    p = hd::fma_(p, y, 0x1.5555555555462p-4);
    const double py = p * y;
    return hd::fma_(py, s, m) + a;
  }
  return nv_log(a + 1.0);
}

// libdevice's __nv_tan (binary64) for |a| < 2^31 (torch's Cauchy gives
// |a| <= pi/2; beyond 2^31 libdevice's Payne-Hanek path, not ported: NaN):
// q = round(a 2/pi) (d2i.rn), a - q pi/2 in three fused steps, a degree-27
// odd polynomial; for odd q, -1/tan through rcp.approx.ftz.f64 (MUFU.RCP64H,
// modelled as in nv_log) and libdevice's fused refinement and correction
// (read in the wheel's SASS of DistributionCauchyKernel.cu: the same
// sequence, instruction for instruction). Exact but for the modelled seed.
XRNG_HD inline double nv_tan(double a) {
  if (hd::fabs_(a) == HUGE_VAL) return a * 0.0;
  if (!(hd::fabs_(a) < 0x1p31)) return NAN;
  const int32_t q = static_cast<int32_t>(hd::rint_(a * 0x1.45f306dc9c883p-1));
  const double qd = static_cast<double>(q);
  double z = hd::fma_(-qd, 0x1.921fb54442d18p+0, a);
  z = hd::fma_(-qd, 0x1.1a62633145c00p-54, z);
  z = hd::fma_(-qd, 0x1.b839a252049c0p-104, z);
  const double z2 = z * z;
  double p = hd::fma_(0x1.48dac2799bcb9p-17, z2, -0x1.9757c5b27ebb1p-16);
  p = hd::fma_(p, z2, 0x1.980e90fd91e04p-15);
  p = hd::fma_(p, z2, -0x1.ae2b0417d7e1dp-16);
  p = hd::fma_(p, z2, 0x1.19f5341bfba57p-14);
  p = hd::fma_(p, z2, 0x1.5e791a00f6919p-14);
  p = hd::fma_(p, z2, 0x1.ff2e7fadec73ap-13);
  p = hd::fma_(p, z2, 0x1.34bc1b206da62p-11);
  p = hd::fma_(p, z2, 0x1.7db18ef2f83f9p-10);
  p = hd::fma_(p, z2, 0x1.d6d2e7ae49fbcp-9);
  p = hd::fma_(p, z2, 0x1.226e3a816a776p-7);
  p = hd::fma_(p, z2, 0x1.664f485d25660p-6);
  p = hd::fma_(p, z2, 0x1.ba1ba1babf31dp-5);
  p = hd::fma_(p, z2, 0x1.11111111105d2p-3);
  p = hd::fma_(p, z2, 0x1.555555555555ep-2);
  const double pz = p * z2;
  const double t = hd::fma_(pz, z, z);
  if ((q & 1) == 0) return t;
  const double e = hd::fma_(pz, z, -(t - z));  // t's rounding error
  const double r0 = rcp64h_model(t);
  double c = hd::fma_(-t, r0, 1.0);
  c = hd::fma_(c, c, c);
  const double r = hd::fma_(c, r0, r0);
  const double d = hd::fma_(t, -r, 1.0);
  const double d2 = hd::fma_(-r, e, d);
  return hd::fma_(d2, -r, -r);
}

// libdevice's __nv_logf (binary32 logf, no flush to zero), as in
// libdevice.10.bc: every multiply-add there is an explicit fmaf, so this is
// exact (for the arguments of cuRAND's uniforms, in [2^-33, 1]).
XRNG_HD inline float nv_logf(float a) {
  float x = a, i = 0.0f;
  if (a < 0x1p-126f) {
    x = a * 0x1p23f;
    i = -23.0f;
  }
  uint32_t ix = math::as_u32(x);
  const uint32_t e = (ix - 1059760811u) & 0xff800000u;  // 0x3f2aaaab
  const uint32_t im = ix - e;
  const float m = math::as_f32(im);
  const float fe = hd::fma_(static_cast<float>(static_cast<int32_t>(e)), 0x1p-23f, i);
  const float f = m - 1.0f;
  float p = hd::fma_(-0x1.0aa04ep-3f, f, 0x1.2073ecp-3f);
  p = hd::fma_(p, f, -0x1.f19b98p-4f);
  p = hd::fma_(p, f, 0x1.1e52aap-3f);
  p = hd::fma_(p, f, -0x1.55b172p-3f);
  p = hd::fma_(p, f, 0x1.99da16p-3f);
  p = hd::fma_(p, f, -0x1.fffe44p-3f);
  p = hd::fma_(p, f, 0x1.5554f0p-2f);
  p = hd::fma_(p, f, -0.5f);
  const float pf = p * f;
  const float r = hd::fma_(pf, f, f);
  float res = hd::fma_(fe, 0x1.62e430p-1f, r);
  if (ix >= 0x7f800000u) res = hd::fma_(x, HUGE_VALF, HUGE_VALF);  // inf, NaN, negative
  if (x == 0.0f) res = -HUGE_VALF;
  return res;
}

// libdevice's __nv_sincospi (sin(pi a), cos(pi a) in binary64), as in
// libdevice.10.bc: every step is an explicit fma / IEEE operation, so this
// is exact. round.d is round-to-nearest-even (cvt.rni).
XRNG_HD inline void nv_sincospi(double a, double* sp, double* cp) {
  auto hi = [](double x) { return hd::hi_(x); };
  double x = a;
  if (hi(a) + hi(a) > 0x86800000u) x = a * 0.0;  // |a| >= 2^53 (or inf, NaN): an integer (NaN for inf)
  const double r = hd::rint_(x * 2.0);       // libdevice adds 1 to the exponent: exact
  const int32_t q = static_cast<int32_t>(static_cast<int64_t>(r));
  const double t = hd::fma_(-r, 0.5, x);
  const double tl = t * 0x1.1a62633145c07p-53;
  const double y = hd::fma_(t, 0x1.921fb54442d18p+1, tl);  // pi t
  const double y2 = y * y;
  double c = hd::fma_(-0x1.8ff8320fd8164p-37, y2, 0x1.1eea7c1ef8528p-29);
  c = hd::fma_(c, y2, -0x1.27e4f8e06e6d9p-22);
  c = hd::fma_(c, y2, 0x1.a01a019ddbce9p-16);
  c = hd::fma_(c, y2, -0x1.6c16c16c15d47p-10);
  c = hd::fma_(c, y2, 0x1.5555555555551p-5);
  c = hd::fma_(c, y2, -0.5);
  c = hd::fma_(c, y2, 1.0);
  double sn = hd::fma_(0x1.5db65f9785ebap-33, y2, -0x1.ae5f12cb0d246p-26);
  sn = hd::fma_(sn, y2, 0x1.71de369ace392p-19);
  sn = hd::fma_(sn, y2, -0x1.a01a019db62a1p-13);
  sn = hd::fma_(sn, y2, 0x1.1111111110818p-7);
  sn = hd::fma_(sn, y2, -0x1.5555555555554p-3);
  sn = hd::fma_(sn, y2, 0.0);
  sn = hd::fma_(sn, y, y);
  double s0 = sn, c0 = c;
  if (q & 1) {
    s0 = c;
    c0 = -sn;
  }
  if (q & 2) {
    s0 = -s0;
    c0 = -c0;
  }
  *cp = c0 + 0.0;
  *sp = (x == hd::trunc_(x)) ? x * 0.0 : s0;
}

// _curand_box_muller_double (curand_normal2_double): u = z0 2^-53 + 2^-54,
// v = z1 2^-52 + 2^-53 (z from words 0,1 and 2,3 as in the uniform),
// s = sqrt(-2 log(u)) (__nv_log: modelled reciprocal seed, see nv_log),
// lane 0 = sinpi(v) s, lane 1 = cospi(v) s.
XRNG_HD inline double normal2_double_lane(const u32x4& w, uint32_t lane) {
  const uint64_t zx = static_cast<uint64_t>(w.v[0]) ^ (static_cast<uint64_t>(w.v[1]) << 21);
  const uint64_t zy = static_cast<uint64_t>(w.v[2]) ^ (static_cast<uint64_t>(w.v[3]) << 21);
  const double u = static_cast<double>(zx) * 0x1p-53 + 0x1p-54;
  const double v = static_cast<double>(zy) * 0x1p-52 + 0x1p-53;
  const double s = hd::sqrt_(-2.0 * nv_log(u));
  double sn, cs;
  nv_sincospi(v, &sn, &cs);
  return lane == 0 ? sn * s : cs * s;
}

// transformation::exponential on CUDA: log = (rand >= 1 - eps/2 ? -eps/2 :
// at::log(rand)), value = (-1 / lambda) * log. at::log is __logf for float
// (in the SASS: MUFU.LG2, then FMUL by float(ln 2), then FMUL by the IEEE
// quotient -1/lambda; the MUFU value is modelled as the correctly rounded
// log2: UNMEASURED) and __nv_log for double.
XRNG_HD inline float exponential_f32(float rand, float lambda) {
  const float eps = 0x1p-23f;
  const float lg = rand >= 1.0f - eps / 2 ? -eps / 2
                                          : mufu_lg2(rand) * 0.693147182f;
  return (-1.0f / lambda) * lg;
}
XRNG_HD inline double exponential_f64(double rand, double lambda) {
  const double eps = 0x1p-52;
  const double lg = rand >= 1.0 - eps / 2 ? -eps / 2 : nv_log(rand);
  return (-1.0 / lambda) * lg;
}

// _curand_box_muller (binary32): u = x 2^-32 + 2^-33, v = fma(y, 2^-32 2 pi,
// (2^-32 2 pi)/2) (FFMA in the SASS), s = sqrtf(-2 logf(u)) (libdevice's
// logf, IEEE sqrt),
// __sincosf(v) (MUFU.SIN / MUFU.COS: hardware approximations), then sin v s
// and cos v s. The model takes sin and cos correctly rounded (from binary64):
// UNMEASURED (SPEC.md section 15 and the GPU test's ulp table).
XRNG_HD inline void box_muller_f32(uint32_t x, uint32_t y, float* first, float* second) {
  const float k2pi = 2.3283064e-10f * 6.2831855f;  // CURAND_2POW32_INV_2PI, rounded as the header's float product
  const float u = static_cast<float>(x) * 0x1p-32f + 0x1p-33f;
  const float v = hd::fma_(static_cast<float>(y), k2pi, k2pi / 2);
  const float s = hd::sqrt_(-2.0f * nv_logf(u));
  float sn, cs;
  fast_sincosf(v, &sn, &cs);
  *first = sn * s;
  *second = cs * s;
}
XRNG_HD inline float normal4_lane(const u32x4& w, uint32_t lane) {
  float a, b;
  box_muller_f32(w.v[lane & 2u], w.v[(lane & 2u) + 1], &a, &b);
  return (lane & 1u) ? b : a;
}

// ---- log_normal_, geometric_, cauchy_ (normal_and_transform / uniform_and_transform) -------
// The launch, offsets and lanes are those of 15.2 (unroll 4 for every dtype
// but float64, whose lanes come from curand_normal2_double /
// curand_uniform2_double with unroll 2); the transforms, as the wheel's sm_90
// SASS computes them:

// log_normal_(mean, std), float32 / float16 / bfloat16: __expf(fma(normal, std,
// mean)) on the modelled normal of curand_normal4 (MODELLED).
XRNG_HD inline float log_normal_f32(const u32x4& w, uint32_t lane, float mean, float sd) {
  return fast_expf(hd::fma_(normal4_lane(w, lane), sd, mean));
}
// log_normal_, float64: __nv_exp(fma(normal, std, mean)) on curand_normal2_double
// (nv_exp exact; the normal modelled only through nv_log's seed).
XRNG_HD inline double log_normal_f64(const u32x4& w, uint32_t lane, double mean, double sd) {
  return nv_exp(hd::fma_(normal2_double_lane(w, lane), sd, mean));
}

// geometric_(p), every dtype but float64 (accscalar float): ceil(__logf(u) /
// __logf(1 - float(p))), an IEEE float division (MODELLED: __logf). `log_q`
// is geometric_f32_log_q(p), the same for every element.
XRNG_HD inline float geometric_f32_log_q(double p) { return fast_logf(1.0f + -static_cast<float>(p)); }
XRNG_HD inline float geometric_f32(float rand, float log_q) { return hd::ceil_(fast_logf(rand) / log_q); }
// geometric_, float64: ceil(__nv_log(u) / __nv_log1p(-p)) (the seed of
// __nv_log's reciprocal modelled; log_q = nv_log1p(-p)).
XRNG_HD inline double geometric_f64(double rand, double log_q) { return hd::ceil_(nv_log(rand) / log_q); }

// cauchy_(median, sigma), float32 / float16 / bfloat16 (torch's generic
// transformation::cauchy): u clipped to [2^-23, 1 - 2^-23] (FMNMX), x = (u -
// 1/2) float(pi) (FADD, FMUL), fma(__tanf(x), sigma, median) (MODELLED:
// __tanf's MUFU.SIN, MUFU.COS, MUFU.RCP).
XRNG_HD inline float cauchy_f32(float rand, float median, float sigma) {
  float u = rand < 0x1.fffffep-1f ? rand : 0x1.fffffep-1f;
  u = u > 0x1p-23f ? u : 0x1p-23f;
  const float x = (u - 0.5f) * 3.14159274f;
  return hd::fma_(fast_tanf(x), sigma, median);
}
// cauchy_, float64: fma(__nv_tan((u - 1/2) pi), sigma, median), no clipping
// (DADD, DMUL, then __nv_tan, DFMA: exact but for nv_tan's modelled seed in
// its odd quadrant, |x| > pi/4).
XRNG_HD inline double cauchy_f64(double rand, double median, double sigma) {
  return hd::fma_(nv_tan((rand - 0.5) * 3.141592653589793), sigma, median);
}

// bernoulli_(p) with a tensor p (bernoulli_tensor_cuda_kernel through
// CUDA_tensor_apply2 with step 4 and 512-thread blocks): the offset moves by
// philox_cuda_state(10) (12 words); the grid, ceil(n / 2048) blocks (capped
// at maxGridSize.x = 2^31 - 1, beyond any tensor here), lets each thread t
// run its loop once: curand_init(seed, t, offset), one curand_uniform4, and
// elements 4t .. 4t + 3 (the row-major index of a contiguous output) take
// its lanes 0 .. 3: value u <= p, p as float (as double for a float64
// output). The same on every GPU. emit(i, u) for each element.
template <class Emit>
void bernoulli_tensor(State& s, uint64_t n, Emit emit) {
  if (n > (1ull << 34)) throw std::invalid_argument("torch_cuda bernoulli: a tensor p above 2^34 elements is not reproduced");
  const uint64_t off = philox_cuda_state(s, 10);
  for (uint64_t t = 0; 4 * t < n; ++t) {
    const u32x4 w = curand4(s.seed, off, t, 0);
    for (uint32_t lane = 0; lane < 4 && 4 * t + lane < n; ++lane) emit(4 * t + lane, curand_uniform(w.v[lane]));
  }
}

// ---- whole draws into memory (the CLI's entry; the bindings loop per dtype) ------------

namespace detail {
inline void store(Type t, void* out, uint64_t i, double v) {
  switch (t) {
    case Type::f32: static_cast<float*>(out)[i] = static_cast<float>(v); break;
    case Type::f64: static_cast<double*>(out)[i] = v; break;
    case Type::f16: static_cast<uint16_t*>(out)[i] = math::f32_to_f16_bits(static_cast<float>(v)); break;
    case Type::bf16: static_cast<uint16_t*>(out)[i] = math::f32_to_bf16_bits(static_cast<float>(v)); break;
  }
}
}  // namespace detail

// torch.rand(n, dtype) on the CUDA device `d` (uniform_(0, 1)).
inline void rand(State& s, Device d, uint64_t n, Type t, void* out) {
  if (t == Type::f64) {
    const UniformF64 u(0.0, 1.0);
    for_each(s, n, 8, 2, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      detail::store(t, out, i, u(uniform2_double(w, lane)));
    });
    return;
  }
  const UniformF32 u(t, 0.0, 1.0);
  for_each(s, n, type_size(t), 4, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
    detail::store(t, out, i, u(curand_uniform(w.v[lane])));  // already representable in t
  });
}

// torch.empty(n, dtype).uniform_(a, b) on the CUDA device `d` (exact).
inline void uniform(State& s, Device d, uint64_t n, Type t, double a, double b, void* out) {
  if (t == Type::f64) {
    const UniformF64 u(a, b);
    for_each(s, n, 8, 2, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      detail::store(t, out, i, u(uniform2_double(w, lane)));
    });
    return;
  }
  const UniformF32 u(t, a, b);
  for_each(s, n, type_size(t), 4, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
    detail::store(t, out, i, u(curand_uniform(w.v[lane])));  // already representable in t
  });
}

// torch.empty(n, dtype).exponential_(lambda) on `d` (modelled: __logf, or
// __nv_log's reciprocal seed for float64).
inline void exponential(State& s, Device d, uint64_t n, Type t, double lambda, void* out) {
  if (!(lambda > 0.0)) throw std::invalid_argument("torch_cuda exponential: lambda must be > 0");
  if (t == Type::f64) {
    for_each(s, n, 8, 2, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      detail::store(t, out, i, exponential_f64(uniform2_double(w, lane), lambda));
    });
    return;
  }
  const float l = static_cast<float>(lambda);
  for_each(s, n, type_size(t), 4, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
    detail::store(t, out, i, exponential_f32(curand_uniform(w.v[lane]), l));
  });
}

// torch.empty(n, dtype).cauchy_(median, sigma) on `d` (modelled: __tanf for
// the 32/16-bit types, the seed of __nv_tan's reciprocal for float64).
inline void cauchy(State& s, Device d, uint64_t n, Type t, double median, double sigma, void* out) {
  if (!(sigma > 0.0)) throw std::invalid_argument("torch_cuda cauchy: sigma must be > 0");
  if (t == Type::f64) {
    for_each(s, n, 8, 2, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      detail::store(t, out, i, cauchy_f64(uniform2_double(w, lane), median, sigma));
    });
    return;
  }
  const float m = static_cast<float>(median), sg = static_cast<float>(sigma);
  for_each(s, n, type_size(t), 4, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
    detail::store(t, out, i, cauchy_f32(curand_uniform(w.v[lane]), m, sg));
  });
}

// torch.randn(n, dtype) (float32 / float16 / bfloat16: the modelled
// normal; float64: curand_normal2_double, exact but for nv_log's seed).
inline void randn(State& s, Device d, uint64_t n, Type t, double mean, double sd, void* out) {
  if (t == Type::f64) {
    for_each(s, n, 8, 2, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      detail::store(t, out, i, std::fma(normal2_double_lane(w, lane), sd, mean));
    });
    return;
  }
  const float m = static_cast<float>(mean), sdf = static_cast<float>(sd);
  for_each(s, n, type_size(t), 4, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
    detail::store(t, out, i, std::fma(normal4_lane(w, lane), sdf, m));
  });
}

// torch.empty(n, dtype).log_normal_(mean, sd) (sd > 0) on `d` (modelled:
// exp of the same normal as randn, __expf / __nv_exp); the values of
// xrng.torch_cuda's log_normal_.
inline void log_normal(State& s, Device d, uint64_t n, Type t, double mean, double sd, void* out) {
  if (!(sd > 0.0)) throw std::invalid_argument("torch_cuda log_normal: std must be > 0");
  if (t == Type::f64) {
    for_each(s, n, 8, 2, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      detail::store(t, out, i, log_normal_f64(w, lane, mean, sd));
    });
    return;
  }
  const float m = static_cast<float>(mean), sdf = static_cast<float>(sd);
  for_each(s, n, type_size(t), 4, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
    detail::store(t, out, i, log_normal_f32(w, lane, m, sdf));
  });
}

// torch.empty(n, dtype).geometric_(p) (0 < p < 1) into a floating dtype on
// `d` (modelled: ceil(log(u) / log1p(-p))); xrng.torch_cuda's geometric_.
inline void geometric(State& s, Device d, uint64_t n, Type t, double p, void* out) {
  if (!(p > 0.0 && p < 1.0)) throw std::invalid_argument("torch_cuda geometric: p must be in (0, 1)");
  if (t == Type::f64) {
    const double log_q = nv_log1p(-p);
    for_each(s, n, 8, 2, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      detail::store(t, out, i, geometric_f64(uniform2_double(w, lane), log_q));
    });
    return;
  }
  const float log_q = geometric_f32_log_q(p);
  for_each(s, n, type_size(t), 4, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
    detail::store(t, out, i, geometric_f32(curand_uniform(w.v[lane]), log_q));
  });
}

// torch.empty(n, dtype).bernoulli_(p) (scalar p in [0, 1]) into a floating
// dtype on `d` (exact: u < p, float64 against p, the others against
// float(p)); xrng.torch_cuda's bernoulli_ with a scalar p.
inline void bernoulli(State& s, Device d, uint64_t n, Type t, double p, void* out) {
  if (!(p >= 0.0 && p <= 1.0)) throw std::invalid_argument("torch_cuda bernoulli: p must be in [0, 1]");
  if (t == Type::f64) {
    for_each(s, n, 8, 2, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      detail::store(t, out, i, uniform2_double(w, lane) < p ? 1.0 : 0.0);
    });
    return;
  }
  const float pf = static_cast<float>(p);
  for_each(s, n, type_size(t), 4, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
    detail::store(t, out, i, curand_uniform(w.v[lane]) < pf ? 1.0 : 0.0);
  });
}

// torch.randint(low, high, (n,), device="cuda") (int64, low < high) on `d`
// (exact): (w mod (high - low)) + low, 32-bit words (unroll 4) when the
// range is below 2^28, else 64-bit words (random64, unroll 2); the values of
// xrng.torch_cuda's randint into an int64 tensor.
inline void randint(State& s, Device d, uint64_t n, int64_t low, int64_t high, int64_t* out) {
  if (!(high > low)) throw std::invalid_argument("torch_cuda randint: high must exceed low");
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  if (range >= (1ull << 28)) {
    for_each(s, n, 8, 2, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      out[i] = uniform_int_from_to(random64(w, lane), range, low);
    });
  } else {
    for_each(s, n, 8, 4, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      out[i] = uniform_int_from_to(w.v[lane], range, low);
    });
  }
}

// ---- randperm (ATen/native/cuda/Randperm.cu, Randperm.cuh) -----------------------------

// The key width: min(64, ceil(log2(n - (6 n^2 + 1) / (12 log 0.9)))), in
// binary64 as torch's host code computes it (32 or less up to n = 30,000 or so).
inline int randperm_bits(uint64_t n) {
  const double log_threshold_12 = std::log(0.9) * 12;
  const double nd = static_cast<double>(n);
  const int b = static_cast<int>(std::ceil(std::log2(nd - (6 * nd * nd + 1) / log_threshold_12)));
  return b < 64 ? b : 64;
}

// torch.randperm(n) on CUDA: keys = random_(INT_MIN, INT_MAX) into int32
// (bits <= 32; int64 and INT64 bounds above), a stable radix sort of
// arange(n) by the keys' low `bits` bits (cub, signed keys with their sign
// bit flipped), then each run of equal masked keys of two or more ("island")
// shuffled by its first position `tid`: Fisher-Yates from the end with
// curand(&state) % (i + 1), state = curand_init(seed, tid, offset), offset
// from philox_cuda_state(n). store(i, v): out[i] = v.
template <class Store>
void randperm(State& s, Device d, uint64_t n, Store store) {
  if (n == 0) return;
  if (n > static_cast<uint64_t>(kInt32Max))
    throw std::invalid_argument("torch_cuda randperm: n above 2^31 - 1 is not reproduced");
  const int bits = randperm_bits(n);
  if (bits >= 64) throw std::invalid_argument("torch_cuda randperm: 64-bit keys (n > ~1.39e9) not reproduced");
  std::vector<std::pair<uint64_t, uint32_t>> kv(n);
  const uint64_t mask = (1ull << bits) - 1;
  if (bits <= 32) {
    // random_from_to into int32: range 2^32 - 1 >= 2^28, so 64-bit words (unroll 2)
    for_each(s, n, 4, 2, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      const uint32_t key = static_cast<uint32_t>(uniform_int_from_to(random64(w, lane), 4294967295ull, -2147483648ll));
      kv[i] = {(key ^ 0x80000000u) & mask, static_cast<uint32_t>(i)};
    });
  } else {
    for_each(s, n, 8, 2, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      const uint64_t key = static_cast<uint64_t>(
          uniform_int_from_to(random64(w, lane), 18446744073709551615ull, INT64_MIN));
      kv[i] = {(key ^ 0x8000000000000000ull) & mask, static_cast<uint32_t>(i)};
    });
  }
  std::stable_sort(kv.begin(), kv.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const uint64_t off = philox_cuda_state(s, n);
  for (uint64_t t = 0; t + 1 < n; ++t) {
    if (kv[t].first != kv[t + 1].first) continue;
    if (t != 0 && kv[t].first == kv[t - 1].first) continue;
    uint64_t size = 1;
    while (t + size < n && kv[t + size].first == kv[t].first) ++size;
    const Stream st{s.seed, t};
    uint64_t word = off;
    for (uint64_t i = size - 1; i > 0; --i) {
      const uint32_t r = stream_word(st, word++) % static_cast<uint32_t>(i + 1);
      if (i != r) std::swap(kv[t + i].second, kv[t + r].second);
    }
  }
  for (uint64_t i = 0; i < n; ++i) store(i, kv[i].second);
}

// ---- dropout (ATen/native/cuda/Dropout.cu, native_dropout) ---------------------------

// The launch of dropout_cuda: the same grid as calc_execution_policy; the
// increment ((n - 1) / (256 grid 4) + 1) 4 (UNROLL = 4 whatever the vector size).
inline Launch dropout_launch(uint64_t numel, Device d) { return launch(numel, 4, d); }

// get_vector_size: 16 / sizeof(T) for an input aligned to 16 bytes (fewer
// for a less aligned pointer: `align` = the largest power of two dividing
// the input's address, capped at 16), halved until it divides numel; 1 for
// a non-contiguous input (vec_contiguous false).
inline uint32_t dropout_vec(uint64_t numel, uint32_t elem_size, uint32_t align = 16, bool dense = true) {
  if (!dense) return 1;
  uint32_t v = 16 / elem_size;
  while (v > 1 && (v * elem_size > align)) v /= 2;  // can_vectorize_up_to
  while (v > 1 && numel % v != 0) v /= 2;
  return v;
}

// Where element i of dropout takes its uniform from (thread, curand4 call, lane).
XRNG_HD inline Slot dropout_slot(const Launch& L, uint32_t vec, uint64_t i) {
  if (vec <= 1) return slot(L, i);  // fused_dropout_kernel: the grid-stride loop of UNROLL 4
  // fused_dropout_kernel_vec: thread t handles elements [(t + k S) vec, + vec)
  // in its iteration k, drawing ceil(vec / 4) curand_uniform4 per iteration
  // (for vec = 2 the .x and .y of a fresh call each iteration).
  const uint64_t S = L.threads();
  const uint64_t chunk = i / vec;
  const uint32_t e = static_cast<uint32_t>(i % vec);
  const uint64_t calls = (vec + 3) / 4;
  return Slot{chunk % S, (chunk / S) * calls + e / 4, e % 4};
}

// The kept-or-dropped test and the value: keep = (uniform < p1m) with p1m
// = 1 - p as accscalar (float, double for float64), out = T(src * keep *
// scale), scale = accscalar(1.0 / p1m) computed in double.
XRNG_HD inline bool dropout_keep_f32(float rand, float p1m) { return rand < p1m; }
XRNG_HD inline bool dropout_keep_f64(float rand, double p1m) { return static_cast<double>(rand) < p1m; }

// ---- random_ / randint into any integer element type, and dropout: whole draws --------------
// T is int64_t, int32_t, int16_t, int8_t, uint8_t, bool, uint16_t, uint32_t or
// uint64_t (torch's int64 ... uint64; rng/detail/torch_random.h); n
// contiguous elements, each launch split at torch's 32-bit indexing bound by
// sizeof(T). Exact (integer arithmetic on cuRAND's words, read from torch
// 2.15's ATen/native/cuda/DistributionTemplates.h). Each throws
// std::invalid_argument before drawing (the offset unmoved) where torch refuses.

// torch.randint(low, high, (n,), dtype=T, device="cuda") / random_(low, high):
// (w mod (high - low)) + low, 32-bit words (a uint4: unroll 4) below a range
// of 2^28, 64-bit words (random64 of a ulonglong2: unroll 2) from it up.
template <class T>
void randint(State& s, Device d, uint64_t n, int64_t low, int64_t high, T* out) {
  const uint64_t range = torch_random::from_to_range<T>(low, high, "torch_cuda randint");
  if (range >= (1ull << 28)) {
    for_each(s, n, sizeof(T), 2, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      out[i] = torch_random::from_to_value<T>(random64(w, lane), range, low);
    });
  } else {
    for_each(s, n, sizeof(T), 4, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      out[i] = torch_random::from_to_value<T>(w.v[lane], range, low);
    });
  }
}

// random_() without a range (random_kernel): int64 a 64-bit word (unroll 2),
// the other types one 32-bit word (unroll 4), mod max + 1 (bool: w & 1). Not
// for uint16/32/64 (torch has none).
template <class T>
void random(State& s, Device d, uint64_t n, T* out) {
  const uint64_t mod = torch_random::modulus<T>("torch_cuda random_");
  if (torch_random::random_wide<T>) {
    for_each(s, n, sizeof(T), 2, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      out[i] = static_cast<T>(random_value(random64(w, lane), mod));
    });
  } else {
    for_each(s, n, sizeof(T), 4, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      out[i] = static_cast<T>(random_value(w.v[lane], mod));
    });
  }
}

// random_(from, None): from = INT64_MIN is the full 64-bit range
// (random_full_64_bits_range_kernel: its own launch, a ulonglong2 per two
// elements, unroll 2, each element random64's bits as an int64; int64 only
// among the integer types); any other `from` within T is random_from_to_kernel
// on [from, max(T)], as randint(from, max + 1). uint64 has none in torch.
template <class T>
void random_from(State& s, Device d, uint64_t n, int64_t from, T* out) {
  if (from == std::numeric_limits<int64_t>::min()) {
    torch_random::check_full_range<T>("torch_cuda random_");
    for_each(s, n, sizeof(T), 2, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      out[i] = static_cast<T>(static_cast<int64_t>(random64(w, lane)));
    });
    return;
  }
  const uint64_t range = torch_random::from_range<T>(from, "torch_cuda random_");
  if (range >= (1ull << 28)) {
    for_each(s, n, sizeof(T), 2, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      out[i] = torch_random::from_to_value<T>(random64(w, lane), range, from);
    });
  } else {
    for_each(s, n, sizeof(T), 4, d, [&](uint64_t i, const u32x4& w, uint32_t lane) {
      out[i] = torch_random::from_to_value<T>(w.v[lane], range, from);
    });
  }
}

// torch.nn.functional.dropout(input, p, training=True) on the CUDA device `d`
// (exact): for 0 < p < 1 native_dropout's fused kernel, whose uniforms
// dropout_slot places (`vec`: get_vector_size's choice; 0 takes dropout_vec(n,
// the dtype's size), a fresh 16-byte aligned allocation's), the offset moved
// by dropout_launch's increment; keep = (u < 1 - p in the accumulation type,
// float or float64 for float64), out = dtype(x keep scale), scale = 1 / (1 - p)
// computed in binary64 and cast to the accumulation type. p = 0 copies the
// input and p = 1 multiplies it by zero, neither drawing (at::dropout's
// non-fused path). n contiguous elements of dtype `t` (16-bit types as raw
// bits); `in` and `out` may be the same memory; `mask`, when given, receives 1
// for a kept element. Throws std::invalid_argument before drawing for p outside
// [0, 1] or a `vec` other than 0, 1, 2, 4, 8.
inline void dropout(State& s, Device d, uint64_t n, Type t, double p, const void* in, void* out,
                    uint8_t* mask = nullptr, uint32_t vec = 0) {
  if (!(p >= 0.0 && p <= 1.0)) throw std::invalid_argument("torch_cuda dropout: p must be in [0, 1]");
  if (vec != 0 && vec != 1 && vec != 2 && vec != 4 && vec != 8)
    throw std::invalid_argument("torch_cuda dropout: vec must be 1, 2, 4 or 8 (0: torch's choice)");
  const uint32_t es = type_size(t);
  auto load = [&](uint64_t i) -> double {
    switch (t) {
      case Type::f64: return static_cast<const double*>(in)[i];
      case Type::f32: return static_cast<const float*>(in)[i];
      case Type::f16: return math::f16_bits_to_f32(static_cast<const uint16_t*>(in)[i]);
      default: return math::bf16_bits_to_f32(static_cast<const uint16_t*>(in)[i]);
    }
  };
  if (n == 0) return;
  if (p == 0.0 || p == 1.0) {  // no draw: the input, or the input times zero in its dtype
    if (p == 0.0 && in != out) std::memcpy(out, in, n * es);
    for (uint64_t i = 0; i < n; ++i) {
      if (p == 1.0) detail::store(t, out, i, t == Type::f64 ? load(i) * 0.0 : static_cast<double>(static_cast<float>(load(i)) * 0.0f));
      if (mask != nullptr) mask[i] = p == 0.0;
    }
    return;
  }
  const uint32_t v = vec != 0 ? vec : dropout_vec(n, es);
  const Launch L = dropout_launch(n, d);
  const uint64_t off = philox_cuda_state(s, L.counter_offset);
  const double p1m = 1.0 - p;
  const float pf = static_cast<float>(p1m);
  const float scale_f = static_cast<float>(1.0 / static_cast<double>(pf));
  const double scale_d = 1.0 / p1m;
  for (uint64_t i = 0; i < n; ++i) {
    const Slot sl = dropout_slot(L, v, i);
    const float u = curand_uniform(curand4(s.seed, off, sl.thread, sl.round).v[sl.lane]);
    bool keep;
    if (t == Type::f64) {
      keep = dropout_keep_f64(u, p1m);
      detail::store(t, out, i, load(i) * (keep ? 1.0 : 0.0) * scale_d);
    } else {
      keep = dropout_keep_f32(u, pf);
      detail::store(t, out, i, static_cast<float>(load(i)) * (keep ? 1.0f : 0.0f) * scale_f);
    }
    if (mask != nullptr) mask[i] = keep;
  }
}

}  // namespace xrng::torch_cuda
