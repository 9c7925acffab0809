# cmake -DPTX_FILES="a.ptx|b.ptx" -P check_ptx.cmake
#
# The determinism rules allow only correctly rounded floating-point operations
# in the kernels. In PTX that means: no .approx and no .ftz modifier, none of
# the approximate-only instructions (ex2, lg2, sin, cos, tanh, rsqrt, rcp
# without a rounding mode), no div.full, and add / sub / mul always with an
# explicit rounding mode: without one, ptxas may fuse a mul and an add into an
# fma, which rounds once instead of twice (--fmad=false makes nvcc write .rn).
# Explicit fma (fma.rn) is allowed: the core calls fma where it means one.
# Fails, listing the offending lines, if a file breaks a rule or is missing.
if(NOT PTX_FILES)
  message(FATAL_ERROR "check_ptx: no PTX files given")
endif()
string(REPLACE "|" ";" files "${PTX_FILES}")
set(rules
    "\\.approx"
    "\\.ftz"
    "[ \t](ex2|lg2|sin|cos|tanh|rsqrt)\\."
    "[ \t]rcp\\.(f32|f64|approx)"
    "[ \t]div\\.full"
    "[ \t](add|sub|mul)\\.f(16|32|64)[ \t]"
    "[ \t](add|sub|mul)\\.sat\\.f32")
set(bad "")
set(nfp 0)
foreach(f ${files})
  if(NOT EXISTS "${f}")
    message(FATAL_ERROR "check_ptx: ${f} is missing (build the target xrng_cuda_ptx)")
  endif()
  file(STRINGS "${f}" lines)
  foreach(line ${lines})
    if(line MATCHES "[ \t](add|sub|mul|fma|div|sqrt)\\.rn\\.f(32|64)")
      math(EXPR nfp "${nfp} + 1")
    endif()
    foreach(rule ${rules})
      if(line MATCHES "${rule}")
        get_filename_component(name "${f}" NAME)
        string(REGEX REPLACE "[\\;]" "" s "${line}")  # a list element holds no semicolon
        string(STRIP "${s}" s)
        list(APPEND bad "${name}: ${s}   (rule ${rule})")
      endif()
    endforeach()
  endforeach()
endforeach()
if(bad)
  list(LENGTH bad n)
  list(SUBLIST bad 0 20 shown)
  string(REPLACE ";" "\n  " shown "${shown}")
  message(FATAL_ERROR "check_ptx: ${n} floating-point instructions that are not correctly rounded:\n  ${shown}")
endif()
# A check that found no floating-point instruction at all checked nothing.
if(nfp EQUAL 0)
  message(FATAL_ERROR "check_ptx: no correctly rounded floating-point instruction found: not the kernels' PTX?")
endif()
list(LENGTH files nfiles)
message(STATUS "check_ptx: ${nfiles} PTX files, ${nfp} rounded floating-point instructions, none approximate")
