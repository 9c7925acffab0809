// xrng's draws as torch operators (the torchvision csrc/ops pattern, see
// ../shared/STYLE.md): schemas declared once in TORCH_LIBRARY(xrng, m),
// kernels registered per dispatch key, dropout's autograd formula, and C++
// entries that call through the dispatcher (ops.h), so Python, LibTorch,
// torch.compile, torch.export and FakeTensor tracing all reach the same
// kernels. Fake (shape-only) kernels live in python/xrng/_meta.py, tied to
// the library by m.set_python_module.
//
// Where a draw starts is a *position tensor*: 4 int64 elements
//   [seed, subseq, offset, stream]
// (u64 values stored by their bit pattern; stream is the stream version of
// SPEC.md section 7). A stateful xrng.Generator is such a tensor too (its
// state); take_ returns the position a draw starts at and advances the state
// by the words the draw consumes. So a draw is a pure function of tensors:
// torch.compile sees the counters as graph inputs (never constants), two
// draws at different positions never merge, and a CUDA graph replay could
// read fresh counters from device memory. Every draw op is tagged
// nondeterministic_seeded (not CSE'd, not dead-code eliminated, not
// constant-folded, not recomputed by the partitioner).
//
// Schemas (one per draw kind of rng/registry.h; `dist` is a registry name,
// `reals` / `ints` its parameters in the registry's order, real ones and
// integer/count ones apart):
//   take_(Tensor(a!) state, str dist, float[] reals, int[] ints, ScalarType dtype, SymInt numel) -> Tensor
//   draw(SymInt[] size, str dist, float[] reals, int[] ints, Tensor position, ScalarType dtype, Device device) -> Tensor
//   draw_(Tensor(a!) out, str dist, float[] reals, int[] ints, Tensor position) -> Tensor(a!)
//   dropout(Tensor input, float p, Tensor position) -> Tensor           (autograd: the mask regenerated)
//   perm_shard(int n, Tensor position, int rank, int world, int start, SymInt count, ScalarType dtype, Device device) -> Tensor
//
// Kernels: one per op, registered for CPU, CUDA (when built with the CUDA
// kernels the path code picks them) and CompositeExplicitAutograd (every
// other backend: the host-then-transfer path of detail/paths.cpp). A meta
// output (device="meta") is validated and left without values.
#include "ops.h"

#include <mutex>

#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <c10/core/impl/TorchDispatchModeTLS.h>
#include <torch/autograd.h>
#include <torch/library.h>

#include <cstring>
#include <string>
#include <vector>

#include "../device/position.h"
#include "detail/dtypes.h"
#include "detail/paths.h"

namespace xrng::torch_api {

// ---- positions ---------------------------------------------------------------------------------
namespace {
// The position of 4 words in host memory (device/position.h's layout and
// load_position, which the CUDA kernels read positions in GPU memory with).
DrawPosition position_of(const int64_t* v, const char* what) {
  const cuda::RunPosition r = cuda::load_position(v);
  if (r.stream < kOldestStreamVersion || r.stream > kStreamVersion)
    throw Error(std::string(what) + ": position holds stream version " + std::to_string(r.stream) + " (1 or 2)");
  DrawPosition p;
  p.key = r.key;
  p.offset = r.offset;
  p.stream = static_cast<int>(r.stream);
  return p;
}
}  // namespace

DrawPosition read_position(const at::Tensor& pos, const char* what) {
  if (!pos.defined() || pos.scalar_type() != at::kLong || pos.numel() != 4)
    throw Error(std::string(what) + ": position must be an int64 tensor of 4 elements [seed, subseq, offset, stream]");
  const at::Tensor c = pos.device().is_cpu() ? pos.contiguous() : pos.to(at::kCPU).contiguous();
  return position_of(c.data_ptr<int64_t>(), what);
}

// reals / ints -> DrawParams, by the registry's parameter order and kinds.
DrawParams params_of(Dist d, c10::ArrayRef<double> reals, c10::ArrayRef<int64_t> ints) {
  DrawParams q;
  size_t r = 0, i = 0;
  for (const ParamInfo& pi : kParams) {
    if (!dist_has_param(d, pi.id)) continue;
    if (pi.kind == ParamKind::real) {
      if (r < reals.size()) q.set_real(pi.id, reals[r]);
      ++r;
    } else {
      if (i < ints.size()) {
        if (pi.kind == ParamKind::integer)
          q.set_integer(pi.id, ints[i]);
        else
          q.set_count(pi.id, static_cast<uint64_t>(ints[i]));
      }
      ++i;
    }
  }
  if (reals.size() > r || ints.size() > i)
    throw Error(std::string(dist_name(d)) + ": " + std::to_string(reals.size()) + " real and " +
                std::to_string(ints.size()) + " integer parameters given, the distribution has " + std::to_string(r) +
                " and " + std::to_string(i));
  return q;
}

namespace {
at::TensorOptions options_of(at::ScalarType dtype, const c10::Device& device) {
  return at::TensorOptions().dtype(dtype).device(device);
}

// ---- kernels -----------------------------------------------------------------------------------
// xrng::Error (a std::invalid_argument) leaves a kernel as c10::ValueError,
// which torch raises in Python as ValueError (a std::exception would be a
// RuntimeError); the C++ entries below turn it back into xrng::Error.
#define XRNG_KERNEL_TRY try {
#define XRNG_KERNEL_CATCH                  \
  }                                        \
  catch (const Error& e) {                 \
    TORCH_CHECK_VALUE(false, e.what());    \
  }
}  // namespace

