// Forwarding header, kept for one merge: the golden-vector format moved to
// golden/format.h (namespace xrng::golden, CMake library xrng_golden). Tests
// that still include "golden.h" and name xrng_test::GoldenCase, read_golden,
// golden_path, to_bits, from_bits keep compiling through the using-directive
// below. Its users when it was written: tests/test_invariance.cpp,
// tests/test_elements.cpp, tests/gpu/ (test_cuda.cu, test_cuda_host.cpp or
// requests.h) and, through golden_cases.h, tests/simd/test_simd_fill.cpp.
// Update each to
//   #include "golden/format.h"   (or "golden/cases.h")   and   xrng::golden::...
// then delete this file and tests/golden_cases.h. (tests/gpu/CMakeLists.txt on
// main enables its golden suite when this file exists: switch that check to
// golden/format.h in the same change.)
#pragma once

#include "golden/format.h"

namespace xrng_test {
using namespace xrng::golden;
}  // namespace xrng_test
