// Links only xrng::core (header-only) from an installed xrng and evaluates
// normals with the core's scalar reference; the values must be the golden
// file's (expected.h), however this project's compiler flags are set.
#include <cstdio>

#include "expected.h"
#include "rng/detail/rows.h"
#include "rng/keys.h"

int main() {
  using namespace xrng;
  // expected.h holds stream-v1 values: the plan and the row of stream 1.
  const Plan plan = make_plan(Dist::normal, DType::f32, DrawParams::moments(0.0, 1.0), /*version=*/1);
  using R = Row<Dist::normal, DType::f32, 1>;
  float z[9], y[7];
  reference_fill<R>(plan, Key(0).stream(), /*offset=*/0, /*start=*/0, 9, z);
  reference_fill<R>(plan, Key(42).stream(), /*offset=*/3, /*start=*/0, 7, y);
  const bool ok = consumer::same_bits("core normal seed 0", z, consumer::kNormalSeed0, 9) &
                  consumer::same_bits("core normal seed 42 offset 3", y, consumer::kNormalSeed42Offset3, 7);
  std::printf("consumer_core (xrng::core): %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
