// Internal helpers shared by the readers (src/io/*.cpp): decompressed file access,
// chunking at line boundaries, number scanning and the CSR cache.
#pragma once

#include <omp.h>
#include <sys/stat.h>

#include <atomic>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "core/progress.hpp"
#include "mimd/error.hpp"
#include "mimd/io.hpp"

namespace mimd::io_detail {

using core_detail::Progress;

/// The memory a load may use, in bytes: $MIMD_MEMORY_BUDGET (a byte count, optionally
/// followed by K, M or G) when set, else the available memory (MemAvailable).
std::uint64_t memory_budget();

/// Where memory_budget() came from, for messages.
std::string budget_source();

/// A byte count for people: "512 bytes", "16.0 GiB".
std::string bytes_text(std::uint64_t bytes);

/// Throws ParseError TooLarge at file:line when `need` bytes exceed memory_budget();
/// `claim` says what asked for them ("a 2147483647x2147483647 matrix with 1 entries,
/// which"), `text` is the line that claimed it, `hint` (optional) a way out.
void check_budget(const std::string& file, std::uint64_t line, std::uint64_t need,
                  const std::string& claim, const std::string& text, const std::string& hint = {});

/// [begin, end) as text for a message: at most 60 characters, then "... (N bytes)".
std::string clip(const char* begin, const char* end);

/// Opens `path` for reading after checking, before open() can block, that it is a
/// regular file (a FIFO, device or directory is refused); `sb` receives its stat.
/// @throws IoError naming the path and what it is
int open_regular(const std::string& path, struct stat& sb);

/// The text of an input file after decompression and archive extraction.
struct TextSource {
  std::string name;  ///< the caller's path, plus "(member)" for an archive member
  std::string text;
};

/// Reads `path` and undoes gzip (any number of members) and tar (a SuiteSparse
/// download holding Name/Name.mtx). Detection is by content, not by file name.
/// @throws IoError when the file cannot be read
/// @throws ParseError Truncated / BadArchive for broken compressed data or archives
TextSource load_source(const std::string& path, Progress& progress);

/// Writes what is left of `buf` to `f` (unless an earlier write failed: `ok` false),
/// closes `f` and throws IoError naming `path` when anything failed.
void finish_write(const std::string& path, std::FILE* f, const std::string& buf, bool ok);

/// Appends the shortest decimal form of `v` (reads back to the same value) to `buf`.
template <class T>
void append_number(std::string& buf, T v) {
  char tmp[48];
  const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
  buf.append(tmp, r.ptr);
}

/// [begin, end) offsets of `parts` pieces of text[from, size) cut just after '\n'.
std::vector<std::size_t> split_at_lines(const std::string& text, std::size_t from, int parts);

/// Number of chunks to parse `bytes` with: a few per thread, at least 256 KiB each.
int chunk_count(std::size_t bytes);

inline bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// The line from `line_begin`, without its line ending, clipped for a message.
std::string line_text(const char* line_begin, const char* end);

enum class Scan { Ok, NotANumber, Negative, Overflow };

/// Scans an unsigned decimal integer (optional '+') ending at a blank, a newline or
/// the end; `p` is left after it. Values above `limit` give Overflow, a leading '-'
/// followed by digits gives Negative.
Scan scan_index(const char*& p, const char* end, std::uint64_t limit, std::uint64_t& value);

/// Scans a double (optional sign, decimal or exponent form, inf, nan) ending at a
/// blank, a newline or the end.
Scan scan_double(const char*& p, const char* end, double& value);

/// Scans a signed decimal integer that fits int64 (the Matrix Market integer field).
Scan scan_integer(const char*& p, const char* end, double& value);

/// The end of the token starting at p (a blank, a newline or the end).
const char* token_end(const char* p, const char* end);

/// The token starting at p, clipped for a message.
std::string token_at(const char* p, const char* end);

/// Skips blanks (spaces, tabs, CR).
inline const char* skip_blanks(const char* p, const char* end) {
  while (p < end && is_blank(*p)) ++p;
  return p;
}

/// Moves `p` just past the next '\n'; false (p unchanged) when there is none.
inline bool skip_line(const char*& p, const char* end) {
  const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
  if (nl == nullptr) return false;
  p = static_cast<const char*>(nl) + 1;
  return true;
}

/// A parse failure found inside a chunk, reported once the chunk's first line
/// number is known.
struct ChunkError {
  bool failed = false;
  ParseErrorKind kind = ParseErrorKind::NotANumber;
  std::uint64_t local_line = 0;  ///< 0-based line inside the chunk
  std::string detail, text;
};

/// The error for a line that lacks `what`, `p` being where it was expected: Truncated
/// when the file ends there (no final newline), NotANumber otherwise.
inline ChunkError missing_token(const char* p, const char* line_start, const char* end,
                                const char* text_end, std::uint64_t line, const char* what) {
  const bool eof = p == text_end;
  return {true, eof ? ParseErrorKind::Truncated : ParseErrorKind::NotANumber, line,
          std::string(eof ? "the file ends inside a line: " : "") + "missing " + what,
          line_text(line_start, end)};
}

/// Runs parse(k, begin, end) over the chunks [cuts[k], cuts[k + 1]) of `text` in
/// parallel, reporting progress from thread 0; rethrows the first exception raised
/// in a chunk (parse errors are not exceptions: chunks record them).
template <class Parse>
void for_each_chunk(const std::string& text, const std::vector<std::size_t>& cuts,
                    Progress& progress, Parse parse) {
  const int parts = static_cast<int>(cuts.size()) - 1;
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(parts));
  std::atomic<std::uint64_t> parsed{0};
#pragma omp parallel for schedule(dynamic, 1) if (parts > 1)
  for (int k = 0; k < parts; ++k) {
    try {
      parse(k, text.data() + cuts[k], text.data() + cuts[k + 1]);
    } catch (...) {
      failures[k] = std::current_exception();
    }
    parsed += cuts[k + 1] - cuts[k];
    if (omp_get_thread_num() == 0) progress.update("parsing", parsed, text.size());
  }
  for (const auto& f : failures)
    if (f) std::rethrow_exception(f);
}

