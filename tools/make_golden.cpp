// Writes the golden vectors of stream v1 (tests/data/golden_v1.txt) from the
// scalar reference. The requests live in golden/cases.h and the format in
// golden/format.h (library xrng_golden), shared with tests/test_golden.cpp,
// which checks that this program's output is the committed file.
//
// Usage: xrng_make_golden [output path]   (default: standard output)
#include <cstdio>
#include <fstream>
#include <iostream>

#include "golden/cases.h"

int main(int argc, char** argv) {
  try {
    const std::string text = xrng::golden::golden_file_text();
    if (argc < 2) {
      std::cout << text;
      return 0;
    }
    std::ofstream f(argv[1], std::ios::binary);
    f << text;
    f.close();
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
