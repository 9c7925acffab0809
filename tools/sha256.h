// SHA-256 (FIPS 180-4), incremental. Used by `xrng fingerprint` and `xrng verify`.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace xrng::tools {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t n);
  std::string hex();  // finishes the hash; the object must not be updated afterwards

 private:
  void block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t fill_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace xrng::tools
