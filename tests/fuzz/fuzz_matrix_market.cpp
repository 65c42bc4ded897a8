// libFuzzer harness: bytes -> mimd::read_matrix_market<double> (plain, gzip or tar.gz,
// recognised by content) and the format-sniffing mimd::read_matrix<float>.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_support.hpp"
#include "mimd/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& scratch = mimd::fuzz::setup();
  const std::string path = scratch.file("input.mtx");
  mimd::fuzz::write_bytes(path, data, size);
  mimd::ReadOptions opt;
  opt.progress = false;
  mimd::fuzz::expect_typed(
      [&] { mimd::validate(mimd::read_matrix_market<double>(path, opt), true); });
  mimd::fuzz::expect_typed([&] { mimd::validate(mimd::read_matrix<float>(path, opt), true); });
  return 0;
}
