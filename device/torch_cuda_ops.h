// The element operations of xrng's kernels for the torch CUDA stream
// (device/torch_cuda.cu), host and device (XRNG_HD): each is the store the
// host bindings make (bindings/torch_cuda_ops.cpp cuda_draw's lambdas) of
// the value rng/torch_cuda.h's element functions give. Shared with the
// CPU-only test (tests/gpu/test_cuda_host.cpp), which runs the kernels'
// work items on the host against the host model. Internal: no CUDA types.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "rng/torch_cuda.h"

namespace xrng::cuda::torch_cuda {

namespace tg = xrng::torch_cuda;

// The output's element type (the torch dtypes the host bindings fill).
enum class Out : uint8_t { f32, f64, f16, bf16, i64, i32, i16, i8, u8, b8 };
inline bool out_is_float(Out o) { return o == Out::f32 || o == Out::f64 || o == Out::f16 || o == Out::bf16; }

enum class Draw : uint8_t { uniform, normal, exponential, log_normal, cauchy, geometric, bernoulli, randint };

// A draw and its parameters, as the torch bindings pass them to the host
// model: uniform [a, b); normal mean a, std b; exponential lambda a;
// log_normal mean a, std b; cauchy median a, sigma b; geometric p = a;
// bernoulli p = a; randint low + (word mod range), range >= 1 (the bindings
// apply torch's update_from / update_to and dtype checks first).
struct Args {
  Draw draw = Draw::uniform;
  Out out = Out::f32;
  double a = 0.0, b = 1.0;
  int64_t low = 0;
  uint64_t range = 0;
};

XRNG_HD inline uint32_t out_size(Out o) {
  switch (o) {
    case Out::f64:
    case Out::i64: return 8;
    case Out::f32:
    case Out::i32: return 4;
    case Out::f16:
    case Out::bf16:
    case Out::i16: return 2;
    default: return 1;
  }
}

namespace ops {

// ---- stores: static_cast<scalar_t>(v) of the host bindings ------------------------------------
// float -> integer as the host's x86 code converts (cvttss2si into 32 bits,
// then the low bits, or into 64 bits; NaN or out of range gives the
// integer's minimum). Only geometric_ into an integer dtype converts a
// float to an integer, and only a value beyond the dtype's range (undefined
// in C++) reaches the out-of-range rule.
XRNG_HD XRNG_INLINE int32_t f32_to_i32_x86(float v) {
  return (v >= -2147483648.0f && v < 2147483648.0f) ? static_cast<int32_t>(v) : INT32_MIN;
}
XRNG_HD XRNG_INLINE int64_t f32_to_i64_x86(float v) {
  return (v >= -9223372036854775808.0f && v < 9223372036854775808.0f) ? static_cast<int64_t>(v) : INT64_MIN;
}

template <Out O>
XRNG_HD XRNG_INLINE void store(void* out, uint64_t i, float v) {
  if constexpr (O == Out::f32) static_cast<float*>(out)[i] = v;
  else if constexpr (O == Out::f64) static_cast<double*>(out)[i] = static_cast<double>(v);
  else if constexpr (O == Out::f16) static_cast<uint16_t*>(out)[i] = math::f32_to_f16_bits(v);
  else if constexpr (O == Out::bf16) static_cast<uint16_t*>(out)[i] = math::f32_to_bf16_bits(v);
  else if constexpr (O == Out::i64) static_cast<int64_t*>(out)[i] = f32_to_i64_x86(v);
  else if constexpr (O == Out::i32) static_cast<int32_t*>(out)[i] = f32_to_i32_x86(v);
  else if constexpr (O == Out::i16) static_cast<int16_t*>(out)[i] = static_cast<int16_t>(f32_to_i32_x86(v));
  else if constexpr (O == Out::i8) static_cast<int8_t*>(out)[i] = static_cast<int8_t>(f32_to_i32_x86(v));
  else if constexpr (O == Out::u8) static_cast<uint8_t*>(out)[i] = static_cast<uint8_t>(f32_to_i32_x86(v));
  else static_cast<bool*>(out)[i] = v != 0.0f;
}
// randint's int64 value
template <Out O>
XRNG_HD XRNG_INLINE void store_int(void* out, uint64_t i, int64_t v) {
  if constexpr (O == Out::f32) static_cast<float*>(out)[i] = static_cast<float>(v);
  else if constexpr (O == Out::f64) static_cast<double*>(out)[i] = static_cast<double>(v);
  else if constexpr (O == Out::f16) static_cast<uint16_t*>(out)[i] = math::f32_to_f16_bits(static_cast<float>(v));
  else if constexpr (O == Out::bf16) static_cast<uint16_t*>(out)[i] = math::f32_to_bf16_bits(static_cast<float>(v));
  else if constexpr (O == Out::i64) static_cast<int64_t*>(out)[i] = v;
  else if constexpr (O == Out::i32) static_cast<int32_t*>(out)[i] = static_cast<int32_t>(v);
  else if constexpr (O == Out::i16) static_cast<int16_t*>(out)[i] = static_cast<int16_t>(v);
  else if constexpr (O == Out::i8) static_cast<int8_t*>(out)[i] = static_cast<int8_t>(v);
  else if constexpr (O == Out::u8) static_cast<uint8_t*>(out)[i] = static_cast<uint8_t>(v);
  else static_cast<bool*>(out)[i] = v != 0;
}

// ---- the element operations (bindings/torch_cuda_ops.cpp cuda_draw's lambdas) ----------------
template <Out O>
struct UniformF {
  tg::UniformF32 u;
  XRNG_HD void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    store<O>(o, i, u(tg::curand_uniform(w.v[lane])));
  }
};
struct UniformD {
  tg::UniformF64 u;
  XRNG_HD void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    static_cast<double*>(o)[i] = u(tg::uniform2_double(w, lane));
  }
};
template <Out O>
struct NormalF {
  float mean, sd;
  XRNG_HD void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    store<O>(o, i, tg::hd::fma_(tg::normal4_lane(w, lane), sd, mean));
  }
};
struct NormalD {
  double mean, sd;
  XRNG_HD void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    static_cast<double*>(o)[i] = tg::hd::fma_(tg::normal2_double_lane(w, lane), sd, mean);
  }
};
template <Out O>
struct ExponentialF {
  float lambda;
  XRNG_HD void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    store<O>(o, i, tg::exponential_f32(tg::curand_uniform(w.v[lane]), lambda));
  }
};
struct ExponentialD {
  double lambda;
  XRNG_HD void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    static_cast<double*>(o)[i] = tg::exponential_f64(tg::uniform2_double(w, lane), lambda);
  }
};
template <Out O>
struct LogNormalF {
  float mean, sd;
  XRNG_HD void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    store<O>(o, i, tg::log_normal_f32(w, lane, mean, sd));
  }
};
struct LogNormalD {
  double mean, sd;
  XRNG_HD void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    static_cast<double*>(o)[i] = tg::log_normal_f64(w, lane, mean, sd);
  }
};
template <Out O>
struct CauchyF {
  float median, sigma;
  XRNG_HD void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    store<O>(o, i, tg::cauchy_f32(tg::curand_uniform(w.v[lane]), median, sigma));
  }
};
struct CauchyD {
  double median, sigma;
  XRNG_HD void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    static_cast<double*>(o)[i] = tg::cauchy_f64(tg::uniform2_double(w, lane), median, sigma);
  }
};
template <Out O>
struct GeometricF {
  float log_q;
  XRNG_HD void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    store<O>(o, i, tg::geometric_f32(tg::curand_uniform(w.v[lane]), log_q));
  }
};
struct GeometricD {
  double log_q;
  XRNG_HD void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    static_cast<double*>(o)[i] = tg::geometric_f64(tg::uniform2_double(w, lane), log_q);
  }
};
template <Out O>
struct BernoulliF {
  float p;
  XRNG_HD void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    store<O>(o, i, tg::curand_uniform(w.v[lane]) < p ? 1.0f : 0.0f);
  }
};
struct BernoulliD {
  double p;
  XRNG_HD void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    static_cast<double*>(o)[i] = tg::uniform2_double(w, lane) < p ? 1.0 : 0.0;
  }
};
template <Out O>
struct Randint32 {  // range < 2^28: one 32-bit word per value
  uint64_t range;
  int64_t low;
  XRNG_HD void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    store_int<O>(o, i, tg::uniform_int_from_to(w.v[lane], range, low));
  }
};
template <Out O>
struct Randint64 {  // range >= 2^28: random64 of words 2 lane, 2 lane + 1
  uint64_t range;
  int64_t low;
  XRNG_HD void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    store_int<O>(o, i, tg::uniform_int_from_to(tg::random64(w, lane), range, low));
  }
};

