// CPU hashes of the exhaustive proofs (see exhaustive.h), computed with
// `threads` threads (at least 2). p: the plan whose prepared parameters the
// transform reads (uniform, exponential, cauchy); ignored by the others.
#pragma once

#include <cstdint>

#include "rng/plan.h"

namespace xrng_test {

enum class Transform {
  radius,
  sincos,
  uniform_f32,
  uniform_f16,
  uniform_bf16,
  f16_round,
  bf16_round,
  exponential_f32,
  cauchy_f32,
  v2_radius,
  v2_sincos,
  v2_exp,
  v2_exponential_f32,
  v2_cauchy_f32
};

namespace generic {
uint64_t cpu_hash(Transform which, const xrng::Plan& p, unsigned threads);
}
namespace fma {
uint64_t cpu_hash(Transform which, const xrng::Plan& p, unsigned threads);
}

}  // namespace xrng_test
