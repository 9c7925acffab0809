# Enables CUDA with xrng's defaults. Included by the top-level CMakeLists.txt
# before device/, tests/gpu and bench/gpu are added (a language must be
# enabled in the highest directory common to all the targets that use it),
# and by device/CMakeLists.txt for a project that adds device/ alone
# (bindings/CMakeLists.txt).

# sm_80 and sm_90 machine code plus sm_90 PTX, unless the user chose
# (e.g. -DCMAKE_CUDA_ARCHITECTURES=native on a GPU machine).
set(CMAKE_CUDA_ARCHITECTURES "80-real;90-real;90-virtual" CACHE STRING "CUDA architectures to build for")
enable_language(CUDA)
# CMake before 3.26 does not know nvcc's C++20 option (nvcc has it since 12.0).
if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()
find_package(CUDAToolkit REQUIRED)
