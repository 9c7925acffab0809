// The gamma family (issue 20; SPEC.md section 11) as torch operators, a
// fragment of the xrng library of ops.cpp in its own file:
//
//   gamma(Tensor alpha, Tensor position) -> Tensor
//       torch._standard_gamma's draw: standard gamma variates (scale 1), one
//       per element of alpha (float16, bfloat16, float32, float64; any shape,
//       any device), the result of alpha's shape, dtype and device. Element
//       e (row-major) reads the 64 words position.offset + 64 e.
//   dirichlet(Tensor alpha, Tensor position) -> Tensor
//       torch._sample_dirichlet's draw: alpha [..., k]; each row (the last
//       dimension) is its gamma variates (the same words) over their
//       left-to-right binary64 sum.
//   poisson_counts(Tensor rate, Tensor position) -> Tensor
//       torch.poisson's draw (SPEC.md section 12): one count per element of
//       rate (in [0, 2^32]), as a value of rate's dtype, 64 words per element.
//       Named so that the mode's dispatcher watch, which knows random aten ops
//       by their bare names, does not take it for aten.poisson.
//   binomial_counts(Tensor count, Tensor prob, Tensor position) -> Tensor
//       torch.binomial's draw (SPEC.md section 13): count and prob of one
//       shape (count an integer in [0, 2^32], prob in [0, 1]), the counts as
//       values of count's dtype, 64 words per element.
//
// `position` is [seed, subseq, offset, stream] (ops.cpp); nothing is advanced
// here: a caller with a generator first takes the draw's 64 alpha.numel()
// words. Kernels: CPU (host/gamma.cpp, threads over elements or rows), CUDA
// (device/gamma.cu) when the bindings are built with the CUDA kernels, and
// every other backend (CompositeExplicitAutograd): alpha copied to the host,
// drawn there, copied back. alpha is widened to binary64 first (exact), so
// every backend draws the same values. Fake kernels: python/xrng/_meta.py.
// The operators have no derivative here: xrng.gamma / xrng.dirichlet
// (python/xrng/_gamma.py) attach torch's reparameterised gradients.
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <algorithm>
#include <string>

#include "ops.h"
#include "xrng_torch.h"

#if defined(XRNG_TORCH_CUDA)
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "../device/xrng_cuda.h"
#endif

