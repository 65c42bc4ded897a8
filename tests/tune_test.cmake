# Runs mimd-tune --budget 5 into OUT, then loads OUT through mimd-topology --profile:
# the tuner must finish, write every knob it reports fitting, and the context must take
# the profile without a warning. Then
# mimd-tune-report judges OUT on karate (started in the system's temporary folder, so the
# datasets are found through the checkout, not the working directory) and refuses a
# matrix outside the evaluation set.
file(REMOVE ${OUT})
execute_process(COMMAND ${TUNE} --budget 5 --out ${OUT} RESULT_VARIABLE rc OUTPUT_QUIET
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS ${OUT})
  message(FATAL_ERROR "mimd-tune --budget 5 failed (${rc}): ${err}")
endif()
# Every knob the tuner reports fitting is in the profile it wrote: a fit must outlive the
# measurements after it, each of which leaves the context's profile as it found it.
file(READ ${OUT} profile)
string(REGEX MATCHALL "mimd-tune: spmm_[a-z0-9_]+ [0-9]+\n" fits "${err}")
foreach(line IN LISTS fits)
  string(REGEX MATCH "(spmm_[a-z0-9_]+) ([0-9]+)" pair "${line}")
  string(JSON written GET "${profile}" ${CMAKE_MATCH_1})
  if(NOT written EQUAL CMAKE_MATCH_2)
    message(FATAL_ERROR "mimd-tune fitted ${pair} but wrote ${written}")
  endif()
endforeach()
execute_process(COMMAND ${TOPOLOGY} --json --profile ${OUT} RESULT_VARIABLE rc
                OUTPUT_VARIABLE json ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR err MATCHES "warning")
  message(FATAL_ERROR "the tuned profile was not taken (${rc}): ${err}")
endif()
string(JSON name GET "${json}" tuning name)
if(NOT name MATCHES "^tuned-")
  message(FATAL_ERROR "mimd-topology shows profile '${name}', not the tuned one")
endif()
execute_process(COMMAND ${REPORT} --profile ${OUT} --matrices no_such_matrix RESULT_VARIABLE rc
                OUTPUT_QUIET ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "not an evaluation matrix")
  message(FATAL_ERROR "mimd-tune-report took an unknown matrix (${rc}): ${err}")
endif()
if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/../../shared/datasets/MANIFEST.tsv)
  execute_process(COMMAND ${REPORT} --profile ${OUT} --matrices karate --k 1,8 --rounds 2
                          --repeats 1 WORKING_DIRECTORY /tmp RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "karate +8 " OR NOT out MATCHES "auto vs oracle, k = 8"
     OR NOT out MATCHES "over B and C: [0-9]")
    message(FATAL_ERROR "mimd-tune-report on karate failed (${rc}): ${out}${err}")
  endif()
endif()
