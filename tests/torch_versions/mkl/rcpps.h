// This CPU's approximate reciprocal as MKL's generic double-precision
// logarithm (dLn_EXHAynn, rng/torch_cpu.h mkl_ln_f64) uses it: R of the
// float f = 2^-10 (1 + m 2^-23), m in [0, 2^23], is rcpps(f) rounded to the
// nearest integer (the kernel adds and subtracts 1.5 2^52). x86-64 only.
// Used by make_ln64.py (which records the steps), ln64_period.cpp and
// emulate_ln.py's models (which compare this CPU's with them).
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

inline uint32_t host_rcp_R(uint32_t m) {
  const uint32_t fb = 0x3a800000u + m;
  float f;
  std::memcpy(&f, &fb, 4);
  const double r = static_cast<double>(_mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(f))));
  volatile double magic = 0x1.8p52;
  return static_cast<uint32_t>((r + magic) - magic);
}
