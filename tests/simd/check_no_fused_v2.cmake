# Checks the compiled vector code of stream v2: no function of a v2 row
# (fill_kernel<dist, dtype, 2>, run_steps<Kernel<dist, dtype, 2>, ...>, the
# fused kernels FusedNormalV2<dtype>::run) holds a fused multiply-add, with one
# stated exception. Stream v2's arithmetic is binary32 + - * and sqrt, each
# rounded (SPEC.md section 9); a contraction by the compiler would change
# values (-ffp-contract=off forbids it: this proves it on the emitted code).
# Stream v1's binary64 polynomials call math::fma_ on purpose (std::fma),
# so their functions are not checked.
# The exception: the normal's angle (host/simd/kernels.h, sincos_turns_v2)
# takes Dekker's exact product error R * CH - xh as one vfmsub (a value that
# is exact, so rounding it once leaves it unchanged; checked for every R and
# by the exhaustive sweep of the angle). Only the normal's functions
# ((xrng::Dist)2, FusedNormalV2) may hold it, and only as vfmsub*ps (NEON:
# fmls on .4s, negated: vfms32 in isa.h); any
# other fused form there, and any fused instruction in another v2 row
# (log_normal, exponential, cauchy), is reported.
#   cmake -DOBJDUMP=objdump -DOBJS="a.o;b.o" -P check_no_fused_v2.cmake
set(fused "vfmadd|vfmsub|vfnmadd|vfnmsub|fmla|fmls|fmadd|fmsub|fnmadd|fnmsub")
foreach(obj ${OBJS})
  if(NOT obj MATCHES "simd_(avx2|avx512|neon)")
    continue()
  endif()
  execute_process(COMMAND ${OBJDUMP} -d -C --no-show-raw-insn ${obj} OUTPUT_FILE ${obj}.dis RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "objdump failed on ${obj}")
  endif()
  # function headers and fused instructions only
  file(STRINGS ${obj}.dis lines REGEX "^[0-9a-f]+ <|\t(${fused})[a-z0-9.]*[ \t]")
  file(REMOVE ${obj}.dis)
  set(fn "")
  set(v2_functions 0)
  set(bad 0)
  set(exact 0)
  foreach(line ${lines})
    if(line MATCHES "^[0-9a-f]+ <(.*)>:$")
      set(fn "${CMAKE_MATCH_1}")
      if(fn MATCHES "\\(xrng::DType\\)[0-9]+, 2>" OR fn MATCHES "FusedNormalV2<")
        math(EXPR v2_functions "${v2_functions} + 1")
      endif()
    elseif(fn MATCHES "\\(xrng::DType\\)[0-9]+, 2>" OR fn MATCHES "FusedNormalV2<")
      if((fn MATCHES "\\(xrng::Dist\\)2, \\(xrng::DType\\)[0-9]+, 2>" OR fn MATCHES "FusedNormalV2<")
         AND line MATCHES "\t(vfmsub(132|213|231)ps[ \t]|fmls[ \t]+v[0-9]+\\.4s)")
        math(EXPR exact "${exact} + 1")
      else()
        math(EXPR bad "${bad} + 1")
        message(SEND_ERROR "${obj}: fused multiply-add in a stream v2 function: ${line}\n  in ${fn}")
      endif()
    endif()
  endforeach()
  if(v2_functions EQUAL 0)
    message(SEND_ERROR "${obj}: no stream v2 kernel function found (the check would prove nothing)")
  endif()
  message(STATUS "${obj}: ${v2_functions} stream v2 kernel functions, ${bad} fused multiply-adds in them "
                 "(besides ${exact} vfmsub / fmls of the normal's exact product error)")
endforeach()
