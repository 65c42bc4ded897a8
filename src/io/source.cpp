// File access for the readers: whole-file reads, gzip through zlib, tar through
// libarchive, chunking and number scanning.
#include <archive.h>
#include <archive_entry.h>
#include <omp.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>

#include "io/io_detail.hpp"

namespace mimd::io_detail {

// ---- whole-file access -------------------------------------------------------------

namespace {

std::string read_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) throw IoError(path, std::string("cannot open: ") + std::strerror(errno));
  std::string data;
  char buf[1 << 16];
  std::size_t n;
  if (std::fseek(f, 0, SEEK_END) == 0) {
    const long size = std::ftell(f);
    if (size > 0) data.reserve(static_cast<std::size_t>(size));
    std::rewind(f);
  }
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) data.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (failed) throw IoError(path, std::string("read error: ") + std::strerror(err));
  return data;
}

bool is_gzip(const std::string& d) {
  return d.size() >= 2 && static_cast<unsigned char>(d[0]) == 0x1f &&
         static_cast<unsigned char>(d[1]) == 0x8b;
}

bool is_tar(const std::string& d) {
  return d.size() >= 512 && d.compare(257, 5, "ustar") == 0;
}

std::string gunzip(const std::string& path, const std::string& in, Progress& progress) {
  // Inflates straight into `out`, sized from the gzip trailer (the uncompressed size
  // modulo 2^32 of the last member) when plausible, doubled when full.
  std::uint32_t isize = 0;
  if (in.size() >= 18) std::memcpy(&isize, in.data() + in.size() - 4, 4);
  std::string out(
      isize > 0 && isize / 1032 <= in.size() ? std::size_t{isize} + 1 : 4 * in.size() + 64, '\0');
  std::size_t have = 0;
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) throw RuntimeFailure("zlib: inflateInit2 failed");
  std::size_t consumed = 0;
  const std::size_t step = 1 << 20;
  for (;;) {
    const std::size_t avail = std::min(in.size() - consumed, step);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + consumed));
    zs.avail_in = static_cast<uInt>(avail);
    int rc = Z_OK;
    do {
      if (have == out.size()) out.resize(2 * out.size());
      zs.next_out = reinterpret_cast<Bytef*>(&out[have]);
      zs.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size() - have, 1u << 30));
      rc = inflate(&zs, Z_NO_FLUSH);
      have = static_cast<std::size_t>(reinterpret_cast<char*>(zs.next_out) - out.data());
    } while (rc == Z_OK && (zs.avail_in > 0 || zs.avail_out == 0));
    consumed += avail - zs.avail_in;
    if (rc == Z_STREAM_END) {
      // Another gzip member may follow (concatenated .gz); trailing zeros are padding.
      const std::string rest = in.substr(consumed, 2);
      if (is_gzip(rest)) {
        inflateReset(&zs);
        continue;
      }
      const bool only_zeros = std::all_of(in.begin() + static_cast<std::ptrdiff_t>(consumed),
                                          in.end(), [](char c) { return c == 0; });
      inflateEnd(&zs);
      if (!only_zeros)
        throw ParseError(
            path, 0, ParseErrorKind::BadArchive,
            "unexpected data after the end of the gzip stream at byte " + std::to_string(consumed));
      out.resize(have);
      return out;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      const std::string msg = zs.msg ? zs.msg : "error " + std::to_string(rc);
      inflateEnd(&zs);
      throw ParseError(path, 0, ParseErrorKind::BadArchive,
                       "corrupt gzip data (zlib: " + msg + ") after " + std::to_string(have) +
                           " uncompressed bytes");
    }
    if (consumed >= in.size()) {
      inflateEnd(&zs);
      throw ParseError(path, 0, ParseErrorKind::Truncated,
                       "the gzip stream ends early, after " + std::to_string(in.size()) +
                           " compressed and " + std::to_string(have) + " uncompressed bytes");
    }
    progress.update("decompressing", consumed, in.size());
  }
}

