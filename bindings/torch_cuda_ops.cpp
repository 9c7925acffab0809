// Python entry points of the torch CUDA streams (rng/torch_cuda.h): a thin
// loop from torch's CUDA generator state (seed, philox offset) into a
// contiguous CPU tensor, for a GPU of a given SM count. No arithmetic of its
// own: every value comes from rng/torch_cuda.h (and torch's update_from /
// update_to bounds, rng/torch_cpu.h, shared by torch's CPU and CUDA random_).
#include <torch/extension.h>
#include <ATen/Dispatch_v2.h>
#include <pybind11/pybind11.h>

#include <limits>
#include <tuple>
#include <string>
#include <type_traits>

#include "rng/torch_cpu.h"
#include "rng/torch_cuda.h"
#include "rng/torch_cuda_multinomial.h"
#include "torch_streams.h"

#if defined(XRNG_TORCH_CUDA)
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "../device/torch_cuda.h"
#endif

namespace py = pybind11;
namespace tg = xrng::torch_cuda;

namespace {

constexpr bool has_kernels() {
#if defined(XRNG_TORCH_CUDA)
  return true;
#else
  return false;
#endif
}

template <class T>
constexpr bool is_float_like = std::is_floating_point_v<T> || std::is_same_v<T, at::Half> ||
                               std::is_same_v<T, at::BFloat16>;

tg::Type float_type(at::ScalarType dt, const std::string& kind) {
  if (dt == at::kFloat) return tg::Type::f32;
  if (dt == at::kDouble) return tg::Type::f64;
  if (dt == at::kHalf) return tg::Type::f16;
  if (dt == at::kBFloat16) return tg::Type::bf16;
  throw std::invalid_argument("torch_cuda " + kind + ": dtype must be a floating type");
}

// randint's [low, low + range) for dtype dt: torch's update_from / update_to
// for the floating types, the dtype's bounds for the integers.
std::pair<int64_t, uint64_t> randint_bounds(at::ScalarType dt, int64_t ilow, int64_t ihigh) {
  if (!(ihigh > ilow)) throw std::invalid_argument("torch_cuda randint: high must exceed low");
  int64_t lo = ilow, hi = ihigh;
  AT_DISPATCH_V2(dt, "torch_cuda_randint_bounds", AT_WRAP([&] {
    if constexpr (is_float_like<scalar_t>) {
      auto rt = [](int64_t v) { return static_cast<int64_t>(static_cast<scalar_t>(v)); };
      lo = xrng::torch_cpu::update_from(lo, std::numeric_limits<scalar_t>::digits, rt);
      hi = xrng::torch_cpu::update_to(hi, std::numeric_limits<scalar_t>::digits, rt);
      if (!(lo < hi))
        throw std::invalid_argument("torch_cuda randint: low and high cast to the dtype leave an empty range");
      // torch's check_from_to_in_range: from and to - 1 within the dtype's finite range
      if (static_cast<double>(lo) < static_cast<double>(std::numeric_limits<scalar_t>::lowest()) ||
          static_cast<double>(hi - 1) > static_cast<double>(std::numeric_limits<scalar_t>::max()))
        throw std::invalid_argument("torch_cuda randint: [low, high) does not fit the dtype");
    } else {
      if (ilow < static_cast<int64_t>(std::numeric_limits<scalar_t>::lowest()) ||
          ihigh - 1 > xrng::torch_random::highest<scalar_t>())
        throw std::invalid_argument("torch_cuda randint: [low, high) does not fit the dtype");
    }
  }), AT_EXPAND(AT_ALL_TYPES), at::kBool, at::kHalf, at::kBFloat16, AT_EXPAND(AT_BAREBONES_UNSIGNED_TYPES));
  return {lo, static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)};
}

#if defined(XRNG_TORCH_CUDA)
namespace tk = xrng::cuda::torch_cuda;

tk::Out device_type(at::ScalarType dt) {
  switch (dt) {
    case at::kFloat: return tk::Out::f32;
    case at::kDouble: return tk::Out::f64;
    case at::kHalf: return tk::Out::f16;
    case at::kBFloat16: return tk::Out::bf16;
    case at::kLong: return tk::Out::i64;
    case at::kInt: return tk::Out::i32;
    case at::kShort: return tk::Out::i16;
    case at::kChar: return tk::Out::i8;
    case at::kByte: return tk::Out::u8;
    case at::kBool: return tk::Out::b8;
    default: throw std::invalid_argument(std::string("torch_cuda: dtype ") + c10::toString(dt) + " is not supported");
  }
}