namespace {
// take_'s checks that do not read the state's counter (a draw of `numel`
// elements of (d, dtype, q) in stream version `stream`): returns the plan and
// the words the draw advances the state by.
std::pair<Plan, uint64_t> take_plan(Dist d, const DrawParams& q, at::ScalarType dtype, int64_t numel, int stream) {
  if (numel < 0) throw Error("xrng::take_: negative element count");
  const Plan plan = make_plan(d, draw_dtype(d, dtype), q, stream);
  // the draw's own checks that do not need its output (a range that fits the
  // dtype, a permutation's size), so a refused draw leaves the state unchanged
  detail::check_fits(plan, dtype);
  if (plan.kind == Kind::permutation && static_cast<uint64_t>(numel) != plan.n)
    throw Error("perm: a permutation of " + std::to_string(plan.n) + " fills a tensor of that many elements, not " +
                std::to_string(numel));
  const uint64_t count = plan.kind == Kind::permutation ? plan.n : static_cast<uint64_t>(numel);
  const uint64_t words = check_counters(plan, 0, 0, count);  // the words alone fit below 2^64
  if (words == 0 && count != 0)  // exactly 2^64 words: no offset leaves room for them
    throw Error("generator exhausted: the draw would wrap the 64-bit word offset");
  return {plan, words};
}
// take_'s checks and advance on a host state (host_state): the position
// before is written to `before` (4 int64), the state advanced in place, by
// the arithmetic the CUDA take kernel runs (device/position.h, take_words).
void advance(int64_t* state, int64_t* before, Dist d, const DrawParams& q, at::ScalarType dtype, int64_t numel) {
  const DrawPosition p = position_of(state, "xrng::take_");
  const auto [plan, words] = take_plan(d, q, dtype, numel, p.stream);
  // a stateless draw's overflow message where the words pass 2^64, then the generator's rule
  check_counters(plan, p.offset, 0, plan.kind == Kind::permutation ? plan.n : static_cast<uint64_t>(numel));
  const cuda::PositionStatus st = cuda::take_words(state, before, p.stream, words);
  if (st == cuda::PositionStatus::exhausted)
    throw Error("generator exhausted: the draw would wrap the 64-bit word offset");
  if (st != cuda::PositionStatus::ok) throw Error("xrng::take_: the state changed its stream version");
}
bool host_state(const at::Tensor& state) { return state.device().is_cpu() && state.is_contiguous(); }
// A state take_ can advance: writable, int64, 4 elements.
void check_state(const at::Tensor& state) {
  detail::check_writable(state, "xrng::take_");
  if (state.scalar_type() != at::kLong || state.numel() != 4)
    throw Error("xrng::take_: position must be an int64 tensor of 4 elements [seed, subseq, offset, stream]");
}
// A state's read and advance are one step under this lock, so that threads
// drawing from one generator (one state tensor) get disjoint word ranges
// (issue 18; torch.Generator guards its state with a mutex too).
std::mutex& take_mutex() {
  static std::mutex m;
  return m;
}
// A state in GPU memory (detail::device_position): advanced by a kernel on
// the current CUDA stream, never read on the host, so a CUDA graph capture
// records the advance and each replay advances the state again. Its draws
// are in the newest stream version (what the host plans for must not
// depend on the state's words); the kernel checks that the state holds it.
at::Tensor take_device(at::Tensor& state, Dist d, const DrawParams& q, at::ScalarType dtype, int64_t numel) {
  const auto [plan, words] = take_plan(d, q, dtype, numel, kStreamVersion);
  return detail::take_on_device(state, plan.stream, words);
}
}  // namespace

