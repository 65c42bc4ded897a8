cmake_minimum_required(VERSION 3.16)
# Found by trying mimd-bench as a new user would: `--kernels foo` ran nothing and exited
# 0; `--k -1` ended in a std::vector size error; parse errors exited 104/105 instead
# of the documented 2; `--k 0 file.mtx` swallowed the file name.
file(WRITE ${DIR}/cli_input.mtx "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.0\n")

function(expect_usage_error)
  execute_process(COMMAND ${BENCH} ${ARGN} --list
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "mimd-bench ${ARGN}: exit ${rc}, expected 2\n${out}${err}")
  endif()
  if(err MATCHES "vector|terminate|what\\(\\)")
    message(FATAL_ERROR "mimd-bench ${ARGN}: not a clean usage error\n${err}")
  endif()
endfunction()

expect_usage_error(--kernels foo)
expect_usage_error(--k -1)
expect_usage_error(--k 0)
expect_usage_error(--k 0 ${DIR}/cli_input.mtx)
expect_usage_error(--no-such-option)

# One value (or a comma list) per option: the file after it is an input.
execute_process(COMMAND ${BENCH} --k 8 ${DIR}/cli_input.mtx --kernels spmm --list
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "cli_input")
  message(FATAL_ERROR "mimd-bench --k 8 cli_input.mtx --list: exit ${rc}, the input is not "
    "listed\n${out}${err}")
endif()