// The current CUDA stream of t's device, with that device current.
struct OnDevice {
  explicit OnDevice(const at::Tensor& t)
      : guard(t.device()), stream(c10::cuda::getCurrentCUDAStream(t.device().index()).stream()) {}
  c10::cuda::CUDAGuard guard;
  cudaStream_t stream;
};

// cuda_draw into a contiguous CUDA tensor: xrng's kernels (device/torch_cuda.h).
uint64_t device_draw(tg::State s, tg::Device d, const std::string& kind, const at::Tensor& out, double a, double b,
                     int64_t ilow, int64_t ihigh) {
  const auto dt = out.scalar_type();
  tk::Args args;
  args.a = a;
  args.b = b;
  if (kind == "uniform") args.draw = tk::Draw::uniform;
  else if (kind == "normal") args.draw = tk::Draw::normal;
  else if (kind == "exponential") args.draw = tk::Draw::exponential;
  else if (kind == "log_normal") args.draw = tk::Draw::log_normal;
  else if (kind == "cauchy") args.draw = tk::Draw::cauchy;
  else if (kind == "geometric") args.draw = tk::Draw::geometric;
  else if (kind == "bernoulli") args.draw = tk::Draw::bernoulli;
  else if (kind == "randint" || kind == "random_from") args.draw = tk::Draw::randint;
  else throw std::invalid_argument("torch_cuda draw: unknown kind '" + kind + "'");
  if (args.draw <= tk::Draw::cauchy) float_type(dt, kind);
  if (args.draw == tk::Draw::geometric && dt == at::kBool)
    throw std::invalid_argument("torch_cuda geometric: dtype must not be bool");
  if (kind == "randint") std::tie(args.low, args.range) = randint_bounds(dt, ilow, ihigh);
  if (kind == "random_from")  // random_(from, None): randint's kernel on [from, the dtype's max or 2^digits]
    std::tie(args.low, args.range) = xrng::torch_streams::random_from_bounds(dt, ilow, "torch_cuda random_");
  args.out = device_type(dt);
  const OnDevice on(out);
  tk::draw(args, s, d, static_cast<uint64_t>(out.numel()), out.data_ptr(), on.stream);
  return s.offset;
}
#endif

}  // namespace

