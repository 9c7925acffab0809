// The kernels of the reproducible mode: Kernel (one per row of the table,
// table.h, and dispatch key: the form of the row reads the operator's
// arguments) and installation (install/uninstall: torch::Library objects made
// at the first entry, dropped at the last, when torch's kernels come back).
// The in-place rows (fill, random_) are registered as typed functions
// (unboxed(): a C++ caller passes its arguments without an IValue stack;
// torch boxes them for the callers that box), the others as boxed functors.
// Torch's own kernel of each (operator, key) is kept (getComputedKernelForDispatchKey)
// for three things: its argument checks (run once on a zero-element tensor
// for each new (operator, dtype, scalar arguments), so errors are torch's
// own, word for word), the calls xrng does not draw (reported), and the
// calls with nothing to draw.
#include "kernels.h"

#include <ATen/native/Resize.h>
#include <ATen/native/transformers/attention.h>
#include <ATen/ops/_fused_sdp_choice_ops.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/util/Exception.h>
#include <c10/util/bit_cast.h>
#include <torch/csrc/autograd/graph_task.h>
#include <torch/library.h>

#include <array>
#include <atomic>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "../ops.h"
#include "blocks.h"
#include "draws.h"
#include "streams.h"
#include "table.h"
#include "torch_streams.h"

namespace xrng::torch_api::mode::detail {

using Stack = torch::jit::Stack;

// torch's own kernels, kept at installation: [row][key]
std::vector<std::array<std::optional<c10::SafeKernelFunction>, kNumKeys>>& g_torch =
    *new std::vector<std::array<std::optional<c10::SafeKernelFunction>, kNumKeys>>;

std::optional<at::Generator> generator_arg(const c10::IValue& v) {
  if (v.isNone()) return std::nullopt;
  return v.toGenerator();
}

// Which argument holds the generator (the schema's "generator").
int generator_index(const c10::FunctionSchema& s) {
  const auto& a = s.arguments();
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].name() == "generator") return static_cast<int>(i);
  return -1;
}

// ---- the kernel ------------------------------------------------------------------------------------
// The scalar arguments of a call (bit patterns), with its dtype: what torch's
// argument checks of a fill depend on.
struct CheckKey {
  at::ScalarType dtype = at::kFloat;
  std::array<uint64_t, 6> scalars{};
  bool operator==(const CheckKey& o) const {  // (inline: no memcmp call)
    uint64_t d = static_cast<uint64_t>(dtype != o.dtype);
    for (size_t i = 0; i < scalars.size(); ++i) d |= scalars[i] ^ o.scalars[i];
    return d == 0;
  }
};

class Kernel final : public c10::OperatorKernel {
 public:
  Kernel(size_t row, size_t key, const c10::OperatorHandle& op)
      : row_(row), key_(key), nargs_(op.schema().arguments().size()), gi_(generator_index(op.schema())),
        ov_(overload_kind(kModeOps[row].overload)), op_(op),
        name_(new std::string(std::string("aten.") + kModeOps[row].name +
              (kModeOps[row].overload[0] ? std::string(".") + kModeOps[row].overload : ""))) {}

  size_t nargs() const { return nargs_; }

