// mimd-bench: SpMM and BFS of mimd-kernels against Kokkos Kernels, SuiteSparse:GraphBLAS
// and a plain OpenMP loop, on real datasets and generated workloads.
//
//   mimd-bench                      the default suite (a few minutes on 2 cores)
//   mimd-bench --quick              a sub-minute version
//   mimd-bench bcsstk33 kron:20     chosen inputs: dataset names, files, generator specs
//   mimd-bench --json out.json      also write every measurement, the context, the registry
//
// The driver reads as its parts (driver.hpp): command line -> suite -> machine context
// -> run -> report.
//
// Exit status: 0 when every measurement verified (measurements skipped for memory or
// the time limit count as verified: their records say why), 1 when one failed
// verification or an explicitly named input could not be loaded, 2 for usage errors
// (unknown option, implementation or value), 3 for other errors.
#include <omp.h>

#include <cstdio>

#include "driver.hpp"

namespace mb = mimd::bench;

int main(int argc, char** argv) {
  mb::Config config;
  if (const int rc = mb::parse_command_line(argc, argv, config); rc >= 0) return rc;
  if (config.distributed) return mb::run_distributed(config);
  try {
    mimd::ContextOptions copt;
    copt.num_threads = config.threads;
    copt.profile_path = config.profile;
    const mimd::ExecutionContext ctx(copt);
    omp_set_num_threads(ctx.num_threads());

    mb::RunOptions options = mb::make_run_options(config, ctx.num_threads());
    const std::vector<mb::Input> suite = mb::make_suite(config);
    if (config.list_only) {
      mb::print_suite(suite);
      return 0;
    }
    const nlohmann::json context = mb::probe_machine(config, ctx, options);
    const mb::RunResult run = mb::run_suite(ctx, suite, options, !config.inputs.empty());
    const int status = mb::report(config, context, run, options);
    mb::release_machine();
    return status;
  } catch (const mimd::InvalidArgument& e) {
    std::fprintf(stderr, "mimd-bench: %s\n", e.what());
    return mb::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mimd-bench: error: %s\n", e.what());
    return 3;
  }
}
