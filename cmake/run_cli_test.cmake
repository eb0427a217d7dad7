# Runs the CLI once and checks both its exit status and its output (stdout and stderr together).
# -DCLI=path -DARGS=a;b;c -DEXPECT_RC=0|nonzero -DMATCH=regex
execute_process(COMMAND "${CLI}" ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
if(EXPECT_RC STREQUAL "nonzero")
  if(rc EQUAL 0)
    message(FATAL_ERROR "expected a non-zero exit status, got 0; output:\n${all}")
  endif()
elseif(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "expected exit status ${EXPECT_RC}, got ${rc}; output:\n${all}")
endif()
if(DEFINED MATCH AND NOT all MATCHES "${MATCH}")
  message(FATAL_ERROR "output does not match '${MATCH}':\n${all}")
endif()