  // A boxed call (the rows without an unboxed entry; callers that box).
  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet ks, Stack* stack) {
    Outputs out;
    if (!serve(op, ks, torch::jit::last(*stack, nargs_), stack, out)) return;  // torch's kernel ran on the stack
    torch::jit::drop(*stack, nargs_);
    for (auto& v : out) torch::jit::push(*stack, std::move(v));
  }

  // An unboxed call of a fill row (normal_, uniform_, log_normal_, cauchy_:
  // a and b; exponential_, geometric_, bernoulli_.float: a alone, `two`
  // false). The usual call (the mode's thread, an xrng stream, elements to
  // draw, torch's checks of this dtype and these parameters passed before)
  // draws from the typed arguments: no IValues, the same draw as run()'s;
  // every other call takes the general path (inplace()), which decides as before.
  at::Tensor& fill_typed(c10::DispatchKeySet ks, at::Tensor& self, double a, double b, bool two,
                         const std::optional<at::Generator>& gen) {
    if (std::this_thread::get_id() == g_owner && self.numel() != 0) {
      // as torch_checks() makes it from the IValues: the tensor's dtype, the
      // scalars in order, then a None generator's mark (a generator: nothing)
      CheckKey ck;
      size_t j = 0;
      ck.scalars[j++] = 0x7000 + static_cast<uint64_t>(self.scalar_type());
      ck.scalars[j++] = c10::bit_cast<uint64_t>(a);
      if (two) ck.scalars[j++] = c10::bit_cast<uint64_t>(b);
      if (!gen.has_value()) ck.scalars[j++] = ~uint64_t{0} - 1;
      const int now = g_stream_now.load(std::memory_order_acquire);
      const bool usual = checked(ck);
      if (usual && now > kXrng) {
        // a torch stream: the usual call drawn here (as serve()'s torch_stream_call, without g_lock)
        if (torch_cpu_fill_fast(self, kModeOps[row_].dist, a, b, gen, static_cast<TorchStream>(now))) return self;
      } else if (usual && now == kXrng) {
        // g_lock is held through the draw (take() locks it again, recursively:
        // no second atomic); what follows a refusal runs without it, as in serve()
        std::exception_ptr refused;
        bool drawn = false;
        {
          std::lock_guard<std::recursive_mutex> lock(g_lock);
          if (!g_entries.empty() && config().torch == kXrng) {  // (entries may have changed on another thread since)
            try {
              draw_fill(self, a, b, gen, *name_);
              drawn = true;
            } catch (...) {
              refused = std::current_exception();
            }
          }
        }
        if (drawn) return self;
        if (refused) {
          Stack local;
          auto torch_here = [&] {
            local.clear();
            local.emplace_back(self);
            local.emplace_back(a);
            if (two) local.emplace_back(b);
            local.emplace_back(gen);
            torch_kernel(op_, ks, &local);
          };
          guarded(gen, *name_, torch_here, [&] { std::rethrow_exception(refused); });
          return self;
        }
      }
    }
    return two ? inplace(ks, self, a, b, gen) : inplace(ks, self, a, gen);
  }

  // An unboxed call of random_ (`range` 0: random_(), 1: random_(to), 2:
  // random_(from, to), 3: random_(from, None)). Under a torch-cpu stream the
  // usual call (the mode's thread, elements to draw, torch's checks of this
  // dtype and these arguments passed before) draws here
  // (torch_cpu_random_fast); every other call takes the general path.
  at::Tensor& random_typed(c10::DispatchKeySet ks, at::Tensor& self, int range, int64_t from,
                           std::optional<int64_t> to, const std::optional<at::Generator>& gen) {
    if (std::this_thread::get_id() == g_owner && self.numel() != 0) {
      CheckKey ck;  // as torch_checks() makes it from the IValues (a None: ~0 - 1; a generator: nothing)
      size_t j = 0;
      ck.scalars[j++] = 0x7000 + static_cast<uint64_t>(self.scalar_type());
      if (range >= 2) ck.scalars[j++] = static_cast<uint64_t>(from);
      if (range >= 1) ck.scalars[j++] = to.has_value() ? static_cast<uint64_t>(*to) : ~uint64_t{0} - 1;
      if (!gen.has_value()) ck.scalars[j++] = ~uint64_t{0} - 1;
      const int now = g_stream_now.load(std::memory_order_acquire);  // (a torch stream: drawn here)
      if (now > kXrng && checked(ck)) {
        const int kind = range <= 1 ? range : (to.has_value() ? 2 : 3);
        if (torch_cpu_random_fast(self, kind, from, to.value_or(0), gen, static_cast<TorchStream>(now))) return self;
      }
    }
    switch (range) {
      case 0: return inplace(ks, self, gen);
      case 1: return inplace(ks, self, *to, gen);
      default: return inplace(ks, self, from, to, gen);
    }
  }

  // An unboxed call of an in-place row (fill, random: install() registers
  // these for them): its arguments as IValues on the C++ stack, no Stack
  // unless torch's own kernel runs; the output is self.
  template <class... A>
  at::Tensor& inplace(c10::DispatchKeySet ks, at::Tensor& self, A&&... a) {
    const std::array<c10::IValue, 1 + sizeof...(A)> args{c10::IValue(self), c10::IValue(std::forward<A>(a))...};
    Outputs out;
    serve(op_, ks, args, nullptr, out);
    return self;
  }

 private:
  // The kernel of one call: `args` its arguments; `stack` the boxed call's
  // stack (args on its top), or null (an unboxed call of an in-place row:
  // torch's kernel, where it runs, gets a stack made of args). Returns
  // whether xrng served the call (its outputs in `out`); otherwise torch's
  // kernel has replaced the arguments on the stack by its outputs.
  bool serve(const c10::OperatorHandle& op, c10::DispatchKeySet ks, c10::ArrayRef<c10::IValue> args, Stack* stack,
             Outputs& out) {
    Stack local;
    auto torch_here = [&] {
      if (stack != nullptr) {
        torch_kernel(op, ks, stack);
      } else {
        local.assign(args.begin(), args.end());
        torch_kernel(op, ks, &local);
      }
    };
    Config c;  // the fields the kernels read (not `report`: a std::function copy per call)
    {
      std::lock_guard<std::recursive_mutex> lock(g_lock);
      if (g_entries.empty()) {  // another thread is removing the kernels: torch's own
        torch_here();
        return false;
      }
      const Config& now = config();
      c.torch = now.torch;
      c.sm_count = now.sm_count;
      c.threads_per_sm = now.threads_per_sm;
      c.release = now.release;
    }
    const std::optional<at::Generator> gen = gi_ >= 0 ? generator_arg(args[gi_]) : std::nullopt;
    if (std::this_thread::get_id() != g_owner && torch::autograd::get_current_graph_task_id() == -1) {
      foreign_call(gen, torch_here);
      return false;
    }
    const std::string& name = *name_;
    if (c.torch != kXrng) return torch_stream_call(op, ks, args, gen, c, torch_here, out);
    return guarded(gen, name, torch_here, [&] { out = run(op, ks, args, gen, name); });
  }

  // A draw (`draw`) and what follows when it throws: torch's own kernel
  // (`torch_here`) draws the calls xrng does not, reported as the errors say.
  // Returns whether xrng drew the call.
  template <class TorchHere, class Draw>
  bool guarded(const std::optional<at::Generator>& gen, const std::string& name, TorchHere& torch_here, Draw&& draw) {
    try {
      draw();
      return true;
    } catch (const NoDraw&) {
      settle(gen, name);
      torch_here();
      absorb(gen);  // whatever torch's kernel advanced, even for no elements
    } catch (const Reported& e) {  // drawn by torch, reported
      report(name, "is not drawn from xrng here (" + e.why + ")");
      settle(gen, name);
      torch_here();
      absorb(gen);
    } catch (const c10::ValueError& e) {  // an xrng operator refused them (its errors are ValueErrors)
      settle(gen, name);
      torch_here();
      absorb(gen);
      report(name, std::string("is not drawn from xrng here (") + e.what_without_backtrace() + ")");
    } catch (const Error& e) {  // xrng refused the arguments: torch decides
      const std::string why = std::string("is not drawn from xrng here (") + e.what() + ")";
      const Form f = kModeOps[row_].form;
      if (f == Form::fill || f == Form::random) {
        report(name, why);  // torch's checks passed already: reported (strict: raised) before anything is written
        settle(gen, name);
        torch_here();
        absorb(gen);
      } else {
        settle(gen, name);
        torch_here();  // raises where torch raises
        absorb(gen);
        report(name, why);
      }
    }
    return false;
  }

 private:
  // A call of a thread without the mode: torch's own kernel draws it, warned
  // (never raised: the thread has no mode); a draw from the default generator
  // is reported at the mode's next draw.
  template <class TorchHere>
  void foreign_call(const std::optional<at::Generator>& gen, TorchHere& torch_here) const {
    const bool global = !gen.has_value() || !gen->defined() || gen->unsafeGetGeneratorImpl() == default_impl();
    torch_here();
    ReportFn warn;
    {
      std::lock_guard<std::recursive_mutex> lock(g_lock);
      if (g_entries.empty()) return;
      if (global && g_foreign.find(*name_) == std::string::npos)
        g_foreign += (g_foreign.empty() ? "" : ", ") + *name_;
      warn = config().report;
    }
    if (warn) warn(*name_, "was called by a thread with no mode: torch's own kernel drew it");  // (without g_lock)
  }

  // A call under one of torch's own streams (torch_streams.h). torch-cpu
  // keeps no records (the state is torch's generator): torch's own kernel
  // runs on it as it is; torch-cuda's records follow it as the xrng streams' do.
  template <class TorchHere>
  bool torch_stream_call(const c10::OperatorHandle& op, c10::DispatchKeySet ks, c10::ArrayRef<c10::IValue> args,
                         const std::optional<at::Generator>& gen, const Config& c, TorchHere& torch_here,
                         Outputs& out) {
    const std::string& name = *name_;
    const bool cuda = c.torch == kTorchCuda;
    auto torch_draws = [&] {
      if (cuda) settle(gen, name);
      torch_here();
      if (cuda) absorb(gen);
    };
    try {
      out = torch_stream_run(kModeOps[row_], c, args, gen, name, [&](int n0) { torch_checks(op, ks, args, n0); });
      return true;
    } catch (const NoDraw&) {
      torch_draws();
    } catch (const NotReproduced& e) {
      // reported (strict: raised) before torch's kernel draws anything
      report(name, "is not reproduced by the " + torch_stream_name(c) + " stream (" + e.why +
                       "): torch's own kernel drew it");
      torch_draws();
    }
    return false;
  }

  void torch_kernel(const c10::OperatorHandle& op, c10::DispatchKeySet ks, Stack* stack) const {
    const auto& k = g_torch[row_][key_];
    TORCH_CHECK(k.has_value(), "xrng.reproducible: ", op.schema().name(), " has no kernel of torch's for ",
                c10::toString(kKeys[key_]));
    k->callBoxed(op, ks, stack);
  }

  // Whether torch's checks passed for a call of key `ck` (read without a lock).
  bool checked(const CheckKey& ck) const {
    for (size_t i = 0, n = n_checked_.load(std::memory_order_acquire); i < n; ++i)
      if (checked_[i] == ck) return true;
    return false;
  }

  // torch's argument checks: its own kernel on one-element stand-ins of the
  // call's tensors (some of torch's kernels return before their dtype checks
  // when there are no elements) and a throwaway generator, once per set of
  // dtypes and scalar arguments (errors are raised every time). `n0`: the
  // argument that is an element count (randperm's n), made 0; or
  // kProbeZeros: the stand-ins hold a zero (bernoulli's p: read by the kernel).
  void torch_checks(const c10::OperatorHandle& op, c10::DispatchKeySet ks, c10::ArrayRef<c10::IValue> args,
                    int n0 = -1) const {
    CheckKey ck;
    size_t j = 0;
    for (size_t i = 0; i < args.size() && j < ck.scalars.size(); ++i) {
      const auto& a = args[i];
      if (a.isTensor()) {
        ck.scalars[j++] = 0x7000 + static_cast<uint64_t>(a.toTensor().scalar_type());
      } else if (static_cast<int>(i) == n0 || a.isGenerator()) {
        continue;
      } else if (a.isDouble()) {
        ck.scalars[j++] = c10::bit_cast<uint64_t>(a.toDouble());
      } else if (a.isInt()) {
        ck.scalars[j++] = static_cast<uint64_t>(a.toInt());
      } else if (a.isBool()) {
        ck.scalars[j++] = a.toBool() ? 1 : 0;
      } else if (a.isScalar()) {
        ck.scalars[j++] = c10::bit_cast<uint64_t>(a.toScalar().to<double>());
      } else {
        ck.scalars[j++] = ~uint64_t{0} - static_cast<uint64_t>(a.isNone());
      }
    }
    if (checked(ck)) return;
    if (!g_torch[row_][key_].has_value()) return;  // a backend without torch kernels: xrng's checks alone
    c10::Device device = c10::kCPU;
    for (const auto& a : args)
      if (a.isTensor()) {
        device = a.toTensor().device();
        break;
      }
    at::Generator scratch;
    try {
      scratch = gi_ >= 0 && !args[gi_].isNone() ? args[gi_].toGenerator().clone()
                                                : at::globalContext().defaultGenerator(device).clone();
    } catch (const c10::Error&) {  // a device without generators: its kernel cannot draw either
      return;
    }
    Stack s;
    for (size_t i = 0; i < args.size(); ++i) {
      const auto& a = args[i];
      if (static_cast<int>(i) == gi_) s.push_back(scratch);
      else if (static_cast<int>(i) == n0) s.push_back(int64_t{0});
      else if (a.isTensor() && n0 == kProbeZeros) s.push_back(at::zeros({1}, a.toTensor().options()));
      else if (a.isTensor()) s.push_back(at::empty({n0 >= 0 ? 0 : 1}, a.toTensor().options()));
      else s.push_back(a);
    }
    // torch's warnings are passed on; a check that warned is not kept, so the
    // next identical call warns too, as torch's own does
    struct Seen : c10::WarningHandler {
      c10::WarningHandler* next = c10::WarningUtils::get_warning_handler();
      bool any = false;
      void process(const c10::Warning& w) override {
        any = true;
        next->process(w);
      }
    } seen;
    {
      c10::WarningUtils::WarningHandlerGuard guard(&seen);
      torch_kernel(op, ks, &s);  // raises where torch raises
    }
    if (seen.any) return;
    std::lock_guard<std::mutex> lock(checked_lock_);
    const size_t n = n_checked_.load(std::memory_order_relaxed);
    if (n < checked_.size()) {  // a program's few distinct calls
      checked_[n] = ck;  // written before it is published
      n_checked_.store(n + 1, std::memory_order_release);
    }
  }

  // The draw of a fill row into `self` (elements and torch's checks seen to):
  // a and b its parameters in the schema's order (b unused by the rows with one).
  void draw_fill(const at::Tensor& self, double a, double b, const std::optional<at::Generator>& gen,
                 const std::string& name) {
    const OpRow& r = kModeOps[row_];
    at::Tensor t = self.is_complex() ? at::view_as_real(self) : self;
    DrawParams q;
    switch (r.dist) {
      case Dist::normal:
        q.mean = a;
        q.std = b / (self.is_complex() ? std::sqrt(2.0) : 1.0);
        fill_located(t, r.dist, q, gen, name);
        break;
      case Dist::uniform:
        q.low = a;
        q.high = b;
        if (q.low == q.high) {
          t.fill_(q.low);
          break;
        }
        fill_draw(t, r.dist, q, gen, name);
        break;
      case Dist::exponential:
        q.rate = a;
        fill_draw(t, r.dist, q, gen, name);
        break;
      case Dist::geometric:
        q.p = a;
        fill_draw(t, r.dist, q, gen, name);
        break;
      case Dist::log_normal:
        q.mean = a;
        q.std = b;
        fill_located(t, r.dist, q, gen, name);
        break;
      case Dist::cauchy:
        q.median = a;
        q.sigma = b;
        fill_located(t, r.dist, q, gen, name);
        break;
      case Dist::bernoulli:
        fill_bernoulli(t, a, gen, name);
        break;
      default:
        throw Reported("no fill of this draw");
    }
  }

  Outputs run(const c10::OperatorHandle& op, c10::DispatchKeySet ks, c10::ArrayRef<c10::IValue> args,
              const std::optional<at::Generator>& gen, const std::string& name) {
    const OpRow& r = kModeOps[row_];
    switch (r.form) {
      case Form::fill: {
        at::Tensor self = args[0].toTensor();
        if (self.numel() == 0 && !in_block(self)) throw NoDraw();  // torch's rules for no elements (it checks less)
        torch_checks(op, ks, args);
        draw_fill(self, args[1].toDouble(), args.size() > 3 ? args[2].toDouble() : 0.0, gen, name);
        return {self};
      }
      case Form::random: {
        at::Tensor self = args[0].toTensor();
        if (self.numel() == 0 && !in_block(self)) throw NoDraw();
        torch_checks(op, ks, args);
        __int128 low = 0, high = 0;
        if (ov_ == Overload::none) {
          high = dtype_max(self.scalar_type()) + 1;
        } else if (ov_ == Overload::to) {
          high = args[1].toInt();
        } else {
          low = args[1].toInt();
          high = args[2].isNone() ? dtype_max(self.scalar_type()) + 1 : static_cast<__int128>(args[2].toInt());
        }
        if (self.is_complex()) throw Reported("random_ into a complex dtype");
        dtype_max(self.scalar_type());  // the dtypes xrng draws
        if (is_float(self.scalar_type()) && ov_ != Overload::none) {  // torch's checks passed: the range fits int64
          with_float_type(self.scalar_type(), [&](auto v) {
            using T = decltype(v);
            const bool to_given = ov_ == Overload::to || !args[2].isNone();
            int64_t f = static_cast<int64_t>(low), t = static_cast<int64_t>(high - (to_given ? 0 : 1));
            f = update_from<T>(f);
            if (to_given) t = update_to<T>(t);
            low = f;
            high = static_cast<__int128>(t) + (to_given ? 0 : 1);
          });
        }
        fill_randint(self, low, high, gen, name);
        return {self};
      }
      case Form::bernoulli_tensor: {
        // bernoulli_.Tensor(self, p): self is the output; bernoulli.out(self = p, out)
        const bool out_form = std::string(r.overload) == "out";
        at::Tensor out = out_form ? args[args.size() - 1].toTensor() : args[0].toTensor();
        const at::Tensor p = out_form ? args[0].toTensor() : args[1].toTensor();
        if (out_form) out.resize_(p.sizes());  // torch's bernoulli_out_impl: resize_, no resize warning
        if (out.numel() == 0) return {out};
        torch_checks(op, ks, args, kProbeZeros);  // the dtypes torch's kernel has (self's and p's)
        if (!out_form) (void)p.expand(out.sizes());  // torch's check and error (expand_inplace: p to out's shape)
        out.copy_(bernoulli_mask(out.sizes(), p, gen, name));
        return {out};
      }
      case Form::randperm_out: {
        const int64_t nn = args[0].toInt();
        at::Tensor out = args[2].toTensor();
        if (nn <= 0) throw NoDraw();
        torch_checks(op, ks, args, /*n0=*/0);  // the dtypes torch's kernel has
        const at::ScalarType st = out.scalar_type();
        if (nn > 0 && st != at::kLong && st != at::kInt && st != at::kUInt64) {
          TORCH_CHECK(!is_float(st) || static_cast<__int128>(nn - 1) <= dtype_max(st),
                      "n is too large for result tensor type: '", out.toString(), "'");
          if (!is_float(st)) TORCH_CHECK(static_cast<__int128>(nn - 1) <= dtype_max(st),
                                         "n is too large for result tensor type: '", out.toString(), "'");
        }
        if (st == at::kInt) TORCH_CHECK(nn - 1 <= INT32_MAX, "n is too large for result tensor type: '", out.toString(), "'");
        at::native::resize_output(out, {nn});
        if (nn == 0) return {out};
        DrawParams q;
        q.n = static_cast<uint64_t>(nn);
        if (st == at::kLong || st == at::kInt || st == at::kUInt64) {
          fill_draw(out, Dist::perm, q, gen, name);
        } else {
          at::Tensor tmp = at::empty({nn}, out.options().dtype(at::kLong));
          fill_draw(tmp, Dist::perm, q, gen, name);
          out.copy_(tmp);
        }
        return {out};
      }
      case Form::multinomial: {
        const at::Tensor w = args[0].toTensor();
        const int64_t ns = args[1].toInt();
        const bool repl = args[2].toBool();
        if (!is_float(w.scalar_type()) || (w.dim() != 1 && w.dim() != 2)) throw Error("multinomial: these arguments");
        const int64_t rows = w.dim() == 1 ? 1 : w.size(0);
        const int64_t k = w.size(-1);
        if (ns <= 0 || (!repl && ns > k)) throw Error("multinomial: num_samples");
        const auto& info = tensor_draw_info(repl ? TensorDraw::multinomial_replacement : TensorDraw::multinomial);
        const uint64_t words = static_cast<uint64_t>(info.words) * static_cast<uint64_t>(rows) *
                               static_cast<uint64_t>(repl ? ns : k);
        at::Tensor res;
        static auto cat = c10::Dispatcher::singleton()
                              .findSchemaOrThrow("xrng::categorical", "")
                              .typed<at::Tensor(const at::Tensor&, int64_t, bool, const at::Tensor&)>();
        take(gen, words, name, [&](const Key& key, uint64_t offset) {
          res = cat.call(w, ns, repl, position_tensor(key, offset, config().stream));
        });
        if (std::string(r.overload) == "out") {
          at::Tensor out = args[args.size() - 1].toTensor();
          at::native::resize_output(out, res.sizes());
          out.copy_(res);
          return {out};
        }
        return {res};
      }
      case Form::normal_tensor:
        return {normal_tensor_form(r.overload, args, [&](at::Tensor& out, double std) {
          DrawParams q;
          q.std = std;
          fill_located(out, Dist::normal, q, gen, name);
        })};
      case Form::tensor_param: {
        const bool binomial = std::string(r.name) == "binomial";
        const at::Tensor x = args[0].toTensor();
        if (!is_float(x.scalar_type())) throw Error(name + ": dtype");
        if (binomial && !is_float(args[1].toTensor().scalar_type())) throw Error(name + ": dtype");
        const uint64_t per = tensor_draw_info(TensorDraw::gamma).words;
        const uint64_t words = per * static_cast<uint64_t>(x.numel());
        at::Tensor res;
        auto h = c10::Dispatcher::singleton().findSchemaOrThrow(r.xop, "");
        take(gen, words, name, [&](const Key& key, uint64_t offset) {
          const at::Tensor pos = position_tensor(key, offset, config().stream);
          if (binomial)
            res = h.typed<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&)>().call(
                x, args[1].toTensor(), pos);
          else
            res = h.typed<at::Tensor(const at::Tensor&, const at::Tensor&)>().call(x, pos);
        });
        return {res};
      }
      case Form::native_dropout: {
        const at::Tensor in = args[0].toTensor();
        const double p = args[1].toDouble();
        const bool train = args[2].isNone() || args[2].toBool();
        if (!train || p <= 0 || p >= 1 || (in.numel() == 0 && !in_block(in)) || !is_float(in.scalar_type()))
          throw NoDraw();  // torch's kernel: all kept or all dropped, or its own dtype error
        // (a rank's empty DTensor shard takes the global draw's words with the
        // others, and its mask is bool like theirs)
        at::Tensor keep = at::empty(in.sizes(), in.options().dtype(at::kBool));
        fill_bernoulli(keep, 1.0 - p, gen, name);
        // the value of a kept element: 1 / (1 - p) in the dtype, as the CPU's
        // composite dropout computes it (noise.div_(1 - p))
        const double v = at::ones({}, at::TensorOptions().dtype(in.scalar_type())).div_(1.0 - p).item<double>();
        at::Tensor noise = keep.to(in.scalar_type()).mul_(v);
        return {in * noise, keep};
      }
      case Form::sdp_choice: {
        if (!(args[4].toDouble() > 0)) throw NoDraw();  // torch's choice
        return {c10::IValue(int64_t{0})};                // sdp::SDPBackend::math
      }
      case Form::rrelu: {
        // torch's CPU kernel: where x <= 0, r = uniform(lower, upper) in the
        // arithmetic type (float for f16/bf16), output = x * r, noise = r;
        // elsewhere noise = 1, output = x. xrng draws r for every element
        // (a fixed number of words) and keeps that arithmetic.
        const at::Tensor self = args[0].toTensor();
        at::Tensor noise = args[1].toTensor();
        const double lower = args[2].toScalar().to<double>(), upper = args[3].toScalar().to<double>();
        const bool training = args[4].toBool();
        if (!training || !is_float(self.scalar_type()) || self.numel() == 0) throw NoDraw();
        torch_checks(op, ks, args);  // the dtypes torch's kernel has
        TORCH_CHECK(self.sizes() == noise.sizes(), "noise tensor shape must match self tensor shape. Got self.shape = ",
                    self.sizes(), " noise.shape = ", noise.sizes());
        const std::string ov = r.overload;
        const bool inplace = std::string(r.name) == "rrelu_with_noise_";
        at::Tensor out = ov == "out" ? args[args.size() - 1].toTensor() : at::Tensor();
        const at::ScalarType math = self.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
        at::Tensor slope = at::empty(self.sizes(), self.options().dtype(math));
        if (self.numel()) {
          if (!(lower <= upper)) throw Error(name + ": lower > upper");
          DrawParams q;
          q.low = lower;
          q.high = upper;
          if (lower == upper) slope.fill_(lower);
          else fill_draw(slope, Dist::uniform, q, gen, name);
        }
        const at::Tensor neg = self <= 0;
        const at::Tensor res = at::where(neg, (self.to(math) * slope).to(self.scalar_type()), self);
        noise.copy_(at::where(neg, slope, at::ones({}, slope.options())));
        if (inplace) {
          at::Tensor s = args[0].toTensor();
          s.copy_(res);
          return {s};
        }
        if (ov == "out") {
          at::native::resize_output(out, self.sizes());
          out.copy_(res);
          return {out};
        }
        return {res.contiguous()};  // torch's rrelu_with_noise: a LEGACY_CONTIGUOUS output whatever self's layout
      }
    }
    throw Reported("no form");
  }

  enum class Overload { none, to, other };
  static Overload overload_kind(const char* ov) {
    return !ov[0] ? Overload::none : std::string(ov) == "to" ? Overload::to : Overload::other;
  }

  size_t row_, key_, nargs_;
  int gi_;
  Overload ov_;
  c10::OperatorHandle op_;
  // calls whose torch checks passed (errors are never kept): read without a
  // lock (an entry is never changed once n_checked_ counts it), added under checked_lock_
  mutable std::mutex checked_lock_;
  mutable std::array<CheckKey, 64> checked_{};
  mutable std::atomic<size_t> n_checked_{0};
  // the reported name, "aten.op.overload"; never freed (g_last_op may point to it)
  const std::string* name_;
};

