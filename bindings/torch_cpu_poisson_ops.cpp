// torch.poisson and torch.binomial of CPU tensors on the torch CPU stream
// (rng/torch_cpu_poisson.h): torch_streams::cpu_poisson / cpu_binomial
// (bindings/torch_streams.h) and their Python entries torch_cpu_poisson /
// torch_cpu_binomial (a 5056-byte torch generator state advanced in place).
// No arithmetic of its own: the values come from rng/torch_cpu_poisson.h,
// cast to the dtype as torch's kernels cast them.
#include <torch/extension.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "host/fma_clones.h"
#include "rng/torch_cpu_poisson.h"
#include "torch_streams.h"

namespace py = pybind11;
namespace tc = xrng::torch_cpu;

namespace {

std::string dtype_name(at::ScalarType dt) { return c10::toString(dt); }

void check_cpu_contiguous(const at::Tensor& t, const char* what) {
  if (t.device().type() != at::kCPU || !t.is_contiguous())
    throw std::invalid_argument(std::string("torch_cpu ") + what + " must be a contiguous CPU tensor");
}

// _s_poisson_cpu's loop: static_cast<double>(rate) in, static_cast<scalar_t>(int64) out.
template <class T>
void poisson_fill(tc::State& s, const T* rate, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(tc::poisson_value(s, static_cast<double>(rate[i])));
}

template <class T>
void binomial_fill(tc::State& s, const T* count, const T* prob, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = tc::binomial_value<T>(s, count[i], prob[i]);
}

// The float32 and float64 loops with FMA instructions where the CPU has them
// (host/fma_clones.h: the ports of glibc's log, exp, log1p call std::fma,
// otherwise a libm call each; the same values).
XRNG_FMA_CLONES void poisson_fill_fast(tc::State& s, const float* rate, float* out, int64_t n) {
  poisson_fill(s, rate, out, n);
}
XRNG_FMA_CLONES void poisson_fill_fast(tc::State& s, const double* rate, double* out, int64_t n) {
  poisson_fill(s, rate, out, n);
}
XRNG_FMA_CLONES void binomial_fill_fast(tc::State& s, const float* count, const float* prob, float* out, int64_t n) {
  binomial_fill(s, count, prob, out, n);
}
XRNG_FMA_CLONES void binomial_fill_fast(tc::State& s, const double* count, const double* prob, double* out,
                                        int64_t n) {
  binomial_fill(s, count, prob, out, n);
}
// (float16 and bfloat16 rates: the plain loop)
template <class T>
void poisson_fill_fast(tc::State& s, const T* rate, T* out, int64_t n) {
  poisson_fill(s, rate, out, n);
}

}  // namespace

// torch.poisson(rate) (torch 2.15 _s_poisson_cpu: float32, float64, float16,
// bfloat16). torch checks rate >= 0 element by element while drawing (the
// elements before a bad one have drawn); here every rate is checked first
// and nothing is drawn when one fails.
at::Tensor xrng::torch_streams::cpu_poisson(tc::State& s, const at::Tensor& rate) {
  check_cpu_contiguous(rate, "poisson: rate");
  const at::ScalarType dt = rate.scalar_type();
  if (dt != at::kFloat && dt != at::kDouble && dt != at::kHalf && dt != at::kBFloat16)
    throw std::invalid_argument("\"poisson_cpu\" not implemented for '" + dtype_name(dt) + "'");
  at::Tensor out = at::empty(rate.sizes(), rate.options().memory_format(at::MemoryFormat::Contiguous));
  const int64_t n = rate.numel();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, dt, "torch_cpu_poisson", [&] {
    const scalar_t* r = rate.const_data_ptr<scalar_t>();
    for (int64_t i = 0; i < n; ++i)
      if (!(static_cast<double>(r[i]) >= 0))
        throw std::invalid_argument("invalid Poisson rate, expected rate to be non-negative");
    poisson_fill_fast(s, r, out.data_ptr<scalar_t>(), n);
  });
  return out;
}

