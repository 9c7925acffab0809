// The vector forms of the tensor-parameter draws (host/simd/params.h): the
// baseline side of the interface (no ISA code), as probe.h is for the probes.
#pragma once

#include <cstdint>

#include "../../rng/stream.h"

namespace xrng::detail {

enum class ParamDraw : int {
  gamma,     // a: alpha; y: gammad::variate (binary64, before the dtype's rounding)
  poisson,   // a: rate; y: poissond::count
  binomial,  // a: count, b: prob; y: binomiald::count
  race_time,  // no parameters; element i reads the 2 words word0 + 2i, word0 + 2i + 1 (not 64):
              // y: categorical::race_time (multinomial without replacement, rng/multinomial.h)
};

// Elements [0, n) of draw `which`, element i reading the 64 words at
// word0 + 64 i of stream s: y[i] is its binary64 value where done[i] is 1;
// where done[i] is 0 (a case without a lane form, rare) the caller runs the
// scalar element function. Parameters must be valid (checked before). Returns
// false when the ISA has no vector form of `which`. Only call the avx512
// entry on a CPU that has AVX-512.
bool params_avx2(ParamDraw which, const double* a, const double* b, uint64_t n, const Stream& s, uint64_t word0,
                 double* y, uint8_t* done);
bool params_avx512(ParamDraw which, const double* a, const double* b, uint64_t n, const Stream& s, uint64_t word0,
                   double* y, uint8_t* done);
bool params_neon(ParamDraw which, const double* a, const double* b, uint64_t n, const Stream& s, uint64_t word0,
                 double* y, uint8_t* done);

}  // namespace xrng::detail
