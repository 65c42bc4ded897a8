// Shared by the MPI tests: the process' distributed context.
#pragma once

#include "mimd/dist/context.hpp"

namespace mimd::dist::testing {

/// The context over MPI_COMM_WORLD, one for the whole run (made by main, freed before
/// MPI_Finalize).
const Context& context();

}  // namespace mimd::dist::testing
