// The host model of the torch CUDA stream's draws as the torch bindings run
// it (bindings/torch_cuda_ops.cpp: rng/torch_cuda.h's element functions,
// then static_cast<scalar_t>), for the tests of xrng's kernels for that
// stream: test_cuda_torch.cu (the GPU's output) and test_cuda_host.cpp (the
// kernels' work items run on the CPU).
#pragma once

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "device/torch_cuda_ops.h"

namespace xrng_gpu_test::torch_cuda_ref {

namespace tg = xrng::torch_cuda;
namespace tk = xrng::cuda::torch_cuda;
using tk::Draw;
using tk::Out;

// The host model of one element value, as the bindings' loops store it
// (static_cast<scalar_t>: f16/bf16 by xrng's round-to-nearest-even bits).
template <class T>
inline void put(std::vector<uint8_t>& out, uint64_t i, T v) {
  std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
}
inline void store_float(Out o, std::vector<uint8_t>& out, uint64_t i, float v) {
  switch (o) {
    case Out::f32: return put(out, i, v);
    case Out::f64: return put(out, i, static_cast<double>(v));
    case Out::f16: return put(out, i, xrng::math::f32_to_f16_bits(v));
    case Out::bf16: return put(out, i, xrng::math::f32_to_bf16_bits(v));
    case Out::i64: return put(out, i, static_cast<int64_t>(v));
    case Out::i32: return put(out, i, static_cast<int32_t>(v));
    case Out::i16: return put(out, i, static_cast<int16_t>(v));
    case Out::i8: return put(out, i, static_cast<int8_t>(v));
    case Out::u8: return put(out, i, static_cast<uint8_t>(v));
    case Out::b8: return put(out, i, static_cast<bool>(v));
  }
}
inline void store_int(Out o, std::vector<uint8_t>& out, uint64_t i, int64_t v) {
  switch (o) {
    case Out::f32: return put(out, i, static_cast<float>(v));
    case Out::f64: return put(out, i, static_cast<double>(v));
    case Out::f16: return put(out, i, xrng::math::f32_to_f16_bits(static_cast<float>(v)));
    case Out::bf16: return put(out, i, xrng::math::f32_to_bf16_bits(static_cast<float>(v)));
    case Out::i64: return put(out, i, v);
    case Out::i32: return put(out, i, static_cast<int32_t>(v));
    case Out::i16: return put(out, i, static_cast<int16_t>(v));
    case Out::i8: return put(out, i, static_cast<int8_t>(v));
    case Out::u8: return put(out, i, static_cast<uint8_t>(v));
    case Out::b8: return put(out, i, v != 0);
  }
}

// The host value of element (w, lane) of draw a (the bindings' lambdas).
inline void host_value(const tk::Args& a, const xrng::u32x4& w, uint32_t lane, std::vector<uint8_t>& out, uint64_t i) {
  const bool f64 = a.out == Out::f64;
  const float fa = static_cast<float>(a.a), fb = static_cast<float>(a.b);
  switch (a.draw) {
    case Draw::uniform:
      if (f64) return put(out, i, tg::UniformF64(a.a, a.b)(tg::uniform2_double(w, lane)));
      return store_float(a.out, out, i,
                         tg::UniformF32(a.out == Out::f32 ? tg::Type::f32 : a.out == Out::f16 ? tg::Type::f16 : tg::Type::bf16,
                                        a.a, a.b)(tg::curand_uniform(w.v[lane])));
    case Draw::normal:
      if (f64) return put(out, i, std::fma(tg::normal2_double_lane(w, lane), a.b, a.a));
      return store_float(a.out, out, i, std::fma(tg::normal4_lane(w, lane), fb, fa));
    case Draw::exponential:
      if (f64) return put(out, i, tg::exponential_f64(tg::uniform2_double(w, lane), a.a));
      return store_float(a.out, out, i, tg::exponential_f32(tg::curand_uniform(w.v[lane]), fa));
    case Draw::log_normal:
      if (f64) return put(out, i, tg::log_normal_f64(w, lane, a.a, a.b));
      return store_float(a.out, out, i, tg::log_normal_f32(w, lane, fa, fb));
    case Draw::cauchy:
      if (f64) return put(out, i, tg::cauchy_f64(tg::uniform2_double(w, lane), a.a, a.b));
      return store_float(a.out, out, i, tg::cauchy_f32(tg::curand_uniform(w.v[lane]), fa, fb));
    case Draw::geometric:
      if (f64) return put(out, i, tg::geometric_f64(tg::uniform2_double(w, lane), tg::nv_log1p(-a.a)));
      return store_float(a.out, out, i, tg::geometric_f32(tg::curand_uniform(w.v[lane]), tg::geometric_f32_log_q(a.a)));
    case Draw::bernoulli:
      if (f64) return put(out, i, tg::uniform2_double(w, lane) < a.a ? 1.0 : 0.0);
      return store_float(a.out, out, i, tg::curand_uniform(w.v[lane]) < fa ? 1.0f : 0.0f);
    case Draw::randint:
      return store_int(a.out, out, i,
                       a.range >= (1ull << 28) ? tg::uniform_int_from_to(tg::random64(w, lane), a.range, a.low)
                                               : tg::uniform_int_from_to(w.v[lane], a.range, a.low));
  }
}

inline std::vector<uint8_t> host_draw(const tk::Args& a, tg::State& s, tg::Device d, uint64_t n) {
  const uint32_t es = tk::out_size(a.out);
  std::vector<uint8_t> out(n * es);
  tg::for_each(s, n, es, tk::unroll_of(a), d,
               [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) { host_value(a, w, lane, out, i); });
  return out;
}

inline uint64_t first_mismatch(const std::vector<uint8_t>& x, const std::vector<uint8_t>& y, uint32_t es) {
  for (uint64_t i = 0; i < x.size(); ++i)
    if (x[i] != y[i]) return i / es;
  return std::numeric_limits<uint64_t>::max();
}

inline const char* out_name(Out o) {
  static const char* names[] = {"f32", "f64", "f16", "bf16", "i64", "i32", "i16", "i8", "u8", "bool"};
  return names[static_cast<int>(o)];
}

// Every draw and dtype the kernels fill, with parameters on both sides of
// each branch (uniform's range, randint's 2^28 path).
inline std::vector<tk::Args> all_draws() {
  const Out floats[] = {Out::f32, Out::f64, Out::f16, Out::bf16};
  const Out all[] = {Out::f32, Out::f64, Out::f16, Out::bf16, Out::i64, Out::i32, Out::i16, Out::i8, Out::u8, Out::b8};
  std::vector<tk::Args> draws;
  for (Out o : floats) {
    draws.push_back({Draw::uniform, o, 0.0, 1.0});
    draws.push_back({Draw::uniform, o, -2.0, 3.5});
    draws.push_back({Draw::normal, o, 0.0, 1.0});
    draws.push_back({Draw::normal, o, 0.5, 2.0});
    draws.push_back({Draw::exponential, o, 1.5});
    draws.push_back({Draw::log_normal, o, 0.25, 0.75});
    draws.push_back({Draw::cauchy, o, 0.5, 2.0});
  }
  for (Out o : all) {
    if (o != Out::b8) draws.push_back({Draw::geometric, o, 0.3});
    draws.push_back({Draw::bernoulli, o, 0.37});
    if (o == Out::b8) continue;
    draws.push_back({Draw::randint, o, 0, 0, 3, 10});  // [3, 13): 32-bit words, unroll 4
    if (o == Out::i64 || o == Out::f64 || o == Out::f32)
      draws.push_back({Draw::randint, o, 0, 0, -(1ll << 20), 1ull << 40});  // 64-bit words, unroll 2
  }
  return draws;
}

}  // namespace xrng_gpu_test::torch_cuda_ref