// One work item of a launch: thread g mod S's curand4 call g / S, its
// lanes written to the elements tg::element_of names (below L.numel).
template <class Op>
XRNG_HD XRNG_INLINE void work_item(const Op& op, uint64_t seed, uint64_t offset, const tg::Launch& L, void* out,
                                   uint64_t g) {
  const uint64_t S = L.threads();
  const uint64_t t = g % S, r = g / S;
  if (tg::element_of(L, t, r, 0) >= L.numel) return;
  const u32x4 w = tg::curand4(seed, offset, t, r);
  for (uint32_t lane = 0; lane < L.unroll; ++lane) {
    const uint64_t li = tg::element_of(L, t, r, lane);
    if (li < L.numel) op(out, li, w, lane);
  }
}

// bernoulli_(tensor p), thread t: elements 4t .. 4t + 3 from lanes 0 .. 3 of its call.
template <Out O, class P>
XRNG_HD XRNG_INLINE void bernoulli_tensor_item(uint64_t seed, uint64_t offset, uint64_t n, const P* p, void* out,
                                               uint64_t t) {
  const u32x4 w = tg::curand4(seed, offset, t, 0);
  for (uint32_t lane = 0; lane < 4 && 4 * t + lane < n; ++lane) {
    const uint64_t i = 4 * t + lane;
    const float u = tg::curand_uniform(w.v[lane]);
    const bool v = static_cast<P>(u) <= p[i];
    store<O>(out, i, v ? 1.0f : 0.0f);
  }
}

