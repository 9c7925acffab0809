// Python entry points of the torch CPU streams (rng/torch_cpu.h): a thin
// loop from a torch-layout generator state (a 5056-byte uint8 CPU tensor,
// what torch.Generator.get_state() returns) into a contiguous CPU tensor.
// No arithmetic of its own: every value comes from rng/torch_cpu.h.
#include <torch/extension.h>
#include <ATen/Dispatch_v2.h>
#include <ATen/EmptyTensor.h>
#include <ATen/OpMathType.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstring>
#include <iterator>
#include <vector>
#include <limits>
#include <type_traits>
#include <string>

#include "host/torch_cpu.h"
#include "torch_streams.h"

namespace py = pybind11;
namespace tc = xrng::torch_cpu;

namespace {

tc::Kernel parse_kernel(const std::string& k) {
  tc::Kernel kernel;
  if (!tc::kernel_named(k.c_str(), kernel))
    throw std::invalid_argument(std::string("kernel must be ") + tc::kKernelNames + ", got '" + k + "'");
  return kernel;
}
// A Release by its number (torch_cpu_release's).
tc::Release parse_release(int r) {
  if (r < 0 || r >= tc::kReleaseCount)
    throw std::invalid_argument("torch_cpu release must be 0 to " + std::to_string(tc::kReleaseCount - 1) + ", got " +
                                std::to_string(r));
  return static_cast<tc::Release>(r);
}


at::Tensor seed_state(uint64_t seed) {
  at::Tensor st = at::empty({static_cast<int64_t>(tc::kTorchStateBytes)}, at::kByte);
  tc::to_torch_state(tc::State(seed), st.data_ptr<uint8_t>());
  return st;
}

#ifdef __SIZEOF_INT128__
// a % d for every 32-bit a and d > 0 without a division (Lemire, Kaser and
// Kurz, "Faster remainder by direct computation", 2019: exact for all 32-bit
// operands with this 64-bit reciprocal; d = 1 wraps m to 0, giving 0).
struct Mod32 {
  uint64_t m;
  uint32_t d;
  explicit Mod32(uint32_t divisor) : m(~uint64_t{0} / divisor + 1), d(divisor) {}
  uint32_t operator()(uint32_t a) const {
    return static_cast<uint32_t>((static_cast<unsigned __int128>(m * a) * d) >> 64);
  }
};

#endif

// random_from_to's loop (randint, random_(from, to), random_(from, None)):
// n elements of (w mod range) + lo as int64, cast to T (tc::randint_value;
// below a range of `wide`, tc::randint_wide, its one-word remainder by a
// multiplication).
template <class T>
void from_to_loop(tc::State& s, T* p, int64_t n, int64_t lo, uint64_t range, uint64_t wide) {
#ifdef __SIZEOF_INT128__
  if (range < wide) {
    const Mod32 mod(static_cast<uint32_t>(range));
    for (int64_t i = 0; i < n; ++i)
      p[i] = static_cast<T>(static_cast<int64_t>(static_cast<uint64_t>(mod(s.random())) + static_cast<uint64_t>(lo)));
    return;
  }
#endif
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(tc::randint_value(s, range, lo, wide));
}

// p[0..n) = draw(m, v)'s float64 values cast as torch casts them
// (static_cast<scalar_t>), in chunks of 256 (the host loops of
// host/torch_cpu.h: compiled with FMA instructions where the CPU has them).
template <class T, class Draw>
void by_chunks(T* p, int64_t n, Draw&& draw, bool direct16 = false) {
  double v[256];
  for (int64_t i = 0; i < n; i += 256) {
    const int64_t m = n - i < 256 ? n - i : 256;
    draw(m, v);
    if constexpr (std::is_same_v<T, at::Half>) {
      if (direct16) {  // f16_direct: one rounding (torch's AArch64 builds from 2.3 on)
        for (int64_t j = 0; j < m; ++j)
          p[i + j] = c10::Half(xrng::math::f64_to_f16_bits(v[j]), c10::Half::from_bits());
        continue;
      }
    }
    for (int64_t j = 0; j < m; ++j) p[i + j] = static_cast<T>(v[j]);
  }
}

// random_(from, None), from > INT64_MIN, into dtype dt: (base, range) as
// torch 2.15's random_from_to_impl computes them. Integers: [from, max]
// (rng/detail/torch_random.h; none for uint64). Floating types: [from',
// 2^digits], from' = update_from(from), after from is checked against the
// dtype's finite range (torch checks it after update_from, whose casts
// overflow outside it: the same refusals).
template <class T>
std::pair<int64_t, uint64_t> random_from_bounds_of(int64_t from, const char* who) {
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, at::Half> || std::is_same_v<T, at::BFloat16>) {
    constexpr int digits = std::numeric_limits<T>::digits;
    constexpr int64_t to_inc = int64_t{1} << digits;
    if (static_cast<double>(from) < static_cast<double>(std::numeric_limits<T>::lowest()) ||
        static_cast<double>(from) > static_cast<double>(std::numeric_limits<T>::max()))
      throw std::invalid_argument(std::string(who) + ": from does not fit the dtype");
    const int64_t lo = tc::update_from(from, digits, [](int64_t v) { return static_cast<int64_t>(static_cast<T>(v)); });
    if (!(lo < to_inc))
      throw std::invalid_argument(std::string(who) + ": from cast to the dtype must be below 2^" + std::to_string(digits) +
                                  " (to = None stands for 2^digits + 1)");
    return {lo, static_cast<uint64_t>(to_inc) - static_cast<uint64_t>(lo) + 1};
  } else {
    return {from, xrng::torch_random::from_range<T>(from, who)};
  }
}
}  // namespace

