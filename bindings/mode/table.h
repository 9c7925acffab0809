// The table of operators of the reproducible mode (part 2 of the dispatcher
// engine, see ../mode.cpp): one description per random op. Each row's form
// says how its kernel (kernels.cpp) reads the operator's arguments from the
// stack; the dispatch keys kKeys are those its kernels are registered for.
#pragma once

#include <c10/core/DispatchKey.h>

#include <cstddef>
#include <string>

#include "../xrng_torch.h"

namespace xrng::torch_api::mode::detail {

// ==== 2. the table of operators ======================================================================
enum class Form {
  fill,             // in-place fill of self (arg 0) with an element draw; params: args 1..
  random,           // random_ (its three overloads)
  bernoulli_tensor, // bernoulli_.Tensor(self, p) and bernoulli.out(p, out)
  randperm_out,     // randperm.generator_out(n, generator, out)
  multinomial,      // multinomial(self, n, replacement) and .out
  normal_tensor,    // normal.Tensor_Tensor / Tensor_float / float_Tensor and their .out
  tensor_param,     // _standard_gamma, _sample_dirichlet, poisson, binomial
  native_dropout,   // native_dropout(input, p, train)
  rrelu,            // rrelu_with_noise(self, noise, lower, upper, training) and its _ and .out forms
  sdp_choice,       // _fused_sdp_choice: the math formulation when dropout_p > 0 (its dropout is aten's)
};

struct OpRow {
  const char* name;      // "aten::" name
  const char* overload;
  Form form;
  Dist dist;             // fill: the xrng draw
  const char* xop;       // tensor_param: the xrng operator
  const char* draw;      // documentation (mode_ops)
  const char* words;
};

// One row per aten operator the mode serves (SPEC.md section 8.2 gives the
// words of each). Every other random operator of torch reaches one of these
// (randn, rand, randint, the *_like factories, dropout, nn.init's fills,
// torch.distributions' samplers) or is reported by the dispatch check.
inline constexpr OpRow kModeOps[] = {
    {"normal_", "", Form::fill, Dist::normal, nullptr, "normal(mean, std)", "as xrng normal"},
    {"uniform_", "", Form::fill, Dist::uniform, nullptr, "uniform on [from, to)", "as xrng uniform; from == to: 0"},
    {"exponential_", "", Form::fill, Dist::exponential, nullptr, "exponential(lambd)", "as xrng exponential"},
    {"geometric_", "", Form::fill, Dist::geometric, nullptr, "geometric(p)", "as xrng geometric"},
    {"log_normal_", "", Form::fill, Dist::log_normal, nullptr, "log_normal(mean, std)", "as xrng log_normal"},
    {"cauchy_", "", Form::fill, Dist::cauchy, nullptr, "cauchy(median, sigma)", "as xrng cauchy"},
    {"bernoulli_", "float", Form::fill, Dist::bernoulli, nullptr, "bernoulli(p)", "n"},
    {"bernoulli_", "Tensor", Form::bernoulli_tensor, Dist::bits, nullptr, "1 where word < round(p_i 2^32)", "n"},
    {"bernoulli", "out", Form::bernoulli_tensor, Dist::bits, nullptr, "1 where word < round(p_i 2^32)", "n"},
    {"random_", "", Form::random, Dist::randint, nullptr, "randint on [0, max]", "2n or 4n"},
    {"random_", "to", Form::random, Dist::randint, nullptr, "randint on [0, to)", "2n or 4n"},
    {"random_", "from", Form::random, Dist::randint, nullptr, "randint on [from, to)", "2n or 4n"},
    {"randperm", "generator_out", Form::randperm_out, Dist::perm, nullptr, "perm of [0, n)", "12 (n = 0: 0)"},
    {"multinomial", "", Form::multinomial, Dist::bits, nullptr, "categorical (SPEC 10)",
     "2 rows num_samples (with replacement), 2 rows k (without)"},
    {"multinomial", "out", Form::multinomial, Dist::bits, nullptr, "categorical (SPEC 10)",
     "2 rows num_samples (with replacement), 2 rows k (without)"},
    {"normal", "Tensor_Tensor", Form::normal_tensor, Dist::normal, nullptr, "normal(0, 1), then * std + mean", "as xrng normal"},
    {"normal", "Tensor_Tensor_out", Form::normal_tensor, Dist::normal, nullptr, "normal(0, 1), then * std + mean", "as xrng normal"},
    {"normal", "Tensor_float", Form::normal_tensor, Dist::normal, nullptr, "normal(0, std), then + mean", "as xrng normal"},
    {"normal", "Tensor_float_out", Form::normal_tensor, Dist::normal, nullptr, "normal(0, std), then + mean", "as xrng normal"},
    {"normal", "float_Tensor", Form::normal_tensor, Dist::normal, nullptr, "normal(0, 1), then * std + mean", "as xrng normal"},
    {"normal", "float_Tensor_out", Form::normal_tensor, Dist::normal, nullptr, "normal(0, 1), then * std + mean", "as xrng normal"},
    {"_standard_gamma", "", Form::tensor_param, Dist::bits, "xrng::gamma", "gamma (SPEC 11)", "64 n"},
    {"_sample_dirichlet", "", Form::tensor_param, Dist::bits, "xrng::dirichlet", "Dirichlet (SPEC 11)", "64 n"},
    {"poisson", "", Form::tensor_param, Dist::bits, "xrng::poisson_counts", "Poisson (SPEC 12)", "64 n"},
    {"binomial", "", Form::tensor_param, Dist::bits, "xrng::binomial_counts", "binomial (SPEC 13)", "64 n"},
    {"rrelu_with_noise", "", Form::rrelu, Dist::uniform, nullptr,
     "slope uniform on [lower, upper) in the op's arithmetic type for every element, used where x <= 0",
     "as xrng uniform (f32 for f16/bf16)"},
    {"rrelu_with_noise_", "", Form::rrelu, Dist::uniform, nullptr,
     "slope uniform on [lower, upper) in the op's arithmetic type for every element, used where x <= 0",
     "as xrng uniform (f32 for f16/bf16)"},
    {"rrelu_with_noise", "out", Form::rrelu, Dist::uniform, nullptr,
     "slope uniform on [lower, upper) in the op's arithmetic type for every element, used where x <= 0",
     "as xrng uniform (f32 for f16/bf16)"},
    {"_fused_sdp_choice", "", Form::sdp_choice, Dist::bits, nullptr,
     "scaled_dot_product_attention with dropout_p > 0 runs its math formulation (dropout: as above), not a fused "
     "kernel with an RNG of its own", "those of its dropout"},
    {"native_dropout", "", Form::native_dropout, Dist::bernoulli, nullptr,
     "keep = bernoulli(1 - p); input * (keep * (1 / (1 - p) in the dtype))", "n"},
};
inline constexpr size_t kRows = sizeof(kModeOps) / sizeof(kModeOps[0]);

inline std::string op_name(const OpRow& r) {
  return std::string("aten::") + r.name + (r.overload[0] ? std::string(".") + r.overload : std::string());
}

inline constexpr c10::DispatchKey kKeys[] = {c10::DispatchKey::CPU, c10::DispatchKey::CUDA, c10::DispatchKey::PrivateUse1};
inline constexpr size_t kNumKeys = sizeof(kKeys) / sizeof(kKeys[0]);

}  // namespace xrng::torch_api::mode::detail
