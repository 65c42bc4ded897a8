// Uses the installed C++ interface: a context (Kokkos, topology, binding) and a generator.
#include <cstdio>

#include "mimd/context.hpp"
#include "mimd/generators.hpp"
#include "mimd/topology.hpp"

int main() {
  const mimd::Topology topo = mimd::discover_topology();
  mimd::ExecutionContext ctx;
  const auto a = mimd::stencil_2d(8, 5);
  std::printf("consumer: %d cores, %d threads, %s backend, stencil nnz %ld\n", topo.cores,
              ctx.num_threads(), ctx.backend().c_str(), static_cast<long>(a.nnz()));
  return topo.cores > 0 && a.nnz() == 8 * 8 * 5 - 4 * 8 ? 0 : 1;
}