DrawPosition take_position(at::Tensor& state, Dist d, const DrawParams& q, at::ScalarType dtype, int64_t numel) {
  if (!host_state(state)) {
    const at::Tensor pos = take_direct(state, d, q, dtype, numel, false);
    return read_position(pos, "xrng::take_");
  }
  std::lock_guard<std::mutex> lock(take_mutex());
  int64_t before[4];
  check_state(state);
  advance(state.data_ptr<int64_t>(), before, d, q, dtype, numel);
  return position_of(before, "xrng::take_");
}

at::Tensor take_direct(at::Tensor& state, Dist d, const DrawParams& q, at::ScalarType dtype, int64_t numel,
                       bool scratch) {
  check_state(state);
  if (detail::device_position(state, state)) return take_device(state, d, q, dtype, numel);
  std::lock_guard<std::mutex> lock(take_mutex());
  if (host_state(state)) {  // the common case, without three more ATen calls
    int64_t before[4];
    advance(state.data_ptr<int64_t>(), before, d, q, dtype, numel);
    const Key key(static_cast<uint64_t>(before[0]), static_cast<uint64_t>(before[1]));
    if (scratch) return position_tensor(key, static_cast<uint64_t>(before[2]), static_cast<int>(before[3]));
    at::Tensor t = at::empty({4}, state.options());
    std::memcpy(t.data_ptr<int64_t>(), before, sizeof(before));
    return t;
  }
  // any other device (or a strided CPU state): a host copy advanced, then written back
  at::Tensor host = state.to(at::kCPU).contiguous();
  int64_t before[4];
  advance(host.data_ptr<int64_t>(), before, d, q, dtype, numel);
  at::Tensor pos = state.clone();  // the state before
  state.select(0, 2).fill_(host.data_ptr<int64_t>()[2]);
  return pos;
}

