// The draws of the reproducible mode's kernels: see draws.h.
#include "draws.h"

#include <ATen/native/Resize.h>

#include <ATen/core/dispatch/Dispatcher.h>

#include <cstring>
#include <type_traits>
#include <vector>

#include "../ops.h"
#include "blocks.h"
#include "streams.h"

namespace xrng::torch_api::mode::detail {

namespace {
// The plan of a thread's last draw (a program repeats its calls): make_plan
// and draw_dtype are pure functions of (dist, dtype, params, stream), so a
// call equal in every byte of these reuses it (a refused one is never kept).
struct PlanCache {
  bool valid = false;
  Dist d = Dist::bits;
  at::ScalarType st = at::kFloat;
  int stream = 0;
  DrawParams q;
  Plan plan;
};
thread_local PlanCache t_plan;

// Whether two trivially copyable values are equal in every byte (memcmp's
// answer, compared inline in 8-byte words).
template <class T>
bool same_bytes(const T& x, const T& y) {
  const auto* a = reinterpret_cast<const unsigned char*>(&x);
  const auto* b = reinterpret_cast<const unsigned char*>(&y);
  uint64_t d = 0;
  size_t i = 0;
  for (; i + 8 <= sizeof(T); i += 8) {
    uint64_t u, v;
    std::memcpy(&u, a + i, 8);
    std::memcpy(&v, b + i, 8);
    d |= u ^ v;
  }
  for (; i < sizeof(T); ++i) d |= static_cast<uint64_t>(a[i] ^ b[i]);
  return d == 0;
}

Plan plan_of(Dist d, at::ScalarType st, const DrawParams& q, int stream) {
  static_assert(std::is_trivially_copyable_v<DrawParams>);
  PlanCache& c = t_plan;
  if (c.valid && c.d == d && c.st == st && c.stream == stream && same_bytes(c.q, q)) return c.plan;
  c.valid = false;
  c.plan = make_plan(d, draw_dtype(d, st), q, stream);
  c.d = d;
  c.st = st;
  c.stream = stream;
  std::memcpy(&c.q, &q, sizeof q);
  c.valid = true;
  return c.plan;
}
}  // namespace

// Fills `t` (any strides, any device) with `numel` elements of the draw.
void fill_draw(at::Tensor& t, Dist d, const DrawParams& q, const std::optional<at::Generator>& gen,
               const std::string& op) {
  if (t.numel() == 0 && !in_block(t)) return;  // (a rank's empty shard still moves with the others)
  const Plan plan = plan_of(d, t.scalar_type(), q, config().stream);
  if (in_block(t)) {
    uint64_t global = 1;
    for (int64_t g : t_block.global) global *= static_cast<uint64_t>(g);
    std::vector<double> reals;
    std::vector<int64_t> ints;
    split_params(d, q, reals, ints);
    static auto block = c10::Dispatcher::singleton()
                            .findSchemaOrThrow("xrng::draw_block_", "")
                            .typed<void(at::Tensor&, c10::string_view, c10::ArrayRef<double>,
                                               c10::ArrayRef<int64_t>, const at::Tensor&, c10::ArrayRef<int64_t>,
                                               c10::ArrayRef<int64_t>)>();
    take(t_block.gen ? t_block.gen : gen, plan_words(plan, global), op, [&](const Key& key, uint64_t offset) {
      if (t.numel() == 0) return;
      block.call(t, dist_name(d), reals, ints, position_tensor(key, offset, config().stream), t_block.global,
                 t_block.start);
    });
    return;
  }
  take(gen, plan_words(plan, static_cast<uint64_t>(t.numel())), op,
       [&](const Key& key, uint64_t offset) { fill_(t, plan, key, offset); });
}

// A location/scale draw into f16/bf16 whose parameters are not finite in
// that type: by definition the binary32 value rounded, so drawn in float32
// (torch gives infinities there; xrng's bits everywhere else).
void fill_located(at::Tensor& t, Dist d, const DrawParams& q, const std::optional<at::Generator>& gen,
                  const std::string& op) {
  try {
    fill_draw(t, d, q, gen, op);
  } catch (const Error& e) {
    if ((t.scalar_type() != at::kHalf && t.scalar_type() != at::kBFloat16) ||
        std::string(e.what()).find("is not finite in") == std::string::npos)
      throw;
    at::Tensor wide = at::empty(t.sizes(), t.options().dtype(at::kFloat));
    fill_draw(wide, d, q, gen, op);
    t.copy_(wide);
  }
}

// Bernoulli(p) into any dtype: 1 where word < round_half_even(p 2^32).
void fill_bernoulli(at::Tensor& t, double p, const std::optional<at::Generator>& gen, const std::string& op) {
  DrawParams q;
  q.p = p;
  if (t.scalar_type() == at::kBool || t.scalar_type() == at::kByte) {
    fill_draw(t, Dist::bernoulli, q, gen, op);
  } else {
    at::Tensor tmp = at::empty(t.sizes(), t.options().dtype(at::kByte));
    fill_draw(tmp, Dist::bernoulli, q, gen, op);
    t.copy_(tmp);
  }
}

// Per-element Bernoulli(p_i): one word per element, 1 where w_i < round_half_even(p_i 2^32)
// (exact in binary64 on every device). p is broadcast to `shape`.
at::Tensor bernoulli_mask(at::IntArrayRef shape, const at::Tensor& p, const std::optional<at::Generator>& gen,
                          const std::string& op) {
  if (!is_float(p.scalar_type())) throw Reported("probabilities of dtype " + std::string(c10::toString(p.scalar_type())));
  const at::Tensor p64 = p.to(at::kDouble);
  if (p64.numel() && ((p64 < 0) | (p64 > 1) | p64.isnan()).any().item<bool>())
    throw Error(op + ": the probabilities must be in [0, 1]");
  at::Tensor w = at::empty(shape, p.options().dtype(at::kUInt32));
  fill_draw(w, Dist::bits, DrawParams{}, gen, op);
  const at::Tensor words = w.view(at::kInt).to(at::kLong).bitwise_and_(0xFFFFFFFFll).to(at::kDouble);
  return words < at::round(p64.expand(shape) * 4294967296.0);
}

// randint on [low, high) into any real dtype (SPEC 8.2): an i64 draw for
// 64-bit and float64 outputs, i32 otherwise; the top of int64's range and
// the whole of it have their own forms.
void fill_randint(at::Tensor& t, __int128 low, __int128 high, const std::optional<at::Generator>& gen,
                  const std::string& op) {
  if (t.numel() == 0 && !in_block(t)) return;
  const at::ScalarType st = t.scalar_type();
  const bool wide = st == at::kLong || st == at::kDouble || st == at::kUInt64 || st == at::kUInt32;
  if (high - low == (static_cast<__int128>(1) << 64)) {  // every 64-bit pattern: raw words
    at::Tensor u = at::empty(t.sizes(), t.options().dtype(at::kUInt64));
    fill_draw(u, Dist::bits, DrawParams{}, gen, op);
    t.copy_(st == at::kUInt64 ? u : u.view(at::kLong));
    return;
  }
  int64_t shift = 0;
  const __int128 top = static_cast<__int128>(1) << 63;
  if (high == top) {  // 2^63 is not an exclusive int64 bound: [low - 1, 2^63 - 1), plus one
    low -= 1;
    high -= 1;
    shift = 1;
  }
  if (low < -top || high > top - 1) throw Reported("a range beyond int64");
  DrawParams q;
  q.ilow = static_cast<int64_t>(low);
  q.ihigh = static_cast<int64_t>(high);
  const bool direct = shift == 0 && (st == at::kLong || st == at::kInt || st == at::kShort || st == at::kChar ||
                                     st == at::kByte);
  if (direct && (wide || (low >= INT32_MIN && high - 1 <= INT32_MAX))) {
    if (!wide) {  // an i32 draw converted (the range fits int32: draw_dtype's rule)
      at::Tensor tmp = at::empty(t.sizes(), t.options().dtype(at::kInt));
      fill_draw(tmp, Dist::randint, q, gen, op);
      t.copy_(tmp);
    } else {
      fill_draw(t, Dist::randint, q, gen, op);
    }
    return;
  }
  at::Tensor tmp = at::empty(t.sizes(), t.options().dtype(wide ? at::kLong : at::kInt));
  fill_draw(tmp, Dist::randint, q, gen, op);
  t.copy_(shift ? tmp + 1 : tmp);
}

__int128 dtype_max(at::ScalarType st) {
  switch (st) {
    case at::kFloat: return static_cast<__int128>(1) << 24;
    case at::kDouble: return static_cast<__int128>(1) << 53;
    case at::kHalf: return static_cast<__int128>(1) << 11;
    case at::kBFloat16: return static_cast<__int128>(1) << 8;
    case at::kBool: return 1;
    case at::kByte: return 255;
    case at::kChar: return 127;
    case at::kShort: return 32767;
    case at::kInt: return INT32_MAX;
    case at::kLong: return INT64_MAX;
    case at::kUInt16: return 65535;
    case at::kUInt32: return UINT32_MAX;
    case at::kUInt64: return static_cast<__int128>(UINT64_MAX);
    default: throw Reported("random_ into dtype " + std::string(c10::toString(st)));
  }
}

at::Tensor normal_tensor_form(const std::string& ov, c10::ArrayRef<c10::IValue> args,
                              const std::function<void(at::Tensor&, double)>& fill) {
  const bool out_form = ov.size() > 4 && ov.compare(ov.size() - 4, 4, "_out") == 0;
  const std::string form = out_form ? ov.substr(0, ov.size() - 4) : ov;
  at::Tensor out;
  if (form == "Tensor_Tensor") {
    const at::Tensor mean = args[0].toTensor(), std = args[1].toTensor();
    TORCH_CHECK(!std.is_complex(), "normal expects standard deviation to be non-complex");
    TORCH_CHECK(std.numel() == 0 || std.min().ge(0).item<bool>(), "normal expects all elements of std >= 0.0");
    const std::vector<int64_t> shape = at::infer_size(mean.sizes(), std.sizes());
    out = out_form ? args[3].toTensor() : at::empty(shape, mean.options());  // (torch's normal_impl)
    if (out_form) at::native::resize_output(out, shape);
    fill(out, 1.0);
    out.mul_(std).add_(mean);
  } else if (form == "Tensor_float") {
    const at::Tensor mean = args[0].toTensor();
    const double std = args[1].toDouble();
    TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
    out = out_form ? args[3].toTensor() : at::empty_like(mean, at::MemoryFormat::Contiguous);
    // torch's normal_out_impl: mean broadcast with out's shape before the resize (its check and error)
    at::native::resize_output(out, at::infer_size(mean.sizes(), out.sizes()));
    fill(out, std);
    out.add_(mean);
  } else {  // float_Tensor
    const double mean = args[0].toDouble();
    const at::Tensor std = args[1].toTensor();
    TORCH_CHECK(!std.is_complex(), "normal expects standard deviation to be non-complex");
    TORCH_CHECK(std.numel() == 0 || std.min().ge(0).item<bool>(), "normal expects all elements of std >= 0.0");
    out = out_form ? args[3].toTensor() : at::empty_like(std, at::MemoryFormat::Contiguous);
    at::native::resize_output(out, std.sizes());
    fill(out, 1.0);
    out.mul_(std).add_(mean);
  }
  return out;
}


}  // namespace xrng::torch_api::mode::detail
