# Installs the build tree MIMD_BUILD_DIR into WORK_DIR/prefix, then configures, builds
# and runs the consumer project (CONSUMER_SOURCE_DIR) against that prefix.
# Run with: cmake -DMIMD_BUILD_DIR=... -DCONSUMER_SOURCE_DIR=... -DWORK_DIR=...
#                 -DKokkos_DIR=... [-DMPIEXEC="mpirun;--flag;..."] -P check_install.cmake
# With MPIEXEC (a build with MPI) the package's component `dist` is required too, and
# consumer_dist runs on 2 ranks.
foreach(var MIMD_BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR Kokkos_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_install.cmake: ${var} is not set")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(build ${WORK_DIR}/consumer-build)
file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${MIMD_BUILD_DIR} --prefix ${prefix} --component mimd_development)
run(${CMAKE_COMMAND} --install ${MIMD_BUILD_DIR} --prefix ${prefix} --component mimd_runtime)
set(compilers)
foreach(lang C CXX)
  if(DEFINED CMAKE_${lang}_COMPILER)
    list(APPEND compilers -DCMAKE_${lang}_COMPILER=${CMAKE_${lang}_COMPILER})
  endif()
endforeach()
# A sanitized library needs its runtime in the program too (SANITIZE_FLAGS: the build's
# MIMD_SANITIZE_FLAGS, a list).
if(SANITIZE_FLAGS)
  string(REPLACE ";" " " flags "${SANITIZE_FLAGS}")
  list(APPEND compilers -DCMAKE_C_FLAGS=${flags} -DCMAKE_CXX_FLAGS=${flags}
    -DCMAKE_EXE_LINKER_FLAGS=${flags})
endif()
# As a user would: <Package>_ROOT prefixes (Kokkos_DIR is <prefix>/lib*/cmake/Kokkos).
set(dist OFF)
if(MPIEXEC)
  set(dist ON)
endif()
get_filename_component(kokkos_root "${Kokkos_DIR}/../../.." ABSOLUTE)
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${build} -DCMAKE_BUILD_TYPE=Release
    -DMimdKernels_ROOT=${prefix} -DKokkos_ROOT=${kokkos_root} ${compilers}
    -DCONSUMER_DIST=${dist})
run(${CMAKE_COMMAND} --build ${build})
run(${build}/consumer)
run(${build}/consumer_c)
if(dist)
  # Under ASan, OpenMPI's own leaks are suppressed by tests/sanitizers/lsan.supp, whose
  # entries need whole stacks: OpenMPI has no frame pointers, so the slow unwinder (as
  # tests/dist/main.cpp asks for in the MPI tests).
  if(SANITIZE_FLAGS MATCHES "address")
    set(ENV{ASAN_OPTIONS} "$ENV{ASAN_OPTIONS}:fast_unwind_on_malloc=0")
  endif()
  run(${MPIEXEC} -np 2 ${build}/consumer_dist)
endif()