std::pair<int64_t, uint64_t> xrng::torch_streams::random_from_bounds(at::ScalarType dt, int64_t from, const char* who) {
  if (from == std::numeric_limits<int64_t>::min())
    throw std::invalid_argument(std::string(who) + ": from = -2**63 is the full 64-bit range");
  std::pair<int64_t, uint64_t> r;
  AT_DISPATCH_V2(dt, "xrng_random_from_bounds", AT_WRAP([&] { r = random_from_bounds_of<scalar_t>(from, who); }),
                 AT_EXPAND(AT_ALL_TYPES), at::kBool, at::kHalf, at::kBFloat16, AT_EXPAND(AT_BAREBONES_UNSIGNED_TYPES));
  return r;
}

// Fills `out` (contiguous CPU) with draw `kind` from `state`, advancing it as
// torch's CPU generator would. kind: uniform, normal, normal_each (a non-contiguous
// output's normal: torch's element-wise path), exponential, geometric, log_normal, cauchy,
// randint, random (random_() without a range), random_from (random_(from, None), from
// = ilow; -2**63: the full 64-bit range), bernoulli, randperm.
namespace {
constexpr const char* kCpuKindNames[] = {"uniform", "normal", "normal_each", "exponential", "geometric", "log_normal",
                                         "cauchy", "randint", "random", "random_from", "bernoulli", "randperm"};
}  // namespace

xrng::torch_streams::CpuKind xrng::torch_streams::cpu_kind(const std::string& kind) {
  for (size_t i = 0; i < std::size(kCpuKindNames); ++i)
    if (kind == kCpuKindNames[i]) return static_cast<CpuKind>(i);
  throw std::invalid_argument("torch_cpu draw: unknown kind '" + kind + "'");
}

const char* xrng::torch_streams::cpu_kind_name(CpuKind kind) { return kCpuKindNames[static_cast<size_t>(kind)]; }