// Fills contiguous CPU `out` with draw `kind`; returns the new philox offset.
uint64_t xrng::torch_streams::cuda_draw(uint64_t seed, uint64_t offset, const std::string& kind, uint32_t sm_count, uint32_t threads_per_sm,
              const at::Tensor& out, double a, double b, int64_t ilow, int64_t ihigh) {
  if (offset % 4 != 0) throw std::invalid_argument("torch_cuda: the philox offset must be a multiple of 4");
#if defined(XRNG_TORCH_CUDA)
  // a contiguous CUDA tensor: filled on its GPU by xrng's kernels (randperm: on the host, then copied)
  if (out.is_cuda() && out.is_contiguous()) {
    // randperm, random_(), random_ over the full 64-bit range and the unsigned dtypes (no xrng kernel
    // for them): on the host, then copied
    const auto dt = out.scalar_type();
    const bool full = kind == "random_from" && ilow == std::numeric_limits<int64_t>::min();
    if (kind != "randperm" && kind != "random" && !full && dt != at::kUInt16 && dt != at::kUInt32 && dt != at::kUInt64)
      return device_draw(tg::State{seed, offset}, tg::Device{sm_count, threads_per_sm}, kind, out, a, b, ilow, ihigh);
    at::Tensor host = at::empty(out.sizes(), out.options().device(at::kCPU));
    const uint64_t next = cuda_draw(seed, offset, kind, sm_count, threads_per_sm, host, a, b, ilow, ihigh);
    out.copy_(host);
    return next;
  }
#endif
  if (out.device().type() != at::kCPU || !out.is_contiguous())
    throw std::invalid_argument(has_kernels() ? "torch_cuda draw: out must be a contiguous CPU or CUDA tensor"
                                              : "torch_cuda draw: out must be a contiguous CPU tensor");
  tg::State s{seed, offset};
  const tg::Device d{sm_count, threads_per_sm};
  const uint64_t n = static_cast<uint64_t>(out.numel());
  const uint32_t esize = static_cast<uint32_t>(out.element_size());
  const auto dt = out.scalar_type();
  if (kind == "uniform" || kind == "normal" || kind == "exponential") {
    const tg::Type t = float_type(dt, kind);
    if (kind == "exponential" && !(a > 0.0))
      throw std::invalid_argument("torch_cuda exponential: lambda must be > 0");
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, dt, "torch_cuda_float", [&] {
      auto* p = out.data_ptr<scalar_t>();
      if constexpr (std::is_same_v<scalar_t, double>) {
        if (kind == "normal") {
          tg::for_each(s, n, esize, 2, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
            p[i] = std::fma(tg::normal2_double_lane(w, lane), b, a);
          });
        } else if (kind == "uniform") {
          const tg::UniformF64 u(a, b);
          tg::for_each(s, n, esize, 2, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
            p[i] = u(tg::uniform2_double(w, lane));
          });
        } else {
          tg::for_each(s, n, esize, 2, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
            p[i] = tg::exponential_f64(tg::uniform2_double(w, lane), a);
          });
        }
      } else {
        if (kind == "uniform") {
          const tg::UniformF32 u(t, a, b);
          tg::for_each(s, n, esize, 4, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
            p[i] = static_cast<scalar_t>(u(tg::curand_uniform(w.v[lane])));
          });
        } else if (kind == "normal") {
          const float mean = static_cast<float>(a), sd = static_cast<float>(b);
          tg::for_each(s, n, esize, 4, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
            p[i] = static_cast<scalar_t>(std::fma(tg::normal4_lane(w, lane), sd, mean));
          });
        } else {
          const float lambda = static_cast<float>(a);
          tg::for_each(s, n, esize, 4, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
            p[i] = static_cast<scalar_t>(tg::exponential_f32(tg::curand_uniform(w.v[lane]), lambda));
          });
        }
      }
    });
  } else if (kind == "log_normal" || kind == "cauchy") {
    float_type(dt, kind);
    if (!(b > 0.0)) throw std::invalid_argument("torch_cuda " + kind + ": " + (kind == "cauchy" ? "sigma" : "std") + " must be > 0");
    const bool ln = kind == "log_normal";
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, dt, "torch_cuda_ln_cauchy", [&] {
      auto* p = out.data_ptr<scalar_t>();
      if constexpr (std::is_same_v<scalar_t, double>) {
        tg::for_each(s, n, esize, 2, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
          p[i] = ln ? tg::log_normal_f64(w, lane, a, b) : tg::cauchy_f64(tg::uniform2_double(w, lane), a, b);
        });
      } else {
        const float fa = static_cast<float>(a), fb = static_cast<float>(b);
        tg::for_each(s, n, esize, 4, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
          p[i] = static_cast<scalar_t>(ln ? tg::log_normal_f32(w, lane, fa, fb)
                                          : tg::cauchy_f32(tg::curand_uniform(w.v[lane]), fa, fb));
        });
      }
    });
  } else if (kind == "geometric") {
    if (!(a > 0.0 && a < 1.0)) throw std::invalid_argument("torch_cuda geometric: p must be in (0, 1)");
    AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, dt, "torch_cuda_geometric", [&] {
      auto* p = out.data_ptr<scalar_t>();
      if constexpr (std::is_same_v<scalar_t, double>) {  // DiscreteDistributionType<double>: curand_uniform2_double
        const double log_q = tg::nv_log1p(-a);
        tg::for_each(s, n, esize, 2, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
          p[i] = tg::geometric_f64(tg::uniform2_double(w, lane), log_q);
        });
      } else {  // float: curand_uniform4
        const float log_q = tg::geometric_f32_log_q(a);
        tg::for_each(s, n, esize, 4, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
          p[i] = static_cast<scalar_t>(tg::geometric_f32(tg::curand_uniform(w.v[lane]), log_q));
        });
      }
    });
  } else if (kind == "bernoulli") {
    if (!(a >= 0.0 && a <= 1.0)) throw std::invalid_argument("torch_cuda bernoulli: p must be in [0, 1]");
    AT_DISPATCH_ALL_TYPES_AND3(at::kBool, at::kHalf, at::kBFloat16, dt, "torch_cuda_bernoulli", [&] {
      auto* p = out.data_ptr<scalar_t>();
      if constexpr (std::is_same_v<scalar_t, double>) {  // DiscreteDistributionType<double>: curand_uniform2_double
        tg::for_each(s, n, esize, 2, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
          p[i] = tg::uniform2_double(w, lane) < a ? 1.0 : 0.0;
        });
      } else {  // float: curand_uniform4 against float(p)
        const float pf = static_cast<float>(a);
        tg::for_each(s, n, esize, 4, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
          p[i] = static_cast<scalar_t>(tg::curand_uniform(w.v[lane]) < pf ? 1.0f : 0.0f);
        });
      }
    });
  } else if (kind == "randint" || kind == "random_from") {
    if (kind == "random_from" && ilow == std::numeric_limits<int64_t>::min()) {
      // random_(-2**63, None): random_full_64_bits_range_kernel, a ulonglong2 per two elements (unroll 2)
      if (n == 0) return s.offset;  // (torch returns on no elements before its kernel checks the dtype)
      if (dt != at::kLong && dt != at::kDouble && dt != at::kFloat && dt != at::kBFloat16)
        throw std::invalid_argument(std::string("torch_cuda random_: random_(-2**63, None) (the full 64-bit range) "
                                                "takes int64, float64, float32 or bfloat16, got ") + c10::toString(dt));
      AT_DISPATCH_V2(dt, "torch_cuda_random_full", AT_WRAP([&] {
        auto* p = out.data_ptr<scalar_t>();  // uniform_int_full_range: random64's bits as an int64, cast
        tg::for_each(s, n, esize, 2, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
          p[i] = static_cast<scalar_t>(static_cast<int64_t>(tg::random64(w, lane)));
        });
      }), at::kLong, at::kDouble, at::kFloat, at::kBFloat16);
      return s.offset;
    }
    // randint / random_(from, to): [ilow, ihigh); random_(from, None): [ilow, the dtype's max or 2^digits]
    const auto bounds = kind == "randint" ? randint_bounds(dt, ilow, ihigh)
                                          : xrng::torch_streams::random_from_bounds(dt, ilow, "torch_cuda random_");
    const int64_t lo = bounds.first;
    const uint64_t range = bounds.second;
    // torch's random_from_to_kernel_cuda dtypes: bool and uint16/32/64 included
    AT_DISPATCH_V2(dt, "torch_cuda_randint", AT_WRAP([&] {
      auto* p = out.data_ptr<scalar_t>();
      if (range >= (1ull << 28)) {  // ulonglong2 from curand4: unroll 2
        tg::for_each(s, n, esize, 2, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
          p[i] = static_cast<scalar_t>(tg::uniform_int_from_to(tg::random64(w, lane), range, lo));
        });
      } else {
        tg::for_each(s, n, esize, 4, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
          p[i] = static_cast<scalar_t>(tg::uniform_int_from_to(w.v[lane], range, lo));
        });
      }
    }), AT_EXPAND(AT_ALL_TYPES), at::kBool, at::kHalf, at::kBFloat16, AT_EXPAND(AT_BAREBONES_UNSIGNED_TYPES));
  } else if (kind == "random") {  // random_() without a range: torch's random_kernel_cuda dtypes
    if (dt == at::kUInt16 || dt == at::kUInt32 || dt == at::kUInt64)
      throw std::invalid_argument(std::string("torch_cuda random_: torch has no random_() without a range for ") +
                                  c10::toString(dt));
    AT_DISPATCH_ALL_TYPES_AND3(at::kBool, at::kHalf, at::kBFloat16, dt, "torch_cuda_random", [&] {
      constexpr uint64_t mod = xrng::torch_streams::random_modulus<scalar_t>();
      auto* p = out.data_ptr<scalar_t>();
      if constexpr (std::is_same_v<scalar_t, double> || std::is_same_v<scalar_t, int64_t>) {  // ulonglong2: unroll 2
        tg::for_each(s, n, esize, 2, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
          p[i] = static_cast<scalar_t>(tg::random_value(tg::random64(w, lane), mod));
        });
      } else {  // uint4: unroll 4
        tg::for_each(s, n, esize, 4, d, [&](uint64_t i, const xrng::u32x4& w, uint32_t lane) {
          p[i] = static_cast<scalar_t>(tg::random_value(w.v[lane], mod));
        });
      }
    });
  } else if (kind == "randperm") {
    if (out.dim() != 1) throw std::invalid_argument("torch_cuda randperm: out must be 1-D");
    AT_DISPATCH_ALL_TYPES_AND(at::kHalf, dt, "torch_cuda_randperm", [&] {
      if (n > 0 && static_cast<int64_t>(n - 1) > static_cast<int64_t>(std::numeric_limits<scalar_t>::max()))
        throw std::invalid_argument("torch_cuda randperm: n does not fit the dtype");
      auto* p = out.data_ptr<scalar_t>();
      tg::randperm(s, d, n, [&](uint64_t i, uint32_t v) { p[i] = static_cast<scalar_t>(v); });
    });
  } else {
    throw std::invalid_argument("torch_cuda draw: unknown kind '" + kind + "'");
  }
  return s.offset;
}

