// File access for the readers: whole-file reads, gzip through zlib, tar through
// libarchive, chunking and number scanning.
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "io/io_detail.hpp"
#include "mimd/memory.hpp"

namespace mimd::io_detail {

// ---- whole-file access -------------------------------------------------------------

namespace {

const char* file_type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::uint64_t memory_budget() {
  if (const char* env = std::getenv("MIMD_MEMORY_BUDGET"); env && *env) {
    char* rest = nullptr;
    const unsigned long long v = std::strtoull(env, &rest, 10);
    const int shift = *rest == 'K' ? 10 : *rest == 'M' ? 20 : *rest == 'G' ? 30 : 0;
    if (rest != env && v <= (std::numeric_limits<std::uint64_t>::max() >> shift))
      return static_cast<std::uint64_t>(v) << shift;
  }
  if (const std::uint64_t available = available_memory_bytes()) return available;
  return static_cast<std::uint64_t>(::sysconf(_SC_AVPHYS_PAGES)) *
         static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

std::string budget_source() {
  const char* env = std::getenv("MIMD_MEMORY_BUDGET");
  return env && *env ? "MIMD_MEMORY_BUDGET"
                     : "the available memory; set MIMD_MEMORY_BUDGET to change it";
}

std::string bytes_text(std::uint64_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  char buf[48];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(bytes));
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

void check_budget(const std::string& file, std::uint64_t line, std::uint64_t need,
                  const std::string& claim, const std::string& text, const std::string& hint) {
  const std::uint64_t budget = memory_budget();
  if (need > budget)
    throw ParseError(file, line, ParseErrorKind::TooLarge,
                     claim + " needs at least " + bytes_text(need) +
                         ", more than the memory budget of " + bytes_text(budget) + " (" +
                         budget_source() + ")" + (hint.empty() ? "" : "; " + hint),
                     text);
}

std::string clip(const char* begin, const char* end) {
  constexpr std::size_t kShown = 60;
  const auto n = static_cast<std::size_t>(end - begin);
  if (n <= kShown) return std::string(begin, end);
  return std::string(begin, kShown) + "... (" + std::to_string(n) + " bytes)";
}

int open_regular(const std::string& path, struct stat& sb) {
  // stat first: open() itself would block on a FIFO without a writer.
  if (::stat(path.c_str(), &sb) != 0)
    throw IoError(path, std::string("cannot open: ") + std::strerror(errno));
  if (!S_ISREG(sb.st_mode))
    throw IoError(path, std::string("cannot read: it is ") + file_type_name(sb.st_mode) +
                            ", not a regular file");
  // O_NONBLOCK: the path may have been replaced by a FIFO since the stat.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw IoError(path, std::string("cannot open: ") + std::strerror(errno));
  if (::fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    const int err = errno;
    ::close(fd);
    throw IoError(path,
                  std::string("cannot read: ") +
                      (S_ISREG(sb.st_mode) ? std::strerror(err) : file_type_name(sb.st_mode)));
  }
  return fd;
}

namespace {

std::string read_file(const std::string& path) {
  struct stat sb {};
  const int fd = open_regular(path, sb);
  const std::uint64_t budget = memory_budget();
  const auto size = static_cast<std::uint64_t>(sb.st_size);
  if (size > budget) {
    ::close(fd);
    throw ParseError(path, 0, ParseErrorKind::TooLarge,
                     "the file holds " + bytes_text(size) + ", more than the memory budget of " +
                         bytes_text(budget) + " (" + budget_source() + ")");
  }
  std::string data(static_cast<std::size_t>(size), '\0');
  std::size_t have = 0;
  int err = 0;
  // Reads what stat announced; a file that grew meanwhile is read up to that size.
  while (have < data.size()) {
    const ssize_t n = ::read(fd, &data[have], data.size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : 0;
      break;
    }
    have += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (err != 0) throw IoError(path, std::string("read error: ") + std::strerror(err));
  data.resize(have);
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
  // Inflates straight into `out`, a MiB at a time, never past the memory budget: its
  // capacity is reserved from the gzip trailer (the uncompressed size modulo 2^32 of the
  // last member) when plausible, and grows geometrically past that; its size grows by
  // the MiB being inflated, so a claimed size costs no page until it is written. Text
  // never holds a NUL byte: unless the output starts with a tar header, the first NUL
  // ends the inflation within a MiB (a gzip bomb of zeros; one MiB of its input inflates
  // to a GiB).
  const std::uint64_t budget = memory_budget();
  std::uint32_t isize = 0;
  if (in.size() >= 18) std::memcpy(&isize, in.data() + in.size() - 4, 4);
  std::size_t first =
      isize > 0 && isize / 1032 <= in.size() ? std::size_t{isize} + 1 : 4 * in.size() + 64;
  std::string out;
  out.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(first, budget + 1)));
  std::size_t have = 0, checked = 0;
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) throw RuntimeFailure("zlib: inflateInit2 failed");
  struct Ender {
    z_stream& zs;
    ~Ender() { inflateEnd(&zs); }
  } ender{zs};
  std::size_t consumed = 0;
  const std::size_t step = 1 << 20;
  bool decided = false, tar = false;  // tar: whether the output is a tar archive
  for (;;) {
    const std::size_t avail = std::min(in.size() - consumed, step);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + consumed));
    zs.avail_in = static_cast<uInt>(avail);
    int rc = Z_OK;
    do {
      if (have == out.size()) {
        if (have > budget)
          throw ParseError(path, 0, ParseErrorKind::TooLarge,
                           "the gzip data inflates to more than the memory budget of " +
                               bytes_text(budget) + " (" + budget_source() + ") after " +
                               bytes_text(consumed) + " compressed bytes");
        out.resize(static_cast<std::size_t>(std::min<std::uint64_t>(have + step, budget + 1)));
      }
      zs.next_out = reinterpret_cast<Bytef*>(&out[have]);
      zs.avail_out = static_cast<uInt>(out.size() - have);
      rc = inflate(&zs, Z_NO_FLUSH);
      have = static_cast<std::size_t>(reinterpret_cast<char*>(zs.next_out) - out.data());
      if (!decided && (have >= 512 || rc == Z_STREAM_END)) {
        decided = true;
        tar = have >= 512 && is_tar(out);
      }
      if (decided && !tar && have > checked) {
        const void* nul = std::memchr(out.data() + checked, '\0', have - checked);
        if (nul != nullptr)
          throw ParseError(path, 0, ParseErrorKind::NotText,
                           "the gzip data holds a NUL byte at uncompressed offset " +
                               std::to_string(static_cast<const char*>(nul) - out.data()) +
                               ": binary data, not Matrix Market or SNAP text");
        checked = have;
      }
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
      if (!only_zeros)
        throw ParseError(
            path, 0, ParseErrorKind::BadArchive,
            "unexpected data after the end of the gzip stream at byte " + std::to_string(consumed));
      out.resize(have);
      return out;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR)
      throw ParseError(path, 0, ParseErrorKind::BadArchive,
                       "corrupt gzip data (zlib: " +
                           std::string(zs.msg ? zs.msg : "error " + std::to_string(rc)) +
                           ") after " + std::to_string(have) + " uncompressed bytes");
    if (consumed >= in.size())
      throw ParseError(path, 0, ParseErrorKind::Truncated,
                       "the gzip stream ends early, after " + std::to_string(in.size()) +
                           " compressed and " + std::to_string(have) + " uncompressed bytes");
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
    const std::uint64_t budget = memory_budget();
    const auto claimed = static_cast<std::uint64_t>(
        archive_entry_size_is_set(e) ? std::max<la_int64_t>(archive_entry_size(e), 0) : 0);
    if (claimed > budget)
      throw ParseError(src.name, 0, ParseErrorKind::TooLarge,
                       "the archive member claims " + bytes_text(claimed) +
                           ", more than the memory budget of " + bytes_text(budget) + " (" +
                           budget_source() + ")");
    std::size_t have = 0;
    src.text.resize(claimed > 0 ? static_cast<std::size_t>(claimed) + 1 : std::size_t{1} << 16);
    la_ssize_t n;
    for (;;) {
      if (have == src.text.size()) {
        if (have > budget)
          throw ParseError(src.name, 0, ParseErrorKind::TooLarge,
                           "the archive member holds more than the memory budget of " +
                               bytes_text(budget) + " (" + budget_source() + ")");
        src.text.resize(
            static_cast<std::size_t>(std::min<std::uint64_t>(2 * src.text.size(), budget + 1)));
      }
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
  return clip(line_begin, e ? e : end);
}

const char* token_end(const char* p, const char* end) {
  while (p < end && !is_blank(*p) && *p != '\n') ++p;
  return p;
}

std::string token_at(const char* p, const char* end) {
  return clip(p, token_end(p, end));
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
