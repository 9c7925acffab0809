// The reproducible mode's torch streams: see torch_streams.h.
#include "torch_streams.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Dispatch_v2.h>
#include <ATen/native/Resize.h>
#include <ATen/ExpandUtils.h>
#include <c10/util/Exception.h>
#include <c10/util/accumulate.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <type_traits>

#include "../torch_streams.h"
#include "rng/torch_cpu_gamma.h"  // kTorchCpuSumGrain
#include "rng/torch_cuda_multinomial.h"
#include "blocks.h"
#include "draws.h"
#include "streams.h"

namespace xrng::torch_api::mode::detail {

namespace tc = xrng::torch_cpu;
namespace ts = xrng::torch_streams;

std::string torch_stream_name(const Config& c) {
  static const char* const releases[tc::kReleaseCount] = {"",
                                                          " (torch 2.12)",
                                                          " (torch 2.7 to 2.11)",
                                                          " (torch 2.3 to 2.6)",
                                                          " (torch 2.1 and 2.2)",
                                                          " (torch 2.0)",
                                                          " (torch 1.13)"};
  const char* rel = c.release >= 0 && c.release < tc::kReleaseCount ? releases[c.release] : "";
  switch (c.torch) {
    case kTorchCpuX86: return std::string("torch-cpu-x86") + rel;
    case kTorchCpuScalar: return std::string("torch-cpu-scalar") + rel;
    case kTorchCpuArm: return std::string("torch-cpu-arm") + rel;
    case kTorchCpuArmSve256: return std::string("torch-cpu-arm-sve256") + rel;
    case kTorchCpuX86Windows: return std::string("torch-cpu-x86-windows") + rel;
    case kTorchCpuX86Intel: return std::string("torch-cpu-x86-intel") + rel;
    case kTorchCpuX86IntelAvx512: return std::string("torch-cpu-x86-intel-avx512") + rel;
    case kTorchCpuScalarIntel: return std::string("torch-cpu-scalar-intel") + rel;
    case kTorchCuda:
      return "torch-cuda (" + std::to_string(c.sm_count) + " SMs x " + std::to_string(c.threads_per_sm) +
             " threads)";
    default: return "xrng";
  }
}

namespace {

// ---- torch-cpu: the state of torch's CPU generator ---------------------------------------------
// The CPU generator a draw uses, no reference taken (the caller's optional,
// or torch's default generator, holds it; check_generator's cast).
at::CPUGeneratorImpl* cpu_impl(const std::optional<at::Generator>& gen) {
  if (!gen.has_value() || !gen->defined()) return static_cast<at::CPUGeneratorImpl*>(default_impl());
  if (gen->device().is_cpu()) return static_cast<at::CPUGeneratorImpl*>(gen->unsafeGetGeneratorImpl());
  throw NotReproduced("its generator is on " + gen->device().str() +
                      "; the torch-cpu streams draw from torch's CPU generators (the default one, or a CPU "
                      "torch.Generator passed as generator=)");
}

// The generator's state as a tc::State whose engine runs on the
// generator's own mt19937 words in place (MT19937::bind: nothing copied);
// store() writes the rest back. Between the two, a draw that throws after a
// refill has changed those words: store() then still runs (the caller's
// catch), so torch's state stays whole (advanced, as torch's own would be
// by a draw that fails midway).
tc::State load(at::CPUGeneratorImpl* impl) {
  at::mt19937_data_pod& pod = pod_in_place(impl);
  tc::State s{tc::MT19937::Unseeded{}};  // (every field is written below; the engine bound to pod.state_)
  s.mt.seed = pod.seed_;
  s.mt.left = pod.left_;
  s.mt.next = pod.next_;
  s.mt.bind(pod.state_.data());
  const std::optional<float>& nf = float_normal_in_place(impl);
  const std::optional<double>& nd = double_normal_in_place(impl);
  s.has_next_float_normal = nf.has_value();
  s.next_float_normal = nf.value_or(0.0f);
  s.has_next_double_normal = nd.has_value();
  s.next_double_normal = nd.value_or(0.0);
  return s;
}

void store(at::CPUGeneratorImpl* impl, const tc::State& s) {
  at::mt19937_data_pod& pod = pod_in_place(impl);
  pod.seed_ = s.mt.seed;
  pod.left_ = s.mt.left;
  pod.seeded_ = true;
  pod.next_ = s.mt.next;
  if (s.mt.words != pod.state_.data())  // (an engine not bound by load: its own words)
    std::copy(s.mt.words, s.mt.words + tc::MT19937::N, pod.state_.begin());
  float_normal_in_place(impl) = s.has_next_float_normal ? std::optional<float>(s.next_float_normal) : std::nullopt;
  double_normal_in_place(impl) = s.has_next_double_normal ? std::optional<double>(s.next_double_normal) : std::nullopt;
}

// f(state) with the generator's state read before and written after (its
// mutex held); f throws before drawing where it refuses.
template <class F>
void with_cpu_state(const std::optional<at::Generator>& gen, F&& f) {
  at::CPUGeneratorImpl* impl = cpu_impl(gen);
  std::lock_guard<std::mutex> lock(impl->mutex_);
  tc::State s = load(impl);
  try {
    f(s);
  } catch (...) {
    if (s.mt.refilled) store(impl, s);  // (the bound words changed: keep torch's state whole)
    throw;
  }
  store(impl, s);
}

// The dimensions of `t` in memory order (decreasing stride, stable): the
// order in which torch's TensorIterator visits the elements of an output.
std::vector<int64_t> memory_order(const at::Tensor& t) {
  std::vector<int64_t> perm(static_cast<size_t>(t.dim()));
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return t.stride(a) > t.stride(b); });
  return perm;
}

