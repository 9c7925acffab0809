# The Python build's questions to torch, asked before the top-level CUDA
# section (included from ../CMakeLists.txt when XRNG_PYTHON=ON).
#
# The extension is compiled against the torch of the Python that runs the
# build, so that Python is asked, once (importing torch takes seconds), for
# its include and library directories, its C++ ABI, pybind11, and whether it
# has CUDA and sees a GPU. Its answer decides whether the top-level CUDA
# section runs at all:
#   XRNG_TORCH_CUDA=AUTO  (default) CUDA kernels only when torch has CUDA AND
#                         sees a GPU now, at build time (a CPU-only machine
#                         builds no kernels it could never run; CUDA tensors
#                         then take the host-then-transfer path);
#   XRNG_TORCH_CUDA=ON    CUDA kernels whenever torch has CUDA (e.g. building
#                         on a CPU machine for a GPU one); an error without
#                         CUDA torch or without nvcc;
#   XRNG_TORCH_CUDA=OFF   never.
# The CUDA compiler itself is found by the top-level section, as for the C++
# build (XRNG_CUDA); nothing here looks for nvcc.

set(XRNG_TORCH_CUDA AUTO CACHE STRING
    "Python build: CUDA kernels in the torch bindings: AUTO (torch has CUDA and sees a GPU at build time), ON, OFF")
set_property(CACHE XRNG_TORCH_CUDA PROPERTY STRINGS AUTO ON OFF)

find_package(Python COMPONENTS Interpreter Development.Module REQUIRED)
execute_process(
  COMMAND "${Python_EXECUTABLE}" -c [=[
import pybind11, torch, torch.utils.cpp_extension as c
print("XRNG_PYBIND11_DIR=" + pybind11.get_cmake_dir())
print("XRNG_TORCH_HAS_CUDA=%d" % (torch.version.cuda is not None))
print("XRNG_TORCH_SEES_GPU=%d" % torch.cuda.is_available())
print("XRNG_TORCH_INCLUDES=" + ";".join(c.include_paths()))
print("XRNG_TORCH_LIBDIR=" + c.library_paths()[0])
print("XRNG_TORCH_ABI=%d" % torch._C._GLIBCXX_USE_CXX11_ABI)
]=]
  OUTPUT_VARIABLE XRNG_QUERY ERROR_VARIABLE XRNG_QUERY_ERR RESULT_VARIABLE XRNG_QUERY_RC
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT XRNG_QUERY_RC EQUAL 0)
  message(FATAL_ERROR "xrng builds against the torch of the Python that runs the build, and ${Python_EXECUTABLE} "
          "cannot import torch and pybind11:\n${XRNG_QUERY_ERR}\nInstall with `pip install --no-build-isolation .` "
          "(an isolated build environment has no torch).")
endif()
foreach(key XRNG_PYBIND11_DIR XRNG_TORCH_HAS_CUDA XRNG_TORCH_SEES_GPU XRNG_TORCH_INCLUDES XRNG_TORCH_LIBDIR XRNG_TORCH_ABI)
  string(REGEX MATCH "${key}=([^\n]*)" unused "${XRNG_QUERY}")
  set(${key} "${CMAKE_MATCH_1}")
endforeach()

# XRNG_CUDA (the top-level switch) is narrowed for this configure only; it
# keeps its own meaning (AUTO: when nvcc is found) where torch allows CUDA.
if(XRNG_TORCH_CUDA STREQUAL "OFF")
  set(XRNG_CUDA OFF)
elseif(XRNG_TORCH_CUDA STREQUAL "ON")
  if(NOT XRNG_TORCH_HAS_CUDA)
    message(FATAL_ERROR "XRNG_TORCH_CUDA=ON but the torch of ${Python_EXECUTABLE} has no CUDA")
  endif()
  set(XRNG_CUDA ON)
elseif(XRNG_TORCH_CUDA STREQUAL "AUTO")
  if(NOT (XRNG_TORCH_HAS_CUDA AND XRNG_TORCH_SEES_GPU))
    set(XRNG_CUDA OFF)
  endif()
else()
  message(FATAL_ERROR "XRNG_TORCH_CUDA must be AUTO, ON or OFF (got '${XRNG_TORCH_CUDA}')")
endif()
message(STATUS "xrng Python build: torch in ${XRNG_TORCH_LIBDIR} (CUDA ${XRNG_TORCH_HAS_CUDA}, sees a GPU "
               "${XRNG_TORCH_SEES_GPU}); XRNG_TORCH_CUDA=${XRNG_TORCH_CUDA} -> XRNG_CUDA=${XRNG_CUDA}")
