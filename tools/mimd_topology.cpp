// mimd-topology: prints the machine as the execution layer sees it (topology, SIMD,
// thread binding, tuning profile), as text or as JSON.
#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "mimd/context.hpp"
#include "mimd/error.hpp"
#ifdef MIMD_HAVE_MPI
#include "mimd/dist/context.hpp"
#endif

namespace {

// --ranks: under mpirun, one line per rank (its share of the cores, the binding).
int print_rank_layout(int threads) {
#ifdef MIMD_HAVE_MPI
  MPI_Init(nullptr, nullptr);
  const int status = mimd::dist::run_or_abort(MPI_COMM_WORLD, [&] {
    mimd::dist::DistOptions options;
    options.threads_per_rank = threads;
    const mimd::dist::Context ctx(MPI_COMM_WORLD, options);
    for (const auto& line : ctx.layout_summaries()) std::cout << line << "\n";
    return 0;
  });
  MPI_Finalize();
  return status;
#else
  (void)threads;
  std::cerr << "mimd-topology: --ranks: this build has no MPI (CMake option MIMD_MPI)\n";
  return 2;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Print the machine as mimd-kernels sees it"};
  bool json = false;
  int threads = 0;
  std::string bind = "cores";
  std::string profile;
  app.add_flag("--json", json, "Print JSON instead of text");
  app.add_option("-t,--threads", threads, "Worker threads (0: one per core)");
  app.add_option("--bind", bind, "Binding: cores, pus or none")
      ->check(CLI::IsMember({"cores", "pus", "none"}));
  app.add_option("--profile", profile, "JSON file overriding the tuning profile");
  bool ranks = false;
  app.add_flag("--ranks", ranks,
               "Under mpirun: the rank layout, one line per rank (threads per rank: --threads)");
  CLI11_PARSE(app, argc, argv);
  if (ranks) return print_rank_layout(threads);

  try {
    mimd::ContextOptions opts;
    opts.num_threads = threads;
    opts.bind = bind == "pus"    ? mimd::BindPolicy::PUs
                : bind == "none" ? mimd::BindPolicy::None
                                 : mimd::BindPolicy::Cores;
    opts.profile_path = profile;
    mimd::ExecutionContext ctx(opts);
    if (json) {
      nlohmann::ordered_json j;
      j["topology"] = nlohmann::ordered_json::parse(ctx.topology().to_json());
      j["backend"] = ctx.backend();
      j["kokkos_version"] = ctx.kokkos_version();
      j["threads"] = ctx.num_threads();
      j["binding"] = nlohmann::json::array();
      for (const auto& b : ctx.bindings())
        j["binding"].push_back({{"thread", b.thread},
                                {"core", b.bound_core},
                                {"cpuset", b.cpuset},
                                {"observed_pu", b.observed_pu},
                                {"verified", b.verified}});
      j["tuning"] = nlohmann::ordered_json::parse(ctx.tuning().to_json());
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << ctx.topology().to_text();
      std::cout << "Kokkos:     " << ctx.kokkos_version() << ", backend " << ctx.backend() << "\n";
      std::cout << "Binding:    " << ctx.binding_summary() << "\n";
      std::cout << "Tuning:     " << ctx.tuning().name << "\n";
    }
  } catch (const mimd::Error& e) {
    std::cerr << "mimd-topology: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
