# cmake -DGOLDEN=<golden file> -DPIN=<test source> -DNAME=<constant> -P pin_golden.cmake
# Writes the SHA-256 of GOLDEN into the line of PIN that defines the string
# constant NAME (`NAME = "<64 hex digits>"`), and says so. Used by the
# golden_v2 target (CMakeLists.txt): the file and its pin change together.
foreach(_var GOLDEN PIN NAME)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "pin_golden.cmake: -D${_var}= is required")
  endif()
endforeach()
file(SHA256 ${GOLDEN} _sha)
file(READ ${PIN} _src)
string(REGEX MATCH "${NAME} = \"[0-9a-f]*\"" _old "${_src}")
if(NOT _old)
  message(FATAL_ERROR "pin_golden.cmake: no `${NAME} = \"...\"` in ${PIN}")
endif()
string(REPLACE "${_old}" "${NAME} = \"${_sha}\"" _src "${_src}")
file(WRITE ${PIN} "${_src}")
message(STATUS "${GOLDEN}: SHA-256 ${_sha} (pinned as ${NAME} in ${PIN})")
