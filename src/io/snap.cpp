// SNAP edge-list reader and writer. Same scheme as the Matrix Market reader: data
// lines parsed in parallel over chunks cut at line boundaries, errors reported with
// their global line number.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

#include "io/io_detail.hpp"
#include "sparse/csr_build.hpp"

namespace mimd {

namespace io_detail {

namespace {

/// Largest id: the graph has max id + 1 vertices, which must fit int32.
constexpr std::uint64_t kMaxId = std::numeric_limits<std::int32_t>::max() - 1;

struct Chunk {
  std::vector<std::int32_t> src, dst;
  std::int64_t max_id = -1;
  std::uint64_t max_id_line = 0;  ///< 0-based line of max_id inside the chunk
  std::uint64_t lines = 0;
  ChunkError error;
};

void parse_chunk(const char* begin, const char* end, const char* text_end, Chunk& c) {
  c.src.reserve(static_cast<std::size_t>(end - begin) / 8);
  c.dst.reserve(static_cast<std::size_t>(end - begin) / 8);
  const char* p = begin;
  const char* line_start = begin;
  auto fail = [&](ParseErrorKind kind, std::string detail, std::string text) {
    c.error = {true, kind, c.lines, std::move(detail), std::move(text)};
  };
  while (p < end) {
    line_start = p;
    p = skip_blanks(p, end);
    if (p == end) break;
    if (*p == '\n' || *p == '#') {
      if (!skip_line(p, end)) break;
      ++c.lines;
      continue;
    }
    std::uint64_t id[2] = {0, 0};
    const char* names[2] = {"source id", "destination id"};
    for (int k = 0; k < 2; ++k) {
      p = skip_blanks(p, end);
      if (p == end || *p == '\n') {
        c.error = missing_token(p, line_start, end, text_end, c.lines, names[k]);
        return;
      }
      const char* tok = p;
      const Scan s = scan_index(p, end, kMaxId, id[k]);
      if (s == Scan::NotANumber)
        return fail(
            ParseErrorKind::NotANumber,
            std::string("the ") + names[k] + " '" + token_at(tok, end) + "' is not an integer",
            token_at(tok, end));
      if (s != Scan::Ok)
        return fail(ParseErrorKind::IndexOutOfRange,
                    std::string("the ") + names[k] + " " + token_at(tok, end) + " is outside [0, " +
                        std::to_string(kMaxId) + "]",
                    line_text(line_start, end));
    }
    p = skip_blanks(p, end);
    if (p < end && *p != '\n')
      return fail(ParseErrorKind::NotANumber,
                  "unexpected text '" + token_at(p, end) +
                      "' after the edge (expected 'source destination')",
                  line_text(line_start, end));
    c.src.push_back(static_cast<std::int32_t>(id[0]));
    c.dst.push_back(static_cast<std::int32_t>(id[1]));
    const auto larger = static_cast<std::int64_t>(std::max(id[0], id[1]));
    if (larger > c.max_id) {
      c.max_id = larger;
      c.max_id_line = c.lines;
    }
    if (p < end) {
      ++p;
      ++c.lines;
    }
  }
}

// The parsed chunks as a Source for build_csr: every edge in file order, then
// (symmetrize) every reversed edge. Reversed self-loops are left out: they would
// merge with the originals.
struct EdgeSource {
  const std::vector<Chunk>& chunks;
  bool symmetrize;
  std::size_t segments() const { return chunks.size() * (symmetrize ? 2 : 1); }
  std::size_t weight(std::size_t seg) const { return chunks[seg % chunks.size()].src.size(); }
  template <class F>
  void each(std::size_t seg, F&& f) const {
    const Chunk& c = chunks[seg % chunks.size()];
    const std::size_t n = c.src.size();
    if (seg < chunks.size())
      for (std::size_t i = 0; i < n; ++i) f(c.src[i], c.dst[i], 1.0f);
    else
      for (std::size_t i = 0; i < n; ++i)
        if (c.src[i] != c.dst[i]) f(c.dst[i], c.src[i], 1.0f);
  }
};

}  // namespace

HostPattern parse_snap(const TextSource& src, const ReadOptions& options, Progress& progress) {
  const std::string& t = src.text;
  const int parts = chunk_count(t.size());
  const auto cuts = split_at_lines(t, 0, parts);
  std::vector<Chunk> chunks(static_cast<std::size_t>(parts));
  for_each_chunk(t, cuts, progress, [&](int k, const char* begin, const char* end) {
    parse_chunk(begin, end, t.data() + t.size(), chunks[k]);
  });
  std::uint64_t line = 1;
  std::size_t edges = 0;
  std::int64_t max_id = -1;
  std::uint64_t max_id_line = 0;
  const char* max_id_at = t.data();
  for (int k = 0; k < parts; ++k) {
    const Chunk& c = chunks[k];
    if (c.error.failed)
      throw ParseError(src.name, line + c.error.local_line, c.error.kind, c.error.detail,
                       c.error.text);
    if (c.max_id > max_id) {
      max_id = c.max_id;
      max_id_line = line + c.max_id_line;
      max_id_at = t.data() + cuts[k];
      for (std::uint64_t l = 0; l < c.max_id_line; ++l) skip_line(max_id_at, t.data() + t.size());
    }
    line += c.lines;
    edges += c.src.size();
  }
  if (edges == 0)
    throw ParseError(src.name, 0, ParseErrorKind::EmptyFile,
                     "no edges (only comments or blank lines)");
  if (!options.compact_ids) {
    // The largest id sizes the graph: row offsets and build counters (2 x 8 bytes a
    // vertex) and the CSR entries (4 bytes an edge, twice when symmetrized).
    const auto offsets = 16 * (static_cast<std::uint64_t>(max_id) + 2);
    check_budget(src.name, max_id_line, offsets + 4 * edges * (options.symmetrize ? 2 : 1),
                 "the id " + std::to_string(max_id) + " makes a graph of " +
                     std::to_string(max_id + 1) +
                     " vertices, which (row offsets alone: " + bytes_text(offsets / 2) + ")",
                 line_text(max_id_at, t.data() + t.size()),
                 "ReadOptions::compact_ids numbers only the ids used");
  }

  std::int64_t n = max_id + 1;
  if (options.compact_ids) {
    std::vector<std::int32_t> ids;
    ids.reserve(2 * edges);
    for (const Chunk& c : chunks) {
      ids.insert(ids.end(), c.src.begin(), c.src.end());
      ids.insert(ids.end(), c.dst.begin(), c.dst.end());
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    n = static_cast<std::int64_t>(ids.size());
    auto rank = [&](std::int32_t v) {
      return static_cast<std::int32_t>(std::lower_bound(ids.begin(), ids.end(), v) - ids.begin());
    };
#pragma omp parallel for schedule(dynamic, 1) if (parts > 1)
    for (int k = 0; k < parts; ++k) {
      for (auto& v : chunks[k].src) v = rank(v);
      for (auto& v : chunks[k].dst) v = rank(v);
    }
  }
  progress.update("building CSR", t.size(), t.size());
  const auto nv = static_cast<std::int32_t>(n);
  return csr_detail::build_csr<float, false>(nv, nv, EdgeSource{chunks, options.symmetrize},
                                             DuplicatePolicy::Sum, /*presorted=*/false)
      .pattern();
}

std::string snap_variant(const ReadOptions& options) {
  return std::string("snap") + (options.symmetrize ? "-sym" : "") +
         (options.compact_ids ? "-compact" : "");
}

}  // namespace io_detail

using namespace io_detail;

HostPattern read_snap(const std::string& path, const ReadOptions& options, LoadStats* stats) {
  Progress progress(options.progress, path);
  LoadStats st;
  HostPattern g;
  const std::string variant = snap_variant(options);
  if (options.use_cache && cache_load(path, variant, g, nullptr, &st.cache_bytes)) {
    st.from_cache = true;
  } else {
    const TextSource src = load_source(path, progress);
    g = parse_snap(src, options, progress);
    st.bytes = src.text.size();
    if (options.use_cache) st.cache_bytes = cache_store(path, variant, g, nullptr);
  }
  st.seconds = progress.seconds();
  progress.done();
  if (stats) *stats = st;
  return g;
}

void write_snap(const std::string& path, const HostPattern& g) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) throw IoError(path, std::string("cannot create: ") + std::strerror(errno));
  std::string buf = "# Directed graph written by mimd-kernels (0-based ids)\n# Nodes: " +
                    std::to_string(g.nrows) + " Edges: " + std::to_string(g.nnz()) +
                    "\n# FromNodeId\tToNodeId\n";
  bool ok = true;
  for (std::int32_t r = 0; r < g.nrows && ok; ++r) {
    for (auto j = g.row_map(r); j < g.row_map(r + 1); ++j) {
      append_number(buf, r);
      buf += '\t';
      append_number(buf, g.entries(j));
      buf += '\n';
    }
    if (buf.size() > (1u << 20)) {
      ok = std::fwrite(buf.data(), 1, buf.size(), f) == buf.size();
      buf.clear();
    }
  }
  finish_write(path, f, buf, ok);
}

}  // namespace mimd