// ==== 3. installation ==================================================================================
std::vector<std::unique_ptr<torch::Library>>& g_libs = *new std::vector<std::unique_ptr<torch::Library>>;

struct Silent : c10::WarningHandler {
  void process(const c10::Warning&) override {}
};

// The unboxed entry of an in-place row (the per-call path of C++ callers,
// Python's bindings among them: no IValue stack): a lambda of the operator's
// C++ signature that owns its Kernel; nullopt for the other rows (boxed).
// torch boxes it for the callers that box (TorchScript's interpreter).
std::optional<torch::CppFunction> unboxed(const OpRow& r, std::unique_ptr<Kernel>& kernel) {
  using G = std::optional<at::Generator>;
  std::shared_ptr<Kernel> k;
  auto take = [&] { k = std::shared_ptr<Kernel>(std::move(kernel)); };
  if (r.form == Form::fill && kernel->nargs() == 4) {
    take();  // normal_, uniform_, log_normal_, cauchy_ (self, a, b, generator)
    return torch::CppFunction([k](c10::DispatchKeySet ks, at::Tensor& self, double a, double b, G g) -> at::Tensor& {
      return k->fill_typed(ks, self, a, b, /*two=*/true, g);
    });
  }
  if (r.form == Form::fill && kernel->nargs() == 3) {
    take();  // exponential_, geometric_, bernoulli_.float (self, a, generator)
    return torch::CppFunction([k](c10::DispatchKeySet ks, at::Tensor& self, double a, G g) -> at::Tensor& {
      return k->fill_typed(ks, self, a, 0.0, /*two=*/false, g);
    });
  }
  if (r.form == Form::random && kernel->nargs() == 2) {  // random_
    take();
    return torch::CppFunction([k](c10::DispatchKeySet ks, at::Tensor& self, G g) -> at::Tensor& {
      return k->random_typed(ks, self, 0, 0, std::nullopt, g);
    });
  }
  if (r.form == Form::random && kernel->nargs() == 3) {  // random_.to
    take();
    return torch::CppFunction([k](c10::DispatchKeySet ks, at::Tensor& self, int64_t to, G g) -> at::Tensor& {
      return k->random_typed(ks, self, 1, 0, to, g);
    });
  }
  if (r.form == Form::random && kernel->nargs() == 4) {  // random_.from
    take();
    return torch::CppFunction(
        [k](c10::DispatchKeySet ks, at::Tensor& self, int64_t from, std::optional<int64_t> to, G g) -> at::Tensor& {
          return k->random_typed(ks, self, 2, from, to, g);
        });
  }
  return std::nullopt;
}