// ---- binary CSR cache (cache.cpp) --------------------------------------------------

/// Where the cache of `source` for `variant` lives ("" when nowhere is writable):
/// "<dir>/<name>-<hash of the absolute path>.<variant>.mimdcsr" with <dir> =
/// $MIMD_CACHE_DIR, else $XDG_CACHE_HOME/mimd-kernels/csr, else ~/.cache/mimd-kernels/csr.
/// Never beside the source: data folders are often shared or read-only.
std::string cache_path(const std::string& source, const std::string& variant);

/// Loads `m` (and `info` when non-null) from the cache when the cache exists, matches
/// the source's size, mtime and checksums of its first and last 64 KiB, and passes its own header
/// and payload checksums and the CSR invariants. Returns false otherwise (never throws for a bad
/// cache; throws IoError when the source itself cannot be examined).
template <class M>
bool cache_load(const std::string& source, const std::string& variant, M& m, MatrixMarketInfo* info,
                std::uint64_t* cache_bytes);

/// Writes the cache (temporary file, then rename). Failures are silent: the cache is
/// an optimisation. Returns the number of bytes written (0 when not written).
template <class M>
std::uint64_t cache_store(const std::string& source, const std::string& variant, const M& m,
                          const MatrixMarketInfo* info);

// ---- Matrix Market pieces (matrix_market.cpp), also used by the distributed reader ----

enum class MmSymmetry { General, Symmetric, SkewSymmetric, Hermitian };

/// The banner and size line of a Matrix Market file.
struct MmHeader {
  MatrixMarketInfo info;
  bool array = false, pattern = false, integer = false;
  MmSymmetry symmetry = MmSymmetry::General;
  std::size_t data_begin = 0;   ///< offset of the first data line
  std::uint64_t data_line = 0;  ///< its 1-based line number
  std::uint64_t expected = 0;   ///< data entries the size line announces
};

/// The entries parsed from one piece of the data lines, in file order (1-based indices
/// made 0-based; values empty for a pattern), or its first error.
struct MmChunk {
  std::vector<std::int32_t> rows, cols;
  std::vector<double> values;
  std::uint64_t lines = 0;     ///< '\n' seen
  std::uint64_t entries = 0;   ///< data lines parsed
  std::uint64_t mirrored = 0;  ///< off-diagonal entries of symmetric storage
  ChunkError error;
};

/// Reads the banner, comments and size line of `src`, checking the claims against the
/// text's size and the memory budget.
/// @throws ParseError naming the file, the line and the text
MmHeader parse_mm_header(const TextSource& src);

/// Parses the data lines of [begin, end) into `c`. `text_end` tells whether a line
/// without '\n' is the file's last one (a missing token there means a truncated file).
void parse_mm_chunk(const MmHeader& h, const char* begin, const char* end, const char* text_end,
                    MmChunk& c);

/// Start of the data line number `k` (0-based) of [begin, end), and its 0-based line.
const char* find_mm_entry(const char* begin, const char* end, std::uint64_t k, std::uint64_t& line);

/// Parses already-loaded text (matrix_market.cpp / snap.cpp); used by read_matrix.
template <class Scalar>
HostCsr<Scalar> parse_matrix_market(const TextSource& src, MatrixMarketInfo& info,
                                    Progress& progress);
HostPattern parse_snap(const TextSource& src, const ReadOptions& options, Progress& progress);

/// Cache variant names.
template <class Scalar>
std::string mm_variant();
std::string snap_variant(const ReadOptions& options);

/// Whether the text is Matrix Market (starts with '%'), else a SNAP edge list.
bool looks_like_matrix_market(const std::string& text);

}  // namespace mimd::io_detail
