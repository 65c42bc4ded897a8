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

/// The process-wide set-up: a temporary folder for the input files, a memory budget the
/// fuzzer's RSS limit can hold (claims over it must end in ParseError TooLarge), a cache
/// folder inside the temporary one (no cache is written elsewhere), Kokkos.
inline const testing::TempDir& setup() {
  static const testing::TempDir scratch;
  static const bool env = [] {
    ::setenv("MIMD_MEMORY_BUDGET", "256M", 1);
    ::setenv("MIMD_CACHE_DIR", scratch.file("cache").c_str(), 1);
    return true;
  }();
  static ExecutionContext ctx{};
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
