// Links xrng::host from an installed xrng and draws normals through the
// public host API; the values must be the golden file's (expected.h).
#include <cstdio>
#include <vector>

#include "expected.h"
#include "host/xrng.h"

int main() {
  bool ok = true;
  float z[9];
  // expected.h holds stream-v1 values: ask for stream 1 explicitly (SPEC.md section 7).
  xrng::normal(xrng::Key(0), /*offset=*/0, z, 9, 0.0, 1.0, xrng::FillOptions{}, /*stream=*/1);
  ok = consumer::same_bits("xrng::normal(Key(0), 0)", z, consumer::kNormalSeed0, 9) && ok;

  // The stateful generator, advanced by 3 words first; SIMD and 2 threads
  // (the values never depend on either).
  xrng::Generator gen(42, 0, 0, /*stream=*/1);
  gen.skip(gen.plan(xrng::Dist::bits, xrng::DType::u32), 3);
  std::vector<float> y(7);
  gen.normal(y.data(), y.size(), 0.0, 1.0, xrng::FillOptions{xrng::Backend::automatic, 2});
  ok = consumer::same_bits("Generator(42) after 3 words", y.data(), consumer::kNormalSeed42Offset3, 7) && ok;

  // The generic entry point and its validation.
  bool threw = false;
  try {
    xrng::make_plan(xrng::Dist::normal, xrng::DType::i32, xrng::DrawParams{});
  } catch (const xrng::Error&) {
    threw = true;
  }
  if (!threw) std::fprintf(stderr, "make_plan(normal, i32) did not throw\n");
  ok = ok && threw;

  std::printf("consumer (xrng::host, simd %s): %s\n", xrng::simd_isa(), ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