namespace {

at::Tensor take_kernel(at::Tensor& state, c10::string_view dist, c10::ArrayRef<double> reals,
                       c10::ArrayRef<int64_t> ints, at::ScalarType dtype, int64_t numel) {
  XRNG_KERNEL_TRY
  const Dist d = parse_dist(std::string(dist));
  return take_direct(state, d, params_of(d, reals, ints), dtype, numel, false);
  XRNG_KERNEL_CATCH
}

at::Tensor& draw_out_kernel(at::Tensor& out, c10::string_view dist, c10::ArrayRef<double> reals,
                            c10::ArrayRef<int64_t> ints, const at::Tensor& position) {
  XRNG_KERNEL_TRY
  const Dist d = parse_dist(std::string(dist));
  const DrawParams q = params_of(d, reals, ints);
  if (out.is_meta()) {  // validated, no values
    (void)make_plan(d, draw_dtype(d, out.scalar_type()), q);
    return out;
  }
  if (detail::device_position(position, out)) return draw_at_device(out, d, q, position);
  const DrawPosition p = read_position(position, dist_name(d));
  return draw_direct(out, d, q, p.key, p.offset, {}, p.stream);
  XRNG_KERNEL_CATCH

}

at::Tensor draw_kernel(c10::SymIntArrayRef size, c10::string_view dist, c10::ArrayRef<double> reals,
                       c10::ArrayRef<int64_t> ints, const at::Tensor& position, at::ScalarType dtype,
                       c10::Device device) {
  XRNG_KERNEL_TRY
  std::vector<int64_t> sz;
  sz.reserve(size.size());
  for (const c10::SymInt& s : size) {
    const int64_t v = s.expect_int();
    if (v < 0) throw Error("negative dimension " + std::to_string(v));
    sz.push_back(v);
  }
  at::Tensor out = at::empty(sz, options_of(dtype, device));
  return draw_out_kernel(out, dist, reals, ints, position);
  XRNG_KERNEL_CATCH

}

at::Tensor dropout_kernel(const at::Tensor& in, double p, const at::Tensor& position) {
  XRNG_KERNEL_TRY
  at::Tensor out = at::empty(in.sizes(), in.options().memory_format(at::MemoryFormat::Contiguous));
  if (in.is_meta()) return out;
  if (detail::device_position(position, out)) return dropout_at_device(out, in, p, position);
  const DrawPosition pos = read_position(position, "dropout");
  return dropout_direct(out, in, p, pos.key, pos.offset, {});
  XRNG_KERNEL_CATCH

}

at::Tensor perm_shard_kernel(int64_t n, const at::Tensor& position, int64_t rank, int64_t world, int64_t start,
                             c10::SymInt count, at::ScalarType dtype, c10::Device device) {
  XRNG_KERNEL_TRY
  const int64_t c = count.expect_int();
  if (c < 0) throw Error("perm_shard: negative count " + std::to_string(c));
  at::Tensor out = at::empty({c}, options_of(dtype, device));
  if (out.is_meta()) return out;
  if (detail::device_position(position, out))
    return perm_shard_at_device(out, static_cast<uint64_t>(n), position, static_cast<uint64_t>(rank),
                                static_cast<uint64_t>(world), static_cast<uint64_t>(start));
  const DrawPosition pos = read_position(position, "perm_shard");
  return perm_shard_direct(out, static_cast<uint64_t>(n), pos.key, pos.offset, static_cast<uint64_t>(rank),
                           static_cast<uint64_t>(world), static_cast<uint64_t>(start), {});
  XRNG_KERNEL_CATCH

}

// ---- dropout's autograd: d out / d in = the same mask and scale, so the
// gradient is dropout of the incoming gradient at the same position (the
// mask is regenerated from (key, offset), never stored).
class DropoutFunction : public torch::autograd::Function<DropoutFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& in, double p,
                            const at::Tensor& position) {
    at::AutoDispatchBelowADInplaceOrView guard;
    ctx->saved_data["p"] = p;
    ctx->save_for_backward({position});
    return ops::dropout(in, p, position);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const at::Tensor position = ctx->get_saved_variables()[0];
    const double p = ctx->saved_data["p"].toDouble();
    return {ops::dropout(grads[0], p, position), at::Tensor(), at::Tensor()};
  }
};
// The other operators have no derivative (a draw is not differentiable in
// its parameters): their Autograd kernels step below autograd and the
// ADInplaceOrView key and call on, unboxed (torch's fallback for custom ops
// there is boxed, a few microseconds per call), bumping the version counter
// of what they write, as an in-place torch op does.
at::Tensor take_autograd(at::Tensor& state, c10::string_view dist, c10::ArrayRef<double> reals,
                         c10::ArrayRef<int64_t> ints, at::ScalarType dtype, c10::SymInt numel) {
  XRNG_KERNEL_TRY
  at::Tensor pos;
  {
    at::AutoDispatchBelowADInplaceOrView guard;
    static auto op = c10::Dispatcher::singleton()
                         .findSchemaOrThrow("xrng::take_", "")
                         .typed<at::Tensor(at::Tensor&, c10::string_view, c10::ArrayRef<double>,
                                           c10::ArrayRef<int64_t>, at::ScalarType, c10::SymInt)>();
    pos = op.call(state, dist, reals, ints, dtype, numel);
  }
  if (!state.is_inference()) state.unsafeGetTensorImpl()->bump_version();
  return pos;
  XRNG_KERNEL_CATCH
}
at::Tensor draw_autograd(c10::SymIntArrayRef size, c10::string_view dist, c10::ArrayRef<double> reals,
                         c10::ArrayRef<int64_t> ints, const at::Tensor& position, at::ScalarType dtype,
                         c10::Device device) {
  XRNG_KERNEL_TRY
  at::AutoDispatchBelowADInplaceOrView guard;
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("xrng::draw", "")
                       .typed<at::Tensor(c10::SymIntArrayRef, c10::string_view, c10::ArrayRef<double>,
                                         c10::ArrayRef<int64_t>, const at::Tensor&, at::ScalarType, c10::Device)>();
  return op.call(size, dist, reals, ints, position, dtype, device);
  XRNG_KERNEL_CATCH
}
at::Tensor& draw_out_autograd(at::Tensor& out, c10::string_view dist, c10::ArrayRef<double> reals,
                              c10::ArrayRef<int64_t> ints, const at::Tensor& position) {
  XRNG_KERNEL_TRY
  {
    at::AutoDispatchBelowADInplaceOrView guard;
    static auto op = c10::Dispatcher::singleton()
                         .findSchemaOrThrow("xrng::draw_", "")
                         .typed<at::Tensor&(at::Tensor&, c10::string_view, c10::ArrayRef<double>,
                                            c10::ArrayRef<int64_t>, const at::Tensor&)>();
    op.call(out, dist, reals, ints, position);
  }
  if (!out.is_inference()) out.unsafeGetTensorImpl()->bump_version();
  return out;
  XRNG_KERNEL_CATCH
}
at::Tensor perm_shard_autograd(int64_t n, const at::Tensor& position, int64_t rank, int64_t world, int64_t start,
                               c10::SymInt count, at::ScalarType dtype, c10::Device device) {
  XRNG_KERNEL_TRY
  at::AutoDispatchBelowADInplaceOrView guard;
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("xrng::perm_shard", "")
                       .typed<at::Tensor(int64_t, const at::Tensor&, int64_t, int64_t, int64_t, c10::SymInt,
                                         at::ScalarType, c10::Device)>();
  return op.call(n, position, rank, world, start, count, dtype, device);
  XRNG_KERNEL_CATCH
}