// native_dropout's output for a contiguous CPU `input` (the GPU tensor's
// values) with drop probability p: returns (output, mask, new offset).
// `vec` is get_vector_size's choice (tg::dropout_vec).
std::tuple<at::Tensor, at::Tensor, uint64_t> xrng::torch_streams::cuda_dropout(
    uint64_t seed, uint64_t offset, uint32_t sm_count, uint32_t threads_per_sm, const at::Tensor& input, double p,
    uint32_t vec) {
  if (vec != 1 && vec != 2 && vec != 4 && vec != 8) throw std::invalid_argument("torch_cuda dropout: vec must be 1, 2, 4 or 8");
  // native_dropout's fused kernel runs for 0 < p < 1 only (p = 0 and 1 are at::dropout's non-fused path)
  if (!(p > 0.0 && p < 1.0)) throw std::invalid_argument("torch_cuda dropout: p must be in (0, 1)");
  tg::State s{seed, offset};
  const tg::Device d{sm_count, threads_per_sm};
  const uint64_t n = static_cast<uint64_t>(input.numel());
#if defined(XRNG_TORCH_CUDA)
  // a contiguous CUDA input: output and mask computed on its GPU by xrng's kernel
  if (input.is_cuda() && input.is_contiguous()) {
    float_type(input.scalar_type(), "dropout");
    at::Tensor out = at::empty_like(input, at::MemoryFormat::Contiguous);
    at::Tensor mask = at::empty(input.sizes(), input.options().dtype(at::kBool));
    if (n == 0) return {input.clone(), mask, offset};
    const OnDevice on(input);
    xrng::cuda::torch_cuda::dropout(s, d, n, vec, p, device_type(input.scalar_type()), input.data_ptr(),
                                    out.data_ptr(), mask.data_ptr<bool>(), on.stream);
    return {out, mask, s.offset};
  }
#endif
  if (input.device().type() != at::kCPU || !input.is_contiguous())
    throw std::invalid_argument(has_kernels() ? "torch_cuda dropout: input must be a contiguous CPU or CUDA tensor"
                                              : "torch_cuda dropout: input must be a contiguous CPU tensor");
  const tg::Type t = float_type(input.scalar_type(), "dropout");
  at::Tensor out = at::empty_like(input, at::MemoryFormat::Contiguous);
  at::Tensor mask = at::empty(input.sizes(), input.options().dtype(at::kBool));
  if (n == 0) return {input.clone(), mask, offset};
  // the fused kernel's host model (rng/torch_cuda.h, the C++ API's whole draw)
  tg::dropout(s, d, n, t, p, input.data_ptr(), out.data_ptr(), reinterpret_cast<uint8_t*>(mask.data_ptr<bool>()), vec);
  return {out, mask, s.offset};
}

