cmake_minimum_required(VERSION 3.16)
# Found by trying mimd-bench: NaN or Inf in a matrix made every implementation fail
# verification (NaN != NaN), a false alarm. Rows holding NaN, +Inf, and +Inf with -Inf
# (NaN in every order of summation) must verify.
file(WRITE ${DIR}/nan_inf.mtx "%%MatrixMarket matrix coordinate real general\n4 4 6\n"
  "1 1 nan\n1 2 1.0\n2 2 inf\n3 1 inf\n3 3 -inf\n4 4 2.0\n")
# --quick: the machine probe's STREAM arrays a quarter the size. Under ThreadSanitizer the
# full probe made this test 38 s alone and over 120 s beside other tests; with --quick 8 s.
execute_process(COMMAND ${BENCH} ${DIR}/nan_inf.mtx --quick --kernels spmm --k 1,8 --min-time 0.001
    --min-reps 1 --rounds 1 --json ${DIR}/nan_inf.json
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mimd-bench on NaN/Inf exited with ${rc} (expected 0)\n${out}${err}")
endif()