void xrng::torch_streams::cpu_draw(tc::State& s, CpuKind kind, tc::Kernel k, const at::Tensor& out, double a,
                                   double b, int64_t ilow, int64_t ihigh, tc::Release r) {
  using K = CpuKind;
  if (out.device().type() != at::kCPU || !out.is_contiguous())
    throw std::invalid_argument("torch_cpu draw: out must be a contiguous CPU tensor");
  const int64_t n = out.numel();
  const auto dt = out.scalar_type();
  if (kind == K::uniform || kind == K::normal || kind == K::normal_each || kind == K::exponential) {
    xrng::DType xt;
    if (dt == at::kFloat) xt = xrng::DType::f32;
    else if (dt == at::kDouble) xt = xrng::DType::f64;
    else if (dt == at::kHalf) xt = xrng::DType::f16;
    else if (dt == at::kBFloat16) xt = xrng::DType::bf16;
    else throw std::invalid_argument(std::string("torch_cpu ") + cpu_kind_name(kind) + ": dtype must be a floating type");
    if (kind == K::uniform)
      tc::uniform(s, n, a, b, k, xt, out.data_ptr(), r);
    else if (kind == K::exponential)
      tc::exponential(s, n, a, xt, out.data_ptr(), r, k);
    else  // normal_each: torch's output is not contiguous (element-wise float64 path whatever n)
      tc::randn(s, n, a, b, k, xt, out.data_ptr(), kind == K::normal, r);
  } else if (kind == K::randint) {
    if (!(ihigh > ilow)) throw std::invalid_argument("torch_cpu randint: high must exceed low");
    // torch's random_from_to_kernel_cpu dtypes: bool and uint16/32/64 included
    AT_DISPATCH_V2(dt, "torch_cpu_randint", AT_WRAP([&] {
      int64_t lo = ilow, hi = ihigh;
      if constexpr (std::is_floating_point_v<scalar_t> || std::is_same_v<scalar_t, at::Half> ||
                    std::is_same_v<scalar_t, at::BFloat16>) {
        // torch's cast int64 -> scalar_t -> int64 (Half/BFloat16 through float)
        auto rt = [](int64_t v) { return static_cast<int64_t>(static_cast<scalar_t>(v)); };
        lo = tc::update_from(lo, std::numeric_limits<scalar_t>::digits, rt);
        hi = tc::update_to(hi, std::numeric_limits<scalar_t>::digits, rt);
        if (!(lo < hi))
          throw std::invalid_argument("torch_cpu randint: low and high cast to the dtype leave an empty range");
        // torch's check_from_to_in_range: from and to - 1 within the dtype's finite range
        if (static_cast<double>(lo) < static_cast<double>(std::numeric_limits<scalar_t>::lowest()) ||
            static_cast<double>(hi - 1) > static_cast<double>(std::numeric_limits<scalar_t>::max()))
          throw std::invalid_argument("torch_cpu randint: [low, high) does not fit the dtype");
      } else {
        if (ilow < static_cast<int64_t>(std::numeric_limits<scalar_t>::lowest()) ||
            ihigh - 1 > xrng::torch_random::highest<scalar_t>())
          throw std::invalid_argument("torch_cpu randint: [low, high) does not fit the dtype");
      }
      from_to_loop(s, out.data_ptr<scalar_t>(), n, lo, static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo),
                   tc::randint_wide(r));
    }), AT_EXPAND(AT_ALL_TYPES), at::kBool, at::kHalf, at::kBFloat16, AT_EXPAND(AT_BAREBONES_UNSIGNED_TYPES));
  } else if (kind == K::random_from) {  // random_(from, None), from = ilow (ihigh unused)
    if (ilow == std::numeric_limits<int64_t>::min()) {  // the full 64-bit range: its own kernel
      if (n == 0) return;  // (torch returns on no elements before its kernel checks the dtype)
      if (dt != at::kLong && dt != at::kDouble && dt != at::kFloat && dt != at::kBFloat16)
        throw std::invalid_argument(std::string("torch_cpu random_: random_(-2**63, None) (the full 64-bit range) takes "
                                                "int64, float64, float32 or bfloat16, got ") + c10::toString(dt));
      AT_DISPATCH_V2(dt, "torch_cpu_random_full", AT_WRAP([&] {
        auto* p = out.data_ptr<scalar_t>();  // uniform_int_full_range: random64's bits as an int64, cast
        for (int64_t i = 0; i < n; ++i) p[i] = static_cast<scalar_t>(static_cast<int64_t>(s.random64()));
      }), at::kLong, at::kDouble, at::kFloat, at::kBFloat16);
      return;
    }
    const auto [lo, range] = xrng::torch_streams::random_from_bounds(dt, ilow, "torch_cpu random_");
    AT_DISPATCH_V2(dt, "torch_cpu_random_from", AT_WRAP([&] {
      from_to_loop(s, out.data_ptr<scalar_t>(), n, lo, range, tc::randint_wide(r));
    }), AT_EXPAND(AT_ALL_TYPES), at::kBool, at::kHalf, at::kBFloat16, AT_EXPAND(AT_BAREBONES_UNSIGNED_TYPES));
  } else if (kind == K::random) {  // random_() without a range: torch's random_kernel_cpu dtypes
    if (dt == at::kUInt16 || dt == at::kUInt32 || dt == at::kUInt64)
      throw std::invalid_argument(std::string("torch_cpu random_: torch has no random_() without a range for ") +
                                  c10::toString(dt));
    AT_DISPATCH_ALL_TYPES_AND3(at::kBool, at::kHalf, at::kBFloat16, dt, "torch_cpu_random", [&] {
      constexpr uint64_t mod = xrng::torch_streams::random_modulus<scalar_t>();
      constexpr bool wide = std::is_same_v<scalar_t, double> || std::is_same_v<scalar_t, int64_t>;
      auto* p = out.data_ptr<scalar_t>();
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<scalar_t>(tc::random_value(s, mod, wide));
    });
  } else if (kind == K::log_normal) {
    if (!(b > 0.0)) throw std::invalid_argument("torch_cpu log_normal_: std must be > 0");
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, dt, "torch_cpu_log_normal", [&] {
      by_chunks(out.data_ptr<scalar_t>(), n, [&](int64_t m, double* v) { tc::log_normal_f64(s, m, a, b, k, v, r); },
                tc::f16_direct(k, r));
    });
  } else if (kind == K::cauchy) {
    if (!(b > 0.0)) throw std::invalid_argument("torch_cpu cauchy_: sigma must be > 0");
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, dt, "torch_cpu_cauchy", [&] {
      by_chunks(out.data_ptr<scalar_t>(), n, [&](int64_t m, double* v) { tc::cauchy_f64(s, m, a, b, k, v); },
                tc::f16_direct(k, r));
    });
  } else if (kind == K::geometric) {
    if (!(a > 0.0 && a < 1.0)) throw std::invalid_argument("torch_cpu geometric_: p must be in (0, 1)");
    AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, dt, "torch_cpu_geometric", [&] {
      by_chunks(out.data_ptr<scalar_t>(), n, [&](int64_t m, double* v) { tc::geometric_f64(s, m, a, v); });
    });
  } else if (kind == K::bernoulli) {
    if (!(a >= 0.0 && a <= 1.0)) throw std::invalid_argument("torch_cpu bernoulli: p must be in [0, 1]");
    AT_DISPATCH_ALL_TYPES_AND3(at::kBool, at::kHalf, at::kBFloat16, dt, "torch_cpu_bernoulli", [&] {
      auto* p = out.data_ptr<scalar_t>();
      if (tc::mkl_bernoulli(r, k)) {  // torch 2.0 to 2.6: one word (for no elements too), MKL's MCG31
        tc::MklBernoulli g(s, a, k);
        tc::mkl_bernoulli_fill(g, n, [p](int64_t i, bool v) { p[i] = static_cast<scalar_t>(v); });  // (AVX2 bytes)
        return;
      }
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<scalar_t>(tc::bernoulli_value(s, a));
    });
  } else {  // randperm
    if (out.dim() != 1) throw std::invalid_argument("torch_cpu randperm: out must be 1-D");
    AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, dt, "torch_cpu_randperm", [&] {
      auto* p = out.data_ptr<scalar_t>();
      tc::randperm(
          s, n, [p](int64_t i) { return static_cast<int64_t>(p[i]); },
          [p](int64_t i, int64_t v) { p[i] = static_cast<scalar_t>(v); });
    });
  }
}

