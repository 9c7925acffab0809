# Cross-compiling xrng for AArch64 Linux with Debian's toolchain
# (g++-aarch64-linux-gnu; its libraries are in /usr/aarch64-linux-gnu), the
# test programs run under qemu-aarch64 (qemu-user) through
# CMAKE_CROSSCOMPILING_EMULATOR, so ctest works as on an ARM machine.
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-linux-gnu.cmake
# scripts/test_arm64.sh is the CI stage that uses it. The header-only test
# dependencies (doctest, Random123) are not in the AArch64 root: that script
# points XRNG_DOCTEST_INCLUDE / XRNG_RANDOM123_INCLUDE at a directory holding
# only them, so no x86 system header is ever on the include path.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(XRNG_AARCH64_ROOT /usr/aarch64-linux-gnu CACHE PATH "The AArch64 libraries and headers of the cross toolchain")
# GCC by default; Clang with -DCMAKE_CXX_COMPILER=clang++ (it then targets
# AArch64 and uses this toolchain's libraries).
if(NOT CMAKE_CXX_COMPILER)
  set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
  set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
elseif(CMAKE_CXX_COMPILER MATCHES "clang")
  set(CMAKE_CXX_COMPILER_TARGET aarch64-linux-gnu)
endif()
set(CMAKE_FIND_ROOT_PATH ${XRNG_AARCH64_ROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
if(NOT CMAKE_FIND_ROOT_PATH_MODE_PACKAGE)  # tests/consumer sets BOTH to find the prefix it installed
  set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
endif()
find_program(XRNG_QEMU_AARCH64 qemu-aarch64)
if(XRNG_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${XRNG_QEMU_AARCH64} -L ${XRNG_AARCH64_ROOT})
endif()
