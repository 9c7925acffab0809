// Block draws of a global tensor as torch operators (issue 17): the local
// shard of a sharded tensor (DTensor, FSDP2, tensor parallelism) filled with
// exactly its elements of the unsharded draw (rng/block.h; SPEC.md 3.1).
// A fragment of the xrng library of ops.cpp, in its own file:
//
//   draw_block_(Tensor(a!) out, str dist, float[] reals, int[] ints, Tensor position,
//               int[] global_shape, int[] block_start) -> ()
//       out (any strides, any device) receives the block of size out.shape at
//       block_start of the draw over global_shape at `position` ([seed,
//       subseq, offset, stream], as ops.cpp). It returns nothing (a pure
//       mutation, which torch.compile functionalizes). Nothing is advanced: a caller
//       with a generator takes the position with xrng::take_ for the GLOBAL
//       element count, so every shard ends at the same offset.
//   dropout_block(Tensor input, float p, Tensor position, int[] global_shape,
//                 int[] block_start) -> Tensor
//       dropout of `input`, the block of size input.shape at block_start of a
//       global tensor of global_shape, with the global tensor's mask;
//       differentiable (the backward is the same dropout of the gradient).
//
// Kernels: CPU (xrng::fill_block / transform_block on the host), CUDA (the
// xrng::cuda block calls, on the current stream) when the bindings are built
// with the CUDA kernels, and every other backend (CompositeExplicitAutograd):
// the block drawn on the host, then copied. The values are those of the core
// block calls, so they are the same on every backend. Fake kernels:
// python/xrng/_block_meta.py.
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/autograd.h>
#include <torch/library.h>

#include <algorithm>
#include <string>
#include <vector>

#include "detail/dtypes.h"
#include "ops.h"
#include "xrng_torch.h"

#if defined(XRNG_TORCH_CUDA)
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "../device/xrng_cuda.h"
#endif

namespace xrng::torch_api {
namespace {

#define XRNG_BLOCK_TRY try {
#define XRNG_BLOCK_CATCH               \
  }                                    \
  catch (const Error& e) {             \
    TORCH_CHECK_VALUE(false, e.what()); \
  }

// The block of `local` (its sizes) at `start` of `global`; checked by the core.
TensorBlock make_block(at::IntArrayRef local, c10::ArrayRef<int64_t> global, c10::ArrayRef<int64_t> start,
                       const char* what) {
  if (global.size() != local.size() || start.size() != local.size())
    throw Error(std::string(what) + ": the tensor has " + std::to_string(local.size()) + " dimensions, global_shape " +
                std::to_string(global.size()) + " and block_start " + std::to_string(start.size()));
  TensorBlock b;
  for (size_t d = 0; d < local.size(); ++d) {
    if (global[d] < 0 || start[d] < 0)
      throw Error(std::string(what) + ": negative global_shape or block_start entry in dimension " + std::to_string(d));
    b.shape.push_back(static_cast<uint64_t>(global[d]));
    b.start.push_back(static_cast<uint64_t>(start[d]));
    b.size.push_back(static_cast<uint64_t>(local[d]));
  }
  (void)BlockLayout::make(b);  // bounds and the global count, before anything is written
  return b;
}

uint64_t global_count(const TensorBlock& b) { return BlockLayout::make(b).global_count; }

FillOptions host_options(uint64_t count) {
  FillOptions fo;
  // values never depend on the thread count; small blocks stay on one thread
  fo.threads = (count < (1u << 16) || at::in_parallel_region()) ? 1 : std::max(1, at::get_num_threads());
  return fo;
}

// Runs write(contiguous tensor of type `stage` on `dev`) and lands it in out.
template <class Write>
void land_in(at::Tensor& out, at::ScalarType stage, const c10::Device& dev, Write&& write) {
  if (out.device() == dev && out.is_contiguous() && out.scalar_type() == stage) {
    write(out);
    return;
  }
  at::Tensor tmp = at::empty(out.sizes(), at::TensorOptions().dtype(stage).device(dev));
  write(tmp);
  out.copy_(tmp);
}

void draw_block_kernel(at::Tensor& out, c10::string_view dist, c10::ArrayRef<double> reals,
                              c10::ArrayRef<int64_t> ints, const at::Tensor& position,
                              c10::ArrayRef<int64_t> global_shape, c10::ArrayRef<int64_t> block_start) {
  XRNG_BLOCK_TRY
  const Dist d = parse_dist(std::string(dist));
  if (out.layout() != at::kStrided) throw Error(std::string(dist_name(d)) + ": only strided tensors can be filled");
  const at::ScalarType type = out.scalar_type();
  const DrawPosition p = read_position(position, dist_name(d));
  const Plan plan = make_plan(d, draw_dtype(d, type), params_of(d, reals, ints), p.stream);
  if (plan.kind == Kind::transform)
    throw Error(std::string("draw_block_: ") + dist_name(d) + " transforms an input tensor: use dropout_block");
  detail::check_fits(plan, type);
  const TensorBlock b = make_block(out.sizes(), global_shape, block_start, "draw_block_");
  check_block(plan, p.offset, b, 0, static_cast<uint64_t>(out.numel()));
  if (out.is_meta() || out.numel() == 0) return;
  const at::ScalarType stage = detail::staging_type(plan, type);
  const uint64_t n = static_cast<uint64_t>(out.numel());
#if defined(XRNG_TORCH_CUDA)
  if (out.device().is_cuda()) {
    const c10::cuda::CUDAGuard guard(out.device());
    const cudaStream_t s = c10::cuda::getCurrentCUDAStream(out.device().index()).stream();
    land_in(out, stage, out.device(), [&](at::Tensor& t) {
      xrng::cuda::fill_block(plan, p.key, p.offset, b, 0, n, t.data_ptr(), s);
    });
    return;
  }
#endif
  land_in(out, stage, c10::Device(c10::kCPU), [&](at::Tensor& t) {
    xrng::fill_block(plan, p.key, p.offset, b, 0, n, t.data_ptr(), host_options(n));
  });
  return;
  XRNG_BLOCK_CATCH
}

at::Tensor dropout_block_kernel(const at::Tensor& in, double prob, const at::Tensor& position,
                                c10::ArrayRef<int64_t> global_shape, c10::ArrayRef<int64_t> block_start) {
  XRNG_BLOCK_TRY
  if (in.layout() != at::kStrided) throw Error("dropout_block: only strided tensors");
  const DrawPosition p = read_position(position, "dropout_block");
  const Plan plan =
      make_plan(Dist::dropout, draw_dtype(Dist::dropout, in.scalar_type()), DrawParams::probability(prob), p.stream);
  const TensorBlock b = make_block(in.sizes(), global_shape, block_start, "dropout_block");
  const uint64_t n = static_cast<uint64_t>(in.numel());
  check_block(plan, p.offset, b, 0, n);
  at::Tensor out = at::empty(in.sizes(), in.options().memory_format(at::MemoryFormat::Contiguous));
  if (in.is_meta() || n == 0) return out;
#if defined(XRNG_TORCH_CUDA)
  if (in.device().is_cuda()) {
    const c10::cuda::CUDAGuard guard(in.device());
    const cudaStream_t s = c10::cuda::getCurrentCUDAStream(in.device().index()).stream();
    const at::Tensor x = in.contiguous();
    xrng::cuda::transform_block(plan, p.key, p.offset, b, 0, n, x.data_ptr(), out.data_ptr(), s);
    return out;
  }
#endif
  const at::Tensor x = in.to(at::kCPU).contiguous();
  land_in(out, in.scalar_type(), c10::Device(c10::kCPU), [&](at::Tensor& t) {
    xrng::transform_block(plan, p.key, p.offset, b, 0, n, x.data_ptr(), t.data_ptr(), host_options(n));
  });
  return out;
  XRNG_BLOCK_CATCH
}

at::Tensor call_dropout_block(const at::Tensor& in, double p, const at::Tensor& position,
                              c10::ArrayRef<int64_t> global_shape, c10::ArrayRef<int64_t> block_start) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("xrng::dropout_block", "")
                       .typed<at::Tensor(const at::Tensor&, double, const at::Tensor&, c10::ArrayRef<int64_t>,
                                         c10::ArrayRef<int64_t>)>();
  return op.call(in, p, position, global_shape, block_start);
}