// Fills `t` (any device, any strides): draw(host) writes a contiguous CPU
// tensor laid out in t's memory order, then copied into t.
template <class Draw>
void host_fill(at::Tensor& t, Draw&& draw) {
  if (t.device().is_cpu() && t.is_contiguous()) {
    draw(t);
    return;
  }
  at::Tensor view = t.permute(memory_order(t));
  at::Tensor host = at::empty(view.sizes(), t.options().device(at::kCPU));
  draw(host);
  view.copy_(host);
}

// Whether the torch-cuda stream fills CUDA tensors on their GPU: xrng's
// CUDA kernels for that stream (device/torch_cuda.h), where this build has them.
constexpr bool kCudaKernels =
#if defined(XRNG_TORCH_CUDA)
    true;
#else
    false;
#endif

// torch-cuda: a CUDA tensor (with the kernels built) is filled on its GPU:
// draw(t) for a contiguous one, else draw into a contiguous CUDA tensor laid
// out in t's memory order, then copied into t. Other tensors: host_fill.
template <class Draw>
void cuda_stream_fill(at::Tensor& t, Draw&& draw) {
  if (!(kCudaKernels && t.is_cuda())) {
    host_fill(t, draw);
    return;
  }
  if (t.is_contiguous()) {
    draw(t);
    return;
  }
  at::Tensor view = t.permute(memory_order(t));
  at::Tensor tmp = at::empty(view.sizes(), t.options());
  draw(tmp);
  view.copy_(tmp);
}

// std::invalid_argument from xrng's reproduction (arguments torch's checks
// let through, which torch refuses while drawing): torch's RuntimeError.
template <class F>
void refusing(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    TORCH_CHECK(false, e.what());
  }
}

// refusing() for bernoulli with a tensor p: a p outside [0, 1] raises torch's
// CPU kernel's own message (its TORCH_CHECK(p_in >= 0 && p_in <= 1)), not xrng's.
template <class F>
void refusing_p(F&& f) {
  refusing([&] {
    try {
      f();
    } catch (const ts::BernoulliPOutOfRange&) {
      TORCH_CHECK(false, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
                         "improved?  If so, please report an enhancement request to PyTorch.)");
    }
  });
}

bool float_type(at::ScalarType t) { return is_float(t); }

// ---- torch-cuda: the modelled CUDA generator (seed, philox offset) in the mode's records ------------
template <class Run>  // run(seed, offset) returns the new offset
void take_cuda(const std::optional<at::Generator>& gen, const std::string& op, Run&& run) {
  std::lock_guard<std::recursive_mutex> lock(g_lock);
  at::Generator named;
  bool is_new = false;
  Record& rec = record_of(gen, named, is_new);
  std::lock_guard<std::mutex> glock(named.mutex());
  Live live;
  Pos& pos = resolve(rec, named, is_new, op, &live);
  pos.offset = run(pos.key.seed, pos.offset);
  commit(rec, named, op, &live);
}

// torch's get_vector_size for a dropout input: 16 bytes / element size at
// a 16-byte aligned address (a CUDA tensor's own; any other stands for a
// fresh, aligned GPU allocation), halved until it divides the element count.
uint32_t dropout_vec(const at::Tensor& in) {
  const uint64_t es = static_cast<uint64_t>(in.element_size());
  uint64_t align = 16;
  if (in.is_cuda()) {
    const auto addr = reinterpret_cast<uintptr_t>(in.data_ptr());
    align = 1;
    while (align < 16 && addr % (align * 2) == 0) align *= 2;
  }
  uint64_t v = 16 / es;
  while (v > 1 && v * es > align) v /= 2;
  while (v > 1 && static_cast<uint64_t>(in.numel()) % v) v /= 2;
  return static_cast<uint32_t>(v);
}