// torch.binomial(count, prob) (torch 2.15 _s_binomial_cpu: float32 and
// float64, count and prob of one dtype; the caller broadcasts them to one
// shape). torch checks no value; count NaN with prob in (0, 1), where
// torch's kernel loops forever, is refused here before drawing.
at::Tensor xrng::torch_streams::cpu_binomial(tc::State& s, const at::Tensor& count, const at::Tensor& prob) {
  if (!at::isFloatingType(count.scalar_type()))
    throw std::invalid_argument("binomial only supports floating-point dtypes for count, got: " +
                                dtype_name(count.scalar_type()));
  if (!at::isFloatingType(prob.scalar_type()))
    throw std::invalid_argument("binomial only supports floating-point dtypes for prob, got: " +
                                dtype_name(prob.scalar_type()));
  check_cpu_contiguous(count, "binomial: count");
  check_cpu_contiguous(prob, "binomial: prob");
  if (count.sizes() != prob.sizes())
    throw std::invalid_argument("torch_cpu binomial: count and prob must have one shape (broadcast them first)");
  const at::ScalarType dt = count.scalar_type();
  if (prob.scalar_type() != dt)
    throw std::invalid_argument("Found dtype " + dtype_name(prob.scalar_type()) + " but expected " + dtype_name(dt));
  if (dt != at::kFloat && dt != at::kDouble)
    throw std::invalid_argument("\"binomial_cpu\" not implemented for '" + dtype_name(dt) + "'");
  at::Tensor out = at::empty(count.sizes(), count.options().memory_format(at::MemoryFormat::Contiguous));
  const int64_t n = count.numel();
  AT_DISPATCH_FLOATING_TYPES(dt, "torch_cpu_binomial", [&] {
    const scalar_t* c = count.const_data_ptr<scalar_t>();
    const scalar_t* p = prob.const_data_ptr<scalar_t>();
    for (int64_t i = 0; i < n; ++i)
      if (tc::binomial_never_returns(c[i], p[i]))
        throw std::invalid_argument("torch_cpu binomial: count is NaN with prob in (0, 1) at element " +
                                    std::to_string(i) + ": torch's CPU kernel never returns there");
    binomial_fill_fast(s, c, p, out.data_ptr<scalar_t>(), n);
  });
  return out;
}

namespace {

at::Tensor poisson_entry(at::Tensor state, const at::Tensor& rate) {
  xrng::torch_streams::check_cpu_state(state);
  tc::State s = tc::from_torch_state(state.data_ptr<uint8_t>(), tc::kTorchStateBytes);
  at::Tensor out = xrng::torch_streams::cpu_poisson(s, rate);
  tc::to_torch_state(s, state.data_ptr<uint8_t>());
  return out;
}

at::Tensor binomial_entry(at::Tensor state, const at::Tensor& count, const at::Tensor& prob) {
  xrng::torch_streams::check_cpu_state(state);
  tc::State s = tc::from_torch_state(state.data_ptr<uint8_t>(), tc::kTorchStateBytes);
  at::Tensor out = xrng::torch_streams::cpu_binomial(s, count, prob);
  tc::to_torch_state(s, state.data_ptr<uint8_t>());
  return out;
}

}  // namespace

void register_torch_cpu_poisson(py::module_& m) {
  m.def("torch_cpu_poisson", &poisson_entry, py::arg("state"), py::arg("rate"),
        "torch.poisson(rate) on the torch CPU stream: contiguous CPU rate (float32, float64, float16, bfloat16), "
        "a new tensor of its shape and dtype, advancing `state` (a 5056-byte torch CPU generator state) in place "
        "as torch's generator. ValueError before drawing for a negative or NaN rate.");
  m.def("torch_cpu_binomial", &binomial_entry, py::arg("state"), py::arg("count"), py::arg("prob"),
        "torch.binomial(count, prob) on the torch CPU stream: contiguous CPU count and prob of one shape and dtype "
        "(float32 or float64), a new tensor of that shape and dtype, advancing `state` in place as torch's "
        "generator. ValueError before drawing for what torch refuses and for a NaN count with prob in (0, 1) "
        "(where torch never returns).");
}
