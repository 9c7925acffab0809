// torch's CPU gamma and Dirichlet draws on the torch CPU stream
// (rng/torch_cpu_gamma.h): torch._standard_gamma and torch._sample_dirichlet
// of a contiguous CPU float32/float64 alpha, from a torch-layout generator
// state advanced in place. No arithmetic of its own.
#include <torch/extension.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "host/fma_clones.h"
#include "rng/torch_cpu_gamma.h"
#include "torch_streams.h"

namespace py = pybind11;
namespace tc = xrng::torch_cpu;

namespace {

void check_alpha(const at::Tensor& alpha, const char* what) {
  if (alpha.device().type() != at::kCPU || !alpha.is_contiguous())
    throw std::invalid_argument(std::string("torch_cpu ") + what + ": alpha must be a contiguous CPU tensor");
  const auto dt = alpha.scalar_type();
  if (dt != at::kFloat && dt != at::kDouble)
    throw std::invalid_argument(std::string("torch_cpu ") + what + ": alpha must be float32 or float64 (torch's CPU " +
                                what + " is not implemented for " + c10::toString(dt) + ")");
}

// The loops with FMA instructions where the CPU has them (host/fma_clones.h:
// the ports of glibc's pow, log, log1p, sincos call std::fma, otherwise a
// libm call each; the same values).
XRNG_FMA_CLONES void gamma_f32(tc::State& s, const float* alpha, int64_t n, float* out) {
  tc::standard_gamma<float>(s, alpha, n, out);
}
XRNG_FMA_CLONES void gamma_f64(tc::State& s, const double* alpha, int64_t n, double* out) {
  tc::standard_gamma<double>(s, alpha, n, out);
}
XRNG_FMA_CLONES void dirichlet_f32(tc::State& s, const float* alpha, int64_t rows, int64_t k, float* out, double* g) {
  tc::dirichlet<float>(s, alpha, rows, k, out, g);
}
XRNG_FMA_CLONES void dirichlet_f64(tc::State& s, const double* alpha, int64_t rows, int64_t k, double* out,
                                   double* g) {
  tc::dirichlet<double>(s, alpha, rows, k, out, g);
}

}  // namespace

at::Tensor xrng::torch_streams::cpu_standard_gamma(tc::State& s, const at::Tensor& alpha) {
  check_alpha(alpha, "standard_gamma");
  at::Tensor out = at::empty(alpha.sizes(), alpha.options());
  const int64_t n = alpha.numel();
  if (alpha.scalar_type() == at::kFloat)
    gamma_f32(s, alpha.const_data_ptr<float>(), n, out.data_ptr<float>());
  else
    gamma_f64(s, alpha.const_data_ptr<double>(), n, out.data_ptr<double>());
  return out;
}

at::Tensor xrng::torch_streams::cpu_dirichlet(tc::State& s, const at::Tensor& alpha) {
  check_alpha(alpha, "dirichlet");
  const int64_t k = alpha.dim() == 0 ? 1 : alpha.size(-1);
  const int64_t n = alpha.numel();
  if (n == k && k >= tc::kTorchCpuSumGrain)
    throw std::invalid_argument("torch_cpu dirichlet: a single row of " + std::to_string(k) +
                                " categories (32768 or more) is not supported: torch sums it across its threads, in "
                                "an order that depends on their number");
  at::Tensor out = at::empty(alpha.sizes(), alpha.options());
  if (n == 0) return out;
  const int64_t rows = n / k;
  std::unique_ptr<double[]> gamma(new double[static_cast<size_t>(n)]);
  if (alpha.scalar_type() == at::kFloat)
    dirichlet_f32(s, alpha.const_data_ptr<float>(), rows, k, out.data_ptr<float>(), gamma.get());
  else
    dirichlet_f64(s, alpha.const_data_ptr<double>(), rows, k, out.data_ptr<double>(), gamma.get());
  return out;
}

namespace {

// torch refuses other dtypes with NotImplementedError ("\"gamma_cpu\" not
// implemented for 'Half'"): the same kind and words here.
void check_dtype_like_torch(const at::Tensor& alpha, const char* kernel) {
  const auto dt = alpha.scalar_type();
  if (dt != at::kFloat && dt != at::kDouble) {
    const std::string msg = std::string("\"") + kernel + "\" not implemented for '" + c10::toString(dt) + "'";
    PyErr_SetString(PyExc_NotImplementedError, msg.c_str());
    throw py::error_already_set();
  }
}

at::Tensor standard_gamma(at::Tensor state, const at::Tensor& alpha) {
  xrng::torch_streams::check_cpu_state(state);
  check_dtype_like_torch(alpha, "gamma_cpu");
  tc::State s = tc::from_torch_state(state.data_ptr<uint8_t>(), tc::kTorchStateBytes);
  at::Tensor out = xrng::torch_streams::cpu_standard_gamma(s, alpha);
  tc::to_torch_state(s, state.data_ptr<uint8_t>());
  return out;
}

at::Tensor dirichlet(at::Tensor state, const at::Tensor& alpha) {
  xrng::torch_streams::check_cpu_state(state);
  check_dtype_like_torch(alpha, "dirichlet");
  tc::State s = tc::from_torch_state(state.data_ptr<uint8_t>(), tc::kTorchStateBytes);
  at::Tensor out = xrng::torch_streams::cpu_dirichlet(s, alpha);
  tc::to_torch_state(s, state.data_ptr<uint8_t>());
  return out;
}

}  // namespace

void register_torch_cpu_gamma(py::module_& m) {
  m.def("torch_cpu_standard_gamma", &standard_gamma, py::arg("state"), py::arg("alpha"),
        "torch._standard_gamma(alpha) on the torch CPU stream: a contiguous CPU float32/float64 alpha; `state` (a "
        "torch CPU generator state, 5056 uint8) advanced in place as torch's generator; values bit for bit torch's");
  m.def("torch_cpu_dirichlet", &dirichlet, py::arg("state"), py::arg("alpha"),
        "torch._sample_dirichlet(alpha) on the torch CPU stream (torch's x86 CPU sum: its AVX2 kernel, which its "
        "AVX-512 build runs too, and its default kernel): a contiguous CPU float32/float64 alpha (ValueError for a "
        "single row of 32768 or more categories, which torch sums across its threads); `state` advanced in place; "
        "values bit for bit torch's");
}
