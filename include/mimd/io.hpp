// Readers of real data: Matrix Market (plain, .gz, SuiteSparse .tar.gz), SNAP edge
// lists (plain or .gz), a binary CSR cache, and a Matrix Market writer.
//
// Every reader throws mimd::ParseError naming the file, the 1-based line and the
// offending text for malformed input, and mimd::IoError when a file cannot be read.
// Readers never crash and never return a partially filled matrix.
#pragma once

#include <cstdint>
#include <string>

#include "mimd/csr.hpp"

namespace mimd {

/// What the Matrix Market banner said.
struct MatrixMarketInfo {
  std::string object = "matrix";
  std::string format;    ///< "coordinate" or "array"
  std::string field;     ///< "real", "integer", "pattern" ("complex" is rejected)
  std::string symmetry;  ///< "general", "symmetric", "skew-symmetric", "hermitian"
  std::int64_t rows = 0, cols = 0;
  std::int64_t entries_stored = 0;  ///< entries listed in the file
};

struct ReadOptions {
  /// Use (and create) the binary cache "<file>.mimdcsr" (or under $MIMD_CACHE_DIR
  /// when the file's folder is not writable). Rebuilt when the source changes or
  /// the cache is corrupt.
  bool use_cache = false;
  /// SNAP only: store both directions of every edge.
  bool symmetrize = false;
  /// SNAP only: renumber the ids actually used to 0..n-1 (in increasing id order)
  /// instead of sizing the graph by the largest id.
  bool compact_ids = false;
  /// Print a progress line on stderr for loads over a second (only on a terminal).
  bool progress = true;
};

/// Statistics of the last load, for the benchmark's MB/s figures.
struct LoadStats {
  std::uint64_t bytes = 0;  ///< uncompressed bytes parsed (0 when served from the cache)
  double seconds = 0;       ///< wall time of the whole load
  bool from_cache = false;
};

/// Reads a Matrix Market file (.mtx, .mtx.gz or a SuiteSparse .tar.gz holding one
/// Name/Name.mtx) into a host CSR matrix. Symmetric, skew-symmetric and hermitian
/// storage is expanded (the mirrored entry of skew-symmetric is negated); pattern
/// values are 1; duplicates are summed; explicit zeros kept; columns sorted.
template <class Scalar>
HostCsr<Scalar> read_matrix_market(const std::string& path, const ReadOptions& options = {},
                                   MatrixMarketInfo* info = nullptr, LoadStats* stats = nullptr);

/// Reads a SNAP edge list ("src dst" per line, '#' comments, tab or space separated,
/// LF or CRLF, plain or .gz) into a host pattern: row = source, column = destination.
HostPattern read_snap(const std::string& path, const ReadOptions& options = {},
                      LoadStats* stats = nullptr);

/// Reads either format, chosen by the content (a "%%MatrixMarket" banner or not).
/// SNAP graphs get value 1 on every edge.
template <class Scalar>
HostCsr<Scalar> read_matrix(const std::string& path, const ReadOptions& options = {},
                            LoadStats* stats = nullptr);

/// Writes a Matrix Market coordinate real general file (1-based, full precision).
template <class Scalar>
void write_matrix_market(const std::string& path, const HostCsr<Scalar>& a);

/// Writes a SNAP edge list (0-based "src\tdst" per line, with a '#' header).
void write_snap(const std::string& path, const HostPattern& g);

}  // namespace mimd
