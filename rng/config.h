// xrng: portable configuration shared by host and device code.
//
// Every function of the core is marked XRNG_HD so that one body of code is
// compiled for the CPU and, under nvcc, for the GPU. The only per-target
// difference in the whole core is how the high half of a 32x32 product is
// formed (see mulhilo32 in philox.h).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define XRNG_HD __host__ __device__
#define XRNG_INLINE __forceinline__
#else
#define XRNG_HD
#define XRNG_INLINE inline
#endif

// The determinism rules forbid contraction of a*b+c into an fma behind the
// programmer's back: every fused multiply-add in the core is explicit.
#if defined(__FAST_MATH__)
#error "xrng must not be compiled with -ffast-math: it changes stream values"
#endif

namespace xrng {

// The newest version of the value streams defined in SPEC.md, and the default
// of every draw. Any change to any output value of any distribution is a new
// stream version, never a quiet edit. Every earlier version stays selectable
// and frozen (SPEC.md section 7): 1 is the binary64-transform stream, 2 the
// binary32-transform stream.
constexpr int kStreamVersion = 2;
// The oldest stream version still produced (every version from it to
// kStreamVersion is).
constexpr int kOldestStreamVersion = 1;

}  // namespace xrng