class Run {
 public:
  Run(const Config& c, c10::ArrayRef<c10::IValue> args, const std::optional<at::Generator>& gen,
      const std::string& name)
      : c_(c), args_(args), gen_(gen), name_(name) {}

  bool cpu() const { return is_torch_cpu(c_.torch); }
  tc::Kernel kernel() const { return torch_cpu_kernel(c_.torch); }
  tc::Release release() const { return static_cast<tc::Release>(c_.release); }

  // A fill of `t` with draw `kind` (the names of torch_streams.h).
  void fill(at::Tensor& t, const std::string& kind, double a = 0.0, double b = 0.0, int64_t ilow = 0,
            int64_t ihigh = 0) {
    if (in_block(t)) throw NotReproduced("a DTensor shard");
    // torch 2.0 to 2.6's scalar-p bernoulli_ and exponential_ (MKL's, tc::MklBernoulli, tc::MklExponential): the
    // word taken for no elements too, the elements in row-major order (a non-contiguous output drawn into a
    // contiguous tensor and copied)
    const bool mkl = cpu() && ts::cpu_mkl_draw(kind, release(), kernel(), a);
    if (mkl && kind == "exponential" && t.scalar_type() == at::kDouble &&
        tc::mkl_exponential_f64_refused(release(), kernel()))
      throw NotReproduced(tc::kMklF64Refused);
    if (t.numel() == 0 && !mkl) return;
    if (cpu()) {
      // torch's normal takes its 16-wide path only for a contiguous output
      const std::string k = kind == "normal" && !t.is_contiguous() ? "normal_each" : kind;
      with_cpu_state(gen_, [&](tc::State& s) {
        auto draw = [&](at::Tensor& host) {
          refusing([&] { ts::cpu_draw(s, k, kernel(), host, a, b, ilow, ihigh, release()); });
        };
        if (!mkl || (t.device().is_cpu() && t.is_contiguous())) return host_fill(t, draw);
        at::Tensor host = at::empty(t.sizes(), t.options().device(at::kCPU));
        draw(host);
        t.copy_(host);
      });
      return;
    }
    if (!t.is_contiguous()) {
      if (kind == "randperm") throw NotReproduced("randperm into a non-contiguous tensor");
      int64_t extent = 1;
      for (int64_t d = 0; d < t.dim(); ++d)
        if (t.size(d) > 0) extent += (t.size(d) - 1) * std::abs(t.stride(d));
      if (extent * static_cast<int64_t>(t.element_size()) > std::numeric_limits<int32_t>::max())
        throw NotReproduced("a non-contiguous output of more than 2^31 bytes (torch's 32-bit split)");
    }
    take_cuda(gen_, name_, [&](uint64_t seed, uint64_t offset) {
      uint64_t next = offset;
      cuda_stream_fill(t, [&](at::Tensor& dst) {
        refusing([&] { next = ts::cuda_draw(seed, offset, kind, c_.sm_count, c_.threads_per_sm, dst, a, b, ilow, ihigh); });
      });
      return next;
    });
  }

  // torch's random_ overloads: [from, to) (to given), [from, dtype max] (to
  // None), as ATen/native/DistributionTemplates.h computes range and base.
  void random(at::Tensor& self, const std::string& ov) {
    const at::ScalarType st = self.scalar_type();
    const bool unsigned_wide = st == at::kUInt16 || st == at::kUInt32 || st == at::kUInt64;
    const bool integral = st == at::kLong || st == at::kInt || st == at::kShort || st == at::kChar ||
                          st == at::kByte || st == at::kBool || unsigned_wide;
    if (!integral && !float_type(st)) throw NotReproduced("random_ into dtype " + std::string(c10::toString(st)));
    if (ov.empty()) {  // [0, 2^digits] / [0, max] / {0, 1}: torch's random_kernel (no uint16/32/64)
      TORCH_CHECK(!unsigned_wide, "random_() without a range is not implemented for ", c10::toString(st), " in torch");
      fill(self, "random");
      return;
    }
    const bool to_given = ov == "to" || !args_[2].isNone();
    const int64_t from = ov == "to" ? 0 : args_[1].toInt();
    if (to_given) {
      const int64_t to = ov == "to" ? args_[1].toInt() : args_[2].toInt();
      fill(self, "randint", 0.0, 0.0, from, to);  // (update_from / update_to: in the draw)
      return;
    }
    fill(self, "random_from", 0.0, 0.0, from);  // [from, dtype max] (-2**63: the full 64-bit range), in the draw
  }

