// libFuzzer harness: bytes -> mimd::read_snap, plain and with the symmetrize and
// compact_ids options (two readers' worth of id handling).
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_support.hpp"
#include "mimd/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& scratch = mimd::fuzz::setup();
  const std::string path = scratch.file("input.txt");
  mimd::fuzz::write_bytes(path, data, size);
  for (int variant = 0; variant < 2; ++variant) {
    mimd::ReadOptions opt;
    opt.progress = false;
    opt.symmetrize = opt.compact_ids = variant == 1;
    mimd::fuzz::expect_typed([&] { mimd::validate(mimd::read_snap(path, opt), true); });
  }
  return 0;
}
