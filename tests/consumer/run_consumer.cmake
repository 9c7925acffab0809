# ctest `consumer`: the installed package works for a C++ user.
#   1. cmake --install the xrng build into WORK_DIR/prefix;
#   2. configure tests/consumer against that prefix only (find_package(xrng
#      CONFIG REQUIRED), no package registry, no source tree on any path);
#   3. build it and run both programs (xrng::host and xrng::core), and the
#      installed `xrng` binary.
# Usage: cmake -DBUILD_DIR=... -DCONSUMER_DIR=... -DWORK_DIR=... -DGENERATOR=...
#              -DCXX=... [-DCONFIG=...] [-DFLAGS=<compile and link flags>]
#              [-DTOOLCHAIN=<toolchain file> -DEMULATOR=<runner, '|'-separated>] -P run_consumer.cmake
# A cross build (cmake/toolchain-aarch64-linux-gnu.cmake) passes its toolchain
# file and emulator: the consumer is configured with the same toolchain and
# its programs run under the emulator (qemu-aarch64).
foreach(v BUILD_DIR CONSUMER_DIR WORK_DIR GENERATOR CXX)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_consumer.cmake: -D${v}= is required")
  endif()
endforeach()
if(NOT CONFIG)
  set(CONFIG Release)
endif()

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer: ${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "consumer: ${what}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
step("install into ${prefix}" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --config ${CONFIG})
file(GLOB_RECURSE config_file ${prefix}/*/xrngConfig.cmake)
if(NOT config_file)
  message(FATAL_ERROR "consumer: the install has no xrngConfig.cmake")
endif()

set(cross "")
set(run "")
if(TOOLCHAIN)
  # the toolchain's find root would re-root the prefix: search it as it is too
  set(cross -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN} -DCMAKE_FIND_ROOT_PATH_MODE_PACKAGE=BOTH)
endif()
if(EMULATOR)
  string(REPLACE "|" ";" run "${EMULATOR}")
endif()
step("configure" ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/build -G ${GENERATOR} ${cross}
     -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=${CONFIG} -DCMAKE_PREFIX_PATH=${prefix}
     "-DCMAKE_CXX_FLAGS=${FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${FLAGS}"
     -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
# The package found must be the one just installed.
file(STRINGS ${WORK_DIR}/build/CMakeCache.txt found REGEX "^xrng_DIR:")
string(FIND "${found}" "${prefix}/" at)
if(NOT at GREATER -1)
  message(FATAL_ERROR "consumer: found xrng elsewhere than ${prefix}: ${found}")
endif()
step("build" ${CMAKE_COMMAND} --build ${WORK_DIR}/build --config ${CONFIG})

find_program(consumer_exe consumer PATHS ${WORK_DIR}/build ${WORK_DIR}/build/${CONFIG} NO_DEFAULT_PATH REQUIRED)
find_program(consumer_core_exe consumer_core PATHS ${WORK_DIR}/build ${WORK_DIR}/build/${CONFIG} NO_DEFAULT_PATH
             REQUIRED)
step("run consumer (xrng::host)" ${run} ${consumer_exe})
message(STATUS "  ${step_output}")
step("run consumer_core (xrng::core)" ${run} ${consumer_core_exe})
message(STATUS "  ${step_output}")
# The installed CLI: the first normals of seed 0 in stream 1 are golden_v1.txt's.
step("run the installed xrng" ${run} ${prefix}/bin/xrng gen --dist normal --stream 1 --seed 0 --count 2 --format hex)
if(NOT step_output STREQUAL "3f7dbb33\nbf6cb6b0\n")
  message(FATAL_ERROR "consumer: installed xrng printed '${step_output}'")
endif()