namespace {

void draw(at::Tensor state, const std::string& kind, const std::string& kernel, at::Tensor out, double a,
          double b, int64_t ilow, int64_t ihigh, int release) {
  xrng::torch_streams::check_cpu_state(state);
  const tc::Kernel k = parse_kernel(kernel);
  const tc::Release r = parse_release(release);
  tc::State s = tc::from_torch_state(state.data_ptr<uint8_t>(), tc::kTorchStateBytes);
  xrng::torch_streams::cpu_draw(s, kind, k, out, a, b, ilow, ihigh, r);
  tc::to_torch_state(s, state.data_ptr<uint8_t>());
}

// bernoulli_(p) with a tensor p (torch's bernoulli_tensor_cpu kernel, every
// CPU: no MKL path): out[i] = (uniform < p[i]), the uniform a float32 one
// (1 word) for float/half/bfloat16 p, a float64 one (2 words) for double p.
// `p` holds the probabilities already expanded and laid out in torch's
// order, like `out` (both contiguous CPU, the same numel); every p is
// checked to lie in [0, 1] before the first word is drawn.
}  // namespace

void xrng::torch_streams::cpu_bernoulli_tensor(tc::State& s, const at::Tensor& out, const at::Tensor& p) {
  if (out.device().type() != at::kCPU || !out.is_contiguous() || p.device().type() != at::kCPU ||
      !p.is_contiguous() || p.numel() != out.numel())
    throw std::invalid_argument("torch_cpu bernoulli: out and p must be contiguous CPU tensors of the same size");
  const auto pt = p.scalar_type();
  if (pt != at::kDouble && pt != at::kFloat && pt != at::kHalf && pt != at::kBFloat16)
    throw std::invalid_argument("torch_cpu bernoulli: p must be a floating tensor");
  // p read as double (a double p) or float (float, half, bfloat16 p: exact widening)
  const at::Tensor pd = pt == at::kDouble || pt == at::kFloat ? p : p.to(at::kFloat);
  const int64_t n = out.numel();
  auto run = [&](const auto* pv) {
    for (int64_t i = 0; i < n; ++i)
      if (!(pv[i] >= 0 && pv[i] <= 1)) throw xrng::torch_streams::BernoulliPOutOfRange("torch_cpu bernoulli: every p must be in [0, 1]");
    AT_DISPATCH_ALL_TYPES_AND3(at::kBool, at::kHalf, at::kBFloat16, out.scalar_type(), "torch_cpu_bernoulli_tensor", [&] {
      auto* o = out.data_ptr<scalar_t>();
      if constexpr (std::is_same_v<std::remove_cv_t<std::remove_pointer_t<decltype(pv)>>, double>) {
        for (int64_t i = 0; i < n; ++i) o[i] = static_cast<scalar_t>(tc::bernoulli_value(s, pv[i]));
      } else {
        for (int64_t i = 0; i < n; ++i) o[i] = static_cast<scalar_t>(tc::bernoulli_f32_value(s, pv[i]));
      }
    });
  };
  if (pt == at::kDouble) run(pd.data_ptr<double>());
  else run(pd.data_ptr<float>());
}