namespace {

py::tuple dropout(uint64_t seed, uint64_t offset, uint32_t sm_count, uint32_t threads_per_sm, at::Tensor input,
                  double p, uint32_t vec) {
  auto [out, mask, off] = xrng::torch_streams::cuda_dropout(seed, offset, sm_count, threads_per_sm, input, p, vec);
  return py::make_tuple(out, mask, off);
}

}  // namespace

// bernoulli_(p) with a tensor p: `out` and `p` contiguous CPU tensors of the
// same numel, p already expanded to out's shape and cast as torch casts it
// (float64 for a float64 out, float32 otherwise). Every p is checked to lie
// in [0, 1] first. Returns the new philox offset.
uint64_t xrng::torch_streams::cuda_bernoulli_tensor(uint64_t seed, uint64_t offset, const at::Tensor& out,
                                                    const at::Tensor& p) {
#if defined(XRNG_TORCH_CUDA)
  // CUDA out and p (contiguous, on one device): xrng's kernel; p checked on the device first
  if (out.is_cuda() || p.is_cuda()) {
    if (!out.is_cuda() || !p.is_cuda() || out.device() != p.device() || !out.is_contiguous() || !p.is_contiguous() ||
        p.numel() != out.numel())
      throw std::invalid_argument(
          "torch_cuda bernoulli: out and p must be contiguous tensors of the same size on one device");
    const bool dbl = out.scalar_type() == at::kDouble;
    if (p.scalar_type() != (dbl ? at::kDouble : at::kFloat))
      throw std::invalid_argument("torch_cuda bernoulli: p must be float64 for a float64 out, float32 otherwise");
    if (offset % 4 != 0) throw std::invalid_argument("torch_cuda: the philox offset must be a multiple of 4");
    const tk::Out o = device_type(out.scalar_type());
    const OnDevice on(out);
    if (p.numel() > 0 && !at::logical_and(p >= 0, p <= 1).all().item<bool>())
      throw xrng::torch_streams::BernoulliPOutOfRange("torch_cuda bernoulli: every p must be in [0, 1]");
    tg::State s{seed, offset};
    xrng::cuda::torch_cuda::bernoulli_tensor(s, static_cast<uint64_t>(out.numel()), p.data_ptr(), dbl, o,
                                             out.data_ptr(), on.stream);
    return s.offset;
  }
#endif
  if (out.device().type() != at::kCPU || !out.is_contiguous() || p.device().type() != at::kCPU ||
      !p.is_contiguous() || p.numel() != out.numel())
    throw std::invalid_argument("torch_cuda bernoulli: out and p must be contiguous CPU tensors of the same size");
  const bool dbl = out.scalar_type() == at::kDouble;
  if (p.scalar_type() != (dbl ? at::kDouble : at::kFloat))
    throw std::invalid_argument("torch_cuda bernoulli: p must be float64 for a float64 out, float32 otherwise");
  if (offset % 4 != 0) throw std::invalid_argument("torch_cuda: the philox offset must be a multiple of 4");
  const int64_t n = out.numel();
  const at::Tensor pd = p.to(at::kDouble);
  const double* pv = pd.data_ptr<double>();
  for (int64_t i = 0; i < n; ++i)
    if (!(pv[i] >= 0.0 && pv[i] <= 1.0)) throw xrng::torch_streams::BernoulliPOutOfRange("torch_cuda bernoulli: every p must be in [0, 1]");
  tg::State s{seed, offset};
  AT_DISPATCH_ALL_TYPES_AND3(at::kBool, at::kHalf, at::kBFloat16, out.scalar_type(), "torch_cuda_bernoulli_tensor", [&] {
    auto* o = out.data_ptr<scalar_t>();
    if (dbl) {
      tg::bernoulli_tensor(s, static_cast<uint64_t>(n), [&](uint64_t i, float u) {
        o[i] = static_cast<scalar_t>(static_cast<double>(u) <= pv[i]);
      });
    } else {
      const float* pf = p.data_ptr<float>();
      tg::bernoulli_tensor(s, static_cast<uint64_t>(n), [&](uint64_t i, float u) {
        o[i] = static_cast<scalar_t>(u <= pf[i]);
      });
    }
  });
  return s.offset;
}