  // out.bernoulli_(p), p broadcast to out (torch's CPU tensor-p kernel).
  // torch-cuda: its CUDA tensor-p kernel (xrng.torch_cuda's bernoulli_tensor_): p cast to float32
  // (float64 for a float64 out), broadcast, element i of a contiguous out from the row-major p.
  void bernoulli_tensor(at::Tensor& out, const at::Tensor& p) {
    if (!float_type(p.scalar_type())) throw NotReproduced("probabilities of dtype " + std::string(c10::toString(p.scalar_type())));
    if (in_block(out)) throw NotReproduced("a DTensor shard");
    if (!cpu()) {
      if (!out.is_contiguous()) throw NotReproduced("bernoulli with a tensor p into a non-contiguous tensor");
      const at::ScalarType pt = out.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
      const bool gpu = kCudaKernels && out.is_cuda();  // p and out on the GPU for xrng's kernel
      const at::Tensor pe = p.detach().to(gpu ? out.device() : c10::Device(at::kCPU)).to(pt).expand(out.sizes()).contiguous();
      take_cuda(gen_, name_, [&](uint64_t seed, uint64_t offset) {
        uint64_t next = offset;
        cuda_stream_fill(out, [&](at::Tensor& dst) { refusing_p([&] { next = ts::cuda_bernoulli_tensor(seed, offset, dst, pe); }); });
        return next;
      });
      return;
    }
    if (out.device().is_cpu() && out.is_contiguous() && p.device().is_cpu() && p.is_contiguous() &&
        p.sizes() == out.sizes()) {  // already in torch's order: drawn in place (p checked before the first word)
      with_cpu_state(gen_, [&](tc::State& s) { refusing_p([&] { ts::cpu_bernoulli_tensor(s, out, p); }); });
      return;
    }
    const at::Tensor pe = p.to(at::kCPU).expand(out.sizes());
    const std::vector<int64_t> perm = memory_order(out);
    const at::Tensor pl = pe.permute(perm).contiguous();
    with_cpu_state(gen_, [&](tc::State& s) {
      at::Tensor view = out.permute(perm);
      at::Tensor host = at::empty(view.sizes(), out.options().device(at::kCPU));
      refusing_p([&] { ts::cpu_bernoulli_tensor(s, host, pl); });
      view.copy_(host);
    });
  }

 private:
  const Config& c_;
  c10::ArrayRef<c10::IValue> args_;
  const std::optional<at::Generator>& gen_;
  const std::string& name_;
};

}  // namespace

namespace {

// torch_cpu_fill_fast's and torch_cpu_random_fast's common part: the draw of
// `kind` into a contiguous CPU tensor, as Run::fill draws it, or false.
bool cpu_fast(at::Tensor& self, ts::CpuKind kind, double a, double b, int64_t ilow, int64_t ihigh,
              const std::optional<at::Generator>& gen, TorchStream s) {
  const bool given = gen.has_value() && gen->defined();
  if (!is_torch_cpu(s) || !self.device().is_cpu() || !self.is_contiguous() ||
      self.is_complex() || self.numel() == 0 || in_block(self) || (given && !gen->device().is_cpu()))
    return false;
  at::CPUGeneratorImpl* impl = cpu_impl(gen);
  std::lock_guard<std::mutex> lock(impl->mutex_);
  tc::State st = load(impl);
  try {
    ts::cpu_draw(st, kind, torch_cpu_kernel(s), self, a, b, ilow, ihigh,
                 static_cast<tc::Release>(g_release_now.load(std::memory_order_relaxed)));
  } catch (const std::invalid_argument& e) {  // refused before drawing: the general path reports it
    if (!st.mt.refilled) return false;
    store(impl, st);  // (refused after drawing: torch's state kept whole, torch's error)
    TORCH_CHECK(false, e.what());
  } catch (...) {
    if (st.mt.refilled) store(impl, st);  // (as with_cpu_state)
    throw;
  }
  store(impl, st);
  return true;
}

}  // namespace

bool torch_cpu_fill_fast(at::Tensor& self, Dist d, double a, double b, const std::optional<at::Generator>& gen,
                         TorchStream s) {
  ts::CpuKind kind;  // (Run::fill's kinds for these rows; a contiguous normal: the 16-wide path)
  switch (d) {
    case Dist::normal: kind = ts::CpuKind::normal; break;
    case Dist::uniform: kind = ts::CpuKind::uniform; break;
    case Dist::exponential: kind = ts::CpuKind::exponential; break;
    case Dist::geometric: kind = ts::CpuKind::geometric; break;
    case Dist::log_normal: kind = ts::CpuKind::log_normal; break;
    case Dist::cauchy: kind = ts::CpuKind::cauchy; break;
    case Dist::bernoulli: kind = ts::CpuKind::bernoulli; break;
    default: return false;
  }
  return cpu_fast(self, kind, a, b, 0, 0, gen, s);
}