at::Tensor dropout_autograd(const at::Tensor& in, double p, const at::Tensor& position) {
  XRNG_KERNEL_TRY
  return DropoutFunction::apply(in, p, position);
  XRNG_KERNEL_CATCH
}

}  // namespace

// ---- C++ entries through the dispatcher -----------------------------------------------------------
// A kernel's c10::ValueError (an xrng::Error inside) is rethrown as xrng::Error,
// the one error type of the LibTorch API.
#define XRNG_CALL(expr)                                    \
  try {                                                    \
    return expr;                                           \
  } catch (const c10::ValueError& e) {                     \
    throw Error(e.what_without_backtrace());               \
  }
namespace ops {
at::Tensor take_(at::Tensor& state, const std::string& dist, c10::ArrayRef<double> reals,
                 c10::ArrayRef<int64_t> ints, at::ScalarType dtype, int64_t numel) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("xrng::take_", "")
                       .typed<at::Tensor(at::Tensor&, c10::string_view, c10::ArrayRef<double>,
                                         c10::ArrayRef<int64_t>, at::ScalarType, c10::SymInt)>();
  XRNG_CALL(op.call(state, dist, reals, ints, dtype, c10::SymInt(numel)))
}
at::Tensor draw(at::IntArrayRef size, const std::string& dist, c10::ArrayRef<double> reals,
                c10::ArrayRef<int64_t> ints, const at::Tensor& position, at::ScalarType dtype, c10::Device device) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("xrng::draw", "")
                       .typed<at::Tensor(c10::SymIntArrayRef, c10::string_view, c10::ArrayRef<double>,
                                         c10::ArrayRef<int64_t>, const at::Tensor&, at::ScalarType, c10::Device)>();
  XRNG_CALL(op.call(c10::fromIntArrayRefSlow(size), dist, reals, ints, position, dtype, device))
}
at::Tensor& draw_(at::Tensor& out, const std::string& dist, c10::ArrayRef<double> reals,
                  c10::ArrayRef<int64_t> ints, const at::Tensor& position) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("xrng::draw_", "")
                       .typed<at::Tensor&(at::Tensor&, c10::string_view, c10::ArrayRef<double>,
                                          c10::ArrayRef<int64_t>, const at::Tensor&)>();
  XRNG_CALL(op.call(out, dist, reals, ints, position))
}
at::Tensor dropout(const at::Tensor& in, double p, const at::Tensor& position) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("xrng::dropout", "")
                       .typed<at::Tensor(const at::Tensor&, double, const at::Tensor&)>();
  XRNG_CALL(op.call(in, p, position))
}
at::Tensor perm_shard(int64_t n, const at::Tensor& position, int64_t rank, int64_t world, int64_t start,
                      int64_t count, at::ScalarType dtype, c10::Device device) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("xrng::perm_shard", "")
                       .typed<at::Tensor(int64_t, const at::Tensor&, int64_t, int64_t, int64_t, c10::SymInt,
                                         at::ScalarType, c10::Device)>();
  XRNG_CALL(op.call(n, position, rank, world, start, c10::SymInt(count), dtype, device))
}
}  // namespace ops