// dropout's storage types: the element and its conversions to and from the accumulation type.
struct Half {};
struct BFloat16 {};
template <class T>
struct Storage;
template <>
struct Storage<float> {
  using acc = float;
  XRNG_HD static float load(const void* p, uint64_t i) { return static_cast<const float*>(p)[i]; }
  XRNG_HD static void put(void* p, uint64_t i, float v) { static_cast<float*>(p)[i] = v; }
};
template <>
struct Storage<double> {
  using acc = double;
  XRNG_HD static double load(const void* p, uint64_t i) { return static_cast<const double*>(p)[i]; }
  XRNG_HD static void put(void* p, uint64_t i, double v) { static_cast<double*>(p)[i] = v; }
};
template <>
struct Storage<Half> {
  using acc = float;
  XRNG_HD static float load(const void* p, uint64_t i) { return math::f16_bits_to_f32(static_cast<const uint16_t*>(p)[i]); }
  XRNG_HD static void put(void* p, uint64_t i, float v) { static_cast<uint16_t*>(p)[i] = math::f32_to_f16_bits(v); }
};
template <>
struct Storage<BFloat16> {
  using acc = float;
  XRNG_HD static float load(const void* p, uint64_t i) { return math::bf16_bits_to_f32(static_cast<const uint16_t*>(p)[i]); }
  XRNG_HD static void put(void* p, uint64_t i, float v) { static_cast<uint16_t*>(p)[i] = math::f32_to_bf16_bits(v); }
};

// dropout's element i: its uniform at tg::dropout_slot, keep = u < 1 - p (in
// the accumulation type), out = T(acc(in * keep) * scale), mask = keep.
template <class T>
XRNG_HD XRNG_INLINE void dropout_element(uint64_t seed, uint64_t offset, const tg::Launch& L, uint32_t vec,
                                         typename Storage<T>::acc pa, typename Storage<T>::acc scale, const void* in,
                                         void* out, bool* mask, uint64_t i) {
  using acc_t = typename Storage<T>::acc;
  const tg::Slot sl = tg::dropout_slot(L, vec, i);
  const float u = tg::curand_uniform(tg::curand4(seed, offset, sl.thread, sl.round).v[sl.lane]);
  const float keep = static_cast<acc_t>(u) < pa ? 1.0f : 0.0f;
  const acc_t prod = static_cast<acc_t>(Storage<T>::load(in, i) * keep);
  Storage<T>::put(out, i, prod * scale);
  mask[i] = keep != 0.0f;
}

}  // namespace ops

// ---- host side: the draw's checks, unroll and operation ------------------------------------------
inline tg::Type float_type(Out o) {
  switch (o) {
    case Out::f32: return tg::Type::f32;
    case Out::f64: return tg::Type::f64;
    case Out::f16: return tg::Type::f16;
    case Out::bf16: return tg::Type::bf16;
    default: throw std::invalid_argument("torch_cuda draw: dtype must be a floating type");
  }
}

// f<O>() for the runtime output type.
template <class F>
inline void with_out(Out o, F&& f) {
  switch (o) {
    case Out::f32: f.template operator()<Out::f32>(); break;
    case Out::f64: f.template operator()<Out::f64>(); break;
    case Out::f16: f.template operator()<Out::f16>(); break;
    case Out::bf16: f.template operator()<Out::bf16>(); break;
    case Out::i64: f.template operator()<Out::i64>(); break;
    case Out::i32: f.template operator()<Out::i32>(); break;
    case Out::i16: f.template operator()<Out::i16>(); break;
    case Out::i8: f.template operator()<Out::i8>(); break;
    case Out::u8: f.template operator()<Out::u8>(); break;
    case Out::b8: f.template operator()<Out::b8>(); break;
  }
}