// d out / d in: the same mask and scale (regenerated, never stored).
class DropoutBlockFunction : public torch::autograd::Function<DropoutBlockFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& in, double p,
                            const at::Tensor& position, c10::ArrayRef<int64_t> global_shape,
                            c10::ArrayRef<int64_t> block_start) {
    at::AutoDispatchBelowADInplaceOrView guard;
    ctx->saved_data["p"] = p;
    ctx->saved_data["global"] = global_shape.vec();
    ctx->saved_data["start"] = block_start.vec();
    ctx->save_for_backward({position});
    return call_dropout_block(in, p, position, global_shape, block_start);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const at::Tensor position = ctx->get_saved_variables()[0];
    const double p = ctx->saved_data["p"].toDouble();
    const std::vector<int64_t> g = ctx->saved_data["global"].toIntVector();
    const std::vector<int64_t> s = ctx->saved_data["start"].toIntVector();
    return {call_dropout_block(grads[0], p, position, g, s), at::Tensor(), at::Tensor(), at::Tensor(),
            at::Tensor()};
  }
};
at::Tensor dropout_block_autograd(const at::Tensor& in, double p, const at::Tensor& position,
                                  c10::ArrayRef<int64_t> global_shape, c10::ArrayRef<int64_t> block_start) {
  return DropoutBlockFunction::apply(in, p, position, global_shape, block_start);
}

void register_block_kernels(torch::Library& m) {
  m.impl("draw_block_", TORCH_FN(draw_block_kernel));
  m.impl("dropout_block", TORCH_FN(dropout_block_kernel));
}

}  // namespace
}  // namespace xrng::torch_api

TORCH_LIBRARY_FRAGMENT(xrng, m) {
  m.set_python_module("xrng._block_meta");
  const std::vector<at::Tag> seeded = {at::Tag::nondeterministic_seeded};
  m.def(
      "draw_block_(Tensor(a!) out, str dist, float[] reals, int[] ints, Tensor position, int[] global_shape, "
      "int[] block_start) -> ()",
      seeded);
  m.def("dropout_block(Tensor input, float p, Tensor position, int[] global_shape, int[] block_start) -> Tensor",
        seeded);
}
TORCH_LIBRARY_IMPL(xrng, CPU, m) { xrng::torch_api::register_block_kernels(m); }
TORCH_LIBRARY_IMPL(xrng, CUDA, m) { xrng::torch_api::register_block_kernels(m); }
TORCH_LIBRARY_IMPL(xrng, CompositeExplicitAutograd, m) { xrng::torch_api::register_block_kernels(m); }
TORCH_LIBRARY_IMPL(xrng, Autograd, m) {
  m.impl("dropout_block", TORCH_FN(xrng::torch_api::dropout_block_autograd));
}