void split_params(Dist d, const DrawParams& q, std::vector<double>& reals, std::vector<int64_t>& ints) {
  reals.clear();
  ints.clear();
  for (const ParamInfo& pi : kParams) {
    if (!dist_has_param(d, pi.id)) continue;
    if (pi.kind == ParamKind::real)
      reals.push_back(q.real(pi.id));
    else if (pi.kind == ParamKind::integer)
      ints.push_back(q.integer(pi.id));
    else
      ints.push_back(static_cast<int64_t>(q.count(pi.id)));
  }
}

at::Tensor position_tensor(const Key& key, uint64_t offset, int stream) {
  // A thread's scratch position, reused while nothing else holds it (a draw
  // that keeps its position, such as dropout's autograd, or a trace, holds a
  // reference, and the next call allocates a new one): an allocation less per
  // eager draw.
  thread_local at::Tensor scratch;
  at::Tensor t;
  if (scratch.defined() && scratch.use_count() == 1 && c10::impl::TorchDispatchModeTLS::stack_len() == 0) {
    t = scratch;
  } else {
    t = at::empty({4}, at::TensorOptions().dtype(at::kLong));
    if (c10::impl::TorchDispatchModeTLS::stack_len() == 0) scratch = t;
  }
  int64_t* v = t.data_ptr<int64_t>();
  v[0] = static_cast<int64_t>(key.seed);
  v[1] = static_cast<int64_t>(key.subseq);
  v[2] = static_cast<int64_t>(offset);
  v[3] = stream;
  return t;
}

}  // namespace xrng::torch_api

// ---- registration ----------------------------------------------------------------------------------
TORCH_LIBRARY(xrng, m) {
  m.set_python_module("xrng._meta");
  const std::vector<at::Tag> seeded = {at::Tag::nondeterministic_seeded};
  m.def(
      "take_(Tensor(a!) state, str dist, float[] reals, int[] ints, ScalarType dtype, SymInt numel) -> Tensor",
      seeded);
  m.def(
      "draw(SymInt[] size, str dist, float[] reals, int[] ints, Tensor position, ScalarType dtype, Device device) -> "
      "Tensor",
      seeded);
  m.def("draw_(Tensor(a!) out, str dist, float[] reals, int[] ints, Tensor position) -> Tensor(a!)", seeded);
  m.def("dropout(Tensor input, float p, Tensor position) -> Tensor", seeded);
  m.def(
      "perm_shard(int n, Tensor position, int rank, int world, int start, SymInt count, ScalarType dtype, "
      "Device device) -> Tensor",
      seeded);
}

namespace {
void register_kernels(torch::Library& m) {
  using namespace xrng::torch_api;
  m.impl("take_", TORCH_FN(take_kernel));
  m.impl("draw", TORCH_FN(draw_kernel));
  m.impl("draw_", TORCH_FN(draw_out_kernel));
  m.impl("dropout", TORCH_FN(dropout_kernel));
  m.impl("perm_shard", TORCH_FN(perm_shard_kernel));
}
}  // namespace

// CPU and CUDA tensors: the kernels pick the host backend or the CUDA kernels
// (detail::run); every other backend: CompositeExplicitAutograd, the same
// functions, which take the host-then-transfer path.
TORCH_LIBRARY_IMPL(xrng, CPU, m) { register_kernels(m); }
TORCH_LIBRARY_IMPL(xrng, CUDA, m) { register_kernels(m); }
TORCH_LIBRARY_IMPL(xrng, CompositeExplicitAutograd, m) { register_kernels(m); }
TORCH_LIBRARY_IMPL(xrng, Autograd, m) {
  using namespace xrng::torch_api;
  m.impl("dropout", TORCH_FN(dropout_autograd));
  m.impl("take_", TORCH_FN(take_autograd));
  m.impl("draw", TORCH_FN(draw_autograd));
  m.impl("draw_", TORCH_FN(draw_out_autograd));
  m.impl("perm_shard", TORCH_FN(perm_shard_autograd));
}