namespace {

void bernoulli_tensor(at::Tensor state, at::Tensor out, at::Tensor p) {
  xrng::torch_streams::check_cpu_state(state);
  tc::State s = tc::from_torch_state(state.data_ptr<uint8_t>(), tc::kTorchStateBytes);
  xrng::torch_streams::cpu_bernoulli_tensor(s, out, p);
  tc::to_torch_state(s, state.data_ptr<uint8_t>());
}

// multinomial(weights, n, replacement=True), n > 1 (torch's with-replacement
// CPU kernel, rng/torch_cpu.h multinomial_row): `weights` a contiguous CPU
// [rows, k] floating tensor; returns int64 [rows, n]. Every row is checked
// (finite, >= 0, positive total) before the first word is drawn (torch
// checks row by row while drawing).
}  // namespace

void xrng::torch_streams::check_cpu_state(const at::Tensor& st) {
  if (st.device().type() != at::kCPU || st.scalar_type() != at::kByte || !st.is_contiguous() ||
      st.numel() != static_cast<int64_t>(tc::kTorchStateBytes))
    throw std::invalid_argument("torch_cpu state must be a contiguous CPU uint8 tensor of 5056 bytes");
}

int xrng::torch_streams::cpu_multinomial_rows(tc::State& s, const at::Tensor& w, int64_t rows, int64_t k, int64_t n,
                                              int64_t* out) {
  auto run = [&](auto zero) {
    using Acc = decltype(zero);
    const std::unique_ptr<Acc[]> cum(new Acc[static_cast<size_t>(k)]);  // (scratch: not initialised)
    return tc::multinomial_rows(s, static_cast<const Acc*>(w.const_data_ptr()), rows, k, n, cum.get(), out);
  };
  if (w.scalar_type() == at::kDouble) return run(0.0);
  if (w.scalar_type() == at::kFloat) return run(0.0f);
  throw std::invalid_argument("torch_cpu multinomial: weights must be float32 or float64 here");
}

