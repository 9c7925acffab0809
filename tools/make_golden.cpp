// Writes the golden vectors of a stream version (tests/data/golden_v1.txt,
// tests/data/golden_v2.txt) from the scalar reference. The requests live in
// golden/cases.h and the format in golden/format.h (library xrng_golden),
// shared with tests/test_golden.cpp, which checks that this program's output
// is the committed file of every version.
//
// Usage: xrng_make_golden [--stream 1|2 | --blocks] [output path]
//   --stream  the stream version (default 1: the frozen v1 file)
//   --blocks  the golden block draws of both streams (tests/data/golden_blocks.txt,
//             golden/blocks.h)
//   output    default: standard output
// golden_v2.txt is regenerated, with its SHA-256 pin, by one command:
//   cmake --build build --target golden_v2      (CMakeLists.txt, SPEC.md section 7)
// and golden_blocks.txt by
//   cmake --build build --target golden_blocks
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "golden/blocks.h"
#include "golden/cases.h"

int main(int argc, char** argv) {
  try {
    int version = 1;
    bool blocks = false;
    const char* path = nullptr;
    for (int i = 1; i < argc; ++i) {
      if (std::strcmp(argv[i], "--stream") == 0) {
        if (i + 1 >= argc) throw xrng::Error("--stream needs a value (1 or 2)");
        const std::string v = argv[++i];
        if (v.size() != 1 || v[0] < '1' || v[0] > '0' + xrng::kStreamVersion)
          throw xrng::Error("--stream: stream version '" + v + "' does not exist (1.." +
                            std::to_string(xrng::kStreamVersion) + ")");
        version = v[0] - '0';
      } else if (std::strcmp(argv[i], "--blocks") == 0) {
        blocks = true;
      } else if (path == nullptr && argv[i][0] != '-') {
        path = argv[i];
      } else {
        throw xrng::Error(std::string("unexpected argument '") + argv[i] +
                          "' (usage: xrng_make_golden [--stream 1|2 | --blocks] [output path])");
      }
    }
    const std::string text = blocks ? xrng::golden::block_golden_text() : xrng::golden::golden_file_text(version);
    if (path == nullptr) {
      std::cout << text;
      return 0;
    }
    std::ofstream f(path, std::ios::binary);
    f << text;
    f.close();
    if (!f) {
      std::fprintf(stderr, "xrng_make_golden: cannot write %s\n", path);
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xrng_make_golden: %s\n", e.what());
    return 1;
  }
}
