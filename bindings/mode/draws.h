// The draws of the reproducible mode's kernels: fills of a tensor from the
// stream of a torch generator (streams.h), a DTensor shard's block where one
// is open (blocks.h), and the errors that hand a call back to torch's own
// kernel (Reported, NoDraw).
#pragma once

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>
#include <c10/util/SmallVector.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "../xrng_torch.h"

namespace xrng::torch_api::mode::detail {

// A kernel's outputs (one or two values: no allocation on the hot path).
using Outputs = c10::SmallVector<c10::IValue, 2>;

struct Reported : std::exception {
  std::string why;
  explicit Reported(std::string w) : why(std::move(w)) {}
};
// A call with nothing to draw (dropout in eval mode, rrelu without training):
// torch's own kernel runs, nothing is reported.
struct NoDraw : std::exception {};

inline bool is_float(at::ScalarType t) {
  return t == at::kFloat || t == at::kDouble || t == at::kHalf || t == at::kBFloat16;
}

// torch's normal(Tensor|float, Tensor|float) overloads and their _out forms
// (torch's normal_out_impl): `overload` names the form, the output is
// allocated and checked as torch does, `fill(out, std)` draws normal(0, std)
// into it (std: the float std, else 1), then torch's arithmetic. Shared by
// the xrng streams' kernels and the torch streams'.
at::Tensor normal_tensor_form(const std::string& overload, c10::ArrayRef<c10::IValue> args,
                              const std::function<void(at::Tensor&, double)>& fill);
// Fills `t` (any strides, any device) with `numel` elements of the draw.
void fill_draw(at::Tensor& t, Dist d, const DrawParams& q, const std::optional<at::Generator>& gen,
               const std::string& op);
// A location/scale draw into f16/bf16 (non-finite parameters there: drawn in float32).
void fill_located(at::Tensor& t, Dist d, const DrawParams& q, const std::optional<at::Generator>& gen,
                  const std::string& op);
// Bernoulli(p) into any dtype: 1 where word < round_half_even(p 2^32).
void fill_bernoulli(at::Tensor& t, double p, const std::optional<at::Generator>& gen, const std::string& op);
// Per-element Bernoulli(p_i), p broadcast to `shape`.
at::Tensor bernoulli_mask(at::IntArrayRef shape, const at::Tensor& p, const std::optional<at::Generator>& gen,
                          const std::string& op);
// randint on [low, high) into any real dtype (SPEC 8.2).
void fill_randint(at::Tensor& t, __int128 low, __int128 high, const std::optional<at::Generator>& gen,
                  const std::string& op);

// torch's adjustment of a random_ range to a floating dtype (DistributionTemplates.h
// update_from / update_to): `from` up to the next value the dtype holds,
// `to` down so that to - 1 rounds below it. The integers drawn are then
// converted (nearest), so no value reaches the exclusive bound.
template <typename T>
int64_t update_from(int64_t from) {
  const auto from_plus_1 = static_cast<int64_t>(static_cast<T>(from + 1));
  if (from_plus_1 < from) {
    int64_t f = std::abs(from + 1);
    int n = 0;
    while (f >>= 1) ++n;
    from = from_plus_1 + (int64_t{1} << (n - std::numeric_limits<T>::digits + 1));
  }
  return from;
}
template <typename T>
int64_t update_to(int64_t to) {
  const auto to_minus_1 = static_cast<int64_t>(static_cast<T>(to - 1));
  if (to_minus_1 >= to) {
    int64_t t = std::abs(to - 1);
    int n = 0;
    while (t >>= 1) ++n;
    to = to_minus_1 - (int64_t{1} << (n - std::numeric_limits<T>::digits + 1));
  }
  return to;
}
template <class F>
void with_float_type(at::ScalarType st, F&& f) {
  switch (st) {
    case at::kFloat: f(float{}); break;
    case at::kDouble: f(double{}); break;
    case at::kHalf: f(c10::Half{}); break;
    case at::kBFloat16: f(c10::BFloat16{}); break;
    default: break;
  }
}

// The largest value random_ draws into dtype `st` (Reported for the others).
__int128 dtype_max(at::ScalarType st);

}  // namespace xrng::torch_api::mode::detail
