// Matrix Market reader and writer, and read_matrix (either format, by content).
//
// The header (banner, comments, size line) is read sequentially; the data lines are
// parsed in parallel over chunks cut at line boundaries, each chunk recording its
// line count and its first error, so that an error is reported with its global line
// number once the counts of the preceding chunks are known.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

#include "io/io_detail.hpp"
#include "sparse/csr_build.hpp"

namespace mimd {

namespace io_detail {

namespace {

using Symmetry = MmSymmetry;
using Header = MmHeader;
using Chunk = MmChunk;

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> split_blanks(const std::string& line) {
  std::vector<std::string> out;
  const char* p = line.data();
  const char* end = p + line.size();
  while ((p = skip_blanks(p, end)) < end) {
    const char* e = token_end(p, end);
    out.emplace_back(p, e);
    p = e;
  }
  return out;
}

// Total number of lines of the text (a last line without '\n' counts).
std::uint64_t count_lines(const std::string& text) {
  const auto n = static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n'));
  return n + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

}  // namespace

MmHeader parse_mm_header(const TextSource& src) {
  const std::string& t = src.text;
  const std::string& file = src.name;
  Header h;
  if (std::all_of(t.begin(), t.end(), [](char c) { return is_blank(c) || c == '\n'; }))
    throw ParseError(file, 0, ParseErrorKind::EmptyFile, "the file holds no data");
  std::size_t pos = 0;
  std::uint64_t line = 0;
  auto next_line = [&](std::string& out) {
    if (pos >= t.size()) return false;
    const std::size_t nl = t.find('\n', pos);
    const std::size_t e = nl == std::string::npos ? t.size() : nl;
    out.assign(t, pos, e - pos);
    pos = nl == std::string::npos ? t.size() : nl + 1;
    ++line;
    return true;
  };
  std::string banner;
  next_line(banner);
  const auto tok = split_blanks(banner);
  const char* expected_banner =
      "expected '%%MatrixMarket matrix <coordinate|array> <real|integer|pattern> "
      "<general|symmetric|skew-symmetric|hermitian>'";
  if (tok.empty() || lower(tok[0]) != "%%matrixmarket")
    throw ParseError(file, line, ParseErrorKind::BadBanner, expected_banner, banner);
  if (tok.size() != 5)
    throw ParseError(
        file, line, ParseErrorKind::BadBanner,
        std::string(expected_banner) + ", found " + std::to_string(tok.size()) + " words", banner);
  h.info.object = lower(tok[1]);
  h.info.format = lower(tok[2]);
  h.info.field = lower(tok[3]);
  h.info.symmetry = lower(tok[4]);
  if (h.info.object != "matrix")
    throw ParseError(file, line, ParseErrorKind::UnsupportedField,
                     "object '" + tok[1] + "' is not supported, only 'matrix'", banner);
  if (h.info.format != "coordinate" && h.info.format != "array")
    throw ParseError(file, line, ParseErrorKind::UnsupportedField,
                     "format '" + tok[2] + "' is not 'coordinate' or 'array'", banner);
  h.array = h.info.format == "array";
  if (h.info.field == "complex")
    throw ParseError(file, line, ParseErrorKind::UnsupportedField,
                     "field 'complex' is not supported: mimd-kernels matrices are real", banner);
  if (h.info.field != "real" && h.info.field != "double" && h.info.field != "integer" &&
      h.info.field != "pattern")
    throw ParseError(file, line, ParseErrorKind::UnsupportedField,
                     "field '" + tok[3] + "' is not 'real', 'integer' or 'pattern'", banner);
  h.pattern = h.info.field == "pattern";
  h.integer = h.info.field == "integer";
  if (h.array && h.pattern)
    throw ParseError(file, line, ParseErrorKind::UnsupportedField,
                     "field 'pattern' is only valid with format 'coordinate'", banner);
  if (h.info.symmetry == "general")
    h.symmetry = Symmetry::General;
  else if (h.info.symmetry == "symmetric")
    h.symmetry = Symmetry::Symmetric;
  else if (h.info.symmetry == "skew-symmetric")
    h.symmetry = Symmetry::SkewSymmetric;
  else if (h.info.symmetry == "hermitian")
    h.symmetry = Symmetry::Hermitian;
  else
    throw ParseError(
        file, line, ParseErrorKind::UnsupportedField,
        "symmetry '" + tok[4] + "' is not 'general', 'symmetric', 'skew-symmetric' or 'hermitian'",
        banner);
  if (h.pattern && h.symmetry == Symmetry::SkewSymmetric)
    throw ParseError(file, line, ParseErrorKind::UnsupportedField,
                     "a pattern matrix cannot be skew-symmetric", banner);

  std::string size_line;
  for (;;) {
    if (!next_line(size_line))
      throw ParseError(file, line + 1, ParseErrorKind::BadSizeLine,
                       "the file ends before the size line");
    const char* p = skip_blanks(size_line.data(), size_line.data() + size_line.size());
    if (p != size_line.data() + size_line.size() && *p != '%') break;
  }
  const std::size_t want = h.array ? 2 : 3;
  const char* what = h.array ? "'rows cols'" : "'rows cols entries'";
  const auto words = split_blanks(size_line);
  if (words.size() != want)
    throw ParseError(
        file, line, ParseErrorKind::BadSizeLine,
        std::string("expected ") + what + ", found " + std::to_string(words.size()) + " words",
        size_line);
  std::int64_t v[3] = {0, 0, 0};
  for (std::size_t k = 0; k < want; ++k) {
    const char* p = words[k].data();
    std::uint64_t x = 0;
    const Scan s =
        scan_index(p, p + words[k].size(),
                   static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()), x);
    if (s == Scan::Overflow)
      throw ParseError(file, line, ParseErrorKind::SizeOverflow,
                       "'" + words[k] + "' does not fit a 64-bit integer", size_line);
    if (s != Scan::Ok)
      throw ParseError(
          file, line, ParseErrorKind::BadSizeLine,
          std::string("expected ") + what + " as non-negative integers, found '" + words[k] + "'",
          size_line);
    v[k] = static_cast<std::int64_t>(x);
  }
  const std::int64_t imax = std::numeric_limits<std::int32_t>::max();
  if (v[0] > imax || v[1] > imax)
    throw ParseError(file, line, ParseErrorKind::SizeOverflow,
                     std::to_string(v[0]) + "x" + std::to_string(v[1]) +
                         " does not fit 32-bit ordinals (at most " + std::to_string(imax) + ")",
                     size_line);
  if (h.symmetry != Symmetry::General && v[0] != v[1])
    throw ParseError(file, line, ParseErrorKind::BadSizeLine,
                     "a " + h.info.symmetry + " matrix must be square, the size line says " +
                         std::to_string(v[0]) + "x" + std::to_string(v[1]),
                     size_line);
  h.info.rows = v[0];
  h.info.cols = v[1];
  if (!h.array) {
    h.expected = static_cast<std::uint64_t>(v[2]);
  } else {
    const auto n = static_cast<std::uint64_t>(v[0]);
    switch (h.symmetry) {
      case Symmetry::General:
        h.expected = n * static_cast<std::uint64_t>(v[1]);
        break;
      case Symmetry::Symmetric:
      case Symmetry::Hermitian:
        h.expected = n * (n + 1) / 2;
        break;
      case Symmetry::SkewSymmetric:
        h.expected = n == 0 ? 0 : n * (n - 1) / 2;
        break;
    }
  }
  h.info.entries_stored = static_cast<std::int64_t>(h.expected);
  // The claims against the file and the memory budget, before anything is allocated.
  // Each entry needs at least "1 1 1\n" (pattern: "1 1\n", array: "1\n") but the last '\n'.
  // A claim the bytes cannot hold fails fast in a large file; in a small one, parsing
  // costs nothing and finds the precise line (a missing token, where the file ends).
  constexpr std::uint64_t kCheapToParse = 1 << 20;
  const std::uint64_t min_bytes = h.array ? 2 : h.pattern ? 4 : 6;
  const std::uint64_t data_bytes = t.size() - pos;
  const std::uint64_t holdable = (data_bytes + 1) / min_bytes;
  if (h.expected > holdable && data_bytes > kCheapToParse)
    throw ParseError(file, line, ParseErrorKind::TooFewEntries,
                     "the size line declares " + std::to_string(h.expected) +
                         " entries, which need at least " + std::to_string(min_bytes) +
                         " bytes each, but only " + std::to_string(data_bytes) + " bytes follow it",
                     size_line);
  // Row offsets and build counters (2 x 8 bytes a row), parsed triplets (16 bytes an
  // entry) and the CSR entries (12 bytes each, twice for expanded symmetric storage).
  const auto offsets = 16 * (static_cast<std::uint64_t>(v[0]) + 1);
  const std::uint64_t per_entry = 16 + 12 * (h.symmetry == Symmetry::General ? 1 : 2);
  check_budget(file, line, offsets + per_entry * std::min(h.expected, holdable),
               "a " + std::to_string(v[0]) + "x" + std::to_string(v[1]) + " matrix with " +
                   std::to_string(h.expected) +
                   " entries, which (row offsets alone: " + bytes_text(offsets / 2) + ")",
               size_line);
  h.data_begin = pos;
  h.data_line = line + 1;
  return h;
}

void parse_mm_chunk(const MmHeader& h, const char* begin, const char* end, const char* text_end,
                    Chunk& c) {
  const auto reserve = static_cast<std::size_t>(end - begin) / 8;
  if (!h.array) {
    c.rows.reserve(reserve);
    c.cols.reserve(reserve);
  }
  if (!h.pattern) c.values.reserve(reserve);
  const char* p = begin;
  const char* line_start = begin;
  auto fail = [&](ParseErrorKind kind, std::string detail, std::string text) {
    c.error = {true, kind, c.lines, std::move(detail), std::move(text)};
  };
  auto missing = [&](const char* what) {
    c.error = missing_token(p, line_start, end, text_end, c.lines, what);
  };
  const std::uint64_t nrows = static_cast<std::uint64_t>(h.info.rows);
  const std::uint64_t ncols = static_cast<std::uint64_t>(h.info.cols);
  while (p < end) {
    line_start = p;
    p = skip_blanks(p, end);
    if (p == end) break;
    if (*p == '\n' || *p == '%') {
      if (!skip_line(p, end)) break;
      ++c.lines;
      continue;
    }
    std::uint64_t idx[2] = {0, 0};
    if (!h.array) {
      const char* names[2] = {"row index", "column index"};
      const std::uint64_t limit[2] = {nrows, ncols};
      for (int k = 0; k < 2; ++k) {
        p = skip_blanks(p, end);
        if (p == end || *p == '\n') return missing(names[k]);
        const char* tok = p;
        const Scan s = scan_index(p, end, limit[k], idx[k]);
        if (s == Scan::NotANumber)
          return fail(
              ParseErrorKind::NotANumber,
              std::string("the ") + names[k] + " '" + token_at(tok, end) + "' is not an integer",
              token_at(tok, end));
        if (s != Scan::Ok || idx[k] == 0)
          return fail(ParseErrorKind::IndexOutOfRange,
                      std::string("the ") + names[k] + " " + token_at(tok, end) +
                          " is outside [1, " + std::to_string(limit[k]) + "]",
                      line_text(line_start, end));
      }
    }
    double value = 1.0;
    if (!h.pattern) {
      p = skip_blanks(p, end);
      if (p == end || *p == '\n') return missing("value");
      const char* tok = p;
      const Scan s = h.integer ? scan_integer(p, end, value) : scan_double(p, end, value);
      if (s != Scan::Ok)
        return fail(ParseErrorKind::NotANumber,
                    "the value '" + token_at(tok, end) + "' is not " +
                        (h.integer ? "a 64-bit integer" : "a finite-range real number"),
                    token_at(tok, end));
    }
    p = skip_blanks(p, end);
    if (p < end && *p != '\n')
      return fail(ParseErrorKind::NotANumber,
                  "unexpected text '" + token_at(p, end) + "' after the entry",
                  line_text(line_start, end));
    if (!h.array) {
      if (h.symmetry == Symmetry::SkewSymmetric && idx[0] == idx[1] && value != 0.0)
        return fail(ParseErrorKind::IndexOutOfRange,
                    "a skew-symmetric matrix has a zero diagonal; entry (" +
                        std::to_string(idx[0]) + ", " + std::to_string(idx[1]) + ") is not",
                    line_text(line_start, end));
      c.rows.push_back(static_cast<std::int32_t>(idx[0] - 1));
      c.cols.push_back(static_cast<std::int32_t>(idx[1] - 1));
      if (h.symmetry != Symmetry::General && idx[0] != idx[1]) ++c.mirrored;
    }
    if (!h.pattern) c.values.push_back(value);
    ++c.entries;
    if (p < end) {
      ++p;
      ++c.lines;
    }
  }
}

// The parsed chunks as a Source for build_csr: the stored entries of every chunk,
// then (symmetric kinds) the mirrored off-diagonal ones of every chunk, each in file
// order. For the usual column-major lower triangle every row then receives its columns
// already sorted (stored ones below the diagonal, mirrored ones above).
namespace {

template <class Scalar>
struct ChunkSource {
  const std::vector<Chunk>& chunks;
  bool expand, pattern;
  Scalar mirror_sign;
  std::size_t segments() const { return chunks.size() * (expand ? 2 : 1); }
  std::size_t weight(std::size_t seg) const {
    return seg < chunks.size() ? chunks[seg].rows.size() : chunks[seg - chunks.size()].mirrored;
  }
  template <class F>
  void each(std::size_t seg, F&& f) const {
    const bool mirror = seg >= chunks.size();
    const Chunk& c = chunks[mirror ? seg - chunks.size() : seg];
    const std::size_t n = c.rows.size();
    const std::int32_t* rows = c.rows.data();
    const std::int32_t* cols = c.cols.data();
    const double* vals = c.values.data();
    if (!mirror && pattern)
      for (std::size_t i = 0; i < n; ++i) f(rows[i], cols[i], Scalar(1));
    else if (!mirror)
      for (std::size_t i = 0; i < n; ++i) f(rows[i], cols[i], static_cast<Scalar>(vals[i]));
    else if (pattern)
      for (std::size_t i = 0; i < n; ++i) {
        if (rows[i] != cols[i]) f(cols[i], rows[i], Scalar(1));
      }
    else
      for (std::size_t i = 0; i < n; ++i)
        if (rows[i] != cols[i]) f(cols[i], rows[i], mirror_sign * static_cast<Scalar>(vals[i]));
  }
};

}  // namespace

const char* find_mm_entry(const char* begin, const char* end, std::uint64_t k,
                          std::uint64_t& line) {
  line = 0;
  for (const char* p = begin; p < end; ++line) {
    const char* q = skip_blanks(p, end);
    const bool data = q < end && *q != '\n' && *q != '%';
    if (data && k-- == 0) return p;
    if (!skip_line(p, end)) break;
  }
  return end;
}

template <class Scalar>
HostCsr<Scalar> parse_matrix_market(const TextSource& src, MatrixMarketInfo& info,
                                    Progress& progress) {
  const Header h = parse_mm_header(src);
  info = h.info;
  const std::string& t = src.text;
  const int parts = chunk_count(t.size() - h.data_begin);
  const auto cuts = split_at_lines(t, h.data_begin, parts);
  std::vector<Chunk> chunks(static_cast<std::size_t>(parts));
  for_each_chunk(t, cuts, progress, [&](int k, const char* begin, const char* end) {
    parse_mm_chunk(h, begin, end, t.data() + t.size(), chunks[k]);
  });
  std::uint64_t line = h.data_line, entries = 0;
  for (int k = 0; k < parts; ++k) {
    const Chunk& c = chunks[k];
    if (entries + c.entries > h.expected) {
      std::uint64_t local = 0;
      const char* at =
          find_mm_entry(t.data() + cuts[k], t.data() + cuts[k + 1], h.expected - entries, local);
      throw ParseError(src.name, line + local, ParseErrorKind::TooManyEntries,
                       "the size line declares " + std::to_string(h.expected) +
                           " entries; this line holds one more",
                       line_text(at, t.data() + t.size()));
    }
    if (c.error.failed)
      throw ParseError(src.name, line + c.error.local_line, c.error.kind, c.error.detail,
                       c.error.text);
    line += c.lines;
    entries += c.entries;
  }
  if (entries < h.expected)
    throw ParseError(src.name, count_lines(t) + 1, ParseErrorKind::TooFewEntries,
                     "the size line declares " + std::to_string(h.expected) +
                         " entries, the file ends after " + std::to_string(entries));

  const bool expand = h.symmetry != Symmetry::General;
  const Scalar mirror_sign = h.symmetry == Symmetry::SkewSymmetric ? Scalar(-1) : Scalar(1);
  if (!h.array) {
    progress.update("building CSR", t.size(), t.size());
    const ChunkSource<Scalar> source{chunks, expand, h.pattern, mirror_sign};
    return csr_detail::build_csr<Scalar, true>(static_cast<std::int32_t>(h.info.rows),
                                               static_cast<std::int32_t>(h.info.cols), source,
                                               DuplicatePolicy::Sum, /*presorted=*/false);
  }
  CooMatrix<Scalar> coo;
  coo.nrows = h.info.rows;
  coo.ncols = h.info.cols;
  // Array format: column-major; symmetric kinds store the lower triangle (skew: strictly lower).
  const auto nrows = static_cast<std::int32_t>(h.info.rows);
  const auto ncols = static_cast<std::int32_t>(h.info.cols);
  std::int32_t i = 0, j = 0;
  if (h.symmetry == Symmetry::SkewSymmetric) i = 1;
  auto advance = [&]() {
    if (++i < nrows) return;
    ++j;
    i = h.symmetry == Symmetry::General ? 0 : (h.symmetry == Symmetry::SkewSymmetric ? j + 1 : j);
  };
  for (const Chunk& c : chunks)
    for (const double x : c.values) {
      while (j < ncols && i >= nrows) advance();
      const auto v = static_cast<Scalar>(x);
      coo.rows.push_back(i);
      coo.cols.push_back(j);
      coo.values.push_back(v);
      if (expand && i != j) {
        coo.rows.push_back(j);
        coo.cols.push_back(i);
        coo.values.push_back(mirror_sign * v);
      }
      advance();
    }
  chunks.clear();
  progress.update("building CSR", t.size(), t.size());
  return csr_from_coo(coo, DuplicatePolicy::Sum);
}

template <class Scalar>
std::string mm_variant() {
  return sizeof(Scalar) == 4 ? "mm-f32" : "mm-f64";
}

}  // namespace io_detail

using namespace io_detail;

template <class Scalar>
HostCsr<Scalar> read_matrix_market(const std::string& path, const ReadOptions& options,
                                   MatrixMarketInfo* info, LoadStats* stats) {
  Progress progress(options.progress, path);
  LoadStats st;
  MatrixMarketInfo inf;
  HostCsr<Scalar> a;
  const std::string variant = mm_variant<Scalar>();
  if (options.use_cache && cache_load(path, variant, a, &inf, &st.cache_bytes)) {
    st.from_cache = true;
  } else {
    const TextSource src = load_source(path, progress);
    a = parse_matrix_market<Scalar>(src, inf, progress);
    st.bytes = src.text.size();
    if (options.use_cache) st.cache_bytes = cache_store(path, variant, a, &inf);
  }
  st.seconds = progress.seconds();
  progress.done();
  if (info) *info = inf;
  if (stats) *stats = st;
  return a;
}

template <class Scalar>
HostCsr<Scalar> read_matrix(const std::string& path, const ReadOptions& options, LoadStats* stats) {
  Progress progress(options.progress, path);
  LoadStats st;
  HostCsr<Scalar> a;
  HostPattern g;
  MatrixMarketInfo inf;
  const std::string mm = mm_variant<Scalar>(), snap = snap_variant(options);
  if (options.use_cache && cache_load(path, mm, a, &inf, &st.cache_bytes)) {
    st.from_cache = true;
  } else if (options.use_cache && cache_load(path, snap, g, nullptr, &st.cache_bytes)) {
    st.from_cache = true;
    a = with_unit_values<Scalar>(g);
  } else {
    const TextSource src = load_source(path, progress);
    st.bytes = src.text.size();
    if (looks_like_matrix_market(src.text)) {
      a = parse_matrix_market<Scalar>(src, inf, progress);
      if (options.use_cache) st.cache_bytes = cache_store(path, mm, a, &inf);
    } else {
      g = parse_snap(src, options, progress);
      if (options.use_cache) st.cache_bytes = cache_store(path, snap, g, nullptr);
      a = with_unit_values<Scalar>(g);
    }
  }
  st.seconds = progress.seconds();
  progress.done();
  if (stats) *stats = st;
  return a;
}

template <class Scalar>
void write_matrix_market(const std::string& path, const HostCsr<Scalar>& a) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) throw IoError(path, std::string("cannot create: ") + std::strerror(errno));
  std::string buf = "%%MatrixMarket matrix coordinate real general\n%written by mimd-kernels\n" +
                    std::to_string(a.nrows) + " " + std::to_string(a.ncols) + " " +
                    std::to_string(a.nnz()) + "\n";
  bool ok = true;
  for (std::int32_t r = 0; r < a.nrows && ok; ++r) {
    for (auto j = a.row_map(r); j < a.row_map(r + 1); ++j) {
      append_number(buf, r + 1);
      buf += ' ';
      append_number(buf, a.entries(j) + 1);
      buf += ' ';
      append_number(buf, a.values(j));
      buf += '\n';
    }
    if (buf.size() > (1u << 20)) {
      ok = std::fwrite(buf.data(), 1, buf.size(), f) == buf.size();
      buf.clear();
    }
  }
  finish_write(path, f, buf, ok);
}

#define MIMD_INSTANTIATE_MM(S)                                                                    \
  template HostCsr<S> read_matrix_market<S>(const std::string&, const ReadOptions&,               \
                                            MatrixMarketInfo*, LoadStats*);                       \
  template HostCsr<S> read_matrix<S>(const std::string&, const ReadOptions&, LoadStats*);         \
  template void write_matrix_market<S>(const std::string&, const HostCsr<S>&);                    \
  template HostCsr<S> io_detail::parse_matrix_market<S>(const io_detail::TextSource&,             \
                                                        MatrixMarketInfo&, io_detail::Progress&); \
  template std::string io_detail::mm_variant<S>();
MIMD_INSTANTIATE_MM(float)
MIMD_INSTANTIATE_MM(double)
#undef MIMD_INSTANTIATE_MM

}  // namespace mimd