at::Tensor xrng::torch_streams::cpu_multinomial(tc::State& s, const at::Tensor& weights, int64_t n) {
  if (weights.device().type() != at::kCPU || !weights.is_contiguous() || weights.dim() < 1 || weights.dim() > 2 ||
      weights.size(-1) < 1)
    throw std::invalid_argument("torch_cpu multinomial: weights must be a contiguous CPU [rows, k] or [k] tensor, k >= 1");
  if (n < 1) throw std::invalid_argument("torch_cpu multinomial: cannot sample n_sample <= 0 samples");
  const bool one = weights.dim() == 1;
  const int64_t rows = one ? 1 : weights.size(0), k = weights.size(-1);
  const auto dt = weights.scalar_type();
  if (dt != at::kDouble && dt != at::kFloat && dt != at::kHalf && dt != at::kBFloat16)
    throw std::invalid_argument("torch_cpu multinomial: weights must be a floating tensor");
  const int64_t shape[2] = {rows, n};  // ([k] weights: [n], torch's shape)
  at::Tensor out = at::detail::empty_cpu(one ? at::IntArrayRef(&shape[1], 1) : at::IntArrayRef(shape, 2), at::kLong);
  // (torch's float accumulation of 16-bit weights: exact widening)
  const int bad = cpu_multinomial_rows(s, dt == at::kDouble ? weights : weights.to(at::kFloat), rows, k, n,
                                       out.data_ptr<int64_t>());
  if (bad == 1) throw std::invalid_argument("invalid multinomial distribution (encountering probability entry < 0)");
  if (bad == 2)
    throw std::invalid_argument("invalid multinomial distribution (encountering probability entry = infinity or NaN)");
  if (bad == 3) throw std::invalid_argument("invalid multinomial distribution (sum of probabilities <= 0)");
  return out;
}

void xrng::torch_streams::cpu_rrelu(tc::State& s, const at::Tensor& x, double lower, double upper, at::Tensor& out,
                                    at::Tensor& noise) {
  if (!x.device().is_cpu() || !x.is_contiguous() || !out.is_contiguous() || !noise.is_contiguous() ||
      out.scalar_type() != x.scalar_type() || noise.scalar_type() != x.scalar_type() || out.numel() != x.numel() ||
      noise.numel() != x.numel())
    throw std::invalid_argument("torch_cpu rrelu: contiguous CPU x, out and noise of one dtype and size");
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "torch_cpu_rrelu", [&] {
    using opmath_t = at::opmath_type<scalar_t>;
    // torch: lower_.to<opmath_t>(), then uniform_real_distribution<double>(lower, upper)
    const double from = static_cast<opmath_t>(lower), to = static_cast<opmath_t>(upper);
    const scalar_t* xp = x.const_data_ptr<scalar_t>();
    scalar_t* op = out.data_ptr<scalar_t>();
    scalar_t* np = noise.data_ptr<scalar_t>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      if (xp[i] <= 0) {
        // transformation::uniform_real: x (53 bits) * (to - from) + from in binary64, unfused (Activation.cpp
        // is not a per-capability kernel: compiled without FMA in torch's x86 wheel)
        const opmath_t r = static_cast<opmath_t>(tc::uniform_f64(s.random64()) * (to - from) + from);
        op[i] = xp[i] * r;
        np[i] = r;
      } else {
        np[i] = 1;
        op[i] = xp[i];
      }
    }
  });
}

