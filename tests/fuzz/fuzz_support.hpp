// Shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.cpp) and their replay driver.
//
// A harness hands the fuzzer's bytes to a reader's real entry point, through a file in
// a private temporary folder (the readers take paths). A reader may refuse the input
// only with mimd::ParseError or mimd::IoError; any other exception, a matrix that
// breaks the CSR invariants, a crash, a leak or an allocation over the fuzzer's
// -malloc_limit_mb is a finding (the harness aborts).
#pragma once

#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "mimd/context.hpp"
#include "mimd/error.hpp"
#include "support/temp_dir.hpp"

namespace mimd::fuzz {

/// The process-wide set-up: a temporary folder for the input files, a memory budget
/// (claims over it must end in ParseError TooLarge), a cache folder inside the temporary
/// one (no cache is written elsewhere), one thread, Kokkos. The budget is what the
/// instrumented fuzzing build fills well within libFuzzer's 10 s timeout: a graph of n
/// vertices takes about 0.7 s per million there (0.025 s in Release), and at 256 MiB the
/// 11-byte SNAP line `0 16483647` ran past it (corpus/matrix_market/
/// snap_16m_vertices_timeout.txt). One thread: the three harnesses fuzz side by side on
/// the cores, and oversubscribed OpenMP barriers made a 2-million-vertex graph take 14 s
/// (snap_2m_vertices_timeout_loaded.txt).
inline const testing::TempDir& setup() {
  static const testing::TempDir scratch;
  static const bool env = [] {
    ::setenv("MIMD_MEMORY_BUDGET", "16M", 1);
    ::setenv("OMP_NUM_THREADS", "1", 1);
    ::setenv("MIMD_CACHE_DIR", scratch.file("cache").c_str(), 1);
    return true;
  }();
  static ExecutionContext ctx{[] {
    ContextOptions o;
    o.num_threads = 1;
    return o;
  }()};
  (void)env;
  return scratch;
}

/// Writes data[0, size) to `path` (replacing it); aborts when it cannot.
inline void write_bytes(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || (size > 0 && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0)
    std::abort();
}

/// Runs `read`; returns normally when it succeeds or throws ParseError / IoError,
/// aborts (a finding) on any other exception, naming it.
template <class Read>
void expect_typed(Read read) {
  try {
    read();
  } catch (const ParseError&) {
  } catch (const IoError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "untyped or unexpected error from a reader: %s\n", e.what());
    std::abort();
  }
}

}  // namespace mimd::fuzz