struct Archive {
  archive* a = archive_read_new();
  Archive() {
    if (a == nullptr) throw RuntimeFailure("libarchive: archive_read_new failed");
    archive_read_support_format_tar(a);
  }
  ~Archive() { archive_read_free(a); }
  Archive(const Archive&) = delete;
  Archive& operator=(const Archive&) = delete;
};

std::string basename_of(const std::string& p) {
  const auto s = p.find_last_of('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Picks Name/Name.mtx, or the only .mtx member, of a SuiteSparse tar archive.
TextSource untar(const std::string& path, const std::string& tar) {
  std::vector<std::string> names;
  {
    Archive ar;
    if (archive_read_open_memory(ar.a, tar.data(), tar.size()) != ARCHIVE_OK)
      throw ParseError(path, 0, ParseErrorKind::BadArchive,
                       std::string("not a readable tar archive: ") + archive_error_string(ar.a));
    archive_entry* e = nullptr;
    int rc;
    while ((rc = archive_read_next_header(ar.a, &e)) == ARCHIVE_OK) {
      const char* name = archive_entry_pathname(e);
      if (archive_entry_filetype(e) == AE_IFREG && name != nullptr && ends_with(name, ".mtx"))
        names.emplace_back(name);
      archive_read_data_skip(ar.a);
    }
    if (rc != ARCHIVE_EOF)
      throw ParseError(path, 0, ParseErrorKind::Truncated,
                       std::string("the tar archive ends early or is damaged (libarchive: ") +
                           archive_error_string(ar.a) + ")");
  }
  std::string chosen;
  for (const auto& n : names) {
    const auto slash = n.find_last_of('/');
    if (slash == std::string::npos) continue;
    const std::string dir = basename_of(n.substr(0, slash));
    if (basename_of(n) == dir + ".mtx") {
      chosen = n;
      break;
    }
  }
  if (chosen.empty() && names.size() == 1) chosen = names[0];
  if (chosen.empty()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw ParseError(
        path, 0, ParseErrorKind::BadArchive,
        names.empty() ? "the tar archive holds no .mtx file"
                      : "the tar archive holds several .mtx files and no Name/Name.mtx: " + list);
  }
  Archive ar;
  archive_read_open_memory(ar.a, tar.data(), tar.size());
  archive_entry* e = nullptr;
  while (archive_read_next_header(ar.a, &e) == ARCHIVE_OK) {
    if (chosen != archive_entry_pathname(e)) {
      archive_read_data_skip(ar.a);
      continue;
    }
    TextSource src{path + "(" + chosen + ")", {}};
    // Reads straight into the text, sized from the header (grown if it lies).
    std::size_t have = 0;
    src.text.resize(archive_entry_size_is_set(e) && archive_entry_size(e) > 0
                        ? static_cast<std::size_t>(archive_entry_size(e)) + 1
                        : std::size_t{1} << 16);
    la_ssize_t n;
    for (;;) {
      if (have == src.text.size()) src.text.resize(2 * src.text.size());
      n = archive_read_data(ar.a, &src.text[have], src.text.size() - have);
      if (n <= 0) break;
      have += static_cast<std::size_t>(n);
    }
    src.text.resize(have);
    if (n < 0)
      throw ParseError(src.name, 0, ParseErrorKind::Truncated,
                       std::string("the archive member ends early (libarchive: ") +
                           archive_error_string(ar.a) + ")");
    return src;
  }
  throw InternalError(__FILE__, __LINE__, "tar member " + chosen + " vanished on the second pass");
}

}  // namespace

TextSource load_source(const std::string& path, Progress& progress) {
  TextSource src{path, read_file(path)};
  if (is_gzip(src.text)) src.text = gunzip(path, src.text, progress);
  if (is_tar(src.text)) src = untar(path, src.text);
  return src;
}

void finish_write(const std::string& path, std::FILE* f, const std::string& buf, bool ok) {
  if (ok) ok = std::fwrite(buf.data(), 1, buf.size(), f) == buf.size();
  int err = ok ? 0 : errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) throw IoError(path, std::string("write failed: ") + std::strerror(err));
}

