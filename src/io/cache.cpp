// The binary CSR cache: a fixed header, then row_map, entries and values as stored in
// memory. It lives in the user's cache folder, named after the source's absolute path;
// the header records what the cache was built from (source size, mtime in nanoseconds,
// CRC-32s of the source's first and last 64 KiB, the reader variant) and CRC-32s of
// itself and of the payload. Any mismatch makes the reader parse the source again and
// rewrite the cache; a cache is never trusted without these checks.
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <type_traits>
#include <vector>

#include "io/io_detail.hpp"

namespace mimd::io_detail {

namespace {

constexpr char kMagic[8] = {'M', 'I', 'M', 'D', 'C', 'S', 'R', '\1'};
constexpr std::uint32_t kVersion = 2;
constexpr std::size_t kHeadBytes = 64 * 1024;

struct CacheHeader {
  char magic[8];
  std::uint32_t version;
  std::uint32_t value_size;  ///< 0 for a pattern
  std::uint64_t source_size;
  std::int64_t source_mtime_ns;
  std::uint32_t source_head_crc;
  std::uint32_t payload_crc;
  char variant[32];
  std::int64_t nrows, ncols, nnz, entries_stored;
  char info[96];  ///< "object format field symmetry"
  std::uint64_t payload_bytes;
  std::uint32_t source_tail_crc;
  std::uint32_t header_crc;  ///< of every byte before this field
};
static_assert(std::is_trivially_copyable<CacheHeader>::value && sizeof(CacheHeader) == 216,
              "raw header, layout known to tests/test_io_cache.cpp");

struct SourceStamp {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::uint32_t head_crc = 0;
  std::uint32_t tail_crc = 0;
};

// CRC-32 of p[0, n) continuing `start`; large buffers are split over the threads and
// the pieces' CRCs joined with crc32_combine.
std::uint32_t crc(const void* p, std::size_t n, std::uint32_t start = 0) {
  const auto* b = static_cast<const Bytef*>(p);
  const int parts = n < (std::size_t{1} << 22) ? 1 : omp_get_max_threads();
  if (parts == 1) return static_cast<std::uint32_t>(crc32_z(start, b, static_cast<z_size_t>(n)));
  std::vector<uLong> piece(static_cast<std::size_t>(parts));
  auto cut = [&](int k) {
    return n / static_cast<std::size_t>(parts) * static_cast<std::size_t>(k);
  };
#pragma omp parallel for schedule(static)
  for (int k = 0; k < parts; ++k)
    piece[k] =
        crc32_z(0, b + cut(k), static_cast<z_size_t>((k + 1 == parts ? n : cut(k + 1)) - cut(k)));
  uLong c = start;
  for (int k = 0; k < parts; ++k)
    c = crc32_combine(c, piece[k],
                      static_cast<z_off_t>((k + 1 == parts ? n : cut(k + 1)) - cut(k)));
  return static_cast<std::uint32_t>(c);
}

SourceStamp stamp_of(const std::string& source) {
  struct stat sb {};
  const int fd = open_regular(source, sb);
  SourceStamp s;
  s.size = static_cast<std::uint64_t>(sb.st_size);
  s.mtime_ns = static_cast<std::int64_t>(sb.st_mtim.tv_sec) * 1000000000 + sb.st_mtim.tv_nsec;
  std::string part(kHeadBytes, '\0');
  auto crc_at = [&](std::uint64_t offset) {
    const ssize_t n = ::pread(fd, &part[0], part.size(), static_cast<off_t>(offset));
    return crc(part.data(), n > 0 ? static_cast<std::size_t>(n) : 0);
  };
  s.head_crc = crc_at(0);
  s.tail_crc = crc_at(s.size > kHeadBytes ? s.size - kHeadBytes : 0);
  ::close(fd);
  return s;
}

bool dir_writable(const std::string& dir) {
  struct stat sb {};
  return ::stat(dir.c_str(), &sb) == 0 && S_ISDIR(sb.st_mode) &&
         ::access(dir.c_str(), W_OK | X_OK) == 0;
}

bool make_dirs(const std::string& dir) {
  for (std::size_t i = 1; i <= dir.size(); ++i)
    if (i == dir.size() || dir[i] == '/') ::mkdir(dir.substr(0, i).c_str(), 0755);
  return dir_writable(dir);
}

// The csr/ subfolder keeps the caches apart from the toolchain builds tools/mimd puts
// in the same user cache folder.
std::string cache_dir() {
  if (const char* d = std::getenv("MIMD_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d)
    return std::string(d) + "/mimd-kernels/csr";
  if (const char* d = std::getenv("HOME"); d && *d)
    return std::string(d) + "/.cache/mimd-kernels/csr";
  return {};
}

template <class M>
constexpr std::uint32_t value_size_of() {
  if constexpr (std::is_same<M, HostPattern>::value)
    return 0;
  else
    return sizeof(typename M::scalar_type);
}

bool read_exact(std::FILE* f, void* p, std::size_t n) {
  return std::fread(p, 1, n, f) == n;
}

std::string info_string(const MatrixMarketInfo& i) {
  return i.object + " " + i.format + " " + i.field + " " + i.symmetry;
}

}  // namespace

std::string cache_path(const std::string& source, const std::string& variant) {
  const std::string dir = cache_dir();
  if (dir.empty() || !make_dirs(dir)) return {};
  char* abs = ::realpath(source.c_str(), nullptr);
  const std::string full = abs ? abs : source;
  std::free(abs);
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016zx", std::hash<std::string>{}(full));
  const auto slash = full.find_last_of('/');
  const std::string base = slash == std::string::npos ? full : full.substr(slash + 1);
  return dir + "/" + base + "-" + hash + "." + variant + ".mimdcsr";
}

template <class M>
bool cache_load(const std::string& source, const std::string& variant, M& m, MatrixMarketInfo* info,
                std::uint64_t* cache_bytes) {
  const SourceStamp st = stamp_of(source);
  // Never throws past here: a cache that cannot be read or held (its allocation
  // refused) is just not used.
  try {
    const std::string path = cache_path(source, variant);
    struct stat cache_stat {};
    if (path.empty() || ::stat(path.c_str(), &cache_stat) != 0) return false;
    const int fd = open_regular(path, cache_stat);
    std::FILE* f = ::fdopen(fd, "rb");
    if (f == nullptr) {
      ::close(fd);
      return false;
    }
    struct Closer {
      std::FILE* f;
      ~Closer() { std::fclose(f); }
    } closer{f};
    CacheHeader h{};
    if (!read_exact(f, &h, sizeof h)) return false;
    if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || h.version != kVersion ||
        h.header_crc != crc(&h, offsetof(CacheHeader, header_crc)))
      return false;
    h.variant[sizeof h.variant - 1] = '\0';
    h.info[sizeof h.info - 1] = '\0';
    if (variant != h.variant || h.value_size != value_size_of<M>() || h.source_size != st.size ||
        h.source_mtime_ns != st.mtime_ns || h.source_head_crc != st.head_crc ||
        h.source_tail_crc != st.tail_crc)
      return false;
    if (h.nrows < 0 || h.ncols < 0 || h.nnz < 0 ||
        h.nrows > std::numeric_limits<std::int32_t>::max() ||
        h.ncols > std::numeric_limits<std::int32_t>::max())
      return false;
    // Overflow-checked: a forged nnz must not wrap the size check into a match.
    std::uint64_t entry_bytes = 0, expect = 0;
    if (__builtin_mul_overflow(static_cast<std::uint64_t>(h.nnz),
                               sizeof(std::int32_t) + h.value_size, &entry_bytes) ||
        __builtin_add_overflow(static_cast<std::uint64_t>(h.nrows + 1) * sizeof(std::int64_t),
                               entry_bytes, &expect) ||
        h.payload_bytes != expect)
      return false;
    if (static_cast<std::uint64_t>(cache_stat.st_size) != sizeof h + h.payload_bytes) return false;
    M a;
    a.nrows = static_cast<std::int32_t>(h.nrows);
    a.ncols = static_cast<std::int32_t>(h.ncols);
    a.row_map = HostPattern::row_map_type(Kokkos::ViewAllocateWithoutInitializing("A.row_map"),
                                          static_cast<std::size_t>(h.nrows) + 1);
    a.entries = HostPattern::entries_type(Kokkos::ViewAllocateWithoutInitializing("A.entries"),
                                          static_cast<std::size_t>(h.nnz));
    const std::size_t rm_bytes = a.row_map.extent(0) * sizeof(std::int64_t);
    const std::size_t en_bytes = a.entries.extent(0) * sizeof(std::int32_t);
    if (!read_exact(f, a.row_map.data(), rm_bytes) || !read_exact(f, a.entries.data(), en_bytes))
      return false;
    std::uint32_t c = crc(a.row_map.data(), rm_bytes);
    c = crc(a.entries.data(), en_bytes, c);
    if constexpr (!std::is_same<M, HostPattern>::value) {
      a.values = typename M::values_type(Kokkos::ViewAllocateWithoutInitializing("A.values"),
                                         static_cast<std::size_t>(h.nnz));
      const std::size_t va_bytes = a.values.extent(0) * h.value_size;
      if (!read_exact(f, a.values.data(), va_bytes)) return false;
      c = crc(a.values.data(), va_bytes, c);
    }
    if (c != h.payload_crc) return false;
    validate(a, true);
    if (info) {
      char object[24] = {}, format[24] = {}, field[24] = {}, symmetry[24] = {};
      if (std::sscanf(h.info, "%23s %23s %23s %23s", object, format, field, symmetry) != 4)
        return false;
      *info = MatrixMarketInfo{object, format, field, symmetry, h.nrows, h.ncols, h.entries_stored};
    }
    m = a;
    if (cache_bytes) *cache_bytes = sizeof h + h.payload_bytes;
    return true;
  } catch (...) {
    return false;
  }
}

template <class M>
std::uint64_t cache_store(const std::string& source, const std::string& variant, const M& m,
                          const MatrixMarketInfo* info) {
  const std::string path = cache_path(source, variant);
  if (path.empty()) return 0;
  const SourceStamp st = stamp_of(source);
  CacheHeader h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kVersion;
  h.value_size = value_size_of<M>();
  h.source_size = st.size;
  h.source_mtime_ns = st.mtime_ns;
  h.source_head_crc = st.head_crc;
  std::snprintf(h.variant, sizeof h.variant, "%s", variant.c_str());
  h.nrows = m.nrows;
  h.ncols = m.ncols;
  h.nnz = m.nnz();
  if (info) {
    h.entries_stored = info->entries_stored;
    std::snprintf(h.info, sizeof h.info, "%s", info_string(*info).c_str());
  }
  const std::size_t rm_bytes = m.row_map.extent(0) * sizeof(std::int64_t);
  const std::size_t en_bytes = m.entries.extent(0) * sizeof(std::int32_t);
  std::size_t va_bytes = 0;
  std::uint32_t c = crc(m.row_map.data(), rm_bytes);
  c = crc(m.entries.data(), en_bytes, c);
  const void* values = nullptr;
  if constexpr (!std::is_same<M, HostPattern>::value) {
    va_bytes = m.values.extent(0) * sizeof(typename M::scalar_type);
    c = crc(m.values.data(), va_bytes, c);
    values = m.values.data();
  }
  h.payload_crc = c;
  h.payload_bytes = rm_bytes + en_bytes + va_bytes;
  h.source_tail_crc = st.tail_crc;
  h.header_crc = crc(&h, offsetof(CacheHeader, header_crc));

  std::random_device rd;
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return 0;
  bool ok = std::fwrite(&h, sizeof h, 1, f) == 1 &&
            std::fwrite(m.row_map.data(), 1, rm_bytes, f) == rm_bytes &&
            std::fwrite(m.entries.data(), 1, en_bytes, f) == en_bytes &&
            (va_bytes == 0 || std::fwrite(values, 1, va_bytes, f) == va_bytes);
  ok = std::fclose(f) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return 0;
  }
  return sizeof h + h.payload_bytes;
}

#define MIMD_INSTANTIATE_CACHE(M)                                                            \
  template bool cache_load<M>(const std::string&, const std::string&, M&, MatrixMarketInfo*, \
                              std::uint64_t*);                                               \
  template std::uint64_t cache_store<M>(const std::string&, const std::string&, const M&,    \
                                        const MatrixMarketInfo*);
MIMD_INSTANTIATE_CACHE(HostCsr<float>)
MIMD_INSTANTIATE_CACHE(HostCsr<double>)
MIMD_INSTANTIATE_CACHE(HostPattern)
#undef MIMD_INSTANTIATE_CACHE

}  // namespace mimd::io_detail