uint64_t xrng::torch_streams::cuda_multinomial(uint64_t seed, uint64_t offset, const at::Tensor& weights, int64_t n,
                                               const at::Tensor& out) {
  if (weights.device().type() != at::kCPU || !weights.is_contiguous() || weights.dim() != 2)
    throw std::invalid_argument("torch_cuda multinomial: weights must be a contiguous CPU [rows, k] tensor");
  if (out.device().type() != at::kCPU || !out.is_contiguous() || out.scalar_type() != at::kLong ||
      out.numel() != weights.size(0) * n)
    throw std::invalid_argument("torch_cuda multinomial: out must be a contiguous CPU int64 tensor of rows * n");
  tg::State s{seed, offset};
  const int64_t rows = weights.size(0), k = weights.size(1);
  const tg::Type t = float_type(weights.scalar_type(), "multinomial");
  if (t == tg::Type::f64) {
    tg::multinomial_replacement(s, t, weights.data_ptr<double>(), rows, k, n, out.data_ptr<int64_t>());
  } else {
    const at::Tensor wf = weights.to(at::kFloat);  // a 16-bit weight widens exactly
    tg::multinomial_replacement(s, t, wf.data_ptr<float>(), rows, k, n, out.data_ptr<int64_t>());
  }
  return s.offset;
}