namespace {

at::Tensor multinomial(at::Tensor state, at::Tensor weights, int64_t n) {
  xrng::torch_streams::check_cpu_state(state);
  tc::State s = tc::from_torch_state(state.data_ptr<uint8_t>(), tc::kTorchStateBytes);
  at::Tensor out = xrng::torch_streams::cpu_multinomial(s, weights, n);
  tc::to_torch_state(s, state.data_ptr<uint8_t>());
  return out;
}

}  // namespace

void register_torch_cpu(py::module_& m) {
  m.def("torch_cpu_multinomial", &multinomial, py::arg("state"), py::arg("weights"), py::arg("n"),
        "multinomial with replacement (n > 1) on the torch CPU stream: contiguous CPU [rows, k] weights, int64 "
        "[rows, n] out, advancing `state` in place.");
  m.def("torch_cpu_bernoulli_tensor", &bernoulli_tensor, py::arg("state"), py::arg("out"), py::arg("p"),
        "bernoulli_(p) with a tensor p on the torch CPU stream: contiguous CPU `out` and `p` (same numel, laid out "
        "in torch's order), advancing `state` in place.");
  m.def("torch_cpu_release", [](const std::string& v) { return static_cast<int>(tc::release_of(v)); },
        py::arg("release"),
        "Which torch releases' draws torch release `release` (\"2.4\", \"1.13.1\") made, where they differ: "
        "0 2.13 and later, 1 2.12, 2 2.7 to 2.11, 3 2.3 to 2.6, 4 2.1 and 2.2, 5 2.0, 6 1.13; ValueError for "
        "another form or a "
        "release before 1.13.");
  m.def("torch_cpu_mkl_draw",
        [](int r, const std::string& kernel, const std::string& kind, double a) {
          return xrng::torch_streams::cpu_mkl_draw(kind, parse_release(r), parse_kernel(kernel), a);
        },
        py::arg("release"), py::arg("kernel"), py::arg("kind"), py::arg("a"),
        "Whether draw `kind` (first parameter `a`) of release number `release` with `kernel` is MKL's (torch 2.0 "
        "to 2.6's x86-64 wheels, kernels x86 and scalar: the scalar-p bernoulli, and exponential with a finite "
        "lambda; one word for the call, the elements in row-major order whatever the strides; rng/torch_cpu.h "
        "MklBernoulli, MklExponential).");
  m.def("torch_cpu_seed", &seed_state, py::arg("seed"),
        "A torch CPU generator state (torch.Generator.get_state() layout, 5056 uint8) seeded as torch seeds it.");
  m.def("torch_cpu_draw", &draw, py::arg("state"), py::arg("kind"), py::arg("kernel"), py::arg("out"),
        py::arg("a") = 0.0, py::arg("b") = 1.0, py::arg("ilow") = 0, py::arg("ihigh") = 0, py::arg("release") = 0,
        "Fills contiguous CPU `out` with torch CPU stream draw `kind` (uniform, normal, normal_each, exponential, geometric, "
        "log_normal, cauchy, randint, random, random_from, bernoulli, randperm), "
        "advancing `state` in place as torch's generator would: a/b are uniform/normal/bernoulli's parameters "
        "(exponential: a = lambda; geometric: a = p; cauchy: a = median, b = sigma), "
        "ilow/ihigh randint's [low, high); random_from: ilow = from (random_(from, None); -2**63: the full 64-bit range); "
        "release: which torch releases' draws (torch_cpu_release's number: 0 2.13 on, 1 2.12, 2 2.7 to 2.11, 3 2.1 "
        "to 2.6, 4 2.0, 5 1.13).");
}