namespace xrng::torch_api {
namespace {

DType out_dtype(const at::Tensor& a, const char* what) {
  switch (a.scalar_type()) {
    case at::kDouble: return DType::f64;
    case at::kFloat: return DType::f32;
    case at::kHalf: return DType::f16;
    case at::kBFloat16: return DType::bf16;
    default:
      throw Error(std::string(what) + (std::string(what) == "poisson" ? ": rate" : std::string(what) == "binomial" ? ": count and prob" : ": alpha") +
                  " must be float16, bfloat16, float32 or float64, got " +
                  c10::toString(a.scalar_type()));
  }
}

enum class Op { gamma, dirichlet, poisson };

at::Tensor draw(const at::Tensor& alpha, const at::Tensor& position, Op op) {
  const bool dir = op == Op::dirichlet;
  const char* what = dir ? "dirichlet" : op == Op::poisson ? "poisson" : "gamma";
  try {
    const DType dt = out_dtype(alpha, what);
    if (dir && alpha.dim() == 0) throw Error("dirichlet: alpha must have at least one dimension");
    const uint64_t n = static_cast<uint64_t>(alpha.numel());
    const uint64_t k = dir ? static_cast<uint64_t>(alpha.size(-1)) : 1;
    if (alpha.is_meta()) return at::empty_like(alpha, at::MemoryFormat::Contiguous);
    const DrawPosition p = read_position(position, what);
    check_gamma_count(n, p.offset);
    at::Tensor out = at::empty(alpha.sizes(), alpha.options().memory_format(at::MemoryFormat::Contiguous));
    if (n == 0) return out;
    const uint64_t rows = dir ? n / k : n;  // n > 0, so k > 0
    const at::Tensor a = alpha.detach();
#if defined(XRNG_TORCH_CUDA)
    if (a.device().is_cuda()) {
      const c10::cuda::CUDAGuard guard(a.device());
      const cudaStream_t st = c10::cuda::getCurrentCUDAStream(a.device().index()).stream();
      const at::Tensor ad = a.to(at::kDouble).contiguous();  // exact widening
      if (dir)
        xrng::cuda::dirichlet(ad.data_ptr<double>(), rows, k, p.key, p.offset, dt, out.data_ptr(), st);
      else if (op == Op::poisson)
        xrng::cuda::poisson(ad.data_ptr<double>(), n, p.key, p.offset, dt, out.data_ptr(), st);
      else
        xrng::cuda::gamma(ad.data_ptr<double>(), n, p.key, p.offset, dt, out.data_ptr(), st);
      return out;
    }
#endif
    const at::Tensor ah = a.to(at::kCPU).to(at::kDouble).contiguous();  // exact widening
    at::Tensor oh = a.device().is_cpu() ? out : at::empty(alpha.sizes(), alpha.options().device(at::kCPU));
    FillOptions fo;
    // values never depend on the thread count; small draws stay on one thread
    fo.threads = (n < (1u << 12) || at::in_parallel_region()) ? 1 : std::max(1, at::get_num_threads());
    if (dir)
      xrng::dirichlet(ah.data_ptr<double>(), rows, k, p.key, p.offset, dt, oh.data_ptr(), fo);
    else if (op == Op::poisson)
      xrng::poisson(ah.data_ptr<double>(), n, p.key, p.offset, dt, oh.data_ptr(), fo);
    else
      xrng::gamma(ah.data_ptr<double>(), n, p.key, p.offset, dt, oh.data_ptr(), fo);
    return a.device().is_cpu() ? oh : out.copy_(oh);
  } catch (const Error& e) {
    TORCH_CHECK_VALUE(false, e.what());
  }
}

at::Tensor binomial_kernel(const at::Tensor& count, const at::Tensor& prob, const at::Tensor& position) {
  try {
    const DType dt = out_dtype(count, "binomial");
    out_dtype(prob, "binomial");
    if (count.sizes() != prob.sizes())
      throw Error("binomial: count and prob must have the same shape (xrng.binomial broadcasts them)");
    if (count.device() != prob.device()) throw Error("binomial: count and prob must be on the same device");
    if (count.is_meta()) return at::empty_like(count, at::MemoryFormat::Contiguous);
    const DrawPosition p = read_position(position, "binomial");
    const uint64_t n = static_cast<uint64_t>(count.numel());
    check_gamma_count(n, p.offset);  // 64 words per element
    at::Tensor out = at::empty(count.sizes(), count.options().memory_format(at::MemoryFormat::Contiguous));
    if (n == 0) return out;
#if defined(XRNG_TORCH_CUDA)
    if (count.device().is_cuda()) {
      const c10::cuda::CUDAGuard guard(count.device());
      const cudaStream_t st = c10::cuda::getCurrentCUDAStream(count.device().index()).stream();
      const at::Tensor cd = count.detach().to(at::kDouble).contiguous(), pd = prob.detach().to(at::kDouble).contiguous();
      xrng::cuda::binomial(cd.data_ptr<double>(), pd.data_ptr<double>(), n, p.key, p.offset, dt, out.data_ptr(), st);
      return out;
    }
#endif
    const at::Tensor ch = count.detach().to(at::kCPU).to(at::kDouble).contiguous();  // exact widening
    const at::Tensor ph = prob.detach().to(at::kCPU).to(at::kDouble).contiguous();
    at::Tensor oh = count.device().is_cpu() ? out : at::empty(count.sizes(), count.options().device(at::kCPU));
    FillOptions fo;
    fo.threads = (n < (1u << 12) || at::in_parallel_region()) ? 1 : std::max(1, at::get_num_threads());
    xrng::binomial(ch.data_ptr<double>(), ph.data_ptr<double>(), n, p.key, p.offset, dt, oh.data_ptr(), fo);
    return count.device().is_cpu() ? oh : out.copy_(oh);
  } catch (const Error& e) {
    TORCH_CHECK_VALUE(false, e.what());
  }
}

at::Tensor binomial_autograd(const at::Tensor& count, const at::Tensor& prob, const at::Tensor& position) {
  at::AutoDispatchBelowADInplaceOrView guard;
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("xrng::binomial_counts", "")
                       .typed<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&)>();
  return op.call(count, prob, position);
}

at::Tensor gamma_kernel(const at::Tensor& alpha, const at::Tensor& position) {
  return draw(alpha, position, Op::gamma);
}
at::Tensor dirichlet_kernel(const at::Tensor& alpha, const at::Tensor& position) {
  return draw(alpha, position, Op::dirichlet);
}
at::Tensor poisson_kernel(const at::Tensor& rate, const at::Tensor& position) {
  return draw(rate, position, Op::poisson);
}

// No derivative here: step below autograd and call on (unboxed).
template <Op O>
at::Tensor below_autograd(const at::Tensor& alpha, const at::Tensor& position) {
  at::AutoDispatchBelowADInplaceOrView guard;
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow(O == Op::dirichlet ? "xrng::dirichlet"
                                          : O == Op::poisson ? "xrng::poisson_counts" : "xrng::gamma", "")
                       .typed<at::Tensor(const at::Tensor&, const at::Tensor&)>();
  return op.call(alpha, position);
}

}  // namespace
}  // namespace xrng::torch_api