// scaled_dot_product_attention does not call the _fused_sdp_choice operator:
// it asks at::native::_fused_sdp_choice_stub for the device's choice directly
// (torch 2.3 and later), so the row above decides only where torch calls the
// operator (meta and fake tensors). On CUDA the stub would pick a fused kernel
// that draws its dropout mask with a Philox layout of its own, out of the
// mode's reach (measured on an H100, torch 2.11: BERT's attention dropout and
// F.scaled_dot_product_attention(dropout_p=0.3) differed from the CPU under the
// mode). While the mode is installed, the stub's CUDA entry asks the operator's
// CUDA kernel, which is the mode's row, for calls with dropout_p > 0: the math
// formulation, whose dropout is aten's and so the mode's (the torch-cuda stream
// reports it and keeps torch's choice). Without dropout torch's own choice runs
// untouched. The entry is put back when the mode's last entry ends.
namespace {
using SdpStub = at::native::_fused_sdp_choice_stub_DECLARE_DISPATCH_type;
static_assert(std::is_standard_layout_v<SdpStub>,
              "DispatchStub's one member, DispatchStubImpl, must sit at its address (the stub's CUDA entry)");
void*& sdp_cuda_entry() {
  return reinterpret_cast<at::native::DispatchStubImpl*>(&at::native::_fused_sdp_choice_stub)->cuda_dispatch_ptr;
}
// torch's entry, set before the mode's goes in and never cleared (a call that
// read the stub's entry just before it was put back still finds torch's)
std::atomic<at::native::fused_sdp_choice_fn> g_torch_sdp_cuda{nullptr};
bool g_sdp_hooked = false;  // under g_lock (install and uninstall)

int64_t mode_sdp_choice_cuda(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                             const std::optional<at::Tensor>& mask, double dropout_p, bool is_causal,
                             std::optional<double> scale, bool enable_gqa) {
  if (!(dropout_p > 0))
    return g_torch_sdp_cuda.load(std::memory_order_acquire)(q, k, v, mask, dropout_p, is_causal, scale, enable_gqa);
  return at::_ops::_fused_sdp_choice::redispatch(c10::DispatchKeySet(c10::DispatchKey::CUDA), q, k, v, mask, dropout_p,
                                                 is_causal, scale, enable_gqa);
}

void hook_sdp_choice(bool on) {
  void*& entry = sdp_cuda_entry();
  if (on) {
    size_t row = kRows;
    for (size_t i = 0; i < kRows; ++i)
      if (kModeOps[i].form == Form::sdp_choice) row = i;
    size_t cuda = kNumKeys;
    for (size_t k = 0; k < kNumKeys; ++k)
      if (kKeys[k] == c10::DispatchKey::CUDA) cuda = k;
    // only where torch has a CUDA choice (its stub entry and the operator's CUDA kernel, which the mode replaced)
    if (entry == nullptr || row == kRows || cuda == kNumKeys || !g_torch[row][cuda].has_value()) return;
    if (g_sdp_hooked || entry == reinterpret_cast<void*>(&mode_sdp_choice_cuda)) return;
    g_torch_sdp_cuda.store(reinterpret_cast<at::native::fused_sdp_choice_fn>(entry), std::memory_order_release);
    at::native::_fused_sdp_choice_stub.set_cuda_dispatch_ptr(&mode_sdp_choice_cuda);
    g_sdp_hooked = true;
  } else if (g_sdp_hooked) {
    at::native::_fused_sdp_choice_stub.set_cuda_dispatch_ptr(g_torch_sdp_cuda.load(std::memory_order_acquire));
    g_sdp_hooked = false;
  }
}
}  // namespace

