// libFuzzer harness: bytes -> the binary CSR cache loader (io_detail::cache_load), the
// bytes being the cache file of a fixed source.
//
// Random bytes never pass the cache's checks on its source (size, mtime, CRC-32s of the
// source's head and tail) or its own CRC-32s, so the harness writes those fields as a
// genuine cache would have them, and the fuzzer reaches the size, overflow and CSR
// checks behind them. The value size field (0, 4, else 8) picks the loader (pattern,
// float, double) and the variant name written into the header.
#include <sys/stat.h>
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "io/io_detail.hpp"

namespace {

// The cache header's layout (version 2, src/io/cache.cpp; also pinned by
// tests/test_io_cache.cpp): 216 bytes, the header CRC last over the bytes before it.
constexpr std::size_t kValueSize = 12, kSourceSize = 16, kMtime = 24, kHeadCrc = 32,
                      kPayloadCrc = 36, kVariant = 40, kVariantBytes = 32, kTailCrc = 208,
                      kHeaderCrc = 212, kHeader = 216;

const char kSource[] =
    "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1.0\n2 2 2.0\n3 1 -1.5\n3 3 4.0\n";

template <class T>
void put(std::vector<std::uint8_t>& b, std::size_t at, T v) {
  std::memcpy(&b[at], &v, sizeof v);
}

std::uint32_t crc_of(const std::uint8_t* p, std::size_t n) {
  return static_cast<std::uint32_t>(crc32_z(0, p, n));
}

template <class M>
void load(const std::string& source, const char* variant, std::vector<std::uint8_t> bytes) {
  const std::string cache = mimd::io_detail::cache_path(source, variant);
  if (cache.empty()) std::abort();
  if (bytes.size() >= kHeader) {
    struct stat sb {};
    if (::stat(source.c_str(), &sb) != 0) std::abort();
    const auto* src = reinterpret_cast<const std::uint8_t*>(kSource);
    const std::uint32_t src_crc = crc_of(src, sizeof kSource - 1);  // head = tail: < 64 KiB
    put(bytes, kSourceSize, static_cast<std::uint64_t>(sb.st_size));
    put(bytes, kMtime,
        static_cast<std::int64_t>(sb.st_mtim.tv_sec) * 1000000000 + sb.st_mtim.tv_nsec);
    put(bytes, kHeadCrc, src_crc);
    put(bytes, kTailCrc, src_crc);
    std::memset(&bytes[kVariant], 0, kVariantBytes);
    std::memcpy(&bytes[kVariant], variant, std::strlen(variant));
    put(bytes, kPayloadCrc, crc_of(bytes.data() + kHeader, bytes.size() - kHeader));
    put(bytes, kHeaderCrc, crc_of(bytes.data(), kHeaderCrc));
  }
  mimd::fuzz::write_bytes(cache, bytes.data(), bytes.size());
  M m;
  mimd::MatrixMarketInfo info;
  std::uint64_t cache_bytes = 0;
  // cache_load is documented never to throw for a bad cache: any exception is a finding.
  if (mimd::io_detail::cache_load(source, variant, m, &info, &cache_bytes)) {
    mimd::validate(m, true);
    if (cache_bytes != bytes.size()) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& scratch = mimd::fuzz::setup();
  static const std::string source = [&] {
    const std::string path = scratch.file("source.mtx");
    mimd::fuzz::write_bytes(path, reinterpret_cast<const std::uint8_t*>(kSource),
                            sizeof kSource - 1);
    return path;
  }();
  std::vector<std::uint8_t> bytes(data, data + size);
  const std::uint32_t value_size =
      size > kValueSize + 4 ? static_cast<std::uint32_t>(data[kValueSize]) : 8;
  if (value_size == 0)
    load<mimd::HostPattern>(source, "snap", std::move(bytes));
  else if (value_size == 4)
    load<mimd::HostCsr<float>>(source, "mm-f32", std::move(bytes));
  else
    load<mimd::HostCsr<double>>(source, "mm-f64", std::move(bytes));
  return 0;
}