TORCH_LIBRARY_FRAGMENT(xrng, m) {
  m.set_python_module("xrng._meta");
  m.def("gamma(Tensor alpha, Tensor position) -> Tensor", {at::Tag::nondeterministic_seeded});
  m.def("dirichlet(Tensor alpha, Tensor position) -> Tensor", {at::Tag::nondeterministic_seeded});
  m.def("poisson_counts(Tensor rate, Tensor position) -> Tensor", {at::Tag::nondeterministic_seeded});
  m.def("binomial_counts(Tensor count, Tensor prob, Tensor position) -> Tensor", {at::Tag::nondeterministic_seeded});
}
TORCH_LIBRARY_IMPL(xrng, CPU, m) {
  m.impl("gamma", TORCH_FN(xrng::torch_api::gamma_kernel));
  m.impl("dirichlet", TORCH_FN(xrng::torch_api::dirichlet_kernel));
  m.impl("poisson_counts", TORCH_FN(xrng::torch_api::poisson_kernel));
  m.impl("binomial_counts", TORCH_FN(xrng::torch_api::binomial_kernel));
}
TORCH_LIBRARY_IMPL(xrng, CUDA, m) {
  m.impl("gamma", TORCH_FN(xrng::torch_api::gamma_kernel));
  m.impl("dirichlet", TORCH_FN(xrng::torch_api::dirichlet_kernel));
  m.impl("poisson_counts", TORCH_FN(xrng::torch_api::poisson_kernel));
  m.impl("binomial_counts", TORCH_FN(xrng::torch_api::binomial_kernel));
}
TORCH_LIBRARY_IMPL(xrng, CompositeExplicitAutograd, m) {
  m.impl("gamma", TORCH_FN(xrng::torch_api::gamma_kernel));
  m.impl("dirichlet", TORCH_FN(xrng::torch_api::dirichlet_kernel));
  m.impl("poisson_counts", TORCH_FN(xrng::torch_api::poisson_kernel));
  m.impl("binomial_counts", TORCH_FN(xrng::torch_api::binomial_kernel));
}
TORCH_LIBRARY_IMPL(xrng, Autograd, m) {
  m.impl("gamma", TORCH_FN(xrng::torch_api::below_autograd<xrng::torch_api::Op::gamma>));
  m.impl("dirichlet", TORCH_FN(xrng::torch_api::below_autograd<xrng::torch_api::Op::dirichlet>));
  m.impl("poisson_counts", TORCH_FN(xrng::torch_api::below_autograd<xrng::torch_api::Op::poisson>));
  m.impl("binomial_counts", TORCH_FN(xrng::torch_api::binomial_autograd));
}
