// xrng's CUDA kernels for the torch CUDA stream: see torch_cuda.h. The
// values come from rng/torch_cuda.h's XRNG_HD element functions; nothing
// here computes a value of its own but the stores (each the conversion the
// host bindings' static_cast<scalar_t> makes).
#include "torch_cuda.h"

#include <stdexcept>
#include <string>

#include "detail.cuh"

namespace xrng::cuda::torch_cuda {

uint32_t out_size(Out o) {
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

namespace {

constexpr int kThreads = 256;

// ---- stores: static_cast<scalar_t>(v) of the host bindings ------------------------------------
// float -> integer as the host's x86 code converts (cvttss2si into 32 bits,
// then the low bits, or into 64 bits; NaN or out of range gives the
// integer's minimum). Only geometric_ into an integer dtype converts a
// float to an integer, and only a value beyond the dtype's range (undefined
// in C++) reaches the out-of-range rule.
__device__ __forceinline__ int32_t f32_to_i32_x86(float v) {
  return (v >= -2147483648.0f && v < 2147483648.0f) ? static_cast<int32_t>(v) : INT32_MIN;
}
__device__ __forceinline__ int64_t f32_to_i64_x86(float v) {
  return (v >= -9223372036854775808.0f && v < 9223372036854775808.0f) ? static_cast<int64_t>(v) : INT64_MIN;
}

template <Out O>
__device__ __forceinline__ void store(void* out, uint64_t i, float v) {
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
__device__ __forceinline__ void store_int(void* out, uint64_t i, int64_t v) {
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
  __device__ void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    store<O>(o, i, u(tg::curand_uniform(w.v[lane])));
  }
};
struct UniformD {
  tg::UniformF64 u;
  __device__ void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    static_cast<double*>(o)[i] = u(tg::uniform2_double(w, lane));
  }
};
template <Out O>
struct NormalF {
  float mean, sd;
  __device__ void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    store<O>(o, i, tg::hd::fma_(tg::normal4_lane(w, lane), sd, mean));
  }
};
struct NormalD {
  double mean, sd;
  __device__ void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    static_cast<double*>(o)[i] = tg::hd::fma_(tg::normal2_double_lane(w, lane), sd, mean);
  }
};
template <Out O>
struct ExponentialF {
  float lambda;
  __device__ void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    store<O>(o, i, tg::exponential_f32(tg::curand_uniform(w.v[lane]), lambda));
  }
};
struct ExponentialD {
  double lambda;
  __device__ void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    static_cast<double*>(o)[i] = tg::exponential_f64(tg::uniform2_double(w, lane), lambda);
  }
};
template <Out O>
struct LogNormalF {
  float mean, sd;
  __device__ void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    store<O>(o, i, tg::log_normal_f32(w, lane, mean, sd));
  }
};
struct LogNormalD {
  double mean, sd;
  __device__ void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    static_cast<double*>(o)[i] = tg::log_normal_f64(w, lane, mean, sd);
  }
};
template <Out O>
struct CauchyF {
  float median, sigma;
  __device__ void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    store<O>(o, i, tg::cauchy_f32(tg::curand_uniform(w.v[lane]), median, sigma));
  }
};
struct CauchyD {
  double median, sigma;
  __device__ void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    static_cast<double*>(o)[i] = tg::cauchy_f64(tg::uniform2_double(w, lane), median, sigma);
  }
};
template <Out O>
struct GeometricF {
  float log_q;
  __device__ void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    store<O>(o, i, tg::geometric_f32(tg::curand_uniform(w.v[lane]), log_q));
  }
};
struct GeometricD {
  double log_q;
  __device__ void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    static_cast<double*>(o)[i] = tg::geometric_f64(tg::uniform2_double(w, lane), log_q);
  }
};
template <Out O>
struct BernoulliF {
  float p;
  __device__ void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    store<O>(o, i, tg::curand_uniform(w.v[lane]) < p ? 1.0f : 0.0f);
  }
};
struct BernoulliD {
  double p;
  __device__ void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    static_cast<double*>(o)[i] = tg::uniform2_double(w, lane) < p ? 1.0 : 0.0;
  }
};
template <Out O>
struct Randint32 {  // range < 2^28: one 32-bit word per value
  uint64_t range;
  int64_t low;
  __device__ void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    store_int<O>(o, i, tg::uniform_int_from_to(w.v[lane], range, low));
  }
};
template <Out O>
struct Randint64 {  // range >= 2^28: random64 of words 2 lane, 2 lane + 1
  uint64_t range;
  int64_t low;
  __device__ void operator()(void* o, uint64_t i, const u32x4& w, uint32_t lane) const {
    store_int<O>(o, i, tg::uniform_int_from_to(tg::random64(w, lane), range, low));
  }
};

