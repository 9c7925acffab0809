// XRNG_FMA_CLONES: a loop compiled twice on x86-64 with GCC (target_clones),
// with the FMA instructions and without, picked at load time by the CPU, with
// its callees inlined (flatten). Element functions that call std::fma on
// purpose (SPEC 5, and the ports of glibc's FMA variants) then get one
// instruction instead of a libm call: the same correctly rounded result, so
// the same values. Empty elsewhere and under the sanitizers.
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define XRNG_FMA_CLONES __attribute__((target_clones("fma", "default"), flatten))
#else
#define XRNG_FMA_CLONES
#endif
