// Writes the golden vectors of stream v1 (tests/data/golden_v1.txt) from the
// scalar reference. The requests and the format live in tests/golden_cases.h
// and tests/golden.h, shared with the test that checks this program's output
// against the committed file.
//
// Usage: xrng_make_golden [output path]   (default: standard output)
#include <cstdio>
#include <fstream>
#include <iostream>

#include "tests/golden_cases.h"

int main(int argc, char** argv) {
  try {
    const std::string text = xrng_test::golden_file_text();
    if (argc < 2) {
      std::cout << text;
      return 0;
    }
    std::ofstream f(argv[1], std::ios::binary);
    f << text;
    if (!f) {
      std::fprintf(stderr, "xrng_make_golden: cannot write %s\n", argv[1]);
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xrng_make_golden: %s\n", e.what());
    return 1;
  }
}