// ---- chunking and scanning -----------------------------------------------------------

std::vector<std::size_t> split_at_lines(const std::string& text, std::size_t from, int parts) {
  std::vector<std::size_t> cuts{from};
  const std::size_t size = text.size();
  for (int k = 1; k < parts; ++k) {
    std::size_t pos =
        from + (size - from) / static_cast<std::size_t>(parts) * static_cast<std::size_t>(k);
    pos = std::max(pos, cuts.back());
    const void* nl = pos < size ? std::memchr(text.data() + pos, '\n', size - pos) : nullptr;
    pos = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) + 1 : size;
    cuts.push_back(pos);
  }
  cuts.push_back(size);
  return cuts;
}

int chunk_count(std::size_t bytes) {
  const std::size_t by_size = bytes / (256 * 1024) + 1;
  const std::size_t by_threads = 4 * static_cast<std::size_t>(omp_get_max_threads());
  return static_cast<int>(std::min(by_size, by_threads));
}

std::string line_text(const char* line_begin, const char* end) {
  const char* e = static_cast<const char*>(
      std::memchr(line_begin, '\n', static_cast<std::size_t>(end - line_begin)));
  return std::string(line_begin, e ? e : end);
}

std::string token_at(const char* p, const char* end) {
  const char* q = p;
  while (q < end && !is_blank(*q) && *q != '\n') ++q;
  return std::string(p, q);
}

namespace {
inline bool at_delimiter(const char* p, const char* end) {
  return p == end || is_blank(*p) || *p == '\n';
}
}  // namespace

Scan scan_index(const char*& p, const char* end, std::uint64_t limit, std::uint64_t& value) {
  const char* q = p;
  bool negative = false;
  if (q < end && (*q == '+' || *q == '-')) negative = *q++ == '-';
  const char* digits = q;
  std::uint64_t v = 0;
  bool overflow = false;
  while (q < end && static_cast<unsigned>(*q - '0') < 10u) {
    const std::uint64_t d = static_cast<std::uint64_t>(*q - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10)
      overflow = true;
    else
      v = v * 10 + d;
    ++q;
  }
  overflow = overflow || v > limit;
  if (q == digits || !at_delimiter(q, end)) return Scan::NotANumber;
  p = q;
  if (negative && (v != 0 || overflow)) return Scan::Negative;
  if (overflow) return Scan::Overflow;
  value = v;
  return Scan::Ok;
}

Scan scan_double(const char*& p, const char* end, double& value) {
  const char* q = p;
  if (q < end && *q == '+') ++q;
  if (q < end && *q == '+') return Scan::NotANumber;
  const auto r = std::from_chars(q, end, value, std::chars_format::general);
  if (r.ec == std::errc::invalid_argument || !at_delimiter(r.ptr, end)) return Scan::NotANumber;
  p = r.ptr;
  if (r.ec == std::errc::result_out_of_range) return Scan::Overflow;
  return Scan::Ok;
}

Scan scan_integer(const char*& p, const char* end, double& value) {
  const char* q = p;
  if (q < end && *q == '+') ++q;
  std::int64_t v = 0;
  const auto r = std::from_chars(q, end, v);
  if (r.ec == std::errc::invalid_argument || !at_delimiter(r.ptr, end)) return Scan::NotANumber;
  p = r.ptr;
  if (r.ec == std::errc::result_out_of_range) return Scan::Overflow;
  value = static_cast<double>(v);
  return Scan::Ok;
}

bool looks_like_matrix_market(const std::string& text) {
  return !text.empty() && text[0] == '%';
}

}  // namespace mimd::io_detail