// ---- the kernel: one work item per (thread, curand4 call) of torch's launch -------------------
// Item g is thread g mod S's call g / S (S = L.threads()); its lanes write
// the elements tg::element_of names (the grid-stride loop of torch's
// distribution_elementwise_grid_stride_kernel), so each curand4 is computed
// once. `out` points at the piece's first element.
template <class Op>
__global__ void __launch_bounds__(kThreads) elementwise(Op op, uint64_t seed, uint64_t offset, tg::Launch L,
                                                        void* out) {
  const uint64_t S = L.threads();
  const uint64_t items = S * L.rounds();
  const uint64_t step = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t g = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; g < items; g += step) {
    const uint64_t t = g % S, r = g / S;
    if (tg::element_of(L, t, r, 0) >= L.numel) continue;
    const u32x4 w = tg::curand4(seed, offset, t, r);
    for (uint32_t lane = 0; lane < L.unroll; ++lane) {
      const uint64_t li = tg::element_of(L, t, r, lane);
      if (li < L.numel) op(out, li, w, lane);
    }
  }
}

unsigned blocks_for(uint64_t items) {
  const uint64_t b = (items + kThreads - 1) / kThreads;
  const uint64_t cap = static_cast<uint64_t>(detail::sm_count()) * 32;  // grid-stride beyond that
  return static_cast<unsigned>(b < cap ? (b == 0 ? 1 : b) : cap);
}

template <class Op>
void run(const Op& op, uint64_t seed, const tg::Piece& p, uint32_t esize, void* dev_out, cudaStream_t stream) {
  const tg::Launch& L = p.launch;
  void* out = static_cast<char*>(dev_out) + p.begin * esize;
  elementwise<Op><<<blocks_for(L.threads() * L.rounds()), kThreads, 0, stream>>>(op, seed, p.offset, L, out);
  detail::check(cudaGetLastError(), "torch_cuda kernel launch");
}

