// Categorical sampling (issue 20; SPEC.md section 10) as a torch operator, a
// fragment of the xrng library of ops.cpp in its own file. It is named
// `categorical`, not `multinomial`: the reproducible mode's dispatcher watch
// (reproducible.py, _DispatchCheck) knows random aten ops by their bare
// names, and would take xrng's own draw for aten.multinomial.
//
//   categorical(Tensor weights, int num_samples, bool replacement, Tensor position) -> Tensor
//       torch.multinomial's draw: weights [k] or [rows, k] (float16, bfloat16,
//       float32, float64; any device), int64 output [num_samples] or
//       [rows, num_samples] on the weights' device. `position` is
//       [seed, subseq, offset, stream] (ops.cpp); nothing is advanced here: a
//       caller with a generator first takes the draw's words
//       (xrng::take_(state, "bits", ..., uint32, words)), 2 rows num_samples
//       with replacement, 2 rows k without.
//
// Kernels: CPU (xrng::multinomial on the host, threads over rows), CUDA
// (xrng::cuda::multinomial on the current stream) when the bindings are built
// with the CUDA kernels, and every other backend (CompositeExplicitAutograd):
// the weights copied to the host, drawn there, the indices copied back. The
// weights are widened to binary64 first, which is exact for every accepted
// dtype, so every backend draws the same values. Fake kernel:
// python/xrng/_meta.py. The draw is not differentiable (integer output).
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <algorithm>
#include <string>
#include <vector>

#include "multinomial_ops.h"
#include "ops.h"
#include "xrng_torch.h"

#if defined(XRNG_TORCH_CUDA)
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "../device/xrng_cuda.h"
#endif

namespace xrng::torch_api {
namespace {

#define XRNG_MN_TRY try {
#define XRNG_MN_CATCH                   \
  }                                     \
  catch (const Error& e) {              \
    TORCH_CHECK_VALUE(false, e.what()); \
  }

struct Shape {
  uint64_t rows = 1, k = 0, ns = 0;
  bool one_d = false;
};

// torch.multinomial's argument rules (its messages in spirit), then the
// core's shape and counter checks; the weights' values are checked by the
// backend, before it writes anything.
Shape check_args(const at::Tensor& w, int64_t num_samples, bool replacement, uint64_t offset) {
  if (w.dim() != 1 && w.dim() != 2)
    throw Error("multinomial: weights must be 1 or 2 dim (got " + std::to_string(w.dim()) + ")");
  const auto t = w.scalar_type();
  if (t != at::kFloat && t != at::kDouble && t != at::kHalf && t != at::kBFloat16)
    throw Error(std::string("multinomial: only floating-point weights (float16, bfloat16, float32, float64), got ") +
                c10::toString(t));
  if (num_samples <= 0) throw Error("multinomial: cannot sample num_samples <= 0 samples");
  Shape s;
  s.one_d = w.dim() == 1;
  s.rows = s.one_d ? 1 : static_cast<uint64_t>(w.size(0));
  s.k = static_cast<uint64_t>(w.size(-1));
  s.ns = static_cast<uint64_t>(num_samples);
  check_multinomial_shape(s.rows, s.k, s.ns, replacement, offset);
  return s;
}

std::vector<int64_t> out_sizes(const Shape& s) {
  if (s.one_d) return {static_cast<int64_t>(s.ns)};
  return {static_cast<int64_t>(s.rows), static_cast<int64_t>(s.ns)};
}

at::Tensor multinomial_kernel(const at::Tensor& weights, int64_t num_samples, bool replacement,
                              const at::Tensor& position) {
  XRNG_MN_TRY
  if (weights.is_meta()) {
    const Shape s = check_args(weights, num_samples, replacement, 0);
    return at::empty(out_sizes(s), weights.options().dtype(at::kLong));
  }
  const DrawPosition p = read_position(position, "multinomial");
  const Shape s = check_args(weights, num_samples, replacement, p.offset);
  const auto opts = at::TensorOptions().dtype(at::kLong);
  if (s.rows == 0) return at::empty(out_sizes(s), opts.device(weights.device()));
  const at::Tensor w = weights.detach();
#if defined(XRNG_TORCH_CUDA)
  if (w.device().is_cuda()) {
    const c10::cuda::CUDAGuard guard(w.device());
    const cudaStream_t st = c10::cuda::getCurrentCUDAStream(w.device().index()).stream();
    const at::Tensor wd = w.to(at::kDouble).contiguous();  // exact widening
    at::Tensor out = at::empty(out_sizes(s), opts.device(w.device()));
    xrng::cuda::multinomial(wd.data_ptr<double>(), s.rows, s.k, s.ns, replacement, p.key, p.offset,
                            out.data_ptr<int64_t>(), st);
    return out;
  }
#endif
  const at::Tensor wh = w.to(at::kCPU).to(at::kDouble).contiguous();  // exact widening
  at::Tensor out = at::empty(out_sizes(s), opts);
  FillOptions fo;
  const uint64_t work = s.rows * (replacement ? s.ns : s.k);
  // values never depend on the thread count; small draws stay on one thread
  fo.threads = (work < (1u << 14) || at::in_parallel_region()) ? 1 : std::max(1, at::get_num_threads());
  multinomial(wh.data_ptr<double>(), s.rows, s.k, s.ns, replacement, p.key, p.offset, out.data_ptr<int64_t>(), fo);
  return w.device().is_cpu() ? out : out.to(w.device());
  XRNG_MN_CATCH
}

// No derivative: step below autograd and call on (unboxed).
at::Tensor multinomial_autograd(const at::Tensor& weights, int64_t num_samples, bool replacement,
                                const at::Tensor& position) {
  at::AutoDispatchBelowADInplaceOrView guard;
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("xrng::categorical", "")
                       .typed<at::Tensor(const at::Tensor&, int64_t, bool, const at::Tensor&)>();
  return op.call(weights, num_samples, replacement, position);
}

}  // namespace

namespace ops {
at::Tensor multinomial(const at::Tensor& weights, int64_t num_samples, bool replacement, const at::Tensor& position) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("xrng::categorical", "")
                       .typed<at::Tensor(const at::Tensor&, int64_t, bool, const at::Tensor&)>();
  try {
    return op.call(weights, num_samples, replacement, position);
  } catch (const c10::ValueError& e) {
    throw Error(e.what_without_backtrace());
  }
}
}  // namespace ops

}  // namespace xrng::torch_api

TORCH_LIBRARY_FRAGMENT(xrng, m) {
  m.set_python_module("xrng._meta");
  m.def("categorical(Tensor weights, int num_samples, bool replacement, Tensor position) -> Tensor",
        {at::Tag::nondeterministic_seeded});
}
TORCH_LIBRARY_IMPL(xrng, CPU, m) { m.impl("categorical", TORCH_FN(xrng::torch_api::multinomial_kernel)); }
TORCH_LIBRARY_IMPL(xrng, CUDA, m) { m.impl("categorical", TORCH_FN(xrng::torch_api::multinomial_kernel)); }
TORCH_LIBRARY_IMPL(xrng, CompositeExplicitAutograd, m) {
  m.impl("categorical", TORCH_FN(xrng::torch_api::multinomial_kernel));
}
TORCH_LIBRARY_IMPL(xrng, Autograd, m) { m.impl("categorical", TORCH_FN(xrng::torch_api::multinomial_autograd)); }