bool torch_cpu_random_fast(at::Tensor& self, int range, int64_t from, int64_t to,
                           const std::optional<at::Generator>& gen, TorchStream s) {
  const at::ScalarType st = self.scalar_type();
  if (!(at::isIntegralType(st, /*includeBool=*/true) || float_type(st))) return false;  // (Run::random reports)
  switch (range) {  // Run::random's kinds
    case 0:
      if (st == at::kUInt16 || st == at::kUInt32 || st == at::kUInt64) return false;  // (torch's error there)
      return cpu_fast(self, ts::CpuKind::random, 0.0, 0.0, 0, 0, gen, s);
    case 1: return cpu_fast(self, ts::CpuKind::randint, 0.0, 0.0, 0, to, gen, s);
    case 2: return cpu_fast(self, ts::CpuKind::randint, 0.0, 0.0, from, to, gen, s);
    case 3: return cpu_fast(self, ts::CpuKind::random_from, 0.0, 0.0, from, 0, gen, s);
    default: return false;
  }
}

Outputs torch_stream_run(const OpRow& r, const Config& c, c10::ArrayRef<c10::IValue> args,
                         const std::optional<at::Generator>& gen, const std::string& name,
                         c10::function_ref<void(int)> checks) {
  Run run(c, args, gen, name);
  const bool cpu = run.cpu();
  switch (r.form) {
    case Form::fill: {
      at::Tensor self = args[0].toTensor();
      // torch's rules for no elements (torch 2.0 to 2.6's scalar-p bernoulli_ and exponential_ take a word for
      // none too: ts::cpu_mkl_draw; both rows' args[1] is their double p or lambda)
      const bool mkl_word = cpu && (r.dist == Dist::bernoulli || r.dist == Dist::exponential) &&
                            ts::cpu_mkl_draw(r.dist == Dist::bernoulli ? "bernoulli" : "exponential", run.release(),
                                             run.kernel(), args[1].toDouble());
      if (self.numel() == 0 && !in_block(self) && !mkl_word) throw NoDraw();
      checks(-1);
      if (self.is_complex() && r.dist != Dist::normal && r.dist != Dist::uniform)
        throw NotReproduced("a complex dtype");
      // complex: the real view (of a host tensor laid out like self, for another device)
      at::Tensor host_complex = self.is_complex() && !self.device().is_cpu()
                                    ? at::empty_like(self, self.options().device(at::kCPU))
                                    : at::Tensor();
      at::Tensor t = self.is_complex() ? at::view_as_real(host_complex.defined() ? host_complex : self) : self;
      switch (r.dist) {
        case Dist::normal:  // complex: each part N(mean, std / sqrt 2), as torch's normal_impl_
          run.fill(t, "normal", args[1].toDouble(), args[2].toDouble() / (self.is_complex() ? std::sqrt(2.0) : 1.0));
          break;
        case Dist::uniform: run.fill(t, "uniform", args[1].toDouble(), args[2].toDouble()); break;
        case Dist::exponential: run.fill(t, "exponential", args[1].toDouble()); break;
        case Dist::geometric: run.fill(t, "geometric", args[1].toDouble()); break;
        case Dist::log_normal: run.fill(t, "log_normal", args[1].toDouble(), args[2].toDouble()); break;
        case Dist::cauchy: run.fill(t, "cauchy", args[1].toDouble(), args[2].toDouble()); break;  // median, sigma
        case Dist::bernoulli: run.fill(t, "bernoulli", args[1].toDouble()); break;
        default: throw NotReproduced(std::string(r.name));
      }
      if (host_complex.defined()) self.copy_(host_complex);
      return {self};
    }
    case Form::random: {
      at::Tensor self = args[0].toTensor();
      if (self.numel() == 0 && !in_block(self)) throw NoDraw();
      checks(-1);
      if (self.is_complex()) throw NotReproduced("random_ into a complex dtype");
      run.random(self, r.overload);
      return {self};
    }
    case Form::bernoulli_tensor: {
      const bool out_form = std::string(r.overload) == "out";
      at::Tensor out = out_form ? args[args.size() - 1].toTensor() : args[0].toTensor();
      const at::Tensor p = out_form ? args[0].toTensor() : args[1].toTensor();
      if (out_form) out.resize_(p.sizes());  // torch's bernoulli_out_impl: resize_, no resize warning
      if (out.numel() == 0) return {out};
      checks(kProbeZeros);  // the dtypes torch's kernel has (self's and p's)
      if (!out_form) (void)p.expand(out.sizes());  // torch's check and error (expand_inplace: p to out's shape)
      run.bernoulli_tensor(out, p);
      return {out};
    }
    case Form::randperm_out: {
      const int64_t n = args[0].toInt();
      at::Tensor out = args[2].toTensor();
      if (n <= 0) throw NoDraw();
      checks(0);  // the dtypes torch's kernel has
      const at::ScalarType st = out.scalar_type();
      const bool integral = st == at::kLong || st == at::kInt || st == at::kShort || st == at::kChar || st == at::kByte;
      if (!integral && !float_type(st)) throw NotReproduced("randperm into dtype " + std::string(c10::toString(st)));
      if (!cpu && st == at::kBFloat16) throw NotReproduced("randperm into bfloat16");
      // torch's check_supported_max_int_with_precision: n - 1 converted to the dtype (its overflow
      // error), and the floats' precision (bfloat16's is not checked: its values round, as torch's do)
      // (torch's conversion raises where n - 1 does not fit the dtype: made only then, for its error)
      const int64_t top = st == at::kByte ? 255 : st == at::kChar ? 127 : st == at::kShort ? 32767
                        : st == at::kInt ? std::numeric_limits<int32_t>::max() : st == at::kHalf ? 65504
                        : std::numeric_limits<int64_t>::max();
      if (n - 1 > top) (void)at::scalar_tensor(n - 1, out.options().device(at::kCPU));
      TORCH_CHECK(st != at::kHalf || n <= (int64_t{1} << 11) + 1, "n cannot be greater than 2049 for Half type.");
      TORCH_CHECK(st != at::kFloat || n <= (int64_t{1} << 24) + 1, "n cannot be greater than 2^24+1 for Float type.");
      TORCH_CHECK(st != at::kDouble || n <= (int64_t{1} << 53) + 1, "n cannot be greater than 2^53+1 for Double type.");
      at::native::resize_output(out, {n});
      run.fill(out, "randperm");
      return {out};
    }
    case Form::multinomial: {
      // torch's multinomial_out (ATen/native/Distributions.cpp), the same on CPU and CUDA but for the
      // kernel with replacement: its checks, then for no replacement or one sample the Gumbel-max
      // composite (q = empty_like(w).exponential_(1); w / q; argmax or topk), else the kernel
      const at::Tensor w = args[0].toTensor();
      const int64_t ns = args[1].toInt();
      const bool repl = args[2].toBool();
      const bool out_form = r.overload[0] == 'o';  // ("out")
      TORCH_CHECK(w.dim() > 0 && w.dim() <= 2, "prob_dist must be 1 or 2 dim");
      const int64_t shape_v[2] = {w.size(0), ns};
      const at::IntArrayRef shape = w.dim() == 1 ? at::IntArrayRef(&shape_v[1], 1) : at::IntArrayRef(shape_v, 2);
      // the result: the out= tensor, or a new one, allocated where it is first needed (the host path
      // with replacement returns the draw's own tensor), as torch's empty(ns > 0 ? shape : {0})
      at::Tensor res = out_form ? args[args.size() - 1].toTensor() : at::Tensor();
      auto result = [&]() -> at::Tensor& {
        if (!res.defined())
          res = at::empty(ns > 0 ? shape : at::IntArrayRef{0}, w.options().dtype(at::kLong));
        return res;
      };
      TORCH_CHECK(!out_form || res.device() == w.device(), "multinomial arguments must have the same device");
      TORCH_CHECK(at::isFloatingType(w.scalar_type()), "multinomial only supports floating-point dtypes for input, got: ",
                  w.scalar_type());
      TORCH_CHECK(!out_form || res.scalar_type() == at::kLong, "multinomial expects Long tensor out, got: ",
                  res.scalar_type());
      TORCH_CHECK(ns > 0, "cannot sample n_sample <= 0 samples");
      const int64_t k = w.size(-1);
      TORCH_CHECK(repl || ns <= k, "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
      TORCH_CHECK(k <= (int64_t{1} << 24), "number of categories cannot exceed 2^24");
      if (out_form) at::native::resize_output(res, shape);
      if (c10::multiply_integers(shape) == 0) return {result()};
      if (in_block(w)) throw NotReproduced("a DTensor shard");
      if (!float_type(w.scalar_type())) throw NotReproduced("weights of dtype " + std::string(c10::toString(w.scalar_type())));
      if (!repl || ns == 1) {
        TORCH_CHECK(((w.max() < INFINITY) & (w.min() >= 0)).item<bool>(),
                    "probability tensor contains either `inf`, `nan` or element < 0");
        const bool zero = w.dim() == 1 ? (w.sum() == 0).item<bool>() : (w.sum(1) == 0).sum().item<bool>();
        TORCH_CHECK(!zero, "invalid multinomial distribution (sum of probabilities <= 0)");
        at::Tensor q = at::empty_like(w);
        run.fill(q, "exponential", 1.0);
        at::div_out(q, w, q);
        if (ns == 1) {
          at::argmax_out(result(), q, -1, true);
        } else {
          at::Tensor vals = at::empty(result().sizes(), w.options());
          at::topk_out(vals, res, q, ns);
        }
        return {res};
      }
      if (!cpu) {  // torch's CUDA kernel (rng/torch_cuda_multinomial.h): every value from the host model
        const at::Tensor rows = w.detach().to(at::kCPU).reshape({-1, k}).contiguous();
        at::Tensor host = at::empty({rows.size(0), ns}, at::kLong);
        take_cuda(gen, name, [&](uint64_t seed, uint64_t offset) {
          uint64_t next = offset;
          try {
            refusing([&] { next = ts::cuda_multinomial(seed, offset, rows, ns, host); });
          } catch (const xrng::torch_cuda::NotReproducedError& e) {
            throw NotReproduced(e.what());
          }
          return next;
        });
        result().copy_(host.reshape(res.sizes()));
        return {res};
      }
      // (a contiguous CPU w is its own rows, [k] or [rows, k], and the draw's tensor has torch's shape:
      // no dispatcher calls)
      const at::Tensor rows = w.device().is_cpu() && w.is_contiguous() ? w : w.to(at::kCPU).reshape({-1, k}).contiguous();
      at::Tensor host;
      with_cpu_state(gen, [&](tc::State& s) { refusing([&] { host = ts::cpu_multinomial(s, rows, ns); }); });
      if (!out_form && w.device().is_cpu()) return {host.dim() == w.dim() ? host : host.view(shape)};  // (a new CPU tensor)
      result().copy_(host.reshape(res.sizes()));
      return {res};
    }
    case Form::normal_tensor:  // torch's normal_out_impl: normal_(0, std or 1) of the output, then its arithmetic
      return {normal_tensor_form(r.overload, args, [&](at::Tensor& out, double std) {
        if (!float_type(out.scalar_type()) && !out.is_complex()) throw NoDraw();  // (an integer output: torch's kernel raises its error)
        run.fill(out, "normal", 0.0, std);
      })};
    case Form::native_dropout: {
      const at::Tensor in = args[0].toTensor();
      const double p = args[1].toDouble();
      const bool train = args[2].isNone() || args[2].toBool();
      if (!train || p <= 0 || p >= 1 || in.numel() == 0 || !is_float(in.scalar_type())) throw NoDraw();
      if (in_block(in)) throw NotReproduced("a DTensor shard");
      if (cpu) {
        // torch's CPU dropout (what F.dropout runs there): noise = empty_like(input).bernoulli_(1 - p),
        // noise.div_(1 - p), input * noise; the mask is the noise's non-zeros
        at::Tensor keep = at::empty_like(in, in.options().dtype(at::kBool));
        run.fill(keep, "bernoulli", 1.0 - p);
        const double v = at::ones({}, at::TensorOptions().dtype(in.scalar_type())).div_(1.0 - p).item<double>();
        at::Tensor noise = keep.to(in.scalar_type()).mul_(v);
        return {in * noise, keep};
      }
      if (!in.is_contiguous()) throw NotReproduced("dropout of a non-contiguous input");
      const uint32_t vec = dropout_vec(in);
      // a CUDA input: xrng's dropout kernel on its GPU (with the kernels built), else the host model
      const at::Tensor host = kCudaKernels && in.is_cuda() ? in.detach() : in.detach().to(at::kCPU).contiguous();
      at::Tensor out, mask;
      take_cuda(gen, name, [&](uint64_t seed, uint64_t offset) {
        auto [o, m, next] = ts::cuda_dropout(seed, offset, c.sm_count, c.threads_per_sm, host, p, vec);
        out = o;
        mask = m;
        return next;
      });
      return {out.to(in.device()), mask.to(in.device())};
    }
    case Form::sdp_choice: {
      if (!(args[4].toDouble() > 0)) throw NoDraw();  // torch's choice
      if (!cpu) throw NotReproduced("attention with dropout (the GPU's fused kernels draw with their own layout)");
      return {c10::IValue(int64_t{0})};  // sdp::SDPBackend::math: its dropout is aten's (torch's CPU choice)
    }
    case Form::tensor_param: {
      // torch's CPU kernels of _standard_gamma, _sample_dirichlet, poisson and binomial
      // (torch_cpu_gamma_ops.cpp, torch_cpu_poisson_ops.cpp): their output is a new contiguous tensor of the
      // (first) parameter's shape, its elements drawn in row-major order; a parameter on another device is
      // drawn on the host and moved (torch's CPU values on every device). torch-cuda: not reproduced.
      if (!cpu) throw NotReproduced(std::string(r.name));
      const std::string op = r.name;
      const at::Tensor x = args[0].toTensor();
      const bool binomial = op == "binomial";
      const at::Tensor p = binomial ? args[1].toTensor() : at::Tensor();
      if (in_block(x) || (binomial && in_block(p))) throw NotReproduced("a DTensor shard");
      const at::ScalarType st = x.scalar_type();
      // torch's CPU kernels take float32 and float64, poisson also float16 and bfloat16 (and binomial one
      // dtype, prob broadcast to count's shape); on the CPU anything else is torch's own kernel's (its
      // error), elsewhere not reproduced
      const bool half = st == at::kHalf || st == at::kBFloat16;
      const bool taken = (st == at::kFloat || st == at::kDouble || (half && op == "poisson")) &&
                         (!binomial || (p.scalar_type() == st && at::is_expandable_to(p.sizes(), x.sizes()) &&
                                        p.device() == x.device()));
      if (!taken) {
        if (x.device().is_cpu()) throw NoDraw();
        throw NotReproduced(op + " of dtype " + std::string(c10::toString(st)) + " (torch's CPU kernel has none)");
      }
      if (x.numel() == 0) throw NoDraw();
      if (op == "_sample_dirichlet" && x.numel() == (x.dim() == 0 ? 1 : x.size(-1)) &&
          x.numel() >= tc::kTorchCpuSumGrain)  // torch sums one such row across its threads
        throw NotReproduced("a single Dirichlet row of 32768 or more categories (torch's sum of it depends on its "
                            "thread count)");
      const at::Tensor xh = x.detach().to(at::kCPU).contiguous();
      const at::Tensor ph = binomial ? p.detach().to(at::kCPU).expand(x.sizes()).contiguous() : at::Tensor();
      at::Tensor host;
      with_cpu_state(gen, [&](tc::State& s) {
        refusing([&] {
          if (op == "_standard_gamma")
            host = ts::cpu_standard_gamma(s, xh);
          else if (op == "_sample_dirichlet")
            host = ts::cpu_dirichlet(s, xh);
          else if (op == "poisson")
            host = ts::cpu_poisson(s, xh);
          else
            host = ts::cpu_binomial(s, xh, ph);
        });
      });
      return {x.device().is_cpu() ? host : host.to(x.device())};
    }
    case Form::rrelu: {
      // torch's CPU rrelu_with_noise_out_cpu: in training, _rrelu_with_noise_train (cpu_rrelu: one uniform
      // per element x <= 0, in row-major order); otherwise leaky_relu (no draw: torch's own)
      if (!cpu) throw NotReproduced(std::string(r.name));
      const at::Tensor self = args[0].toTensor();
      at::Tensor noise = args[1].toTensor();
      if (!args[4].toBool() || !float_type(self.scalar_type()) || self.numel() == 0) throw NoDraw();
      checks(-1);
      TORCH_CHECK(self.sizes() == noise.sizes(), "noise tensor shape must match self tensor shape. Got self.shape = ",
                  self.sizes(), " noise.shape = ", noise.sizes());
      if (in_block(self)) throw NotReproduced("a DTensor shard");
      // torch writes noise through its data pointer, element i at position i
      if (!noise.is_contiguous() || noise.scalar_type() != self.scalar_type())
        throw NotReproduced("rrelu with a non-contiguous noise or one of another dtype");
      const std::string ov = r.overload;
      const bool inplace = std::string(r.name) == "rrelu_with_noise_";
      const at::Tensor x = self.detach().to(at::kCPU).contiguous();
      at::Tensor out = at::empty_like(x), nz = at::empty_like(x);
      const double lower = args[2].toScalar().to<double>(), upper = args[3].toScalar().to<double>();
      with_cpu_state(gen, [&](tc::State& s) { refusing([&] { ts::cpu_rrelu(s, x, lower, upper, out, nz); }); });
      noise.copy_(nz);
      if (inplace) {
        at::Tensor dst = args[0].toTensor();
        dst.copy_(out);
        return {dst};
      }
      if (ov == "out") {
        at::Tensor o = args[args.size() - 1].toTensor();
        at::native::resize_output(o, self.sizes());
        o.copy_(out);
        return {o};
      }
      return {self.device().is_cpu() ? out : out.to(self.device())};
    }
  }
  throw NotReproduced("no form");
}

}  // namespace xrng::torch_api::mode::detail
