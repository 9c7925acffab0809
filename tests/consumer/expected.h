// Expected values, copied from tests/data/golden_v1.txt (stream v1, frozen):
//   op=fill dist=normal dtype=f32 seed=0x0 subseq=0x0 offset=0x0 start=0 count=9 mean=0x0p+0 std=0x1p+0
//   op=fill dist=normal dtype=f32 seed=0x2a subseq=0x0 offset=0x3 start=0 count=7 mean=0x0p+0 std=0x1p+0
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace consumer {

inline constexpr uint32_t kNormalSeed0[9] = {0x3f7dbb33, 0xbf6cb6b0, 0xbf1e1b9f, 0xbef6d1b2, 0xbe1d5357,
                                             0x3e392a6d, 0x3f54ec98, 0x3e4a2da3, 0xbf97da93};
inline constexpr uint32_t kNormalSeed42Offset3[7] = {0x3fbb3cd4, 0xbde7a24b, 0xbfbea339, 0xbe05987d,
                                                     0x3f138cfc, 0xbf8edd06, 0xbf3afb34};

// Compares n floats with their expected bit patterns; prints the first difference.
inline bool same_bits(const char* what, const float* got, const uint32_t* want, int n) {
  for (int i = 0; i < n; ++i) {
    uint32_t b;
    std::memcpy(&b, &got[i], 4);
    if (b != want[i]) {
      std::fprintf(stderr, "%s: element %d is %08x (%.9g), expected %08x\n", what, i, b, got[i], want[i]);
      return false;
    }
  }
  return true;
}

}  // namespace consumer
