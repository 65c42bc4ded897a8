// The command line of mimd-bench.
#include <CLI/CLI.hpp>

#include "driver.hpp"

namespace mimd::bench {

int parse_command_line(int argc, char** argv, Config& config) {
  CLI::App app{
      "mimd-bench: SpMM and BFS of mimd-kernels against Kokkos Kernels, "
      "SuiteSparse:GraphBLAS and a plain OpenMP loop"};
  Config& c = config;
  app.add_option("inputs", c.inputs,
                 "dataset names (looked up in the dataset search path), files, or generator "
                 "specs (kron:20, urand:20, stencil3d:100, powerlaw:1000000:16, ...); "
                 "none: the default suite");
  app.add_flag("--quick", c.quick, "a sub-minute suite with shorter measurements");
  app.add_flag("--smoke", c.smoke, "a seconds-long run on tiny generated inputs (for tests)");
  app.add_flag("--float", c.with_float, "also run SpMM in single precision");
  app.add_flag("--list", c.list_only, "list the inputs the run would use, and exit");
  app.add_flag("--distributed", c.distributed,
               "run the distributed kernels (launch under mpirun; records carry ranks and "
               "threads_per_rank)");
  app.add_option("--kernels", c.kernels, "kernels to run: spmm, bfs")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::IsMember({"spmm", "bfs"}));
  app.add_option("--k", c.ks, "SpMM k values (default 1,8,32,128; --quick 1,32)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::PositiveNumber);
  app.add_option("--algorithms", c.algorithms,
                 "mimd SpMM algorithms (default: every one except reference)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--bfs-algorithms", c.bfs_algorithms,
                 "mimd BFS algorithms (default: every one except reference)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--baselines", c.baselines, "baselines (default: all in this build)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--threads", c.threads, "worker threads (default: one per core)");
  app.add_option("--profile", c.profile,
                 "tuning profile (JSON, from mimd-tune; default: $MIMD_PROFILE, else this "
                 "device's profile in the user cache folder, else the derived defaults)");
  app.add_option("--sources", c.sources, "BFS sources per graph")->check(CLI::PositiveNumber);
  app.add_option("--seed", c.seed, "seed of the BFS source choice");
  app.add_option("--min-time", c.min_seconds, "timed seconds per round (at least)");
  app.add_option("--min-reps", c.min_reps, "timed repetitions per round (at least)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--rounds", c.rounds, "rounds per measurement (BFS: sweeps over the sources)")
      ->check(CLI::Range(1, 100));
  app.add_option("--time-limit", c.time_limit,
                 "seconds one measurement may take (warm-up and timed calls, checked between "
                 "calls); a measurement past it is recorded as skipped and the run goes on")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--json", c.json_path, "write every record, the context and the registry");
  app.add_option("--csv", c.csv_path, "write every record as CSV");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }
  for (int i = 0; i < argc; ++i) c.command += (i ? " " : "") + std::string(argv[i]);
  return -1;
}

}  // namespace mimd::bench
