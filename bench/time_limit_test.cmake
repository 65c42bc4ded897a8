cmake_minimum_required(VERSION 3.16)
# A measurement past --time-limit ends, is recorded as skipped with the reason, and the
# run goes on and exits 0 (skips are not failures). Input: a path of N vertices
# (diameter N - 1), on which pure bottom-up BFS takes O(N^2) work per source. N = 5000:
# one source is still about N^2 / 2 = 12.5 million parent checks over 5000 levels,
# milliseconds on any machine, past the limit of 1 ms; 20000 made the one BFS call that
# runs before the limit is checked 12 s under ThreadSanitizer.
set(n 5000)
set(mtx "%%MatrixMarket matrix coordinate pattern general\n${n} ${n}")
math(EXPR edges "${n} - 1")
string(APPEND mtx " ${edges}\n")
foreach(i RANGE 2 ${n})
  math(EXPR j "${i} - 1")
  string(APPEND mtx "${i} ${j}\n")
endforeach()
file(WRITE ${DIR}/path.mtx "${mtx}")

# --quick: the machine probe's STREAM arrays a quarter the size. Under ThreadSanitizer the
# full probe (3 x 256 MB) made this test 53 s alone and over 120 s beside other tests.
execute_process(COMMAND ${BENCH} ${DIR}/path.mtx --quick --kernels spmm,bfs --algorithms lssm
    --bfs-algorithms bottom_up --baselines omp_loop --k 8 --sources 4 --time-limit 0.001
    --json ${DIR}/time_limit.json
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mimd-bench exited with ${rc} (expected 0: skips are not failures)\n${err}")
endif()
if(CMAKE_VERSION VERSION_LESS 3.19)
  return()  # no JSON parser in this CMake: the exit status is all we check
endif()
file(READ ${DIR}/time_limit.json doc)
string(JSON n LENGTH "${doc}" records)
if(NOT n EQUAL 3)
  message(FATAL_ERROR "expected 3 records (spmm lssm, spmm omp_loop, bfs bottom_up), got ${n}")
endif()
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON impl GET "${doc}" records ${i} impl)
  string(JSON skipped GET "${doc}" records ${i} skipped)
  string(JSON reason GET "${doc}" records ${i} skip_reason)
  string(JSON verified GET "${doc}" records ${i} verified)
  if(NOT skipped OR NOT reason MATCHES "^time limit 0.001 s reached" OR NOT verified)
    message(FATAL_ERROR "record ${i} (${impl}): skipped=${skipped} verified=${verified} "
      "reason='${reason}'")
  endif()
endforeach()
if(NOT out MATCHES "skip time limit")
  message(FATAL_ERROR "the table does not show the skip")
endif()
