// The abort path: the last rank throws while the others wait in a barrier. run_or_abort
// must print the error with the rank and end the job with MPI_Abort (the ctest checks
// the message and, by its timeout, that nothing hangs).
#include <mpi.h>

#include "mimd/dist/context.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int status = mimd::dist::run_or_abort(MPI_COMM_WORLD, [] {
    const mimd::dist::Context ctx(MPI_COMM_WORLD);
    if (ctx.rank() == ctx.size() - 1)
      throw mimd::ParseError("input.mtx", 7, mimd::ParseErrorKind::NotANumber,
                             "the value 'x' is not a real number", "1 2 x");
    MPI_Barrier(ctx.comm());
    return 0;
  });
  MPI_Finalize();
  return status;
}
