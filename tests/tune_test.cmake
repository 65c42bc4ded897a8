# Runs mimd-tune --budget 5 into OUT, then loads OUT through mimd-topology --profile:
# the tuner must finish, and the context must take the profile without a warning.
file(REMOVE ${OUT})
execute_process(COMMAND ${TUNE} --budget 5 --out ${OUT} RESULT_VARIABLE rc OUTPUT_QUIET
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS ${OUT})
  message(FATAL_ERROR "mimd-tune --budget 5 failed (${rc}): ${err}")
endif()
execute_process(COMMAND ${TOPOLOGY} --json --profile ${OUT} RESULT_VARIABLE rc
                OUTPUT_VARIABLE json ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR err MATCHES "warning")
  message(FATAL_ERROR "the tuned profile was not taken (${rc}): ${err}")
endif()
string(JSON name GET "${json}" tuning name)
if(NOT name MATCHES "^tuned-")
  message(FATAL_ERROR "mimd-topology shows profile '${name}', not the tuned one")
endif()
