// Forwarding header, kept for one merge: the golden-vector format moved to
// golden/format.h (namespace xrng::golden, library xrng_golden). Tests that
// still include "golden.h" and name xrng_test::GoldenCase, read_golden,
// golden_path, to_bits, from_bits keep compiling through the using-directive
// below. Update them to
//   #include "golden/format.h"     and  xrng::golden::...
// and then delete this file (tests/gpu/CMakeLists.txt tests for its
// existence to enable the GPU golden suite: switch that test to
// golden/format.h in the same change).
#pragma once

#include "golden/format.h"

namespace xrng_test {
using namespace xrng::golden;
}  // namespace xrng_test
