// CPU hashes of the exhaustive proofs (see exhaustive.h), computed with
// `threads` threads (at least 2).
#pragma once

#include <cstdint>

#include "rng/detail/distributions.h"

namespace xrng_test {

enum class Transform { radius, sincos, uniform_f32, uniform_f16, uniform_bf16, f16_round, bf16_round };

namespace generic {
uint64_t cpu_hash(Transform which, const xrng::UniformParams& p, unsigned threads);
}
namespace fma {
uint64_t cpu_hash(Transform which, const xrng::UniformParams& p, unsigned threads);
}

}  // namespace xrng_test
