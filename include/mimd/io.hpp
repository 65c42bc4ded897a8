// Readers of real data: Matrix Market (plain, .gz, SuiteSparse .tar.gz), SNAP edge
// lists (plain or .gz), a binary CSR cache, and Matrix Market and SNAP writers.
//
// Data lines are parsed in parallel (OpenMP over chunks cut at line boundaries, integers
// and doubles scanned with std::from_chars-style code, no iostreams); gzip is inflated
// with zlib, tar archives read with libarchive.
//
// Every reader throws mimd::ParseError naming the file, the 1-based line and the
// offending text for malformed input, and mimd::IoError when a file cannot be read
// (including a directory, FIFO or device: only regular files are read, and they are
// checked before open() could block). Readers never crash and never return a
// partially filled matrix.
//
// Memory budget: before allocating, every reader checks what the input claims (the
// file size, the Matrix Market size line, the largest SNAP id, an archive member's
// size, the inflated size of gzip data) against a budget: $MIMD_MEMORY_BUDGET (bytes,
// optionally followed by K, M or G) when set, else the available memory
// (MemAvailable). A claim over it is ParseError TooLarge naming the file, the line and
// the claim; a Matrix Market entry count that the file's bytes cannot hold is
// TooFewEntries at the size line; gzip data holding a NUL byte is NotText, found as it
// is inflated, within the MiB of output that holds it (a gzip bomb of zeros ends there).
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
  /// Use (and create) a binary CSR cache of the parsed matrix, so that a file is
  /// parsed once. The cache lives in $MIMD_CACHE_DIR, else $XDG_CACHE_HOME/mimd-kernels/csr,
  /// else ~/.cache/mimd-kernels/csr, never beside the data (a read-only data folder is the
  /// normal case): "<name>-<hash of its absolute path>.<variant>.mimdcsr" (variant:
  /// "mm-f64", "mm-f32", "snap", "snap-sym", "snap-compact", "snap-sym-compact"). It
  /// records the source's size, mtime and CRC-32s of its first and last 64 KiB, and
  /// CRC-32s of its own header and payload; it is rebuilt when the source changed or any
  /// check fails (never trusted blindly). It is written to a temporary file then renamed;
  /// a cache that cannot be written is silently skipped.
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
  double seconds = 0;       ///< wall time of the whole load (cache write included)
  bool from_cache = false;
  std::uint64_t cache_bytes = 0;  ///< bytes read from, or written to, the cache (0: none)
};

/// Reads a Matrix Market file (.mtx, .mtx.gz or a SuiteSparse .tar.gz holding one
/// Name/Name.mtx) into a host CSR matrix. Compression and archives are recognised by
/// content, not by name. Formats: coordinate and array (column-major); fields real,
/// integer and pattern (complex is rejected: UnsupportedField); symmetries general,
/// symmetric, skew-symmetric and hermitian. Symmetric storage is expanded (an entry
/// given above the diagonal is accepted and mirrored too; the mirrored entry of
/// skew-symmetric is negated, and its diagonal must be zero); pattern values are 1;
/// duplicates are summed; explicit zeros kept; columns sorted. Indices are 1-based
/// and checked against the size line. Lines may end in LF or CRLF; '%' lines are
/// comments; blank lines are skipped.
/// @param info   when non-null, receives the banner and size line
/// @param stats  when non-null, receives the load statistics
/// @throws ParseError naming the file (and archive member), the line and the text
/// @throws IoError when the file cannot be read
template <class Scalar>
HostCsr<Scalar> read_matrix_market(const std::string& path, const ReadOptions& options = {},
                                   MatrixMarketInfo* info = nullptr, LoadStats* stats = nullptr);

/// Reads a SNAP edge list ("src dst" per line, '#' comments, tab or space separated,
/// LF or CRLF, plain or .gz) into a host pattern: row = source, column = destination.
/// Ids are 0-based and at most 2^31 - 2; the graph has max id + 1 vertices (or, with
/// compact_ids, one per id used). Repeated edges are merged. A file with no edge is
/// rejected (EmptyFile).
/// @throws ParseError naming the file, the line and the text; IoError
HostPattern read_snap(const std::string& path, const ReadOptions& options = {},
                      LoadStats* stats = nullptr);

/// Reads either format, chosen by the content (a "%%MatrixMarket" banner or not).
/// SNAP graphs get value 1 on every edge.
template <class Scalar>
HostCsr<Scalar> read_matrix(const std::string& path, const ReadOptions& options = {},
                            LoadStats* stats = nullptr);

/// Writes a Matrix Market coordinate real general file (1-based, shortest decimal
/// that reads back to the same Scalar).
/// @throws IoError when the file cannot be written
template <class Scalar>
void write_matrix_market(const std::string& path, const HostCsr<Scalar>& a);

/// Writes a SNAP edge list (0-based "src\tdst" per line, with a '#' header). Reading it
/// back gives max id + 1 vertices, so trailing isolated vertices are not kept.
/// @throws IoError when the file cannot be written
void write_snap(const std::string& path, const HostPattern& g);

}  // namespace mimd
