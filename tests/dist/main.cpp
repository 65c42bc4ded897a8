// Driver of the MPI tests: MPI, then one distributed context (and so one Kokkos runtime)
// for the process; the exit status is non-zero on every rank when a test failed on any.
#include <gtest/gtest.h>

#include "../support/sanitizers.hpp"
#include "dist_testing.hpp"

namespace mimd::dist::testing {

namespace {
const Context* the_context = nullptr;
}

const Context& context() {
  return *the_context;
}

}  // namespace mimd::dist::testing

#if MIMD_TEST_ASAN
// OpenMPI and its plugins are built without frame pointers, so ASan's fast unwinder ends
// a stack in the first OpenMPI frame; the leak suppressions for OpenMPI's own allocations
// (tests/sanitizers/lsan.supp) need the whole stack, down to MPI_Init or MPI_Finalize.
extern "C" const char* __asan_default_options() {
  return "fast_unwind_on_malloc=0";
}
#endif

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {  // one rank prints the test list; failures still print on every rank
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int status = mimd::dist::run_or_abort(MPI_COMM_WORLD, [] {
    // Destroyed before MPI_Finalize, as its communicator duplicate must be.
    const mimd::dist::Context ctx(MPI_COMM_WORLD);
    mimd::dist::testing::the_context = &ctx;
    int failed = RUN_ALL_TESTS() != 0, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    mimd::dist::testing::the_context = nullptr;
    return any;
  });
  MPI_Finalize();
  return status;
}
