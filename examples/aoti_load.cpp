// Loads an AOTInductor package (.pt2) that calls xrng's operators and runs it
// from C++, without Python.
//
// What the program needs (README, "Compile, CUDA graphs and export"): the
// compiled package calls xrng::take_ / draw / dropout ... through torch's
// dispatcher (AOTInductor's proxy executor looks operators up by name), so
// the xrng operators must be registered in the process before the package
// runs. Here the LibTorch API's static library xrng_torch is linked whole
// (WHOLE_ARCHIVE in bindings/CMakeLists.txt): its TORCH_LIBRARY(xrng, ...)
// registration runs at start-up even though this program calls no xrng
// function itself. A program that does call xrng_torch functions gets the
// registration without the whole-archive link.
//
//   aoti_load_example <package.pt2> <calls> <rows> <cols>
//
// Input: arange(rows * cols) as float32 of shape (rows, cols), passed to the
// model `calls` times; prints one line per call: the first output's values
// as the hex bit patterns of their float32 words, row-major.
// tests/python/test_export.py compares them with the eager module's.
//
// Built with the Python package (target xrng_aoti_example in bindings/CMakeLists.txt).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s <package.pt2> <calls> <rows> <cols>\n", argv[0]);
    return 2;
  }
  try {
    torch::inductor::AOTIModelPackageLoader loader(argv[1]);
    const int calls = std::atoi(argv[2]);
    const int64_t rows = std::atoll(argv[3]), cols = std::atoll(argv[4]);
    const at::Tensor x = at::arange(rows * cols, at::kFloat).reshape({rows, cols});
    for (int c = 0; c < calls; ++c) {
      const std::vector<at::Tensor> out = loader.run({x});
      const at::Tensor y = out.at(0).to(at::kCPU).to(at::kFloat).contiguous();
      const float* v = y.data_ptr<float>();
      for (int64_t i = 0; i < y.numel(); ++i) {
        uint32_t bits;
        std::memcpy(&bits, &v[i], sizeof bits);
        std::printf(i ? " %08x" : "%08x", bits);
      }
      std::printf("\n");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aoti_load_example: %s\n", e.what());
    return 1;
  }
  return 0;
}
