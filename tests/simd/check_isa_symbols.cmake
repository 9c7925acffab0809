# Checks that the objects compiled with AVX2 / AVX-512 enabled (and NEON's, by
# the same rule, though NEON is baseline on AArch64) define no
# symbol other than their entry points. A weak (COMDAT) copy of an inline
# function from rng/ compiled there could be picked by the linker for a
# baseline caller and execute AVX instructions on a CPU without them.
#   cmake -DNM=nm -DOBJS="a.o;b.o" -P check_isa_symbols.cmake
foreach(obj ${OBJS})
  if(NOT obj MATCHES "simd_(avx2|avx512|neon)")
    continue()
  endif()
  execute_process(COMMAND ${NM} --defined-only --extern-only ${obj} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nm failed on ${obj}")
  endif()
  string(REPLACE "\n" ";" lines "${out}")
  set(n 0)
  foreach(line ${lines})
    if(line STREQUAL "")
      continue()
    endif()
    # entry points: xrng::detail::{fill,perm,probe,params}_avx2 / _avx512 / _neon
    if(NOT line MATCHES " T _ZN4xrng6detail[0-9]+(fill|perm|probe|params)_(avx2|avx512|neon)E")
      message(SEND_ERROR "${obj}: unexpected exported symbol: ${line}")
    endif()
    math(EXPR n "${n} + 1")
  endforeach()
  if(NOT n EQUAL 4)
    message(SEND_ERROR "${obj}: expected 4 entry points, found ${n}")
  endif()
  message(STATUS "${obj}: ${n} entry points, nothing else exported")
endforeach()