tg::Type float_type(Out o) {
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
void with_out(Out o, F&& f) {
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

void check_args(const Args& a) {
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

}  // namespace

uint32_t unroll_of(const Args& a) {
  if (a.draw == Draw::randint) return a.range >= (1ull << 28) ? 2 : 4;
  return a.out == Out::f64 ? 2 : 4;
}

void launch_piece(const Args& a, uint64_t seed, const tg::Piece& p, void* dev_out, cudaStream_t stream) {
  check_args(a);
  if (p.launch.unroll != unroll_of(a)) throw std::invalid_argument("torch_cuda launch_piece: the piece's unroll is not the draw's");
  if (p.launch.numel == 0) return;
  if (dev_out == nullptr) throw std::invalid_argument("torch_cuda draw: null output");
  const uint32_t es = out_size(a.out);
  const bool f64 = a.out == Out::f64;
  switch (a.draw) {
    case Draw::uniform:
      if (f64) return run(UniformD{tg::UniformF64(a.a, a.b)}, seed, p, es, dev_out, stream);
      return with_out(a.out, [&]<Out O>() {
        if constexpr (O == Out::f32 || O == Out::f16 || O == Out::bf16)
          run(UniformF<O>{tg::UniformF32(float_type(O), a.a, a.b)}, seed, p, es, dev_out, stream);
      });
    case Draw::normal:
      if (f64) return run(NormalD{a.a, a.b}, seed, p, es, dev_out, stream);
      return with_out(a.out, [&]<Out O>() {
        if constexpr (O == Out::f32 || O == Out::f16 || O == Out::bf16)
          run(NormalF<O>{static_cast<float>(a.a), static_cast<float>(a.b)}, seed, p, es, dev_out, stream);
      });
    case Draw::exponential:
      if (f64) return run(ExponentialD{a.a}, seed, p, es, dev_out, stream);
      return with_out(a.out, [&]<Out O>() {
        if constexpr (O == Out::f32 || O == Out::f16 || O == Out::bf16)
          run(ExponentialF<O>{static_cast<float>(a.a)}, seed, p, es, dev_out, stream);
      });
    case Draw::log_normal:
      if (f64) return run(LogNormalD{a.a, a.b}, seed, p, es, dev_out, stream);
      return with_out(a.out, [&]<Out O>() {
        if constexpr (O == Out::f32 || O == Out::f16 || O == Out::bf16)
          run(LogNormalF<O>{static_cast<float>(a.a), static_cast<float>(a.b)}, seed, p, es, dev_out, stream);
      });
    case Draw::cauchy:
      if (f64) return run(CauchyD{a.a, a.b}, seed, p, es, dev_out, stream);
      return with_out(a.out, [&]<Out O>() {
        if constexpr (O == Out::f32 || O == Out::f16 || O == Out::bf16)
          run(CauchyF<O>{static_cast<float>(a.a), static_cast<float>(a.b)}, seed, p, es, dev_out, stream);
      });
    case Draw::geometric:
      if (f64) return run(GeometricD{tg::nv_log1p(-a.a)}, seed, p, es, dev_out, stream);
      return with_out(a.out, [&]<Out O>() {
        if constexpr (O != Out::f64 && O != Out::b8)
          run(GeometricF<O>{tg::geometric_f32_log_q(a.a)}, seed, p, es, dev_out, stream);
      });
    case Draw::bernoulli:
      if (f64) return run(BernoulliD{a.a}, seed, p, es, dev_out, stream);
      return with_out(a.out, [&]<Out O>() {
        if constexpr (O != Out::f64) run(BernoulliF<O>{static_cast<float>(a.a)}, seed, p, es, dev_out, stream);
      });
    case Draw::randint:
      return with_out(a.out, [&]<Out O>() {
        if constexpr (O != Out::b8) {
          if (a.range >= (1ull << 28))
            run(Randint64<O>{a.range, a.low}, seed, p, es, dev_out, stream);
          else
            run(Randint32<O>{a.range, a.low}, seed, p, es, dev_out, stream);
        }
      });
  }
}

void draw(const Args& a, tg::State& s, tg::Device d, uint64_t n, void* dev_out, cudaStream_t stream) {
  check_args(a);
  if (n == 0) return;
  if (dev_out == nullptr) throw std::invalid_argument("torch_cuda draw: null output");
  tg::pieces(s, n, out_size(a.out), unroll_of(a), d,
             [&](const tg::Piece& p) { launch_piece(a, s.seed, p, dev_out, stream); });
}

// ---- bernoulli_(tensor p) --------------------------------------------------------------------
namespace {
template <Out O, class P>
__global__ void __launch_bounds__(kThreads) bernoulli_tensor_kernel(uint64_t seed, uint64_t offset, uint64_t n,
                                                                    const P* p, void* out) {
  const uint64_t threads = (n + 3) / 4;  // thread t: elements 4t .. 4t + 3, lanes 0 .. 3 of its call
  const uint64_t step = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t t = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < threads; t += step) {
    const u32x4 w = tg::curand4(seed, offset, t, 0);
    for (uint32_t lane = 0; lane < 4 && 4 * t + lane < n; ++lane) {
      const uint64_t i = 4 * t + lane;
      const float u = tg::curand_uniform(w.v[lane]);
      const bool v = static_cast<P>(u) <= p[i];
      store<O>(out, i, v ? 1.0f : 0.0f);
    }
  }
}
}  // namespace

void bernoulli_tensor(tg::State& s, uint64_t n, const void* dev_p, bool p_f64, Out out, void* dev_out,
                      cudaStream_t stream) {
  if (n > (1ull << 34)) throw std::invalid_argument("torch_cuda bernoulli: a tensor p above 2^34 elements is not reproduced");
  if (p_f64 != (out == Out::f64))
    throw std::invalid_argument("torch_cuda bernoulli: p must be float64 for a float64 out, float32 otherwise");
  const uint64_t off = tg::philox_cuda_state(s, 10);  // as tg::bernoulli_tensor, n == 0 included
  if (n == 0) return;
  if (dev_p == nullptr || dev_out == nullptr) throw std::invalid_argument("torch_cuda bernoulli: null buffer");
  const unsigned blocks = blocks_for((n + 3) / 4);
  with_out(out, [&]<Out O>() {
    if constexpr (O == Out::f64)
      bernoulli_tensor_kernel<O, double><<<blocks, kThreads, 0, stream>>>(s.seed, off, n, static_cast<const double*>(dev_p), dev_out);
    else
      bernoulli_tensor_kernel<O, float><<<blocks, kThreads, 0, stream>>>(s.seed, off, n, static_cast<const float*>(dev_p), dev_out);
  });
  detail::check(cudaGetLastError(), "torch_cuda bernoulli kernel launch");
}

// ---- dropout ---------------------------------------------------------------------------------
namespace {
template <class T>
struct Storage;  // the element type and its conversions to and from the accumulation type
template <>
struct Storage<float> {
  using acc = float;
  __device__ static float load(const void* p, uint64_t i) { return static_cast<const float*>(p)[i]; }
  __device__ static void put(void* p, uint64_t i, float v) { static_cast<float*>(p)[i] = v; }
};
template <>
struct Storage<double> {
  using acc = double;
  __device__ static double load(const void* p, uint64_t i) { return static_cast<const double*>(p)[i]; }
  __device__ static void put(void* p, uint64_t i, double v) { static_cast<double*>(p)[i] = v; }
};
struct Half {};
struct BFloat16 {};
template <>
struct Storage<Half> {
  using acc = float;
  __device__ static float load(const void* p, uint64_t i) { return math::f16_bits_to_f32(static_cast<const uint16_t*>(p)[i]); }
  __device__ static void put(void* p, uint64_t i, float v) { static_cast<uint16_t*>(p)[i] = math::f32_to_f16_bits(v); }
};
template <>
struct Storage<BFloat16> {
  using acc = float;
  __device__ static float load(const void* p, uint64_t i) { return math::bf16_bits_to_f32(static_cast<const uint16_t*>(p)[i]); }
  __device__ static void put(void* p, uint64_t i, float v) { static_cast<uint16_t*>(p)[i] = math::f32_to_bf16_bits(v); }
};

// One element per GPU thread (the element's uniform is lane dropout_slot(i)
// of its call; a call shared by up to 4 elements is computed by each).
template <class T>
__global__ void __launch_bounds__(kThreads) dropout_kernel(uint64_t seed, uint64_t offset, tg::Launch L, uint32_t vec,
                                                           typename Storage<T>::acc pa, typename Storage<T>::acc scale,
                                                           const void* in, void* out, bool* mask) {
  using acc_t = typename Storage<T>::acc;
  const uint64_t step = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < L.numel; i += step) {
    const tg::Slot sl = tg::dropout_slot(L, vec, i);
    const float u = tg::curand_uniform(tg::curand4(seed, offset, sl.thread, sl.round).v[sl.lane]);
    const float keep = static_cast<acc_t>(u) < pa ? 1.0f : 0.0f;
    const acc_t prod = static_cast<acc_t>(Storage<T>::load(in, i) * keep);
    Storage<T>::put(out, i, prod * scale);
    mask[i] = keep != 0.0f;
  }
}
template <class T>
void run_dropout(uint64_t seed, uint64_t off, const tg::Launch& L, uint32_t vec, double p, const void* in, void* out,
                 bool* mask, cudaStream_t stream) {
  using acc_t = typename Storage<T>::acc;
  const double p1m = 1.0 - p;
  const acc_t pa = static_cast<acc_t>(p1m);
  const acc_t scale = static_cast<acc_t>(1.0 / pa);
  dropout_kernel<T><<<blocks_for(L.numel), kThreads, 0, stream>>>(seed, off, L, vec, pa, scale, in, out, mask);
  detail::check(cudaGetLastError(), "torch_cuda dropout kernel launch");
}
}  // namespace

