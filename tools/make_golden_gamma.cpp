// Writes tests/data/golden_v2_gamma.txt (gamma family known
// answers, golden/gamma.h) from the host reference.
// Usage: xrng_make_golden_gamma [output path]   (default: standard output)
//   cmake --build build --target golden_gamma   regenerates the committed file
#include <cstdio>
#include <fstream>
#include <iostream>

#include "golden/gamma.h"

int main(int argc, char** argv) {
  try {
    const std::string text = xrng::golden::gamma_golden_text();
    if (argc < 2) {
      std::cout << text;
      return 0;
    }
    std::ofstream f(argv[1], std::ios::binary);
    f << text;
    f.close();
    if (!f) {
      std::fprintf(stderr, "xrng_make_golden_gamma: cannot write %s\n", argv[1]);
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xrng_make_golden_gamma: %s\n", e.what());
    return 1;
  }
}