namespace {

// torch_cuda_multinomial(seed, offset, weights, n) -> (out [rows, n], offset):
// NotReproducedError becomes NotImplementedError.
py::tuple multinomial(uint64_t seed, uint64_t offset, at::Tensor weights, int64_t n) {
  if (weights.dim() != 2) throw std::invalid_argument("torch_cuda multinomial: weights must be [rows, k]");
  at::Tensor out = at::empty({weights.size(0), std::max<int64_t>(n, 0)}, at::kLong);
  uint64_t next;
  try {
    next = xrng::torch_streams::cuda_multinomial(seed, offset, weights, n, out);
  } catch (const tg::NotReproducedError& e) {
    PyErr_SetString(PyExc_NotImplementedError, e.what());
    throw py::error_already_set();
  }
  return py::make_tuple(out, next);
}

py::tuple launch(uint64_t numel, uint32_t unroll, uint32_t sm_count, uint32_t threads_per_sm) {
  const tg::Launch L = tg::launch(numel, unroll, tg::Device{sm_count, threads_per_sm});
  return py::make_tuple(L.grid, L.counter_offset);
}

}  // namespace

void register_torch_cuda(py::module_& m) {
  m.def("torch_cuda_draw", &xrng::torch_streams::cuda_draw, py::arg("seed"), py::arg("offset"), py::arg("kind"), py::arg("sm_count"),
        py::arg("threads_per_sm"), py::arg("out"), py::arg("a") = 0.0, py::arg("b") = 1.0, py::arg("ilow") = 0,
        py::arg("ihigh") = 0,
        "Fills contiguous CPU `out` with torch CUDA stream draw `kind` (uniform, normal, exponential, log_normal, "
        "geometric, cauchy, bernoulli, randint, random (random_() without a range), random_from (random_(from, None), "
        "from = ilow; -2**63: the full 64-bit range), randperm) from state (seed, offset) on a GPU of sm_count SMs; returns the new philox offset.");
  m.def("torch_cuda_dropout", &dropout, py::arg("seed"), py::arg("offset"), py::arg("sm_count"),
        py::arg("threads_per_sm"), py::arg("input"), py::arg("p"), py::arg("vec"),
        "torch's CUDA native_dropout of contiguous CPU `input`: (output, mask, new offset).");
  m.def("torch_cuda_bernoulli_tensor", &xrng::torch_streams::cuda_bernoulli_tensor, py::arg("seed"), py::arg("offset"), py::arg("out"),
        py::arg("p"),
        "bernoulli_(p) with a tensor p on the torch CUDA stream: contiguous CPU `out` and `p` (expanded, float64 "
        "for a float64 out, float32 otherwise); returns the new philox offset.");
  m.def("torch_cuda_multinomial", &multinomial, py::arg("seed"), py::arg("offset"), py::arg("weights"), py::arg("n"),
        "torch's CUDA multinomial with replacement (n > 1): contiguous CPU [rows, k] floating weights; returns "
        "(int64 [rows, n], new philox offset). NotImplementedError for a one-row draw whose prefix sums depend on "
        "cub's scan order.");
  m.def("torch_cuda_launch", &launch, py::arg("numel"), py::arg("unroll"), py::arg("sm_count"),
        py::arg("threads_per_sm"), "calc_execution_policy: (grid, counter_offset).");
}