void dropout(tg::State& s, tg::Device d, uint64_t n, uint32_t vec, double p, Out t, const void* dev_in,
             void* dev_out, bool* dev_mask, cudaStream_t stream) {
  if (vec != 1 && vec != 2 && vec != 4 && vec != 8) throw std::invalid_argument("torch_cuda dropout: vec must be 1, 2, 4 or 8");
  float_type(t);
  if (n == 0) return;
  if (dev_in == nullptr || dev_out == nullptr || dev_mask == nullptr)
    throw std::invalid_argument("torch_cuda dropout: null buffer");
  const tg::Launch L = tg::dropout_launch(n, d);
  const uint64_t off = tg::philox_cuda_state(s, L.counter_offset);
  switch (t) {
    case Out::f32: return run_dropout<float>(s.seed, off, L, vec, p, dev_in, dev_out, dev_mask, stream);
    case Out::f64: return run_dropout<double>(s.seed, off, L, vec, p, dev_in, dev_out, dev_mask, stream);
    case Out::f16: return run_dropout<Half>(s.seed, off, L, vec, p, dev_in, dev_out, dev_mask, stream);
    default: return run_dropout<BFloat16>(s.seed, off, L, vec, p, dev_in, dev_out, dev_mask, stream);
  }
}

}  // namespace xrng::cuda::torch_cuda