inline void check_args(const Args& a) {
  switch (a.draw) {
    case Draw::uniform:
    case Draw::normal:
    case Draw::exponential:
    case Draw::log_normal:
    case Draw::cauchy: float_type(a.out); break;
    case Draw::geometric:
      if (a.out == Out::b8) throw std::invalid_argument("torch_cuda geometric: dtype bool");
      break;
    case Draw::randint:
      if (a.out == Out::b8) throw std::invalid_argument("torch_cuda randint: dtype bool");
      break;
    case Draw::bernoulli: break;
  }
  if (a.draw == Draw::exponential && !(a.a > 0.0)) throw std::invalid_argument("torch_cuda exponential: lambda must be > 0");
  if ((a.draw == Draw::log_normal || a.draw == Draw::cauchy) && !(a.b > 0.0))
    throw std::invalid_argument(a.draw == Draw::cauchy ? "torch_cuda cauchy: sigma must be > 0"
                                                       : "torch_cuda log_normal: std must be > 0");
  if (a.draw == Draw::geometric && !(a.a > 0.0 && a.a < 1.0))
    throw std::invalid_argument("torch_cuda geometric: p must be in (0, 1)");
  if (a.draw == Draw::bernoulli && !(a.a >= 0.0 && a.a <= 1.0))
    throw std::invalid_argument("torch_cuda bernoulli: p must be in [0, 1]");
  if (a.draw == Draw::randint && a.range == 0) throw std::invalid_argument("torch_cuda randint: empty range");
}

inline uint32_t unroll_of(const Args& a) {
  if (a.draw == Draw::randint) return a.range >= (1ull << 28) ? 2 : 4;
  return a.out == Out::f64 ? 2 : 4;
}

// run_op(op) with the element operation of draw a (after check_args).
template <class RunOp>
void with_op(const Args& a, RunOp&& run_op) {
  using namespace ops;
  const bool f64 = a.out == Out::f64;
  switch (a.draw) {
    case Draw::uniform:
      if (f64) return run_op(UniformD{tg::UniformF64(a.a, a.b)});
      return with_out(a.out, [&]<Out O>() {
        if constexpr (O == Out::f32 || O == Out::f16 || O == Out::bf16)
          run_op(UniformF<O>{tg::UniformF32(float_type(O), a.a, a.b)});
      });
    case Draw::normal:
      if (f64) return run_op(NormalD{a.a, a.b});
      return with_out(a.out, [&]<Out O>() {
        if constexpr (O == Out::f32 || O == Out::f16 || O == Out::bf16)
          run_op(NormalF<O>{static_cast<float>(a.a), static_cast<float>(a.b)});
      });
    case Draw::exponential:
      if (f64) return run_op(ExponentialD{a.a});
      return with_out(a.out, [&]<Out O>() {
        if constexpr (O == Out::f32 || O == Out::f16 || O == Out::bf16)
          run_op(ExponentialF<O>{static_cast<float>(a.a)});
      });
    case Draw::log_normal:
      if (f64) return run_op(LogNormalD{a.a, a.b});
      return with_out(a.out, [&]<Out O>() {
        if constexpr (O == Out::f32 || O == Out::f16 || O == Out::bf16)
          run_op(LogNormalF<O>{static_cast<float>(a.a), static_cast<float>(a.b)});
      });
    case Draw::cauchy:
      if (f64) return run_op(CauchyD{a.a, a.b});
      return with_out(a.out, [&]<Out O>() {
        if constexpr (O == Out::f32 || O == Out::f16 || O == Out::bf16)
          run_op(CauchyF<O>{static_cast<float>(a.a), static_cast<float>(a.b)});
      });
    case Draw::geometric:
      if (f64) return run_op(GeometricD{tg::nv_log1p(-a.a)});
      return with_out(a.out, [&]<Out O>() {
        if constexpr (O != Out::f64 && O != Out::b8)
          run_op(GeometricF<O>{tg::geometric_f32_log_q(a.a)});
      });
    case Draw::bernoulli:
      if (f64) return run_op(BernoulliD{a.a});
      return with_out(a.out, [&]<Out O>() {
        if constexpr (O != Out::f64) run_op(BernoulliF<O>{static_cast<float>(a.a)});
      });
    case Draw::randint:
      return with_out(a.out, [&]<Out O>() {
        if constexpr (O != Out::b8) {
          if (a.range >= (1ull << 28))
            run_op(Randint64<O>{a.range, a.low});
          else
            run_op(Randint32<O>{a.range, a.low});
        }
      });
  }
}

}  // namespace xrng::cuda::torch_cuda