void install() {
  Silent silent;
  c10::WarningUtils::WarningHandlerGuard guard(&silent);  // torch warns of every kernel overridden
  auto& d = c10::Dispatcher::singleton();
  g_torch.assign(kRows, {});
  for (size_t k = 0; k < kNumKeys; ++k) {
    auto lib = std::make_unique<torch::Library>(torch::Library::IMPL, "aten", kKeys[k], __FILE__, __LINE__);
    for (size_t i = 0; i < kRows; ++i) {
      const OpRow& r = kModeOps[i];
      auto h = d.findSchemaOrThrow((std::string("aten::") + r.name).c_str(), r.overload);
      if (h.hasKernelForDispatchKey(kKeys[k])) g_torch[i][k] = h.getComputedKernelForDispatchKey(kKeys[k]);
      else if (r.form == Form::sdp_choice) continue;  // a choice only where torch makes one
      const std::string nm = std::string(r.name) + (r.overload[0] ? std::string(".") + r.overload : "");
      auto kernel = std::make_unique<Kernel>(i, k, h);
      if (std::optional<torch::CppFunction> f = unboxed(r, kernel)) lib->impl(nm.c_str(), std::move(*f));
      else lib->impl(nm.c_str(), torch::CppFunction::makeFromBoxedFunctor(std::move(kernel)));
    }
    g_libs.push_back(std::move(lib));
  }
  hook_sdp_choice(true);
}

void uninstall() {
  Silent silent;
  c10::WarningUtils::WarningHandlerGuard guard(&silent);
  hook_sdp_choice(false);
  g_libs.clear();
  g_torch.clear();
}

}  // namespace xrng::torch_api::mode::detail
